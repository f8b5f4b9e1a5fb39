"""Tianshou's subprocess vector env builds every id in worker processes via the module form."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import numpy as np
import pytest

from hiddengrid import ENV_IDS

tianshou_env = pytest.importorskip("tianshou.env")

IDS = list(ENV_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_subproc_vector_env_plays_what_a_local_env_plays(env_id: str) -> None:
    venv = tianshou_env.SubprocVectorEnv(
        [partial(gym.make, "hiddengrid:" + env_id) for _ in range(2)]
    )
    local = [gym.make(env_id) for _ in range(2)]
    try:
        for k, env in enumerate(local):
            first, _ = venv.reset(id=k, seed=3 + k)
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
