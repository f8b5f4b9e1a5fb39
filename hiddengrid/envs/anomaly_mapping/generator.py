"""What an AnomalyMapping reset draws (walls, node, start) and the checks of a given scenario.

Walls are placed one at a time on uniform free tiles; a placement is kept only if the free
4-neighbours of the tile stay joined through the ring of 8 tiles around it. That local test is
sufficient for the free region to stay one 4-connected region (any path through the tile can
go round it), so no flood fill is needed: the test is one lookup in a 256-entry table indexed
by which ring tiles are free, and a whole layout costs about 50 random draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.rng import below, below_from
from hiddengrid.envs.anomaly_mapping.constants import GRID_SIZE, NUM_WALLS, PADDED

# The 8 tiles around a tile in ring order (N, NE, E, SE, S, SW, W, NW): neighbours in this
# order are 4-adjacent to each other, so free runs along the ring are connected arcs.
RING_ROW = np.array([-1, -1, 0, 1, 1, 1, 0, -1], dtype=np.int64)
RING_COL = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
RING_DELTA = RING_ROW * PADDED + RING_COL  # the same ring as offsets into the flat padded map
MAX_PLACEMENT_TRIES = 20_000
_floor = np.ones((PADDED, PADDED), dtype=np.int8)
_floor[1:-1, 1:-1] = 0
EMPTY_FLOOR = _floor.reshape(-1)  # the border of wall around an empty floor, flat


def _orthogonal_neighbours_on_one_arc(free_mask: int) -> bool:
    """For a ring whose free tiles are the set bits of ``free_mask``: are all free orthogonal
    neighbours (even bits) on one connected run of free ring tiles?"""
    free = [(free_mask >> k) & 1 == 1 for k in range(8)]
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


# SAFE_TO_WALL[mask]: walling the centre keeps the free tiles connected (ring bit k = tile k free).
SAFE_TO_WALL = np.array([_orthogonal_neighbours_on_one_arc(m) for m in range(256)], dtype=np.bool_)


@njit(cache=True, inline="always")
def ring_mask(flat: np.ndarray, p: int) -> int:
    """Bit k set when ring tile k around flat padded cell ``p`` is free."""
    mask = 0
    for k in range(8):
        mask |= (1 - flat[p + RING_DELTA[k]]) << k
    return mask


@njit(cache=True, inline="always")
def draw_walls(rng: np.ndarray, i: int, walls: np.ndarray) -> None:
    """Exactly NUM_WALLS walls inside the border, free tiles one 4-connected region.

    Reset speed decides throughput (a random agent ends an episode every ~7 steps), so the
    loop is branch-free per try and keeps the random stream in a local variable.
    """
    flat = walls[i].reshape(PADDED * PADDED)  # a view of sub-env i's padded map
    state = rng[i]
    while True:
        for p in range(PADDED * PADDED):
            flat[p] = EMPTY_FLOOR[p]
        placed = 0
        tries = 0
        while placed < NUM_WALLS and tries < MAX_PLACEMENT_TRIES:
            tries += 1
            state, t = below_from(state, GRID_SIZE * GRID_SIZE)
            p = (t // GRID_SIZE + 1) * PADDED + t % GRID_SIZE + 1
            accepted = (1 - flat[p]) & SAFE_TO_WALL[ring_mask(flat, p)]
            flat[p] |= accepted
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
        if walls[i, r + 1, c + 1] == 0:
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
    """Walls, then the node, then the agent's tile and facing, all uniform (SPEC section 2)."""
    draw_walls(rng, i, walls)
    draw_free_tile(rng, i, walls, node)
    draw_free_tile(rng, i, walls, start)
    start_facing[i] = below(rng, i, 4)


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("walls", "node", "agent", "facing")


def free_region_count(walls: np.ndarray) -> int:
    """Number of 4-connected regions of free tiles of a 15x15 wall map (used on given scenarios)."""
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


def unpadded(walls: np.ndarray) -> np.ndarray:
    """The 15x15 wall map without the border the kernels keep around it."""
    return walls[..., 1 : GRID_SIZE + 1, 1 : GRID_SIZE + 1]


def _int_array(value: Any, name: str, shape: tuple[int, ...], allowed: set[int]) -> np.ndarray:
    if isinstance(value, str | bytes) or value is None:
        raise ValueError(f"scenario[{name!r}] must be integers of shape {shape}, got {value!r}")
    try:
        arr = np.array(value)
    except (ValueError, TypeError):
        raise ValueError(f"scenario[{name!r}] must be integers of shape {shape}") from None
    if arr.shape != shape or arr.dtype.kind not in "iu":
        raise ValueError(
            f"scenario[{name!r}] must be integers of shape {shape}, got shape {arr.shape} "
            f"of {arr.dtype}"
        )
    if not set(np.unique(arr).tolist()) <= allowed:
        raise ValueError(f"scenario[{name!r}] may hold only values in {sorted(allowed)}")
    return arr


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict against SPEC section 2 and returns it as arrays for the batch.

    A replayed scenario is a custom level: any wall count is allowed as long as the free tiles
    are one 4-connected region and neither the node nor the agent stands on a wall.
    """
    keys = set(scenario)
    if keys != set(SCENARIO_KEYS):
        missing = sorted(set(SCENARIO_KEYS) - keys)
        extra = sorted(keys - set(SCENARIO_KEYS))
        raise ValueError(
            f"scenario keys must be {list(SCENARIO_KEYS)}: missing {missing}, unknown {extra}"
        )
    walls = _int_array(scenario["walls"], "walls", (GRID_SIZE, GRID_SIZE), {0, 1})
    node = _int_array(scenario["node"], "node", (2,), set(range(GRID_SIZE)))
    agent = _int_array(scenario["agent"], "agent", (2,), set(range(GRID_SIZE)))
    facing = scenario["facing"]
    if isinstance(facing, bool) or not isinstance(facing, int | np.integer) or not 0 <= facing < 4:
        raise ValueError(f"scenario['facing'] must be an int 0..3 (N, E, S, W), got {facing!r}")
    if walls[node[0], node[1]]:
        raise ValueError(f"scenario['node'] {node.tolist()} stands on a wall")
    if walls[agent[0], agent[1]]:
        raise ValueError(f"scenario['agent'] {agent.tolist()} stands on a wall")
    if free_region_count(walls) != 1:
        raise ValueError("scenario['walls'] must leave the free tiles one 4-connected region")
    padded = np.pad(walls.astype(np.int8), 1, constant_values=1)
    return {
        "walls": padded,
        "node": node.astype(np.int64),
        "start": agent.astype(np.int64),
        "start_facing": np.int64(facing),
    }


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "walls": unpadded(batch["walls"][i]).astype(int).tolist(),
        "node": batch["node"][i].astype(int).tolist(),
        "agent": batch["start"][i].astype(int).tolist(),
        "facing": int(batch["start_facing"][i]),
    }
