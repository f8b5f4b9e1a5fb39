"""Scores the baseline checkpoints and draws the published learning curves.

    python -m hiddengrid.train.report [--episodes 10000]

Reads the runs :mod:`hiddengrid.train.baselines` wrote (``runs/baselines/<name>``, CSVs also
in ``docs/baselines``), scores every checkpoint with ``hiddengrid eval``'s harness (episode
``k`` is ``reset(seed=k)``, the same episodes as the README's table), scores the env's own
agents on the same episodes, and writes ``docs/images/<env>_curve.png`` per env,
``docs/baselines/results.json`` and a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from hiddengrid.evaluate import format_percent, run_episodes, wilson_interval
from hiddengrid.registry import definition_of
from hiddengrid.train.agent import PPOAgent
from hiddengrid.train.plot import plot_curves

NAME = re.compile(r"^(?P<env>.+)-(?P<policy>mlp|gru|lstm)(?P<rl2>-rl2)?-s(?P<seed>\d+)$")


def snake(env_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", env_name.replace("-v0", "")).lower().replace("-", "")


def label(policy: str, rl2: bool) -> str:
    kind = {"mlp": "feed-forward", "gru": "GRU", "lstm": "LSTM"}[policy]
    return f"{kind}, memory across episodes" if rl2 else kind


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="runs/baselines")
    parser.add_argument("--images", default="docs/images")
    parser.add_argument("--out", default="docs/baselines/results.json")
    parser.add_argument("--episodes", type=int, default=10_000)
    args = parser.parse_args(argv)
    runs: dict[str, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for run in sorted(Path(args.runs).iterdir()):
        m = NAME.match(run.name)
        if m and (run / "checkpoint.pt").is_file():
            runs[m["env"]][label(m["policy"], bool(m["rl2"]))].append(run)
    results = []
    for env_name, groups in runs.items():
        env_id = f"hiddengrid/{env_name}"
        refs, return_refs = {}, {}
        for agent in definition_of(env_id).agents:
            r = run_episodes(env_id, agent, args.episodes)
            refs[agent] = r.success_rate
            return_refs[agent] = r.mean_return
            low, high = r.interval
            results.append(
                {"env": env_id, "agent": agent, "success": r.success_rate, "ci95": [low, high]}
            )
        for name, paths in groups.items():
            per_seed, wins, steps = [], 0, 0
            for run in paths:
                ckpt = str(run / "checkpoint.pt")
                r = run_episodes(
                    env_id,
                    "ppo",
                    args.episodes,
                    agent_factory=lambda env, seed, c=ckpt: PPOAgent(env, seed, checkpoint=c),
                )
                per_seed.append(r.success_rate)
                wins += r.successes
                with open(run / "progress.csv") as fh:
                    steps = max(steps, int(fh.readlines()[-1].split(",")[0]))
            n = args.episodes * len(paths)
            low, high = wilson_interval(wins, n)
            results.append(
                {
                    "env": env_id,
                    "agent": f"PPO {name}",
                    "success": wins / n,
                    "ci95": [low, high],
                    "per_seed": per_seed,
                    "steps": steps,
                }
            )
        image = Path(args.images) / f"{snake(env_name)}_curve.png"
        plot_curves(
            {name: [p / "progress.csv" for p in paths] for name, paths in groups.items()},
            image,
            title=f"{env_id}: PPO baselines (thin lines: seeds, thick: their mean)",
            references=refs,
            return_references=return_refs,
        )
        print(f"wrote {image}", file=sys.stderr)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(results, fh, indent=2)
    print("| env | agent | steps | success | 95 % interval | per seed |")
    print("|---|---|---|---|---|---|")
    for r in results:
        seeds = ", ".join(format_percent(s) for s in r.get("per_seed", []))
        steps = f"{r['steps'] / 1e6:.1f}M" if "steps" in r else ""
        low, high = r["ci95"]
        print(
            f"| `{r['env'].split('/')[-1]}` | {r['agent']} | {steps} | "
            f"{format_percent(r['success'])} | [{format_percent(low)}, {format_percent(high)}] "
            f"| {seeds} |"
        )
    print("(the pages' tables: python -m hiddengrid.design.results_table)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
