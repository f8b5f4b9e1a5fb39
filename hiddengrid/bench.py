"""Throughput of every env under one random-action policy, measured in one process.

Each configuration runs for a fixed wall-clock budget; the figures to quote are the ratios to
Gymnasium's ``SyncVectorEnv`` over the same single env, measured in the same run.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.core.agents import masked_choice
from hiddengrid.core.rng import seed_streams


@dataclass
class BenchRow:
    env_id: str
    config: str
    steps_per_second: float
    reset_us: float | None = None
    ratio_to_sync: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


class RandomPolicy:
    """Random legal actions for a batch, drawn from the env's own space (and mask)."""

    def __init__(self, env: Any, n: int, seed: int) -> None:
        self.base = env.unwrapped
        self.n = n
        self.rng = np.random.default_rng(seed)
        space = getattr(self.base, "single_action_space", self.base.action_space)
        self.space = space
        self.masked = hasattr(self.base, "action_masks")
        self.sub_envs = [e.unwrapped for e in getattr(self.base, "envs", [])]  # SyncVectorEnv
        if self.sub_envs and hasattr(self.sub_envs[0], "action_masks"):
            self.masked = True
        self.streams = np.zeros(n, dtype=np.uint64)
        seed_streams(self.streams, np.arange(seed, seed + n, dtype=np.uint64))
        self.actions = np.zeros(n, dtype=np.int64)

    def batch(self, info: dict[str, Any] | None = None) -> np.ndarray:
        """Actions for the batch; ``info`` is the last step's, whose ``"action_mask"`` (when
        the env reports one) saves asking the env for the mask again, as a user would."""
        if self.masked:
            if info is not None and "action_mask" in info:
                masks = np.asarray(info["action_mask"]).reshape(self.n, -1)
            elif self.sub_envs:
                masks = np.stack([e.action_masks() for e in self.sub_envs])
            else:
                masks = np.asarray(self.base.action_masks()).reshape(self.n, -1)
            masked_choice(masks, self.streams, self.actions)
            return self.actions.copy()
        if isinstance(self.space, spaces.Discrete):
            return self.rng.integers(0, int(self.space.n), size=self.n)
        nvec = self.space.nvec
        # A scalar bound is several times faster to draw from than an array of equal bounds.
        high = int(nvec.flat[0]) if (nvec == nvec.flat[0]).all() else nvec
        return self.rng.integers(0, high, size=(self.n, *self.space.shape))


def bench_single(env_id: str, seconds: float) -> BenchRow:
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    policy = RandomPolicy(env, 1, 0)
    steps = 0
    resets = 0
    reset_time = 0.0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(256):
            action = policy.batch(info)[0]
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                t0 = time.perf_counter()
                _, info = env.reset()
                reset_time += time.perf_counter() - t0
                resets += 1
    elapsed = time.perf_counter() - start
    reset_us = reset_time / resets * 1e6 if resets else None
    return BenchRow(env_id, "gymnasium.make (single)", steps / elapsed, reset_us)


def bench_vector(env_id: str, seconds: float, n: int, mode: str) -> BenchRow:
    env = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode)
    _, info = env.reset(seed=0)
    policy = RandomPolicy(env, n, 0)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(16):
            _, _, _, _, info = env.step(policy.batch(info))
            steps += n
    elapsed = time.perf_counter() - start
    reset_us = None
    if mode == "vector_entry_point":
        t0 = time.perf_counter()
        repeats = max(1, 20_000 // n)
        for _ in range(repeats):
            env.unwrapped.batch.reset_all()
        reset_us = (time.perf_counter() - t0) / (repeats * n) * 1e6
    env.close()
    label = f"SyncVectorEnv x{n}" if mode == "sync" else f"native vector N={n}"
    return BenchRow(env_id, label, steps / elapsed, reset_us)


def warm_up(env_id: str) -> None:
    """Compiles (or loads from cache) every kernel before anything is timed."""
    env = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    _, info = env.reset(seed=0)
    policy = RandomPolicy(env, 2, 0)
    for _ in range(50):
        _, _, _, _, info = env.step(policy.batch(info))


def _measured(run: Any, *args: Any) -> BenchRow:
    # Each configuration starts clean: envs of earlier ones (Gymnasium envs hold reference
    # cycles) are collected first, so their large arrays do not linger into this measurement.
    gc.collect()
    return run(*args)


def run_bench(env_ids: list[str], seconds: float, sizes: tuple[int, ...]) -> list[BenchRow]:
    rows: list[BenchRow] = []
    for env_id in env_ids:
        warm_up(env_id)
        env_rows = [
            _measured(bench_single, env_id, seconds),
            _measured(bench_vector, env_id, seconds, 8, "sync"),
        ]
        env_rows += [
            _measured(bench_vector, env_id, seconds, n, "vector_entry_point") for n in sizes
        ]
        sync = env_rows[1].steps_per_second
        for row in env_rows:
            row.ratio_to_sync = row.steps_per_second / sync
        rows += env_rows
    return rows


def format_table(rows: list[BenchRow]) -> str:
    head = f"{'env':<36} {'configuration':<26} {'steps/s':>14} {'x Sync':>8} {'reset us':>9}"
    lines = [head, "-" * len(head)]
    for row in rows:
        reset = f"{row.reset_us:9.2f}" if row.reset_us is not None else f"{'':>9}"
        lines.append(
            f"{row.env_id:<36} {row.config:<26} {row.steps_per_second:>14,.0f} "
            f"{row.ratio_to_sync:>8.1f} {reset}"
        )
    return "\n".join(lines)


def main_for(*env_ids: str, seconds: float = 1.0) -> None:
    """The ``python -m hiddengrid.envs.<env>.bench`` speed check: ``hiddengrid bench`` for
    these ids (a benchmark to read, never a timed test)."""
    print(format_table(run_bench(list(env_ids), seconds, (1, 64, 4096))))
