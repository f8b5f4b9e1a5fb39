"""Hand-built SquadRecon scenarios for the rule tests."""

from __future__ import annotations

from typing import Any

import numpy as np
from helpers import make

ID = "hiddengrid/SquadRecon-v0"
H, N, S, E, W, A = 0, 1, 2, 3, 4, 5  # hold, north, south, east, west, attack
FAR_CAMPS = ((0, 14, 2), (1, 14, 2))  # out of everyone's way unless a test says otherwise


def scenario(
    walls: Any = (),
    forest: Any = (),
    squads: Any = ((14, 0, 1), (14, 1, 1), (13, 0, 1)),
    camps: Any = FAR_CAMPS,
) -> dict[str, Any]:
    grid = [[0] * 15 for _ in range(15)]
    for r, c in walls:
        grid[r][c] = 1
    for r, c in forest:
        grid[r][c] = 2
    return {
        "terrain": grid,
        "squads": [list(s) for s in squads],
        "camps": [list(c) for c in camps],
    }


def start(**kwargs: Any):
    env = make(ID)
    obs, _info = env.reset(options={"scenario": scenario(**kwargs)})
    return env, obs


def step(env, *orders: int):
    return env.step(np.array(orders, dtype=np.int64))


def positions(obs) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in obs["squads"][:, :2]]


def alive(obs) -> list[int]:
    return [int(a) for a in obs["squads"][:, 3]]
