"""Seeded evaluation of an agent on the native vector env.

Episode ``k`` of an evaluation with seed ``S`` is exactly the first episode of a single env
reset with ``seed=S+k``, whatever the batch size: each sub-env plays one episode and the batch
stops when all have ended.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from hiddengrid.core.actions import is_int_scalar
from hiddengrid.core.kernel import resolve_num_threads, row_driver
from hiddengrid.core.rng import check_seed
from hiddengrid.core.vector_env import copy_rows
from hiddengrid.registry import definition_of


@dataclass
class EvalResult:
    env_id: str
    agent: str
    episodes: int
    successes: int
    mean_return: float
    mean_length: float
    outcomes: dict[str, int] = field(default_factory=dict)
    returns: list[float] = field(default_factory=list, repr=False)
    lengths: list[int] = field(default_factory=list, repr=False)

    @property
    def success_rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.episodes)

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "env": self.env_id,
            "agent": self.agent,
            "episodes": self.episodes,
            "success_rate": self.success_rate,
            "ci95": [low, high],
            "mean_return": self.mean_return,
            "mean_length": self.mean_length,
            "outcomes": self.outcomes,
        }


def format_percent(value: float) -> str:
    """A rate as a percentage with one decimal, or more where one would round a bound onto
    the end it is not on: 0.99962 is "99.96%", not "100.0%" (10000 of 10000's lower bound)."""
    for digits in range(1, 7):
        text = f"{value:.{digits}%}"
        shown = float(text[:-1]) / 100
        if (shown < 1 or value >= 1) and (shown > 0 or value <= 0):
            return text
    return text


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score 95 % interval of a binomial proportion (sound near 0 and 1)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 or 1 the bound is exactly p; rounding must not leave p outside its interval.
    return (max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p)))


def eval_threads(
    env_id: str,
    episodes: int = 10_000,
    batch_size: int = 4096,
    env_kwargs: dict[str, Any] | None = None,
) -> int:
    """The thread count :func:`run_episodes` steps its first (largest) batch on."""
    requested = (env_kwargs or {}).get("num_threads")
    n = max(1, min(episodes, batch_size))
    return resolve_num_threads(requested, n, definition_of(env_id).envs_per_thread)


def kernels_cached(env_id: str, threads: int = 1) -> bool:
    """Whether the env's kernels (and, for ``threads`` above one, their multi-thread row
    drivers) are in Numba's cache already, so nothing long compiles.

    Read from the cache index files Numba keeps beside each cached function; without the JIT
    there is nothing to compile.
    """
    definition = definition_of(env_id)
    kernels = [definition.reset_done, definition.step_all]
    if threads > 1:
        # The drivers a vector env steps and resets with (the step's copies the observation).
        kernels += [
            row_driver(definition.reset_done),
            row_driver(definition.step_all, then=copy_rows),
        ]
    for kernel in kernels:
        cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
        index = getattr(cache_file, "_index_path", None)
        if index is not None and not os.path.exists(index):
            return False
    return True


def prepare(
    env_id: str,
    agents: Iterable[str],
    env_kwargs: dict[str, Any] | None = None,
    say: Callable[[str], None] | None = None,
    episodes: int = 10_000,
    batch_size: int = 4096,
) -> None:
    """Compiles (or loads from the cache) everything evaluating ``agents`` on ``env_id`` over
    ``episodes`` in batches of ``batch_size`` runs, before it is timed or shown: the env's
    kernels and each agent's, on the thread count the real batches use (a batch of that many
    sub-envs runs the same compiled code as one of thousands). When the cache is cold, ``say``
    hears what compiles, a line per agent as it is done, and the total."""
    agents = list(agents)
    threads = eval_threads(env_id, episodes, batch_size, env_kwargs)
    cold = not kernels_cached(env_id, threads)
    where = "one thread" if threads == 1 else f"{threads} threads"
    if cold and say is not None:
        say(
            f"{env_id}: compiling its kernels for {where} and its agents {', '.join(agents)} "
            "(once: later runs load them from Numba's cache)"
        )
    kwargs = {**(env_kwargs or {}), "num_threads": threads}
    start = time.process_time()
    for k, name in enumerate(agents, 1):
        begin = time.process_time()
        run_episodes(env_id, name, threads, batch_size=threads, env_kwargs=kwargs)
        if cold and say is not None:
            say(
                f"  [{k}/{len(agents)}] {name}: {time.process_time() - begin:.0f} CPU s"
                + (" (with the env's kernels)" if k == 1 else "")
            )
    if cold and say is not None:
        say(f"{env_id}: compiled in {time.process_time() - start:.0f} CPU s")


def _check_count(value: object, name: str) -> int:
    if not is_int_scalar(value) or value < 1:  # type: ignore[operator]
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def run_episodes(
    env_id: str,
    agent_name: str,
    episodes: int,
    seed: int = 0,
    batch_size: int = 4096,
    progress: Callable[[int], None] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    agent_factory: Callable[..., Any] | None = None,
) -> EvalResult:
    """``episodes`` seeded episodes of ``agent_name``: episode ``k`` is the first episode of a
    single env reset with ``seed + k``, whatever ``batch_size``. ``agent_factory(env, seed=...)``
    builds the agent when it is not one of the env's own (a trained policy, e.g. ``--agent
    ppo``); ``agent_name`` then only labels the result."""
    definition = definition_of(env_id)
    make_agent = agent_factory or definition.agents.get(agent_name)
    if make_agent is None:
        raise ValueError(
            f"{env_id} has no agent {agent_name!r}; it has {sorted(definition.agents)}"
        )
    episodes = _check_count(episodes, "episodes")
    batch_size = _check_count(batch_size, "batch_size")
    seed = check_seed(seed)
    returns: list[float] = []
    lengths: list[int] = []
    outcomes: Counter[str] = Counter()
    successes = 0
    for offset in range(0, episodes, batch_size):
        n = min(batch_size, episodes - offset)
        env = gym.make_vec(
            env_id, num_envs=n, vectorization_mode="vector_entry_point", **(env_kwargs or {})
        )
        agent = make_agent(env.unwrapped, seed=seed + offset)
        obs, _ = env.reset(seed=seed + offset)
        active = np.ones(n, dtype=bool)
        starts = np.ones(n, dtype=bool)
        ep_return = np.zeros(n)
        ep_length = np.zeros(n, dtype=np.int64)
        ended_last = np.zeros(n, dtype=bool)
        names = np.empty(n, dtype=object)
        while active.any():
            actions = agent.act(obs, starts)
            obs, reward, terminated, truncated, info = env.step(actions)
            agent.observe(reward, terminated, truncated)
            ep_return += np.where(active, reward, 0.0)
            ep_length += active
            ended = (terminated | truncated) & active
            if ended.any():
                names[ended] = info["outcome"][ended]
                if progress is not None:
                    progress(int(ended.sum()))
            active &= ~ended
            # Next-step autoreset: an env that ended returns its new first observation next step.
            starts = ended_last
            ended_last = terminated | truncated
        env.close()
        for k in range(n):
            outcome = str(names[k])
            outcomes[outcome] += 1
            successes += bool(definition.is_success(outcome, float(ep_return[k])))
        returns.extend(ep_return.tolist())
        lengths.extend(ep_length.tolist())
    return EvalResult(
        env_id=env_id,
        agent=agent_name,
        episodes=episodes,
        successes=successes,
        mean_return=float(np.mean(returns)) if returns else 0.0,
        mean_length=float(np.mean(lengths)) if lengths else 0.0,
        outcomes=dict(sorted(outcomes.items())),
        returns=returns,
        lengths=lengths,
    )
