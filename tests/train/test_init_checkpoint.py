"""A run started from another run's weights (``init_checkpoint``, ``--init-checkpoint``): a
stage of a curriculum over an env's arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from tests.train.test_trainer_v2 import one_line_error  # noqa: E402

FC = "hiddengrid/FieldCipher-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 64}


def _run(folder: Path, env_id: str = FC, **extra: object) -> Path:
    result = train(env_id, out_dir=folder, progress=False, reference_episodes=0, **TINY, **extra)
    return Path(result.checkpoint)


def _trainer(folder: Path, **extra: object) -> PPOTrainer:
    return PPOTrainer(PPOConfig.from_dict({"env_id": FC, **TINY, **extra}), folder)


def _same(a: dict, b: dict, keys: list[str]) -> bool:
    return all(torch.equal(a[k], b[k]) for k in keys)


def test_a_run_starts_from_the_checkpoints_weights_at_another_level(tmp_path: Path) -> None:
    first = _run(tmp_path / "level0", env_kwargs={"level": 0})
    trained = load_checkpoint(first)[0].state_dict()
    fresh = _trainer(tmp_path / "fresh", env_kwargs={"level": 1}).model.state_dict()
    started = _trainer(
        tmp_path / "level1", env_kwargs={"level": 1}, init_checkpoint=str(first)
    ).model.state_dict()
    keys = list(trained)
    assert _same(started, trained, keys)
    assert not _same(fresh, trained, keys)  # without it the same seed draws other weights
    # and the stage trains on: its checkpoint keeps its own level and its origin
    second = _run(tmp_path / "run1", env_kwargs={"level": 1}, init_checkpoint=str(first))
    _, config, _ = load_checkpoint(second)
    assert config.env_kwargs == {"level": 1} and config.init_checkpoint == str(first)


def test_the_auxiliary_head_is_taken_only_for_the_same_task(tmp_path: Path) -> None:
    first = _run(tmp_path / "aux", auxiliary="field_cipher_message")
    trained = load_checkpoint(first)[0].state_dict()
    shared = [k for k in trained if not k.startswith("aux.")]
    assert len(shared) < len(trained)
    same = _trainer(
        tmp_path / "same", auxiliary="field_cipher_message", init_checkpoint=str(first)
    ).model.state_dict()
    assert _same(same, trained, list(trained))
    plain = _trainer(tmp_path / "plain", init_checkpoint=str(first)).model.state_dict()
    assert _same(plain, trained, shared) and not any(k.startswith("aux.") for k in plain)
    other = _trainer(
        tmp_path / "other", auxiliary="field_cipher_teacher", init_checkpoint=str(first)
    ).model.state_dict()
    assert _same(other, trained, shared)
    # a run whose auxiliary task the checkpoint lacks keeps its own new head
    plain_first = _run(tmp_path / "plainrun")
    plain_weights = load_checkpoint(plain_first)[0].state_dict()
    grown = _trainer(
        tmp_path / "grown", auxiliary="field_cipher_message", init_checkpoint=str(plain_first)
    ).model.state_dict()
    new = _trainer(tmp_path / "new", auxiliary="field_cipher_message").model.state_dict()
    assert _same(grown, plain_weights, list(plain_weights))
    assert _same(grown, new, [k for k in new if k.startswith("aux.")])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--init-checkpoint", "missing.pt"], "init_checkpoint: checkpoint 'missing.pt' does"),
        (["--init-checkpoint", "am.pt"], "was trained on hiddengrid/AnomalyMapping-v0, not"),
        (["--init-checkpoint", "fc.pt", "--hidden", "32"], "has hidden 16, this run 32"),
        (["--init-checkpoint", "fc.pt", "--policy", "gru"], "has policy 'mlp', this run 'gru'"),
    ],
)
def test_a_checkpoint_that_does_not_fit_is_refused_before_any_work(
    tmp_path: Path, extra: list, message: str
) -> None:
    cwd = tmp_path / "cli"
    cwd.mkdir()
    _run(tmp_path / "fc").replace(cwd / "fc.pt")
    _run(tmp_path / "am", env_id="hiddengrid/AnomalyMapping-v0").replace(cwd / "am.pt")
    args = ["train", "--env", FC, "--steps", "64", "--num-envs", "8", "--rollout", "8"]
    if "--hidden" not in extra:
        args += ["--hidden", "16"]
    line = one_line_error([*args, *extra, "--out", "run"], cwd)
    assert message in line, line


def test_init_checkpoint_must_be_a_path() -> None:
    with pytest.raises(ValueError, match="init_checkpoint must be a checkpoint's path"):
        PPOConfig(env_id=FC, init_checkpoint=3)  # type: ignore[arg-type]
