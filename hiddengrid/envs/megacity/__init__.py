"""Megacity: grow an underground city under alien physics the agent must discover."""

from hiddengrid.envs.megacity.env import (
    DEFINITION,
    ENV_ID,
    MegacityEnv,
    MegacityVectorEnv,
)

__all__ = ["DEFINITION", "ENV_ID", "MegacityEnv", "MegacityVectorEnv"]
