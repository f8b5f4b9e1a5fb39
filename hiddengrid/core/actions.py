"""Strict action checks: an action outside the space raises ``ValueError``; nothing is clipped.

Python and NumPy integers (and 0-d integer arrays) are actions; floats, strings, ``None``,
bools and ``np.timedelta64`` (a NumPy integer subclass that is a duration, not a number) are
not, whatever their value.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from numba import njit


def _describe(space: spaces.Space) -> str:
    if isinstance(space, spaces.Discrete):
        return f"an integer in [0, {int(space.n)})"
    if isinstance(space, spaces.MultiDiscrete):
        bounds = ", ".join(f"[0, {int(n)})" for n in space.nvec)
        return f"a sequence of {len(space.nvec)} integers in {bounds}"
    raise TypeError(f"unsupported action space {space}")


def is_int_scalar(x: object) -> bool:
    """A Python or NumPy integer or a 0-d integer array; never a bool or a ``timedelta64``."""
    if isinstance(x, bool | np.bool_ | np.timedelta64):
        return False
    if isinstance(x, int | np.integer):
        return True
    return isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iu"


def holds_bool(x: object) -> bool:
    """Whether ``x`` is or contains a bool (NumPy reads ``[True, 0]`` as integers)."""
    if isinstance(x, bool | np.bool_):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "b"
    if isinstance(x, list | tuple):
        return any(holds_bool(e) for e in x)
    return False


def _int_array(x: object) -> np.ndarray | None:
    """``x`` as an integer array, or ``None`` when it holds anything but integers.

    NumPy turns ``[True, 0, 0]`` into integers; a bool is not an action, so a sequence that
    holds one is refused here (an integer array cannot hold one).
    """
    if isinstance(x, str | bytes) or x is None:
        return None
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):
        return None
    if arr.dtype.kind not in "iu":
        return None
    if not isinstance(x, np.ndarray) and holds_bool(x):
        return None
    return arr


def check_single_action(space: spaces.Space, action: object) -> np.ndarray:
    """Returns ``action`` as a batch of one (``int64``), or raises ``ValueError``."""
    if isinstance(space, spaces.Discrete):
        if is_int_scalar(action) and 0 <= int(action) < int(space.n):  # type: ignore[call-overload]
            return np.array([int(action)], dtype=np.int64)  # type: ignore[call-overload]
    elif isinstance(space, spaces.MultiDiscrete):
        arr = _int_array(action)
        fits = arr is not None and arr.shape == space.nvec.shape
        if fits and not (np.any(arr < 0) or np.any(arr >= space.nvec)):
            return arr.astype(np.int64)[None]
    else:
        raise TypeError(f"unsupported action space {space}")
    # The message is built only here: formatting an array costs more than a whole step.
    raise ValueError(f"invalid action {action!r}: expected {_describe(space)}")


@njit(cache=True)
def first_out_of_range(actions: np.ndarray, upper: np.ndarray) -> int:
    """Flat index of the first action outside ``[0, upper[col])``, or -1 (no temporaries: the
    NumPy version cost as much as a whole SquadRecon step at N=4096).

    A first pass only ORs the comparisons together, without an early exit, which the compiler
    turns into vector instructions when every column has the same bound (every space here); the
    index is looked for only when something is out of range."""
    rows, cols = actions.shape
    bound = upper[0]
    same = True
    for c in range(cols):
        same &= upper[c] == bound
    bad = False
    if same:
        flat = actions.reshape(rows * cols)
        for k in range(rows * cols):
            a = flat[k]
            bad |= (a < 0) | (a >= bound)
    else:
        for r in range(rows):
            for c in range(cols):
                a = actions[r, c]
                bad |= (a < 0) | (a >= upper[c])
    if not bad:
        return -1
    for r in range(rows):
        for c in range(cols):
            a = actions[r, c]
            if a < 0 or a >= upper[c]:
                return r * cols + c
    return -1


def check_batch_actions(space: spaces.Space, actions: object, n: int) -> np.ndarray:
    """A batch of ``n`` actions as ``int64``, or ``ValueError`` naming the bad one."""
    shape = (n, *space.shape)
    arr = _int_array(actions)
    if arr is None or arr.shape != shape:
        got = f"dtype {np.asarray(actions, dtype=object).dtype}" if arr is None else arr.shape
        raise ValueError(
            f"invalid actions: expected an integer array of shape {shape}, each {_describe(space)};"
            f" got {got}"
        )
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if isinstance(space, spaces.Discrete):
        upper = np.array([int(space.n)], dtype=np.int64)
    else:
        upper = np.asarray(space.nvec, dtype=np.int64).reshape(-1)
    bad = first_out_of_range(arr.reshape(n, -1), upper)
    if bad >= 0:
        idx = np.unravel_index(bad, arr.shape)
        idx = tuple(int(k) for k in idx)
        raise ValueError(
            f"invalid action {arr[idx]!r} at index {idx}: expected {_describe(space)} for each env"
        )
    return arr
