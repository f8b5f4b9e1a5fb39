"""InvertedTreasure as text: the rules prompt, the observation, legal actions and the parser.

The rules name the icons neutrally (Bomb icon, Flower icon, Empty) and never say which of the
two marks the treasure and which marks a trap: that is what the agent has to find out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.envs.inverted_treasure.constants import (
    ACTION_NAMES,
    GRID_SIZE,
    STEP_BUDGET,
    WINDOW_RADIUS,
)
from hiddengrid.text.parse import grid_lines, parse_choice

# Window code -> character: 0 unseen, 1 Empty, 2 Bomb icon, 3 Flower icon, 4 outside.
SYMBOLS = "?.BF#"
SYMBOL_LEGEND = "? unseen, . Empty, B Bomb icon, F Flower icon, # outside the grid"


def _reveal_rule(config: Mapping[str, Any]) -> str:
    if config.get("scout", False):
        return (
            "  4 reveal: reveal the icon of your tile and of the four tiles next to it\n"
            "    (north, south, west, east) without moving."
        )
    return "  4 reveal: reveal the icon of your own tile without moving."


# A legal action at every step, shown in the answer-format instruction of a model's prompt.
ANSWER_EXAMPLE = "move north"


def rules_text(config: Mapping[str, Any]) -> str:
    return f"""You are on an {GRID_SIZE}x{GRID_SIZE} grid of tiles. Positions are (x, y): x grows to
the east, y grows to the north, (0, 0) is the south-west corner and (7, 7) the north-east corner.
You start on (0, 0). Every tile hides one icon: a Bomb icon, a Flower icon, or Empty.
All tiles, yours too, start unseen; a revealed tile stays revealed.
Exactly one tile is the treasure and some tiles are deadly traps; every other tile is Empty and
harmless. The icons tell them apart, but you are not told which icon marks the treasure and
which marks a trap: you have to find out. The icons mean the same in every episode.
Actions, by name or number:
  0 move north, 1 move south, 2 move west, 3 move east: step one tile that way. Moving
    onto a tile reveals it, then you stand on it: the treasure ends the episode with
    reward 1, a trap ends it with reward 0, an Empty tile is safe. A move off the grid does
    nothing but still costs a step.
{_reveal_rule(config)}
  5 wait: do nothing.
A move may also be given as its direction alone ("north" is "move north"), and "hold" is
"wait".
Example actions: "move north", "north", "reveal", "5".
Each action costs one step; after {STEP_BUDGET} actions the episode ends with reward 0
("timeout"). Outcomes: "treasure" (reward 1), "trap" (reward 0), "timeout" (reward 0).
You see the 5x5 block of tiles around you, north at the top, west at the left; you are the
centre cell. Symbols: {SYMBOL_LEGEND}."""


def observation_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    window = np.asarray(obs["window"])
    x, y = (int(v) for v in np.asarray(obs["position"]))
    rows = ["".join(SYMBOLS[int(v)] for v in row) for row in window]
    cols = [str(x + d) for d in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1)]
    ys = [str(y - d) for d in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1)]
    grid = grid_lines(rows, cols, ys)
    here = ("unseen", "Empty", "a Bomb icon", "a Flower icon", "outside")[int(window[2, 2])]
    return (
        f"Tiles around you (columns are x, rows are y, north at the top; you are the centre):\n"
        f"{grid}\n"
        f"Symbols: {SYMBOL_LEGEND}.\n"
        f"You are at (x, y) = ({x}, {y}); your tile is {here}. "
        f"Steps left: {int(obs['steps_left'])} of {STEP_BUDGET}."
    )


def legal_actions_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    return "Legal actions: " + ", ".join(f"{k} {n}" for k, n in enumerate(ACTION_NAMES))


def format_action(action: Any, config: Mapping[str, Any]) -> str:
    return ACTION_NAMES[int(action)]


def parse_action(text: object, config: Mapping[str, Any]) -> int:
    return parse_choice(text, ACTION_NAMES)
