"""AnomalyMapping: find a hidden node by reading an electromagnetic field.

The package declares the ids it registers here; the env classes and the definition load
from ``env`` on first use, so that ``import hiddengrid`` reads the ids without the kernels.
"""

from hiddengrid.core.definition import Registration, lazy_exports

ENV_ID = "hiddengrid/AnomalyMapping-v0"

REGISTRATIONS = (Registration(ENV_ID, "AnomalyMappingEnv", "AnomalyMappingVectorEnv"),)

__getattr__ = lazy_exports(__name__, ("DEFINITION", "AnomalyMappingEnv", "AnomalyMappingVectorEnv"))
__all__ = ["DEFINITION", "ENV_ID", "REGISTRATIONS", "AnomalyMappingEnv", "AnomalyMappingVectorEnv"]
