"""What an InvertedTreasure reset draws (the icons) and the checks of a given scenario.

The Bomb and the ten Flowers go on distinct uniform tiles among the 63 that are not the start
tile: each is drawn uniformly over those 63 and redrawn while it lands on a tile already
taken, which gives every placement of the eleven the same probability (about 13 draws).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.kernel import inline
from hiddengrid.core.rng import below_from
from hiddengrid.core.scenario import check_keys, int_array
from hiddengrid.envs.inverted_treasure.constants import (
    BOMB,
    EMPTY,
    FLOWER,
    GRID_SIZE,
    NUM_FLOWERS,
    NUM_TILES,
    START_COL,
    START_ROW,
)

START_INDEX = START_ROW * GRID_SIZE + START_COL  # the start tile in row-major order


@inline
def draw_scenario(rng: np.ndarray, i: int, icons: np.ndarray) -> None:
    """1 Bomb, then 10 Flowers, uniform over the 63 tiles that are not the start.

    Draws from sub-env ``i``'s own stream (``below_from`` gives the numbers of ``below``).
    """
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            icons[i, r, c] = EMPTY
    state = rng[i]
    placed = 0
    while placed < 1 + NUM_FLOWERS:
        state, t = below_from(state, NUM_TILES - 1)
        if t >= START_INDEX:  # skip the start tile
            t += 1
        r = t // GRID_SIZE
        c = t % GRID_SIZE
        if icons[i, r, c] == EMPTY:  # else the tile is taken: draw again
            icons[i, r, c] = BOMB if placed == 0 else FLOWER
            placed += 1
    rng[i] = state


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("icons",)


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict and returns it as arrays for the batch.

    A replayed scenario is a custom level: any number of Flowers (0 to 62) is allowed, as long
    as there is exactly one Bomb and the start tile ``(x, y) = (0, 0)`` is Empty.
    """
    check_keys(scenario, SCENARIO_KEYS)
    icons = int_array(scenario["icons"], "icons", (GRID_SIZE, GRID_SIZE))
    if not set(np.unique(icons).tolist()) <= {EMPTY, BOMB, FLOWER}:
        raise ValueError("scenario['icons'] may hold only 1 (Empty), 2 (Bomb) and 3 (Flower)")
    bombs = int(np.count_nonzero(icons == BOMB))
    if bombs != 1:
        raise ValueError(f"scenario['icons'] must hold exactly one Bomb (2), found {bombs}")
    if icons[START_ROW, START_COL] != EMPTY:
        raise ValueError(
            f"scenario['icons'] start tile (x, y) = (0, 0), i.e. row {START_ROW} col "
            f"{START_COL}, must be Empty (1), got {int(icons[START_ROW, START_COL])}"
        )
    return {"icons": icons.astype(np.int8)}


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {"icons": batch["icons"][i].astype(int).tolist()}
