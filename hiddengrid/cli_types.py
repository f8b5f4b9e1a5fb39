"""The command line's argument types: each reads one value or refuses it with one line that
says what was wrong and what is valid (argparse adds the option's name)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from hiddengrid.registry import ENV_IDS


def echo(text: str, limit: int = 40) -> str:
    """A value quoted back, cut short: a 5,000-digit number is not worth printing whole."""
    return repr(text) if len(text) <= limit else f"{text[:20]!r}... ({len(text)} characters)"


def _integer(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{echo(text)} is not an integer; {what}") from None
    if value < low:
        shown = str(value) if len(str(value)) <= 40 else echo(str(value))  # a number: unquoted
        raise argparse.ArgumentTypeError(f"{shown} is out of range; {what}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "give an integer >= 1")


def seed_int(text: str) -> int:
    return _integer(text, 0, "a seed is an integer >= 0")


def nonnegative_int(text: str) -> int:
    return _integer(text, 0, "give an integer >= 0")


def _number(text: str, strict: bool) -> float:
    what = "give a number > 0" if strict else "give a number >= 0"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{echo(text)} is not a number; {what}") from None
    if not (math.isfinite(value) and (value > 0 if strict else value >= 0)):
        raise argparse.ArgumentTypeError(f"{echo(text)} is out of range; {what}")
    return value


def nonnegative_float(text: str) -> float:
    return _number(text, strict=False)


def positive_float(text: str) -> float:
    return _number(text, strict=True)


def env_id_arg(text: str) -> str:
    """A registered id; the ``hiddengrid/`` prefix may be left out."""
    for candidate in (text, f"hiddengrid/{text}"):
        if candidate in ENV_IDS:
            return candidate
    raise argparse.ArgumentTypeError(f"unknown env {text!r}; registered: {', '.join(ENV_IDS)}")


def env_arg(text: str) -> tuple[str, Any]:
    """``key=value``; the value is read as JSON (``2``, ``true``), else kept as text."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not key=value (e.g. level=2)")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    except RecursionError:  # "[[[[...]]]]" thousands deep
        raise argparse.ArgumentTypeError(f"{echo(text)}: the value is nested too deeply") from None
    return key.strip(), value
