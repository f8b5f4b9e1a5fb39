"""SquadRecon: three squads, fog of war, two hidden camps.

The package declares the ids it registers here; the env classes and the definition load
from ``env`` on first use, so that ``import hiddengrid`` reads the ids without the kernels.
"""

from hiddengrid.core.definition import Registration, lazy_exports

ENV_ID = "hiddengrid/SquadRecon-v0"

REGISTRATIONS = (Registration(ENV_ID, "SquadReconEnv", "SquadReconVectorEnv"),)

__getattr__ = lazy_exports(__name__, ("DEFINITION", "SquadReconEnv", "SquadReconVectorEnv"))
__all__ = ["DEFINITION", "ENV_ID", "REGISTRATIONS", "SquadReconEnv", "SquadReconVectorEnv"]
