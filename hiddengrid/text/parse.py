"""The text protocol shared by every env: strict parsing of text actions.

Tolerant in form (case, surrounding spaces, a trailing period, ``[move north]``, backticks or
quotes, a bare action number), strict in meaning: no fuzzy matching, and an answer that holds
two different commands is ambiguous and invalid.

One grammar wherever games share a concept:

* a move is ``move north`` or just ``north`` (``south``, ``east``, ``west`` alike);
* doing nothing is ``wait`` or ``hold``;
* an action number is ASCII digits only (``"3"``, never ``"\u0663"`` or a full-width ``"3"``).

An invalid answer is quoted back in the reason only up to :data:`ECHO_LIMIT` characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence


class TextActionError(ValueError):
    """A text answer that is not exactly one legal action; the message says why."""


_WRAPPERS = ("[]", "()", "``", '""', "''", "<>", "**")
DIRECTIONS = ("north", "south", "east", "west")
IDLE_WORDS = ("wait", "hold")
ECHO_LIMIT = 60  # characters of an invalid answer quoted back in the reason
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: \d would take any script's digits
_MAX_DIGITS = 9  # longer numbers are out of range for any action, without converting them


def quote(s: str) -> str:
    """``repr(s)``, cut to :data:`ECHO_LIMIT` characters with the full length said."""
    if len(s) <= ECHO_LIMIT:
        return repr(s)
    return f"{s[:ECHO_LIMIT]!r}... ({len(s)} characters)"


def parse_number(s: str, count: int, what: str = "action number") -> int | None:
    """``s`` as a number in ``0..count-1`` if it is ASCII digits, ``None`` if it is not a
    number at all; ``TextActionError`` if it is one out of range (however long)."""
    if not _DIGITS.fullmatch(s):
        return None
    if len(s) > _MAX_DIGITS or int(s) >= count:
        raise TextActionError(f"{what} {quote(s)} is out of range 0..{count - 1}")
    return int(s)


def shared_aliases(names: Sequence[str]) -> dict[str, int]:
    """The shared grammar's short forms of ``names``: ``north`` for ``move north``, and
    ``wait``/``hold`` for whichever of the two the game calls its idle action."""
    aliases: dict[str, int] = {}
    for k, name in enumerate(names):
        words = name.split()
        if len(words) == 2 and words[0] == "move" and words[1] in DIRECTIONS:
            aliases[words[1]] = k
        if name in IDLE_WORDS:
            aliases.update(dict.fromkeys(IDLE_WORDS, k))
    return aliases


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


def parse_choice(
    text: object, names: Sequence[str], aliases: Mapping[str, int] | None = None
) -> int:
    """Index of the one command ``text`` names: its exact phrase, an alias or its number.

    ``names`` are lower-case phrases such as ``"move north"``; ``aliases`` maps further exact
    phrases to actions (by default the shared grammar's, :func:`shared_aliases`). The answer
    must be exactly one phrase or one number after :func:`normalize`; anything else raises
    ``TextActionError``.
    """
    s = normalize(text)
    value = parse_number(s, len(names))
    if value is not None:
        return value
    for k, name in enumerate(names):
        if s == name:
            return k
    aliases = shared_aliases(names) if aliases is None else aliases
    if s in aliases:
        return aliases[s]
    found = sorted({k for k, name in enumerate(names) if re.search(rf"\b{re.escape(name)}\b", s)})
    if len(found) > 1:
        listed = ", ".join(repr(names[k]) for k in found)
        raise TextActionError(f"ambiguous answer: it names several actions ({listed})")
    if len(found) == 1:
        raise TextActionError(
            f"answer {quote(s)} is not exactly an action; write only {names[found[0]]!r}"
        )
    raise TextActionError(
        f"unknown action {quote(s)}; valid actions: " + ", ".join(repr(n) for n in names)
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
