"""Models side by side with the baselines: one row per LLM run and per baseline agent, success per
env, and one normalised score.

The normalised score of an env is ``(success - random) / (oracle - random)``: 0 plays like the
random agent, 1 like the oracle (BALROG's idea of progression, on success here). It is left
out where the oracle does no better than random. The score of a row is the mean over the envs it
has a score for. Baselines play exactly the episodes the run played (the same seeds, the same
env arguments), so each comparison is episode for episode.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

BASELINES = ("random", "heuristic", "oracle")


def _baseline(env_id: str, agent: str, episodes: int, seed: int, kwargs: dict[str, Any]) -> float:
    from hiddengrid.evaluate import run_episodes

    return run_episodes(env_id, agent, episodes, seed=seed, env_kwargs=kwargs).success_rate


def normalised(success: float, random: float, oracle: float) -> float | None:
    if oracle - random <= 1e-12:
        return None
    return (success - random) / (oracle - random)


def leaderboard(run_dirs: list[str | Path]) -> dict[str, Any]:
    """Rows for every run and the baselines of the envs and episodes they played."""
    from hiddengrid.llm.run import read_run
    from hiddengrid.llm.summary import summarize

    runs = []
    for folder in run_dirs:
        config, records = read_run(folder)
        runs.append((Path(folder), config, summarize(records, config)))
    # One baseline per (env, episodes, seed, env arguments) the runs played.
    keys: dict[str, tuple[int, int, str]] = {}
    baseline: dict[tuple[str, int, int, str], dict[str, float]] = {}
    for _, config, summary in runs:
        for env_id, s in summary["envs"].items():
            kwargs = config["env_kwargs"].get(env_id, {})
            key = (env_id, s["episodes"], config["seed"], json.dumps(kwargs, sort_keys=True))
            if key not in baseline and s["episodes"]:
                baseline[key] = {
                    agent: _baseline(env_id, agent, s["episodes"], config["seed"], kwargs)
                    for agent in BASELINES
                }
            keys[env_id] = key[1:]
    envs = list(dict.fromkeys(e for _, c, _ in runs for e in c["envs"]))
    rows = []
    for folder, config, summary in runs:
        cells: dict[str, Any] = {}
        turns = tokens = 0
        latency = 0.0
        for env_id, s in summary["envs"].items():
            kwargs = json.dumps(config["env_kwargs"].get(env_id, {}), sort_keys=True)
            base = baseline.get((env_id, s["episodes"], config["seed"], kwargs))
            score = None
            if base is not None:
                score = normalised(s["success_rate"], base["random"], base["oracle"])
            cells[env_id] = {"success": s["success_rate"], "score": score, "n": s["episodes"]}
            turns += s["answers"]
            tokens += s["tokens_in"] + s["tokens_out"]
            latency += s["latency_s_total"]
        rows.append(
            _row(
                f"{config['model']} ({config['answer_format']})",
                str(folder),
                cells,
                tokens_per_answer=tokens / turns if turns else None,
                latency_per_answer=latency / turns if turns else None,
            )
        )
    for agent in BASELINES:
        cells = {}
        for env_id in envs:
            key = (env_id, *keys[env_id]) if env_id in keys else None
            if key is None or key not in baseline:
                continue
            base = baseline[key]
            cells[env_id] = {
                "success": base[agent],
                "score": normalised(base[agent], base["random"], base["oracle"]),
                "n": key[1],
            }
        rows.append(_row(agent, "baseline", cells))
    return {"envs": envs, "rows": rows}


def _row(name: str, source: str, cells: dict[str, Any], **extra: Any) -> dict[str, Any]:
    scores = [c["score"] for c in cells.values() if c["score"] is not None]
    return {
        "name": name,
        "source": source,
        "cells": cells,
        "score": sum(scores) / len(scores) if scores else None,
        "tokens_per_answer": extra.get("tokens_per_answer"),
        "latency_per_answer": extra.get("latency_per_answer"),
    }


def _fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def format_text(board: dict[str, Any]) -> str:
    """The leaderboard as a plain-text table (success % / normalised score per env)."""
    short = [e.split("/")[-1].removesuffix("-v0") for e in board["envs"]]
    # Each column as wide as its env's name, so that no two names are cut to the same text.
    widths = [max(16, len(s)) for s in short]
    head = f"{'agent':<34} {'score':>6} " + " ".join(
        f"{s:>{w}}" for s, w in zip(short, widths, strict=True)
    )
    head += f" {'tok/ans':>8} {'s/ans':>7}"
    lines = [head, "-" * len(head)]
    for row in board["rows"]:
        cells = []
        for env_id, width in zip(board["envs"], widths, strict=True):
            c = row["cells"].get(env_id)
            text = "-" if c is None else f"{c['success']:.0%} / {_fmt(c['score'], '.2f')}"
            cells.append(f"{text:>{width}}")
        lines.append(
            f"{row['name'][:34]:<34} {_fmt(row['score'], '.2f'):>6} "
            + " ".join(cells)
            + f" {_fmt(row['tokens_per_answer'], '.0f'):>8}"
            + f" {_fmt(row['latency_per_answer'], '.2f'):>7}"
        )
    return "\n".join(lines)


def leaderboard_html(board: dict[str, Any]) -> str:
    """The leaderboard as an HTML table (for the report page)."""
    short = [escape(e.split("/")[-1]) for e in board["envs"]]
    head = (
        "<tr><th>agent</th><th>normalised score</th>"
        + "".join(f"<th>{s}<br>success / score</th>" for s in short)
        + "<th>tokens per answer</th><th>seconds per answer</th></tr>"
    )
    body = []
    for row in board["rows"]:
        cells = []
        for env_id in board["envs"]:
            c = row["cells"].get(env_id)
            cells.append(
                "<td>-</td>"
                if c is None
                else f"<td>{c['success']:.1%} / {_fmt(c['score'], '.2f')} (n={c['n']})</td>"
            )
        body.append(
            f"<tr><td title='{escape(row['source'])}'>{escape(row['name'])}</td>"
            f"<td>{_fmt(row['score'], '.2f')}</td>{''.join(cells)}"
            f"<td>{_fmt(row['tokens_per_answer'], '.0f')}</td>"
            f"<td>{_fmt(row['latency_per_answer'], '.3f')}</td></tr>"
        )
    note = (
        "<p class='meta'>Normalised score: (success - random) / (oracle - random) per env, on "
        "the episodes the run played; the row's score is the mean over its envs.</p>"
    )
    return f"<div class='wide'><table class='summary'>{head}{''.join(body)}</table></div>{note}"


def write_leaderboard(run_dirs: list[str | Path], out: str | Path) -> tuple[Path, str]:
    """Writes the leaderboard page of several runs; returns its path and the text table."""
    from hiddengrid.llm.folder import write_atomic
    from hiddengrid.report.page import render_page

    board = leaderboard(run_dirs)
    meta = f"{len(run_dirs)} runs: " + ", ".join(str(d) for d in run_dirs)
    body = "<h2>Leaderboard</h2>" + leaderboard_html(board)
    target = Path(out)
    write_atomic(target, render_page("hiddengrid LLM leaderboard", meta, body, [], viewer=False))
    return target, format_text(board)
