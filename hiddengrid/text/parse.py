"""The text protocol shared by every env: strict parsing of text actions.

Tolerant in form (case, surrounding spaces, a trailing period, ``[move north]``, backticks or
quotes, a bare action number), strict in meaning: no fuzzy matching, and an answer that holds
two different commands is ambiguous and invalid.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


class TextActionError(ValueError):
    """A text answer that is not exactly one legal action; the message says why."""


_WRAPPERS = ("[]", "()", "``", '""', "''", "<>", "**")


def normalize(text: object) -> str:
    """Lower-case, single-spaced, without a trailing period or one pair of wrapping marks."""
    if not isinstance(text, str):
        raise TextActionError(f"an action must be text, got {type(text).__name__}")
    s = " ".join(text.strip().lower().split())
    changed = True
    while changed and s:
        changed = False
        s = s.rstrip(".!").strip()
        for pair in _WRAPPERS:
            if len(s) >= 2 and s[0] == pair[0] and s[-1] == pair[1]:
                s = s[1:-1].strip()
                changed = True
    if s.startswith("action:"):
        s = s[len("action:") :].strip()
    if not s:
        raise TextActionError("empty answer: give exactly one action")
    return s


def parse_choice(text: object, names: Sequence[str]) -> int:
    """Index of the one command ``text`` names: its exact phrase or its action number.

    ``names`` are lower-case phrases such as ``"move north"``. The answer must be exactly one
    phrase or one number after :func:`normalize`; anything else raises ``TextActionError``.
    """
    s = normalize(text)
    if re.fullmatch(r"\d+", s):
        value = int(s)
        if value >= len(names):
            raise TextActionError(f"action number {value} is out of range 0..{len(names) - 1}")
        return value
    for k, name in enumerate(names):
        if s == name:
            return k
    found = sorted({k for k, name in enumerate(names) if re.search(rf"\b{re.escape(name)}\b", s)})
    if len(found) > 1:
        listed = ", ".join(repr(names[k]) for k in found)
        raise TextActionError(f"ambiguous answer: it names several actions ({listed})")
    if len(found) == 1:
        raise TextActionError(
            f"answer {s!r} is not exactly an action; write only {names[found[0]]!r}"
        )
    raise TextActionError(
        f"unknown action {s!r}; valid actions: " + ", ".join(repr(n) for n in names)
    )


def grid_lines(rows: Sequence[str], col_labels: Sequence[str], row_labels: Sequence[str]) -> str:
    """A character grid with column labels on top and row labels on the left."""
    width = max(len(label) for label in row_labels)
    head = " " * (width + 1) + " ".join(f"{c:>2}" for c in col_labels)
    body = [
        f"{label:>{width}} " + " ".join(f"{ch:>2}" for ch in row)
        for label, row in zip(row_labels, rows, strict=True)
    ]
    return "\n".join([head, *body])
