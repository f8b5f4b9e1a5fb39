"""The hand-written C anchor of AnomalyMapping does the Numba kernels' work bit for bit: the same
seeds and actions give the same scenarios, observations, rewards, flags and outcomes, resets
included (the differential test behind the bench's "x C anchor" ratio)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.bench_anchor import AnchorUnavailable, find_compiler, load_anomaly_mapping
from hiddengrid.envs.anomaly_mapping.constants import MARK, NUM_ACTIONS, OUTCOMES
from hiddengrid.envs.anomaly_mapping.generator import CAN_WALL

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

ID = "hiddengrid/AnomalyMapping-v0"
STATE = ("rng", "done", "outcome", "walls", "node", "start", "start_facing", "agent", "facing")


def native(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec(ID, num_envs=n, vectorization_mode="vector_entry_point", num_threads=1)


def assert_same_state(batch, engine) -> None:
    for name in STATE:
        expected = getattr(batch, name) if hasattr(batch, name) else batch[name]
        np.testing.assert_array_equal(getattr(engine, name), expected, err_msg=name)


def test_the_wall_table_is_the_generators():
    np.testing.assert_array_equal(load_anomaly_mapping(1).can_wall_table(), CAN_WALL)


@pytest.mark.parametrize("seed", [0, 12345])
def test_c_engine_equals_the_native_vector_env_bit_for_bit(seed):
    n, steps = 64, 500
    env = native(n)
    engine = load_anomaly_mapping(n)
    obs, _ = env.reset(seed=seed)
    engine.reset(seed)
    batch = env.unwrapped.batch
    assert_same_state(batch, engine)
    np.testing.assert_array_equal(engine.view, obs["field"])
    np.testing.assert_array_equal(engine.steps_left, obs["steps_left"])
    rng = np.random.default_rng(seed)
    ended = resets = 0
    seen: set[int] = set()
    for t in range(steps):
        # Marks one time in ten: many episodes end by a mark, others by the 30-step timeout.
        actions = np.where(rng.random(n) < 0.1, MARK, rng.integers(0, NUM_ACTIONS - 1, n))
        resets += int(engine.done.sum())  # these start a new episode on this step
        obs, reward, terminated, truncated, info = env.step(actions)
        engine.step(np.ascontiguousarray(actions, dtype=np.int64))
        msg = f"step {t}"
        np.testing.assert_array_equal(engine.view, obs["field"], err_msg=msg)
        np.testing.assert_array_equal(engine.facing, obs["facing"], err_msg=msg)
        np.testing.assert_array_equal(engine.steps_left, obs["steps_left"], err_msg=msg)
        np.testing.assert_array_equal(engine.reward, reward, err_msg=msg)
        np.testing.assert_array_equal(engine.terminated, terminated, err_msg=msg)
        assert not truncated.any()
        if terminated.any():
            names = np.array(OUTCOMES, dtype=object)[engine.outcome[terminated]]
            np.testing.assert_array_equal(names, info["outcome"][terminated], err_msg=msg)
        assert_same_state(batch, engine)
        ended += int(terminated.sum())
        seen |= set(engine.outcome[terminated].tolist())
    # The run covered every outcome and many next-step resets (fresh scenarios drawn in C).
    assert resets > 10 * n and ended >= resets
    assert seen == {1, 2, 3}  # success, wrong_mark and timeout


def test_missing_compiler_is_one_line(monkeypatch):
    monkeypatch.setenv("CC", "/no/such/compiler")
    with pytest.raises(AnchorUnavailable, match="no C compiler"):
        load_anomaly_mapping(1)
