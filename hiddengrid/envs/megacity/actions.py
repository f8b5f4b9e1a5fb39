"""Megacity's flat action space as structured actions: decode, encode and the action table."""

from __future__ import annotations

import itertools
from typing import Any

from hiddengrid.envs.megacity.constants import (
    BUILD_BASE,
    BUILD_COST,
    CELL_NAMES,
    CHAMBER,
    CONDUIT_BASE,
    CONDUIT_COST_PER_CELL,
    CONDUIT_PATHS,
    DECODED,
    DIRECTION_NAMES,
    EXCAVATE_BASE,
    EXCAVATE_COST,
    GRID,
    MATERIAL_NAMES,
    NUM_ACTIONS,
    NUM_CELLS,
    RESEARCH_BASE,
    RESEARCH_COST,
    ROCK,
    RULE_NAMES,
    SCAN,
    SCAN_COST,
    SUPPORT_BASE,
    SUPPORT_COST,
    VENT_BASE,
    VENT_COST,
    WAIT,
)

Cell = tuple[int, int]


def _cell(k: int) -> Cell:
    return (int(k) // GRID, int(k) % GRID)


def decode_action(action: int) -> tuple[Any, ...]:
    """The structured form of a flat action id, e.g. ``("vent", (1, 2), "north")``.

    ``("excavate", cell)``, ``("support", material, cell)``, ``("vent", cell, direction)``,
    ``("conduit", (cell, ...))`` with 1-3 cells in path order, ``("build", cell)``,
    ``("research", rule)``, ``("wait",)``, ``("scan",)``; cells are ``(row, col)``.
    """
    if isinstance(action, bool) or not hasattr(action, "__index__"):
        raise ValueError(f"invalid action {action!r}: expected an integer in [0, {NUM_ACTIONS})")
    a = int(action.__index__())
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"invalid action {a}: expected an integer in [0, {NUM_ACTIONS})")
    if a < SUPPORT_BASE:
        return ("excavate", _cell(a - EXCAVATE_BASE))
    if a < VENT_BASE:
        m, k = divmod(a - SUPPORT_BASE, NUM_CELLS)
        return ("support", MATERIAL_NAMES[m + 1], _cell(k))
    if a < CONDUIT_BASE:
        k, d = divmod(a - VENT_BASE, 4)
        return ("vent", _cell(k), DIRECTION_NAMES[d + 1])
    if a < BUILD_BASE:
        path = CONDUIT_PATHS[a - CONDUIT_BASE]
        return ("conduit", tuple(_cell(k) for k in path if k >= 0))
    if a < RESEARCH_BASE:
        return ("build", _cell(a - BUILD_BASE))
    if a < WAIT:
        return ("research", RULE_NAMES[a - RESEARCH_BASE])
    if a == WAIT:
        return ("wait",)
    assert a == SCAN
    return ("scan",)


def _as_cell(value: Any, what: str) -> int:
    try:
        r, c = value
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a (row, col) pair, got {value!r}") from None
    for v in (r, c):
        if isinstance(v, bool) or not hasattr(v, "__index__") or not 0 <= int(v) < GRID:
            raise ValueError(
                f"{what} must be a (row, col) pair of ints 0..{GRID - 1}, got {value!r}"
            )
    return int(r) * GRID + int(c)


def _name(value: Any, names: tuple[str, ...], what: str) -> int:
    if isinstance(value, str) and value.lower() in names:
        return names.index(value.lower())
    raise ValueError(f"{what} must be one of {list(names)}, got {value!r}")


def _path_index() -> dict[frozenset[int], int]:
    return {frozenset(int(k) for k in p if k >= 0): q for q, p in enumerate(CONDUIT_PATHS)}


PATH_INDEX = _path_index()


def conduit_path_index(cells: Any) -> int:
    """The index of the conduit path through ``cells`` (1-3 orthogonally contiguous cells)."""
    if isinstance(cells, str) or not hasattr(cells, "__len__") or not 1 <= len(cells) <= 3:
        raise ValueError(f"a conduit path is 1-3 (row, col) cells, got {cells!r}")
    ks = [_as_cell(cell, "a conduit cell") for cell in cells]
    for a, b in itertools.pairwise(ks):
        if abs(a // GRID - b // GRID) + abs(a % GRID - b % GRID) != 1:
            raise ValueError(f"conduit cells must be orthogonally contiguous in order: {cells!r}")
    key = frozenset(ks)
    if len(key) != len(ks) or key not in PATH_INDEX:
        raise ValueError(f"conduit cells must be distinct and contiguous: {cells!r}")
    return PATH_INDEX[key]


def encode_action(*action: Any) -> int:
    """The flat id of a structured action: ``encode_action("vent", (1, 2), "north")`` or
    ``encode_action(("vent", (1, 2), "north"))``; the inverse of :func:`decode_action`.
    A conduit path may be given in either order."""
    if len(action) == 1 and isinstance(action[0], tuple | list):
        action = tuple(action[0])
    if not action or not isinstance(action[0], str):
        raise ValueError(f"a structured action starts with its type name, got {action!r}")
    kind, *params = action
    kind = kind.lower()
    expected = {
        "excavate": 1,
        "support": 2,
        "vent": 2,
        "conduit": 1,
        "build": 1,
        "research": 1,
        "wait": 0,
        "scan": 0,
    }
    if kind not in expected:
        raise ValueError(f"unknown action type {kind!r}; types: {list(expected)}")
    if len(params) != expected[kind]:
        raise ValueError(f"{kind!r} takes {expected[kind]} parameter(s), got {params!r}")
    if kind == "excavate":
        return EXCAVATE_BASE + _as_cell(params[0], "the cell")
    if kind == "support":
        m = _name(params[0], MATERIAL_NAMES[1:], "the material")
        return SUPPORT_BASE + m * NUM_CELLS + _as_cell(params[1], "the cell")
    if kind == "vent":
        d = _name(params[1], DIRECTION_NAMES[1:], "the direction")
        return VENT_BASE + 4 * _as_cell(params[0], "the cell") + d
    if kind == "conduit":
        return CONDUIT_BASE + conduit_path_index(params[0])
    if kind == "build":
        return BUILD_BASE + _as_cell(params[0], "the cell")
    if kind == "research":
        return RESEARCH_BASE + _name(params[0], RULE_NAMES, "the rule")
    return WAIT if kind == "wait" else SCAN


def why_masked(fields: Any, i: int, action: int) -> str | None:
    """Why ``action`` is not legal in sub-env ``i`` of a batch's ``fields``, in words (e.g.
    ``"build needs a chamber; cell (1, 2) is rock"``), or ``None`` when it is legal.

    Only the error path calls it, so it restates the mask's rules (``rules.write_mask``) in
    plain Python; a test checks that it is ``None`` exactly where the mask is ``True``.
    """

    power = int(fields["power"][i])
    cells = fields["cells"][i]
    kind = decode_action(action)
    verb = kind[0]

    def cost(amount: int) -> str | None:
        if power >= amount:
            return None
        return f"{verb} costs {amount} power and the city has {power}"

    def cell_text(cell: Cell) -> str:
        name = CELL_NAMES[int(cells[cell])]
        return f"cell {cell} is {'rock' if name == 'rock' else 'a ' + name}"

    if verb == "excavate":
        if cells[kind[1]] != ROCK:
            return f"excavate needs rock; {cell_text(kind[1])}"
        return cost(EXCAVATE_COST)
    if verb == "support":
        material, cell = kind[1], kind[2]
        m = MATERIAL_NAMES.index(material)
        if cells[cell] == ROCK:
            return f"support needs an open cell; {cell_text(cell)}"
        if fields["supports"][i][cell] != 0:
            return f"cell {cell} is supported already"
        if fields["components"][i][m - 1] == 0:
            return f"{material} is not available yet (research unlocks it)"
        return cost(int(SUPPORT_COST[m]))
    if verb == "vent":
        cell = kind[1]
        if cells[cell] == ROCK:
            return f"vent needs an open cell; {cell_text(cell)}"
        if fields["vents"][i][cell] != 0:
            return f"cell {cell} has a shaft already"
        return cost(VENT_COST)
    if verb == "conduit":
        laid = [cell for cell in kind[1] if fields["conduits"][i][cell] != 0]
        if laid:
            return f"cell {laid[0]} holds a conduit already"
        return cost(CONDUIT_COST_PER_CELL * len(kind[1]))
    if verb == "build":
        if cells[kind[1]] != CHAMBER:
            return f"build needs a chamber; {cell_text(kind[1])}"
        return cost(BUILD_COST)
    if verb == "research":
        if fields["research"][i][RULE_NAMES.index(kind[1])] >= DECODED:
            return f"the {kind[1]} rule is decoded already"
        return cost(RESEARCH_COST)
    if verb == "scan":
        return cost(SCAN_COST)
    return None  # wait is always legal
