"""The text env: the same game as words, for language-model agents and people.

``reset()`` returns the rules and the first observation as one string; ``step(answer)`` takes
the agent's text. An answer that does not parse to exactly one legal action changes no state
and costs no step: the next observation repeats with the reason and ``info["invalid_action"]``
holds it. After ``max_invalid`` invalid answers in a row the episode ends with
``truncated=True`` and outcome ``"invalid_actions"`` (``max_invalid=None``: never; a person
playing is not a model on a budget). A reason is at most :data:`REASON_LIMIT` characters, so
a huge answer never makes a huge prompt.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from hiddengrid.core.actions import is_int_scalar
from hiddengrid.text.parse import TextActionError

MAX_INVALID_IN_A_ROW = 3
REASON_LIMIT = 400


def _short(reason: str) -> str:
    return reason if len(reason) <= REASON_LIMIT else reason[: REASON_LIMIT - 3] + "..."


class TextEnv:
    """Gymnasium-shaped wrapper that speaks text; the numeric env underneath is unchanged."""

    def __init__(
        self, env_id: str, max_invalid: int | None = MAX_INVALID_IN_A_ROW, **kwargs: Any
    ) -> None:
        if max_invalid is not None and (not is_int_scalar(max_invalid) or max_invalid < 1):  # type: ignore[operator]
            raise ValueError(
                f"max_invalid must be a positive int (invalid answers in a row that end the "
                f"episode) or None (never), got {max_invalid!r}"
            )
        self.env_id = env_id
        self.env = gym.make(env_id, **kwargs)
        self.base = self.env.unwrapped
        self.config = self.base.config
        self.max_invalid = None if max_invalid is None else int(max_invalid)  # type: ignore[call-overload]
        self.invalid_in_a_row = 0
        self.invalid_total = 0
        self.steps = 0
        self._obs: dict[str, Any] | None = None
        self._running = False

    @property
    def text(self) -> Any:
        """The env's text module, looked up through its definition (a module attribute would
        stop the text env from pickling)."""
        return self.base.definition.text

    @property
    def rules(self) -> str:
        return self.text.rules_text(self.config)

    def _extra(self) -> dict[str, Any]:
        if self.base.definition.masked:
            return {"mask": self.base.action_masks()}
        return {}

    def observation_text(self) -> str:
        assert self._obs is not None
        return self.text.observation_text(self._obs, self.config)

    def legal_actions_text(self) -> str:
        assert self._obs is not None
        return self.text.legal_actions_text(self._obs, self.config, **self._extra())

    def prompt(self, reason: str | None = None) -> str:
        parts = []
        if reason is not None:
            parts.append(f"Your last answer was invalid: {reason}. Nothing happened.")
        parts += [self.observation_text(), self.legal_actions_text()]
        return "\n".join(parts)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        self._obs, info = self.env.reset(seed=seed, options=options)
        self.invalid_in_a_row = 0
        self.invalid_total = 0
        self.steps = 0
        self._running = True
        info = dict(info, numeric_observation=self._obs)
        return f"{self.rules}\n\n{self.prompt()}", info

    def parse(self, answer: object) -> Any:
        """The numeric action ``answer`` names, or ``TextActionError`` with the reason."""
        try:
            action = self.text.parse_action(answer, self.config)
        except TextActionError:
            raise
        except (ValueError, OverflowError) as exc:
            # A parser's own conversion error (int() of a huge number, say) is still just an
            # invalid answer: step() never raises on what the agent wrote.
            raise TextActionError(f"unreadable answer ({type(exc).__name__})") from None
        check = self.base.definition.extra_action_check
        if check is not None:
            try:
                check(self.base.batch, np.asarray([action], dtype=np.int64))
            except ValueError as exc:
                raise TextActionError(str(exc)) from None
        return action

    def step(self, answer: object) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not self._running:
            raise RuntimeError("the episode is over (or never started): call reset() first")
        try:
            action = self.parse(answer)
        except TextActionError as exc:
            reason = _short(str(exc))
            self.invalid_in_a_row += 1
            self.invalid_total += 1
            info: dict[str, Any] = {"invalid_action": reason, "numeric_observation": self._obs}
            if self.max_invalid is not None and self.invalid_in_a_row >= self.max_invalid:
                self._running = False
                info["outcome"] = "invalid_actions"
                text = f"Your last answer was invalid: {reason}. Too many invalid answers."
                return text, 0.0, False, True, info
            return self.prompt(reason), 0.0, False, False, info
        self.invalid_in_a_row = 0
        self.steps += 1
        self._obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info, action=action, numeric_observation=self._obs)
        if terminated or truncated:
            self._running = False
            text = (
                f"{self.observation_text()}\nThe episode is over: {info.get('outcome')}, "
                f"reward {reward:g}."
            )
            return text, reward, terminated, truncated, info
        return self.prompt(), reward, terminated, truncated, info

    def format_action(self, action: Any) -> str:
        return self.text.format_action(action, self.config)

    def render(self) -> str:
        return self.base.definition.render_ansi(self.base.batch, 0)

    def close(self) -> None:
        self.env.close()


def make_text(
    env_id: str, max_invalid: int | None = MAX_INVALID_IN_A_ROW, **kwargs: Any
) -> TextEnv:
    """A text version of ``env_id``: ``reset()`` gives the rules and first observation.

    ``max_invalid`` invalid answers in a row end the episode (``None``: never); ``kwargs`` go
    to the env (``level=2``, say).
    """
    return TextEnv(env_id, max_invalid=max_invalid, **kwargs)
