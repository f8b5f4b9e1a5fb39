"""SquadRecon as text: the rules prompt, the observation, legal actions and the parser.

Action grammar (after the shared normalisation: case, spaces, one pair of wrapping brackets or
quotes and a trailing period do not matter)::

    action  := order sep order sep order        three orders, squads 1, 2, 3 in this order
             | labelled sep labelled sep labelled   each squad exactly once, any order
    labelled:= "squad" N [":"] order             N in 1..3
    order   := ("hold" | "wait") ["position"] | ["move"] direction
             | "attack" ["enemy camp" | "camp"]
             | digit                             0 hold, 1 north, 2 south, 3 east, 4 west, 5 attack
    direction := "north" | "south" | "east" | "west"
    sep     := "," | ";" | spaces

Examples: ``"squad 1 north, squad 2 hold, squad 3 attack"``, ``"north hold attack"``,
``"1 0 5"``, ``"[1, 0, 5]"``. ``format_action`` writes the first form; ``parse_action`` returns
the action as an ``int64`` array of shape ``(3,)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.envs.squad_recon.constants import (
    ATTACK,
    CAMP_MIN_DISTANCE,
    DETECTED,
    ELIMINATED,
    GRID_SIZE,
    HOLD,
    MAX_CAMP_STRENGTH,
    MAX_SQUAD_STRENGTH,
    MIN_CAMP_STRENGTH,
    MIN_SQUAD_STRENGTH,
    NUM_ORDERS,
    NUM_SQUADS,
    ORDER_COL,
    ORDER_NAMES,
    ORDER_ROW,
    SENSOR_RADIUS,
    STEP_BUDGET,
    UNEXPLORED,
)
from hiddengrid.text.parse import (
    DIRECTIONS,
    IDLE_WORDS,
    TextActionError,
    grid_lines,
    normalize,
    parse_number,
    quote,
)

# A legal action at every step, shown in the answer-format instruction of a model's prompt.
ANSWER_EXAMPLE = "squad 1 north, squad 2 hold, squad 3 hold"


def rules_text(config: Mapping[str, Any]) -> str:
    return f"""You command three squads on a {GRID_SIZE}x{GRID_SIZE} battlefield: rows 0..14
(row 0 is north), columns 0..14 (column 0 is west). Cells are open ground, walls or forest;
walls and forest block both movement and sight. Two enemy camps hide on open ground, each at least
{CAMP_MIN_DISTANCE} cells (the larger of the row and column distance) from the corner [14, 0].
Your squads start at [14, 0], [14, 1] and [13, 0] with strengths {MIN_SQUAD_STRENGTH}..\
{MAX_SQUAD_STRENGTH}; each camp has a strength {MIN_CAMP_STRENGTH}..{MAX_CAMP_STRENGTH}. Find and
destroy both camps within {STEP_BUDGET} steps.

Each step you give one order to every squad, all carried out at once:
  hold (or wait): stay. north / south / east / west (or move north, ...): move one cell;
    a move into a wall, forest, a camp or off the map fails and the squad stays. Squads never
    block each other and may share a cell.
  attack: attack every camp next to the squad (directly north, south, east or west of it).
    The strengths of ALL your live squads next to that camp are added up, attacking or not.
    If the total is more than the camp's strength the camp is eliminated; otherwise (equal
    counts as a loss) every squad next to it is destroyed. Camps are resolved in order, camp 1
    first; a squad destroyed at camp 1 does not count at camp 2. An attack with no camp next
    to the squad is a hold. Orders to destroyed squads are ignored.
After the moves and attacks, each live squad sees every cell up to {SENSOR_RADIUS} cells away
in each direction (a 7x7 square) unless a wall or forest cell lies between (the blocking cell
itself is seen). What you have seen stays on your map; a camp, once seen, stays shown with
its strength.

An action gives one order per squad, for example "squad 1 north, squad 2 hold, squad 3 attack",
or just the three orders in squad order: "north hold attack", or numbers: "1 0 5"
(0 hold, 1 north, 2 south, 3 east, 4 west, 5 attack).
Scoring: +0.5 for each camp eliminated. The episode ends when both camps are eliminated
("success"), when all three squads are destroyed ("wiped_out"), or after {STEP_BUDGET} steps
("timeout")."""


def _map_rows(obs: Mapping[str, Any]) -> list[str]:
    terrain = np.asarray(obs["terrain"])
    visible = np.asarray(obs["visible"])
    squads = np.asarray(obs["squads"])
    camps = np.asarray(obs["camps"])
    rows = []
    for r in range(GRID_SIZE):
        row = []
        for c in range(GRID_SIZE):
            t = int(terrain[r, c])
            ch = "?" if t == UNEXPLORED else ".#T"[t]
            if t != UNEXPLORED and not visible[r, c]:
                ch = ch.lower() if ch == "T" else {".": ",", "#": "="}[ch]
            for j, (cr, cc, _, status) in enumerate(camps.tolist()):
                if status != 0 and (cr, cc) == (r, c):
                    ch = "X" if status == ELIMINATED else "ABC"[j]
            live = [k for k in range(NUM_SQUADS) if squads[k, 3] and tuple(squads[k, :2]) == (r, c)]
            if len(live) > 1:
                ch = "*"
            elif live:
                ch = str(live[0] + 1)
            row.append(ch)
        rows.append(row)
    return ["".join(row) for row in rows]


def observation_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    rows = _map_rows(obs)
    grid = grid_lines(rows, [str(c) for c in range(GRID_SIZE)], [str(r) for r in range(GRID_SIZE)])
    lines = [
        "Your map (north up). In sight now: '.' open, '#' wall, 'T' forest. Seen before but "
        "not in sight now: ',' open, '=' wall, 't' forest. '?' never seen. 1 2 3 your squads "
        "('*' several on one cell), A B the detected camps 1 and 2, X an eliminated camp.",
        grid,
        "Squads:",
    ]
    for k, (r, c, s, alive) in enumerate(np.asarray(obs["squads"]).tolist()):
        state = "alive" if alive else "destroyed"
        lines.append(f"  squad {k + 1}: row {r}, col {c}, strength {s}, {state}")
    lines.append("Camps:")
    for j, (r, c, s, status) in enumerate(np.asarray(obs["camps"]).tolist()):
        if status == 0:
            lines.append(f"  camp {j + 1}: not yet detected")
        else:
            state = "detected" if status == DETECTED else "eliminated"
            lines.append(f"  camp {j + 1}: row {r}, col {c}, strength {s}, {state}")
    progress = float(np.asarray(obs["progress"]).reshape(-1)[0])
    lines.append(
        f"Camps eliminated: {round(progress * 2)} of 2. Total strength of live squads: "
        f"{int(obs['total_strength'])}. Steps left: {int(obs['steps_left'])} of {STEP_BUDGET}."
    )
    return "\n".join(lines)


def legal_actions_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    squads = np.asarray(obs["squads"])
    camps = np.asarray(obs["camps"])
    terrain = np.asarray(obs["terrain"])
    lines = [
        "Give one order per squad: hold, north, south, east, west or attack "
        '(e.g. "squad 1 north, squad 2 hold, squad 3 attack", "north hold attack" or "1 0 5").'
    ]
    for k, (r, c, _, alive) in enumerate(squads.tolist()):
        if not alive:
            lines.append(f"  squad {k + 1}: destroyed; any order is ignored (write hold)")
            continue
        moves = []
        for order in range(1, 5):
            nr, nc = r + int(ORDER_ROW[order]), c + int(ORDER_COL[order])
            if not (0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE):
                continue
            known = int(terrain[nr, nc])
            camp_there = any(
                s == DETECTED and (cr, cc) == (nr, nc) for cr, cc, _, s in camps.tolist()
            )
            if known in (0, UNEXPLORED) and not camp_there:
                moves.append(ORDER_NAMES[order])
        near = [
            j + 1
            for j, (cr, cc, _, s) in enumerate(camps.tolist())
            if s == DETECTED and abs(cr - r) + abs(cc - c) == 1
        ]
        attack = (
            f"attack (camp {', '.join(map(str, near))} next to it)"
            if near
            else ("attack (no camp next to it: acts as hold)")
        )
        lines.append(
            f"  squad {k + 1} at [{r}, {c}]: hold, "
            + (", ".join(moves) + " (open as far as you know), " if moves else "")
            + attack
        )
    return "\n".join(lines)


def format_action(action: Any, config: Mapping[str, Any]) -> str:
    orders = [int(x) for x in np.asarray(action).reshape(-1)]
    return ", ".join(f"squad {k + 1} {ORDER_NAMES[o]}" for k, o in enumerate(orders))


_ORDER_WORDS = {name: k for k, name in enumerate(ORDER_NAMES)}


def _read_order(tokens: list[str], pos: int) -> tuple[int, int]:
    """One order starting at ``tokens[pos]``: its code and the position after it."""
    if pos >= len(tokens):
        raise TextActionError("an order is missing at the end of the answer")
    word = tokens[pos]
    value = parse_number(word, NUM_ORDERS, "order number")
    if value is not None:
        return value, pos + 1
    if word == "move":
        if pos + 1 < len(tokens) and tokens[pos + 1] in DIRECTIONS:
            return _ORDER_WORDS[tokens[pos + 1]], pos + 2
        raise TextActionError("'move' must be followed by north, south, east or west")
    if word in DIRECTIONS:
        return _ORDER_WORDS[word], pos + 1
    if word in IDLE_WORDS:
        skip = 1 if pos + 1 < len(tokens) and tokens[pos + 1] == "position" else 0
        return HOLD, pos + 1 + skip
    if word == "attack":
        rest = tokens[pos + 1 : pos + 3]
        if rest == ["enemy", "camp"]:
            return ATTACK, pos + 3
        if rest[:1] == ["camp"]:
            return ATTACK, pos + 2
        return ATTACK, pos + 1
    raise TextActionError(
        f"unknown order {quote(word)}; orders are hold, north, south, east, west, attack or 0..5"
    )


def parse_action(text: object, config: Mapping[str, Any]) -> np.ndarray:
    s = normalize(text)
    tokens = [t for t in re.split(r"[\s,;]+", s.replace(":", " ")) if t]
    labelled: list[int | None] = []
    orders: list[int] = []
    pos = 0
    while pos < len(tokens):
        label = None
        if tokens[pos] == "squad":
            if pos + 1 >= len(tokens) or tokens[pos + 1] not in ("1", "2", "3"):
                raise TextActionError("'squad' must be followed by its number 1, 2 or 3")
            label = int(tokens[pos + 1])
            pos += 2
        order, pos = _read_order(tokens, pos)
        labelled.append(label)
        orders.append(order)
    if len(orders) != NUM_SQUADS:
        raise TextActionError(
            f"give exactly {NUM_SQUADS} orders, one per squad; got {len(orders)} in {quote(s)}"
        )
    if all(label is None for label in labelled):
        return np.array(orders, dtype=np.int64)
    if any(label is None for label in labelled):
        raise TextActionError("label every order with its squad ('squad 1 north, ...') or none")
    if sorted(labelled) != [1, 2, 3]:  # type: ignore[type-var]
        raise TextActionError("give each of squads 1, 2 and 3 exactly one order")
    out = np.zeros(NUM_SQUADS, dtype=np.int64)
    for label, order in zip(labelled, orders, strict=True):
        out[label - 1] = order  # type: ignore[operator]
    return out
