"""A seeded vector run with every agent, for the compiled vs pure-Python comparison."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401
from hiddengrid.envs.megacity.agents import AGENTS


def trace(n: int = 3, steps: int = 90) -> list:
    venv = gym.make_vec(
        "hiddengrid/Megacity-v0", num_envs=n, vectorization_mode="vector_entry_point"
    )
    obs, _ = venv.reset(seed=21)
    agents = [AGENTS[k](venv.unwrapped, seed=5) for k in ("random", "heuristic", "oracle")]
    starts = np.ones(n, dtype=bool)
    out = []
    for t in range(steps):
        actions = agents[(t // 30) % 3].act(obs, starts | (t % 30 == 0))
        obs, reward, term, _, info = venv.step(actions)
        out.append(
            [
                actions.tolist(),
                {k: v.tolist() for k, v in obs.items()},
                reward.tolist(),
                term.tolist(),
                {k: v.tolist() for k, v in info["reward_terms"].items()},
            ]
        )
        starts = term
    return out
