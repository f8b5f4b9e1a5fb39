"""The run folder on disk: atomic writes, one run at a time, and records checked on reading.

A run folder is read back by ``resume`` and ``report``, and may have been damaged (a disk
filled, a copy cut short) or edited by hand. Every way it can be wrong ends as one
:class:`RunDirError` line that names the file and what is wrong, never a traceback:

* each episode line carries a ``digest`` (SHA-256 of the rest of the line), so a record edited
  after it was written is named, not trusted;
* a torn last line (a run killed while writing) is the one defect dropped silently, because the
  resume replays its trial anyway;
* files are replaced atomically (written beside, then renamed), so a run killed while it
  rewrites its records loses nothing;
* a lock file keeps a second run out of a folder in use (it would play everything twice).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LOCK = "run.lock"


class RunDirError(ValueError):
    """The results folder holds a different run, is in use, or is damaged."""


def write_atomic(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` so that a reader (or a crash) sees the old or the new file,
    never a half-written one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


@contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Holds the folder's lock; a second holder (in any process) gets a ``RunDirError``."""
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): run unlocked, as before
        yield
        return
    fh = open(run_dir / LOCK, "a+")  # noqa: SIM115  (closed below)
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise RunDirError(
                f"{run_dir} is in use by another run ({holder}); wait for it to end or give "
                "another --out"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}\n")
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()


def digest_of(record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its ``digest`` (recomputed from everything else in it)."""
    return {**{k: v for k, v in record.items() if k != "digest"}, "digest": digest_of(record)}


def record_line(record: dict[str, Any]) -> str:
    return json.dumps(seal(record), allow_nan=False) + "\n"


_NUMBER = (int, float)
_RECORD = {
    "env": str,
    "trial": int,
    "index": int,
    "seed": int,
    "outcome": str,
    "return": _NUMBER,
    "success": bool,
    "steps": int,
    "answers": int,
    "invalid": int,
    "tokens_in": int,
    "tokens_out": int,
    "latency_s": _NUMBER,
    "retries": int,
    "final": str,
    "turns": list,
    "digest": str,
}
_TURN = {
    "observation": str,
    "answer": str,
    "reward": _NUMBER,
    "tokens_in": int,
    "tokens_out": int,
    "latency_s": _NUMBER,
    "retries": int,
    "finish_reason": str,
}
_TURN_OPTIONAL = {"action": str, "invalid": str, "sent": str, "thinking": str, "fallback": str}


def _kind_ok(value: Any, kind: Any) -> bool:
    if kind is not bool and isinstance(value, bool):
        return False  # JSON true is not a count
    if not isinstance(value, kind):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def check_record(record: Any, config: dict[str, Any]) -> str | None:
    """What is wrong with one parsed episode line, or ``None``."""
    if not isinstance(record, dict):
        return "not a JSON object"
    for key, kind in _RECORD.items():
        if key not in record:
            return f"no {key!r}"
        if not _kind_ok(record[key], kind):
            return f"{key!r} has the wrong type"
    if record["digest"] != digest_of(record):
        return "its digest does not match its content (edited after it was written)"
    # Sealed but from another run (a line pasted from another folder).
    if record["env"] not in config["envs"]:
        return f"env {record['env']!r} is not one of this run's envs"
    trial_episodes = int(config["trial_episodes"])
    trials = int(config["episodes"]) // trial_episodes
    if not (0 <= record["trial"] < trials and 0 <= record["index"] < trial_episodes):
        return "trial or episode index out of this run's range"
    expected = int(config["seed"]) + record["trial"] * trial_episodes + record["index"]
    if record["seed"] != expected:
        return f"seed {record['seed']} is not this run's seed for that episode ({expected})"
    for n, turn in enumerate(record["turns"]):
        if not isinstance(turn, dict):
            return f"turn {n} is not a JSON object"
        for key, kind in _TURN.items():
            if key not in turn or not _kind_ok(turn[key], kind):
                return f"turn {n}: {key!r} is missing or has the wrong type"
        for key, kind in _TURN_OPTIONAL.items():
            if turn.get(key) is not None and not _kind_ok(turn[key], kind):
                return f"turn {n}: {key!r} has the wrong type"
    if record["answers"] != len(record["turns"]):
        return "its answer count differs from its turns"
    return None


def read_records(path: Path, config: dict[str, Any]) -> list[dict[str, Any]]:
    """Every episode line of ``path``, checked; a torn last line is dropped, any other damaged
    line is a ``RunDirError`` naming it."""
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise RunDirError(f"{path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    lines = data.split(b"\n")
    # The part after the last newline is empty, or a line torn by a kill: never a record.
    lines.pop()
    records = []
    seen: set[tuple[str, int, int]] = set()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
            problem = check_record(record, config)
        except (UnicodeDecodeError, ValueError, RecursionError):
            problem = "not a JSON line"
        if problem is None:
            key = (record["env"], record["trial"], record["index"])
            problem = "the same episode a second time" if key in seen else None
            seen.add(key)
        if problem is not None:
            raise RunDirError(
                f"{path}, line {number}, is damaged: {problem}; delete that line (its trial is "
                "played again on resume) or the folder"
            )
        records.append(record)
    return records


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object file of the folder, or a ``RunDirError`` saying why it is not one."""
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise RunDirError(f"{path.parent} is not a run folder (it has no {path.name})") from None
    except OSError as exc:
        raise RunDirError(f"{path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RunDirError(f"{path} is damaged: not a JSON file") from None
    if not isinstance(value, dict):
        raise RunDirError(f"{path} is damaged: not a JSON object")
    return value
