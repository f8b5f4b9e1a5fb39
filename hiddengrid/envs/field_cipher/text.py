"""FieldCipher as text: the rules prompt, the observation, legal actions and the parser.

The rules text explains how the grid is read and scored but never the codebook: the only
codebook entries a text agent sees are the four hints of its observation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.actions import is_int_scalar
from hiddengrid.envs.field_cipher.constants import (
    ACTION_NAMES,
    CELL_NAMES,
    EMPTY_SLOT,
    GRID_SIZE,
    HEX_DIGITS,
    NUM_ACTIONS,
    STEP_BUDGET,
)
from hiddengrid.text.parse import grid_lines, parse_choice, shared_aliases

# A bare hex digit ("A", "f") writes it, as "write A" does; "0".."9" read as action numbers
# 0..9, which are the same writes.
ALIASES = {
    **shared_aliases(ACTION_NAMES),
    **{d.lower(): k for k, d in enumerate(HEX_DIGITS) if not d.isdigit()},
}


# A legal action at every step, shown in the answer-format instruction of a model's prompt.
ANSWER_EXAMPLE = "cursor right"


def rules_text(config: Mapping[str, Any]) -> str:
    return f"""You are decoding a 4-character hexadecimal message hidden in a magnetic field
picture.
The field is a 9x9 grid, row 0 at the top (north), column 0 at the left (west). Each cell is
0 (empty), 1 (a field line segment) or 2 (an intersection where lines cross). It never changes.
How to read it: cut the grid into 2x2 blocks with stride 2, as if a 10th row and a 10th column
of empty cells were added. That gives 25 blocks in reading order (left to right, top to bottom):
block k covers rows 2*(k//5) and 2*(k//5)+1, columns 2*(k%5) and 2*(k%5)+1. A block's pattern
is its four cells: top-left, top-right, bottom-left, bottom-right.
A fixed secret codebook, the same in every episode, turns each of the 81 possible patterns into
a 2-bit value 0..3. Blocks 0..7 give 16 bits (block 0 first, each value's high bit first):
hex character 1 is blocks 0 and 1 (value of block 0 times 4 plus value of block 1), character
2 is blocks 2 and 3, character 3 blocks 4 and 5, character 4 blocks 6 and 7. Blocks 8..17
hold filler bits and blocks 18..24 are decoration; they do not matter for the answer.
You are not told the codebook. Each observation shows 4 hints: patterns with their values.
You fill 4 answer slots; a cursor points at one of them (slot 1 at the start).
Actions, by name or number:
  0..15 "write 0" .. "write F": put that hex digit into the slot under the cursor (it replaces
    what was there; the cursor does not move).
  16 "cursor right", 17 "cursor left": move the cursor, wrapping around (right of slot 4 is
    slot 1).
  18 "finalize": submit the 4 slots and end the episode.
    A bare hex digit is the same write: "A" is "write A".
Example actions: "write A", "A", "cursor right", "finalize", "7".
Scoring, only when the episode ends: 0.25 for each slot that holds the right character at its
position (an empty slot scores nothing), so 1.0 for the whole message. The episode ends when
you finalize or after {STEP_BUDGET} actions, whichever comes first; after {STEP_BUDGET} actions
the slots are scored as they stand."""


def _slot_char(v: int) -> str:
    return "_" if v == EMPTY_SLOT else HEX_DIGITS[v]


def observation_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    grid = np.asarray(obs["grid"])
    rows = ["".join(str(int(v)) for v in row) for row in grid]
    field = grid_lines(rows, [str(c) for c in range(GRID_SIZE)], [str(r) for r in range(GRID_SIZE)])
    hints = np.asarray(obs["hints"])
    hint_lines = [
        f"  top-left {h[0]}, top-right {h[1]}, bottom-left {h[2]}, bottom-right {h[3]}"
        f" -> value {h[4]} (bits {int(h[4]):02b})"
        for h in hints.astype(int)
    ]
    slots = [int(v) for v in np.asarray(obs["slots"])]
    cursor = int(obs["cursor"])
    slot_text = "  ".join(
        f"[{_slot_char(v)}]" if j == cursor else f" {_slot_char(v)} " for j, v in enumerate(slots)
    )
    step = int(obs["step"])
    return (
        "Field (0 empty, 1 segment, 2 intersection):\n"
        f"{field}\n"
        "Hints (codebook entries):\n" + "\n".join(hint_lines) + "\n"
        f"Slots 1-4 (_ empty, [ ] cursor, on slot {cursor + 1}): {slot_text}\n"
        f"Actions taken: {step} of {STEP_BUDGET} ({STEP_BUDGET - step} left)."
    )


def legal_actions_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    return (
        "Legal actions: "
        + ", ".join(f"{k} {format_action(k, config)}" for k in range(NUM_ACTIONS))
        + f". Cells: {', '.join(f'{k} {n}' for k, n in enumerate(CELL_NAMES))}."
    )


def format_action(action: Any, config: Mapping[str, Any]) -> str:
    if not is_int_scalar(action):
        raise ValueError(f"invalid action {action!r}: expected an integer in [0, {NUM_ACTIONS})")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"invalid action {action!r}: expected an integer in [0, {NUM_ACTIONS})")
    if a < EMPTY_SLOT:
        return f"write {HEX_DIGITS[a]}"
    return ACTION_NAMES[a]


def parse_action(text: object, config: Mapping[str, Any]) -> int:
    """``"write a"`` / ``"write A"`` / ``"A"`` -> 10, ``"cursor right"`` -> 16, ``"finalize"``
    -> 18, and a bare action number ``"0"`` .. ``"18"``; anything else raises
    ``TextActionError``."""
    return parse_choice(text, ACTION_NAMES, ALIASES)
