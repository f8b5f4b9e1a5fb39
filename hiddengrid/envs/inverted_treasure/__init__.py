"""InvertedTreasure: find the treasure on an 8x8 grid where the icons mean the opposite of what
they usually mean, and its Scout variant.

The package declares the ids it registers here; the env classes and the definition load
from ``env`` on first use, so that ``import hiddengrid`` reads the ids without the kernels.
"""

from hiddengrid.core.definition import Registration, lazy_exports

ENV_ID = "hiddengrid/InvertedTreasure-v0"
SCOUT_ENV_ID = "hiddengrid/InvertedTreasure-Scout-v0"

REGISTRATIONS = (
    Registration(ENV_ID, "InvertedTreasureEnv", "InvertedTreasureVectorEnv", {"scout": False}),
    Registration(SCOUT_ENV_ID, "InvertedTreasureEnv", "InvertedTreasureVectorEnv", {"scout": True}),
)

__getattr__ = lazy_exports(
    __name__, ("DEFINITION", "InvertedTreasureEnv", "InvertedTreasureVectorEnv")
)
__all__ = [
    "DEFINITION",
    "ENV_ID",
    "REGISTRATIONS",
    "SCOUT_ENV_ID",
    "InvertedTreasureEnv",
    "InvertedTreasureVectorEnv",
]
