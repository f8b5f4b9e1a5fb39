"""Reruns the published PPO baselines: every (env, policy) of :data:`GRID`, several seeds.

    python -m hiddengrid.train.baselines --steps 2000000 --seeds 0 1 2 [--only ID ...]

Each run trains into ``runs/baselines/<name>`` (checkpoint, CSV, plot) and copies its CSV to
``docs/baselines/<name>.csv``, where :mod:`hiddengrid.train.report` reads the curves from.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from hiddengrid.train import train

# (env id, policy, memory across episodes)
GRID: tuple[tuple[str, str, bool], ...] = (
    ("hiddengrid/AnomalyMapping-v0", "mlp", False),
    ("hiddengrid/AnomalyMapping-v0", "gru", False),
    ("hiddengrid/InvertedTreasure-Scout-v0", "mlp", False),
    ("hiddengrid/InvertedTreasure-Scout-v0", "gru", False),
    ("hiddengrid/FieldCipher-v0", "mlp", False),
    ("hiddengrid/FieldCipher-v0", "gru", True),
    ("hiddengrid/InvertedTreasure-Scout-v0", "gru", True),
    ("hiddengrid/InvertedTreasure-v0", "mlp", False),
    ("hiddengrid/SquadRecon-v0", "mlp", False),
    ("hiddengrid/Megacity-v0", "mlp", False),
)


def run_name(env_id: str, policy: str, memory: bool, seed: int) -> str:
    return f"{env_id.split('/')[-1]}-{policy}{'-rl2' if memory else ''}-s{seed}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--only", action="append", metavar="ID", help="env id (repeatable)")
    parser.add_argument("--policy", action="append", choices=("mlp", "gru", "lstm"))
    parser.add_argument(
        "--memory", choices=("on", "off"), help="only runs with (or without) memory across episodes"
    )
    parser.add_argument("--runs", default="runs/baselines")
    parser.add_argument("--csv-dir", default="docs/baselines")
    args = parser.parse_args(argv)
    csv_dir = Path(args.csv_dir)
    csv_dir.mkdir(parents=True, exist_ok=True)
    for env_id, policy, memory in GRID:
        if args.only and env_id not in args.only:
            continue
        if args.policy and policy not in args.policy:
            continue
        if args.memory and memory != (args.memory == "on"):
            continue
        for seed in args.seeds:
            name = run_name(env_id, policy, memory, seed)
            result = train(
                env_id,
                policy=policy,
                memory_across_episodes=memory,
                seed=seed,
                total_steps=args.steps,
                out_dir=Path(args.runs) / name,
                progress=False,
            )
            shutil.copy(result.csv, csv_dir / f"{name}.csv")
            print(
                f"{name}: {result.steps} steps, success {result.success_rate:.1%} (last 10 %), "
                f"{result.steps_per_second:,.0f} steps/s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
