"""How well each network copies SquadRecon's teacher, on a fixed set of labelled states.

    python -m hiddengrid.train.teacher_fit [--checkpoint FILE] [--steps 800] [--passes 6]
        [--out FILE]

SquadRecon's recipes teach the policy the heuristic's orders on every state it visits (DAgger),
and their runs level off with the policy's most likely orders the teacher's on about two
thirds of its states. This separates the network from the run: a trained student (a published
checkpoint, sampling its actions) plays 512 sub-envs for ``--steps`` steps from env seed
7,000,000 (the training states) and for an eighth of that from 7,100,000 (the held-out states,
other episodes), every state labelled with the teacher's orders
(:class:`hiddengrid.train.squad_recon.HeuristicTeacher`); each network, built as the trainer
builds it (:class:`hiddengrid.train.policy.ActorCritic` with the named settings), is fitted by
cross-entropy on the training states for ``--passes`` passes (Adam, learning rate 1e-3,
minibatches of 1,024, one thread, torch seed 0). The table gives, after each network's last
pass, the share of training states (every eighth) and of held-out states on which its most
likely orders are the teacher's, all three squads at once and per squad, its weights and its
CPU seconds. A network that fits the training states better and the held-out ones no better
is limited by what it generalises, not by its size.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch

from hiddengrid.core.flat import FlatEncoder
from hiddengrid.train.agent import PPOAgent
from hiddengrid.train.checkpoint import build_model
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.policy import ActorCritic
from hiddengrid.train.squad_recon import HeuristicTeacher

ENV_ID = "hiddengrid/SquadRecon-v0"
CHECKPOINT = "docs/baselines/trainer_v2/SquadRecon-v0-dagger-view-10m-s0.pt"
TRAIN_SEED, HELD_OUT_SEED = 7_000_000, 7_100_000
NUM_ENVS = 512
# (label, features, encoder, hidden)
NETWORKS: tuple[tuple[str, str, str, int], ...] = (
    ("MLP, flat observation, hidden 128", "", "", 128),
    ("MLP, with the view, hidden 128 (the recipes' network)", "squad_recon_view", "", 128),
    ("MLP, with the view, hidden 512", "squad_recon_view", "", 512),
    ("squads encoder, with the view, hidden 128", "squad_recon_view", "squad_recon_squads", 128),
    ("CNN over the map, flat observation, hidden 128", "", "squad_recon_cnn", 128),
)


def labelled_states(checkpoint: str, seed: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The flat observations a student visits and the teacher's orders on each (a sub-env's
    step after its episode ended, the autoreset step, is left out)."""
    venv = gym.make_vec(ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point")
    student = PPOAgent(venv, seed=seed, checkpoint=checkpoint)
    teacher = HeuristicTeacher()
    encoder = FlatEncoder(venv.single_observation_space)
    batch = venv.unwrapped.batch
    obs, _ = venv.reset(seed=seed)
    starts = np.ones(NUM_ENVS, dtype=bool)
    keep = np.ones(NUM_ENVS, dtype=bool)
    states, orders = [], []
    for _ in range(steps):
        labels = teacher(batch)
        states.append(encoder.encode(obs, NUM_ENVS)[keep].astype(np.float16))
        orders.append(labels[keep].astype(np.int8))
        action = student.act(obs, starts)
        obs, reward, terminated, truncated, _ = venv.step(action)
        student.observe(reward, terminated, truncated)
        # NEXT_STEP autoreset: a finished sub-env's next step only resets it, and the
        # observation after that reset starts its next episode
        starts = ~keep
        keep = ~(terminated | truncated)
    venv.close()
    return np.concatenate(states), np.concatenate(orders)


def _network(features: str, encoder: str, hidden: int, obs_size: int) -> ActorCritic:
    config = PPOConfig(env_id=ENV_ID, features=features, encoder=encoder, hidden=hidden)
    return build_model(config, obs_size, [6, 6, 6])


def _agreement(model: ActorCritic, x: torch.Tensor, y: torch.Tensor) -> list[float]:
    """The share of rows where the most likely orders are the teacher's: all three squads,
    then each squad."""
    with torch.no_grad():
        best = torch.cat(
            [
                model(x[i : i + 20_000], (), viewed=True)[0].view(-1, 3, 6).argmax(-1)
                for i in range(0, len(x), 20_000)
            ]
        )
    same = best == y
    return [float(same.all(-1).float().mean()), *(float(v) for v in same.float().mean(0))]


def fit(
    label: str,
    features: str,
    encoder: str,
    hidden: int,
    train: tuple[np.ndarray, np.ndarray],
    held_out: tuple[np.ndarray, np.ndarray],
    passes: int,
) -> str:
    torch.manual_seed(0)
    obs_size = train[0].shape[1]
    model = _network(features, encoder, hidden, obs_size)

    def inputs(states: np.ndarray) -> torch.Tensor:
        parts = [
            model.with_view(torch.from_numpy(states[i : i + 50_000].astype(np.float32)))
            for i in range(0, len(states), 50_000)
        ]
        return torch.cat(parts)

    x, y = inputs(train[0]), torch.from_numpy(train[1].astype(np.int64))
    hx, hy = inputs(held_out[0]), torch.from_numpy(held_out[1].astype(np.int64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)
    start = time.process_time()
    for _ in range(passes):
        order = torch.randperm(len(x), generator=generator)
        for i in range(0, len(x), 1024):
            index = order[i : i + 1024]
            logits = model(x[index], (), viewed=True)[0].view(-1, 6)
            loss = torch.nn.functional.cross_entropy(logits, y[index].view(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    seconds = time.process_time() - start
    every = torch.arange(0, len(x), 8)
    fitted = _agreement(model, x[every], y[every])
    held = _agreement(model, hx, hy)
    weights = sum(p.numel() for p in model.parameters())
    per = " / ".join(f"{v:.1%}" for v in held[1:])
    return (
        f"| {label} | {weights:,} | {fitted[0]:.1%} | **{held[0]:.1%}** | {per} | {seconds:.0f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hiddengrid.train.teacher_fit")
    parser.add_argument("--checkpoint", default=CHECKPOINT, help="the student whose states")
    parser.add_argument("--steps", type=int, default=800, help="steps of 512 sub-envs")
    parser.add_argument("--passes", type=int, default=6, help="passes over the states")
    parser.add_argument("--out", default="", help="also write the table to this file")
    args = parser.parse_args(argv)
    if args.steps < 8 or args.passes < 1:
        parser.error("--steps must be >= 8 and --passes >= 1")
    torch.set_num_threads(1)
    train = labelled_states(args.checkpoint, TRAIN_SEED, args.steps)
    held_out = labelled_states(args.checkpoint, HELD_OUT_SEED, args.steps // 8)
    lines = [
        f"states of `{args.checkpoint}` (sampled actions): {len(train[0]):,} for fitting, "
        f"{len(held_out[0]):,} held out; {args.passes} passes",
        "",
        "| network | weights | teacher's orders, fitted states | held-out states | "
        "held out per squad | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for label, features, encoder, hidden in NETWORKS:
        lines.append(fit(label, features, encoder, hidden, train, held_out, args.passes))
        print(lines[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
