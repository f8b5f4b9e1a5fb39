"""Evaluation sharded over Ray tasks, equal to a single-process run for any shard size.

Episode ``k`` of an evaluation with seed ``S`` is the first episode of an env reset with
``seed=S+k``, and every shipped agent except a learner draws only from a stream fixed by
``S+k`` (:func:`hiddengrid.core.agents.agent_streams`): so a shard of episodes ``[a, b)`` run
with seed ``S+a`` plays exactly those episodes, and the merged results equal the single run's,
bit for bit. A learner (``learns_across_episodes``) carries knowledge across the episodes of one
batch; its shards are aligned with the single run's batches so it learns from the same ones.

``ray`` is an optional extra (``pip install hiddengrid[ray]``); :func:`shard_ranges`,
:func:`run_sharded` with ``executor=None`` and :func:`merge_results` need no Ray.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hiddengrid.evaluate import EvalResult, run_episodes
from hiddengrid.registry import definition_of

DEFAULT_SHARD = 1000
DEFAULT_BATCH = 4096


def shard_ranges(
    episodes: int, shard_size: int, batch_size: int = DEFAULT_BATCH, aligned: bool = False
) -> list[tuple[int, int]]:
    """``(start, count)`` of each shard, in order, covering ``0 .. episodes`` exactly once.

    ``aligned`` rounds the shard size up to a multiple of ``batch_size``, so every shard's
    batches are batches of the single run (what a learning agent needs).
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive int, got {episodes!r}")
    if isinstance(shard_size, bool) or not isinstance(shard_size, int) or shard_size < 1:
        raise ValueError(f"shard size must be a positive int, got {shard_size!r}")
    if aligned:
        shard_size = -(-shard_size // batch_size) * batch_size
    return [(a, min(shard_size, episodes - a)) for a in range(0, episodes, shard_size)]


def run_shard(
    env_id: str,
    agent: str,
    start: int,
    count: int,
    seed: int,
    batch_size: int = DEFAULT_BATCH,
    env_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """Episodes ``start .. start + count`` of the evaluation with seed ``seed``."""
    return run_episodes(
        env_id, agent, count, seed=seed + start, batch_size=batch_size, env_kwargs=env_kwargs
    )


def merge_results(parts: Sequence[EvalResult]) -> EvalResult:
    """Shards (in episode order) merged into the result a single run gives."""
    first = parts[0]
    returns = [r for p in parts for r in p.returns]
    lengths = [n for p in parts for n in p.lengths]
    outcomes: Counter[str] = Counter()
    for p in parts:
        outcomes.update(p.outcomes)
    return EvalResult(
        env_id=first.env_id,
        agent=first.agent,
        episodes=sum(p.episodes for p in parts),
        successes=sum(p.successes for p in parts),
        mean_return=float(np.mean(returns)),
        mean_length=float(np.mean(lengths)),
        outcomes=dict(sorted(outcomes.items())),
        returns=returns,
        lengths=lengths,
    )


Executor = Callable[[list[tuple[Any, ...]]], list[EvalResult]]


def run_sharded(
    env_id: str,
    agent: str,
    episodes: int,
    seed: int = 0,
    shard_size: int = DEFAULT_SHARD,
    batch_size: int = DEFAULT_BATCH,
    executor: Executor | None = None,
    env_kwargs: dict[str, Any] | None = None,
) -> EvalResult:
    """The evaluation split into shards; ``executor`` runs the list of :func:`run_shard`
    argument tuples (in this process when ``None``; :func:`ray_executor` on Ray)."""
    agents = definition_of(env_id).agents
    if agent not in agents:
        raise ValueError(f"{env_id} has no agent {agent!r}; it has {sorted(agents)}")
    learner = bool(getattr(agents[agent], "learns_across_episodes", False))
    shards = shard_ranges(episodes, shard_size, batch_size, aligned=learner)
    jobs = [(env_id, agent, a, n, seed, batch_size, env_kwargs) for a, n in shards]
    parts = [run_shard(*job) for job in jobs] if executor is None else executor(jobs)
    return merge_results(parts)


def ray_executor(address: str | None = None) -> Executor:
    """Runs shards as Ray tasks on the cluster at ``address`` (a local one for ``None``).

    Workers create envs through hiddengrid itself (each task imports it), so they need the
    package installed where they run; no env id is looked up in a bare Gymnasium registry.
    """
    try:
        import ray
    except ImportError:
        raise SystemExit(
            "--ray needs Ray: pip install 'hiddengrid[ray]' (or pip install ray)"
        ) from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_shard)

    def execute(jobs: list[tuple[Any, ...]]) -> list[EvalResult]:
        return ray.get([remote.remote(*job) for job in jobs])

    return execute
