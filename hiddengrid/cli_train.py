"""The ``train`` command's PPO settings (sizes, step size, recipes, warm start).

Kept beside ``cli.py`` so that the command module stays a list of commands. Every option's
destination is the name of a field of :class:`hiddengrid.train.PPOConfig`; an option left out
keeps the config's default, and a recipe's settings sit under what the command line gives.
"""

from __future__ import annotations

import argparse
from typing import Any

from hiddengrid.cli_types import nonnegative_float, positive_float, positive_int

# PPOConfig fields set only when given on the command line
OPTIONAL = (
    "num_envs",
    "rollout",
    "hidden",
    "learning_rate",
    "entropy_coef",
    "vtrace_clip",
    "threads",
    "precision",
    "shaping",
    "auxiliary",
    "features",
    "encoder",
    "imitation",
    "imitation_steps",
    "init_checkpoint",
)


def add_ppo_options(p: argparse.ArgumentParser) -> None:
    """Adds the PPO settings, the recipe and the warm start to the ``train`` parser."""
    p.add_argument("--num-envs", type=positive_int, help="sub-envs (default 256)")
    p.add_argument("--rollout", type=positive_int, help="steps per sub-env per update (default 64)")
    p.add_argument("--hidden", type=positive_int, help="layer width (default 128)")
    p.add_argument("--learning-rate", type=positive_float, help="Adam step size (default 5e-4)")
    p.add_argument("--entropy-coef", type=nonnegative_float, help="entropy bonus (default 0.01)")
    p.add_argument(
        "--vtrace-clip",
        type=nonnegative_float,
        metavar="C",
        help="weight the refreshed advantages by V-trace, ratios clipped at C, as PuffeRL "
        "does (default 1; 0 turns it off)",
    )
    p.add_argument("--threads", type=positive_int, help="torch CPU threads (default 1)")
    p.add_argument(
        "--precision",
        choices=("float32", "bfloat16"),  # PPOConfig's PRECISIONS: the package needs torch
        help="the network's passes: float32 (default) or bfloat16 mixed precision, which pays "
        "on CPUs with AMX and recent GPUs",
    )
    p.add_argument(
        "--shaping",
        metavar="NAME",
        help="a potential-based shaping from training-only state (hiddengrid.train.shaping), "
        "e.g. field_cipher_slots for FieldCipher; none by default",
    )
    p.add_argument(
        "--auxiliary",
        metavar="NAME",
        help="a supervised auxiliary task from training-only labels "
        "(hiddengrid.train.auxiliary); none by default",
    )
    p.add_argument(
        "--features",
        metavar="VIEW",
        help="weightless extra inputs computed from the observation "
        "(hiddengrid.train.features), e.g. squad_recon_view for SquadRecon; none by default",
    )
    p.add_argument(
        "--encoder",
        metavar="NAME",
        help="a network in the MLP encoder's place (hiddengrid.train.encoders), e.g. "
        "squad_recon_cnn for SquadRecon; the two-layer MLP by default",
    )
    p.add_argument(
        "--recipe",
        metavar="NAME",
        help="a named training recipe for the env (hiddengrid.train.recipes), e.g. "
        "field_cipher_decoder for FieldCipher; plain PPO without it",
    )
    p.add_argument(
        "--imitation",
        metavar="AGENT",
        help="warm start: first clone this fair agent of the env (e.g. heuristic)",
    )
    p.add_argument(
        "--imitation-steps",
        type=positive_int,
        help="env steps of the warm start (with --imitation)",
    )
    p.add_argument(
        "--init-checkpoint",
        metavar="FILE",
        help="start the policy from this checkpoint's weights (same env and network, any "
        "--env-arg: a curriculum stage, e.g. Megacity trained at level=0, then level=3)",
    )


def ppo_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The PPOConfig fields the ``train`` command line gives (a recipe's below them).
    Raises ValueError for a recipe the env does not have."""
    settings: dict[str, Any] = {
        "env_id": args.env,
        "total_steps": args.steps,
        "seed": args.seed,
        "policy": args.policy,
        "memory_across_episodes": args.memory_across_episodes,
        "device": args.device,
        "env_kwargs": dict(args.env_arg),
    }
    for name in OPTIONAL:
        value = getattr(args, name)
        if value is not None:
            settings[name] = value
    if args.recipe is not None:
        from hiddengrid.train.recipes import recipe_settings

        settings = {**recipe_settings(args.recipe, args.env), **settings}
    return settings
