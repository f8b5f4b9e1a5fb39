"""The PufferLib native adapter: the batched engine with same-step resets, no emulation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import make_vec

from hiddengrid import ENV_IDS
from hiddengrid.core.flat import FlatEncoder

pufferlib = pytest.importorskip("pufferlib")
pufferlib_vector = pytest.importorskip("pufferlib.vector")
from hiddengrid.integrations.puffer import HiddenGridPufferEnv  # noqa: E402

IDS = list(ENV_IDS)
N = 3


def _legal(env: HiddenGridPufferEnv, rng: np.random.Generator) -> np.ndarray:
    if env.masked:
        return np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
    space = env.single_action_space
    if hasattr(space, "nvec"):
        return rng.integers(0, space.nvec, size=(N, *space.shape))
    return rng.integers(0, int(space.n), size=N)


def _values(space: Any, obs: dict[str, np.ndarray]) -> np.ndarray:
    return np.concatenate([np.asarray(obs[k]).reshape(N, -1) for k in space], axis=1)


@pytest.mark.parametrize("encoding", ["values", "flat"])
@pytest.mark.parametrize("env_id", IDS)
def test_puffer_env_matches_the_same_step_vector_env(env_id: str, encoding: str) -> None:
    env = pufferlib_vector.make(
        HiddenGridPufferEnv,
        env_args=[env_id, N],
        env_kwargs={"seed": 4, "encoding": encoding},
        num_envs=1,
    )
    ref = make_vec(env_id, N, autoreset_mode=AutoresetMode.SAME_STEP)
    space = ref.single_observation_space
    obs, _ = env.reset(seed=4)
    ref_obs, _ = ref.reset(seed=4)
    encoder = FlatEncoder(space)

    def encode(raw: dict[str, np.ndarray]) -> np.ndarray:
        if encoding == "flat":
            return encoder.encode(raw, N)
        return _values(space, raw).astype(np.float32)

    width = encode(ref_obs).shape[1]
    np.testing.assert_array_equal(obs[:, :width], encode(ref_obs))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(90):
        actions = _legal(env, rng)
        obs, reward, term, trunc, _ = env.step(actions)
        ref_obs, ref_reward, ref_term, _, _ = ref.step(actions)
        np.testing.assert_array_equal(obs[:, :width], encode(ref_obs))
        np.testing.assert_array_equal(reward, ref_reward.astype(np.float32))
        np.testing.assert_array_equal(term, ref_term)
        assert not trunc.any()
        if env.masked:
            np.testing.assert_array_equal(obs[:, width:], ref.unwrapped.action_masks())
        ended += int(term.sum())
    assert ended >= N
    assert env.single_observation_space.contains(obs[0])


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="encoding must be one of"):
        HiddenGridPufferEnv(IDS[0], N, encoding="onehot")


def test_bad_action_is_refused_and_changes_nothing() -> None:
    env = HiddenGridPufferEnv(IDS[0], N)
    env.reset(seed=0)
    before = env.batch.snapshot()
    with pytest.raises(ValueError):
        env.step(np.array([0, 99, 0]))
    after = env.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
