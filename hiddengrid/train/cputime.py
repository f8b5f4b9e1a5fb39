"""Process CPU time per env step of the first trainer's settings against today's defaults.

    python -m hiddengrid.train.cputime [--env ID] [--steps 131072] [--repeats 3] [--pufferl]
        [--precision float32|bfloat16]
    python -m hiddengrid.train.cputime --recipe NAME --recipe NAME ... [--steps N] [--repeats R]

Wall-clock steps/s on a shared machine moves with the other jobs; the CPU time this process
spends (``time.process_time``: user + system, all its threads) per env step does not, or far
less. Each repeat trains every variant once (the first trainer's settings, trainer v2 with
V-trace off as the published rows were trained, today's defaults), alternating, in this one
process after a warm-up run that compiles the env's kernels; the table gives each variant's
median microseconds of CPU per env step and the ratios. ``--pufferl`` adds PufferLib's
PuffeRL with the same network, inputs and settings as the defaults
(:mod:`hiddengrid.train.pufferl_runner`) to each repeat. ``--recipe`` times named recipes
against each other instead, on their env: ``--steps`` of cloning where the recipe clones, then
``--steps`` of PPO, V-trace off as in the published rows; the CPU is per env step of both.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hiddengrid.train import train
from hiddengrid.train.ablation import FIRST
from hiddengrid.train.config import PRECISIONS

VARIANTS: dict[str, dict[str, Any]] = {
    "first trainer": FIRST,
    "trainer v2, V-trace off": {"vtrace_clip": 0.0},
    "trainer v2 (defaults)": {},
}
PUFFERL = "PuffeRL (the defaults' settings)"


def cpu_seconds(env_id: str, steps: int, settings: dict[str, Any], folder: Path) -> float:
    start = time.process_time()
    train(
        env_id,
        out_dir=folder,
        progress=False,
        reference_episodes=0,
        total_steps=steps,
        **settings,
    )
    return time.process_time() - start


def pufferl_cpu_seconds(env_id: str, steps: int, folder: Path, precision: str = "float32") -> float:
    import torch

    from hiddengrid.train.config import PPOConfig
    from hiddengrid.train.pufferl_runner import train_pufferl

    torch.set_num_threads(1)  # as hiddengrid train runs by default
    config = PPOConfig(env_id=env_id, total_steps=steps, precision=precision)
    start = time.process_time()
    train_pufferl(config, folder / "checkpoint.pt")
    return time.process_time() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="hiddengrid/AnomalyMapping-v0")
    parser.add_argument("--steps", type=int, default=131_072)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pufferl", action="store_true", help="also PuffeRL (where it imports)")
    parser.add_argument(
        "--precision",
        choices=PRECISIONS,
        default="float32",
        help="the network passes' precision, for every trainer (PuffeRL's setting too)",
    )
    parser.add_argument(
        "--recipe",
        action="append",
        default=[],
        help="time these recipes against each other instead (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.recipe:
        return _recipes(parser, args)
    per_step: dict[str, list[float]] = {name: [] for name in VARIANTS}
    if args.pufferl:
        from hiddengrid.train.pufferl_runner import import_pufferl

        try:
            import_pufferl()
        except ImportError as error:
            print(f"cputime: {error}", file=sys.stderr)
            return 2
        per_step[PUFFERL] = []
    with tempfile.TemporaryDirectory() as tmp:
        cpu_seconds(args.env, 16_384, {}, Path(tmp) / "warmup")  # compiles, loads torch
        if args.pufferl:
            pufferl_cpu_seconds(args.env, 16_384, Path(tmp))  # imports PuffeRL
        for k in range(args.repeats):
            for name in per_step:
                folder = Path(tmp) / f"{k}-{abs(hash(name))}"
                if name == PUFFERL:
                    seconds = pufferl_cpu_seconds(args.env, args.steps, folder, args.precision)
                else:
                    settings = {**VARIANTS[name], "precision": args.precision}
                    seconds = cpu_seconds(args.env, args.steps, settings, folder)
                per_step[name].append(seconds / args.steps * 1e6)
    print(
        f"{args.env}, {args.steps:,} steps per run, {args.repeats} runs each, "
        f"network passes in {args.precision}"
    )
    medians = _print_table("trainer", per_step)
    first, second = medians["first trainer"], medians["trainer v2 (defaults)"]
    print(f"trainer v2 uses {second / first:.2f}x the first trainer's CPU per step")
    off = medians["trainer v2, V-trace off"]
    print(f"V-trace costs {second / off:.2f}x trainer v2's CPU per step without it")
    if PUFFERL in medians:
        ratio = medians[PUFFERL] / second
        print(f"PuffeRL uses {ratio:.2f}x trainer v2's CPU per step (v2: {ratio:.2f}x its speed)")
    return 0


def _print_table(kind: str, per_step: dict[str, list[float]]) -> dict[str, float]:
    """Prints each entry's median and runs (CPU us per env step); returns the medians."""
    print(f"| {kind} | CPU us per env step (median) | runs |")
    print("|---|---|---|")
    medians = {name: statistics.median(v) for name, v in per_step.items()}
    for name, values in per_step.items():
        print(f"| {name} | {medians[name]:.1f} | {', '.join(f'{v:.1f}' for v in values)} |")
    return medians


def _recipes(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--recipe``: each recipe's CPU per env step, alternating, after a warm-up run."""
    from hiddengrid.train.recipes import RECIPES, recipe_settings

    unknown = [name for name in args.recipe if name not in RECIPES]
    if unknown:
        parser.error(f"unknown recipe {unknown[0]!r}; recipes: {', '.join(RECIPES)}")
    envs = {RECIPES[name].env_id for name in args.recipe}
    if len(envs) > 1 or args.pufferl:
        parser.error("--recipe times recipes of one env against each other, without --pufferl")
    env_id = envs.pop()
    variants = {}
    for name in args.recipe:
        settings = {**recipe_settings(name, env_id), "vtrace_clip": 0.0}
        settings["precision"] = args.precision
        if settings.get("imitation"):
            settings["imitation_steps"] = args.steps
        variants[name] = settings
    per_step: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as tmp:
        warm = {**variants[args.recipe[0]]}
        if warm.get("imitation"):
            warm["imitation_steps"] = 16_384
        cpu_seconds(env_id, 16_384, warm, Path(tmp) / "warmup")
        for k in range(args.repeats):
            for name, settings in variants.items():
                start = time.process_time()
                # the steps run: whole updates, the cloning's included
                steps = train(
                    env_id,
                    out_dir=Path(tmp) / f"{k}-{name}",
                    progress=False,
                    reference_episodes=0,
                    total_steps=args.steps,
                    **settings,
                ).steps
                per_step[name].append((time.process_time() - start) / steps * 1e6)
    print(f"{env_id}, {args.steps:,} PPO steps per run (and as many cloning steps where the")
    print(f"recipe clones; whole updates), {args.repeats} runs each, passes in {args.precision}")
    medians = _print_table("recipe", per_step)
    first = args.recipe[0]
    for name in args.recipe[1:]:
        print(f"{name} uses {medians[name] / medians[first]:.2f}x {first}'s CPU per step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
