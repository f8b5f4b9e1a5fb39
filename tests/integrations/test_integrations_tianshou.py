"""Tianshou's subprocess and shared-memory vector envs build every id in worker processes via
the module form, and play what a local env plays."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

from hiddengrid import ENV_IDS

tianshou = pytest.importorskip("tianshou")
tianshou_env = pytest.importorskip("tianshou.env")

IDS = list(ENV_IDS)


# Tianshou before 1.0 asserted an OrderedDict inside a Dict space, which Gymnasium 1.x does
# not hold: its ShmemVectorEnv fails on every Dict env. Strict, so an upgrade shows here.
OLD_SHMEM = pytest.mark.xfail(
    int(tianshou.__version__.split(".")[0]) < 1,
    strict=True,
    reason="Tianshou < 1.0: ShmemVectorEnv needs an OrderedDict space",
)
KINDS = ["SubprocVectorEnv", pytest.param("ShmemVectorEnv", marks=OLD_SHMEM)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("env_id", IDS)
def test_worker_vector_envs_play_what_a_local_env_plays(env_id: str, kind: str) -> None:
    venv = getattr(tianshou_env, kind)(
        [partial(gym.make, "hiddengrid:" + env_id) for _ in range(2)]
    )
    local = [gym.make(env_id) for _ in range(2)]
    try:
        for k, env in enumerate(local):
            first, _ = venv.reset(k, seed=3 + k)  # id= before 1.0, env_id= after
            mine, _ = env.reset(seed=3 + k)
            assert all(np.array_equal(first[0][key], mine[key]) for key in mine)
        for _ in range(5):
            actions = []
            for env in local:
                base = env.unwrapped
                if base.definition.masked:
                    actions.append(int(np.flatnonzero(base.action_masks())[0]))
                else:
                    actions.append(np.zeros(base.action_space.shape, dtype=np.int64))
            obs, reward, term, _, _ = venv.step(np.stack(actions))
            for k, env in enumerate(local):
                mine, r, t, _, _ = env.step(actions[k])
                assert all(np.array_equal(obs[k][key], mine[key]) for key in mine)
                assert reward[k] == r and term[k] == t
                if t:
                    return
    finally:
        venv.close()
