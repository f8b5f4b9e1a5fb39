"""RLlib (new API stack) on hiddengrid: the native vector env in every env runner.

:func:`env_creator` is what RLlib calls in each env runner process: it builds the native vector
env through the ``"hiddengrid:"`` id form (so the worker imports hiddengrid itself), flattens the
``Dict`` observation (RLlib has no default encoder for ``Dict``) and, for masked envs, puts the
mask beside it as ``{"action_mask", "observations"}`` for RLlib's action-masking module.
:func:`ppo_config` assembles a PPO config from it. Needs ``ray[rllib]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from hiddengrid.integrations.ids import make_env, make_vec_env, module_id
from hiddengrid.integrations.observation import (
    MaskedFlatObservation,
    MaskedFlatVectorEnv,
    has_masks,
)

RLLIB_ENV = "hiddengrid-native"


def env_creator(config: Mapping[str, Any]) -> gym.Env | gym.vector.VectorEnv:
    """RLlib's env factory: ``config["env_id"]`` plus env keywords; with ``num_envs`` (RLlib
    adds it under ``gym_env_vectorize_mode="vector_entry_point"``) the native vector env."""
    options = dict(config)
    env_id = options.pop("env_id")
    num_envs = options.pop("num_envs", None)
    if num_envs is None:
        return MaskedFlatObservation(make_env(env_id, **options))
    return MaskedFlatVectorEnv(make_vec_env(env_id, int(num_envs), **options))


def is_masked(env_id: str) -> bool:
    env = make_env(env_id)
    try:
        return has_masks(env)
    finally:
        env.close()


SAMPLE_TIMEOUT_S = 900.0


def ppo_config(
    env_id: str,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 16,
    **training: Any,
) -> Any:
    """A ``PPOConfig`` that trains on ``env_id`` with the native vector env in each runner
    (and RLlib's action-masking module for masked envs); ``training`` goes to ``.training``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    # RLlib takes a custom env by registered name; the registry travels to the workers.
    register_env(RLLIB_ENV, env_creator)
    config = (
        PPOConfig()
        .environment(env=RLLIB_ENV, env_config={"env_id": module_id(env_id)})
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            gym_env_vectorize_mode="vector_entry_point",
            # RLlib's default 60 s ends a runner's first sample while a cold Numba cache
            # is still compiling the env (Megacity takes minutes on a busy machine).
            sample_timeout_s=SAMPLE_TIMEOUT_S,
        )
    )
    if training:
        config = config.training(**training)
    if is_masked(env_id):
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
            ActionMaskingTorchRLModule,
        )

        config = config.rl_module(
            rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule)
        )
    return config
