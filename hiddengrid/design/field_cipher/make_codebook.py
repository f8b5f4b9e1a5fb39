"""Offline generator of FieldCipher's ``CODEBOOK`` literal (run once; the literal is pasted into
``constants.py`` and never regenerated at import).

    python -m hiddengrid.design.field_cipher.make_codebook

Constraints: 81 patterns, indexed ``27*tl + 9*tr + 3*bl + br``, each mapped to
a 2-bit value; 20 or 21 patterns per value; for each value at least two patterns whose right
column is empty (so blocks 4, 9 and 14, whose right column is padding, can hold every value).
Design choice: the four right-empty patterns with both left cells drawn (1/1, 1/2, 2/1, 2/2)
go to four different values, so every value has a canonical pattern that is a piece of a
vertical field line; level 0 writes only those.
"""

from __future__ import annotations

import numpy as np

SEED = 20260001  # fixed: the table is generated once


def pattern_index(tl: int, tr: int, bl: int, br: int) -> int:
    return 27 * tl + 9 * tr + 3 * bl + br


def make_codebook(seed: int = SEED) -> tuple[int, ...]:
    rng = np.random.default_rng(seed)
    book = np.full(81, -1, dtype=np.int64)
    full_left = [pattern_index(tl, 0, bl, 0) for tl in (1, 2) for bl in (1, 2)]
    other_right_empty = [
        pattern_index(tl, 0, bl, 0)
        for tl in range(3)
        for bl in range(3)
        if pattern_index(tl, 0, bl, 0) not in full_left
    ]
    book[full_left] = rng.permutation(4)
    rest = rng.permutation(other_right_empty)
    book[rest[:4]] = rng.permutation(4)  # a second right-empty pattern for every value
    book[rest[4]] = rng.integers(4)
    quota = np.array([21, 20, 20, 20])[rng.permutation(4)]  # balanced: 81 = 21 + 3 * 20
    left = quota - np.bincount(book[book >= 0], minlength=4)
    free = rng.permutation(np.flatnonzero(book < 0))
    values = np.repeat(np.arange(4), left)
    book[free] = rng.permutation(values)
    return tuple(int(v) for v in book)


if __name__ == "__main__":
    book = make_codebook()
    print("CODEBOOK = (")
    for row in range(9):
        print("    " + ", ".join(str(v) for v in book[9 * row : 9 * row + 9]) + ",")
    print(")")
