"""A resumable, parallel LLM evaluation run and its results folder.

One folder per run holds ``config.json`` (what defines the run), ``episodes.jsonl`` (one line
per finished episode, every turn with its text and accounting) and ``summary.json`` (per env:
success and its interval, invalid answers, tokens, latency, retries, and success by episode
index within a trial). A trial's lines are written together once it ends, so a killed run loses
at most the trials in flight; running the same command again skips every finished trial.
Results are sorted by (env, trial, episode), so they are the same for any concurrency.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hiddengrid.llm.answer import default_max_tokens
from hiddengrid.llm.client import ChatClient, LLMError
from hiddengrid.llm.play import play_trial
from hiddengrid.llm.summary import summarize

CONFIG = "config.json"
EPISODES = "episodes.jsonl"
SUMMARY = "summary.json"


class RunDirError(ValueError):
    """The results folder holds a different run."""


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides what a run plays and asks; a resumed run must match it."""

    envs: tuple[str, ...]
    model: str
    base_url: str
    episodes: int = 20  # per env
    seed: int = 0
    trial_episodes: int = 1
    reasoning: bool = False
    max_tokens: int | None = None  # None: the mode's default
    temperature: float = 0.0
    history: int = 6

    def __post_init__(self) -> None:
        if self.max_tokens is None:
            object.__setattr__(self, "max_tokens", default_max_tokens(self.reasoning))
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
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)

    @property
    def trials(self) -> int:
        return self.episodes // self.trial_episodes

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["envs"] = list(self.envs)
        return out

    def default_dir(self, root: str | Path = "runs") -> Path:
        digest = hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", self.model).strip("-") or "model"
        return Path(root) / f"llm-{slug}-{digest[:10]}"


def load_records(path: Path) -> list[dict[str, Any]]:
    """Finished episode lines; a torn last line (a run killed while writing) is dropped."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


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


def prepare_dir(run_dir: Path, config: RunConfig) -> list[dict[str, Any]]:
    """Creates or reopens ``run_dir``; returns the records of the trials already finished."""
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path = run_dir / CONFIG
    if config_path.exists():
        old = json.loads(config_path.read_text())
        new = config.as_dict()
        differs = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        if differs:
            raise RunDirError(
                f"{run_dir} holds a run with a different configuration (differs in: "
                f"{', '.join(differs)}); give another --out or the same options"
            )
    else:
        config_path.write_text(json.dumps(config.as_dict(), indent=2) + "\n")
    done = complete_trials(load_records(run_dir / EPISODES), config.trial_episodes)
    # Rewrite without torn or partial lines so the file only ever holds whole trials.
    (run_dir / EPISODES).write_text("".join(json.dumps(r) + "\n" for r in done))
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
    done = prepare_dir(run_dir, config)
    finished = {(r["env"], r["trial"]) for r in done}
    if progress is not None and done:
        progress(len(done))
    jobs: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    for env_id in config.envs:
        for trial in range(config.trials):
            if (env_id, trial) not in finished:
                jobs.put_nowait((env_id, trial))

    with open(run_dir / EPISODES, "a") as log:

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
                    reasoning=config.reasoning,
                    history=config.history,
                )
                log.write("".join(json.dumps(r) + "\n" for r in records))
                log.flush()
                if progress is not None:
                    progress(len(records))

        workers = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            await client.close()
    records = complete_trials(load_records(run_dir / EPISODES), config.trial_episodes)
    summary = summarize(records, config.as_dict())
    (run_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def run(
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


__all__ = ["LLMError", "RunConfig", "RunDirError", "run", "run_async"]
