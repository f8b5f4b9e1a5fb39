"""Megacity as text: the rules prompt, the observation, legal actions and the strict parser.

Action phrases: ``excavate (r,c)``, ``support timber|steel|anchor (r,c)``,
``vent (r,c) north|east|south|west``, ``conduit (r,c) [(r,c) [(r,c)]]``, ``build (r,c)``,
``research gravity|load|airflow|conduits``, ``wait``, ``scan``; or the action number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.envs.megacity.actions import decode_action, encode_action
from hiddengrid.envs.megacity.constants import (
    AIR_OK,
    AIR_START,
    CELL_NAMES,
    COMPONENT_NAMES,
    DIRECTION_NAMES,
    DISTRICT_GOAL,
    GRID,
    INTEGRITY_OK,
    INTEGRITY_START,
    MATERIAL_NAMES,
    NUM_ACTIONS,
    POWER_MILESTONE,
    POWER_START,
    RULE_NAMES,
    STEP_BUDGET,
)
from hiddengrid.envs.megacity.rules import write_mask
from hiddengrid.text.parse import TextActionError, normalize, parse_number, quote

# What research has revealed, per rule and stage (qualitative: never the equations).
REVEALED = {
    "gravity": (
        "nothing yet",
        "the seams are shown on the seam map (direction unknown)",
        "the seam map shows which way each seam pulls",
        "decoded: anchor supports are available",
    ),
    "load": (
        "nothing yet",
        "opening some cells takes load off others: the relief reach map counts them",
        "the relief map shows how much load opening each cell would take off them now",
        "decoded: relief blasting is available (excavation no longer loads the neighbours)",
    ),
    "airflow": (
        "nothing yet",
        "the currents are not steady: the countdown to their next turn is shown",
        "the draft map shows the air a new shaft would draw now, per direction",
        "decoded: baffled shafts are available (shafts draw air either way)",
    ),
    "conduits": (
        "nothing yet",
        "the conduit map shows what a conduit laid in each cell would do",
        "the damping map counts the seam cells a conduit in each cell would steady",
        "decoded: shielded conduits are available (no extra load on faults)",
    ),
}

DESCRIPTORS = {
    "timber": "flexible support, the same everywhere",
    "steel": "rigid support, strong while the pull is downward",
    "anchor": "a support that locks into the rock",
    "relief_blasting": "technique: excavation without side load",
    "baffled_shafts": "technique: shafts that draw air both ways",
    "shielded_conduits": "technique: conduits that leave the rock alone",
}


# A legal action at every step, shown in the answer-format instruction of a model's prompt.
ANSWER_EXAMPLE = "wait"


def rules_text(config: Mapping[str, Any]) -> str:
    g, i0 = GRID, INTEGRITY_START  # short names keep the prompt's lines as they read
    return f"""You are the chief planner of an underground city on a {g}x{g} grid of rock cells
(row 0 is north, column 0 is west; a cell is written (row,col)). The physics down here is
alien: gravity can pull sideways along hidden mineral seams, load moves through the rock in
unexpected ways, the air currents change, and power conduits interact with the rock. Nobody
tells you the laws: find them by experiment, research and scans.
Goal: {DISTRICT_GOAL} active districts at the end of step {STEP_BUDGET}, with structural
integrity above {INTEGRITY_OK}, air above {AIR_OK} and power at least 0. You start with 0
districts, integrity {i0}, air {AIR_START}, power {POWER_START}. All {STEP_BUDGET} steps are
played unless the city collapses (integrity 0) or suffocates (air 0).
Each step you take one action (most cost power; an action you cannot pay for is not legal):
  excavate (r,c)              open a rock cell into a chamber
  support M (r,c)             put a support of material M in an open cell (one per cell)
  vent (r,c) D                dig a ventilation shaft in an open cell, facing D (one per cell)
  conduit (r,c) [(r,c) ...]   lay a power conduit along 1-3 orthogonally contiguous cells
  build (r,c)                 build a district core in a chamber; it comes online as an
                              active district only after some steps in a row structurally
                              sound and aired by a shaft in it or next to it, and it may go
                              offline again
  research R                  study a rule R: gravity, load, airflow, conduits (3 stages each)
  scan                        diagnostic scan: reveals hidden stress concentrations
  wait                        do nothing
Materials at the start: timber ({DESCRIPTORS["timber"]}), steel ({DESCRIPTORS["steel"]}).
Research unlocks one more material and three techniques.
You observe: the stress map (0-100), the airflow vectors (row, col components; row grows to
the south), cell types, supports, shafts, conduits, what research and scans revealed, and
the four metrics. The stress map is a survey: it is not exact, and it misses what only a scan
shows. Open cells carry load, and rock that carries more than it can breaks: integrity falls.
Open chambers do not stay as they were. Cores and districts breathe air and draw power from
the moment they are built; the outpost itself produces no power. Power cannot go below 0.
Rewards: +2 per point of integrity gained, +1 per point of air gained, +5 per district
activated, +3 the first time power exceeds {POWER_MILESTONE}, +4 per rule fully decoded,
+0.5 per step with integrity > {INTEGRITY_OK} and air > {AIR_OK}, -2 per point of integrity
lost below {INTEGRITY_OK} and -1 per point of air lost below {AIR_OK} (charged once, on the step
the point is lost), +40 for the goal at the end, -40 for a collapse or suffocation.
An action is written like "excavate (2,3)", "vent (2,3) north", "research load",
or given by its number."""


ARROWS = {(0, 0): ".", (-1, 0): "^", (1, 0): "v", (0, 1): ">", (0, -1): "<"}
CELL_CHARS = ".oKD"
SUPPORT_CHARS = " tsa"
VENT_CHARS = " ^>v<"
SEAM_CHARS = {-1: "?", 0: ".", 1: "^", 2: ">", 3: "v", 4: "<", 5: "S"}


def _arrow(dr: int, dc: int) -> str:
    return ARROWS.get((int(np.sign(dr)), int(np.sign(dc))), "*")


def city_lines(cells, supports, vents, conduits, stress) -> list[str]:
    head = "      " + "".join(f"{c:^8}" for c in range(GRID))
    lines = [head]
    for r in range(GRID):
        row = []
        for c in range(GRID):
            token = (
                CELL_CHARS[int(cells[r, c])]
                + SUPPORT_CHARS[int(supports[r, c])]
                + VENT_CHARS[int(vents[r, c])]
                + ("=" if conduits[r, c] else " ")
                + f"{int(stress[r, c]):>3}"
            )
            row.append(f"{token:^8}")
        lines.append(f"  {r:>2}  " + "".join(row))
    return lines


def map_lines(title: str, chars: list[list[str]]) -> list[str]:
    lines = [f"{title}:", "       " + " ".join(str(c) for c in range(GRID))]
    for r in range(GRID):
        lines.append(f"    {r:>2} " + " ".join(chars[r]))
    return lines


CONDUIT_CHARS = {-1: "?", 0: ".", 1: "L", 2: "P", 3: "D"}


def number_lines(title: str, values: np.ndarray) -> list[str]:
    """A 5x5 map of small numbers, or one line while research has not revealed it (-1)."""
    if (values < 0).all():
        return [f"{title}: not revealed yet."]
    lines = [f"{title}:", "      " + "".join(f"{c:>4}" for c in range(GRID))]
    for r in range(GRID):
        lines.append(f"    {r:>2}" + "".join(f"{int(v):>4}" for v in values[r]))
    return lines


def research_lines(obs: Mapping[str, Any]) -> list[str]:
    """What research revealed of the load, airflow and conduit rules (numbers of this episode)."""
    out = number_lines(
        "Relief reach (cells whose load excavating this cell would take off)",
        np.asarray(obs["relief_reach"]),
    )
    out += number_lines(
        "Relief (load excavating this cell would take off them now)", np.asarray(obs["relief"])
    )
    reversal = int(obs["reversal"])
    if reversal == 0:
        out.append("Next turn of the currents: not revealed yet.")
    elif reversal == 1:
        out.append("Next turn of the currents: none before the end.")
    else:
        out.append(f"Next turn of the currents: in {reversal - 1} steps.")
    draft = np.asarray(obs["draft"])
    if (draft < 0).all():
        out.append("Draft (air a new shaft would draw now, facing N E S W): not revealed yet.")
    else:
        out += map_lines(
            "Draft (air a new shaft would draw now, facing N E S W)",
            [["".join(str(int(v)) for v in draft[r, c]) for c in range(GRID)] for r in range(GRID)],
        )
    effect = np.asarray(obs["conduit_effect"])
    if (effect < 0).all():
        out.append("Conduit effects: not revealed yet.")
    else:
        out += map_lines(
            "Conduit effects (- leaks power, L taps power and loads the rock, P taps power,"
            " D leaks power and steadies the seam)",
            [[CONDUIT_CHARS[int(v)] for v in row] for row in effect],
        )
    out += number_lines(
        "Conduit damping (seam cells a conduit here would steady)", np.asarray(obs["conduit_damps"])
    )
    return out


def observation_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    cells = np.asarray(obs["cells"])
    airflow = np.asarray(obs["airflow"])
    seams = np.asarray(obs["seams"])
    faults = np.asarray(obs["faults"])
    research = np.asarray(obs["research"])
    components = np.asarray(obs["components"])
    out = [
        f"Step {int(obs['step'])} of {STEP_BUDGET}. Districts {int(obs['districts'])}/"
        f"{DISTRICT_GOAL}, integrity {int(obs['integrity'])}, air {int(obs['air'])}, "
        f"power {int(obs['power'])}.",
        "City (each cell: type . rock, o chamber, K core, D district; support t timber,"
        " s steel, a anchor; shaft ^ > v <; = conduit; then the stress):",
        *city_lines(cells, obs["supports"], obs["vents"], obs["conduits"], obs["stress"]),
    ]
    flow = [
        [
            _arrow(airflow[r, c, 0], airflow[r, c, 1]) + str(int(max(abs(airflow[r, c]))))
            for c in range(GRID)
        ]
        for r in range(GRID)
    ]
    out += map_lines("Airflow now (direction, speed)", flow)
    out += map_lines(
        "Seams (? unknown, . none, S seam, arrow: its pull)",
        [[SEAM_CHARS[int(v)] for v in row] for row in seams],
    )
    out += map_lines(
        "Faults (? not scanned, . none, F fault)",
        [["?" if v < 0 else ("F" if v else ".") for v in row] for row in faults],
    )
    out += research_lines(obs)
    out.append("Research:")
    for k, name in enumerate(RULE_NAMES):
        out.append(f"  {name}: stage {int(research[k])}/3, {REVEALED[name][int(research[k])]}")
    available = [
        f"{name} ({DESCRIPTORS[name]})" for k, name in enumerate(COMPONENT_NAMES) if components[k]
    ]
    out.append("Available components: " + "; ".join(available) + ".")
    return "\n".join(out)


def mask_from_observation(obs: Mapping[str, Any]) -> np.ndarray:
    """The legal actions, computed from the observation with the env's own mask kernel."""
    mask = np.zeros((1, NUM_ACTIONS), dtype=np.bool_)
    write_mask(
        0,
        np.asarray(obs["cells"], dtype=np.int8)[None],
        np.asarray(obs["supports"], dtype=np.int8)[None],
        np.asarray(obs["vents"], dtype=np.int8)[None],
        np.asarray(obs["conduits"], dtype=np.int8)[None],
        np.array([int(obs["power"])], dtype=np.int64),
        np.asarray(obs["research"], dtype=np.int64)[None],
        np.asarray(obs["components"], dtype=np.int8)[None],
        mask,
    )
    return mask[0]


def _cells_text(ks: list[tuple[int, int]]) -> str:
    return " ".join(f"({r},{c})" for r, c in ks)


def legal_actions_text(
    obs: Mapping[str, Any], config: Mapping[str, Any], mask: np.ndarray | None = None
) -> str:
    """The legal actions, grouped by type (conduits summarised by the cells they may use)."""
    legal = mask_from_observation(obs) if mask is None else np.asarray(mask, dtype=bool)
    groups: dict[str, list[str]] = {}
    conduit_cells: set[tuple[int, int]] = set()
    for a in np.flatnonzero(legal):
        action = decode_action(int(a))
        kind = action[0]
        if kind == "conduit":
            conduit_cells.update(action[1])
            continue
        if kind in ("excavate", "build"):
            key = f"{kind} (r,c) for"
            groups.setdefault(key, []).append(_cells_text([action[1]]))
        elif kind == "support":
            groups.setdefault(f"support {action[1]} (r,c) for", []).append(_cells_text([action[2]]))
        elif kind == "vent":
            key = "vent (r,c) north|east|south|west for"
            cell = _cells_text([action[1]])
            if cell not in groups.get(key, []):
                groups.setdefault(key, []).append(cell)
        elif kind == "research":
            groups.setdefault("research", []).append(action[1])
        else:
            groups.setdefault(kind, [])
    lines = ["Legal actions now:"]
    for key, values in groups.items():
        lines.append(f"  {key} " + " ".join(values) if values else f"  {key}")
    if conduit_cells:
        lines.append(
            "  conduit through 1-3 orthogonally contiguous cells among "
            + _cells_text(sorted(conduit_cells))
        )
    return "\n".join(lines)


def format_action(action: Any, config: Mapping[str, Any]) -> str:
    decoded = decode_action(action)
    kind = decoded[0]
    if kind in ("excavate", "build"):
        return f"{kind} {_cells_text([decoded[1]])}"
    if kind == "support":
        return f"support {decoded[1]} {_cells_text([decoded[2]])}"
    if kind == "vent":
        return f"vent {_cells_text([decoded[1]])} {decoded[2]}"
    if kind == "conduit":
        return f"conduit {_cells_text(list(decoded[1]))}"
    if kind == "research":
        return f"research {decoded[1]}"
    return kind


# ASCII digits only, as everywhere in the text grammar ("\u0663" is not 3).
_CELL = r"\(\s*([0-9]{1,3})\s*,\s*([0-9]{1,3})\s*\)"
_PATTERNS = {
    "excavate": re.compile(rf"excavate\s*{_CELL}", re.ASCII),
    "support": re.compile(rf"support\s+(\w+)\s*{_CELL}", re.ASCII),
    "vent": re.compile(rf"vent\s*{_CELL}\s*(\w+)", re.ASCII),
    "conduit": re.compile(rf"conduit\s*{_CELL}(?:\s*{_CELL})?(?:\s*{_CELL})?", re.ASCII),
    "build": re.compile(rf"build\s*{_CELL}", re.ASCII),
    "research": re.compile(r"research\s+(\w+)", re.ASCII),
    "wait": re.compile(r"wait"),
    "scan": re.compile(r"scan"),
}


def _structured(s: str) -> tuple[Any, ...]:
    if s == "hold":  # the shared grammar's other word for doing nothing
        s = "wait"
    verb = s.split(" ", 1)[0].split("(", 1)[0]
    if verb not in _PATTERNS:
        raise TextActionError(
            f"unknown action {quote(s)}; actions start with one of: " + ", ".join(_PATTERNS)
        )
    m = _PATTERNS[verb].fullmatch(s)
    if m is None:
        raise TextActionError(
            f"cannot read {quote(s)} as {'an' if verb[0] in 'aeiou' else 'a'} {verb} action; "
            f"e.g. {_EXAMPLES[verb]!r}"
        )
    g = m.groups()
    if verb in ("excavate", "build"):
        return (verb, (int(g[0]), int(g[1])))
    if verb == "support":
        return (verb, g[0], (int(g[1]), int(g[2])))
    if verb == "vent":
        return (verb, (int(g[0]), int(g[1])), g[2])
    if verb == "conduit":
        nums = [int(x) for x in g if x is not None]
        return (verb, tuple(zip(nums[0::2], nums[1::2], strict=True)))
    if verb == "research":
        return (verb, g[0])
    return (verb,)


_EXAMPLES = {
    "excavate": "excavate (2,3)",
    "support": "support timber (2,3)",
    "vent": "vent (2,3) north",
    "conduit": "conduit (2,3) (2,4)",
    "build": "build (2,3)",
    "research": "research gravity",
    "wait": "wait",
    "scan": "scan",
}


def parse_action(text: object, config: Mapping[str, Any], mask: np.ndarray | None = None) -> int:
    """The action id ``text`` names, exactly; with ``mask``, it must also be legal now."""
    s = normalize(text)
    number = parse_number(s, NUM_ACTIONS)
    if number is not None:
        action = number
    else:
        try:
            action = encode_action(*_structured(s))
        except TextActionError:
            raise
        except ValueError as exc:
            raise TextActionError(f"invalid action {quote(s)}: {exc}") from None
    if mask is not None and not bool(np.asarray(mask)[action]):
        raise TextActionError(f"{format_action(action, config)!r} is not legal now")
    return action


__all__ = [
    "CELL_NAMES",
    "DIRECTION_NAMES",
    "MATERIAL_NAMES",
    "format_action",
    "legal_actions_text",
    "observation_text",
    "parse_action",
    "rules_text",
]
