"""The agents an evaluation can play besides an env's own: ``ppo`` and ``llm``.

Each kind checks everything it needs in :meth:`check` (files, packages, servers, folders), so
a bad request fails before any kernel compiles; :meth:`start` runs what is played all at once
(the language model plays every env in one results folder); :meth:`result` gives one env's
result. An env's own agents need none of this: :mod:`hiddengrid.evaluation.plan` runs them.
"""

from __future__ import annotations

import functools
import json
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym

from hiddengrid import evaluate


class EvalError(ValueError):
    """A mistake in an evaluation request: one line saying what was wrong and what is valid."""


Progress = Callable[[int], None]
Say = Callable[[str], None]


@dataclass(frozen=True)
class LLMOptions:
    """How the ``llm`` agent reaches its model (the ``--base-url`` ... options of ``eval``)."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    history: int = 6
    retries: int = 5
    timeout: float = 60.0
    concurrency: int = 1
    reasoning: bool = False  # the same as answer_format="reasoning"
    answer_format: str | None = None  # direct (default), reasoning or constrained
    max_invalid: int = 3
    fallback: str | None = None
    context_tokens: int | None = None
    max_tokens: int | None = None
    temperature: float = 0.0
    trial_episodes: int = 1
    out: str | None = None  # results folder; None: runs/llm-MODEL-HASH


class ExtraAgent(Protocol):
    """An agent kind that is not one of an env's own."""

    name: str

    def check(
        self,
        env_ids: list[str],
        episodes: int,
        seed: int,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
    ) -> None: ...

    def start(self, progress: Progress | None, describe: Say | None, say: Say | None) -> None: ...

    def result(
        self, env_id: str, episodes: int, seed: int, env_kwargs: dict[str, Any], progress: Any
    ) -> evaluate.EvalResult: ...


# How a greedy evaluation of a checkpoint is named in the table and the JSON rows.
GREEDY_LABEL = "ppo-greedy"


class PPOKind:
    """A policy trained by ``hiddengrid train``, loaded from its checkpoint file."""

    name = "ppo"

    def __init__(self, checkpoint: str | None, greedy: bool = False):
        self.checkpoint = checkpoint
        self.greedy = greedy
        self.factory: Callable[..., Any] | None = None

    def check(
        self,
        env_ids: list[str],
        episodes: int,
        seed: int,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        if not self.checkpoint:
            raise EvalError("--agent ppo needs --checkpoint FILE (written by hiddengrid train)")
        try:
            from hiddengrid.train.agent import PPOAgent
            from hiddengrid.train.checkpoint import (
                check_env_args,
                check_fits_env,
                load_checkpoint,
            )
            from hiddengrid.train.config import resolved_env_kwargs
        except ImportError as exc:
            raise EvalError(
                f"--agent ppo needs the train extra (pip install 'hiddengrid[train]'): {exc}"
            ) from None
        try:
            _, config, data = load_checkpoint(self.checkpoint)
        except (OSError, ValueError) as exc:
            raise EvalError(f"--checkpoint {self.checkpoint!r}: {exc}") from None
        for env_id in env_ids:
            if env_id != config.env_id:
                raise EvalError(
                    f"checkpoint {self.checkpoint!r} was trained on {config.env_id}, not "
                    f"{env_id}; pass --env {config.env_id}"
                )
            # sizes and env arguments checked here, not inside the first episode
            given = (env_kwargs or {}).get(env_id, {})
            try:
                check_env_args(self.checkpoint, config, resolved_env_kwargs(env_id, given))
            except ValueError as exc:
                raise EvalError(str(exc)) from None
            env = gym.make(env_id, **given)
            try:
                check_fits_env(self.checkpoint, data, env)
            except ValueError as exc:
                raise EvalError(str(exc)) from None
            finally:
                env.close()
        self.factory = functools.partial(PPOAgent, checkpoint=self.checkpoint, greedy=self.greedy)

    def start(self, progress: Progress | None, describe: Say | None, say: Say | None) -> None:
        pass

    def result(
        self, env_id: str, episodes: int, seed: int, env_kwargs: dict[str, Any], progress: Any
    ) -> evaluate.EvalResult:
        # Always in this process: a checkpoint file is not shipped to Ray workers.
        return evaluate.run_episodes(
            env_id,
            GREEDY_LABEL if self.greedy else self.name,
            episodes,
            seed=seed,
            progress=progress,
            env_kwargs=env_kwargs,
            agent_factory=self.factory,
        )


class LLMKind:
    """A model behind an OpenAI-compatible server; plays every env into one results folder."""

    name = "llm"

    def __init__(self, options: LLMOptions):
        self.options = options
        self.config: Any = None
        self.context_note: str | None = None
        self.results: dict[str, Any] = {}

    def check(
        self,
        env_ids: list[str],
        episodes: int,
        seed: int,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        from hiddengrid.llm.run import RunConfig, check_fallback

        o = self.options
        if not o.base_url or not o.model:
            raise EvalError("--agent llm needs --base-url and --model")
        if o.reasoning and o.answer_format not in (None, "reasoning"):
            raise EvalError(f"--reasoning contradicts --answer-format {o.answer_format}")
        kwargs = env_kwargs or {}
        try:
            self.config = RunConfig(
                envs=tuple(env_ids),
                model=o.model,
                base_url=o.base_url,
                episodes=episodes,
                seed=seed,
                trial_episodes=o.trial_episodes,
                answer_format="reasoning" if o.reasoning else o.answer_format or "direct",
                max_invalid=o.max_invalid,
                fallback=o.fallback,
                context_tokens=o.context_tokens,
                max_tokens=o.max_tokens,
                temperature=o.temperature,
                history=o.history,
                env_kwargs={e: kwargs[e] for e in env_ids if kwargs.get(e)},
            )
            check_fallback(self.config)
        except ValueError as exc:
            raise EvalError(f"--agent llm: {exc}") from None
        check_server(o.base_url, o.timeout)
        self.context_note = self._read_context() if o.context_tokens is None else None
        check_run_folder(self.folder(), self.config.as_dict())
        try:
            import openai  # noqa: F401
        except ImportError:
            raise EvalError(
                "--agent llm needs the OpenAI Python SDK: pip install 'hiddengrid[llm]'"
            ) from None

    def _read_context(self) -> str | None:
        """Without --context-tokens, the context the server (or the model's folder) gives
        becomes the run's, so the history is trimmed to fit; returns the line saying so."""
        import dataclasses

        from hiddengrid.llm.context import model_context

        o = self.options
        started = _started_context(Path(o.out)) if o.out else False
        if started is not False:
            # A run resumes with the context it started with (its identity), whatever the
            # server says now; an older run that had none keeps none.
            self.config = dataclasses.replace(self.config, context_tokens=started)
            return f"llm context: {started or 'not limited'} (as the run in {o.out} started)"
        size, source = model_context(
            str(o.base_url), str(o.model), os.environ.get(o.api_key_env), min(o.timeout, 10.0)
        )
        if size is None:
            return f"llm context: not known ({source}); give --context-tokens to trim prompts"
        try:
            self.config = dataclasses.replace(self.config, context_tokens=size)
        except ValueError as exc:
            raise EvalError(
                f"--agent llm: the model's context is {size} tokens ({source}): {exc}; give a "
                "smaller --max-tokens"
            ) from None
        return f"llm context: {size} tokens ({source}); --context-tokens overrides it"

    def folder(self) -> Path:
        return Path(self.options.out) if self.options.out else self.config.default_dir()

    def start(self, progress: Progress | None, describe: Say | None, say: Say | None) -> None:
        from hiddengrid.llm.client import LLMError
        from hiddengrid.llm.folder import RunDirError
        from hiddengrid.llm.run import play_run
        from hiddengrid.llm.summary import eval_result

        o = self.options
        if describe is not None:
            describe(f"llm x{o.concurrency}")
        if say is not None and self.context_note is not None:
            say(self.context_note)
        folder = self.folder()
        try:
            folder, summary = play_run(
                self.config,
                folder,
                concurrency=o.concurrency,
                api_key_env=o.api_key_env,
                retries=o.retries,
                timeout=o.timeout,
                progress=progress,
            )
        except (LLMError, RunDirError) as exc:
            raise EvalError(f"--agent llm: {exc}") from None
        except KeyboardInterrupt:
            raise EvalError(
                f"interrupted: finished trials are saved in {folder}; run the same command "
                "to resume"
            ) from None
        if say is not None:
            say(f"llm results: {folder} (hiddengrid report {folder} writes the HTML page)")
            if self.config.trial_episodes > 1:
                for env_id, env_summary in summary["envs"].items():
                    curve = ", ".join(
                        f"{row['index'] + 1}: {row['success_rate']:.0%}"
                        for row in env_summary["by_trial_episode"]
                    )
                    say(f"{env_id} success by episode within a trial: {curve}")
        self.results = {env_id: eval_result(env_id, s) for env_id, s in summary["envs"].items()}

    def result(
        self, env_id: str, episodes: int, seed: int, env_kwargs: dict[str, Any], progress: Any
    ) -> Any:
        return self.results[env_id]


def _started_context(folder: Path) -> int | bool | None:
    """The ``context_tokens`` of the run already in ``folder`` (``None``: it had none), or
    ``False`` where there is no readable run there (the folder check names a damaged one)."""
    try:
        stored = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    value = stored.get("context_tokens", False) if isinstance(stored, dict) else False
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    return False


def check_server(base_url: str, timeout: float) -> None:
    """The server named by ``base_url``: an http(s) URL that accepts a connection, so that a
    server that is not listening is named before the run, not after minutes of retries."""
    from urllib.parse import urlparse

    try:
        url = urlparse(base_url)
        port = url.port  # raises ValueError for a port that is not a number in 0..65535
        host = url.hostname
    except ValueError as exc:
        raise EvalError(f"--base-url {base_url!r} is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https") or not host:
        raise EvalError(f"--base-url {base_url!r} is not an http(s) URL")
    port = port or (443 if url.scheme == "https" else 80)
    if port == 0:
        raise EvalError(f"--base-url {base_url!r}: port 0 is not a server port")
    try:
        socket.create_connection((host, port), timeout=min(timeout, 10.0)).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise EvalError(f"--base-url {base_url}: cannot connect ({reason})") from None


def check_run_folder(folder: Path, config: dict[str, Any]) -> None:
    """A results folder that can be made, and that holds nothing or a run of this config."""
    if folder.exists() and not folder.is_dir():
        raise EvalError(f"--out {str(folder)!r} is a file; give a folder")
    existing = next((p for p in [folder, *folder.parents] if p.exists()), Path("."))
    if not os.access(existing, os.W_OK):
        raise EvalError(f"--out {str(folder)!r} is not writable")
    saved = folder / "config.json"
    if saved.is_file():
        try:
            old = json.loads(saved.read_text())
        except (OSError, ValueError) as exc:
            raise EvalError(f"--out {str(folder)!r}: cannot read its config.json ({exc})") from None
        if isinstance(old, dict):
            differs = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
            if differs:
                raise EvalError(
                    f"--agent llm: {folder} holds a run with a different configuration (differs "
                    f"in: {', '.join(differs)}); give another --out or the same options"
                )


EXTRA_AGENTS: tuple[str, ...] = (LLMKind.name, PPOKind.name)
