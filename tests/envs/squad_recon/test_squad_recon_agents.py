"""Agents: the fair heuristic sees only observations; heuristic and oracle never lose squads."""

from __future__ import annotations

import types

import numpy as np
from helpers import make_vec
from squad_recon_cases import ID

from hiddengrid.envs.squad_recon.agents import AGENTS, FrontierAgent
from hiddengrid.evaluate import run_episodes


def test_agents_are_registered():
    assert set(AGENTS) == {"random", "heuristic", "oracle"}
    assert not AGENTS["heuristic"].reads_scenario and AGENTS["oracle"].reads_scenario


def test_heuristic_uses_only_the_observation():
    venv = make_vec(ID, 16)
    obs, _ = venv.reset(seed=3)
    fake_env = types.SimpleNamespace(num_envs=16)  # no batch, no hidden state
    agent = FrontierAgent(fake_env)
    starts = np.ones(16, dtype=bool)
    for _ in range(40):
        actions = agent.act(obs, starts)
        assert actions.shape == (16, 3) and actions.dtype == np.int64
        assert ((actions >= 0) & (actions < 6)).all()
        obs, *_ = venv.step(actions)
        starts[:] = False


def test_oracle_and_heuristic_never_lose_a_squad_and_rank_above_random():
    results = {name: run_episodes(ID, name, 600, seed=11, batch_size=300) for name in AGENTS}
    for name in ("heuristic", "oracle"):
        assert results[name].outcomes.get("wiped_out", 0) == 0
    assert results["random"].success_rate < 0.02
    assert results["heuristic"].success_rate > 0.3
    assert results["oracle"].success_rate > results["heuristic"].success_rate + 0.2


def test_oracle_wins_almost_every_winnable_episode():
    venv = make_vec(ID, 500)
    venv.reset(seed=5)
    b = venv.unwrapped.batch
    winnable = b["start_squads"][:, :, 2].sum(1) > b["camps"][:, :, 2].max(1)
    result = run_episodes(ID, "oracle", 500, seed=5, batch_size=500)
    assert result.successes <= winnable.sum()
    assert result.successes >= 0.97 * winnable.sum()


def test_oracle_keeps_squads_alive_step_by_step():
    venv = make_vec(ID, 200)
    obs, _ = venv.reset(seed=8)
    agent = AGENTS["oracle"](venv.unwrapped)
    starts = np.ones(200, dtype=bool)
    for _ in range(40):
        obs, _, term, _, _ = venv.step(agent.act(obs, starts))
        live = obs["squads"][:, :, 3]
        assert (live[~term] == 1).all()
        starts = term
