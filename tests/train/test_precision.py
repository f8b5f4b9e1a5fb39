"""``precision="bfloat16"``: the network's passes under torch's automatic mixed precision, the
weights, optimizer, buffers and losses in float32; float32 (the default) untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from helpers import play_checkpoint  # noqa: E402

from hiddengrid.cli import main  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.pufferl_runner import pufferl_settings  # noqa: E402

ENV = "hiddengrid/AnomalyMapping-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}


def _passes(tmp: Path, precision: str, **extra: object) -> tuple[set, PPOTrainer]:
    """The dtypes the first layer's outputs had over one rollout and one update."""
    config = PPOConfig.from_dict({"env_id": ENV, **TINY, "precision": precision, **extra})
    t = PPOTrainer(config, tmp)
    seen: set = set()
    t.model.encoder[0].register_forward_hook(lambda m, i, out: seen.add(out.dtype))
    t.carry = t._start()
    t._collect()
    t._learn()
    t.scheduler.step()
    return seen, t


@pytest.mark.parametrize("policy", ["mlp", "gru"])
def test_bfloat16_multiplies_in_bfloat16_and_keeps_everything_else_float32(
    tmp_path: Path, policy: str
) -> None:
    seen, t = _passes(tmp_path / "bf16", "bfloat16", policy=policy)
    assert seen == {torch.bfloat16}
    assert all(p.dtype == torch.float32 for p in t.model.parameters())
    assert all(
        s.dtype == torch.float32 for group in t.optimizer.state.values() for s in group.values()
    )
    for buffer in (t.values, t.logps, t.next_value, *t.carry.state):
        assert buffer.dtype == torch.float32
    seen, _ = _passes(tmp_path / "f32", "float32", policy=policy)
    assert seen == {torch.float32}


def _train(folder: Path, env: str = ENV, **extra: object) -> object:
    return train(env, out_dir=folder, progress=False, reference_episodes=0, **TINY, **extra)


def test_bfloat16_runs_train_an_auxiliary_head_and_their_checkpoints_play(
    tmp_path: Path,
) -> None:
    env = "hiddengrid/FieldCipher-v0"
    result = _train(tmp_path / "fc", env, precision="bfloat16", auxiliary="field_cipher_message")
    _, config, _ = load_checkpoint(result.checkpoint)
    assert config.precision == "bfloat16"
    play_checkpoint(env, result.checkpoint, 4)
    plain = _train(tmp_path / "am")
    half = _train(tmp_path / "am16", precision="bfloat16")
    a = torch.load(plain.checkpoint, weights_only=True)["model"]
    b = torch.load(half.checkpoint, weights_only=True)["model"]
    assert any(not torch.equal(a[k], b[k]) for k in a)  # the option changes the arithmetic
    assert all(b[k].dtype == torch.float32 for k in b)
    play_checkpoint(ENV, half.checkpoint, 4)


def test_a_checkpoint_without_the_setting_loads_as_float32() -> None:
    values = PPOConfig(env_id=ENV).as_dict()
    del values["precision"]
    assert PPOConfig.from_dict(values).precision == "float32"


def test_an_unknown_precision_is_refused_in_the_api_and_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="precision must be one of float32, bfloat16, got 'half'"):
        PPOConfig(precision="half")
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "--env", ENV, "--precision", "half", "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "argument --precision: invalid choice: 'half'" in err[-1]
    assert not (tmp_path / "run").exists()


def test_the_cli_offers_the_configs_precisions() -> None:
    import argparse

    from hiddengrid.cli_train import add_ppo_options
    from hiddengrid.train.config import PRECISIONS

    parser = argparse.ArgumentParser()
    add_ppo_options(parser)
    action = next(a for a in parser._actions if a.dest == "precision")
    assert tuple(action.choices) == PRECISIONS


def test_pufferl_is_given_the_same_precision() -> None:
    for precision in ("float32", "bfloat16"):
        config = PPOConfig(env_id=ENV, precision=precision)
        assert pufferl_settings(config, "unused")["precision"] == precision
