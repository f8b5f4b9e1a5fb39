"""The squads' sensor: which cells of the 7x7 window a squad's line of sight reaches.

A squad sees a cell within Chebyshev distance ``SENSOR_RADIUS`` when no wall or forest lies
strictly between the two cells on the textbook integer Bresenham line from the squad to the
cell. The line depends only on the offset, so the cells strictly between are computed once
here, for the 49 offsets of the window, and the rules only look them up.
"""

from __future__ import annotations

import numpy as np

from hiddengrid.core.kernel import inline
from hiddengrid.envs.squad_recon.constants import GRID_SIZE, OPEN, SENSOR_RADIUS, SENSOR_WIDTH


def bresenham_line(r0: int, c0: int, r1: int, c1: int) -> list[tuple[int, int]]:
    """The textbook integer Bresenham line from ``(r0, c0)`` to ``(r1, c1)``, both included.

    ``x`` is the column and ``y`` the row. With ``err = dx + dy`` (``dy`` negative) each step
    moves in ``x`` when ``2 * err >= dy`` and in ``y`` when ``2 * err <= dx``; on the exact tie
    of a knight offset both hold, so the line steps diagonally first.
    """
    x0, y0, x1, y1 = c0, r0, c1, r1
    dx = abs(x1 - x0)
    dy = -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    cells = []
    while True:
        cells.append((y0, x0))
        if x0 == x1 and y0 == y1:
            return cells
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def _sight_tables() -> tuple[np.ndarray, ...]:
    """Offsets of the window (row-major) and, for each, the cells strictly between."""
    n = SENSOR_WIDTH * SENSOR_WIDTH
    off_row = np.zeros(n, dtype=np.int64)
    off_col = np.zeros(n, dtype=np.int64)
    between_len = np.zeros(n, dtype=np.int64)
    between_row = np.zeros((n, SENSOR_RADIUS - 1), dtype=np.int64)
    between_col = np.zeros((n, SENSOR_RADIUS - 1), dtype=np.int64)
    o = 0
    for dr in range(-SENSOR_RADIUS, SENSOR_RADIUS + 1):
        for dc in range(-SENSOR_RADIUS, SENSOR_RADIUS + 1):
            off_row[o] = dr
            off_col[o] = dc
            between = bresenham_line(0, 0, dr, dc)[1:-1]
            between_len[o] = len(between)
            for m, (r, c) in enumerate(between):
                between_row[o, m] = r
                between_col[o, m] = c
            o += 1
    return off_row, off_col, between_len, between_row, between_col


# (49,), (49,), (49,), (49, 2), (49, 2): constant arrays, frozen into the compiled kernels.
OFFSET_ROW, OFFSET_COL, BETWEEN_LEN, BETWEEN_ROW, BETWEEN_COL = _sight_tables()
NUM_OFFSETS = OFFSET_ROW.shape[0]


def _shadow_tables() -> tuple[np.ndarray, np.ndarray]:
    """The same lines as bit masks over the 49 offsets (bit ``o`` = offset ``o``).

    Only cells within Chebyshev distance ``SENSOR_RADIUS - 1`` can lie strictly between a
    squad and a cell of its window: ``SHADOW[dr + 2, dc + 2]`` holds the offsets whose line
    passes through the inner cell ``(dr, dc)``, so a blocking inner cell hides exactly those.
    ``IN_GRID[r, c]`` holds the offsets that are on the grid for a squad on ``(r, c)``.
    """
    inner = SENSOR_RADIUS - 1
    shadow = np.zeros((2 * inner + 1, 2 * inner + 1), dtype=np.int64)
    for o in range(NUM_OFFSETS):
        for m in range(BETWEEN_LEN[o]):
            shadow[BETWEEN_ROW[o, m] + inner, BETWEEN_COL[o, m] + inner] |= 1 << o
    in_grid = np.zeros((GRID_SIZE, GRID_SIZE), dtype=np.int64)
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            for o in range(NUM_OFFSETS):
                if 0 <= r + OFFSET_ROW[o] < GRID_SIZE and 0 <= c + OFFSET_COL[o] < GRID_SIZE:
                    in_grid[r, c] |= 1 << o
    return shadow, in_grid


# (5, 5) and (15, 15): int64 bit masks over the 49 offsets.
SHADOW, IN_GRID = _shadow_tables()
INNER = SENSOR_RADIUS - 1


@inline
def window_in_sight(terrain: np.ndarray, i: int, r0: int, c0: int) -> int:
    """Bit mask of the window offsets a squad on ``(r0, c0)`` sees (bit ``o`` = offset ``o``).

    Start from the offsets on the grid and remove the shadow of every blocking inner cell.
    Written without data-dependent branches: that is what makes sight cheap.
    """
    seen = IN_GRID[r0, c0]
    for r in range(max(r0 - INNER, 0), min(r0 + INNER, GRID_SIZE - 1) + 1):
        for c in range(max(c0 - INNER, 0), min(c0 + INNER, GRID_SIZE - 1) + 1):
            blocking = np.int64(terrain[i, r, c] != OPEN)  # 0 or 1
            seen &= ~(SHADOW[r - r0 + INNER, c - c0 + INNER] & -blocking)
    return seen


# --- sight from bit rows (the rules' hot path) ----------------------------------------------------
#
# The shadow of the inner 5x5 block is the union of the shadows of its blocking cells, so it
# splits by rows: ROW_SHADOW[k, p] is the union of the shadows of the cells of inner row ``k``
# whose columns are the bits of ``p``. With the blocking cells of each grid row kept as a bit
# mask, a squad's sight is then five table lookups instead of 25 cell tests.

INNER_WIDTH = 2 * INNER + 1
INNER_ROW = (1 << INNER_WIDTH) - 1  # the 5 bits of one inner row
WINDOW_ROW = (1 << SENSOR_WIDTH) - 1  # the 7 bits of one window row
# Blocking rows are padded by INNER rows above and below and INNER columns on the west (bit
# ``c + INNER`` is column ``c``), so the inner rows of any squad on the grid are read without a
# bounds test. Padding counts as open: the cells strictly between a squad and a cell of its
# window lie on the grid, so off-grid cells shade only off-grid offsets, which IN_GRID drops.
BLOCKING_ROWS = GRID_SIZE + 2 * INNER


def _row_shadow_table() -> np.ndarray:
    table = np.zeros((INNER_WIDTH, 1 << INNER_WIDTH), dtype=np.int64)
    for k in range(INNER_WIDTH):
        for pattern in range(1 << INNER_WIDTH):
            for j in range(INNER_WIDTH):
                if (pattern >> j) & 1:
                    table[k, pattern] |= SHADOW[k, j]
    return table


ROW_SHADOW = _row_shadow_table()  # (5, 32): int64 bit masks over the 49 offsets


@inline
def fill_blocking_rows(terrain: np.ndarray, i: int, blocking_rows: np.ndarray) -> None:
    """``blocking_rows[i, r + INNER]``: bit ``c + INNER`` set where ``(r, c)`` is wall or forest.

    Terrain does not change during an episode (a camp's cell is open ground all along), so
    this runs once, when the episode starts.
    """
    for r in range(BLOCKING_ROWS):
        blocking_rows[i, r] = 0
    for r in range(GRID_SIZE):
        bits = 0
        for c in range(GRID_SIZE):
            bits |= np.int64(terrain[i, r, c] != OPEN) << c
        blocking_rows[i, r + INNER] = bits << INNER


@inline
def window_in_sight_from_rows(blocking_rows: np.ndarray, i: int, r0: int, c0: int) -> int:
    """``window_in_sight`` from the bit rows of ``fill_blocking_rows``: the same mask."""
    shadow = 0
    for k in range(INNER_WIDTH):  # inner row k is grid row r0 - INNER + k, stored at r0 + k
        shadow |= ROW_SHADOW[k, (blocking_rows[i, r0 + k] >> c0) & INNER_ROW]
    return IN_GRID[r0, c0] & ~shadow


@inline
def line_is_clear(terrain: np.ndarray, i: int, r0: int, c0: int, o: int) -> bool:
    """True if no wall or forest lies strictly between ``(r0, c0)`` and the cell at offset ``o``.

    The cells between two grid cells lie inside their bounding box, so they are on the grid.
    """
    for m in range(BETWEEN_LEN[o]):
        if terrain[i, r0 + BETWEEN_ROW[o, m], c0 + BETWEEN_COL[o, m]] != OPEN:
            return False
    return True


@inline
def sees(terrain: np.ndarray, i: int, r0: int, c0: int, r: int, c: int) -> bool:
    """True if a squad on ``(r0, c0)`` sees ``(r, c)`` (used by the generator and tests)."""
    dr = r - r0
    dc = c - c0
    if abs(dr) > SENSOR_RADIUS or abs(dc) > SENSOR_RADIUS:
        return False
    o = (dr + SENSOR_RADIUS) * SENSOR_WIDTH + (dc + SENSOR_RADIUS)
    return line_is_clear(terrain, i, r0, c0, o)
