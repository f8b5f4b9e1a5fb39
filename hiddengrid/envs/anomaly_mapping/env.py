"""AnomalyMapping as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.definition import from_modules
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.spec import spec_from_page
from hiddengrid.core.vector_env import HiddenGridVectorEnv
from hiddengrid.envs.anomaly_mapping import ENV_ID, generator, render, rules, text
from hiddengrid.envs.anomaly_mapping.agents import AGENTS
from hiddengrid.envs.anomaly_mapping.constants import MAX_LEVEL, NUM_ACTIONS, OUTCOMES, STEP_BUDGET


def observation_space(config: Mapping[str, Any]) -> spaces.Dict:
    return spaces.Dict(
        {
            "field": spaces.Box(0, MAX_LEVEL, shape=(3, 3), dtype=np.int8),
            "facing": spaces.Discrete(4),
            "steps_left": spaces.Discrete(STEP_BUDGET + 1),
        }
    )


def action_space(config: Mapping[str, Any]) -> spaces.Discrete:
    return spaces.Discrete(NUM_ACTIONS)


DEFINITION = from_modules(
    ENV_ID,
    rules=rules,
    generator=generator,
    render=render,
    text=text,
    agents=AGENTS,
    observation={"field": "view", "facing": "facing", "steps_left": "steps_left"},
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
)


class AnomalyMappingEnv(HiddenGridEnv):
    __doc__ = spec_from_page("hiddengrid.envs.anomaly_mapping")

    definition = DEFINITION


class AnomalyMappingVectorEnv(HiddenGridVectorEnv):
    """N AnomalyMapping sub-envs in one batch; see :class:`AnomalyMappingEnv` for the rules."""

    definition = DEFINITION
