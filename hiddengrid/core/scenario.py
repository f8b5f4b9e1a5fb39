"""Checks shared by every env's scenario validation: keys, integer arrays, connectivity.

Each raises ``ValueError`` naming the field and the rule it breaks, before anything changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from hiddengrid.core.actions import holds_bool, is_int_scalar


def check_keys(scenario: object, keys: Iterable[str]) -> None:
    """The scenario is a dict with exactly ``keys``."""
    keys = list(keys)
    if not isinstance(scenario, Mapping):
        raise ValueError(f"a scenario must be a dict, got {type(scenario).__name__}")
    given = set(scenario)
    if given != set(keys):
        missing = sorted(set(keys) - given, key=str)
        unknown = sorted(given - set(keys), key=str)
        raise ValueError(f"scenario keys must be {keys}: missing {missing}, unknown {unknown}")


def int_array(
    value: Any, name: str, shape: tuple[int, ...], low: int | None = None, high: int | None = None
) -> np.ndarray:
    """``scenario[name]`` as an ``int64`` array of ``shape`` with values in ``low..high``."""
    if isinstance(value, str | bytes) or value is None:
        raise ValueError(f"scenario[{name!r}] must be integers of shape {shape}, got {value!r}")
    try:
        arr = np.array(value)
    except (ValueError, TypeError):
        raise ValueError(f"scenario[{name!r}] must be integers of shape {shape}") from None
    # NumPy reads [True, 0] as integers; a bool is refused here as everywhere else.
    if arr.shape != shape or arr.dtype.kind not in "iu" or holds_bool(value):
        raise ValueError(
            f"scenario[{name!r}] must be integers of shape {shape}, got shape {arr.shape} "
            f"of dtype {arr.dtype}"
        )
    if arr.size and low is not None and int(arr.min()) < low:
        raise ValueError(f"scenario[{name!r}] values must lie in {low}..{high}")
    if arr.size and high is not None and int(arr.max()) > high:
        raise ValueError(f"scenario[{name!r}] values must lie in {low}..{high}")
    return arr.astype(np.int64)


def int_scalar(value: Any, name: str, low: int, high: int, meaning: str = "") -> int:
    """``scenario[name]`` as an int in ``low..high``: a Python or NumPy integer or a 0-d integer
    array, never a bool, a float or a ``timedelta64``."""
    if not is_int_scalar(value) or not low <= int(value) <= high:  # type: ignore[call-overload]
        raise ValueError(f"scenario[{name!r}] must be an int {low}..{high}{meaning}, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def region_count(passable: np.ndarray) -> int:
    """Number of 4-connected regions of the ``True`` cells of a 2-D grid (a flood fill)."""
    rows, cols = passable.shape
    seen = ~np.asarray(passable, dtype=bool)
    regions = 0
    for r0 in range(rows):
        for c0 in range(cols):
            if seen[r0, c0]:
                continue
            regions += 1
            stack = [(r0, c0)]
            seen[r0, c0] = True
            while stack:
                r, c = stack.pop()
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nr < rows and 0 <= nc < cols and not seen[nr, nc]:
                        seen[nr, nc] = True
                        stack.append((nr, nc))
    return regions
