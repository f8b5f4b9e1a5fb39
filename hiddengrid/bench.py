"""Throughput of every env under one random-action policy, measured in one process.

Each configuration runs for a fixed wall-clock budget; the figures to quote are ratios measured
in the same run: to Gymnasium's ``SyncVectorEnv`` over the same single env, of the single env to
MiniGrid-Empty-8x8 (when ``minigrid`` is installed: the ``bench`` extra), of the native
vector env on every usable core to the same env on one thread, and, for AnomalyMapping only, of
the native vector env on one thread to a hand-written single-threaded C engine doing the same
work (:mod:`hiddengrid.bench_anchor`, built with the system C compiler; the row is skipped with
a one-line reason where there is none). Its "x C anchor" ratio is given twice, under the same
pre-drawn action batches: for the whole vector step (``env.step``: the action check, the kernel,
the observation copy, the info) and for the bare kernel call (``step_all`` on preallocated
arrays); above 1 the native side is faster.

Every configuration is measured in :data:`WINDOWS` short windows, and the figure given is the
median window with its spread ((highest - lowest) / median); a row whose spread exceeds
:data:`NOISY` is flagged, so a figure disturbed by other work on the machine says so instead of
standing as a single number. Ratios between two configurations come from windows taken in
turn, so that a change in the load does not favour one side, and are ratios of the medians.

The policy is :class:`RandomPolicy` for every env, MiniGrid included: a single env gets
actions drawn a block at a time (a few tens of ns each, far below any step here), except where
the env masks actions (Megacity): a masked action must be drawn from the mask the last step
reported, so it is drawn every step, by compiled code called directly (about 0.5 us, counted in
that env's step). ``action_space.sample()`` is not used: it measured 2 us per call for
MiniGrid's space and 19 us for Megacity's masked one, more than a whole step of most envs here.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.core.agents import masked_choice, uniform_choice
from hiddengrid.core.kernel import direct_entry, max_threads, run_rows
from hiddengrid.core.rng import seed_streams

MINIGRID_ID = "MiniGrid-Empty-8x8-v0"
ANCHOR_ENV_ID = "hiddengrid/AnomalyMapping-v0"  # the env with a C anchor
ANCHOR_TAPE = 64  # action batches pre-drawn for the C anchor comparison, cycled
WINDOWS = 5  # windows per configuration (taken in turn with its pair, if any)
NOISY = 0.2  # a row whose windows spread more than this (relative to the median) is flagged
ACTION_BLOCK = 256  # unmasked actions are drawn this many at a time
BOOL = np.dtype(np.bool_)


@dataclass
class BenchRow:
    env_id: str
    config: str
    steps_per_second: float
    reset_us: float | None = None
    ratio_to_sync: float | None = None
    num_threads: int | None = None
    ratio_to_minigrid: float | None = None
    ratio_to_one_thread: float | None = None
    ratio_to_c_anchor: float | None = None
    note: str | None = None  # why a row was skipped (steps_per_second is then 0)
    spread: float | None = None  # (highest - lowest window) / median window

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


class RandomPolicy:
    """Random legal actions for a batch, drawn from the env's own space (and mask).

    Batches are drawn by the compiled agents of :mod:`hiddengrid.core.agents` (one random stream
    per sub-env), as a fast user's policy would: a masked draw (a scan of each sub-env's mask)
    runs on the vector env's own thread count, an unmasked one (a few ns per sub-env, less than
    a parallel call's fixed cost even at 4,096 sub-envs) on one thread.
    """

    def __init__(self, env: Any, n: int, seed: int) -> None:
        self.base = env.unwrapped
        self.n = n
        self.rng = np.random.default_rng(seed)
        space = getattr(self.base, "single_action_space", self.base.action_space)
        self.space = space
        self.sub_envs = [e.unwrapped for e in getattr(self.base, "envs", [])]  # SyncVectorEnv
        # MiniGrid, the reference, is not ours and has no definition (and no mask)
        definition = getattr(self.sub_envs[0] if self.sub_envs else self.base, "definition", None)
        self.masked = definition is not None and definition.masked
        threads = 1 if self.sub_envs else int(getattr(self.base, "num_threads", 1))
        self.threads = threads if self.masked else 1
        self.streams = np.zeros(n, dtype=np.uint64)
        seed_streams(self.streams, np.arange(seed, seed + n, dtype=np.uint64))
        self.actions = np.zeros(n, dtype=np.int64)
        if isinstance(space, spaces.Discrete):
            self.sizes = np.array([int(space.n)], dtype=np.int64)
        else:
            self.sizes = np.asarray(space.nvec, dtype=np.int64).reshape(-1)
        self.drawn = np.zeros((n, self.sizes.size), dtype=np.int64)
        self.block: list[Any] = []
        self.mask_shape: tuple[int, ...] = ()
        self.draw_one: Any = None  # masked_choice's compiled entry for one (1, n) mask

    def batch(self, info: dict[str, Any] | None = None) -> np.ndarray:
        """Actions for the batch; ``info`` is the last step's, whose ``"action_mask"`` (when
        the env reports one) saves asking the env for the mask again, as a user would. The
        array is the policy's own buffer, overwritten by the next call (an env does not keep
        the actions it is handed)."""
        if self.masked:
            if info is not None and "action_mask" in info:
                masks = np.asarray(info["action_mask"]).reshape(self.n, -1)
            elif self.sub_envs:
                masks = np.stack([e.action_masks() for e in self.sub_envs])
            else:
                masks = np.asarray(self.base.action_masks()).reshape(self.n, -1)
            run_rows(self.threads, masked_choice, masks, self.streams, self.actions)
            return self.actions
        run_rows(self.threads, uniform_choice, self.sizes, self.streams, self.drawn, whole=(0,))
        if isinstance(self.space, spaces.Discrete):
            return self.drawn[:, 0]
        return self.drawn.reshape(self.n, *self.space.shape)

    def single(self, info: dict[str, Any] | None = None) -> Any:
        """One action for a single env, as a user's policy would hand it over: a Python int
        (a row of int64 for a multi-discrete space). Unmasked actions are drawn a block at a
        time, so that the policy's own cost stays small next to a step; a masked action is
        drawn from the last info's mask by the compiled masked draw called directly (no
        per-call type dispatch), since the mask changes every step."""
        if self.masked:
            mask = info.get("action_mask") if info is not None else None
            if (
                self.draw_one is None
                or type(mask) is not np.ndarray
                or mask.dtype is not BOOL
                or mask.shape != self.mask_shape
                or mask.strides != (1,)
            ):
                return int(self.batch(info)[0])
            self.draw_one(mask.reshape(1, -1), self.streams, self.actions)
            return self.actions.item(0)
        if not self.block:
            drawn = self.rng.integers(
                0, self.space.nvec if hasattr(self.space, "nvec") else int(self.space.n),
                size=(ACTION_BLOCK, *self.space.shape),
            )  # fmt: skip
            self.block = list(drawn) if drawn.ndim > 1 else drawn.tolist()
        return self.block.pop()

    def compile_single(self, info: dict[str, Any]) -> None:
        """Resolves the compiled masked draw for a single env's mask row (see :meth:`single`)."""
        mask = info.get("action_mask")
        if self.masked and isinstance(mask, np.ndarray) and mask.ndim == 1:
            self.mask_shape = mask.shape
            row = np.ascontiguousarray(mask, dtype=BOOL).reshape(1, -1)
            self.draw_one = direct_entry(masked_choice, row, self.streams, self.actions)


class SingleRun:
    """A ``gymnasium.make`` env stepped by :class:`RandomPolicy`, resetting when it ends."""

    def __init__(self, env_id: str) -> None:
        self.env = gym.make(env_id)
        _, self.info = self.env.reset(seed=0)
        self.policy = RandomPolicy(self.env, 1, 0)
        self.policy.compile_single(self.info)
        self.resets = 0
        self.reset_time = 0.0

    def measure(self, seconds: float) -> tuple[int, float]:
        env = self.env
        policy = self.policy
        info = self.info
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in range(256):
                _, _, terminated, truncated, info = env.step(policy.single(info))
                steps += 1
                if terminated or truncated:
                    t0 = time.perf_counter()
                    _, info = env.reset()
                    self.reset_time += time.perf_counter() - t0
                    self.resets += 1
        self.info = info
        return steps, time.perf_counter() - start


class VectorRun:
    """A vector env of ``n`` sub-envs stepped by :class:`RandomPolicy`."""

    def __init__(self, env_id: str, n: int, mode: str, **kwargs: Any) -> None:
        self.n = n
        self.env = gym.make_vec(env_id, num_envs=n, vectorization_mode=mode, **kwargs)
        _, self.info = self.env.reset(seed=0)
        self.policy = RandomPolicy(self.env, n, 0)

    def measure(self, seconds: float) -> tuple[int, float]:
        env = self.env
        policy = self.policy
        info = self.info
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in range(16):
                _, _, _, _, info = env.step(policy.batch(info))
                steps += self.n
        self.info = info
        return steps, time.perf_counter() - start


class Rate(float):
    """Steps per second (the median window), carrying the windows' relative ``spread``."""

    spread: float

    def __new__(cls, windows: list[float]) -> Rate:
        median = float(np.median(windows))
        rate = super().__new__(cls, median)
        rate.spread = (max(windows) - min(windows)) / median if median > 0 else 0.0
        return rate


def alternating_rates(runs: list[Any], seconds: float) -> list[Rate]:
    """Steps per second of each run over :data:`WINDOWS` windows taken in turn: its median
    window, with the windows' spread."""
    windows: list[list[float]] = [[] for _ in runs]
    window = seconds / WINDOWS
    for _ in range(WINDOWS):
        for k, run in enumerate(runs):
            steps, elapsed = run.measure(window)
            windows[k].append(steps / elapsed)
    return [Rate(w) for w in windows]


def bench_single(env_id: str, seconds: float, minigrid: SingleRun | None = None) -> BenchRow:
    run = SingleRun(env_id)
    if minigrid is None:
        (rate,) = alternating_rates([run], seconds)
        ratio = None
    else:
        rate, minigrid_rate = alternating_rates([run, minigrid], 2 * seconds)
        ratio = rate / minigrid_rate
    reset_us = run.reset_time / run.resets * 1e6 if run.resets else None
    return BenchRow(env_id, "gymnasium.make (single)", rate, reset_us, ratio_to_minigrid=ratio)


def bench_vector(env_id: str, seconds: float, n: int, mode: str) -> BenchRow:
    run = VectorRun(env_id, n, mode)
    threads = None if mode == "sync" else run.env.unwrapped.num_threads
    (rate,) = alternating_rates([run], seconds)
    reset_us = None
    if mode == "vector_entry_point":
        t0 = time.perf_counter()
        repeats = max(1, 20_000 // n)
        for _ in range(repeats):
            run.env.unwrapped.batch.reset_all()
        reset_us = (time.perf_counter() - t0) / (repeats * n) * 1e6
    run.env.close()
    label = f"SyncVectorEnv x{n}" if mode == "sync" else f"native vector N={n}"
    return BenchRow(env_id, label, rate, reset_us, num_threads=threads)


def bench_threads(
    env_id: str, seconds: float, n: int, threads: int | tuple[int, ...]
) -> list[BenchRow]:
    """The native vector env of ``n`` sub-envs on one thread and on each of ``threads`` (one
    count, or several for a scaling curve), alternating windows; each row's ``x 1 thread`` is
    its rate over the one-thread rate of the same run."""
    counts = (threads,) if isinstance(threads, int) else tuple(threads)
    counts = tuple(dict.fromkeys((1, *counts)))
    runs = [VectorRun(env_id, n, "vector_entry_point", num_threads=t) for t in counts]
    rates = alternating_rates(runs, seconds * len(counts))
    for run in runs:
        run.env.close()
    return [
        BenchRow(env_id, f"threads N={n}", rate, num_threads=t, ratio_to_one_thread=rate / rates[0])
        for t, rate in zip(counts, rates, strict=True)
    ]


def usable_thread_counts(counts: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``counts`` split into those this process can run on separate cores (at most
    :func:`max_threads`) and those it cannot (left out of a scaling table, with a note)."""
    cores = max_threads()
    kept = tuple(t for t in dict.fromkeys(counts) if 1 <= t <= cores)
    return kept, tuple(t for t in dict.fromkeys(counts) if t not in kept)


class TapeRun:
    """Steps a batch with ``step(actions)`` through a cycle of pre-drawn action batches (the
    same ones for every side of the C anchor comparison: no policy cost on either side)."""

    def __init__(self, step: Callable[[np.ndarray], Any], tape: list[np.ndarray]) -> None:
        self.step = step
        self.tape = tape
        self.k = 0

    def measure(self, seconds: float) -> tuple[int, float]:
        step = self.step
        tape = self.tape
        n = tape[0].shape[0]
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in range(16):
                step(tape[self.k])
                self.k = (self.k + 1) % len(tape)
                steps += n
        return steps, time.perf_counter() - start


def bench_c_anchor(env_id: str, seconds: float, n: int) -> list[BenchRow]:
    """The native vector env on one thread against the C anchor at ``n`` sub-envs, alternating:
    the whole ``env.step`` and the bare ``step_all`` kernel call, each as a ratio to the C step
    (one row skipped, with the reason, when the anchor cannot be built)."""
    from hiddengrid.bench_anchor import AnchorUnavailable, load_anomaly_mapping

    label = f"C anchor N={n}"
    try:
        engine = load_anomaly_mapping(n)
    except AnchorUnavailable as exc:
        return [BenchRow(env_id, label, 0.0, num_threads=1, note=f"skipped: {exc}")]
    env = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", num_threads=1)
    env.reset(seed=0)
    engine.reset(0)
    policy = RandomPolicy(env, n, 0)
    tape = [policy.batch().copy() for _ in range(ANCHOR_TAPE)]
    # The bare kernel steps its own batch, so that the env's episodes are not disturbed.
    kernel_env = gym.make_vec(
        env_id, num_envs=n, vectorization_mode="vector_entry_point", num_threads=1
    )
    kernel_env.reset(seed=0)
    batch = kernel_env.unwrapped.batch
    step_all = batch.definition.step_all
    args = batch._step_args

    def kernel_step(actions: np.ndarray) -> None:
        step_all(actions, *args)

    runs = [TapeRun(env.step, tape), TapeRun(kernel_step, tape), TapeRun(engine.step, tape)]
    whole, bare, c = alternating_rates(runs, 3 * seconds)
    env.close()
    kernel_env.close()
    return [
        BenchRow(env_id, label, c, num_threads=1, ratio_to_c_anchor=1.0),
        BenchRow(env_id, f"env.step N={n}", whole, num_threads=1, ratio_to_c_anchor=whole / c),
        BenchRow(env_id, f"step_all N={n}", bare, num_threads=1, ratio_to_c_anchor=bare / c),
    ]


def minigrid_run() -> SingleRun | None:
    """MiniGrid-Empty-8x8 through ``gymnasium.make``, or ``None`` when MiniGrid is absent."""
    try:
        import minigrid  # noqa: F401  (registers the MiniGrid ids)
    except ImportError:
        return None
    return SingleRun(MINIGRID_ID)


def warm_up(env_id: str) -> None:
    """Compiles (or loads from cache) every kernel, serial and parallel, before anything is
    timed."""
    for threads in {1, max_threads()}:
        env = gym.make_vec(
            env_id, num_envs=2, vectorization_mode="vector_entry_point", num_threads=threads
        )
        _, info = env.reset(seed=0)
        policy = RandomPolicy(env, 2, 0)
        for _ in range(50):
            _, _, _, _, info = env.step(policy.batch(info))
    SingleRun(env_id).measure(0.01)


def _measured(run: Callable[..., Any], *args: Any) -> Any:
    # Each configuration starts clean: envs of earlier ones (Gymnasium envs hold reference
    # cycles) are collected first, so their large arrays do not linger into this measurement.
    gc.collect()
    return run(*args)


def run_bench(
    env_ids: list[str],
    seconds: float,
    sizes: tuple[int, ...],
    threads_n: int = 4096,
    scaling: tuple[int, ...] = (),
    anchor_n: int = 4096,
    thread_counts: tuple[int, ...] = (),
) -> list[BenchRow]:
    """Rows per env: the single env (with its MiniGrid ratio), ``SyncVectorEnv`` x8, the
    native vector env at each of ``sizes`` (default thread count), then one thread against
    every usable core (or against each of ``thread_counts`` that this process has cores for:
    a scaling curve) at ``threads_n`` sub-envs (0 skips it) and at each of ``scaling``, then
    for AnomalyMapping the C anchor, ``env.step`` and ``step_all`` at ``anchor_n`` sub-envs
    on one thread (0 skips them)."""
    rows: list[BenchRow] = []
    minigrid = minigrid_run()
    if minigrid is not None:
        minigrid.measure(0.05)
    threads = max_threads()
    counts = usable_thread_counts(thread_counts)[0] if thread_counts else (threads,)
    for env_id in env_ids:
        warm_up(env_id)
        env_rows = [
            _measured(bench_single, env_id, seconds, minigrid),
            _measured(bench_vector, env_id, seconds, 8, "sync"),
        ]
        env_rows += [
            _measured(bench_vector, env_id, seconds, n, "vector_entry_point") for n in sizes
        ]
        if max(counts) > 1:
            for n in dict.fromkeys(((threads_n,) if threads_n else ()) + tuple(scaling)):
                env_rows += _measured(bench_threads, env_id, seconds, n, counts)
        if anchor_n and env_id == ANCHOR_ENV_ID:
            env_rows += _measured(bench_c_anchor, env_id, seconds, anchor_n)
        sync = env_rows[1].steps_per_second
        for row in env_rows:
            if row.note is None:
                row.ratio_to_sync = row.steps_per_second / sync
            row.spread = getattr(row.steps_per_second, "spread", None)
            row.steps_per_second = float(row.steps_per_second)  # plain in JSON
        rows += env_rows
    return rows


def _ratio(value: float | None, width: int) -> str:
    return f"{value:>{width}.2f}" if value is not None else f"{'':>{width}}"


def _spread(spread: float | None) -> str:
    """The windows' spread in percent, flagged when it is too wide to quote the median."""
    if spread is None:
        return f"{'':>7}"
    return f"{spread:>7.0%}" + (" noisy" if spread > NOISY else "")


def format_table(rows: list[BenchRow]) -> str:
    head = (
        f"{'env':<36} {'configuration':<26} {'threads':>7} {'steps/s':>14} {'x Sync':>8} "
        f"{'reset us':>9} {'x 1 thread':>10} {'x MiniGrid':>10} {'spread':>7}"
    )
    lines = [head, "-" * len(head)]
    anchor = []
    for row in rows:
        if row.note is not None:
            lines.append(f"{row.env_id:<36} {row.config:<26} {row.note}")
            continue
        if row.ratio_to_c_anchor is not None and not row.config.startswith("C anchor"):
            anchor.append(row)
        reset = f"{row.reset_us:9.2f}" if row.reset_us is not None else f"{'':>9}"
        threads = f"{row.num_threads:>7}" if row.num_threads is not None else f"{'':>7}"
        lines.append(
            f"{row.env_id:<36} {row.config:<26} {threads} {row.steps_per_second:>14,.0f} "
            f"{row.ratio_to_sync:>8.1f} {reset} {_ratio(row.ratio_to_one_thread, 10)} "
            f"{_ratio(row.ratio_to_minigrid, 10)} {_spread(row.spread)}"
        )
    for row in anchor:
        what = (
            "whole vector step (action check, kernel, observation copy, info)"
            if row.config.startswith("env.step")
            else "bare Numba kernel call (step_all, preallocated arrays)"
        )
        lines.append(
            f"x C anchor {row.ratio_to_c_anchor:.2f}: {row.env_id} {row.config}, one thread, "
            f"{what} / hand-written C step"
        )
    if any(row.spread is not None and row.spread > NOISY for row in rows):
        lines.append(
            f"noisy: the {WINDOWS} windows of a flagged row spread more than {NOISY:.0%} of "
            "their median (other work on the machine); rerun with more --seconds or on an idle "
            "machine before quoting it"
        )
    if max_threads() == 1:
        lines.append("threads: this process may use one core only; no threads comparison")
    lines += scaling_table(rows)
    if rows and all(row.ratio_to_minigrid is None for row in rows):
        lines.append(
            f"x MiniGrid: MiniGrid is not installed (pip install 'hiddengrid[bench]'); "
            f"no ratio to {MINIGRID_ID}"
        )
    return "\n".join(lines)


def scaling_table(rows: list[BenchRow]) -> list[str]:
    """The thread rows again as one line per env and batch size, one column per thread count
    (speed over one thread's, same run): empty unless some batch was run on three or more
    thread counts."""
    curves: dict[tuple[str, str], dict[int, float]] = {}
    for row in rows:
        if row.config.startswith("threads N=") and row.ratio_to_one_thread is not None:
            curves.setdefault((row.env_id, row.config), {})[row.num_threads or 1] = (
                row.ratio_to_one_thread
            )
    counts = sorted({t for curve in curves.values() for t in curve})
    if len(counts) < 3:
        return []
    head = f"{'thread scaling (x 1 thread)':<36} {'N':>8}" + "".join(
        f" {f'{t} thr':>7}" for t in counts
    )
    lines = ["", head, "-" * len(head)]
    for (env_id, config), curve in curves.items():
        cells = "".join(f" {curve[t]:>7.2f}" if t in curve else f" {'':>7}" for t in counts)
        lines.append(f"{env_id:<36} {config.split('=')[1]:>8}{cells}")
    return lines
