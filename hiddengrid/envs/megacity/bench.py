"""Megacity throughput: the native vector env against Gymnasium's SyncVectorEnv, same run.

``python -m hiddengrid.envs.megacity.bench`` prints env steps per second under masked random
actions (the actions are drawn by a compiled agent and their time is not counted).
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

from hiddengrid.core.agents import masked_choice
from hiddengrid.core.rng import seed_streams

ENV_ID = "hiddengrid/Megacity-v0"


def native(n: int, seconds: float = 3.0) -> float:
    venv = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    venv.step(np.full(n, 388))  # compile before timing
    mask = venv.unwrapped.batch["mask"]
    rng = np.zeros(n, dtype=np.uint64)
    seed_streams(rng, np.arange(n, dtype=np.uint64))
    actions = np.zeros(n, dtype=np.int64)
    steps = 0
    env_time = 0.0
    while env_time < seconds:
        masked_choice(mask, rng, actions)
        t0 = time.perf_counter()
        venv.step(actions)
        env_time += time.perf_counter() - t0
        steps += n
    return steps / env_time


def sync(n: int, seconds: float = 3.0) -> float:
    venv = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="sync")
    venv.reset(seed=0)
    venv.step(np.full(n, 388))  # compile before timing
    rng = np.random.default_rng(0)
    steps = 0
    env_time = 0.0
    while env_time < seconds:
        masks = np.stack([e.unwrapped.action_masks() for e in venv.envs])
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        t0 = time.perf_counter()
        venv.step(actions)
        env_time += time.perf_counter() - t0
        steps += n
    return steps / env_time


def main() -> None:
    slow = sync(8)
    print(f"SyncVectorEnv   N=8     {slow:>12,.0f} steps/s")
    for n in (256, 1024, 4096):
        fast = native(n)
        print(f"native VectorEnv N={n:<5} {fast:>12,.0f} steps/s  ({fast / slow:.0f}x sync)")


if __name__ == "__main__":
    main()
