"""Megacity: grow an underground city under alien physics the agent must discover (seed 004)."""

from hiddengrid.envs.megacity.env import (
    DEFINITION,
    ENV_ID,
    MegacityEnv,
    MegacityVectorEnv,
)

__all__ = ["DEFINITION", "ENV_ID", "MegacityEnv", "MegacityVectorEnv"]
