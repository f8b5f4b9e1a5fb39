"""Threads: a vector env gives the same results bit for bit on any number of threads.

Differential tests: the same seeds, scenarios and actions through a one-thread env (the serial
kernels) and a multi-thread env (their ``parallel=True`` row drivers, which run the serial
kernel on each thread's rows), compared step by step:
observations, rewards, flags, infos, and at the end every array of the batch.
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import subprocess
import sys
from typing import Any

import numba
import numpy as np
import pytest
from helpers import COMPILE_COUNTER, make_vec, random_actions

from hiddengrid.core import kernel
from hiddengrid.core.vector_env import copy_observation, copy_rows
from hiddengrid.registry import ENV_IDS, definition_of


def threaded(env_id: str) -> bool:
    """Whether the env's batch loop is written ``for i in prange(...)`` (an env whose loop is
    still a ``range`` runs serially on any thread count; it joins these tests once it has one)."""
    return "prange(" in inspect.getsource(definition_of(env_id).step_all.py_func)


@numba.njit(cache=True)
def _mark_rows(rows: np.ndarray, table: np.ndarray, seen: np.ndarray) -> None:
    for i in range(rows.shape[0]):
        rows[i] += 1
        seen[i] = table.sum()


THREADED_IDS = [env_id for env_id in ENV_IDS if threaded(env_id)]
POOL = numba.config.NUMBA_NUM_THREADS
# Every thread count the pool allows, up to 3: with 37 sub-envs the chunks are uneven.
THREAD_COUNTS = [t for t in (2, 3) if t <= POOL]
N = 37
STEPS = 90  # every env ends episodes (and so autoresets) well within this


def plain(value: Any) -> Any:
    """Infos and observations as nested lists, for exact comparison (object arrays too)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [plain(x) for x in value] if value.dtype == object else value.tolist()
    if isinstance(value, list | tuple):
        return [plain(x) for x in value]
    return value


def run(env_id: str, threads: int, seed: int, scenarios: list[dict] | None = None) -> list:
    venv = make_vec(env_id, N, num_threads=threads)
    assert venv.unwrapped.num_threads == threads
    rng = np.random.default_rng(seed)
    options = None if scenarios is None else {"scenario": scenarios}
    obs, info = venv.reset(seed=seed, options=options)
    out: list[Any] = [plain(obs), plain(info)]
    for _ in range(STEPS):
        obs, reward, term, trunc, info = venv.step(random_actions(venv, rng))
        out.append([plain(obs), reward.tolist(), term.tolist(), trunc.tolist(), plain(info)])
    obs, info = venv.reset()  # a reset of the whole batch on the threads
    out.append([plain(obs), plain(info)])
    out.append({k: v.tolist() for k, v in venv.unwrapped.batch.snapshot().items()})
    return out


def ends(trace: list) -> int:
    return sum(sum(step[2]) for step in trace[2:-2])


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
@pytest.mark.parametrize("env_id", THREADED_IDS)
def test_same_results_on_any_thread_count(env_id: str) -> None:
    serial = run(env_id, 1, seed=11)
    assert ends(serial) > N  # autoreset was exercised, many times
    for threads in THREAD_COUNTS:
        assert run(env_id, threads, seed=11) == serial, f"{threads} threads differ"
    step_all = definition_of(env_id).step_all
    # The step's driver, which also copies each thread's observation rows.
    driver = kernel.row_driver(step_all, then=copy_rows)
    assert driver.targetoptions["parallel"] and driver.signatures  # the parallel code really ran
    # The threads ran the serial kernel's own machine code on row slices: one compilation.
    assert len(step_all.signatures) == 1


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
@pytest.mark.parametrize("env_id", THREADED_IDS)
def test_scenario_replay_on_threads(env_id: str) -> None:
    source = make_vec(env_id, N, num_threads=1)
    source.reset(seed=5)
    scenarios = [source.unwrapped.get_scenario(i) for i in range(N)]
    serial = run(env_id, 1, seed=2, scenarios=scenarios)
    for threads in THREAD_COUNTS:
        assert run(env_id, threads, seed=2, scenarios=scenarios) == serial


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
def test_two_envs_with_their_own_thread_counts_interleaved() -> None:
    env_id = THREADED_IDS[0]
    one = make_vec(env_id, N, num_threads=1)
    many = make_vec(env_id, N, num_threads=THREAD_COUNTS[-1])
    reference = make_vec(env_id, N, num_threads=1)
    for venv in (one, many, reference):
        venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = random_actions(one, rng)
        a = one.step(actions)
        b = many.step(actions)
        assert numba.get_num_threads() == THREAD_COUNTS[-1]  # set for this call
        c = reference.step(actions)
        assert plain(a) == plain(b) == plain(c)


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
@pytest.mark.parametrize("env_id", THREADED_IDS)
def test_observation_copied_on_threads_is_the_serial_copy(env_id: str) -> None:
    """A large observation is copied on the env's threads (rows cut per thread): the same
    observations as the serial copy, step by step, also after a pickle round trip."""
    threads = THREAD_COUNTS[-1]
    serial = make_vec(env_id, N, num_threads=threads)
    parallel = make_vec(env_id, N, num_threads=threads)
    parallel.unwrapped._obs_threads = threads  # as for a block of several megabytes
    assert serial.unwrapped._obs_threads == 1  # a small block is copied serially
    rng = np.random.default_rng(4)
    assert plain(serial.reset(seed=8)) == plain(parallel.reset(seed=8))
    for k in range(40):
        if k == 20:
            parallel = pickle.loads(pickle.dumps(parallel))
        actions = random_actions(serial, rng)
        a, b = serial.step(actions), parallel.step(actions)
        assert plain(a) == plain(b)
        # Each step's observation is its own memory, not a view of the env's state.
        for value in b[0].values():
            assert not np.shares_memory(value, parallel.unwrapped.batch.rng)
            assert all(
                not np.shares_memory(value, f) for f in parallel.unwrapped.batch.fields.values()
            )
    twin = kernel.parallel_twin(copy_observation)
    assert twin.targetoptions["parallel"] and twin.signatures  # the parallel copy really ran


def test_default_thread_count_follows_the_batch_size() -> None:
    share = kernel.ENVS_PER_THREAD
    cores = kernel.max_threads()
    assert 1 <= cores <= POOL
    assert kernel.resolve_num_threads(None, 1) == 1
    assert kernel.resolve_num_threads(None, 2 * share - 1) == 1
    assert kernel.resolve_num_threads(None, 2 * share) == min(2, cores)
    assert kernel.resolve_num_threads(None, 10**6) == cores
    for n in (1, 100, 1000, 5000, 10**5):
        threads = kernel.resolve_num_threads(None, n)
        assert threads == 1 or n // threads >= share
    assert make_vec(THREADED_IDS[0], 4).unwrapped.num_threads == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, POOL + 1])
def test_bad_thread_count_is_refused_in_one_line(bad: object) -> None:
    with pytest.raises(ValueError, match=r"num_threads must be None or an int from 1 to") as err:
        make_vec(THREADED_IDS[0], 4, num_threads=bad)
    assert "\n" not in str(err.value)


def test_parallel_twin_is_cached_apart_from_the_serial_kernel() -> None:
    step_all = definition_of(THREADED_IDS[0]).step_all
    twin = kernel.parallel_twin(step_all)
    assert kernel.parallel_twin(step_all) is twin
    # Numba's disk cache keys by qualified name, not by flags: the twin needs its own name.
    assert twin.py_func.__qualname__ == step_all.py_func.__qualname__ + "__parallel"
    assert twin.py_func.__code__ is step_all.py_func.__code__


def test_row_driver_is_cached_apart_from_the_serial_kernel() -> None:
    step_all = definition_of(THREADED_IDS[0]).step_all
    driver = kernel.row_driver(step_all)
    assert kernel.row_driver(step_all) is driver
    # Its own name (Numba's disk cache keys by name), under the kernel's file and line, so an
    # edit to the kernel's file invalidates both cache entries.
    assert driver.py_func.__qualname__ == step_all.py_func.__qualname__ + "__rows"
    assert driver.py_func.__code__.co_filename == step_all.py_func.__code__.co_filename
    assert driver.py_func.__code__.co_firstlineno == step_all.py_func.__code__.co_firstlineno
    assert driver.targetoptions["parallel"] and not step_all.targetoptions.get("parallel")
    whole = kernel.row_driver(step_all, whole=(0,))
    assert whole is not driver and whole.py_func.__qualname__.endswith("__rows_0")


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
def test_row_driver_cuts_rows_and_passes_whole_arguments() -> None:
    """Every row of a sliced argument is visited once, by the thread whose run holds it; an
    argument passed whole reaches every call unsliced."""
    n = 23
    rows = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.int64)
    table = np.arange(5, dtype=np.int64)
    for threads in THREAD_COUNTS:
        rows[:] = 0
        seen[:] = 0
        kernel.run_rows(threads, _mark_rows, rows, table, seen, whole=(1,))
        assert rows.tolist() == [1] * n  # each row once
        assert seen.tolist() == [int(table.sum())] * n  # the whole table in every run


def agent_actions(env_id: str, agent_name: str, threads: int) -> list:
    venv = make_vec(env_id, N, num_threads=threads)
    agent = definition_of(env_id).agents[agent_name](venv.unwrapped, seed=4)
    assert agent.num_threads == threads
    obs, _ = venv.reset(seed=8)
    starts = np.ones(N, dtype=np.bool_)
    ended_last = np.zeros(N, dtype=np.bool_)
    out = []
    for _ in range(STEPS):
        actions = agent.act(obs, starts)
        out.append(actions.tolist())
        obs, reward, term, trunc, _ = venv.step(actions)
        agent.observe(reward, term, trunc)
        # Next-step autoreset: the observation after an end's step is a first one.
        starts = ended_last
        ended_last = term | trunc
    return out


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
@pytest.mark.parametrize(
    ("env_id", "agent_name"),
    [(e, a) for e in THREADED_IDS for a in definition_of(e).agents],
)
def test_agents_act_the_same_on_any_thread_count(env_id: str, agent_name: str) -> None:
    serial = agent_actions(env_id, agent_name, 1)
    for threads in THREAD_COUNTS:
        assert agent_actions(env_id, agent_name, threads) == serial


def test_the_batch_loops_are_parallel() -> None:
    for name in ("AnomalyMapping", "FieldCipher", "InvertedTreasure", "SquadRecon"):
        assert threaded(f"hiddengrid/{name}-v0")
        assert "prange(" in inspect.getsource(definition_of(f"hiddengrid/{name}-v0").reset_done)


@pytest.mark.parametrize("preset", [None, "active"])
def test_thread_pool_start_leaves_the_environment_as_it_was(preset: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k not in kernel.WAIT_SETTINGS}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    code = (
        "import os, numba; from hiddengrid.core import kernel; kernel.start_thread_pool(); "
        "print(numba.threading_layer() in ('omp', 'tbb', 'workqueue'), "
        "os.environ.get('OMP_WAIT_POLICY'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", str(preset)]


def test_agents_run_in_a_fresh_process_on_one_thread() -> None:
    """Agents with thread scratch call ``get_thread_id()`` even on one thread; in a process
    where no parallel code has run, that needs Numba's pool started (it crashed before)."""
    code = (
        "import numpy as np, gymnasium as gym, hiddengrid\n"
        "from hiddengrid.registry import definition_of\n"
        f"for env_id in {THREADED_IDS!r}:\n"
        "    venv = gym.make_vec(env_id, num_envs=1, vectorization_mode='vector_entry_point')\n"
        "    obs, _ = venv.reset(seed=1)\n"
        "    for name, cls in definition_of(env_id).agents.items():\n"
        "        agent = cls(venv.unwrapped, seed=0)\n"
        "        agent.act(obs, np.ones(1, dtype=bool))\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["ok"], out.stderr[-2000:]


@pytest.mark.parametrize(
    ("env_id", "share"),
    [("hiddengrid/FieldCipher-v0", 32768), ("hiddengrid/InvertedTreasure-Scout-v0", 8192)],
)
def test_cheap_envs_take_a_larger_share_per_thread_by_default(env_id: str, share: int) -> None:
    """Where a sub-env step costs a few tens of ns, a second thread loses below a large batch:
    the default stays on one thread there, and an explicit count is still obeyed."""
    assert definition_of(env_id).envs_per_thread == share
    assert make_vec(env_id, 4096).unwrapped.num_threads == 1
    assert make_vec(env_id, 2 * share - 1).unwrapped.num_threads == 1
    assert make_vec(env_id, 2 * share).unwrapped.num_threads == min(2, kernel.max_threads())
    assert make_vec(env_id, 4096, num_threads=2).unwrapped.num_threads == min(2, POOL)


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
def test_then_runs_after_the_kernel_on_each_run_of_rows() -> None:
    """``then(lo, hi, ...)`` sees each thread's rows right after the kernel stepped them: every
    row once, already written by the kernel; on one thread, once over all rows."""
    n = 23
    for threads in [1, *THREAD_COUNTS]:
        rows = np.zeros(n, dtype=np.int64)
        seen = np.zeros(n, dtype=np.int64)
        table = np.arange(5, dtype=np.int64)
        copied = np.full(n, -1, dtype=np.int64)
        kernel.run_rows(
            threads,
            _mark_rows,
            rows,
            table,
            seen,
            whole=(1,),
            then=_copy_after,
            then_args=(rows, copied),
        )
        assert copied.tolist() == [1] * n


@numba.njit(cache=True)
def _copy_after(lo: int, hi: int, rows: np.ndarray, copied: np.ndarray) -> None:
    for i in range(lo, hi):
        copied[i] = rows[i]


KERNEL_MODULE = """
import numba, numpy as np
@numba.njit(cache=True, _nrt=False)
def bump(rows, out):
    for i in range(rows.shape[0]):
        out[i] = rows[i] * 2 + 1
"""

DRIVER_RUN = (
    COMPILE_COUNTER
    + """
import numpy as np
sys.path.insert(0, sys.argv[1])
from hiddengrid.core import kernel
import tiny_kernel
rows = np.arange(11, dtype=np.int64)
out = np.zeros(11, dtype=np.int64)
kernel.run_rows(2, tiny_kernel.bump, rows, out)
alone = None
if compiled:  # compiled here, so its code can be read: does it define any of the kernel's?
    driver = kernel.row_driver(tiny_kernel.bump)
    lines = driver.inspect_llvm(driver.signatures[0]).splitlines()
    defined = [x for x in lines if x.startswith("define") and "bump" in x]
    declared = [x for x in lines if x.startswith("declare") and "hiddengrid.rows." in x]
    alone = all("bump__rows" in x for x in defined) and len(declared) == 1
print(json.dumps([out.tolist(), compiled, alone]))
"""
)


@pytest.mark.skipif(not THREAD_COUNTS, reason="Numba's thread pool has a single thread")
def test_a_driver_from_the_disk_cache_finds_its_kernel(tmp_path) -> None:
    """The driver calls the kernel's own machine code by a symbol it only declares (its module
    defines none of the kernel's code: linking it in would optimize the kernel a second time);
    a fresh process loads the driver and the kernel from Numba's disk cache, compiles nothing,
    and the driver's call reaches the kernel's code (bound by name at load)."""
    (tmp_path / "tiny_kernel.py").write_text(KERNEL_MODULE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", DRIVER_RUN, str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(json.loads(out.stdout.splitlines()[-1]))
    expected = [2 * i + 1 for i in range(11)]
    assert runs[0][0] == runs[1][0] == expected
    assert sorted(runs[0][1]) == ["bump", "bump__rows"]  # the first compiles both
    assert runs[0][2] is True  # and the driver holds no copy of the kernel
    assert runs[1][1] == []  # the second loads both
