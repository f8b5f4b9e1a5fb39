"""What an AnomalyMapping reset draws (walls, node, start) and the checks of a given scenario.

Walls are placed one at a time on uniform free tiles; a placement is kept only if the free
4-neighbours of the tile stay joined through the ring of 8 tiles around it. That local test is
sufficient for the free region to stay one 4-connected region (any path through the tile can
go round it), so no flood fill is needed and a layout costs about 50 random draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.rng import below
from hiddengrid.envs.anomaly_mapping.constants import GRID_SIZE, NUM_WALLS

# The 8 tiles around a tile in ring order (N, NE, E, SE, S, SW, W, NW): neighbours in this
# order are 4-adjacent to each other, so free runs along the ring are connected arcs.
RING_ROW = np.array([-1, -1, 0, 1, 1, 1, 0, -1], dtype=np.int64)
RING_COL = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
MAX_PLACEMENT_TRIES = 20_000


@njit(cache=True)
def _is_free(walls: np.ndarray, i: int, r: int, c: int) -> bool:
    return 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE and walls[i, r, c] == 0


@njit(cache=True)
def wall_keeps_free_connected(walls: np.ndarray, i: int, r: int, c: int) -> bool:
    """True if the free 4-neighbours of ``(r, c)`` lie on one free arc of its 8-ring."""
    free = np.zeros(8, dtype=np.bool_)
    start = -1
    for k in range(8):
        free[k] = _is_free(walls, i, r + RING_ROW[k], c + RING_COL[k])
        if not free[k] and start < 0:
            start = k
    if start < 0:
        return True
    arc = -1
    orth_arc = -1
    prev_free = False
    for j in range(1, 9):
        k = (start + j) % 8
        if free[k]:
            if not prev_free:
                arc += 1
            if k % 2 == 0:  # an orthogonal neighbour
                if orth_arc < 0:
                    orth_arc = arc
                elif orth_arc != arc:
                    return False
        prev_free = free[k]
    return True


@njit(cache=True)
def draw_walls(rng: np.ndarray, i: int, walls: np.ndarray) -> None:
    while True:
        walls[i, :, :] = 0
        placed = 0
        tries = 0
        while placed < NUM_WALLS and tries < MAX_PLACEMENT_TRIES:
            tries += 1
            t = below(rng, i, GRID_SIZE * GRID_SIZE)
            r = t // GRID_SIZE
            c = t % GRID_SIZE
            if walls[i, r, c] != 0 or not wall_keeps_free_connected(walls, i, r, c):
                continue
            walls[i, r, c] = 1
            placed += 1
        if placed == NUM_WALLS:
            return


@njit(cache=True)
def draw_free_tile(rng: np.ndarray, i: int, walls: np.ndarray, out: np.ndarray) -> None:
    while True:
        t = below(rng, i, GRID_SIZE * GRID_SIZE)
        r = t // GRID_SIZE
        c = t % GRID_SIZE
        if walls[i, r, c] == 0:
            out[i, 0] = r
            out[i, 1] = c
            return


@njit(cache=True)
def draw_scenario(
    rng: np.ndarray,
    i: int,
    walls: np.ndarray,
    node: np.ndarray,
    start: np.ndarray,
    start_facing: np.ndarray,
) -> None:
    """Walls, then the node, then the agent's tile and facing, all uniform (SPEC section 2)."""
    draw_walls(rng, i, walls)
    draw_free_tile(rng, i, walls, node)
    draw_free_tile(rng, i, walls, start)
    start_facing[i] = below(rng, i, 4)


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("walls", "node", "agent", "facing")


def free_region_count(walls: np.ndarray) -> int:
    """Number of 4-connected regions of free tiles (a flood fill; used only on given scenarios)."""
    seen = walls.astype(bool).copy()
    regions = 0
    for r0 in range(GRID_SIZE):
        for c0 in range(GRID_SIZE):
            if seen[r0, c0]:
                continue
            regions += 1
            stack = [(r0, c0)]
            seen[r0, c0] = True
            while stack:
                r, c = stack.pop()
                for dr, dc in ((-1, 0), (1, 0), (0, 1), (0, -1)):
                    nr, nc = r + dr, c + dc
                    if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE and not seen[nr, nc]:
                        seen[nr, nc] = True
                        stack.append((nr, nc))
    return regions


def _int_grid(value: Any, name: str, shape: tuple[int, ...], allowed: set[int]) -> np.ndarray:
    try:
        arr = np.array(value)
    except (ValueError, TypeError):
        raise ValueError(f"scenario[{name!r}] must be a {shape} list of lists") from None
    if arr.shape != shape or arr.dtype.kind not in "iu":
        raise ValueError(f"scenario[{name!r}] must be integers of shape {shape}, got {arr.shape}")
    if not set(np.unique(arr).tolist()) <= allowed:
        raise ValueError(f"scenario[{name!r}] may hold only {sorted(allowed)}")
    return arr


def _position(value: Any, name: str) -> np.ndarray:
    pos = _int_grid(value, name, (2,), set(range(GRID_SIZE)))
    return pos.astype(np.int64)


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict against SPEC section 2 and returns it as arrays for the batch.

    A replayed scenario is a custom level: any wall count is allowed as long as the free tiles
    are one 4-connected region and neither the node nor the agent stands on a wall.
    """
    keys = set(scenario)
    if keys != set(SCENARIO_KEYS):
        missing = sorted(set(SCENARIO_KEYS) - keys)
        extra = sorted(keys - set(SCENARIO_KEYS))
        raise ValueError(f"scenario keys must be {list(SCENARIO_KEYS)}: missing {missing}, "
                         f"unknown {extra}")
    walls = _int_grid(scenario["walls"], "walls", (GRID_SIZE, GRID_SIZE), {0, 1})
    node = _position(scenario["node"], "node")
    agent = _position(scenario["agent"], "agent")
    facing = scenario["facing"]
    if isinstance(facing, bool) or not isinstance(facing, int | np.integer) or not 0 <= facing < 4:
        raise ValueError(f"scenario['facing'] must be an int 0..3, got {facing!r}")
    if walls[node[0], node[1]]:
        raise ValueError(f"scenario['node'] {node.tolist()} stands on a wall")
    if walls[agent[0], agent[1]]:
        raise ValueError(f"scenario['agent'] {agent.tolist()} stands on a wall")
    if free_region_count(walls) != 1:
        raise ValueError("scenario['walls'] must leave the free tiles one 4-connected region")
    return {
        "walls": walls.astype(np.int8),
        "node": node,
        "start": agent,
        "start_facing": np.int64(facing),
    }


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "walls": batch["walls"][i].astype(int).tolist(),
        "node": batch["node"][i].astype(int).tolist(),
        "agent": batch["start"][i].astype(int).tolist(),
        "facing": int(batch["start_facing"][i]),
    }
