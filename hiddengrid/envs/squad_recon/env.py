"""SquadRecon as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.definition import from_modules
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.spec import spec_from_page
from hiddengrid.core.vector_env import HiddenGridVectorEnv
from hiddengrid.envs.squad_recon import ENV_ID, generator, render, rules, text
from hiddengrid.envs.squad_recon.agents import AGENTS
from hiddengrid.envs.squad_recon.constants import (
    ELIMINATED,
    FOREST,
    GRID_SIZE,
    MAX_REPLAY_CAMP_STRENGTH,
    MAX_SQUAD_STRENGTH,
    MAX_TOTAL_STRENGTH,
    NUM_CAMPS,
    NUM_ORDERS,
    NUM_SQUADS,
    OUTCOMES,
    STEP_BUDGET,
    UNEXPLORED,
)

_LAST = GRID_SIZE - 1


def observation_space(config: Mapping[str, Any]) -> spaces.Dict:
    squads_high = np.array([[_LAST, _LAST, MAX_SQUAD_STRENGTH, 1]] * NUM_SQUADS, dtype=np.int8)
    camps_high = np.array(
        [[_LAST, _LAST, MAX_REPLAY_CAMP_STRENGTH, ELIMINATED]] * NUM_CAMPS, dtype=np.int8
    )
    return spaces.Dict(
        {
            "terrain": spaces.Box(UNEXPLORED, FOREST, shape=(GRID_SIZE, GRID_SIZE), dtype=np.int8),
            "visible": spaces.MultiBinary((GRID_SIZE, GRID_SIZE)),
            "squads": spaces.Box(np.zeros_like(squads_high), squads_high, dtype=np.int8),
            "camps": spaces.Box(np.zeros_like(camps_high), camps_high, dtype=np.int8),
            "progress": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
            "steps_left": spaces.Discrete(STEP_BUDGET + 1),
            "total_strength": spaces.Discrete(MAX_TOTAL_STRENGTH + 1),
        }
    )


def action_space(config: Mapping[str, Any]) -> spaces.MultiDiscrete:
    return spaces.MultiDiscrete([NUM_ORDERS] * NUM_SQUADS)


DEFINITION = from_modules(
    ENV_ID,
    rules=rules,
    generator=generator,
    render=render,
    text=text,
    agents=AGENTS,
    observation={
        "terrain": "explored",
        "visible": "visible",
        "squads": "squads",
        "camps": "camps_view",
        "progress": "progress",
        "steps_left": "steps_left",
        "total_strength": "total_strength",
    },
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
)


class SquadReconEnv(HiddenGridEnv):
    __doc__ = spec_from_page("hiddengrid.envs.squad_recon")

    definition = DEFINITION


class SquadReconVectorEnv(HiddenGridVectorEnv):
    """N SquadRecon sub-envs in one batch; see :class:`SquadReconEnv` for the rules."""

    definition = DEFINITION
