"""What the model is sent: the system prompt, a bounded window of past turns, and, in a trial,
the outcomes of the episodes already played.

With a context size (``context_tokens``), the oldest turns of the window are dropped until the
prompt plus the answer's budget fit. Tokens are estimated from characters
(:data:`CHARS_PER_TOKEN`, on the low side for English and grids, so the estimate errs towards
dropping a turn); a prompt that still overflows is refused by the server, and that episode ends
with outcome ``context_overflow``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hiddengrid.llm.answer import instruction


def system_prompt(rules: str, answer_format: str, trial_episodes: int, example: str) -> str:
    parts = [rules, instruction(answer_format, example)]
    if trial_episodes > 1:
        parts.append(
            f"You will play {trial_episodes} episodes of this game one after another in this "
            "conversation. Each episode is a new draw, played under the same rules. Before each "
            "episode you are told how every finished episode of this series ended."
        )
    return "\n\n".join(parts)


def episode_header(index: int, trial_episodes: int, previous: Sequence[dict[str, Any]]) -> str:
    """The text that opens episode ``index`` of a trial (empty for a single episode)."""
    if trial_episodes <= 1:
        return ""
    lines = [f"Episode {index + 1} of {trial_episodes}."]
    if previous:
        lines.append("Finished episodes of this series:")
        lines += [
            f"- episode {k + 1}: outcome {p['outcome']}, return {p['return']:g}, {p['steps']} steps"
            for k, p in enumerate(previous)
        ]
        lines.append(f"Episode {len(previous)} ended with:\n{previous[-1]['final']}")
    return "\n".join(lines) + "\n\n"


CHARS_PER_TOKEN = 3.0


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 4  # + the chat template's few tokens a message


@dataclass
class Conversation:
    """The system prompt and the last ``history`` (observation, answer) turns, trimmed to
    ``budget`` estimated tokens when one is set."""

    system: str
    history: int
    turns: list[tuple[str, str]] = field(default_factory=list)
    budget: int | None = None  # tokens the prompt may take (context minus the answer's room)

    def messages(self, observation: str) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system}]
        window = self.turns[-self.history :] if self.history else []
        if self.budget is not None:
            used = estimate_tokens(self.system) + estimate_tokens(observation)
            sizes = [estimate_tokens(u) + estimate_tokens(a) for u, a in window]
            while window and used + sum(sizes) > self.budget:
                window, sizes = window[1:], sizes[1:]
        for user, assistant in window:
            messages.append({"role": "user", "content": user})
            messages.append({"role": "assistant", "content": assistant})
        messages.append({"role": "user", "content": observation})
        return messages

    def add(self, observation: str, answer: str) -> None:
        self.turns.append((observation, answer))
        # Only the window is ever sent; keeping more would grow without bound in long trials.
        del self.turns[: max(0, len(self.turns) - self.history)]
