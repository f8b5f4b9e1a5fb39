"""Which env seeds a training run plays: away from the published episodes by default, the
old ``seed + i`` with ``legacy_env_seeds`` (the published rows, so they rerun bit for bit)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.baselines import _LEGACY_V2_ROWS, HELD_OUT_SEED, V2_ROWS  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.config import TRAIN_ENV_SEED  # noqa: E402
from hiddengrid.train.trainer import REFERENCE_SEED  # noqa: E402

FC = "hiddengrid/FieldCipher-v0"  # its first observation (the field picture) shows the seed
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 64}


def _first_observations(folder: Path, **extra: object) -> tuple[np.ndarray, PPOTrainer]:
    trainer = PPOTrainer(PPOConfig.from_dict({"env_id": FC, **TINY, **extra}), folder)
    return np.array(trainer._start().flat), trainer


def test_a_run_plays_env_seeds_away_from_the_published_episodes(tmp_path: Path) -> None:
    first, trainer = _first_observations(tmp_path / "a", seed=3)
    assert trainer.config.env_seed == TRAIN_ENV_SEED + 3 * 2**20
    away = np.array(trainer.env.reset(seed=TRAIN_ENV_SEED + 3 * 2**20)[0])
    published = np.array(trainer.env.reset(seed=3)[0])  # sub-env i: episode 3 + i of the tables
    assert not np.array_equal(away, published)  # the observation tells seeds apart
    assert np.array_equal(first, away)
    # a run's sub-envs stay clear of every range the docs score on, for every training seed
    # (num_envs is at most 2**16, so sub-envs of two training seeds never share a seed)
    for seed in (0, 1, 2**20):
        low = PPOConfig.from_dict({"env_id": FC, **TINY, "seed": seed}).env_seed
        assert low > HELD_OUT_SEED + 10**6 and low > REFERENCE_SEED + 10**6
    assert PPOConfig(env_id=FC, seed=1).env_seed - PPOConfig(env_id=FC).env_seed >= 2**16


def test_legacy_env_seeds_are_seed_plus_i_as_the_published_rows_were_trained(
    tmp_path: Path,
) -> None:
    first, trainer = _first_observations(tmp_path / "a", seed=3, legacy_env_seeds=True)
    assert np.array_equal(first, np.array(trainer.env.reset(seed=3)[0]))
    # the rows trained before the setting keep their seeds, the rows after it do not
    legacy = len(_LEGACY_V2_ROWS)
    assert all(row.config()["legacy_env_seeds"] for row in V2_ROWS[:legacy])
    assert not any(row.config()["legacy_env_seeds"] for row in V2_ROWS[legacy:])


def test_a_checkpoint_from_before_the_setting_loads_as_legacy(tmp_path: Path) -> None:
    result = train(FC, out_dir=tmp_path / "run", progress=False, reference_episodes=0, **TINY)
    assert load_checkpoint(result.checkpoint)[1].legacy_env_seeds is False
    data = torch.load(result.checkpoint, weights_only=True)
    del data["config"]["legacy_env_seeds"]
    old = tmp_path / "old.pt"
    torch.save(data, old)
    assert load_checkpoint(old)[1].legacy_env_seeds is True


def test_a_bad_legacy_env_seeds_is_refused() -> None:
    with pytest.raises(ValueError, match="legacy_env_seeds must be true or false, got 'yes'"):
        PPOConfig.from_dict({"env_id": FC, "legacy_env_seeds": "yes"})
