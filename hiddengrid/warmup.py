"""``hiddengrid compile``: fills Numba's on-disk cache before any real work.

Every kernel is compiled with ``cache=True``; the first process to call one compiles it (minutes
for all envs) and later processes load it from the cache in a fraction of a second. Fresh RLlib
or Ray workers on an empty cache would each compile at once and can time out; running this once
per machine (or image) first avoids that.

What a process can call, and so what is warmed here, per env: the single env (step, reset,
scenario replay), the vector env's kernels on one thread and their multi-thread row drivers
(any batch size and any thread count above one run the same compiled code, so a batch of four
on two threads warms a batch of 65,536 on 64), the observation copy made on the threads (for
blocks of 4 MiB and more), every agent of the env on one thread and on several, and the flat
observation encoder of the trainer and the library adapters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numba
import numpy as np
from gymnasium.vector import AutoresetMode

from hiddengrid.bench import SingleRun
from hiddengrid.core.flat import FlatEncoder
from hiddengrid.evaluate import run_episodes
from hiddengrid.registry import ENV_IDS, definition_of

WARM_ENVS = 4  # sub-envs of the warming batches: enough for one row each on two threads


def warm_thread_counts() -> tuple[int, ...]:
    """One thread (the serial kernels) and, where Numba's pool has a second thread, two (the
    parallel code, the same for every count above one)."""
    return (1, 2) if numba.config.NUMBA_NUM_THREADS >= 2 else (1,)


def warm_env(
    env_id: str, steps: int = 64, report: Callable[[str], None] | None = None
) -> list[str]:
    """Runs every compiled path of one env (see the module's doc); returns what it ran, one
    line each, and hands each line to ``report`` as it finishes."""
    done: list[str] = []

    def finished(what: str) -> None:
        done.append(what)
        if report is not None:
            report(what)

    single = gym.make(env_id)
    obs, _ = single.reset(seed=0)
    single.reset(options={"scenario": single.unwrapped.scenario})
    encoder = FlatEncoder(single.observation_space)
    encoder.encode(obs)
    single.close()
    SingleRun(env_id).measure(0.001)  # 256 steps and their resets under a random (masked) policy
    finished("single env")
    for threads in warm_thread_counts():
        for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            venv = gym.make_vec(
                env_id,
                num_envs=WARM_ENVS,
                vectorization_mode="vector_entry_point",
                autoreset_mode=mode,
                num_threads=threads,
            )
            # As a block of 4 MiB or more would be: copied on the env's threads.
            venv.unwrapped._obs_threads = threads
            obs, _ = venv.reset(seed=0)
            encoder.encode(obs, WARM_ENVS)
            agent = definition_of(env_id).agents["random"](venv.unwrapped, seed=0)
            starts = np.ones(WARM_ENVS, dtype=bool)
            for _ in range(steps):
                obs, *_ = venv.step(agent.act(obs, starts))
            # A bare batch step, as PufferLib's adapter makes it: on several threads a driver of
            # its own (the vector env's step also copies the observation on the threads).
            venv.unwrapped.batch.step(agent.act(obs, starts))
            venv.close()
        finished(f"vector env on {_threads(threads)}")
    for name in definition_of(env_id).agents:
        for threads in warm_thread_counts():
            run_episodes(
                env_id, name, WARM_ENVS, batch_size=WARM_ENVS, env_kwargs={"num_threads": threads}
            )
        finished(f"agent {name}")
    return done


def _threads(count: int) -> str:
    return "one thread" if count == 1 else "several threads"


def warm_all(env_ids: Sequence[str] = ENV_IDS, report: Callable[[str], None] | None = None) -> None:
    for env_id in env_ids:
        warm_env(env_id)
        if report is not None:
            report(env_id)
