"""How a model is asked to answer, and how its action is read from the answer.

Two modes. *Direct*: the whole answer is the action (the text env's parser reads it). *Reasoning*:
the model may think freely, then ends with a marked last line ``ACTION: <action>``; only that line
is read, strictly (the marker, exactly once, on the last non-empty line). An answer that breaks
the format is an invalid answer exactly like an unparseable action: the text env counts it, it
costs no step, and too many in a row end the episode.
"""

from __future__ import annotations

import re

DIRECT_INSTRUCTION = (
    "Answer with exactly one action and nothing else, for example the action's name or number."
)
REASONING_INSTRUCTION = (
    "Think step by step as long as you need. Then end your answer with one last line of the "
    "form\nACTION: <one action>\nfor example `ACTION: move north`. Only that last line is read."
)
# Direct answers are one short line; reasoning needs room to think before the marked line.
DEFAULT_MAX_TOKENS = {False: 64, True: 4096}

_MARKER = re.compile(r"^\s*\**\s*action\s*\**\s*:\s*\**", re.IGNORECASE)


class AnswerFormatError(ValueError):
    """A reasoning answer without exactly one marked ``ACTION:`` line at its end."""


def instruction(reasoning: bool) -> str:
    return REASONING_INSTRUCTION if reasoning else DIRECT_INSTRUCTION


def default_max_tokens(reasoning: bool) -> int:
    return DEFAULT_MAX_TOKENS[bool(reasoning)]


def extract_action(answer: str, reasoning: bool) -> str:
    """The text to hand to the text env: the whole answer, or the marked last line's action."""
    if not reasoning:
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
