"""The SB3 ``VecEnv`` adapter over the native engine (same-step autoreset in the kernels)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import make_vec, obs_equal

from hiddengrid import ENV_IDS, definition_of

pytest.importorskip("stable_baselines3")
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from hiddengrid.integrations.sb3 import HiddenGridVecEnv

IDS = list(ENV_IDS)
MASKED = [i for i in IDS if definition_of(i).masked]
UNMASKED = [i for i in IDS if i not in MASKED]


def _actions(venv: Any, rng: np.random.Generator, masked: bool) -> np.ndarray:
    if masked:
        masks = np.stack(venv.env_method("action_masks"))
        return np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    space = venv.action_space
    if isinstance(space, gym.spaces.Discrete):
        return rng.integers(0, int(space.n), size=venv.num_envs)
    return rng.integers(0, space.nvec, size=(venv.num_envs, *space.shape))


@pytest.mark.parametrize("env_id", IDS)
def test_adapter_matches_sb3_dummy_vec_env(env_id: str) -> None:
    # SB3's own DummyVecEnv over single envs is the reference for every field SB3 reads.
    n = 3
    ours = HiddenGridVecEnv(env_id, n)
    ref = DummyVecEnv([lambda: gym.make(env_id) for _ in range(n)])
    ours.seed(7)
    ref.seed(7)
    a, b = ours.reset(), ref.reset()
    assert obs_equal(a, b)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(90):
        actions = _actions(ours, rng, definition_of(env_id).masked)
        if definition_of(env_id).masked:
            np.testing.assert_array_equal(
                np.stack(ours.env_method("action_masks")), np.stack(ref.env_method("action_masks"))
            )
        oa, ra, da, ia = ours.step(actions)
        ob, rb, db, ib = ref.step(actions)
        assert obs_equal(oa, ob)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
        for i in np.flatnonzero(db):
            ended += 1
            assert obs_equal(ia[i]["terminal_observation"], ib[i]["terminal_observation"])
            assert ia[i]["TimeLimit.truncated"] == ib[i]["TimeLimit.truncated"]
            assert ia[i]["outcome"] == ib[i]["outcome"]
    assert ended >= n


@pytest.mark.parametrize("env_id", UNMASKED)
def test_sb3_ppo_learns_on_the_native_engine(env_id: str) -> None:
    env = VecMonitor(HiddenGridVecEnv(env_id, 8))
    model = PPO("MultiInputPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    assert len(model.ep_info_buffer) > 0  # episodes ended and were reported through infos


@pytest.mark.parametrize("env_id", MASKED)
def test_maskable_ppo_reads_masks_through_the_adapter(env_id: str) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = HiddenGridVecEnv(env_id, 4)
    assert is_masking_supported(env)
    env.reset()
    masks = get_action_masks(env)
    np.testing.assert_array_equal(masks, env.engine.action_masks())
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", env, n_steps=48, batch_size=64, n_epochs=1, seed=0
    )
    # A masked action would raise inside the engine: learning through 40-step episodes shows
    # every sampled action respected the mask, across the autoresets too.
    model.learn(total_timesteps=4 * 48 * 2)
    assert model.num_timesteps >= 4 * 48 * 2


def test_same_step_engine_reports_its_mode() -> None:
    env = HiddenGridVecEnv(IDS[0], 2)
    assert env.venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with pytest.raises(AttributeError, match="get_scenario"):
        env.env_method("render_everything")
    assert make_vec(IDS[0], 2).metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
