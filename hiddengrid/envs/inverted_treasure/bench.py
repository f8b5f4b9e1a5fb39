"""Speed check: ``python -m hiddengrid.envs.inverted_treasure.bench``.

Steps per second of the native vector env (random actions, autoreset included), of the raw
kernel alone, and of Gymnasium's ``SyncVectorEnv`` over single envs, in the same run.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.envs.inverted_treasure.constants import NUM_ACTIONS

IDS = ("hiddengrid/InvertedTreasure-v0", "hiddengrid/InvertedTreasure-Scout-v0")


def _actions(n: int, pool: int = 64) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, NUM_ACTIONS, size=n) for _ in range(pool)]


def native(env_id: str, n: int, seconds: float) -> float:
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    pool = _actions(n)
    for k in range(20):  # warm up (compilation is cached on disk)
        venv.step(pool[k % len(pool)])
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k in range(50):
            venv.step(pool[k % len(pool)])
        steps += 50
    return steps * n / (time.perf_counter() - start)


def kernel(env_id: str, n: int, seconds: float) -> float:
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    batch = venv.unwrapped.batch
    pool = _actions(n)
    batch.step(pool[0])
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k in range(50):
            batch.step(pool[k % len(pool)])
        steps += 50
    return steps * n / (time.perf_counter() - start)


def sync(env_id: str, n: int, seconds: float) -> float:
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync")
    venv.reset(seed=0)
    pool = _actions(n)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(pool[steps % len(pool)])
        steps += 1
    return steps * n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--sync-envs", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    for env_id in IDS:
        fast = native(env_id, args.num_envs, args.seconds)
        raw = kernel(env_id, args.num_envs, args.seconds)
        slow = sync(env_id, args.sync_envs, args.seconds)
        print(
            f"{env_id}: native N={args.num_envs} {fast / 1e6:.2f} M steps/s "
            f"(kernel alone {raw / 1e6:.1f} M), SyncVectorEnv N={args.sync_envs} "
            f"{slow / 1e3:.1f} k steps/s, ratio {fast / slow:.0f}x"
        )


if __name__ == "__main__":
    main()
