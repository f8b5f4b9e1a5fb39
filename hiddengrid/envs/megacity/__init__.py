"""Megacity: grow an underground city under alien physics the agent must discover.

The package declares the ids it registers here; the env classes and the definition load
from ``env`` on first use, so that ``import hiddengrid`` reads the ids without the kernels.
"""

from hiddengrid.core.definition import Registration, lazy_exports

ENV_ID = "hiddengrid/Megacity-v0"

REGISTRATIONS = (Registration(ENV_ID, "MegacityEnv", "MegacityVectorEnv"),)

__getattr__ = lazy_exports(__name__, ("DEFINITION", "MegacityEnv", "MegacityVectorEnv"))
__all__ = ["DEFINITION", "ENV_ID", "REGISTRATIONS", "MegacityEnv", "MegacityVectorEnv"]
