"""Speed check: ``python -m hiddengrid.envs.field_cipher.bench [num_envs] [seconds]``.

Steps the native vector env with uniform random actions (autoresets included: a random agent
finalizes about every 19 steps) and compares it with Gymnasium's SyncVectorEnv over the single
env, in the same run.
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher.env import ENV_ID


def steps_per_second(venv, n: int, seconds: float) -> float:
    rng = np.random.default_rng(0)
    pool = rng.integers(0, 19, size=(64, n))
    venv.reset(seed=0)
    venv.step(pool[0])  # warm-up (compilation is cached, but touch everything once)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k in range(16):
            venv.step(pool[(steps + k) % 64])
        steps += 16
    return steps * n / (time.perf_counter() - start)


def main(n: int = 4096, seconds: float = 3.0) -> dict[str, float]:
    out = {}
    for level in (0, 3):
        native = gym.make_vec(
            ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", level=level
        )
        out[f"native_level{level}"] = steps_per_second(native, n, seconds)
    sync = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="sync")
    out["sync"] = steps_per_second(sync, n, seconds)
    reset_env = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", level=3)
    start = time.perf_counter()
    for s in range(50):
        reset_env.reset(seed=s)
    out["resets_per_second"] = 50 * n / (time.perf_counter() - start)
    for key, value in out.items():
        print(f"{key:>20}: {value:,.0f}")
    print(f"{'native / sync':>20}: {out['native_level0'] / out['sync']:,.0f}x")
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 4096, float(args[1]) if len(args) > 1 else 3.0)
