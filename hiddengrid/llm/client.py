"""A language-model agent over any OpenAI-compatible chat-completions server.

The agent sees exactly what the text env shows (the rules as the system prompt, then each
observation), keeps a bounded window of the last turns, retries network errors with
exponential backoff, and logs every episode (prompts, answers, parsed actions) as one JSON line.
HTTP is done with the standard library's ``urllib`` so the core needs no client package.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hiddengrid.evaluate import EvalResult
from hiddengrid.registry import definition_of
from hiddengrid.text.env import make_text

ANSWER_INSTRUCTION = (
    "Answer with exactly one action and nothing else, for example the action's name or number."
)
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class LLMError(RuntimeError):
    """The server could not give an answer (after retries, or a non-retryable error)."""


@dataclass
class ChatClient:
    """Minimal client of ``POST {base_url}/chat/completions``."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 64
    timeout: float = 60.0
    retries: int = 5
    backoff: float = 1.0  # seconds before the first retry, doubled each time

    def complete(self, messages: list[dict[str, str]]) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        delay = self.backoff
        last_error = ""
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read())
                return str(payload["choices"][0]["message"]["content"] or "")
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRYABLE_STATUS:
                    detail = exc.read().decode(errors="replace")[:500]
                    raise LLMError(f"{url} answered HTTP {exc.code}: {detail}") from None
                last_error = f"HTTP {exc.code}"
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last_error = str(exc)
            except (KeyError, IndexError, ValueError) as exc:
                raise LLMError(
                    f"{url} gave an answer that is not a chat completion: {exc}"
                ) from None
            if attempt < self.retries:
                time.sleep(delay)
                delay *= 2
        raise LLMError(f"{url} failed after {self.retries + 1} attempts: {last_error}")


class LLMAgent:
    """Keeps the conversation: rules as the system prompt, a bounded window of past turns."""

    def __init__(self, client: ChatClient, history_turns: int = 6) -> None:
        if history_turns < 0:
            raise ValueError("history_turns must be >= 0")
        self.client = client
        self.history_turns = history_turns
        self.system = ""
        self.turns: list[tuple[str, str]] = []

    def reset(self, rules: str) -> None:
        self.system = f"{rules}\n\n{ANSWER_INSTRUCTION}"
        self.turns = []

    def messages(self, observation: str) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system}]
        window = self.turns[-self.history_turns :] if self.history_turns else []
        for user, assistant in window:
            messages.append({"role": "user", "content": user})
            messages.append({"role": "assistant", "content": assistant})
        messages.append({"role": "user", "content": observation})
        return messages

    def act(self, observation: str) -> tuple[str, list[dict[str, str]]]:
        messages = self.messages(observation)
        answer = self.client.complete(messages)
        self.turns.append((observation, answer))
        return answer, messages


@dataclass
class LLMEvalResult(EvalResult):
    answers: int = 0
    invalid_answers: int = 0

    @property
    def invalid_rate(self) -> float:
        return self.invalid_answers / self.answers if self.answers else 0.0

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        out.update(answers=self.answers, invalid_rate=self.invalid_rate)
        return out


def run_llm_episodes(
    env_id: str,
    agent: LLMAgent,
    episodes: int,
    seed: int = 0,
    log_path: str | Path | None = None,
    progress: Any = None,
) -> LLMEvalResult:
    """Episode ``k`` plays ``reset(seed=seed+k)`` through the text env, as the other agents do."""
    definition = definition_of(env_id)
    returns: list[float] = []
    lengths: list[int] = []
    outcomes: Counter[str] = Counter()
    successes = answers = invalid = 0
    log = open(log_path, "a") if log_path else None  # noqa: SIM115  (kept open for the run)
    try:
        for k in range(episodes):
            tenv = make_text(env_id)
            _, _ = tenv.reset(seed=seed + k)
            agent.reset(tenv.rules)
            observation = tenv.prompt()
            total = 0.0
            turns = []
            while True:
                answer, messages = agent.act(observation)
                observation, reward, terminated, truncated, info = tenv.step(answer)
                answers += 1
                total += reward
                turn: dict[str, Any] = {"prompt": messages, "answer": answer, "reward": reward}
                if "invalid_action" in info:
                    invalid += 1
                    turn["invalid"] = info["invalid_action"]
                else:
                    turn["action"] = tenv.format_action(info["action"])
                turns.append(turn)
                if terminated or truncated:
                    break
            outcome = str(info["outcome"])
            outcomes[outcome] += 1
            successes += bool(definition.is_success(outcome, total))
            returns.append(total)
            lengths.append(tenv.steps)
            if log is not None:
                record = {
                    "env": env_id,
                    "seed": seed + k,
                    "model": agent.client.model,
                    "outcome": outcome,
                    "return": total,
                    "turns": turns,
                }
                log.write(json.dumps(record) + "\n")
                log.flush()
            tenv.close()
            if progress is not None:
                progress(1)
    finally:
        if log is not None:
            log.close()
    return LLMEvalResult(
        env_id=env_id,
        agent="llm",
        episodes=episodes,
        successes=successes,
        mean_return=sum(returns) / len(returns) if returns else 0.0,
        mean_length=sum(lengths) / len(lengths) if lengths else 0.0,
        outcomes=dict(sorted(outcomes.items())),
        returns=returns,
        answers=answers,
        invalid_answers=invalid,
    )
