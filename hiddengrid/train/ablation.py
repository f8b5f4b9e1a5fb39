"""What each of the trainer's PPO details is worth: train every variant on several seeds, score
every checkpoint on held-out episodes, print the table.

    python -m hiddengrid.train.ablation --steps 262144 --seeds 0 1 2 --episodes 10000

Variants (see :data:`VARIANTS`; each is a complete set of settings): ``first`` (the first
trainer: next-step autoreset, advantages computed once per rollout, no value clipping, linear
learning-rate anneal), ``core`` (those four changed), ``core`` with one of the four put back,
then the further changes one at a time up to ``defaults`` (the defaults it chose), then
PuffeRL's remaining differences on top (``defaults_vtrace`` is today's defaults). Each run
trains into ``RUNS/<variant>-s<seed>`` and is scored like ``hiddengrid eval --agent ppo
--checkpoint ...``: episode ``k`` is the first episode of ``reset(seed=EVAL_SEED + k)``.
Writes ``RUNS/ablation.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hiddengrid.evaluate import run_episodes
from hiddengrid.train import train
from hiddengrid.train.agent import PPOAgent

FIRST: dict[str, Any] = {
    "autoreset": "next_step",
    "refresh_advantages": False,
    "value_clip": 0.0,
    "lr_schedule": "linear",
    "learning_rate": 3e-4,
    "adam_eps": 1e-5,
    "priority": 0.0,
    "vtrace_clip": 0.0,
}
# The first four details PuffeRL has and the first trainer lacked, with the first trainer's
# step size and Adam settings.
CORE: dict[str, Any] = {
    **FIRST,
    "autoreset": "same_step",
    "refresh_advantages": True,
    "value_clip": 0.2,
    "lr_schedule": "cosine",
}
# Each row is a complete set of settings, so a change of defaults leaves the table meaning
# what it did. ``defaults`` is the defaults the ablation chose (V-trace off);
# ``defaults_vtrace`` below is today's.
VARIANTS: dict[str, dict[str, Any]] = {
    "first": FIRST,
    "core": CORE,
    "core_without_same_step": {**CORE, "autoreset": "next_step"},
    "core_without_refresh": {**CORE, "refresh_advantages": False},
    "core_without_value_clip": {**CORE, "value_clip": 0.0},
    "core_without_cosine": {**CORE, "lr_schedule": "linear"},
    "core_priority": {**CORE, "priority": 0.8},
    "core_priority_eps": {**CORE, "priority": 0.8, "adam_eps": 1e-8},
    "core_priority_eps_linear": {
        **CORE,
        "priority": 0.8,
        "adam_eps": 1e-8,
        "lr_schedule": "linear",
    },
    "defaults": {
        **CORE,
        "priority": 0.8,
        "adam_eps": 1e-8,
        "lr_schedule": "linear",
        "learning_rate": 5e-4,
    },
}
# PuffeRL's remaining differences, tried on top of those defaults; the first became the
# default.
VARIANTS["defaults_vtrace"] = {**VARIANTS["defaults"], "vtrace_clip": 1.0}
VARIANTS["defaults_vtrace_cosine"] = {**VARIANTS["defaults_vtrace"], "lr_schedule": "cosine"}
# today's defaults with the network's passes in bfloat16 mixed precision (an option, not a default)
VARIANTS["defaults_vtrace_bf16"] = {**VARIANTS["defaults_vtrace"], "precision": "bfloat16"}
# today's defaults with half and a quarter of the learning work (passes over each rollout):
# what the time PuffeRL and this trainer both spend learning buys
VARIANTS["defaults_vtrace_epochs2"] = {**VARIANTS["defaults_vtrace"], "epochs": 2}
VARIANTS["defaults_vtrace_epochs1"] = {**VARIANTS["defaults_vtrace"], "epochs": 1}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="hiddengrid/AnomalyMapping-v0")
    parser.add_argument("--steps", type=int, default=262_144)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--eval-seed", type=int, default=0)
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS))
    parser.add_argument("--runs", default="runs/ablation")
    parser.add_argument(
        "--new-env-seeds",
        action="store_true",
        help="train from PPOConfig.env_seed (as hiddengrid train and versus_pufferl do), not "
        "from the legacy seed + i the published ablation used",
    )
    args = parser.parse_args(argv)
    runs = Path(args.runs)
    table_path = runs / "ablation.json"
    rows: list[dict[str, Any]] = json.loads(table_path.read_text()) if table_path.exists() else []
    for variant in args.variant or list(VARIANTS):
        for seed in args.seeds:
            out = runs / f"{variant}-s{seed}"
            start = time.perf_counter()
            result = train(
                args.env,
                total_steps=args.steps,
                seed=seed,
                out_dir=out,
                progress=False,
                reference_episodes=0,
                # the published ablation was trained with the legacy env seeds
                legacy_env_seeds=not args.new_env_seeds,
                **VARIANTS[variant],
            )
            wall = time.perf_counter() - start
            agent = functools.partial(PPOAgent, checkpoint=str(result.checkpoint))
            scored = run_episodes(
                args.env, "ppo", args.episodes, seed=args.eval_seed, agent_factory=agent
            )
            row = {
                "env_id": args.env,
                "variant": variant,
                "seed": seed,
                "steps": result.steps,
                "success": scored.success_rate,
                "episodes": scored.episodes,
                "eval_seed": args.eval_seed,
                "legacy_env_seeds": not args.new_env_seeds,
                "steps_per_second": result.steps_per_second,
                "wall_seconds": wall,
            }
            rows.append(row)
            runs.mkdir(parents=True, exist_ok=True)
            table_path.write_text(json.dumps(rows, indent=1))
            print(json.dumps(row), flush=True)
    print_table(rows)
    return 0


def print_table(rows: list[dict[str, Any]]) -> None:
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["variant"], []).append(row)
    print("| variant | seeds | success per seed | mean | steps/s (mean) |")
    print("|---|---|---|---|---|")
    for variant, group in by.items():
        group.sort(key=lambda r: r["seed"])
        per = " / ".join(f"{r['success']:.1%}" for r in group)
        mean = sum(r["success"] for r in group) / len(group)
        sps = sum(r["steps_per_second"] for r in group) / len(group)
        seeds = ",".join(str(r["seed"]) for r in group)
        print(f"| {variant} | {seeds} | {per} | {mean:.1%} | {sps:,.0f} |")


if __name__ == "__main__":
    sys.exit(main())
