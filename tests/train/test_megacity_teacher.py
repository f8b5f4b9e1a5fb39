"""Megacity's DAgger teacher (hiddengrid/train/megacity_teacher.py) and the megacity_dagger
recipe: the teacher reads only the observation and the mask, its labels are its actions on the
states the student visits, it wins at level 0, and the recipe trains and plays."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import play_checkpoint  # noqa: E402

import hiddengrid  # noqa: E402, F401  (registers the envs)
from hiddengrid.envs.megacity.constants import (  # noqa: E402
    CONDUIT_BASE,
    GRAVITY,
    RESEARCH_BASE,
    SCAN,
)
from hiddengrid.envs.megacity.env import OBSERVATION  # noqa: E402
from hiddengrid.evaluate import run_episodes  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.auxiliary import AUXILIARIES  # noqa: E402
from hiddengrid.train.megacity_teacher import (  # noqa: E402
    MemorylessExpert,
    megacity_teacher_labels,
    teacher_actions,
)
from hiddengrid.train.recipes import recipe_settings  # noqa: E402

MEGACITY = "hiddengrid/Megacity-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}
DEV_SEED = 1_000_000  # development episodes, away from the published 0..9,999


def make_batch(n: int, seed: int, level: int = 0):
    env = gym.make_vec(MEGACITY, num_envs=n, vectorization_mode="vector_entry_point", level=level)
    env.reset(seed=seed)
    return env


def test_opening_is_the_experts_research_scan_then_a_tap_on_the_fault() -> None:
    env = make_batch(4, DEV_SEED)
    batch = env.unwrapped.batch
    gravity = RESEARCH_BASE + GRAVITY
    for expected in (gravity, gravity, SCAN):
        labels = megacity_teacher_labels(batch)[:, 0]
        assert (labels == expected).all(), labels
        env.step(labels)
    labels = megacity_teacher_labels(batch)[:, 0]
    faults = batch.fields["view_faults"].reshape(4, -1)
    for j, a in enumerate(labels):
        cell = a - CONDUIT_BASE  # a single-cell conduit: its cell index
        assert 0 <= cell < 25 and faults[j, cell] == 1, (j, a)


def test_label_is_a_legal_action_of_the_observation_alone() -> None:
    """Along random play, every label is legal, equals the teacher's action on a copy of the
    observation and mask, and does not move when the hidden state (true stress, seams, fault,
    survey error) is overwritten: the teacher reads nothing a policy cannot see."""
    n = 16
    env = make_batch(n, DEV_SEED + 100)
    batch = env.unwrapped.batch
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(40):
        labels = megacity_teacher_labels(batch)[:, 0]
        mask = np.asarray(batch["mask"], dtype=bool).copy()
        assert mask[np.arange(n), labels].all()
        obs = {key: batch.fields[name].copy() for key, name in OBSERVATION.items()}
        hidden = {k: batch.fields[k].copy() for k in ("stress", "seams", "faults", "survey")}
        for name in hidden:
            batch.fields[name][:] = rng.integers(0, 3, size=batch.fields[name].shape)
        assert np.array_equal(megacity_teacher_labels(batch)[:, 0], labels)
        assert np.array_equal(teacher_actions(obs, mask), labels)
        for name, value in hidden.items():
            batch.fields[name][:] = value
        kinds.update((labels // 25).tolist())
        # the student: the teacher's action half the time, a random legal one otherwise
        random = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        env.step(np.where(rng.random(n) < 0.5, labels, random))
    assert len(kinds) >= 4  # excavations, supports or vents, conduits, builds, research ...


def test_teacher_wins_level_0_on_development_episodes() -> None:
    """Measured: 2,000 of 2,000 development episodes at level 0 (seeds 1,000,000 on)."""
    r = run_episodes(
        MEGACITY, "teacher", 200, seed=DEV_SEED, env_kwargs={"level": 0},
        agent_factory=MemorylessExpert,
    )  # fmt: skip
    assert r.success_rate >= 0.95, r.success_rate


def test_collected_labels_are_the_teachers_actions_on_the_student_states(tmp_path: Path) -> None:
    config = PPOConfig.from_dict(
        {"env_id": MEGACITY, **recipe_settings("megacity_dagger", MEGACITY), **TINY}
    )
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    seen = []
    original = AUXILIARIES["megacity_teacher"].labels

    def spy(batch):
        labels = original(batch)
        seen.append(labels[:, 0].copy())
        return labels

    t.aux = type(t.aux)(**{**t.aux.__dict__, "labels": spy})
    t._collect()
    assert len(seen) == config.rollout
    assert np.array_equal(t.aux_labels[:, :, 0].numpy(), np.stack(seen))
    assert t.model.aux is None  # the labels go to the policy's own logits


def test_dagger_recipe_runs_and_its_checkpoint_plays(tmp_path: Path) -> None:
    result = train(
        MEGACITY,
        out_dir=tmp_path,
        progress=False,
        reference_episodes=0,
        env_kwargs={"level": 0},
        **{**recipe_settings("megacity_dagger", MEGACITY), **TINY},
    )
    with open(result.csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert 0.0 <= float(rows[-1]["aux_accuracy"]) <= 1.0
    play_checkpoint(MEGACITY, result.checkpoint, 4, env_kwargs={"level": 0})
