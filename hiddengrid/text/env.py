"""The text env: the same game as words, for language-model agents and people.

``reset()`` returns the rules and the first observation as one string; ``step(answer)`` takes
the agent's text. An answer that does not parse to exactly one legal action changes no state
and costs no step: the next observation repeats with the reason and ``info["invalid_action"]``
holds it. After ``max_invalid`` invalid answers in a row the episode ends with
``truncated=True`` and outcome ``"invalid_actions"``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from hiddengrid.text.parse import TextActionError

MAX_INVALID_IN_A_ROW = 3


class TextEnv:
    """Gymnasium-shaped wrapper that speaks text; the numeric env underneath is unchanged."""

    def __init__(self, env_id: str, max_invalid: int = MAX_INVALID_IN_A_ROW, **kwargs: Any):
        self.env_id = env_id
        self.env = gym.make(env_id, **kwargs)
        self.base = self.env.unwrapped
        self.config = self.base.config
        self.max_invalid = max_invalid
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
        if hasattr(self.base, "action_masks"):
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
        action = self.text.parse_action(answer, self.config)
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
            reason = str(exc)
            self.invalid_in_a_row += 1
            self.invalid_total += 1
            info: dict[str, Any] = {"invalid_action": reason, "numeric_observation": self._obs}
            if self.invalid_in_a_row >= self.max_invalid:
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


def make_text(env_id: str, **kwargs: Any) -> TextEnv:
    """A text version of ``env_id``: ``reset()`` gives the rules and first observation."""
    return TextEnv(env_id, **kwargs)
