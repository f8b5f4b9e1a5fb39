"""InvertedTreasure: find the treasure on an 8x8 grid where the icons mean the opposite of what
they usually mean, and its Scout variant."""

from hiddengrid.envs.inverted_treasure.env import (
    DEFINITION,
    ENV_ID,
    SCOUT_ENV_ID,
    InvertedTreasureEnv,
    InvertedTreasureVectorEnv,
)

__all__ = [
    "DEFINITION",
    "ENV_ID",
    "SCOUT_ENV_ID",
    "InvertedTreasureEnv",
    "InvertedTreasureVectorEnv",
]
