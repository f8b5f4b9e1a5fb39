"""A published checkpoint is retrained by the command its page gives, whatever today's
defaults are (each published run pins the settings it was trained with).

Bit for bit on the kind of CPU that trained them (AMD, torch's AVX2 kernels). On another,
torch's matrix products round differently in the last bits (an Intel Xeon with AVX-512 was
measured: losses 5e-6 apart relatively after the first update) and a run drifts from the
published one after a few updates; there the first update is checked instead: the rollout
exactly, the losses to a relative 1e-4, which any change of settings exceeds."""

from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from hiddengrid.train import ablation  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "docs/baselines/trainer_v2/AnomalyMapping-v0-mlp-262k-s0.pt"
TIMING = {"steps_per_second", "seconds", "env_seconds", "forward_seconds", "learn_seconds"}
LOSSES = {"policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction"}


@functools.cache
def _published_cpu() -> bool:
    """Whether this CPU is of the kind the published runs were trained on."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    amd = "AuthenticAMD" in text
    return amd and torch.backends.cpu.get_cpu_capability() == "AVX2"


def _assert_same_update(ours: dict[str, str], published: dict[str, str]) -> None:
    assert ours.keys() == published.keys()
    for key in ours.keys() - TIMING:
        if key in LOSSES and not _published_cpu():
            a, b = float(ours[key]), float(published[key])
            assert math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-9), (key, a, b)
        else:
            assert ours[key] == published[key], (key, ours[key], published[key])


def test_the_ablation_retrains_the_published_262k_checkpoint(tmp_path: Path) -> None:
    # the training page: python -m hiddengrid.train.ablation --variant defaults --seeds 0
    argv = ["--variant", "defaults", "--seeds", "0", "--episodes", "1", "--runs", str(tmp_path)]
    assert ablation.main(argv) == 0
    run = tmp_path / "defaults-s0"
    if _published_cpu():
        ours = torch.load(run / "checkpoint.pt", weights_only=True)["model"]
        published = torch.load(PUBLISHED, weights_only=True)["model"]
        assert ours.keys() == published.keys()
        assert all(torch.equal(ours[k], published[k]) for k in ours)
    else:
        (first, *_) = csv.DictReader((run / "progress.csv").open())
        published_first = next(csv.DictReader(PUBLISHED.with_suffix(".csv").open()))
        _assert_same_update(first, published_first)


def test_the_first_trainers_grid_command_reruns_its_published_csv(tmp_path: Path) -> None:
    from hiddengrid.train import baselines

    # the training page's command for the first trainer's table, cut to its first update (the
    # learning rate's first factor does not depend on the run's length)
    argv = ["--steps", "16384", "--policy", "mlp", "--only", "hiddengrid/AnomalyMapping-v0"]
    argv += ["--seeds", "0", "--runs", str(tmp_path / "runs"), "--csv-dir", str(tmp_path)]
    assert baselines.main(argv) == 0
    (ours,) = csv.DictReader((tmp_path / "AnomalyMapping-v0-mlp-s0.csv").open())
    published = next(csv.DictReader((ROOT / "docs/baselines/AnomalyMapping-v0-mlp-s0.csv").open()))
    _assert_same_update(ours, published)
