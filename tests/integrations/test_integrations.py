"""Optional integrations, run where their extra is installed (``hiddengrid[train]``)."""

from __future__ import annotations

import gymnasium as gym
import pytest

from hiddengrid import ENV_IDS

IDS = list(ENV_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_stable_baselines3_accepts_every_env(env_id: str) -> None:
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    env = gym.make(env_id)
    if env.unwrapped.definition.masked:
        # A masked action raises (Megacity's page), and SB3's checker steps with unmasked random
        # actions: train with sb3-contrib's MaskablePPO, which asks env.action_masks() first.
        algo = pytest.importorskip("sb3_contrib").MaskablePPO
    else:
        check_env(env, warn=False)
        algo = sb3.PPO
    model = algo("MultiInputPolicy", env, n_steps=64, batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(action.item() if action.ndim == 0 else action)
