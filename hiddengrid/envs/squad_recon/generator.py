"""What a SquadRecon reset draws (terrain, squad strengths, camps) and the checks of a given one.

Terrain: a target number of blocked cells is drawn uniformly in 34..67 (15-30 % of 225); about
a third to a half of them are walls, laid as straight partial barriers (anchored at an edge or
free-standing) with a gap of one or two cells, so they make chokepoints; the rest is forest,
grown as random-walk patches. Every cell is blocked only if the open cells stay one 4-connected
region: the local test of ``RING_OK`` (the open 4-neighbours of the cell lie on one open arc
of its 8-ring) is sufficient for that, so no flood fill is needed. The 3x3 south-west corner
around the squads' starts is never blocked.

Camps: uniform open cells at Chebyshev distance >= 5 from ``[14, 0]``, redrawn while a camp
could be seen from a start cell, would cut the open region in two, or (for the first camp) would
be left with no open neighbour to attack from. So every camp can be reached and attacked
without destroying the other one first. Strengths are uniform in 2..6 and 1..4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.kernel import inline, kernel
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

# --- the open cells as bit rows ----------------------------------------------------------------
#
# While it draws, the generator also keeps the open cells as bit rows: ``open_rows[i, r + 1]``
# has bit ``c + 1`` set where ``(r, c)`` is open, and the padding (row 0, row 16, bit 0, bit 16)
# is never open, so off-grid cells count as blocked without a bounds test. The 3x3 block around
# a cell is then three loads and shifts, and one lookup in CAN_BLOCK decides it. Why: the cells
# tried are random, so a cell-by-cell test with its branches mispredicted most of the time, and
# that was most of the cost of a draw.
PADDED = GRID_SIZE + 2
FULL_ROW = ((1 << GRID_SIZE) - 1) << 1  # the 15 cells of a row, all open


def _block_table() -> np.ndarray:
    """``CAN_BLOCK[block]`` (0 or 1) for the open cells of a 3x3 block (bit ``3 * row + col``, row
    0 north, col 0 west): the centre is open and blocking it keeps the open cells connected."""
    table = np.zeros(512, dtype=np.int64)
    for block in range(512):
        ring = 0
        for k in range(8):
            ring |= ((block >> (3 * (1 + RING_ROW[k]) + 1 + RING_COL[k])) & 1) << k
        table[block] = int((block >> 4) & 1 and RING_OK[ring])
    return table


CAN_BLOCK = _block_table()  # (512,)
# BLOCKABLE_ROWS[r]: bit c set where the generator may block (r, c), i.e. outside the safe corner.
BLOCKABLE_ROWS = np.array(
    [
        ((1 << GRID_SIZE) - 1)
        ^ (((1 << (SAFE_COLS[1] + 1)) - (1 << SAFE_COLS[0])) * (SAFE_ROWS[0] <= r <= SAFE_ROWS[1]))
        for r in range(GRID_SIZE)
    ],
    dtype=np.int64,
)


@inline
def block_3x3(open_rows: np.ndarray, i: int, r: int, c: int) -> int:
    """The open cells of the 3x3 block around grid cell ``(r, c)`` as 9 bits (CAN_BLOCK's)."""
    return (
        ((np.int64(open_rows[i, r]) >> c) & 7)
        | (((np.int64(open_rows[i, r + 1]) >> c) & 7) << 3)
        | (((np.int64(open_rows[i, r + 2]) >> c) & 7) << 6)
    )


@inline
def is_open(open_rows: np.ndarray, i: int, r: int, c: int) -> int:
    return (np.int64(open_rows[i, r + 1]) >> (c + 1)) & 1


@inline
def _try_block(
    terrain: np.ndarray, open_rows: np.ndarray, i: int, r: int, c: int, kind: int, allowed: int
) -> int:
    """Blocks grid cell ``(r, c)`` with ``kind`` if ``allowed`` (0 or 1), the cell is open and
    outside the safe corner, and blocking it keeps the open cells connected. Returns 1 if it did.

    Branch-free (the outcome is random, a branch on it mispredicts): both writes always happen
    and change nothing when the cell is not blocked.
    """
    blocked = CAN_BLOCK[block_3x3(open_rows, i, r, c)] & (BLOCKABLE_ROWS[r] >> c) & allowed
    open_rows[i, r + 1] = np.int64(open_rows[i, r + 1]) & ~(blocked << (c + 1))
    terrain[i, r, c] = terrain[i, r, c] | kind * blocked
    return blocked


@inline
def draw_barrier(
    rng: np.ndarray, i: int, terrain: np.ndarray, open_rows: np.ndarray, budget: int
) -> int:
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
    for k in range(first, first + length):  # every cell is on the grid
        r = k if vertical == 1 else line
        c = line if vertical == 1 else k
        # Cells in the gap or past the budget are not blocked (a mask, not a branch).
        allowed = np.int64((k < gap) | (k >= gap + gap_width)) & np.int64(placed < budget)
        placed += _try_block(terrain, open_rows, i, r, c, WALL, allowed)
    return placed


@inline
def draw_forest_patch(
    rng: np.ndarray, i: int, terrain: np.ndarray, open_rows: np.ndarray, budget: int
) -> int:
    """A patch of 3..8 forest cells grown by a random walk from a uniform cell."""
    state = rng[i]  # the stream in a local variable: same numbers (see below_from)
    state, size = below_from(state, 6)
    size += 3
    state, t = below_from(state, NUM_CELLS)
    r = t // GRID_SIZE
    c = t % GRID_SIZE
    placed = 0
    wanted = min(size, budget)
    for _ in range(4 * size):
        if placed >= wanted:
            break
        placed += _try_block(terrain, open_rows, i, r, c, FOREST, 1)
        state, d = below_from(state, 4)
        # A step off the grid stays put. A step changes one coordinate by one, so clamping
        # both is the same, without a branch.
        r = min(max(r + NEIGHBOUR_ROW[d], 0), GRID_SIZE - 1)
        c = min(max(c + NEIGHBOUR_COL[d], 0), GRID_SIZE - 1)
    rng[i] = state
    return placed


@inline
def draw_terrain(rng: np.ndarray, i: int, terrain: np.ndarray, open_rows: np.ndarray) -> None:
    """Barriers, then forest patches, until exactly the drawn number of cells is blocked."""
    while True:
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                terrain[i, r, c] = OPEN
        open_rows[i, 0] = 0
        open_rows[i, PADDED - 1] = 0
        for r in range(GRID_SIZE):
            open_rows[i, r + 1] = FULL_ROW
        target = MIN_BLOCKED + below(rng, i, MAX_BLOCKED - MIN_BLOCKED + 1)
        walls = target * (MIN_WALL_PERCENT + below(rng, i, WALL_PERCENT_RANGE)) // 100
        blocked = 0
        for _ in range(MAX_BARRIERS):
            if blocked >= walls:
                break
            blocked += draw_barrier(rng, i, terrain, open_rows, walls - blocked)
        for _ in range(MAX_PATCHES):
            if blocked >= target:
                break
            blocked += draw_forest_patch(rng, i, terrain, open_rows, target - blocked)
        if blocked == target:
            return


@inline
def seen_from_start(terrain: np.ndarray, i: int, r: int, c: int) -> bool:
    for k in range(NUM_SQUADS):
        if sees(terrain, i, SQUAD_STARTS[k, 0], SQUAD_STARTS[k, 1], r, c):
            return True
    return False


@inline
def draw_camps(
    rng: np.ndarray, i: int, terrain: np.ndarray, open_rows: np.ndarray, camps: np.ndarray
) -> None:
    """Two camps on distinct open cells far from the start, hidden from it, cutting nothing.

    While the second camp is drawn, the first one's cell is marked blocked in ``open_rows``.
    """
    start_r = SQUAD_STARTS[0, 0]
    start_c = SQUAD_STARTS[0, 1]
    while True:
        for j in range(NUM_CAMPS):
            while True:
                t = below(rng, i, NUM_CELLS)
                r = t // GRID_SIZE
                c = t % GRID_SIZE
                if is_open(open_rows, i, r, c) == 0:
                    continue
                if max(abs(r - start_r), abs(c - start_c)) < CAMP_MIN_DISTANCE:
                    continue
                if seen_from_start(terrain, i, r, c):
                    continue
                if CAN_BLOCK[block_3x3(open_rows, i, r, c)] == 0:  # it would cut the open region
                    continue
                camps[i, j, 0] = r
                camps[i, j, 1] = c
                break
            if j == 0:
                open_rows[i, r + 1] = np.int64(open_rows[i, r + 1]) & ~(1 << (c + 1))
        # The second camp must not take the first one's last open neighbour.
        r0 = camps[i, 0, 0]
        c0 = camps[i, 0, 1]
        open_rows[i, r0 + 1] = np.int64(open_rows[i, r0 + 1]) | (1 << (c0 + 1))
        neighbours = (
            is_open(open_rows, i, r0 - 1, c0)
            + is_open(open_rows, i, r0 + 1, c0)
            + is_open(open_rows, i, r0, c0 - 1)
            + is_open(open_rows, i, r0, c0 + 1)
        )
        if abs(camps[i, 1, 0] - r0) + abs(camps[i, 1, 1] - c0) == 1:
            neighbours -= 1  # the second camp, open in open_rows
        if neighbours > 0:
            break
    for j in range(NUM_CAMPS):
        camps[i, j, 2] = MIN_CAMP_STRENGTH + below(
            rng, i, MAX_CAMP_STRENGTH - MIN_CAMP_STRENGTH + 1
        )


@kernel
def draw_scenario(
    rng: np.ndarray,
    i: int,
    terrain: np.ndarray,
    start_squads: np.ndarray,
    camps: np.ndarray,
    open_rows: np.ndarray,
) -> None:
    """Terrain, then the squads' strengths, then the camps. ``open_rows`` is
    scratch (see CAN_BLOCK); afterwards it holds the open cells of the terrain drawn."""
    draw_terrain(rng, i, terrain, open_rows)
    for k in range(NUM_SQUADS):
        start_squads[i, k, 0] = SQUAD_STARTS[k, 0]
        start_squads[i, k, 1] = SQUAD_STARTS[k, 1]
        start_squads[i, k, 2] = MIN_SQUAD_STRENGTH + below(
            rng, i, MAX_SQUAD_STRENGTH - MIN_SQUAD_STRENGTH + 1
        )
    draw_camps(rng, i, terrain, open_rows, camps)


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
    """Checks a scenario dict and returns it as arrays for the batch.

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
