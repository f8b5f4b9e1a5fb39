"""What a SquadRecon reset draws (terrain, squad strengths, camps) and the checks of a given one.

Terrain: a target number of blocked cells is drawn uniformly in 34..67 (15-30 % of 225); about
a third to a half of them are walls, laid as straight partial barriers (anchored at an edge or
free-standing) with a gap of one or two cells, so they make chokepoints; the rest is forest,
grown as random-walk patches. Every cell is blocked only if the open cells stay one 4-connected
region: the local test of :func:`blocking_keeps_open_connected` is sufficient for that, so no
flood fill is needed. The 3x3 south-west corner around the squads' starts is never blocked.

Camps: uniform open cells at Chebyshev distance >= 5 from ``[14, 0]``, redrawn while a camp
could be seen from a start cell, would cut the open region in two, or (for the first camp) would
be left with no open neighbour to attack from. So every camp can be reached and attacked
without destroying the other one first. Strengths are uniform in 2..6 and 1..4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.kernel import inline
from hiddengrid.core.rng import below, below_from
from hiddengrid.core.scenario import check_keys, int_array, region_count
from hiddengrid.envs.squad_recon.constants import (
    CAMP_MIN_DISTANCE,
    FOREST,
    GRID_SIZE,
    MAX_BLOCKED,
    MAX_CAMP_STRENGTH,
    MAX_REPLAY_CAMP_STRENGTH,
    MAX_SQUAD_STRENGTH,
    MIN_BLOCKED,
    MIN_CAMP_STRENGTH,
    MIN_SQUAD_STRENGTH,
    NUM_CAMPS,
    NUM_CELLS,
    NUM_SQUADS,
    OPEN,
    SAFE_COLS,
    SAFE_ROWS,
    SQUAD_STARTS,
    WALL,
)
from hiddengrid.envs.squad_recon.sight import sees

# The 8 cells around a cell in ring order (N, NE, E, SE, S, SW, W, NW): neighbours in this
# order are 4-adjacent to each other, so open runs along the ring are connected arcs.
RING_ROW = np.array([-1, -1, 0, 1, 1, 1, 0, -1], dtype=np.int64)
RING_COL = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
NEIGHBOUR_ROW = np.array([-1, 1, 0, 0], dtype=np.int64)
NEIGHBOUR_COL = np.array([0, 0, 1, -1], dtype=np.int64)
MIN_WALL_PERCENT, WALL_PERCENT_RANGE = 35, 21  # walls are 35..55 % of the blocked cells
MAX_BARRIERS = 40
MAX_PATCHES = 400


@inline
def _is_open(terrain: np.ndarray, i: int, r: int, c: int, skip_r: int, skip_c: int) -> bool:
    """Open ground on the grid, not the cell ``(skip_r, skip_c)`` (a camp already placed)."""
    if r < 0 or r >= GRID_SIZE or c < 0 or c >= GRID_SIZE:
        return False
    return terrain[i, r, c] == OPEN and not (r == skip_r and c == skip_c)


def _ring_table() -> np.ndarray:
    """``RING_OK[bits]``: blocking a cell whose open 8-ring cells are ``bits`` (bit ``k`` = ring
    cell ``k``) keeps the open cells connected, i.e. its open 4-neighbours lie on one open arc
    of the ring. Any path through the cell enters and leaves by two open 4-neighbours, and an
    arc is a 4-connected path, so the test is sufficient."""
    table = np.zeros(256, dtype=np.bool_)
    for bits in range(256):
        arcs = []  # the ring cells of each maximal open run
        for k in range(8):
            if (bits >> k) & 1 and (not arcs or not (bits >> ((k - 1) % 8)) & 1):
                arcs.append([])
            if (bits >> k) & 1:
                arcs[-1].append(k)
        if len(arcs) > 1 and (bits & 1) and (bits >> 7) & 1:  # the run wrapping past cell 0
            arcs[0] = arcs.pop() + arcs[0]
        table[bits] = sum(any(k % 2 == 0 for k in arc) for arc in arcs) <= 1
    return table


RING_OK = _ring_table()  # (256,)


@inline
def blocking_keeps_open_connected(
    terrain: np.ndarray, i: int, r: int, c: int, skip_r: int, skip_c: int
) -> bool:
    """True if the open 4-neighbours of ``(r, c)`` lie on one open arc of its 8-ring (``RING_OK``),
    ``(skip_r, skip_c)`` counting as blocked."""
    bits = 0
    if skip_r < 0 and 0 < r < GRID_SIZE - 1 and 0 < c < GRID_SIZE - 1:
        # Inside the border with nothing to skip (most calls): no bounds tests, no branches.
        for k in range(8):
            bits |= np.int64(terrain[i, r + RING_ROW[k], c + RING_COL[k]] == OPEN) << k
        return RING_OK[bits]
    for k in range(8):
        if _is_open(terrain, i, r + RING_ROW[k], c + RING_COL[k], skip_r, skip_c):
            bits |= 1 << k
    return RING_OK[bits]


@inline
def _in_safe_corner(r: int, c: int) -> bool:
    return SAFE_ROWS[0] <= r <= SAFE_ROWS[1] and SAFE_COLS[0] <= c <= SAFE_COLS[1]


@inline
def _try_block(terrain: np.ndarray, i: int, r: int, c: int, kind: int) -> bool:
    if r < 0 or r >= GRID_SIZE or c < 0 or c >= GRID_SIZE or _in_safe_corner(r, c):
        return False
    if terrain[i, r, c] != OPEN or not blocking_keeps_open_connected(terrain, i, r, c, -1, -1):
        return False
    terrain[i, r, c] = kind
    return True


@inline
def draw_barrier(rng: np.ndarray, i: int, terrain: np.ndarray, budget: int) -> int:
    """One straight partial wall of 5..12 cells on row or column 2..12 with a 1-2 cell gap.

    A third start at the west/north edge, a third end at the east/south edge, a third stand
    free. Cells that would cut the open region are skipped (they widen the gap). Returns the
    number of walls placed, at most ``budget``.
    """
    state = rng[i]  # the stream in a local variable: same numbers (see below_from)
    state, vertical = below_from(state, 2)
    state, line = below_from(state, GRID_SIZE - 4)
    line += 2
    state, length = below_from(state, 8)
    length += 5
    state, anchor = below_from(state, 3)
    if anchor == 0:
        first = 0
    elif anchor == 1:
        first = GRID_SIZE - length
    else:
        state, first = below_from(state, GRID_SIZE - length + 1)
    state, gap = below_from(state, length - 2)
    gap += first + 1
    state, gap_width = below_from(state, 2)
    gap_width += 1
    rng[i] = state
    placed = 0
    for k in range(first, first + length):
        if placed >= budget:
            break
        if gap <= k < gap + gap_width:
            continue
        r = k if vertical == 1 else line
        c = line if vertical == 1 else k
        if _try_block(terrain, i, r, c, WALL):
            placed += 1
    return placed


@inline
def draw_forest_patch(rng: np.ndarray, i: int, terrain: np.ndarray, budget: int) -> int:
    """A patch of 3..8 forest cells grown by a random walk from a uniform cell."""
    state = rng[i]  # the stream in a local variable: same numbers (see below_from)
    state, size = below_from(state, 6)
    size += 3
    state, t = below_from(state, NUM_CELLS)
    r = t // GRID_SIZE
    c = t % GRID_SIZE
    placed = 0
    for _ in range(4 * size):
        if placed >= size or placed >= budget:
            break
        if _try_block(terrain, i, r, c, FOREST):
            placed += 1
        state, d = below_from(state, 4)
        nr = r + NEIGHBOUR_ROW[d]
        nc = c + NEIGHBOUR_COL[d]
        if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE:
            r = nr
            c = nc
    rng[i] = state
    return placed


@inline
def draw_terrain(rng: np.ndarray, i: int, terrain: np.ndarray) -> None:
    """Barriers, then forest patches, until exactly the drawn number of cells is blocked."""
    while True:
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                terrain[i, r, c] = OPEN
        target = MIN_BLOCKED + below(rng, i, MAX_BLOCKED - MIN_BLOCKED + 1)
        walls = target * (MIN_WALL_PERCENT + below(rng, i, WALL_PERCENT_RANGE)) // 100
        blocked = 0
        for _ in range(MAX_BARRIERS):
            if blocked >= walls:
                break
            blocked += draw_barrier(rng, i, terrain, walls - blocked)
        for _ in range(MAX_PATCHES):
            if blocked >= target:
                break
            blocked += draw_forest_patch(rng, i, terrain, target - blocked)
        if blocked == target:
            return


@inline
def seen_from_start(terrain: np.ndarray, i: int, r: int, c: int) -> bool:
    for k in range(NUM_SQUADS):
        if sees(terrain, i, SQUAD_STARTS[k, 0], SQUAD_STARTS[k, 1], r, c):
            return True
    return False


@inline
def _open_neighbours(terrain: np.ndarray, i: int, r: int, c: int, skip_r: int, skip_c: int) -> int:
    count = 0
    for d in range(4):
        if _is_open(terrain, i, r + NEIGHBOUR_ROW[d], c + NEIGHBOUR_COL[d], skip_r, skip_c):
            count += 1
    return count


@inline
def draw_camps(rng: np.ndarray, i: int, terrain: np.ndarray, camps: np.ndarray) -> None:
    """Two camps on distinct open cells far from the start, hidden from it, cutting nothing."""
    start_r = SQUAD_STARTS[0, 0]
    start_c = SQUAD_STARTS[0, 1]
    while True:
        for j in range(NUM_CAMPS):
            skip_r = camps[i, 0, 0] if j == 1 else -1
            skip_c = camps[i, 0, 1] if j == 1 else -1
            while True:
                t = below(rng, i, NUM_CELLS)
                r = t // GRID_SIZE
                c = t % GRID_SIZE
                if terrain[i, r, c] != OPEN or (r == skip_r and c == skip_c):
                    continue
                if max(abs(r - start_r), abs(c - start_c)) < CAMP_MIN_DISTANCE:
                    continue
                if seen_from_start(terrain, i, r, c):
                    continue
                if not blocking_keeps_open_connected(terrain, i, r, c, skip_r, skip_c):
                    continue
                camps[i, j, 0] = r
                camps[i, j, 1] = c
                break
        # The second camp must not take the first one's last open neighbour.
        if (
            _open_neighbours(
                terrain, i, camps[i, 0, 0], camps[i, 0, 1], camps[i, 1, 0], camps[i, 1, 1]
            )
            > 0
        ):
            break
    for j in range(NUM_CAMPS):
        camps[i, j, 2] = MIN_CAMP_STRENGTH + below(
            rng, i, MAX_CAMP_STRENGTH - MIN_CAMP_STRENGTH + 1
        )


@inline
def draw_scenario(
    rng: np.ndarray, i: int, terrain: np.ndarray, start_squads: np.ndarray, camps: np.ndarray
) -> None:
    """Terrain, then the squads' strengths, then the camps (SPEC section 5)."""
    draw_terrain(rng, i, terrain)
    for k in range(NUM_SQUADS):
        start_squads[i, k, 0] = SQUAD_STARTS[k, 0]
        start_squads[i, k, 1] = SQUAD_STARTS[k, 1]
        start_squads[i, k, 2] = MIN_SQUAD_STRENGTH + below(
            rng, i, MAX_SQUAD_STRENGTH - MIN_SQUAD_STRENGTH + 1
        )
    draw_camps(rng, i, terrain, camps)


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("terrain", "squads", "camps")


def open_region_count(terrain: np.ndarray) -> int:
    """Number of 4-connected regions of open cells (used only on given scenarios)."""
    return region_count(np.asarray(terrain) == OPEN)


def _units(value: Any, name: str, count: int, low: int, high: int) -> np.ndarray:
    units = int_array(value, name, (count, 3))
    for k, (r, c, s) in enumerate(units.tolist()):
        if not (0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE):
            raise ValueError(f"scenario[{name!r}][{k}] position {[r, c]} is off the 15x15 grid")
        if not low <= s <= high:
            raise ValueError(f"scenario[{name!r}][{k}] strength {s} must be in {low}..{high}")
    return units


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict against SPEC section 5 and returns it as arrays for the batch.

    A replayed scenario is a custom level: any amount of wall and forest, squads anywhere on
    open ground (sharing cells if you like), camps anywhere on open ground, near or far, with
    squad strengths 1..4 and camp strengths 1..12. Hard rules: shapes and values, the open
    cells one 4-connected region, no squad or camp on a wall or forest, no squad on a camp,
    the two camps on different cells.
    """
    if not isinstance(scenario, Mapping):
        raise ValueError(f"a scenario must be a dict, got {type(scenario).__name__}")
    check_keys(scenario, SCENARIO_KEYS)
    terrain = int_array(scenario["terrain"], "terrain", (GRID_SIZE, GRID_SIZE))
    if not set(np.unique(terrain).tolist()) <= {OPEN, WALL, FOREST}:
        raise ValueError("scenario['terrain'] may hold only 0 (open), 1 (wall) and 2 (forest)")
    squads = _units(scenario["squads"], "squads", NUM_SQUADS, 1, MAX_SQUAD_STRENGTH)
    camps = _units(scenario["camps"], "camps", NUM_CAMPS, 1, MAX_REPLAY_CAMP_STRENGTH)
    for name, units in (("squads", squads), ("camps", camps)):
        for k, (r, c, _) in enumerate(units.tolist()):
            if terrain[r, c] != OPEN:
                raise ValueError(
                    f"scenario[{name!r}][{k}] at {[r, c]} stands on a "
                    f"{'wall' if terrain[r, c] == WALL else 'forest'} cell; it must be open"
                )
    if camps[0, :2].tolist() == camps[1, :2].tolist():
        raise ValueError(
            f"scenario['camps'] must be on two different cells, both at {camps[0, :2].tolist()}"
        )
    camp_cells = {tuple(camps[j, :2].tolist()) for j in range(NUM_CAMPS)}
    for k in range(NUM_SQUADS):
        if tuple(squads[k, :2].tolist()) in camp_cells:
            raise ValueError(
                f"scenario['squads'][{k}] stands on a camp at {squads[k, :2].tolist()}"
            )
    if open_region_count(terrain) != 1:
        raise ValueError("scenario['terrain'] must leave the open cells one 4-connected region")
    return {"terrain": terrain.astype(np.int8), "start_squads": squads, "camps": camps}


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "terrain": batch["terrain"][i].astype(int).tolist(),
        "squads": batch["start_squads"][i].astype(int).tolist(),
        "camps": batch["camps"][i].astype(int).tolist(),
    }
