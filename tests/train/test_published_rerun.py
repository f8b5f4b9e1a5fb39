"""A published checkpoint is retrained bit for bit by the command its page gives, whatever
today's defaults are (each published run pins the settings it was trained with)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from hiddengrid.train import ablation  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "docs/baselines/trainer_v2/AnomalyMapping-v0-mlp-262k-s0.pt"


def test_the_ablation_retrains_the_published_262k_checkpoint_bit_for_bit(tmp_path: Path) -> None:
    # the training page: python -m hiddengrid.train.ablation --variant defaults --seeds 0
    argv = ["--variant", "defaults", "--seeds", "0", "--episodes", "1", "--runs", str(tmp_path)]
    assert ablation.main(argv) == 0
    ours = torch.load(tmp_path / "defaults-s0" / "checkpoint.pt", weights_only=True)["model"]
    published = torch.load(PUBLISHED, weights_only=True)["model"]
    assert ours.keys() == published.keys()
    assert all(torch.equal(ours[k], published[k]) for k in ours)


def test_the_first_trainers_grid_command_reruns_its_published_csv(tmp_path: Path) -> None:
    import csv

    from hiddengrid.train import baselines

    # the training page's command for the first trainer's table, cut to its first update (the
    # learning rate's first factor does not depend on the run's length)
    argv = ["--steps", "16384", "--policy", "mlp", "--only", "hiddengrid/AnomalyMapping-v0"]
    argv += ["--seeds", "0", "--runs", str(tmp_path / "runs"), "--csv-dir", str(tmp_path)]
    assert baselines.main(argv) == 0
    (ours,) = csv.DictReader((tmp_path / "AnomalyMapping-v0-mlp-s0.csv").open())
    published = next(csv.DictReader((ROOT / "docs/baselines/AnomalyMapping-v0-mlp-s0.csv").open()))
    timing = {"steps_per_second", "seconds", "env_seconds", "forward_seconds", "learn_seconds"}
    assert ours.keys() == published.keys()
    assert {k: v for k, v in ours.items() if k not in timing} == {
        k: v for k, v in published.items() if k not in timing
    }
