"""How a model is asked to answer, and how its action is read from the answer: the one home of
the answer formats.

Three formats:

* ``direct``: the whole answer is the action (the text env's parser reads it);
* ``reasoning``: the model may think freely, then ends with a marked last line
  ``ACTION: <action>``; only that line is read, strictly (the marker, exactly once, on the last
  non-empty line);
* ``constrained``: the server is asked for structured output, a JSON object
  ``{"action": ...}`` whose value is one of the legal actions of this turn (OpenAI-style
  ``response_format`` with a JSON schema, which vLLM, SGLang, llama.cpp's server and hosted APIs
  honour). Small models that cannot keep to a free-text format still play.

The instruction of each format ends the system prompt and gives the env's own legal example
(an env's rules describe its actions, never how to format the answer). An answer that breaks the
format is an invalid answer exactly like an unparseable action: the text env counts it, it costs
no step, and too many in a row end the episode.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

FORMATS = ("direct", "reasoning", "constrained")
# Direct and constrained answers are one short line; reasoning needs room to think first.
DEFAULT_MAX_TOKENS = {"direct": 64, "reasoning": 4096, "constrained": 64}
# The legal actions listed in a constrained request's schema at most (Megacity has 390).
MAX_SCHEMA_ACTIONS = 1000

_MARKER = re.compile(r"^\s*\**\s*action\s*\**\s*:\s*\**", re.IGNORECASE)


class AnswerFormatError(ValueError):
    """An answer that breaks its format (no marked ``ACTION:`` line, JSON that is not
    ``{"action": ...}``)."""


def check_format(answer_format: str) -> str:
    if answer_format not in FORMATS:
        raise ValueError(
            f"unknown answer format {answer_format!r}; valid formats: {', '.join(FORMATS)}"
        )
    return answer_format


def instruction(answer_format: str, example: str) -> str:
    """The last paragraph of the system prompt: how to answer, with a legal ``example``."""
    check_format(answer_format)
    if answer_format == "reasoning":
        return (
            "Think step by step as long as you need. Then end your answer with one last line "
            f"of the form\nACTION: <one action>\nfor example `ACTION: {example}`. Only that "
            "last line is read."
        )
    if answer_format == "constrained":
        return (
            'Answer with a JSON object {"action": "<one action>"} naming one of the legal '
            f'actions listed, for example {{"action": "{example}"}}.'
        )
    return (
        "Answer with exactly one action and nothing else, by its name or its number, for "
        f"example `{example}`."
    )


def default_max_tokens(answer_format: str) -> int:
    return DEFAULT_MAX_TOKENS[check_format(answer_format)]


def extract_action(answer: str, answer_format: str) -> str:
    """The text to hand to the text env: the whole answer, the marked last line's action, or
    the JSON object's ``action``."""
    if answer_format == "constrained":
        try:
            value = json.loads(answer)
        except (ValueError, RecursionError):
            raise AnswerFormatError('the answer is not a JSON object {"action": ...}') from None
        if not isinstance(value, dict) or not isinstance(value.get("action"), str):
            raise AnswerFormatError('the answer is not a JSON object {"action": ...}')
        return value["action"]
    if answer_format != "reasoning":
        return answer
    lines = [line for line in answer.splitlines() if line.strip()]
    if not lines:
        raise AnswerFormatError("empty answer: end with a last line 'ACTION: <one action>'")
    marked = [k for k, line in enumerate(lines) if _MARKER.match(line)]
    if not marked or marked[-1] != len(lines) - 1:
        raise AnswerFormatError("the last line must be 'ACTION: <one action>'")
    if len(marked) > 1:
        raise AnswerFormatError("give one 'ACTION:' line only, as the last line")
    action = _MARKER.sub("", lines[-1], count=1).strip()
    if not action:
        raise AnswerFormatError("the 'ACTION:' line names no action")
    return action


def legal_actions(tenv: Any) -> list[str]:
    """The names of the actions legal now in text env ``tenv`` (its mask where it has one)."""
    import gymnasium as gym

    space = tenv.env.action_space
    if isinstance(space, gym.spaces.Discrete):
        actions: list[Any] = list(range(int(space.n)))
        mask = tenv._extra().get("mask")
        if mask is not None:
            actions = [a for a in actions if mask[a]]
    elif isinstance(space, gym.spaces.MultiDiscrete):
        actions = [list(a) for a in itertools.product(*(range(int(n)) for n in space.nvec))]
    else:  # pragma: no cover - every registered env is one of the two
        raise ValueError(f"no legal-action list for {space}")
    return [tenv.format_action(a) for a in actions[:MAX_SCHEMA_ACTIONS]]


def response_format(actions: list[str]) -> dict[str, Any]:
    """The OpenAI ``response_format`` that allows exactly ``{"action": <one of actions>}``."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "action",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"action": {"type": "string", "enum": actions}},
                "required": ["action"],
                "additionalProperties": False,
            },
        },
    }
