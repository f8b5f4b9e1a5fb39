"""``hiddengrid train`` against PufferLib's PuffeRL at equal env steps, on every id.

    python -m hiddengrid.train.versus_pufferl --steps 262144 --seeds 0 1 2

For each id and training seed it trains our PPO with its defaults and PuffeRL with the same
network, inputs and PPO settings (:mod:`hiddengrid.train.pufferl_runner`), both on the same env
streams (sub-env ``i`` from ``PPOConfig.env_seed + i``) and with one torch thread, one after
the other in this process; then scores both checkpoints like ``hiddengrid eval --agent ppo
--checkpoint FILE --seed 5000000`` on the held-out episodes no training run met. Each finished
run is appended to ``--out`` at once; a run already there is skipped (ours per
``vtrace_clip``, so our rows trained before V-trace was on by default stay beside the new
ones), so an interrupted comparison resumes. ``python -m hiddengrid.design.results_table``
draws the training page's table from that file.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from hiddengrid.evaluate import run_episodes
from hiddengrid.train import train
from hiddengrid.train.agent import PPOAgent
from hiddengrid.train.baselines import HELD_OUT_SEED
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.pufferl_runner import import_pufferl, train_pufferl

ENV_IDS = (
    "hiddengrid/AnomalyMapping-v0",
    "hiddengrid/FieldCipher-v0",
    "hiddengrid/InvertedTreasure-v0",
    "hiddengrid/InvertedTreasure-Scout-v0",
    "hiddengrid/SquadRecon-v0",
    "hiddengrid/Megacity-v0",
)
OUT = Path("docs/baselines/trainer_v2/versus_pufferl.json")
TRAINERS = ("hiddengrid", "pufferl")


def _score(env_id: str, checkpoint: Path, episodes: int) -> dict[str, float]:
    agent = functools.partial(PPOAgent, checkpoint=str(checkpoint))
    scored = run_episodes(env_id, "ppo", episodes, seed=HELD_OUT_SEED, agent_factory=agent)
    return {"success": scored.success_rate, "mean_return": scored.mean_return}


def run_pair(
    env_id: str, steps: int, seed: int, episodes: int, trainers: Sequence[str] = TRAINERS
) -> list[dict[str, Any]]:
    """The trainers on one id and seed for ``steps`` env steps: one result row each."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for trainer in trainers:
            start = time.perf_counter()
            if trainer == "hiddengrid":
                result = train(
                    env_id,
                    total_steps=steps,
                    seed=seed,
                    out_dir=f"{tmp}/ours",
                    progress=False,
                    reference_episodes=0,
                )
                checkpoint, done, sps = result.checkpoint, result.steps, result.steps_per_second
            else:
                config = PPOConfig(env_id=env_id, total_steps=steps, seed=seed)
                run = train_pufferl(config, f"{tmp}/pufferl.pt")
                checkpoint, done, sps = run.checkpoint, run.steps, run.steps_per_second
            wall = time.perf_counter() - start
            ours = {"vtrace_clip": PPOConfig().vtrace_clip} if trainer == "hiddengrid" else {}
            rows.append(
                {
                    "env_id": env_id,
                    "trainer": trainer,
                    **ours,
                    "seed": seed,
                    "budget": steps,
                    "steps": done,
                    "steps_per_second": sps,
                    "wall_seconds": wall,
                    "episodes": episodes,
                    "eval_seed": HELD_OUT_SEED,
                    **_score(env_id, checkpoint, episodes),
                }
            )
    return rows


def run_key(
    env_id: str, budget: int, seed: int, trainer: str, vtrace_clip: float
) -> tuple[Any, ...]:
    """What makes a run the same run: for ours also its ``vtrace_clip`` (PuffeRL's is its
    own)."""
    return env_id, budget, seed, trainer, vtrace_clip if trainer == "hiddengrid" else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", choices=ENV_IDS, help="default: every id")
    parser.add_argument("--steps", type=int, default=262_144)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        import_pufferl()
    except ImportError as error:
        print(f"versus_pufferl: {error}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    rows: list[dict[str, Any]] = json.loads(args.out.read_text()) if args.out.exists() else []
    # our rows written before vtrace_clip was recorded were trained with it off
    keys = ("env_id", "budget", "seed", "trainer")
    done = {run_key(*(r[k] for k in keys), r.get("vtrace_clip", 0.0)) for r in rows}
    ours_now = PPOConfig().vtrace_clip
    for env_id in args.env or ENV_IDS:
        for seed in args.seeds:
            wanted = [
                t for t in TRAINERS if run_key(env_id, args.steps, seed, t, ours_now) not in done
            ]
            if not wanted:
                continue
            pair = run_pair(env_id, args.steps, seed, args.episodes, wanted)
            rows.extend(pair)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(rows, indent=1) + "\n")
            for row in pair:
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
