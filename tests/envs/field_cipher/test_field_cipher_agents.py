"""Agents: the oracle's 8-action perfect answer, the table learner learns, random is the floor."""

import gymnasium as gym
import numpy as np
from fc_helpers import ENV_ID

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher.agents import AGENTS, TableLearnerAgent
from hiddengrid.evaluate import run_episodes


def test_agents_are_registered():
    assert set(AGENTS) == {"random", "heuristic", "oracle"}
    assert AGENTS["oracle"].reads_scenario and not AGENTS["heuristic"].reads_scenario


def test_oracle_scores_1_in_8_actions_at_every_level():
    for level in range(4):
        res = run_episodes(ENV_ID, "oracle", 400, seed=level, env_kwargs={"level": level})
        assert res.success_rate == 1.0 and res.mean_return == 1.0
        assert res.mean_length == 8.0
        assert res.outcomes == {"submitted": 400}


def test_random_is_the_floor():
    res = run_episodes(ENV_ID, "random", 1000, seed=0)
    assert res.mean_return < 0.1


def _sequential(level, episodes, seed=0, use_rewards=True):
    """One learner plays ``episodes`` episodes one after another (a batch of one)."""
    venv = gym.make_vec(ENV_ID, num_envs=1, vectorization_mode="vector_entry_point", level=level)
    agent = TableLearnerAgent(venv.unwrapped, use_rewards=use_rewards)
    obs, _ = venv.reset(seed=seed)
    returns = []
    starts = np.ones(1, dtype=bool)
    while len(returns) < episodes:
        obs, reward, term, trunc, _ = venv.step(agent.act(obs, starts))
        agent.observe(reward, term, trunc)
        starts = np.zeros(1, dtype=bool)
        if term[0]:
            returns.append(float(reward[0]))
            obs, reward, term, trunc, _ = venv.step(agent.act(obs, starts))  # the autoreset step
            agent.observe(reward, term, trunc)
            starts = np.ones(1, dtype=bool)
    return np.array(returns), agent


def test_table_learner_learns_across_episodes():
    returns, agent = _sequential(level=2, episodes=400)
    assert returns[:20].mean() < 0.6
    assert returns[-100:].mean() > 0.95
    assert agent.known[0] >= 75


def test_table_learner_learns_from_partial_credit_not_only_hints():
    # Level 0 writes only 4 canonical patterns, which hints show rarely (4 in 81 per episode):
    # the rewards of finished episodes are what makes the early episodes good.
    with_rewards = np.mean([_sequential(0, 30, seed=s)[0].mean() for s in range(4)])
    hints_only = np.mean(
        [_sequential(0, 30, seed=s, use_rewards=False)[0].mean() for s in range(4)]
    )
    assert with_rewards > hints_only + 0.1


def test_table_learner_keeps_one_table_per_sub_env():
    # The table used to be shared across the batch, so an evaluation scored 0 %, 20 % or 100 %
    # depending on --episodes (the batch size); each sub-env now learns from its own episodes.
    venv = gym.make_vec(ENV_ID, num_envs=64, vectorization_mode="vector_entry_point", level=3)
    agent = TableLearnerAgent(venv.unwrapped)
    obs, _ = venv.reset(seed=0)
    agent.act(obs, np.ones(64, dtype=bool))
    for i in range(64):
        assert agent.known[i] == len({tuple(h) for h in obs["hints"][i].tolist()})


def test_table_learner_eval_does_not_depend_on_the_batch_layout():
    whole = run_episodes(ENV_ID, "heuristic", 300, seed=5, batch_size=300)
    split = run_episodes(ENV_ID, "heuristic", 300, seed=5, batch_size=7)
    assert whole.returns == split.returns
    first = run_episodes(ENV_ID, "heuristic", 1, seed=5)
    assert first.returns == whole.returns[:1]


def test_table_learner_only_reads_observations_and_rewards():
    venv = gym.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", level=1)
    agent = TableLearnerAgent(venv.unwrapped)
    obs, _ = venv.reset(seed=0)
    venv.unwrapped.batch["message"][:] = 0  # the hidden message is not used
    a1 = agent.act(obs, np.ones(4, dtype=bool))
    agent2 = TableLearnerAgent(venv.unwrapped)
    assert (agent2.act(obs, np.ones(4, dtype=bool)) == a1).all()
