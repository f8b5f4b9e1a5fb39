"""The red team that reads the icons the usual way loses where the fair Scout heuristic wins."""

from __future__ import annotations

import numpy as np

from hiddengrid.design.inverted_treasure.redteam import LiteralReader, literal_action
from hiddengrid.envs.inverted_treasure.constants import MOVE_EAST, MOVE_NORTH, REVEAL
from hiddengrid.evaluate import run_episodes

SCOUT = "hiddengrid/InvertedTreasure-Scout-v0"


def test_it_walks_to_a_flower_and_keeps_off_the_bomb() -> None:
    window = np.ones((5, 5), dtype=np.int8)  # all Empty around
    window[2, 3] = 2  # the Bomb east: avoided
    window[0, 2] = 3  # a Flower two north: the "treasure" it believes in
    assert literal_action(window) == MOVE_NORTH
    window[0, 2] = 1
    window[2, 4] = 3  # a Flower behind the Bomb: it goes round, never onto the Bomb
    assert literal_action(window) != MOVE_EAST
    window[2, 2] = 0  # its own tile unseen: it reveals first
    assert literal_action(window) == REVEAL


def test_the_literal_reader_loses_where_the_scout_heuristic_wins() -> None:
    episodes = 400
    literal = run_episodes(SCOUT, "literal", episodes, seed=5_000_000, agent_factory=LiteralReader)
    fair = run_episodes(SCOUT, "heuristic", episodes, seed=5_000_000)
    assert literal.success_rate < 0.15 < 0.35 < fair.success_rate
