"""Hand-built InvertedTreasure levels for the tests in this folder."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401  (registers the ids)

BASE_ID = "hiddengrid/InvertedTreasure-v0"
SCOUT_ID = "hiddengrid/InvertedTreasure-Scout-v0"
IDS = (BASE_ID, SCOUT_ID)
EMPTY, BOMB, FLOWER = 1, 2, 3


def icons(bomb=(7, 7), flowers=()) -> list[list[int]]:
    """An 8x8 icon grid (row 0 north) from (x, y) positions."""
    grid = [[EMPTY] * 8 for _ in range(8)]
    x, y = bomb
    grid[7 - y][x] = BOMB
    for x, y in flowers:
        grid[7 - y][x] = FLOWER
    return grid


def start(env_id: str = BASE_ID, **kwargs: Any) -> tuple[gym.Env, dict]:
    env = gym.make(env_id)
    obs, _ = env.reset(seed=0, options={"scenario": {"icons": icons(**kwargs)}})
    return env, obs


def revealed(env: gym.Env) -> np.ndarray:
    """The (8, 8) grid of revealed icons (0 unseen), row 0 north."""
    return env.unwrapped.batch["board"][0, 2:10, 2:10].copy()


def seen_at(env: gym.Env, x: int, y: int) -> int:
    return int(revealed(env)[7 - y, x])
