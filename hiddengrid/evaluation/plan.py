"""An evaluation request checked into a plan of (env, agent, episodes) jobs, then run.

:func:`plan_eval` does every check (names, env arguments, checkpoint, server, Ray, folders)
and raises :class:`EvalError` on the first mistake; :meth:`EvalPlan.prepare` compiles;
:meth:`EvalPlan.run` plays the jobs in order. :func:`evaluate` is the three in a row.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hiddengrid import evaluate as episodes_loop
from hiddengrid.core.rng import check_seed
from hiddengrid.evaluate import format_percent
from hiddengrid.evaluation.kinds import (
    EXTRA_AGENTS,
    EvalError,
    ExtraAgent,
    LLMKind,
    LLMOptions,
    PPOKind,
    Progress,
    Say,
)
from hiddengrid.registry import ENV_IDS, definition_of

DEFAULT_EPISODES = 10_000
DEFAULT_LLM_EPISODES = 20  # a model answers in seconds, not microseconds
DEFAULT_SHARD = 1000
RAY_CONNECT_TIMEOUT = 5.0  # seconds; Ray itself waits minutes for a head that is not there


@dataclass(frozen=True)
class EvalRequest:
    """What to evaluate. ``None`` means every registered env, every agent of each env, and
    the default number of episodes (:data:`DEFAULT_EPISODES`; :data:`DEFAULT_LLM_EPISODES` for
    ``llm``). Episode ``k`` plays the first episode of an env reset with ``seed + k``.

    ``ray``: ``None`` runs in this process; ``""`` on a local Ray; otherwise the address of a
    Ray cluster (``HOST:PORT``, ``ray://HOST:PORT`` or ``auto``). The results are the same.
    """

    envs: Sequence[str] | None = None
    agents: Sequence[str] | None = None
    episodes: int | None = None
    seed: int = 0
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    checkpoint: str | None = None  # for the ppo agent
    greedy: bool = False  # for the ppo agent: each head's most likely action, not a sample
    llm: LLMOptions = field(default_factory=LLMOptions)
    ray: str | None = None
    shard_size: int = DEFAULT_SHARD


@dataclass(frozen=True)
class Job:
    env_id: str
    agent: str
    episodes: int


@dataclass
class EvalPlan:
    """A checked request: its jobs in order, each env's arguments and the extra agents."""

    request: EvalRequest
    jobs: list[Job]
    env_kwargs: dict[str, dict[str, Any]]
    extras: dict[str, ExtraAgent]

    @property
    def total_episodes(self) -> int:
        return sum(job.episodes for job in self.jobs)

    def prepare(self, say: Say | None = None) -> None:
        """Compiles (or loads from Numba's cache) each env's kernels and built-in agents, so
        the run's speed is the real one; ``say`` hears when a cold cache makes that long."""
        for env_id, kw in self.env_kwargs.items():
            jobs = [j for j in self.jobs if j.env_id == env_id]
            names = [j.agent for j in jobs if j.agent not in EXTRA_AGENTS]
            # compiled on the thread count the real batches of this many episodes use
            episodes = max(j.episodes for j in jobs)
            episodes_loop.prepare(env_id, names, kw, say=say, episodes=episodes)

    def run(
        self,
        progress: Progress | None = None,
        describe: Say | None = None,
        say: Say | None = None,
    ) -> list[episodes_loop.EvalResult]:
        """Plays the jobs in order; ``progress(n)`` hears each ``n`` finished episodes,
        ``describe`` the job being played, ``say`` lines worth keeping (where results went)."""
        for kind in self.extras.values():
            kind.start(progress, describe, say)
        executor = None
        if self.request.ray is not None and any(j.agent not in EXTRA_AGENTS for j in self.jobs):
            from hiddengrid.ray_eval import ray_executor

            executor = ray_executor(self.request.ray or None)
        results = []
        for job in self.jobs:
            if describe is not None:
                describe(f"{job.env_id.split('/')[-1]} {job.agent}")
            kw = self.env_kwargs[job.env_id]
            seed = self.request.seed
            if job.agent in self.extras:
                result = self.extras[job.agent].result(job.env_id, job.episodes, seed, kw, progress)
            elif executor is not None:
                from hiddengrid.ray_eval import run_sharded

                result = run_sharded(
                    job.env_id,
                    job.agent,
                    job.episodes,
                    seed=seed,
                    shard_size=self.request.shard_size,
                    executor=executor,
                    env_kwargs=kw,
                )
                if progress is not None:
                    progress(result.episodes)
            else:
                result = episodes_loop.run_episodes(
                    job.env_id, job.agent, job.episodes, seed=seed, progress=progress, env_kwargs=kw
                )
            results.append(result)
        return results

    def json_rows(self, results: Sequence[episodes_loop.EvalResult]) -> list[dict[str, Any]]:
        """The results as ``eval --json`` writes them: each with its seed and env arguments."""
        seed = self.request.seed
        return [
            {**r.as_dict(), "seed": seed, "env_kwargs": self.env_kwargs[r.env_id]} for r in results
        ]


def check_env_kwargs(env_id: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` checked by the env (as ``gym.make`` would be given them), before any run."""
    import gymnasium as gym

    kwargs = dict(kwargs)
    try:
        definition_of(env_id).configure({**gym.spec(env_id).kwargs, **kwargs})
    except (TypeError, ValueError, RecursionError) as exc:
        raise EvalError(f"--env-arg for {env_id}: {_short(exc)}") from None
    return kwargs


def _short(exc: BaseException, limit: int = 200) -> str:
    """An error's text cut to one readable line (a value can be thousands of characters)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _env_id(name: str) -> str:
    for candidate in (name, f"hiddengrid/{name}"):
        if candidate in ENV_IDS:
            return candidate
    raise EvalError(f"unknown env {name!r}; registered: {', '.join(ENV_IDS)}")


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EvalError(f"{what} must be an integer >= 1, got {value!r}")
    return value


def plan_eval(request: EvalRequest) -> EvalPlan:
    """Checks ``request`` whole and returns its plan; raises :class:`EvalError` on a mistake."""
    try:
        check_seed(request.seed)
    except (TypeError, ValueError) as exc:
        raise EvalError(f"--seed: {_short(exc)}") from None
    if request.episodes is not None:
        _count(request.episodes, "--episodes")
    _count(request.shard_size, "--shard-size")
    jobs = []
    env_ids = list(dict.fromkeys(_env_id(e) for e in request.envs or ENV_IDS))
    for env_id in env_ids:
        agents = list(definition_of(env_id).agents)
        for name in dict.fromkeys(request.agents or agents):
            if name not in agents and name not in EXTRA_AGENTS:
                extra = " and ".join(EXTRA_AGENTS)
                raise EvalError(
                    f"{env_id} has no agent {name!r}; it has {', '.join(agents)}, {extra}"
                )
            default = DEFAULT_LLM_EPISODES if name == LLMKind.name else DEFAULT_EPISODES
            jobs.append(Job(env_id, name, request.episodes or default))
    env_kwargs = {env_id: check_env_kwargs(env_id, request.env_kwargs) for env_id in env_ids}
    kinds: dict[str, ExtraAgent] = {
        PPOKind.name: PPOKind(request.checkpoint, request.greedy),
        LLMKind.name: LLMKind(request.llm),
    }
    if request.greedy and not any(job.agent == PPOKind.name for job in jobs):
        raise EvalError("--greedy is for --agent ppo (a trained checkpoint's policy)")
    extras = {}
    for name, kind in kinds.items():
        mine = [job for job in jobs if job.agent == name]
        if mine:
            kind.check([job.env_id for job in mine], mine[0].episodes, request.seed, env_kwargs)
            extras[name] = kind
    if request.ray is not None and any(job.agent not in EXTRA_AGENTS for job in jobs):
        check_ray(request.ray)
    return EvalPlan(request, jobs, env_kwargs, extras)


def check_ray(address: str) -> None:
    """Ray is installed, and a cluster address given names a port that answers: Ray itself
    would wait minutes for a head node that is not there."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise EvalError(
            "--ray needs Ray: pip install 'hiddengrid[ray]' (or pip install ray)"
        ) from None
    if address in ("", "auto", "local"):
        return
    target = address.removeprefix("ray://")
    host, sep, port_text = target.rpartition(":")
    host = host.strip("[]")
    port = int(port_text) if port_text.isdigit() and len(port_text) <= 5 else -1
    if not sep or not host or not 1 <= port <= 65535:
        raise EvalError(
            f"--ray {_short(EvalError(repr(address)), 80)} is not an address; give HOST:PORT, "
            "ray://HOST:PORT or auto (or nothing, for a local Ray)"
        )
    try:
        socket.create_connection((host, port), timeout=RAY_CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise EvalError(
            f"--ray {address}: cannot connect ({reason}); is the Ray head running?"
        ) from None


def evaluate(
    request: EvalRequest,
    progress: Progress | None = None,
    say: Say | None = None,
) -> list[episodes_loop.EvalResult]:
    """Checks, compiles and runs ``request``; one result per (env, agent), in order."""
    plan = plan_eval(request)
    plan.prepare(say=say)
    return plan.run(progress=progress, say=say)


def format_table(results: Sequence[episodes_loop.EvalResult]) -> str:
    """The results as ``hiddengrid eval`` prints them. Rows of a language model (results with
    ``per_answer``) add tokens in and out and seconds per answer, so that a table says what a
    model costs beside how it plays; the columns appear only when such a row is there."""
    width = max([10, *(len(r.agent) for r in results)])  # "exact-position" is 14
    costs = any(hasattr(r, "per_answer") for r in results)
    head = (
        f"{'env':<36} {'agent':<{width}} {'episodes':>8} {'success':>8} {'95% CI':>17} "
        f"{'return':>8} {'length':>7} {'invalid':>8}"
    )
    if costs:
        head += f" {'tok in/ans':>10} {'tok out/ans':>11} {'s/ans':>7}"
    lines = [head, "-" * len(head)]
    for r in results:
        low, high = r.interval
        invalid = getattr(r, "invalid_rate", None)
        interval = f"[{format_percent(low)}, {format_percent(high)}]"
        line = (
            f"{r.env_id:<36} {r.agent:<{width}} {r.episodes:>8} {r.success_rate:>8.1%} "
            f"{interval:>17} {r.mean_return:>8.3f} {r.mean_length:>7.2f} "
            f"{'' if invalid is None else f'{invalid:.1%}':>8}"
        )
        if hasattr(r, "per_answer"):
            tokens_in, tokens_out, seconds = r.per_answer()
            line += f" {tokens_in:>10.0f} {tokens_out:>11.1f} {seconds:>7.2f}"
        lines.append(line)
    return "\n".join(lines)
