"""Hand-built Megacity states for the tests."""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401
from hiddengrid.envs.megacity import rules
from hiddengrid.envs.megacity.constants import GRID

ENV_ID = "hiddengrid/Megacity-v0"


def flat_scenario(stress: int = 10) -> dict[str, Any]:
    """No seams, no faults, uniform stress, still air, an exact survey."""
    return {
        "seams": [[0] * GRID for _ in range(GRID)],
        "faults": [[0] * GRID for _ in range(GRID)],
        "stress": [[stress] * GRID for _ in range(GRID)],
        "airflow": [[[0, 0] for _ in range(GRID)] for _ in range(GRID)],
        "survey": [[0] * GRID for _ in range(GRID)],
    }


def scenario_with(**changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(flat_scenario(changes.pop("base_stress", 10)))
    for key, cells in changes.items():
        for (r, c), value in cells.items():
            s[key][r][c] = value
    return s


def make_env(scenario: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    env = gym.make(ENV_ID, **kwargs)
    env.reset(seed=0, options=None if scenario is None else {"scenario": scenario})
    return env


def refresh(env: Any) -> None:
    """Recomputes the observation and the mask after a test pokes the state."""
    b = env.unwrapped.batch
    f = b.fields
    rules.write_observation(
        0, f["seams"], f["faults"], f["airflow0"], f["survey"], f["vents"], f["stress"],
        f["damped"], f["step"], f["research"], f["scanned"],
        tuple(f[name] for name in rules.VIEWS),
    )  # fmt: skip
    rules.write_mask(
        0, f["cells"], f["supports"], f["vents"], f["conduits"], f["power"], f["research"],
        f["components"], f["mask"],
    )  # fmt: skip


def act(env: Any, *structured: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    return env.step(env.unwrapped.encode_action(*structured))


def state(env: Any, name: str) -> np.ndarray:
    return env.unwrapped.batch[name][0]
