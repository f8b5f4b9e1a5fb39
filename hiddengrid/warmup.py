"""``hiddengrid compile``: fills Numba's on-disk cache before any real work.

Every kernel is compiled with ``cache=True``; the first process to call one compiles it (that
costs minutes for all envs) and later processes load it from the cache in a fraction of a
second. Fresh RLlib or Ray workers on an empty cache would each compile at once and can time
out; running this once per machine (or image) first avoids that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from hiddengrid.evaluate import run_episodes
from hiddengrid.registry import ENV_IDS, definition_of


def warm_env(env_id: str, steps: int = 64) -> None:
    """Runs every compiled path of one env: single env, vector env in each autoreset mode
    (with an end and its reset), scenario replay, and one episode of every agent."""
    single = gym.make(env_id)
    single.reset(seed=0)
    single.reset(options={"scenario": single.unwrapped.scenario})
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        venv = gym.make_vec(
            env_id, num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode=mode
        )
        venv.reset(seed=0)
        agent = definition_of(env_id).agents["random"](venv.unwrapped, seed=0)
        starts = np.ones(2, dtype=bool)
        obs = None
        for _ in range(steps):
            obs, *_ = venv.step(agent.act(obs, starts))
        venv.close()
    for name in definition_of(env_id).agents:
        run_episodes(env_id, name, 2, batch_size=2)


def warm_all(env_ids: Sequence[str] = ENV_IDS, report: Callable[[str], None] | None = None) -> None:
    for env_id in env_ids:
        warm_env(env_id)
        if report is not None:
            report(env_id)
