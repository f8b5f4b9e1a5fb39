"""AnomalyMapping as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.definition import from_modules
from hiddengrid.core.single_env import HiddenGridEnv
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
    """Find the hidden Vulnerability Node by reading an electromagnetic field, then Mark it.

    ## Description
    A 15x15 lab floor holds exactly 45 insulating walls (the 180 free tiles form one
    4-connected region) and one hidden node on a free tile. The node radiates a field:
    ``level(t) = max(0, 3 - d(t))`` where ``d(t)`` is the shortest 4-connected path from the
    node to ``t`` through free tiles; walls read 0. A wall between node and tile forces a
    detour, which is the Faraday shadow. The agent starts on a uniform free tile (the
    node's own tile included) facing a uniform direction, and sees only the 3x3 field around it.

    ## Action Space
    ``Discrete(7)``

    | Num | Action       | Effect                                                        |
    |-----|--------------|---------------------------------------------------------------|
    | 0   | MoveNorth    | row - 1 and face north; into a wall or off the grid: nothing  |
    | 1   | MoveSouth    | row + 1 and face south; same rule                             |
    | 2   | MoveEast     | col + 1 and face east; same rule                              |
    | 3   | MoveWest     | col - 1 and face west; same rule                              |
    | 4   | RotateLeft   | face counter-clockwise (N -> W -> S -> E)                     |
    | 5   | RotateRight  | face clockwise (N -> E -> S -> W)                             |
    | 6   | Mark         | end the episode, judged by distance to the node               |

    ## Observation
    ``Dict``: ``"field"`` int8 ``(3, 3)`` levels 0..3 around the agent, north-up, cells off
    the grid read 0; ``"facing"`` ``Discrete(4)`` (0 N, 1 E, 2 S, 3 W); ``"steps_left"``
    ``Discrete(31)``, 30 at reset. No position, no walls, no node.

    ## Rewards
    1 for a Mark within Manhattan distance 1 of the node (walls do not matter), else 0.

    ## Termination
    Mark ends the episode (``"success"`` or ``"wrong_mark"``); the 30th action without a Mark
    ends it with ``"timeout"``. Episodes never truncate; the budget is in the observation.

    ## Info
    ``info["outcome"]`` on the final step: ``"success"``, ``"wrong_mark"`` or ``"timeout"``.

    ## Arguments
    ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (needs pygame).

    ## Scenario
    ``{"walls": 15x15 of 0/1, "node": [row, col], "agent": [row, col], "facing": 0..3}``;
    replay with ``reset(options={"scenario": ...})``.

    ## Registered Configurations
    ``hiddengrid/AnomalyMapping-v0``
    """

    definition = DEFINITION


class AnomalyMappingVectorEnv(HiddenGridVectorEnv):
    """N AnomalyMapping sub-envs in one batch; see :class:`AnomalyMappingEnv` for the rules."""

    definition = DEFINITION
