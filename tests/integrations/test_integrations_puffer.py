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


@pytest.mark.parametrize("env_id", IDS)
def test_episode_statistics_are_floats_matching_the_vector_env(env_id: str) -> None:
    """One dict of floats per ended episode: return, length and success as the vector env
    counts them (its outcome and the env's own success rule)."""
    from hiddengrid.registry import definition_of

    env = HiddenGridPufferEnv(env_id, N, seed=2)
    ref = make_vec(env_id, N, autoreset_mode=AutoresetMode.SAME_STEP)
    env.reset(seed=2)
    ref.reset(seed=2)
    definition = definition_of(env_id)
    rng = np.random.default_rng(1)
    ret, length = np.zeros(N), np.zeros(N)
    seen = 0
    for _ in range(120):
        actions = _legal(env, rng)
        *_, infos = env.step(actions)
        _, reward, ref_term, _, ref_info = ref.step(actions)
        ret += reward
        length += 1
        want = []
        for i in np.flatnonzero(ref_term):
            outcome = str(ref_info["final_info"]["outcome"][i])
            want.append(
                {
                    "episode_return": float(ret[i]),
                    "episode_length": float(length[i]),
                    "success": float(definition.is_success(outcome, ret[i])),
                }
            )
        ret[ref_term] = 0.0
        length[ref_term] = 0
        assert infos == want
        assert all(type(v) is float for info in infos for v in info.values())
        seen += len(infos)
    assert seen >= N


@pytest.mark.parametrize("backend", ["Serial", "Multiprocessing"])
def test_puffer_backends_run_past_episode_ends_and_average_the_stats(backend: str) -> None:
    """PufferLib's backends average every info value: ours must survive the first episode end
    (a list of outcome names made Serial raise TypeError) and give numeric means."""
    env_id = "hiddengrid/AnomalyMapping-v0"
    kwargs: dict[str, Any] = {"num_envs": 2}
    if backend == "Multiprocessing":
        kwargs["num_workers"] = 2
    vecenv = pufferlib_vector.make(
        HiddenGridPufferEnv,
        env_args=[env_id, N],
        backend=getattr(pufferlib_vector, backend),
        **kwargs,
    )
    try:
        vecenv.async_reset(seed=0)
        rng = np.random.default_rng(0)
        stats: dict[str, list[float]] = {}
        for _ in range(60):
            *_, infos, env_ids, _ = vecenv.recv()
            for info in infos:
                for key, value in info.items():
                    stats.setdefault(key, []).append(value)
            vecenv.send(rng.integers(0, 4, size=len(env_ids)))
        assert {"episode_return", "episode_length", "success"} <= set(stats)
        assert all(isinstance(float(v), float) for v in stats["episode_length"])
        lengths = np.array(stats["episode_length"], dtype=float)
        assert (lengths >= 1).all()
        success = np.array(stats["success"], dtype=float)
        assert ((success >= 0) & (success <= 1)).all()
    finally:
        vecenv.close()
