"""Speed check: ``python -m hiddengrid.envs.squad_recon.bench``.

Steps per second of the native vector env (random orders, autoreset included), of the raw
kernel alone, of the reset (scenario draw) alone, and of Gymnasium's ``SyncVectorEnv`` over
single envs, all in the same run.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.envs.squad_recon.constants import NUM_ORDERS, NUM_SQUADS

ENV_ID = "hiddengrid/SquadRecon-v0"


def _actions(n: int, pool: int = 64) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, NUM_ORDERS, size=(n, NUM_SQUADS)) for _ in range(pool)]


def _vec(n: int, mode: str = "vector_entry_point") -> gym.vector.VectorEnv:
    venv = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode=mode)
    venv.reset(seed=0)
    return venv


def native(n: int, seconds: float) -> float:
    venv = _vec(n)
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


def kernel(n: int, seconds: float) -> float:
    batch = _vec(n).unwrapped.batch
    pool = _actions(n)
    batch.step(pool[0])
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k in range(50):
            batch.step(pool[k % len(pool)])
        steps += 50
    return steps * n / (time.perf_counter() - start)


def resets(n: int, seconds: float) -> float:
    """Scenario draws (terrain, camps) plus the first sight, per second."""
    batch = _vec(n).unwrapped.batch
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        batch.reset_all()
        count += 1
    return count * n / (time.perf_counter() - start)


def sync(n: int, seconds: float) -> float:
    venv = _vec(n, "sync")
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
    fast = native(args.num_envs, args.seconds)
    raw = kernel(args.num_envs, args.seconds)
    draws = resets(args.num_envs, args.seconds)
    slow = sync(args.sync_envs, args.seconds)
    print(
        f"{ENV_ID}: native N={args.num_envs} {fast / 1e6:.2f} M steps/s "
        f"(kernel alone {raw / 1e6:.2f} M, resets {draws / 1e3:.0f} k/s = "
        f"{1e6 / draws:.1f} us each), SyncVectorEnv N={args.sync_envs} {slow / 1e3:.1f} k "
        f"steps/s, ratio {fast / slow:.0f}x"
    )


if __name__ == "__main__":
    main()
