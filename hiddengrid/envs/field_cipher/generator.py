"""What a FieldCipher reset draws (message, filler, hints, then the grid that spells them) and
the checks of a given scenario. The block codec (grid <-> 2-bit values) lives here too, so that
writing and reading a grid are one pair of functions.

Draw order, on the sub-env's own stream: the 16-bit message, the 20-bit filler, the 4 hints, and
only then anything that depends on the level (which equivalent pattern each block uses, the
decoration). So the same seed gives the same message, filler and hints at every level.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.rng import below
from hiddengrid.core.scenario import check_keys, int_array
from hiddengrid.envs.field_cipher.constants import (
    BLOCKS_PER_ROW,
    CODE_BLOCKS,
    CODEBOOK_ARRAY,
    DECORATION,
    DECORATION_COLS,
    DECORATION_ROWS,
    FILLER_BITS,
    GRID_SIZE,
    HEX_DIGITS,
    HINT_WIDTH,
    LEVEL_COUNT,
    MESSAGE_BITS,
    MESSAGE_BLOCKS,
    MESSAGE_LEN,
    NUM_HINTS,
    NUM_PATTERNS,
    PATTERN_ORDER,
)

# --- the block codec --------------------------------------------------------------------------


@njit(cache=True)
def cell(grid: np.ndarray, i: int, r: int, c: int) -> int:
    """A grid cell, with the padding row and column (and anything outside) reading empty."""
    if r >= GRID_SIZE or c >= GRID_SIZE:
        return 0
    return grid[i, r, c]


@njit(cache=True)
def block_pattern(grid: np.ndarray, i: int, k: int) -> int:
    """Pattern index ``27*tl + 9*tr + 3*bl + br`` of block ``k`` (raster order, stride 2)."""
    r = 2 * (k // BLOCKS_PER_ROW)
    c = 2 * (k % BLOCKS_PER_ROW)
    return (
        27 * cell(grid, i, r, c)
        + 9 * cell(grid, i, r, c + 1)
        + 3 * cell(grid, i, r + 1, c)
        + cell(grid, i, r + 1, c + 1)
    )


@njit(cache=True)
def write_pattern(grid: np.ndarray, i: int, k: int, p: int) -> None:
    """Writes pattern ``p`` into block ``k``; cells in the padding are dropped (must be empty)."""
    r = 2 * (k // BLOCKS_PER_ROW)
    c = 2 * (k % BLOCKS_PER_ROW)
    grid[i, r, c] = p // 27
    if c + 1 < GRID_SIZE:
        grid[i, r, c + 1] = (p // 9) % 3
    if r + 1 < GRID_SIZE:
        grid[i, r + 1, c] = (p // 3) % 3
        if c + 1 < GRID_SIZE:
            grid[i, r + 1, c + 1] = p % 3


@njit(cache=True)
def decode_message(grid: np.ndarray, i: int) -> int:
    """The first 16 bits (blocks 0..7, each value high bit first) as one integer."""
    bits = 0
    for k in range(MESSAGE_BLOCKS):
        bits = (bits << 2) | CODEBOOK_ARRAY[block_pattern(grid, i, k)]
    return bits


@njit(cache=True)
def decode_filler(grid: np.ndarray, i: int) -> int:
    """Bits 16..35 (blocks 8..17) as one integer."""
    bits = 0
    for k in range(MESSAGE_BLOCKS, CODE_BLOCKS):
        bits = (bits << 2) | CODEBOOK_ARRAY[block_pattern(grid, i, k)]
    return bits


# --- drawing a scenario -----------------------------------------------------------------------


@njit(cache=True)
def draw_hints(rng: np.ndarray, i: int, hints: np.ndarray) -> None:
    """Four distinct codebook entries, uniform over the 81 patterns: cells, then the value."""
    for h in range(NUM_HINTS):
        while True:
            p = below(rng, i, NUM_PATTERNS)
            fresh = True
            for g in range(h):
                q = 27 * hints[i, g, 0] + 9 * hints[i, g, 1] + 3 * hints[i, g, 2] + hints[i, g, 3]
                if q == p:
                    fresh = False
            if fresh:
                break
        hints[i, h, 0] = p // 27
        hints[i, h, 1] = (p // 9) % 3
        hints[i, h, 2] = (p // 3) % 3
        hints[i, h, 3] = p % 3
        hints[i, h, 4] = CODEBOOK_ARRAY[p]


@njit(cache=True)
def write_bits(
    rng: np.ndarray, i: int, level: int, grid: np.ndarray, message_bits: int, filler_bits: int
) -> None:
    """Writes the 36-bit sequence into blocks 0..17 with the level's equivalent patterns."""
    for k in range(CODE_BLOCKS):
        if k < MESSAGE_BLOCKS:
            value = (message_bits >> (MESSAGE_BITS - 2 - 2 * k)) & 3
        else:
            value = (filler_bits >> (FILLER_BITS - 2 - 2 * (k - MESSAGE_BLOCKS))) & 3
        kind = 1 if k % BLOCKS_PER_ROW == BLOCKS_PER_ROW - 1 else 0  # right column is padding
        n = LEVEL_COUNT[level, value, kind]
        choice = below(rng, i, n) if n > 1 else 0
        write_pattern(grid, i, k, PATTERN_ORDER[value, kind, choice])


@njit(cache=True)
def draw_scenario(
    rng: np.ndarray,
    i: int,
    level: np.ndarray,
    grid: np.ndarray,
    message: np.ndarray,
    hints: np.ndarray,
) -> None:
    """Message, filler and hints first (level-independent), then the grid."""
    message_bits = below(rng, i, 1 << MESSAGE_BITS)
    filler_bits = below(rng, i, 1 << FILLER_BITS)
    draw_hints(rng, i, hints)
    for j in range(MESSAGE_LEN):
        message[i, j] = (message_bits >> (4 * (MESSAGE_LEN - 1 - j))) & 15
    grid[i, :, :] = 0
    lv = level[i]
    write_bits(rng, i, lv, grid, message_bits, filler_bits)
    if lv > 0:
        for d in range(DECORATION_ROWS.shape[0]):
            grid[i, DECORATION_ROWS[d], DECORATION_COLS[d]] = DECORATION[lv, below(rng, i, 8)]


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("grid", "message", "hints")


def message_digits(message: Any) -> np.ndarray:
    """``"3F0A"`` -> ``[3, 15, 0, 10]``; raises ``ValueError`` for anything else."""
    if (
        not isinstance(message, str)
        or len(message) != MESSAGE_LEN
        or any(ch not in HEX_DIGITS for ch in message)
    ):
        raise ValueError(
            f"scenario['message'] must be {MESSAGE_LEN} upper-case hex characters "
            f"(0-9, A-F), got {message!r}"
        )
    return np.array([HEX_DIGITS.index(ch) for ch in message], dtype=np.int64)


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict and returns it as arrays for the batch.

    A replayed scenario is a custom level: any 9x9 grid of 0/1/2 is allowed as long as its first
    16 decoded bits spell the message; the hints must be 4 distinct, true codebook entries.
    """
    check_keys(scenario, SCENARIO_KEYS)
    grid = int_array(scenario["grid"], "grid", (GRID_SIZE, GRID_SIZE))
    if grid.min() < 0 or grid.max() > 2:
        raise ValueError("scenario['grid'] may hold only 0 (empty), 1 (segment), 2 (intersection)")
    digits = message_digits(scenario["message"])
    hints = int_array(scenario["hints"], "hints", (NUM_HINTS, HINT_WIDTH))
    if hints[:, :4].min() < 0 or hints[:, :4].max() > 2:
        raise ValueError("scenario['hints'] pattern cells (columns 0..3) must be 0, 1 or 2")
    patterns = hints[:, 0] * 27 + hints[:, 1] * 9 + hints[:, 2] * 3 + hints[:, 3]
    if len(set(patterns.tolist())) != NUM_HINTS:
        raise ValueError("scenario['hints'] must be 4 distinct patterns")
    for h in range(NUM_HINTS):
        if hints[h, 4] != CODEBOOK_ARRAY[patterns[h]]:
            raise ValueError(
                f"scenario['hints'] row {h} is not a codebook entry: its value (column 4) "
                "must be the codebook's value of its pattern"
            )
    grid8 = grid.astype(np.int8)
    spelled = int(decode_message(grid8[None], 0))
    wanted = int(sum(int(d) << (4 * (MESSAGE_LEN - 1 - j)) for j, d in enumerate(digits)))
    if spelled != wanted:
        raise ValueError(
            f"scenario['grid'] does not spell scenario['message'] {scenario['message']!r}: "
            f"its first 16 bits decode to {spelled:04X}"
        )
    return {"grid": grid8, "message": digits, "hints": hints.astype(np.int8)}


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "grid": batch["grid"][i].astype(int).tolist(),
        "message": "".join(HEX_DIGITS[int(d)] for d in batch["message"][i]),
        "hints": batch["hints"][i].astype(int).tolist(),
    }
