"""What an AnomalyMapping reset draws (walls, node, start) and the checks of a given scenario.

Walls are placed one at a time on uniform free tiles; a placement is kept only if the free
4-neighbours of the tile stay joined through the ring of 8 tiles around it. That local test is
sufficient for the free region to stay one 4-connected region (any path through the tile can
go round it), so no flood fill is needed: the test is one lookup in a 256-entry table indexed
by the 3x3 block of walls around the tile, and a whole layout costs about 60 random draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.rng import below, below_from
from hiddengrid.core.scenario import check_keys, int_array, int_scalar, region_count
from hiddengrid.envs.anomaly_mapping.constants import (
    EDGE_ROW,
    FULL_ROW,
    GRID_SIZE,
    NUM_WALLS,
    PADDED,
)

# The 8 tiles around a tile in ring order (N, NE, E, SE, S, SW, W, NW): neighbours in this
# order are 4-adjacent to each other, so free runs along the ring are connected arcs.
RING_ROW = (-1, -1, 0, 1, 1, 1, 0, -1)
RING_COL = (0, 1, 1, 1, 0, -1, -1, -1)
MAX_PLACEMENT_TRIES = 20_000


def _orthogonal_neighbours_on_one_arc(free: list[bool]) -> bool:
    """Are all free orthogonal neighbours (ring positions 0, 2, 4, 6) on one connected run of
    free ring tiles?"""
    if all(free):
        return True
    start = free.index(False)
    arc, orth_arc, prev = -1, -1, False
    for j in range(1, 9):
        k = (start + j) % 8
        if free[k]:
            if not prev:
                arc += 1
            if k % 2 == 0:
                if orth_arc < 0:
                    orth_arc = arc
                elif orth_arc != arc:
                    return False
        prev = free[k]
    return True


def _can_wall(block: int) -> bool:
    """``block`` holds a 3x3 neighbourhood, bit 3*row + col set for a wall (row 0 north)."""
    if (block >> 4) & 1:  # the centre is already a wall
        return False
    free = [
        not (block >> (3 * (1 + dr) + 1 + dc)) & 1
        for dr, dc in zip(RING_ROW, RING_COL, strict=True)
    ]
    return _orthogonal_neighbours_on_one_arc(free)


# CAN_WALL[block]: the centre is free and walling it keeps the free tiles one region.
CAN_WALL = np.array([_can_wall(b) for b in range(512)], dtype=np.int64)


@njit(cache=True, inline="always")
def block_3x3(walls: np.ndarray, i: int, pr: int, pc: int) -> int:
    """The 3x3 wall block around padded cell (pr, pc) as 9 bits, row-major from the north-west."""
    shift = pc - 1
    return (
        ((walls[i, pr - 1] >> shift) & 7)
        | (((walls[i, pr] >> shift) & 7) << 3)
        | (((walls[i, pr + 1] >> shift) & 7) << 6)
    )


@njit(cache=True, inline="always")
def draw_walls(rng: np.ndarray, i: int, walls: np.ndarray) -> None:
    """Exactly NUM_WALLS walls inside the border, free tiles one 4-connected region.

    Reset speed decides throughput (a random agent ends an episode every ~7 steps), so a try
    is branch-free and the random stream stays in a local variable.
    """
    state = rng[i]
    while True:
        walls[i, 0] = FULL_ROW
        walls[i, PADDED - 1] = FULL_ROW
        for pr in range(1, PADDED - 1):
            walls[i, pr] = EDGE_ROW
        placed = 0
        tries = 0
        while placed < NUM_WALLS and tries < MAX_PLACEMENT_TRIES:
            tries += 1
            state, t = below_from(state, GRID_SIZE * GRID_SIZE)
            pr = t // GRID_SIZE + 1
            pc = t % GRID_SIZE + 1
            accepted = CAN_WALL[block_3x3(walls, i, pr, pc)]
            walls[i, pr] |= accepted << pc
            placed += accepted
        if placed == NUM_WALLS:
            rng[i] = state
            return


@njit(cache=True, inline="always")
def draw_free_tile(rng: np.ndarray, i: int, walls: np.ndarray, out: np.ndarray) -> None:
    while True:
        t = below(rng, i, GRID_SIZE * GRID_SIZE)
        r = t // GRID_SIZE
        c = t % GRID_SIZE
        if (walls[i, r + 1] >> (c + 1)) & 1 == 0:
            out[i, 0] = r
            out[i, 1] = c
            return


@njit(cache=True, inline="always")
def draw_scenario(
    rng: np.ndarray,
    i: int,
    walls: np.ndarray,
    node: np.ndarray,
    start: np.ndarray,
    start_facing: np.ndarray,
) -> None:
    """Walls, then the node, then the agent's tile and facing, all uniform."""
    draw_walls(rng, i, walls)
    draw_free_tile(rng, i, walls, node)
    draw_free_tile(rng, i, walls, start)
    start_facing[i] = below(rng, i, 4)


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("walls", "node", "agent", "facing")


def free_region_count(walls: np.ndarray) -> int:
    """Number of 4-connected regions of free tiles of a 15x15 0/1 wall map."""
    return region_count(np.asarray(walls) == 0)


def wall_grid(rows: np.ndarray) -> np.ndarray:
    """The 15x15 0/1 wall map of one sub-env's row bit masks (without the border)."""
    bits = (rows[:, None] >> np.arange(PADDED)[None, :]) & 1
    return bits[1 : GRID_SIZE + 1, 1 : GRID_SIZE + 1].astype(np.int8)


def wall_rows(grid: np.ndarray) -> np.ndarray:
    """Row bit masks, border included, of a 15x15 0/1 wall map."""
    padded = np.pad(np.asarray(grid, dtype=np.int64), 1, constant_values=1)
    return (padded << np.arange(PADDED)[None, :]).sum(axis=1).astype(np.int64)


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict and returns it as arrays for the batch.

    A replayed scenario is a custom level: any wall count is allowed as long as the free tiles
    are one 4-connected region and neither the node nor the agent stands on a wall.
    """
    check_keys(scenario, SCENARIO_KEYS)
    walls = int_array(scenario["walls"], "walls", (GRID_SIZE, GRID_SIZE), 0, 1)
    node = int_array(scenario["node"], "node", (2,), 0, GRID_SIZE - 1)
    agent = int_array(scenario["agent"], "agent", (2,), 0, GRID_SIZE - 1)
    facing = int_scalar(scenario["facing"], "facing", 0, 3, " (N, E, S, W)")
    if walls[node[0], node[1]]:
        raise ValueError(f"scenario['node'] {node.tolist()} stands on a wall")
    if walls[agent[0], agent[1]]:
        raise ValueError(f"scenario['agent'] {agent.tolist()} stands on a wall")
    if free_region_count(walls) != 1:
        raise ValueError("scenario['walls'] must leave the free tiles one 4-connected region")
    return {
        "walls": wall_rows(walls),
        "node": node.astype(np.int64),
        "start": agent.astype(np.int64),
        "start_facing": np.int64(facing),
    }


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "walls": wall_grid(batch["walls"][i]).astype(int).tolist(),
        "node": batch["node"][i].astype(int).tolist(),
        "agent": batch["start"][i].astype(int).tolist(),
        "facing": int(batch["start_facing"][i]),
    }
