"""The README's results table, written from the one source ``hiddengrid eval --json`` wrote.

    hiddengrid eval --json docs/bench/eval.json
    python -m hiddengrid.design.results_table docs/bench/eval.json README.md

rewrites the table between ``<!-- results:begin -->`` and ``<!-- results:end -->`` in the
README; ``tests/test_docs_tables.py`` checks that the README holds exactly what this renders
from ``docs/bench/eval.json``, so a figure is never retyped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hiddengrid.evaluation.plan import format_percent

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

# What each agent is (the README's column "kind"); an agent not named here is a reference.
KINDS = {
    "random": "floor",
    "heuristic": "fair heuristic",
    "oracle": "oracle (reads the scenario)",
    "exact-position": "non-fair reference (told its position)",
}


def render(rows: list[dict[str, Any]]) -> str:
    """The markdown table of ``hiddengrid eval --json`` rows."""
    lines = [
        "| env | agent | kind | success | 95 % interval | mean return | mean length |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        low, high = row["ci95"]
        env = row["env"].split("/", 1)[1]
        args = ", ".join(f"{k}={v}" for k, v in row.get("env_kwargs", {}).items())
        label = f"`{env}`" + (f" ({args})" if args else "")
        lines.append(
            f"| {label} | {row['agent']} | {KINDS.get(row['agent'], 'reference')} | "
            f"{format_percent(row['success_rate'])} | "
            f"[{format_percent(low)}, {format_percent(high)}] | "
            f"{row['mean_return']:.3f} | {row['mean_length']:.2f} |"
        )
    return "\n".join(lines)


def replace_table(page: str, table: str) -> str:
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise ValueError(f"the page must hold {BEGIN} and {END} once each")
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m hiddengrid.design.results_table EVAL_JSON PAGE", file=sys.stderr)
        return 2
    source, page = Path(argv[0]), Path(argv[1])
    table = render(json.loads(source.read_text()))
    page.write_text(replace_table(page.read_text(), table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
