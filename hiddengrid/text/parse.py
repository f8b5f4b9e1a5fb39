"""The text protocol shared by every env: strict parsing of text actions.

Tolerant in form (case, surrounding spaces, a trailing period, ``[move north]``, backticks or
quotes, bold, an ``Action:`` prefix, wrappers in any order, a bare action number, and the
prompt's own listing forms ``0 move north``, ``0. move north``, ``move north (0)``), strict in
meaning: no fuzzy matching, a number and a name that disagree are invalid, and an answer that
holds two different commands is ambiguous and invalid. A reason never suggests an action: a
model that copies the hint would be playing the parser's move, not its own.

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
_PREFIXES = ("action:", "**action:**", "**action**:")
# The prompt lists actions as "0 move north, 1 move south, ...": a model copying one entry
# writes "0 move north", "0. move north", "0: move north" or "move north (0)".
_NUMBER_FIRST = re.compile(r"([0-9]{1,9})\s*[.:)]?\s+(\S.*)")
_NUMBER_LAST = re.compile(r"(\S.*?)\s*\(([0-9]{1,9})\)")
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
    # Peeled in any order ("**Action: [move north]**", "Action: **move north**.").
    while changed and s:
        changed = False
        stripped = s.rstrip(".!").strip()
        for prefix in _PREFIXES:
            if stripped.startswith(prefix):
                stripped = stripped[len(prefix) :].strip()
        for pair in _WRAPPERS:
            if len(stripped) >= 2 and stripped[0] == pair[0] and stripped[-1] == pair[1]:
                stripped = stripped[1:-1].strip()
        changed = stripped != s
        s = stripped
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
    aliases = shared_aliases(names) if aliases is None else aliases
    exact = _exact(s, names, aliases)
    if exact is not None:
        return exact
    first, last = _NUMBER_FIRST.fullmatch(s), _NUMBER_LAST.fullmatch(s)
    if first is not None or last is not None:
        number, phrase = first.groups() if first is not None else last.groups()[::-1]  # type: ignore[union-attr]
        named = _exact(normalize(phrase), names, aliases, numbers=False)
        if named is not None:
            if int(number) != named:
                raise TextActionError(
                    f"answer {quote(s)} gives a number and a name of different actions"
                )
            return named
    found = sorted({k for k, name in enumerate(names) if re.search(rf"\b{re.escape(name)}\b", s)})
    if len(found) > 1:
        raise TextActionError(f"ambiguous answer: it names {len(found)} different actions")
    if len(found) == 1:
        raise TextActionError(
            f"answer {quote(s)} is not exactly an action: write one action alone, by its name "
            "or its number"
        )
    raise TextActionError(
        f"unknown action {quote(s)}; valid actions: " + ", ".join(repr(n) for n in names)
    )


def _exact(
    s: str, names: Sequence[str], aliases: Mapping[str, int], numbers: bool = True
) -> int | None:
    """The action ``s`` is exactly (a number, a name or an alias), else ``None``."""
    if numbers:
        value = parse_number(s, len(names))
        if value is not None:
            return value
    for k, name in enumerate(names):
        if s == name:
            return k
    return aliases.get(s)


def grid_lines(rows: Sequence[str], col_labels: Sequence[str], row_labels: Sequence[str]) -> str:
    """A character grid with column labels on top and row labels on the left."""
    width = max(len(label) for label in row_labels)
    head = " " * (width + 1) + " ".join(f"{c:>2}" for c in col_labels)
    body = [
        f"{label:>{width}} " + " ".join(f"{ch:>2}" for ch in row)
        for label, row in zip(row_labels, rows, strict=True)
    ]
    return "\n".join([head, *body])
