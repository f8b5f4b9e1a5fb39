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
    by_trial_episode: list[float] = field(default_factory=list)

    @property
    def invalid_rate(self) -> float:
        return self.invalid_answers / self.answers if self.answers else 0.0

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        out.update(
            answers=self.answers,
            invalid_rate=self.invalid_rate,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            success_by_trial_episode=self.by_trial_episode,
        )
        return out
