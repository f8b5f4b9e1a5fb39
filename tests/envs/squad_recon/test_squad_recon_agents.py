"""Agents: the fair heuristic sees only observations; heuristic and oracle never lose squads;
the heuristic's search and attack choices on hand-built situations; the red team stays low."""

from __future__ import annotations

import types

import numpy as np
from helpers import make_vec
from squad_recon_cases import ID

from hiddengrid.design.squad_recon.redteam import PLANS, fixed_plan_agents
from hiddengrid.envs.squad_recon.agents import AGENTS, SearchAgent, keep_attacks_safe
from hiddengrid.envs.squad_recon.constants import (
    ATTACK,
    HOLD,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
)
from hiddengrid.evaluate import run_episodes


def test_agents_are_registered():
    assert set(AGENTS) == {"random", "heuristic", "oracle"}
    assert not AGENTS["heuristic"].reads_scenario and AGENTS["oracle"].reads_scenario


def test_heuristic_uses_only_the_observation():
    venv = make_vec(ID, 16)
    obs, _ = venv.reset(seed=3)
    fake_env = types.SimpleNamespace(num_envs=16)  # no batch, no hidden state
    agent = SearchAgent(fake_env)
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
    assert results["heuristic"].success_rate > 0.5
    assert results["oracle"].success_rate > results["heuristic"].success_rate + 0.05


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


# --- the heuristic on hand-built situations -------------------------------------------------------


def observation(terrain, squads, camps=((0, 0, 0, 0), (0, 0, 0, 0))):
    """A one-env observation batch as the agent reads it (terrain -1 = unexplored)."""
    return {
        "terrain": np.asarray(terrain, dtype=np.int8)[None],
        "squads": np.asarray(squads, dtype=np.int8)[None],
        "camps": np.asarray(camps, dtype=np.int8)[None],
    }


def act_once(obs, starts=True):
    agent = SearchAgent(types.SimpleNamespace(num_envs=1))
    return agent.act(obs, np.array([starts]))[0]


def explored(unexplored=()):
    """All open and explored except the listed cells."""
    terrain = np.zeros((15, 15), dtype=np.int8)
    for r, c in unexplored:
        terrain[r, c] = -1
    return terrain


DEAD = (14, 0, 1, 0)


def test_a_squad_heads_for_the_most_unexplored_cells_for_the_distance():
    # A block of 15 unexplored cells four steps north against one cell two steps east
    # (15 / 4 ** 2 against 1 / 2 ** 2).
    block = [(r, c) for r in range(3) for c in range(5, 10)]
    obs = observation(explored([*block, (7, 12)]), [(7, 7, 2, 1), DEAD, DEAD])
    assert act_once(obs)[0] == MOVE_NORTH


def test_cells_where_no_camp_can_stand_are_not_searched():
    # 16 unexplored cells in the start corner (Chebyshev < 5 from [14, 0]: no camp there)
    # against 3 cells in the north-east: the squad goes north-east, not south-west.
    corner = [(r, c) for r in range(11, 15) for c in range(4)]
    obs = observation(explored([*corner, (0, 12), (0, 13), (0, 14)]), [(7, 7, 2, 1), DEAD, DEAD])
    assert act_once(obs)[0] in (1, 3)  # north or east
    obs = observation(explored(corner), [(7, 7, 2, 1), DEAD, DEAD])
    assert act_once(obs)[0] in (2, 4)  # with nothing else left, the corner's frontier


def test_squads_search_apart():
    # From one cell, two pockets of unexplored cells north and west: the first squad takes
    # one, the second the other (each squad counts only cells no earlier squad will see).
    north = [(r, c) for r in range(2) for c in range(6, 9)]
    west = [(r, c) for r in range(6, 9) for c in range(2)]
    obs = observation(explored(north + west), [(7, 7, 2, 1), (7, 7, 2, 1), DEAD])
    orders = act_once(obs)
    assert sorted(orders[:2]) == sorted([MOVE_NORTH, MOVE_WEST])


def explored_after(steps: int, together: bool) -> float:
    """Mean explored cells over 64 seeded maps after ``steps`` heuristic steps; ``together``
    makes every squad take squad 1's order instead (the squads then move as one)."""
    venv = make_vec(ID, 64)
    obs, _ = venv.reset(seed=4_000_000)
    agent = SearchAgent(venv.unwrapped)
    starts = np.ones(64, dtype=bool)
    for _ in range(steps):
        actions = agent.act(obs, starts)
        if together:
            actions[:, 1:] = actions[:, :1]
        obs, *_ = venv.step(actions)
        starts[:] = False
    return float((obs["terrain"] != -1).sum(axis=(1, 2)).mean())


def test_searching_apart_explores_more_than_moving_as_one():
    # Measured: about 92 cells apart against 70 as one after 10 steps.
    assert explored_after(10, together=False) > explored_after(10, together=True) + 12


CAMP_A = (5, 6, 3, 1)  # detected, strength 3, at [5, 6]
CAMP_B = (12, 12, 2, 1)


def test_attacks_only_with_more_strength_than_the_camp():
    # Both camps detected, all squads next to camp A. Total 3 does not beat 3: nobody attacks
    # (no live total beats A, so the plan leaves it and the squads head for B).
    weak = [(5, 5, 1, 1), (5, 5, 1, 1), (4, 6, 1, 1)]
    orders = act_once(observation(explored(), weak, (CAMP_A, CAMP_B)))
    assert ATTACK not in orders
    # Total 4 beats 3: every squad next to A that the plan sends there attacks.
    strong = [(5, 5, 2, 1), (5, 5, 1, 1), (4, 6, 1, 1)]
    orders = act_once(observation(explored(), strong, (CAMP_A, CAMP_B)))
    assert ATTACK in orders


def test_waits_for_the_strength_to_arrive_before_attacking():
    # Only squad 1 (strength 2) is next to camp A (strength 3); the others are far: it holds.
    squads = [(5, 5, 2, 1), (10, 2, 2, 1), (10, 3, 2, 1)]
    orders = act_once(observation(explored(), squads, (CAMP_A, (0, 0, 0, 0))))
    assert orders[0] == HOLD


def test_a_detected_camp_is_struck_while_the_other_is_searched():
    # Camp A detected, the other not: the squads that beat A together fastest strike A
    # (here squad 1 and squad 2, next to it: total 4 > 3); squad 3 searches on.
    unexplored = [(r, c) for r in range(3) for c in range(12, 15)]
    squads = [(5, 5, 2, 1), (4, 6, 2, 1), (12, 3, 1, 1)]
    orders = act_once(observation(explored(unexplored), squads, (CAMP_A, (0, 0, 0, 0))))
    assert orders[0] == ATTACK and orders[1] == ATTACK
    assert orders[2] in (1, 3)  # north or east, towards the unexplored cells


def test_an_attack_counts_the_squads_where_they_will_be_after_this_step():
    camps = np.array([[CAMP_A, CAMP_B]], dtype=np.int8)
    remaining = np.ones(2, dtype=np.bool_)

    def checked(squads, orders):
        out = np.array([orders], dtype=np.int64)
        keep_attacks_safe(0, np.array([squads], dtype=np.int8), camps, remaining, out)
        return list(out[0])

    # Squad 1 (2) attacks camp A (3); squad 2 (2) steps in from the north: 4 > 3, attack kept.
    squads = [(5, 5, 2, 1), (3, 6, 2, 1), (12, 3, 1, 1)]
    assert checked(squads, [ATTACK, MOVE_SOUTH, HOLD]) == [ATTACK, MOVE_SOUTH, HOLD]
    # Squad 2 stands next to A but walks away this step: only 2 remain, the attack becomes a hold.
    squads = [(5, 5, 2, 1), (4, 6, 2, 1), (12, 3, 1, 1)]
    assert checked(squads, [ATTACK, MOVE_NORTH, HOLD]) == [HOLD, MOVE_NORTH, HOLD]
    # Staying, it counts: 4 > 3.
    assert checked(squads, [ATTACK, HOLD, HOLD]) == [ATTACK, HOLD, HOLD]
    # A destroyed squad next to A does not count.
    squads = [(5, 5, 2, 1), (4, 6, 2, 0), (12, 3, 1, 1)]
    assert checked(squads, [ATTACK, HOLD, HOLD]) == [HOLD, HOLD, HOLD]


def test_heuristic_never_loses_a_squad_step_by_step():
    n = 2000
    venv = make_vec(ID, n)
    obs, _ = venv.reset(seed=0)
    agent = SearchAgent(venv.unwrapped)
    starts = np.ones(n, dtype=bool)
    ended_last = np.zeros(n, dtype=bool)
    for _ in range(40):
        obs, _, term, _, _ = venv.step(agent.act(obs, starts))
        assert (obs["squads"][:, :, 3] == 1).all()  # a win ends no squad; a failed attack would
        starts = ended_last  # next-step autoreset: the observation after an end is a first one
        ended_last = term


def test_heuristic_success_level_on_held_out_seeds():
    # About 68 % at this count; the old keep-together search won 44 %.
    result = run_episodes(ID, "heuristic", 300, seed=3_000_000, batch_size=300)
    assert result.success_rate >= 0.55
    assert result.outcomes.get("wiped_out", 0) == 0


# --- red team -------------------------------------------------------------------------------------


def test_fixed_plans_ignore_the_observation_and_rarely_win():
    agents = fixed_plan_agents()
    assert set(agents) == set(PLANS)
    venv = make_vec(ID, 4)
    obs, _ = venv.reset(seed=1)
    agent = agents["fan out"](venv.unwrapped)
    starts = np.ones(4, dtype=bool)
    first = agent.act(obs, starts)
    assert (first == PLANS["fan out"][0]).all()
    obs = {key: np.zeros_like(value) for key, value in obs.items()}  # blanked: same orders
    assert (agent.act(obs, np.zeros(4, dtype=bool)) == PLANS["fan out"][1]).all()
    for name, cls in agents.items():
        result = run_episodes(ID, name, 300, seed=7, batch_size=300, agent_factory=cls)
        assert result.success_rate < 0.03, name
