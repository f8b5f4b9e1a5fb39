"""Hand-built FieldCipher scenarios, written with an independent (pure Python) codec."""

from __future__ import annotations

import numpy as np

from hiddengrid.envs.field_cipher import CODEBOOK

ENV_ID = "hiddengrid/FieldCipher-v0"
HEX = "0123456789ABCDEF"


def pattern_of(tl: int, tr: int, bl: int, br: int) -> int:
    return 27 * tl + 9 * tr + 3 * bl + br


def right_empty_pattern(value: int, nth: int = 0) -> int:
    """A pattern of ``value`` whose right column is empty (valid in every code block)."""
    found = [p for p in range(81) if CODEBOOK[p] == value and (p // 9) % 3 == 0 and p % 3 == 0]
    return found[nth % len(found)]


def decode_bits(grid) -> list[int]:
    """The 36-bit sequence of a 9x9 grid, read as FieldCipher's page says."""
    padded = np.zeros((10, 10), dtype=int)
    padded[:9, :9] = np.asarray(grid)
    bits = []
    for k in range(18):
        r, c = 2 * (k // 5), 2 * (k % 5)
        p = pattern_of(padded[r, c], padded[r, c + 1], padded[r + 1, c], padded[r + 1, c + 1])
        v = CODEBOOK[p]
        bits += [v >> 1, v & 1]
    return bits


def decode_message(grid) -> str:
    bits = decode_bits(grid)
    return "".join(HEX[int("".join(map(str, bits[4 * j : 4 * j + 4])), 2)] for j in range(4))


def grid_for(message: str, filler: int = 0, nth: int = 0) -> list[list[int]]:
    """A grid spelling ``message`` (and ``filler``, 20 bits) with right-empty patterns."""
    bits = int(message, 16) << 20 | filler
    grid = np.zeros((9, 9), dtype=int)
    for k in range(18):
        v = (bits >> (34 - 2 * k)) & 3
        p = right_empty_pattern(v, nth + k)
        r, c = 2 * (k // 5), 2 * (k % 5)
        grid[r, c] = p // 27
        grid[r + 1, c] = (p // 3) % 3
    return grid.tolist()


def hints_for(patterns=(0, 1, 2, 3)) -> list[list[int]]:
    return [[p // 27, (p // 9) % 3, (p // 3) % 3, p % 3, CODEBOOK[p]] for p in patterns]


def scenario(message: str = "3F0A", filler: int = 0) -> dict:
    return {"grid": grid_for(message, filler), "message": message, "hints": hints_for()}
