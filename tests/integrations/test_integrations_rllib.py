"""The RLlib recipe: one short PPO iteration on every id with the native vector env in a
separate env runner process (Megacity through the action-masking module).

Runs where ``ray[rllib]`` is installed. RLlib 2.60 pins ``gymnasium==1.2.2``, so it lives in
its own environment (see docs/ecosystem.md for the command)."""

from __future__ import annotations

import numpy as np
import pytest

from hiddengrid import ENV_IDS
from hiddengrid.core.flat import FlatEncoder
from hiddengrid.integrations.observation import MaskedFlatVectorEnv
from hiddengrid.integrations.rllib import env_creator, is_masked

IDS = list(ENV_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_env_creator_builds_the_native_vector_env(env_id: str) -> None:
    venv = env_creator({"env_id": "hiddengrid:" + env_id, "num_envs": 3})
    assert isinstance(venv, MaskedFlatVectorEnv)
    obs, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    raw = venv.unwrapped
    flat = obs["observations"] if is_masked(env_id) else obs
    encoder = FlatEncoder(raw.single_observation_space)
    np.testing.assert_array_equal(flat, encoder.encode(raw._observation(), 3))
    if is_masked(env_id):
        np.testing.assert_array_equal(obs["action_mask"], raw.action_masks())
    # Each step's observation is the caller's own: a later step does not overwrite it.
    kept = flat.copy()
    actions = np.zeros((3, *raw.single_action_space.shape), dtype=np.int64)
    if is_masked(env_id):
        actions = np.array([np.flatnonzero(m)[0] for m in raw.action_masks()])
    venv.step(actions)
    np.testing.assert_array_equal(flat, kept)
    single = env_creator({"env_id": env_id})
    first, _ = single.reset(seed=0)
    assert single.observation_space.contains(first)


@pytest.fixture(scope="module")
def local_ray():
    pytest.importorskip("ray.rllib.algorithms.ppo")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("env_id", IDS)
def test_ppo_trains_one_iteration_with_an_env_runner(local_ray, env_id: str) -> None:
    from hiddengrid.integrations.rllib import ppo_config

    config = ppo_config(
        env_id,
        num_env_runners=1,
        num_envs_per_env_runner=8,
        train_batch_size_per_learner=256,
        minibatch_size=64,
        num_epochs=1,
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 256
    assert "learners" in result


def test_a_runners_first_sample_may_outlast_a_cold_compile() -> None:
    pytest.importorskip("ray.rllib.algorithms.ppo")
    from hiddengrid.integrations.rllib import SAMPLE_TIMEOUT_S, ppo_config

    config = ppo_config("hiddengrid/Megacity-v0")
    assert config.sample_timeout_s == SAMPLE_TIMEOUT_S >= 600  # RLlib's default is 60 s
