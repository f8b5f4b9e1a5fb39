"""A model's results as a Markdown table, made from run folders (never typed by hand).

    python -m hiddengrid.llm.table RUN_DIR [RUN_DIR ...]

One row per (run, env): the answer format and its max tokens, episodes, success, answers, the
invalid-answer rate, tokens in and out and seconds per answer, and how the episodes ended. The
documentation's real-model table is this command's output, and a test keeps the two equal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

HEAD = (
    "| env | format | max tokens | episodes | success | answers | invalid | tokens in / answer "
    "| tokens out / answer | s / answer | outcomes |"
)
RULE = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"


def model_table(run_dirs: Sequence[str | Path]) -> str:
    """The table of ``run_dirs`` in their order, each run's envs in its order."""
    from hiddengrid.llm.run import read_run
    from hiddengrid.llm.summary import summarize

    lines = [HEAD, RULE]
    for folder in run_dirs:
        config, records = read_run(folder)
        summary = summarize(records, config)
        for env_id, s in summary["envs"].items():
            n = s["answers"]
            per = (
                (s["tokens_in"] / n, s["tokens_out"] / n, s["latency_s_total"] / n)
                if n
                else (0.0, 0.0, 0.0)
            )
            outcomes = ", ".join(f"{k} {v}" for k, v in s["outcomes"].items())
            lines.append(
                f"| {env_id.split('/')[-1]} | {config['answer_format']} | {config['max_tokens']} "
                f"| {s['episodes']} | {s['success_rate']:.0%} | {n} | {s['invalid_rate']:.0%} "
                f"| {per[0]:.0f} | {per[1]:.1f} | {per[2]:.1f} | {outcomes} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from hiddengrid.llm.folder import RunDirError

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or any(a.startswith("-") for a in args):
        print("usage: python -m hiddengrid.llm.table RUN_DIR [RUN_DIR ...]", file=sys.stderr)
        return 2
    try:
        print(model_table(args))
    except RunDirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
