"""Compilation: what ``hiddengrid compile`` warms, and that evaluation compiles before it runs.

The checks are timing-free: a fresh process counts Numba's compile events (one is raised only
when a function is compiled, never when it is loaded from the disk cache) and the cache files
are compared before and after it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import COMPILE_COUNTER

import hiddengrid
from hiddengrid.bench import BenchRow, format_table, scaling_table
from hiddengrid.evaluate import eval_threads, prepare

CHEAP_ID = "hiddengrid/InvertedTreasure-v0"  # the quickest env to compile from nothing
# A masked env: on several threads its step copies the observation and the action mask in the
# row driver (``then=copy_rows``), its random agent draws among the legal actions.
MASKED_ID = "hiddengrid/Megacity-v0"
PACKAGE = Path(hiddengrid.__file__).parent

# Counts compile events in a fresh process while it does what a training or evaluation worker
# does; prints them as JSON (function names) on its last line.
WORKER = (
    COMPILE_COUNTER
    + """
import numpy as np, gymnasium as gym
import hiddengrid
from hiddengrid.core.flat import FlatVectorEnv
from hiddengrid.evaluate import run_episodes
from hiddengrid.registry import definition_of
env_id = sys.argv[1]
for threads in (1, 2):
    for mode in ("NextStep", "SameStep"):
        venv = FlatVectorEnv(gym.make_vec(env_id, num_envs=1024, num_threads=threads,
                             vectorization_mode="vector_entry_point", autoreset_mode=mode))
        venv.reset(seed=0)
        agent = definition_of(env_id).agents["random"](venv.unwrapped, seed=1)
        obs = None
        for _ in range(40):
            venv.step(agent.act(obs, np.zeros(1024, dtype=bool)))
for name in definition_of(env_id).agents:
    run_episodes(env_id, name, 600, batch_size=600, env_kwargs={"num_threads": 2})
single = gym.make(env_id)
single.reset(seed=0)
if "train" in sys.argv[2:]:
    # A training run with the trainer's defaults but for its size: its vector env (one thread
    # for 256 sub-envs or fewer), the flat encoder, the masks, the reference agents' scores.
    import os, tempfile
    from hiddengrid.train import train
    with tempfile.TemporaryDirectory() as out:
        train(env_id, out_dir=os.path.join(out, "run"), progress=False, reference_episodes=64,
              total_steps=2 * 64 * 8, num_envs=64, rollout=8, epochs=1, minibatches=1,
              device="cpu")
print(json.dumps(compiled))
"""
)


def cache_files(root: Path) -> dict[str, tuple[int, int]]:
    """Numba's index and data files under ``root``: name -> (size, modification time)."""
    out = {}
    for path in root.rglob("*.nb[ic]"):
        stat = path.stat()
        out[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return out


def env_cache(env_id: str) -> dict[str, tuple[int, int]]:
    """The cache files of the env's own package (beside its sources, or under
    ``NUMBA_CACHE_DIR``): what no other test compiles into."""
    package = env_id.split("/")[1].split("-")[0]
    folder = "".join("_" + c.lower() if c.isupper() else c for c in package).lstrip("_")
    roots = [PACKAGE / "envs" / folder]
    if os.environ.get("NUMBA_CACHE_DIR"):
        roots.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    files: dict[str, tuple[int, int]] = {}
    for root in roots:
        files.update({k: v for k, v in cache_files(root).items() if folder in k})
    return files


def warm_then_work(env_id: str, *worker_args: str) -> dict[str, tuple[int, int]]:
    """Runs ``hiddengrid compile --env env_id``, then :data:`WORKER` in a fresh process; checks
    that the worker compiled nothing and left the env's cache files as they were, and returns
    those files."""
    warm = subprocess.run(
        [sys.executable, "-m", "hiddengrid", "compile", "--env", env_id],
        capture_output=True,
        text=True,
    )
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert f"[1/1] {env_id}: ready" in warm.stdout
    assert f"{env_id}: vector env on several threads" in warm.stdout
    before = env_cache(env_id)
    assert any(name.endswith(".nbi") for name in before)
    worker = subprocess.run(
        [sys.executable, "-c", WORKER, env_id, *worker_args], capture_output=True, text=True
    )
    assert worker.returncode == 0, worker.stderr[-2000:]
    assert json.loads(worker.stdout.splitlines()[-1]) == []
    assert env_cache(env_id) == before
    return before


def test_compile_leaves_nothing_for_a_fresh_worker() -> None:
    """After ``hiddengrid compile``, a fresh process that steps the vector env on one thread
    and on several, in both autoreset modes, through the flat encoder, and evaluates every
    agent on a large batch, compiles nothing and writes no cache file."""
    warm_then_work(CHEAP_ID)


def test_compile_leaves_nothing_for_a_masked_env_or_a_training_run() -> None:
    """The same for a masked env, whose multi-thread step copies the observation and the action
    mask in its row driver, and for a short training run on it (the trainer's vector env,
    encoder and reference agents): the copying driver's cache entry is there before the worker
    and untouched after it."""
    files = warm_then_work(MASKED_ID, "train")
    copying = [name for name in files if "step_all__rows__then_copy_rows" in name]
    assert any(name.endswith(".nbi") for name in copying)
    assert any(name.endswith(".nbc") for name in copying)


def test_prepare_compiles_what_the_evaluation_runs() -> None:
    """After ``prepare`` for an evaluation of 1,200 episodes (its batches on the same thread
    count as a batch of 1,200), running that evaluation compiles nothing more in the same
    process: every kernel was compiled once, before the run."""
    code = (
        "import json, sys\n"
        "from numba.core import event\n"
        "from hiddengrid.evaluate import prepare, run_episodes\n"
        "from hiddengrid.registry import definition_of\n"
        "env_id = sys.argv[1]\n"
        "agents = list(definition_of(env_id).agents)\n"
        "prepare(env_id, agents, episodes=1200, batch_size=1200)\n"
        "compiled = []\n"
        "class Count(event.Listener):\n"
        "    def on_start(self, ev):\n"
        "        compiled.append(ev.data['dispatcher'].py_func.__qualname__)\n"
        "    def on_end(self, ev):\n"
        "        pass\n"
        "event.register('numba:compile', Count())\n"
        "for name in agents:\n"
        "    run_episodes(env_id, name, 1200, batch_size=1200)\n"
        "print(json.dumps(compiled))\n"
    )
    env_id = "hiddengrid/AnomalyMapping-v0"  # 1,200 sub-envs run on two threads by default
    out = subprocess.run([sys.executable, "-c", code, env_id], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_prepare_names_what_compiles_with_a_line_per_agent(monkeypatch) -> None:
    import hiddengrid.evaluate as evaluate

    monkeypatch.setattr(evaluate, "kernels_cached", lambda env_id, threads=1: False)
    lines: list[str] = []
    agents = ["random", "heuristic"]
    prepare(CHEAP_ID, agents, say=lines.append, episodes=64, batch_size=64)
    threads = eval_threads(CHEAP_ID, 64, 64)
    where = "one thread" if threads == 1 else f"{threads} threads"
    assert lines[0].startswith(f"{CHEAP_ID}: compiling its kernels for {where}")
    assert "random, heuristic" in lines[0] and "Numba's cache" in lines[0]
    assert lines[1].startswith("  [1/2] random: ") and lines[2].startswith("  [2/2] heuristic: ")
    assert lines[3].startswith(f"{CHEAP_ID}: compiled in ") and len(lines) == 4


def test_prepare_is_silent_when_cached() -> None:
    lines: list[str] = []
    prepare(CHEAP_ID, ["random"], say=lines.append, episodes=8, batch_size=8)  # fills the cache
    lines.clear()
    prepare(CHEAP_ID, ["random"], say=lines.append, episodes=8, batch_size=8)
    assert lines == []


def test_eval_threads_follow_the_first_batch() -> None:
    env_id = "hiddengrid/AnomalyMapping-v0"
    assert eval_threads(env_id, 1, 4096) == 1
    assert eval_threads(env_id, 10_000, 1) == 1
    assert eval_threads(env_id, 10_000, 4096) == eval_threads(env_id, 4096, 10**6)
    assert eval_threads(env_id, 10_000, 4096, {"num_threads": 1}) == 1


def row(env: str, n: int, threads: int, ratio: float) -> BenchRow:
    return BenchRow(
        env, f"threads N={n}", 1000.0 * ratio, num_threads=threads, ratio_to_one_thread=ratio
    )


def test_scaling_table_has_a_column_per_thread_count() -> None:
    rows = [
        row("A", 4096, 1, 1.0),
        row("A", 4096, 2, 1.9),
        row("A", 4096, 4, 3.5),
        row("A", 65536, 1, 1.0),
        row("A", 65536, 2, 1.95),
        row("A", 65536, 4, 3.9),
    ]
    lines = scaling_table(rows)
    assert lines[1].split()[-7:] == ["N", "1", "thr", "2", "thr", "4", "thr"]
    assert lines[3].split() == ["A", "4096", "1.00", "1.90", "3.50"]
    assert lines[4].split() == ["A", "65536", "1.00", "1.95", "3.90"]
    for r in rows:
        r.ratio_to_sync = 1.0
    assert "\n".join(lines) in format_table(rows)


def test_no_scaling_table_for_one_against_all() -> None:
    assert scaling_table([row("A", 4096, 1, 1.0), row("A", 4096, 2, 1.5)]) == []
