"""FieldCipher's numbers, codes and the hidden codebook."""

import numpy as np

GRID_SIZE = 9
EMPTY, SEGMENT, INTERSECTION = 0, 1, 2  # grid cells
CELL_NAMES = ("empty", "segment", "intersection")

# Blocks: 2x2, stride 2, over the grid padded with an empty 10th row and column.
BLOCKS_PER_ROW = 5
NUM_BLOCKS = 25
CODE_BLOCKS = 18  # blocks 0..17 carry the 36-bit sequence
MESSAGE_BLOCKS = 8  # blocks 0..7 carry bits 0..15, the message
NUM_BITS = 36
MESSAGE_BITS = 16
FILLER_BITS = NUM_BITS - MESSAGE_BITS
PADDED_RIGHT_BLOCKS = (4, 9, 14)  # code blocks whose right column is the padding column
NUM_PATTERNS = 81  # 3**4
NUM_VALUES = 4  # 2 bits

MESSAGE_LEN = 4  # hex characters
NUM_SLOTS = 4
EMPTY_SLOT = 16
NUM_HINTS = 4
HINT_WIDTH = 5  # tl, tr, bl, br, value
STEP_BUDGET = 40
NUM_LEVELS = 4
MAX_LEVEL = NUM_LEVELS - 1
HEX_DIGITS = "0123456789ABCDEF"

# Actions: 0..15 write that hex digit into the slot under the cursor.
CURSOR_RIGHT, CURSOR_LEFT, FINALIZE = 16, 17, 18
NUM_ACTIONS = 19
ACTION_NAMES = (
    *(f"write {d.lower()}" for d in HEX_DIGITS),
    "cursor right",
    "cursor left",
    "finalize",
)

# Outcome codes; 0 means the episode is still running.
RUNNING, SUBMITTED, TIMEOUT = 0, 1, 2
OUTCOMES = ("", "submitted", "timeout")

# The codebook: pattern (27*tl + 9*tr + 3*bl + br) -> 2-bit value. Generated once, offline, by
# make_codebook.py (seed 20260001) and pasted here; the same table for every episode and level.
# fmt: off
CODEBOOK = (
    1, 3, 1, 2, 0, 2, 3, 1, 2,
    0, 3, 1, 0, 2, 0, 3, 2, 3,
    1, 1, 0, 3, 1, 0, 2, 0, 2,
    3, 3, 0, 3, 2, 3, 0, 3, 1,
    3, 3, 1, 0, 2, 0, 2, 0, 0,
    3, 2, 2, 2, 1, 2, 3, 1, 1,
    0, 0, 2, 2, 3, 1, 1, 2, 0,
    2, 1, 3, 1, 0, 1, 1, 0, 3,
    3, 0, 2, 2, 3, 3, 0, 1, 1,
)
# fmt: on
CODEBOOK_ARRAY = np.array(CODEBOOK, dtype=np.int64)


def pattern_cells(p: int) -> tuple[int, int, int, int]:
    """(tl, tr, bl, br) of pattern index ``p``."""
    return (p // 27, (p // 9) % 3, (p // 3) % 3, p % 3)


def right_empty(p: int) -> bool:
    return p % 3 == 0 and (p // 9) % 3 == 0


def _pattern_order() -> np.ndarray:
    """Per value and block kind (0 any block, 1 right column empty), the patterns in the order
    the levels admit them: the canonical pattern first (the right-empty one with both left cells
    drawn, a piece of vertical field line), then two-cell patterns, then the rest."""
    order = np.full((NUM_VALUES, 2, 21), -1, dtype=np.int64)
    for v in range(NUM_VALUES):
        mine = [p for p in range(NUM_PATTERNS) if CODEBOOK[p] == v]

        def rank(p: int) -> tuple[int, int, int]:
            cells = pattern_cells(p)
            canonical = right_empty(p) and cells[0] > 0 and cells[2] > 0
            drawn = sum(c > 0 for c in cells)
            return (0 if canonical else 1, abs(drawn - 2), p)

        mine.sort(key=rank)
        edge = [p for p in mine if right_empty(p)]
        order[v, 0, : len(mine)] = mine
        order[v, 1, : len(edge)] = edge
    return order


PATTERN_ORDER = _pattern_order()  # (values, kinds, 21)
_AVAILABLE = (PATTERN_ORDER >= 0).sum(axis=2)  # (values, kinds)
# How many of each value's patterns a level uses: level 0 one canonical pattern, level 3 all.
_LEVEL_USE = ((1, 1), (3, 2), (8, 21), (21, 21))  # (any block, right-empty block) per level
LEVEL_COUNT = np.array(
    [
        [[min(_LEVEL_USE[lv][k], _AVAILABLE[v, k]) for k in range(2)] for v in range(NUM_VALUES)]
        for lv in range(NUM_LEVELS)
    ],
    dtype=np.int64,
)  # (levels, values, kinds)

# Decoration in blocks 18..24 (rows 6-7 cols 6-8, and row 8): each cell takes
# DECORATION[level, below(8)], so level 1 has ~1/4 segments, level 3 ~5/8 drawn cells.
DECORATION_ROWS = np.array([6, 6, 6, 7, 7, 7] + [8] * 9, dtype=np.int64)
DECORATION_COLS = np.array([6, 7, 8, 6, 7, 8, *range(9)], dtype=np.int64)
DECORATION = np.array(
    [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0, 0, 0],
        [1, 1, 2, 0, 0, 0, 0, 0],
        [1, 1, 1, 2, 2, 0, 0, 0],
    ],
    dtype=np.int8,
)
