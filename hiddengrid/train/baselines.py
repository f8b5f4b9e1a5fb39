"""Reruns the published PPO baselines.

Trainer v2's table (:data:`V2_ROWS`: plain PPO and the named recipes, each row one run with its
checkpoint under ``docs/baselines/trainer_v2``)::

    python -m hiddengrid.train.baselines --v2 [--only NAME ...] [--score-only] [--episodes 10000]

trains every row not trained yet into ``runs/v2/<name>``, copies its checkpoint and CSVs to
``docs/baselines/trainer_v2/<name>.*``, scores every published checkpoint and the env's own
agents on episodes 0..9,999 (episode ``k`` is ``reset(seed=k)``, with the env arguments the
row was trained on, as ``hiddengrid eval --agent ppo --checkpoint FILE`` does), writes
``docs/baselines/trainer_v2/results.json``, each row's curve ``docs/images/<name>.png``
(FieldCipher also ``<name>-slots.png``, per-slot accuracy) and prints the Markdown table.
``--greedy`` also scores each checkpoint's most likely actions, ``--held-out`` its sampled play
on episodes from :data:`HELD_OUT_SEED`, which no training run met.

The first trainer's grid (:data:`GRID`, several seeds per (env, policy)), trained with the
first trainer's settings (the ablation's ``FIRST``) and env seeds, so each run reruns its
published CSV bit for bit::

    python -m hiddengrid.train.baselines --steps 2000000 --seeds 0 1 2 [--only ID ...]

Each run trains into ``runs/baselines/<name>`` (checkpoint, CSV, plot) and copies its CSV to
``docs/baselines/<name>.csv``, where :mod:`hiddengrid.train.report` reads the curves from.
"""

from __future__ import annotations

import argparse
import difflib
import json
import platform
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hiddengrid.train import train
from hiddengrid.train.ablation import FIRST

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


@dataclass(frozen=True)
class Row:
    """One published run of trainer v2: plain PPO (``recipe`` empty) or a named recipe."""

    name: str
    env_id: str
    steps: int
    recipe: str = ""
    seed: int = 0
    settings: dict[str, Any] = field(default_factory=dict)  # more PPOConfig fields
    legacy_env_seeds: bool = False  # trained with env seeds seed + i (PPOConfig's setting)
    vtrace_clip: float | None = None  # None: PPOConfig's default
    machine: str = ""  # where it was trained, when not on the CPU machine of the table
    # The env steps at which the published checkpoint was taken when the run was stopped
    # before the end of its schedule (0: it ran to the end); rerunning runs the whole schedule.
    stopped: int = 0

    @property
    def label(self) -> str:
        start = self.settings.get("init_checkpoint", "")
        origin = f", from {Path(start).stem}" if start else ""  # a curriculum's later stage
        if "num_envs" in self.settings:
            origin += f", {self.settings['num_envs']:,} sub-envs"
        if "hidden" in self.settings:
            origin += f", hidden {self.settings['hidden']}"
        if self.settings.get("precision", "float32") != "float32":
            origin += f", {self.settings['precision']} passes"
        if self.machine:
            origin += f", on {self.machine}"
        if self.stopped:
            origin += (
                f", stopped at {self.stopped / 1e6:.1f}M of its {self.steps / 1e6:.0f}M schedule"
            )
        if self.recipe:
            return f"recipe {self.recipe}{origin}"
        policy = self.settings.get("policy", "mlp")
        kind = "PPO feed-forward" if policy == "mlp" else f"PPO recurrent ({policy.upper()})"
        return kind + origin

    def config(self) -> dict[str, Any]:
        from hiddengrid.train.recipes import recipe_settings

        base = recipe_settings(self.recipe, self.env_id) if self.recipe else {}
        fixed = {"seed": self.seed, "total_steps": self.steps}
        pinned = {} if self.vtrace_clip is None else {"vtrace_clip": self.vtrace_clip}
        config = {**base, **self.settings, **fixed, **pinned}
        return {**config, "legacy_env_seeds": self.legacy_env_seeds}


GPU_MACHINE = "one NVIDIA H200 GPU and 16 Xeon cores"
MEGACITY_LEVEL0 = {"env_kwargs": {"level": 0}}
GRU = {"policy": "gru"}


def _plain_rows(policy: str, millions: int, *runs: tuple[str, int]) -> tuple[Row, ...]:
    """Plain PPO (policy "mlp" or "gru") for ``millions`` million env steps, one row per
    (env name, training seed), default env arguments."""
    settings = GRU if policy == "gru" else {}
    return tuple(
        Row(
            f"{name}-{policy}-{millions}m-s{seed}",
            f"hiddengrid/{name}",
            millions * 1_000_000,
            seed=seed,
            settings=settings,
        )
        for name, seed in runs
    )


def _squad_recon_bf16_rows(
    label: str, recipe: str, millions: int, seeds: tuple[int, ...], **settings: Any
) -> tuple[Row, ...]:
    """SquadRecon rows of ``recipe`` for ``millions`` million PPO steps, their network's passes
    in bfloat16 (``settings`` beside), one per training seed: ``SquadRecon-v0-{label}-s{seed}``."""
    return tuple(
        Row(
            f"SquadRecon-v0-{label}-s{seed}",
            "hiddengrid/SquadRecon-v0",
            millions * 1_000_000,
            recipe=recipe,
            seed=seed,
            settings={"precision": "bfloat16", **settings},
        )
        for seed in seeds
    )


V2_DIR_NAME = "docs/baselines/trainer_v2"
# Only the rows that were run and published; a row's ``steps`` are PPO's, after any warm start.
# These were trained when a run's sub-env i started from env seed seed + i (its first
# episodes among the published 0..9,999: the held-out columns check them); they keep those
# seeds so that each reruns bit for bit. Rows added later go in V2_ROWS after them.
_LEGACY_V2_ROWS: tuple[Row, ...] = (
    Row("AnomalyMapping-v0-mlp-5m-s0", "hiddengrid/AnomalyMapping-v0", 5_000_000),
    Row("InvertedTreasure-Scout-v0-mlp-3m-s0", "hiddengrid/InvertedTreasure-Scout-v0", 3_000_000),
    Row("FieldCipher-v0-mlp-10m-s0", "hiddengrid/FieldCipher-v0", 10_000_000),
    Row(
        "FieldCipher-v0-decoder-3m-s0",
        "hiddengrid/FieldCipher-v0",
        3_000_000,
        recipe="field_cipher_decoder",
    ),
    Row(
        "FieldCipher-v0-teacher-2m-s0",
        "hiddengrid/FieldCipher-v0",
        2_000_000,
        recipe="field_cipher_teacher",
    ),
    Row(
        "FieldCipher-v0-teacher-2m-s1",
        "hiddengrid/FieldCipher-v0",
        2_000_000,
        recipe="field_cipher_teacher",
        seed=1,
    ),
    Row(
        "FieldCipher-v0-teacher-2m-s2",
        "hiddengrid/FieldCipher-v0",
        2_000_000,
        recipe="field_cipher_teacher",
        seed=2,
    ),
    Row(
        "Megacity-v0-level0-mlp-1m-s0",
        "hiddengrid/Megacity-v0",
        1_000_000,
        settings=MEGACITY_LEVEL0,
    ),
    Row("Megacity-v0-mlp-1m-s0", "hiddengrid/Megacity-v0", 1_000_000),
    Row(
        "Megacity-v0-level0-mlp-5m-s0",
        "hiddengrid/Megacity-v0",
        5_000_000,
        settings=MEGACITY_LEVEL0,
    ),
    Row(
        "Megacity-v0-level0-imitation-2m-s0",
        "hiddengrid/Megacity-v0",
        1_000_000,
        recipe="megacity_imitation",
        settings=MEGACITY_LEVEL0,
    ),
    Row(
        "Megacity-v0-level0-dagger-2m-s0",
        "hiddengrid/Megacity-v0",
        2_000_000,
        recipe="megacity_dagger",
        settings=MEGACITY_LEVEL0,
    ),
    Row(
        "Megacity-v0-level0-dagger-2m-s1",
        "hiddengrid/Megacity-v0",
        2_000_000,
        recipe="megacity_dagger",
        seed=1,
        settings=MEGACITY_LEVEL0,
    ),
    Row(
        "Megacity-v0-level0-dagger-2m-s2",
        "hiddengrid/Megacity-v0",
        2_000_000,
        recipe="megacity_dagger",
        seed=2,
        settings=MEGACITY_LEVEL0,
    ),
    Row("Megacity-v0-dagger-1m-s0", "hiddengrid/Megacity-v0", 1_000_000, recipe="megacity_dagger"),
    # A curriculum over levels: level 0's policy (2M steps) trained on at the default level.
    *(
        Row(
            f"Megacity-v0-dagger-from-level0-{millions}m-s{seed}",
            "hiddengrid/Megacity-v0",
            millions * 1_000_000,
            recipe="megacity_dagger",
            seed=seed,
            settings={"init_checkpoint": f"{V2_DIR_NAME}/Megacity-v0-level0-dagger-2m-s{seed}.pt"},
        )
        for millions in (1, 3)
        for seed in (0, 1, 2)
    ),
    Row(
        "SquadRecon-v0-imitation-524k-s0",
        "hiddengrid/SquadRecon-v0",
        262_144,
        recipe="squad_recon_imitation",
        settings={"imitation_steps": 262_144},
    ),
    Row("InvertedTreasure-v0-mlp-10m-s0", "hiddengrid/InvertedTreasure-v0", 10_000_000),
    Row("AnomalyMapping-v0-mlp-10m-s0", "hiddengrid/AnomalyMapping-v0", 10_000_000),
    Row("AnomalyMapping-v0-mlp-10m-s1", "hiddengrid/AnomalyMapping-v0", 10_000_000, seed=1),
    Row("AnomalyMapping-v0-mlp-10m-s2", "hiddengrid/AnomalyMapping-v0", 10_000_000, seed=2),
    Row(
        "InvertedTreasure-Scout-v0-gru-3m-s0",
        "hiddengrid/InvertedTreasure-Scout-v0",
        3_000_000,
        settings={"policy": "gru"},
    ),
    Row(
        "FieldCipher-v0-teacher-10m-s0",
        "hiddengrid/FieldCipher-v0",
        10_000_000,
        recipe="field_cipher_teacher",
    ),
    Row(
        "FieldCipher-v0-teacher-10m-s1",
        "hiddengrid/FieldCipher-v0",
        10_000_000,
        recipe="field_cipher_teacher",
        seed=1,
    ),
    Row(
        "FieldCipher-v0-teacher-10m-s2",
        "hiddengrid/FieldCipher-v0",
        10_000_000,
        recipe="field_cipher_teacher",
        seed=2,
    ),
    Row(
        "InvertedTreasure-Scout-v0-mlp-10m-s0",
        "hiddengrid/InvertedTreasure-Scout-v0",
        10_000_000,
    ),
    Row(
        "SquadRecon-v0-dagger-view-1m-s0",
        "hiddengrid/SquadRecon-v0",
        917_504,
        recipe="squad_recon_dagger_view",
        settings={"checkpoint_every": 4},
    ),
    *(
        Row(
            f"SquadRecon-v0-dagger-view-1m-s{seed}",
            "hiddengrid/SquadRecon-v0",
            917_504,
            recipe="squad_recon_dagger_view",
            seed=seed,
            settings={"checkpoint_every": 4},
        )
        for seed in (1, 2)
    ),
    *(
        Row(f"{name}-mlp-10m-s{seed}", f"hiddengrid/{name}", 10_000_000, seed=seed)
        for name in ("InvertedTreasure-v0", "InvertedTreasure-Scout-v0", "FieldCipher-v0")
        for seed in (1, 2)
    ),
    Row(
        "AnomalyMapping-v0-gru-3m-s0",
        "hiddengrid/AnomalyMapping-v0",
        3_000_000,
        settings={"policy": "gru"},
    ),
    Row(
        "InvertedTreasure-v0-gru-3m-s0",
        "hiddengrid/InvertedTreasure-v0",
        3_000_000,
        settings={"policy": "gru"},
    ),
    # The grid's empty cells: plain PPO on SquadRecon and Megacity at 10M, a GRU on every id.
    Row("SquadRecon-v0-mlp-10m-s0", "hiddengrid/SquadRecon-v0", 10_000_000),
    Row("Megacity-v0-mlp-10m-s0", "hiddengrid/Megacity-v0", 10_000_000),
    *_plain_rows(
        "gru",
        3,
        ("FieldCipher-v0", 0),
        ("SquadRecon-v0", 0),
        ("Megacity-v0", 0),
        ("AnomalyMapping-v0", 1),
        ("AnomalyMapping-v0", 2),
    ),
)
# Every row below was trained before V-trace was on by default: each keeps it off, so that
# the grid is one trainer's and each row reruns bit for bit.
_VTRACE_OFF_ROWS: tuple[Row, ...] = (
    *(replace(r, legacy_env_seeds=True) for r in _LEGACY_V2_ROWS),
    *_plain_rows(
        "gru",
        3,
        ("InvertedTreasure-v0", 1),
        ("InvertedTreasure-v0", 2),
        ("InvertedTreasure-Scout-v0", 1),
        ("InvertedTreasure-Scout-v0", 2),
        ("SquadRecon-v0", 1),
        ("SquadRecon-v0", 2),
        ("FieldCipher-v0", 1),
        ("Megacity-v0", 1),
    ),
    *_plain_rows("mlp", 10, ("SquadRecon-v0", 1), ("SquadRecon-v0", 2), ("Megacity-v0", 1)),
    *_plain_rows("gru", 3, ("FieldCipher-v0", 2), ("Megacity-v0", 2)),
    *_plain_rows("mlp", 10, ("Megacity-v0", 2)),
    *_plain_rows(
        "gru",
        10,
        ("AnomalyMapping-v0", 0),
        ("InvertedTreasure-Scout-v0", 0),
        ("InvertedTreasure-v0", 0),
        ("AnomalyMapping-v0", 1),
        ("InvertedTreasure-Scout-v0", 1),
        ("InvertedTreasure-v0", 1),
        ("Megacity-v0", 0),
        ("FieldCipher-v0", 0),
        ("SquadRecon-v0", 0),
        ("AnomalyMapping-v0", 2),
        ("InvertedTreasure-Scout-v0", 2),
        ("FieldCipher-v0", 1),
        ("SquadRecon-v0", 1),
        ("FieldCipher-v0", 2),
        ("SquadRecon-v0", 2),
        ("Megacity-v0", 1),
        ("Megacity-v0", 2),
        ("InvertedTreasure-v0", 2),
    ),
    # 50M steps on the GPU machine (one GPU, 16 cores), 1,024 sub-envs so that a step's fixed
    # cost (the acting pass, its small GPU calls) is shared by four times the samples.
    *(
        Row(
            f"{name}-mlp-50m-s{seed}",
            f"hiddengrid/{name}",
            50_000_000,
            seed=seed,
            settings={"num_envs": 1024},
            machine=GPU_MACHINE,
            # SquadRecon's runs were stopped when the machine's time ran out (at 41.2M and
            # 41.8M); the checkpoint is the run's last periodic one
            stopped=39_321_600 if name == "SquadRecon-v0" else 0,
        )
        for name, seed in (
            ("FieldCipher-v0", 0),
            ("SquadRecon-v0", 0),
            ("FieldCipher-v0", 1),
            ("SquadRecon-v0", 1),
            ("FieldCipher-v0", 2),
        )
    ),
    # Megacity's curriculum at 10M: level 0's DAgger policy (2M steps), then the default level.
    *(
        Row(
            f"Megacity-v0-dagger-from-level0-10m-s{seed}",
            "hiddengrid/Megacity-v0",
            10_000_000,
            recipe="megacity_dagger",
            seed=seed,
            settings={"init_checkpoint": f"{V2_DIR_NAME}/Megacity-v0-level0-dagger-2m-s{seed}.pt"},
        )
        for seed in (0, 1, 2)
    ),
    # SquadRecon's recipe at 10M (PPO's steps, after the recipe's 131k-step warm start).
    *(
        Row(
            f"SquadRecon-v0-dagger-view-10m-s{seed}",
            "hiddengrid/SquadRecon-v0",
            10_000_000,
            recipe="squad_recon_dagger_view",
            seed=seed,
        )
        for seed in (0, 1, 2)
    ),
    # ... and at 50M on the CPU machine (one run alone on its two cores), to see where the
    # recipe goes with five times the budget; no GPU machine was lent for it.
    Row(
        "SquadRecon-v0-dagger-view-50m-s0",
        "hiddengrid/SquadRecon-v0",
        50_000_000,
        recipe="squad_recon_dagger_view",
        seed=0,
    ),
    # The recipe with one encoder shared by the three squads, beside the rows above at 1M
    # and 10M (same settings, seeds and budgets; only the encoder differs).
    *(
        Row(
            f"SquadRecon-v0-dagger-squads-{label}-s{seed}",
            "hiddengrid/SquadRecon-v0",
            steps,
            recipe="squad_recon_dagger_squads",
            seed=seed,
        )
        for label, steps, seeds in (("10m", 10_000_000, (0, 1, 2)), ("1m", 917_504, (0, 1, 2)))
        for seed in seeds
    ),
    # ... and with a 25M schedule, its passes in bfloat16 (1.6x less CPU here): how far the
    # squads encoder goes past 10M in the time this machine had.
    *_squad_recon_bf16_rows("dagger-squads-25m-bf16", "squad_recon_dagger_squads", 25, (0, 1, 2)),
    # ... and twice as wide at 10M (in bfloat16, as the 25M rows), beside the 10M rows above:
    # whether the network's width limits how far the imitation goes in a run, where every
    # state is new (on a fixed set of states width bought memorising, teacher_fit.txt).
    *_squad_recon_bf16_rows(
        "dagger-squads-h256-10m-bf16", "squad_recon_dagger_squads", 10, (0, 1, 2), hidden=256
    ),
    # ... twice as wide with the 25M schedule: whether the width also lifts the level at
    # which the 128-wide 25M rows stop (78-79 % agreement with the teacher), not only the speed.
    *_squad_recon_bf16_rows(
        "dagger-squads-h256-25m-bf16", "squad_recon_dagger_squads", 25, (0,), hidden=256
    ),
    # ... and 128 wide at 10M in bfloat16: the control for the wide rows, which differ from
    # the float32 10M rows in their precision as well as their width.
    *_squad_recon_bf16_rows("dagger-squads-10m-bf16", "squad_recon_dagger_squads", 10, (0,)),
    # The squads recipe with the shortest ways to the detected camps in its view, beside the
    # row above (same precision, budget and seeds): whether the distances past the view's
    # window are what the student fails to copy (teacher_gap.txt).
    *_squad_recon_bf16_rows("dagger-paths-10m-bf16", "squad_recon_dagger_paths", 10, (0, 1, 2)),
    # ... and with the 25M schedule of the squads recipe's longest rows.
    *_squad_recon_bf16_rows("dagger-paths-25m-bf16", "squad_recon_dagger_paths", 25, (0,)),
)
V2_ROWS: tuple[Row, ...] = tuple(replace(r, vtrace_clip=0.0) for r in _VTRACE_OFF_ROWS)
V2_DIR = Path(V2_DIR_NAME)
REFERENCE_AGENTS = ("random", "heuristic", "oracle")  # the lines drawn and scored beside
# Held-out episodes start here: a legacy row's sub-env i started from env seed seed + i, so
# the first episodes of its sub-envs are published episodes (0..257 of 0..9,999); no run,
# reference line (1,000,000 on) or imitated agent's stream (3,000,000 on) comes near this.
HELD_OUT_SEED = 5_000_000


def train_v2_row(row: Row, runs: Path, docs: Path) -> None:
    """Trains ``row`` unless ``runs/<name>`` holds a finished run, then publishes it."""
    folder = runs / row.name
    if not (folder / "checkpoint.pt").is_file():
        train(row.env_id, out_dir=folder, progress=False, **row.config())
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copy(folder / "checkpoint.pt", docs / f"{row.name}.pt")
    shutil.copy(folder / "progress.csv", docs / f"{row.name}.csv")
    if (folder / "imitation.csv").is_file():
        shutil.copy(folder / "imitation.csv", docs / f"{row.name}-imitation.csv")


def score_v2(
    rows: Sequence[Row],
    docs: Path,
    images: Path,
    episodes: int,
    reference_agents: Sequence[str] = REFERENCE_AGENTS,
    greedy: bool = False,
    held_out: bool = False,
) -> list[dict]:
    """Scores each published checkpoint and the env's ``reference_agents``; draws the
    curves (with the reference lines of the agents scored). With ``greedy`` each checkpoint is
    also scored on the same episodes playing each head's most likely action (``hiddengrid eval
    --greedy``), kept beside its sampled figures as ``greedy_*``. With ``held_out`` it is also
    scored, sampling, on episodes from :data:`HELD_OUT_SEED` that no training run has met
    (``hiddengrid eval --seed 5000000``), kept as ``heldout_*``."""
    from hiddengrid.evaluate import run_episodes, wilson_interval
    from hiddengrid.registry import definition_of
    from hiddengrid.train.agent import PPOAgent
    from hiddengrid.train.checkpoint import load_checkpoint

    results: list[dict] = []
    references: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        ckpt = docs / f"{row.name}.pt"
        if not ckpt.is_file():
            print(f"{row.name}: no checkpoint at {ckpt}, not scored", file=sys.stderr)
            continue
        _, config, data = load_checkpoint(ckpt)
        kwargs = dict(config.env_kwargs)
        key = (row.env_id, json.dumps(kwargs, sort_keys=True))
        if key not in references:
            refs = {}
            for agent in reference_agents:
                if agent in definition_of(row.env_id).agents:
                    r = run_episodes(row.env_id, agent, episodes, env_kwargs=kwargs)
                    refs[agent] = r
                    results.append(_result_row(row.env_id, kwargs, agent, r, wilson_interval))
            references[key] = refs

        def sampled(env: Any, seed: int, c: str = str(ckpt)) -> PPOAgent:
            return PPOAgent(env, seed, checkpoint=c)

        start = time.perf_counter()
        r = run_episodes(
            row.env_id,
            "ppo",
            episodes,
            env_kwargs=kwargs,
            agent_factory=sampled,
        )
        with open(docs / f"{row.name}.csv") as fh:
            last = fh.readlines()[-1].split(",")
        imitation = config.imitation_updates * config.steps_per_update
        results.append(
            {
                **_result_row(row.env_id, kwargs, row.label, r, wilson_interval),
                "run": row.name,
                "seed": row.seed,
                "checkpoint": str(ckpt),
                "steps": int(data["step"]),
                "imitation_steps": imitation,
                "ppo_steps": int(data["step"]) - imitation,
                "train_wall_seconds": float(last[12]),
                "eval_seconds": time.perf_counter() - start,
            }
        )
        if greedy:
            g = run_episodes(
                row.env_id,
                "ppo-greedy",
                episodes,
                env_kwargs=kwargs,
                agent_factory=lambda env, seed, c=str(ckpt): PPOAgent(
                    env, seed, checkpoint=c, greedy=True
                ),
            )
            results[-1].update(
                greedy_success=g.success_rate,
                greedy_ci95=list(wilson_interval(g.successes, g.episodes)),
                greedy_mean_return=g.mean_return,
            )
        if held_out:
            h = run_episodes(
                row.env_id,
                "ppo",
                episodes,
                seed=HELD_OUT_SEED,
                env_kwargs=kwargs,
                agent_factory=sampled,
            )
            results[-1].update(
                heldout_seeds=f"{HELD_OUT_SEED}..{HELD_OUT_SEED + episodes - 1}",
                heldout_success=h.success_rate,
                heldout_ci95=list(wilson_interval(h.successes, h.episodes)),
                heldout_mean_return=h.mean_return,
            )
        refs = references[key]
        _plot_v2(
            row,
            docs,
            images,
            {k: r.success_rate for k, r in refs.items()},
            {k: r.mean_return for k, r in refs.items()},
        )
    return results


def _result_row(env_id: str, kwargs: dict, agent: str, r: Any, interval: Any) -> dict:
    low, high = interval(r.successes, r.episodes)
    return {
        "env": env_id,
        "env_kwargs": kwargs,
        "agent": agent,
        "episodes": r.episodes,
        "seeds": f"0..{r.episodes - 1}",
        "success": r.success_rate,
        "ci95": [low, high],
        "mean_return": r.mean_return,
    }


def _plot_v2(
    row: Row, docs: Path, images: Path, success: dict[str, float], returns: dict[str, float]
) -> None:
    """Draws ``row``'s curve (and FieldCipher's per-slot accuracy) with the env's agents'
    ``success`` rates and mean ``returns`` as lines."""
    from hiddengrid.train.plot import plot_columns, plot_curves

    csv = docs / f"{row.name}.csv"
    images.mkdir(parents=True, exist_ok=True)
    plot_curves(
        {f"{row.label}, seed {row.seed}": [csv]},
        images / f"{row.name}.png",
        title=f"{row.env_id} {row.name}: trainer v2 (grey: the env's agents, episodes 0..9,999)",
        references=success,
        return_references=returns,
    )
    with open(csv) as fh:
        header = fh.readline().strip().split(",")
    slots = [c for c in header if c.startswith("slot") and c.endswith("_right")]
    if slots:
        plot_columns(
            csv,
            slots,
            images / f"{row.name}-slots.png",
            title=f"{row.name}: per-slot accuracy (ended training episodes)",
            chance=1 / 16,
        )
    print(f"wrote {images / f'{row.name}.png'}", file=sys.stderr)


def redraw_v2(rows: Sequence[Row], docs: Path, images: Path) -> int:
    """Draws the rows' curves again from their CSVs, with the env's agents' lines from the
    scores ``results.json`` already holds: nothing is trained or scored. Returns how many
    curves it drew."""
    from hiddengrid.train.checkpoint import load_checkpoint

    table = json.loads((docs / "results.json").read_text())["rows"]
    drawn = 0
    for row in rows:
        if not (docs / f"{row.name}.csv").is_file() or not (docs / f"{row.name}.pt").is_file():
            print(f"{row.name}: no CSV or checkpoint in {docs}, not drawn", file=sys.stderr)
            continue
        # the env's arguments as scoring keyed its agents' rows: the checkpoint's
        kwargs = json.dumps(load_checkpoint(docs / f"{row.name}.pt")[1].env_kwargs, sort_keys=True)
        agents = [
            r
            for r in table
            if r["env"] == row.env_id
            and json.dumps(r["env_kwargs"], sort_keys=True) == kwargs
            and r["agent"] in REFERENCE_AGENTS
            and "run" not in r
        ]
        success = {r["agent"]: r["success"] for r in agents}
        returns = {r["agent"]: r["mean_return"] for r in agents}
        _plot_v2(row, docs, images, success, returns)
        drawn += 1
    return drawn


def main_v2(args: argparse.Namespace) -> int:
    rows = [r for r in V2_ROWS if not args.only or r.name in args.only]
    if args.list:
        for row in V2_ROWS:
            print(f"{row.name}\t{row.steps:,} steps\t{row.label}")
        return 0
    names = [r.name for r in V2_ROWS]
    unknown = sorted(set(args.only or ()) - set(names))
    if unknown:
        # the table has ~90 rows: name the nearest, not all of them
        near = sorted({m for u in unknown for m in difflib.get_close_matches(u, names, n=3)})
        hint = f"; nearest: {', '.join(near)}" if near else ""
        print(
            f"unknown rows {unknown}{hint} (all {len(names)}: --v2 --list)",
            file=sys.stderr,
        )
        return 2
    docs = Path(args.csv_dir if args.csv_dir != "docs/baselines" else V2_DIR)
    if args.redraw:
        redraw_v2(rows, docs, Path(args.images))
        return 0
    if not args.score_only:
        for row in rows:
            train_v2_row(row, Path(args.runs if args.runs != "runs/baselines" else "runs/v2"), docs)
    results = score_v2(
        rows,
        docs,
        Path(args.images),
        args.episodes,
        args.references,
        greedy=args.greedy,
        held_out=args.held_out,
    )
    out = docs / "results.json"
    old = json.loads(out.read_text())["rows"] if out.is_file() else []
    if args.score_only:  # the same checkpoints: scores not asked for this time are kept
        earlier = {_key(r): r for r in old}
        for r in results:
            extra = {k: v for k, v in earlier.get(_key(r), {}).items() if k.startswith(EXTRA)}
            r.update({k: v for k, v in extra.items() if k not in r})
    # rows of this call replace their earlier selves; the rest of the table is kept
    fresh = {_key(r) for r in results}
    keep = [r for r in old if _key(r) not in fresh]
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, {_cores()} cores"
    with open(out, "w") as fh:
        json.dump({"machine": machine, "rows": keep + results}, fh, indent=1)
    print("| env | env args | agent | env steps | success | 95 % interval | mean return |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        steps = f"{r['steps'] / 1e6:.2f}M" if "steps" in r else ""
        low, high = r["ci95"]
        args_text = ", ".join(f"{k}={v}" for k, v in r["env_kwargs"].items())
        print(
            f"| `{r['env'].split('/')[-1]}` | {args_text} | {r['agent']} | {steps} | "
            f"{r['success']:.1%} | [{low:.1%}, {high:.1%}] | {r['mean_return']:.3f} |"
        )
    return 0


EXTRA = ("greedy_", "heldout_")  # a row's optional scores, each from its own flag


def _key(row: dict) -> tuple:
    return (row["env"], json.dumps(row["env_kwargs"], sort_keys=True), row["agent"], row.get("run"))


def _cores() -> int:
    import os

    return os.cpu_count() or 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--v2", action="store_true", help="trainer v2's table (V2_ROWS)")
    parser.add_argument("--score-only", action="store_true", help="with --v2: no training")
    parser.add_argument("--list", action="store_true", help="with --v2: print the rows' names")
    parser.add_argument(
        "--redraw",
        action="store_true",
        help="with --v2: only draw the curves again (the env's agents' lines from results.json)",
    )
    parser.add_argument("--episodes", type=int, default=10_000, help="with --v2: scored episodes")
    parser.add_argument(
        "--greedy",
        action="store_true",
        help="with --v2: also score each checkpoint playing its most likely actions",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help=f"with --v2: also score each checkpoint on episodes from seed {HELD_OUT_SEED:,}, "
        "which no training run has met",
    )
    parser.add_argument("--images", default="docs/images")
    parser.add_argument(
        "--references",
        nargs="*",
        default=list(REFERENCE_AGENTS),
        metavar="AGENT",
        help="with --v2: the env agents scored beside (default random heuristic oracle)",
    )
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--only", action="append", metavar="ID", help="env id (repeatable); with --v2 a row name"
    )
    parser.add_argument("--policy", action="append", choices=("mlp", "gru", "lstm"))
    parser.add_argument(
        "--memory", choices=("on", "off"), help="only runs with (or without) memory across episodes"
    )
    parser.add_argument("--runs", default="runs/baselines")
    parser.add_argument("--csv-dir", default="docs/baselines")
    args = parser.parse_args(argv)
    if args.v2:
        return main_v2(args)
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
                # the first trainer's settings and env seeds, whatever today's defaults are
                legacy_env_seeds=True,
                **FIRST,
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
