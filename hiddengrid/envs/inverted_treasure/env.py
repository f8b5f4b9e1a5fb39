"""InvertedTreasure as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import from_modules, unexpected_keywords
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.vector_env import HiddenGridVectorEnv
from hiddengrid.envs.inverted_treasure import ENV_ID, SCOUT_ENV_ID, generator, render, rules, text
from hiddengrid.envs.inverted_treasure.agents import AGENTS
from hiddengrid.envs.inverted_treasure.constants import (
    GRID_SIZE,
    NUM_ACTIONS,
    OUTCOMES,
    OUTSIDE,
    STEP_BUDGET,
    WINDOW_SIZE,
)


def configure(options: Mapping[str, Any]) -> dict[str, Any]:
    """The one argument, ``scout``: a bool (``True`` for the Scout variant), default ``False``."""
    options = dict(options)
    scout = options.pop("scout", False)
    if options:
        raise unexpected_keywords("InvertedTreasure", options, "only 'scout'")
    if not isinstance(scout, bool | np.bool_):
        raise ValueError(f"scout must be a bool (True or False), got {scout!r}")
    return {"scout": bool(scout)}


def setup(batch: Batch) -> None:
    batch.fields["scout"][:] = batch.config["scout"]


def observation_space(config: Mapping[str, Any]) -> spaces.Dict:
    return spaces.Dict(
        {
            "window": spaces.Box(0, OUTSIDE, shape=(WINDOW_SIZE, WINDOW_SIZE), dtype=np.int8),
            "position": spaces.MultiDiscrete([GRID_SIZE, GRID_SIZE]),
            "steps_left": spaces.Discrete(STEP_BUDGET + 1),
        }
    )


def action_space(config: Mapping[str, Any]) -> spaces.Discrete:
    return spaces.Discrete(NUM_ACTIONS)


def is_success(outcome: str, episode_return: float) -> bool:
    return outcome == "treasure"


DEFINITION = from_modules(
    ENV_ID,
    # A step costs about 25 ns per sub-env: measured on 2 cores, a second thread lost at 4,096
    # sub-envs (0.82x) and won from 16,384 (1.21x; 1.41x at 65,536).
    envs_per_thread=8192,
    rules=rules,
    generator=generator,
    render=render,
    text=text,
    agents=AGENTS,
    observation={"window": "window", "position": "position", "steps_left": "steps_left"},
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
    configure=configure,
    setup=setup,
    is_success=is_success,
    notes={"ids": (ENV_ID, SCOUT_ENV_ID)},
)


class InvertedTreasureEnv(HiddenGridEnv):
    """Step on the one tile whose icon marks the treasure, on an 8x8 grid of hidden icons.

    ## Description
    Every tile of an 8x8 grid hides one icon: exactly 1 Bomb, 10 Flowers and 53 Empty. The
    meanings are inverted: the Bomb marks the treasure and the Flowers are deadly traps. The
    agent starts on ``(x, y) = (0, 0)``, the south-west corner, which is always Empty; the Bomb
    and the Flowers are placed uniformly over the other 63 tiles. Every tile, the start tile
    too, is unrevealed at reset. Moving onto a tile reveals it first, then the agent stands on
    it: a Flower ends the episode with 0 (``"trap"``), the Bomb with 1 (``"treasure"``), Empty
    goes on; this holds for tiles revealed earlier too. Revealed tiles stay revealed.

    Positions use ``(x, y)``: x grows to the East, y to the North, ``(0, 0)`` is
    the bottom-left tile. As an array the grid is north-up: ``(x, y)`` is ``[7 - y, x]``.

    In the base variant a tile is only ever seen by standing on it, so the icons cannot be
    used before they kill or win: any fair policy wins with probability at most 1/11. In the
    **Scout** variant Reveal also reveals the four orthogonal neighbours of the agent's tile,
    so an agent can look before it steps and learn what the icons mean.

    ## Action Space
    ``Discrete(6)``

    | Num | Action    | Effect                                                               |
    |-----|-----------|----------------------------------------------------------------------|
    | 0   | MoveNorth | y + 1: reveal the target, stand on it, resolve it; off the grid: nothing |
    | 1   | MoveSouth | y - 1, same rule                                                     |
    | 2   | MoveWest  | x - 1, same rule                                                     |
    | 3   | MoveEast  | x + 1, same rule                                                     |
    | 4   | Reveal    | reveal the agent's tile (Scout: and its 4 orthogonal neighbours)     |
    | 5   | Wait      | nothing                                                              |

    Every action costs one step of the budget, whether it changes anything or not.

    ## Observation
    ``Dict``:
    ``"window"`` int8 ``(5, 5)`` centred on the agent (cell ``[2, 2]``), north-up, west-left:
    0 unseen, 1 Empty, 2 Bomb, 3 Flower, 4 outside the grid;
    ``"position"`` ``MultiDiscrete([8, 8])``, the agent's ``(x, y)``;
    ``"steps_left"`` ``Discrete(31)``, 30 at reset.

    ## Rewards
    1 for stepping onto the Bomb, 0 for everything else. No shaping, no penalties.

    ## Termination
    Stepping onto the Bomb (``"treasure"``) or onto a Flower (``"trap"``), or the 30th action
    (``"timeout"``). A Bomb or Flower reached by the 30th action is reported as that, not as a
    timeout. Episodes never truncate; the budget is in the observation.

    ## Info
    ``info["outcome"]`` on the final step: ``"treasure"``, ``"trap"`` or ``"timeout"``.

    ## Arguments
    ``scout``: ``bool``, default ``False``; ``True`` gives the Scout variant (the registered
    ids set it). ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (needs
    pygame).

    ## Scenario
    ``{"icons": 8x8 list of lists, row 0 north, of 1 Empty, 2 Bomb, 3 Flower}``; replay with
    ``reset(options={"scenario": ...})``. A replayed level may hold any number of Flowers but
    needs exactly one Bomb and an Empty start tile (row 7, column 0).

    ## Registered Configurations
    - ``hiddengrid/InvertedTreasure-v0`` (``scout=False``)
    - ``hiddengrid/InvertedTreasure-Scout-v0`` (``scout=True``)
    """

    definition = DEFINITION


class InvertedTreasureVectorEnv(HiddenGridVectorEnv):
    """N InvertedTreasure sub-envs in one batch; see :class:`InvertedTreasureEnv` for the rules."""

    definition = DEFINITION
