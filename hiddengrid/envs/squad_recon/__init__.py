"""SquadRecon: three squads, fog of war, two hidden camps."""

from hiddengrid.envs.squad_recon.env import (
    DEFINITION,
    ENV_ID,
    SquadReconEnv,
    SquadReconVectorEnv,
)

__all__ = ["DEFINITION", "ENV_ID", "SquadReconEnv", "SquadReconVectorEnv"]
