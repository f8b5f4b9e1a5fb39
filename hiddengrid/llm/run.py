"""A resumable, parallel LLM evaluation run and its results folder.

One folder per run holds ``config.json`` (what defines the run, env arguments included, the
server's URL without credentials), ``episodes.jsonl`` (one sealed line per finished episode,
every turn with its text and accounting) and ``summary.json`` (per env: success and its
interval, invalid answers, tokens, latency, retries, and success by episode index within a
trial). A trial's lines are written together once it ends, so a killed run loses at most the
trials in flight; running the same command again skips every finished trial. Results are sorted
by (env, trial, episode), so they are the same for any concurrency. How the folder is kept safe
(atomic rewrites, a lock, checked records) is in :mod:`hiddengrid.llm.folder`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hiddengrid.llm.answer import check_format, default_max_tokens
from hiddengrid.llm.client import ChatClient, LLMError, redact_url
from hiddengrid.llm.folder import (
    RunDirError,
    locked,
    read_json_object,
    read_records,
    record_line,
    write_atomic,
)
from hiddengrid.llm.play import play_trial
from hiddengrid.llm.summary import summarize

CONFIG = "config.json"
EPISODES = "episodes.jsonl"
SUMMARY = "summary.json"


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides what a run plays and asks; a resumed run must match it."""

    envs: tuple[str, ...]
    model: str
    base_url: str
    episodes: int = 20  # per env
    seed: int = 0
    trial_episodes: int = 1
    answer_format: str = "direct"  # direct, reasoning or constrained (hiddengrid.llm.answer)
    max_tokens: int | None = None  # None: the format's default
    temperature: float = 0.0
    history: int = 6
    # Per env id, the keyword arguments its env is made with (``level=2``, say).
    env_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_invalid: int = 3  # invalid answers in a row that end an episode; 0: never
    fallback: str | None = None  # played (and counted) in place of an invalid answer
    context_tokens: int | None = None  # the model's context; the history is trimmed to fit

    def __post_init__(self) -> None:
        check_format(self.answer_format)
        if self.max_tokens is None:
            object.__setattr__(self, "max_tokens", default_max_tokens(self.answer_format))
        if self.trial_episodes < 1:
            raise ValueError(f"trial episodes must be at least 1, got {self.trial_episodes}")
        checks = [
            (self.episodes >= 1, f"episodes must be at least 1, got {self.episodes}"),
            (
                self.episodes % self.trial_episodes == 0,
                f"episodes ({self.episodes}) must be a multiple of trial episodes "
                f"({self.trial_episodes}): each env plays whole trials",
            ),
            (self.history >= 0, f"history must be >= 0 turns, got {self.history}"),
            (
                self.max_tokens is not None and self.max_tokens >= 1,
                f"max tokens must be at least 1, got {self.max_tokens}",
            ),
            (self.temperature >= 0, f"temperature must be >= 0, got {self.temperature}"),
            (bool(self.envs), "give at least one env"),
            (self.max_invalid >= 0, f"max invalid must be >= 0, got {self.max_invalid}"),
            (
                self.context_tokens is None
                or self.context_tokens > int(self.max_tokens or 0) + 256,
                f"context tokens ({self.context_tokens}) must exceed max tokens "
                f"({self.max_tokens}) by more than 256",
            ),
            (
                self.fallback is None or (isinstance(self.fallback, str) and self.fallback != ""),
                "the fallback action must be a non-empty text",
            ),
            (
                isinstance(self.env_kwargs, dict) and set(self.env_kwargs) <= set(self.envs),
                "env arguments must be given per env of the run",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        try:
            json.dumps(self.env_kwargs, allow_nan=False)
        except (TypeError, ValueError):
            raise ValueError("env arguments must be plain JSON values") from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The configuration stored in a run folder; ``ValueError`` if it is not one."""
        kinds = {
            "envs": list,
            "model": str,
            "base_url": str,
            "episodes": int,
            "seed": int,
            "trial_episodes": int,
            "answer_format": str,
            "max_tokens": int,
            "temperature": (int, float),
            "history": int,
            "env_kwargs": dict,
            "max_invalid": int,
        }
        optional = {"fallback": str, "context_tokens": int}
        for key, kind in optional.items():
            value = data.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
                raise ValueError(f"{key!r} has the wrong type")
        for key, kind in kinds.items():
            value = data.get(key)
            if (
                value is None
                or (kind is not bool and isinstance(value, bool))
                or not isinstance(value, kind)
            ):
                raise ValueError(f"{key!r} is missing or has the wrong type")
        if not all(isinstance(e, str) for e in data["envs"]):
            raise ValueError("'envs' must be env ids")
        from hiddengrid.registry import ENV_IDS

        unknown = [e for e in data["envs"] if e not in ENV_IDS]
        if unknown:
            raise ValueError(f"unknown env {unknown[0]!r}")
        if not all(isinstance(v, dict) for v in data["env_kwargs"].values()):
            raise ValueError("'env_kwargs' must map env ids to arguments")
        known = set(cls.__dataclass_fields__)
        extra = sorted(set(data) - known)
        if extra:
            raise ValueError(f"unknown setting {extra[0]!r}")
        return cls(**(data | {"envs": tuple(data["envs"])}))

    @property
    def trials(self) -> int:
        return self.episodes // self.trial_episodes

    def as_dict(self) -> dict[str, Any]:
        """What is written to the folder and decides its identity (the URL without secrets)."""
        out = asdict(self)
        out["envs"] = list(self.envs)
        out["base_url"] = redact_url(self.base_url)
        return out

    def default_dir(self, root: str | Path = "runs") -> Path:
        digest = hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", self.model).strip("-") or "model"
        return Path(root) / f"llm-{slug}-{digest[:10]}"


def check_fallback(config: RunConfig) -> None:
    """``ValueError`` unless the fallback action is an action of every env of the run."""
    if config.fallback is None:
        return
    from hiddengrid.text.env import TextActionError, make_text

    for env_id in config.envs:
        tenv = make_text(env_id, **config.env_kwargs.get(env_id, {}))
        try:
            tenv.reset(seed=config.seed)
            tenv.parse(config.fallback)
        except TextActionError as exc:
            raise ValueError(f"fallback {config.fallback!r} in {env_id}: {exc}") from None
        finally:
            tenv.close()


def load_records(path: Path, config: dict[str, Any]) -> list[dict[str, Any]]:
    """Finished episode lines, each checked (``RunDirError`` names a damaged one); a torn last
    line (a run killed while writing) is dropped."""
    return read_records(path, config)


def complete_trials(records: list[dict[str, Any]], trial_episodes: int) -> list[dict[str, Any]]:
    """Only the records of trials whose every episode is there, sorted by (env, trial, index)."""
    groups: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["env"], r["trial"]), {})[r["index"]] = r
    kept = [
        g[i]
        for _, g in sorted(groups.items())
        if set(g) == set(range(trial_episodes))
        for i in range(trial_episodes)
    ]
    return kept


def read_run(run_dir: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run folder's configuration and its whole trials' records, read only; a folder that is
    not a run, or is damaged, is one ``RunDirError``."""
    folder = Path(run_dir)
    if not folder.is_dir():
        raise RunDirError(f"{folder} is not a run folder (no such folder)")
    stored = read_json_object(folder / CONFIG)
    try:
        config = RunConfig.from_dict(stored).as_dict()
    except (TypeError, ValueError) as exc:
        raise RunDirError(f"{folder / CONFIG} is damaged: {exc}") from None
    records = read_records(folder / EPISODES, config)
    return config, complete_trials(records, int(config["trial_episodes"]))


def prepare_dir(run_dir: Path, config: RunConfig) -> list[dict[str, Any]]:
    """Creates or reopens ``run_dir`` (the caller holds its lock); returns the records of the
    trials already finished."""
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path = run_dir / CONFIG
    new = config.as_dict()
    if config_path.exists():
        old = read_json_object(config_path)
        differs = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        if differs:
            raise RunDirError(
                f"{run_dir} holds a run with a different configuration (differs in: "
                f"{', '.join(differs)}); give another --out or the same options"
            )
    else:
        write_atomic(config_path, json.dumps(new, indent=2) + "\n")
    path = run_dir / EPISODES
    done = complete_trials(load_records(path, new), config.trial_episodes)
    # Rewrite without torn or partial lines so the file only ever holds whole trials; atomic,
    # so that a kill during the rewrite keeps every finished episode.
    text = "".join(record_line(r) for r in done)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text)
    return done


async def run_async(
    config: RunConfig,
    client: ChatClient,
    run_dir: Path,
    concurrency: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Plays every unfinished trial, ``concurrency`` at a time; returns the summary."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        with locked(run_dir):
            return await _run_locked(config, client, run_dir, concurrency, progress)
    finally:
        await client.close()


async def _run_locked(
    config: RunConfig,
    client: ChatClient,
    run_dir: Path,
    concurrency: int,
    progress: Callable[[int], None] | None,
) -> dict[str, Any]:
    done = prepare_dir(run_dir, config)
    finished = {(r["env"], r["trial"]) for r in done}
    if progress is not None and done:
        progress(len(done))
    jobs: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    for env_id in config.envs:
        for trial in range(config.trials):
            if (env_id, trial) not in finished:
                jobs.put_nowait((env_id, trial))

    with open(run_dir / EPISODES, "a", encoding="utf-8") as log:

        async def worker() -> None:
            while True:
                try:
                    env_id, trial = jobs.get_nowait()
                except asyncio.QueueEmpty:
                    return
                records = await play_trial(
                    client,
                    env_id,
                    trial,
                    seed=config.seed,
                    trial_episodes=config.trial_episodes,
                    answer_format=config.answer_format,
                    history=config.history,
                    env_kwargs=config.env_kwargs.get(env_id, {}),
                    max_invalid=config.max_invalid or None,
                    fallback=config.fallback,
                    context_tokens=config.context_tokens,
                )
                log.write("".join(record_line(r) for r in records))
                log.flush()
                if progress is not None:
                    progress(len(records))

        # More workers than trials would only wait on an empty queue (and cost memory each).
        workers = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, jobs.qsize()))]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
    records = complete_trials(
        load_records(run_dir / EPISODES, config.as_dict()), config.trial_episodes
    )
    summary = summarize(records, config.as_dict())
    write_atomic(run_dir / SUMMARY, json.dumps(summary, indent=2) + "\n")
    return summary


def play_run(
    config: RunConfig,
    run_dir: str | Path | None = None,
    concurrency: int = 1,
    api_key_env: str = "OPENAI_API_KEY",
    retries: int = 5,
    timeout: float = 60.0,
    backoff: float = 1.0,
    progress: Callable[[int], None] | None = None,
) -> tuple[Path, dict[str, Any]]:
    """Runs (or resumes) the evaluation; returns the results folder and the summary."""
    folder = Path(run_dir) if run_dir is not None else config.default_dir()
    client = ChatClient(
        base_url=config.base_url,
        model=config.model,
        api_key_env=api_key_env,
        temperature=config.temperature,
        max_tokens=int(config.max_tokens or 1),
        timeout=timeout,
        retries=retries,
        backoff=backoff,
    )
    summary = asyncio.run(run_async(config, client, folder, concurrency, progress))
    return folder, summary


__all__ = ["LLMError", "RunConfig", "RunDirError", "play_run", "run_async"]
