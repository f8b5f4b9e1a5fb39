"""SquadRecon as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.definition import from_modules
from hiddengrid.core.single_env import HiddenGridEnv
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
    """Command three squads through fog of war to find and destroy two hidden enemy camps.

    ## Description
    A 15x15 battlefield of open ground (0), walls (1) and forest (2); walls and forest block
    both movement and sight. Each episode draws its own terrain: a few straight partial walls
    with gaps (chokepoints) and forest patches, 15-30 % of the cells blocked, all open cells one
    4-connected region. Three squads start at ``[14, 0]``, ``[14, 1]`` and ``[13, 0]`` (the
    south-west corner) with strengths uniform in 1..4; they may share a cell. Two camps stand on
    open cells at Chebyshev distance at least 5 from ``[14, 0]``, with strengths uniform in
    2..6; no camp is in sight at the start, and a camp's cell blocks movement until the camp is
    eliminated. The agent sees only what its squads have seen, and must find both camps and
    bring enough strength next to each to destroy it within 40 steps.

    ## Action Space
    ``MultiDiscrete([6, 6, 6])``: one order per squad (squad 1, 2, 3 = rows 0, 1, 2 of
    ``"squads"``). Orders of destroyed squads are ignored.

    | Num | Order           | Effect                                                         |
    |-----|-----------------|----------------------------------------------------------------|
    | 0   | HoldPosition    | stay                                                           |
    | 1   | MoveNorth       | row - 1, unless the cell is a wall, forest, a camp or off-grid |
    | 2   | MoveSouth       | row + 1, same rule                                             |
    | 3   | MoveEast        | col + 1, same rule                                             |
    | 4   | MoveWest        | col - 1, same rule                                             |
    | 5   | AttackEnemyCamp | attack every camp next to the squad; with no camp next: hold   |

    ## One step
    1. **Moves**, all at once. Only terrain and camps block; squads never block each other
       (a squad may move onto, into or out of a cell another squad occupies or is entering).
    2. **Attacks.** For each remaining camp in index order that a live attacking squad stands
       next to (Manhattan distance 1), the strengths of *all* live squads next to it are
       totalled, attacking or not. More than the camp's strength eliminates it (+0.5);
       otherwise every squad next to it is destroyed. A squad destroyed at camp 0 neither
       counts nor attacks at camp 1. An eliminated camp's cell is open ground from the next
       step on.
    3. **Sight.** A live squad sees every cell within Chebyshev distance 3 whose textbook
       integer Bresenham line from the squad (x = column, y = row; on a knight-offset tie it
       steps diagonally first) has no wall or forest strictly between the two cells. It sees
       its own cell and blocking cells themselves; camps and squads do not block sight. Seen
       cells stay explored. A camp is detected when its cell is seen and stays shown.
    4. **Budget**: one step used; see Termination.

    ## Observation
    ``Dict``:

    | key              | space                        | meaning                              |
    |------------------|------------------------------|--------------------------------------|
    | ``terrain``      | ``Box(-1, 2, (15,15), int8)``| -1 unexplored, else 0 / 1 / 2        |
    | ``visible``      | ``MultiBinary((15, 15))``    | seen this step                       |
    | ``squads``       | ``Box(0, .., (3, 4), int8)`` | row, col, strength, alive            |
    | ``camps``        | ``Box(0, .., (2, 4), int8)`` | row, col, strength, status           |
    | ``progress``     | ``Box(0, 1, (1,), float32)`` | eliminated camps / 2                 |
    | ``steps_left``   | ``Discrete(41)``             | 40 at reset                          |
    | ``total_strength``| ``Discrete(13)``            | strength of the live squads          |

    A destroyed squad keeps its last row, col and strength with alive 0. Camp status: 0
    undetected (row, col and strength read 0), 1 detected, 2 eliminated (row, col and strength
    kept). Grids are north-up (row 0 north), west-left.

    ## Rewards
    +0.5 for each camp eliminated, paid on the step it falls (at most 1.0 per episode). Nothing
    else pays or costs: no penalty for lost squads, failed moves or time.

    ## Termination
    ``terminated=True`` when both camps are eliminated (``"success"``), all three squads are
    destroyed (``"wiped_out"``), or after the 40th step (``"timeout"``). A win or a wipe-out on
    the 40th step is reported as that. Episodes never truncate; the budget is in the
    observation.

    ## Info
    ``info["outcome"]`` on the final step: ``"success"``, ``"wiped_out"`` or ``"timeout"``.

    ## Arguments
    ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (needs pygame).

    ## Scenario
    ``{"terrain": 15x15 of 0/1/2, "squads": [[row, col, strength]] * 3,
    "camps": [[row, col, strength]] * 2}``; replay with ``reset(options={"scenario": ...})``.
    A replayed level may put squads (strength 1..4) and camps (strength 1..12) on any open
    cells; squads must not stand on camps, camps must be on two cells, and the open cells must
    be one 4-connected region.

    ## Registered Configurations
    ``hiddengrid/SquadRecon-v0``
    """

    definition = DEFINITION


class SquadReconVectorEnv(HiddenGridVectorEnv):
    """N SquadRecon sub-envs in one batch; see :class:`SquadReconEnv` for the rules."""

    definition = DEFINITION
