"""AnomalyMapping as text: the rules prompt, the observation, legal actions and the parser."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.envs.anomaly_mapping.constants import ACTION_NAMES, DIRECTION_NAMES, STEP_BUDGET
from hiddengrid.text.parse import grid_lines, parse_choice

# A legal action at every step, shown in the answer-format instruction of a model's prompt.
ANSWER_EXAMPLE = "move north"


def rules_text(config: Mapping[str, Any]) -> str:
    return f"""You are searching a 15x15 laboratory floor for one hidden Vulnerability Node.
Some tiles are insulating walls; you cannot see them, your position, or the node.
The node radiates a field. Each tile reads a level 0..3: 3 on the node, 2 one step from it,
1 two steps from it, 0 elsewhere. Steps count along free tiles, so a wall between you and the
node can hide its field. Walls always read 0.
You see only the 3x3 block of levels around you, north at the top, west at the left; you are
the centre cell. Cells off the grid read 0.
Actions, by name or number:
  0 move north, 1 move south, 2 move east, 3 move west: step one tile and face that way;
    a move into a wall or off the grid does nothing but still costs a step.
  4 rotate left, 5 rotate right: turn 90 degrees counter-clockwise / clockwise.
  6 mark: end the episode, declaring the node is on your tile or next to it.
A move may also be given as its direction alone: "north" is "move north".
Example actions: "move north", "north", "mark", "6".
Scoring: mark while on the node or one of its 4 neighbours: reward 1 ("success").
Any other mark: reward 0 ("wrong_mark"). After {STEP_BUDGET} actions without a mark the
episode ends with reward 0 ("timeout")."""


def observation_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    field = np.asarray(obs["field"])
    rows = ["".join(str(int(v)) for v in row) for row in field]
    grid = grid_lines(rows, ["W", ".", "E"], ["N", ".", "S"])
    facing = DIRECTION_NAMES[int(obs["facing"])]
    return (
        f"Field levels around you (you are the centre):\n{grid}\n"
        f"Facing: {facing}. Steps left: {int(obs['steps_left'])} of {STEP_BUDGET}."
    )


def legal_actions_text(obs: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    return "Legal actions: " + ", ".join(f"{k} {n}" for k, n in enumerate(ACTION_NAMES))


def format_action(action: Any, config: Mapping[str, Any]) -> str:
    return ACTION_NAMES[int(action)]


def parse_action(text: object, config: Mapping[str, Any]) -> int:
    return parse_choice(text, ACTION_NAMES)
