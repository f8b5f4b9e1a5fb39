"""The LLM agent's row in ``hiddengrid eval``'s results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hiddengrid.evaluate import EvalResult


@dataclass
class LLMEvalResult(EvalResult):
    answers: int = 0
    invalid_answers: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s_total: float = 0.0  # summed over answers, retries and backoff included
    by_trial_episode: list[float] = field(default_factory=list)

    @property
    def invalid_rate(self) -> float:
        return self.invalid_answers / self.answers if self.answers else 0.0

    def per_answer(self) -> tuple[float, float, float]:
        """Tokens in, tokens out and seconds per answer (0 where nothing was answered): what
        a model costs, beside how it plays."""
        n = self.answers or 1
        return self.tokens_in / n, self.tokens_out / n, self.latency_s_total / n

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        out.update(
            answers=self.answers,
            invalid_rate=self.invalid_rate,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            latency_s_total=self.latency_s_total,
            success_by_trial_episode=self.by_trial_episode,
        )
        return out
