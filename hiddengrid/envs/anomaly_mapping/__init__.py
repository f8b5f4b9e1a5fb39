"""AnomalyMapping: find a hidden node by reading an electromagnetic field."""

from hiddengrid.envs.anomaly_mapping.env import (
    DEFINITION,
    ENV_ID,
    AnomalyMappingEnv,
    AnomalyMappingVectorEnv,
)

__all__ = ["DEFINITION", "ENV_ID", "AnomalyMappingEnv", "AnomalyMappingVectorEnv"]
