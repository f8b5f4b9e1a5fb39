"""Sharded evaluation equals a single run for any shard size: the sharding itself without
Ray, and Ray tasks on a local Ray where the ``ray`` extra is installed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hiddengrid import ENV_IDS, definition_of
from hiddengrid.core.agents import RandomAgent
from hiddengrid.evaluate import EvalResult, run_episodes
from hiddengrid.ray_eval import merge_results, run_sharded, shard_ranges

IDS = list(ENV_IDS)
EPISODES, BATCH = 23, 8  # shards of 1, 5 and 9 cut across the batches of the single run


def _same(a: EvalResult, b: EvalResult) -> None:
    assert a.as_dict() == b.as_dict()
    assert a.returns == b.returns
    assert a.lengths == b.lengths


@given(
    episodes=st.integers(1, 500),
    shard=st.integers(1, 600),
    batch=st.integers(1, 64),
    aligned=st.booleans(),
)
def test_shards_cover_every_episode_once_in_order(
    episodes: int, shard: int, batch: int, aligned: bool
) -> None:
    ranges = shard_ranges(episodes, shard, batch, aligned)
    covered = [k for a, n in ranges for k in range(a, a + n)]
    assert covered == list(range(episodes))
    assert all(n >= 1 for _, n in ranges)
    if aligned:
        assert all(a % batch == 0 for a, _ in ranges)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_shard_size_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="shard size"):
        shard_ranges(10, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("env_id", IDS)
def test_sharded_equals_single_run_for_every_agent(env_id: str) -> None:
    for agent in definition_of(env_id).agents:
        single = run_episodes(env_id, agent, EPISODES, seed=5, batch_size=BATCH)
        for shard in (1, 5, 9):
            sharded = run_sharded(
                env_id, agent, EPISODES, seed=5, shard_size=shard, batch_size=BATCH
            )
            _same(sharded, single)


@pytest.mark.parametrize("env_id", IDS)
def test_random_agent_plays_an_episode_the_same_in_any_batch(env_id: str) -> None:
    # The agent's stream for sub-env i is fixed by seed + i: the same episode in a batch of
    # 1 and in the middle of a batch of 6 gets the same actions.
    alone = run_episodes(env_id, "random", 1, seed=13, batch_size=1)
    among = run_episodes(env_id, "random", 6, seed=10, batch_size=6)
    assert among.returns[3] == alone.returns[0]
    assert among.lengths[3] == alone.lengths[0]


def test_random_agent_streams_differ_from_the_env_streams() -> None:
    import gymnasium as gym

    venv = gym.make_vec(IDS[0], num_envs=4, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    agent = RandomAgent(venv.unwrapped, seed=0)
    assert not np.array_equal(agent.streams, venv.unwrapped.batch.rng)


def test_merge_of_one_part_is_that_part() -> None:
    single = run_episodes(IDS[0], "random", 9, seed=1, batch_size=4)
    _same(merge_results([single]), single)


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("shard", [4, 11])
def test_ray_tasks_equal_a_single_run(local_ray, shard: int) -> None:
    from hiddengrid.ray_eval import ray_executor

    for env_id in (IDS[0], IDS[-1]):
        single = run_episodes(env_id, "random", EPISODES, seed=2, batch_size=BATCH)
        on_ray = run_sharded(
            env_id,
            "random",
            EPISODES,
            seed=2,
            shard_size=shard,
            batch_size=BATCH,
            executor=ray_executor(),
        )
        _same(on_ray, single)


def test_cli_eval_ray_equals_cli_eval(local_ray, tmp_path) -> None:
    import json

    from hiddengrid.cli import main

    common = ["eval", "--env", IDS[0], "--episodes", "40", "--seed", "3"]
    assert main([*common, "--json", str(tmp_path / "one.json")]) == 0
    assert main([*common, "--ray", "--shard-size", "7", "--json", str(tmp_path / "ray.json")]) == 0
    one = json.loads((tmp_path / "one.json").read_text())
    on_ray = json.loads((tmp_path / "ray.json").read_text())
    assert on_ray == one


def test_cli_compile_warms_an_env(capsys) -> None:
    from hiddengrid.cli import main

    assert main(["compile", "--env", IDS[0]]) == 0
    assert f"{IDS[0]}: ready" in capsys.readouterr().out
