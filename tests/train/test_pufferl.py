"""PufferLib's trainer (PuffeRL) on our envs with our network: settings, masking, checkpoints,
the comparison script and the bench row. Runs where PuffeRL imports (the README's test command
builds PufferLib's kernel for the CPU)."""

from __future__ import annotations

import functools
import json
import signal
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pufferlib")

from hiddengrid.evaluate import run_episodes  # noqa: E402
from hiddengrid.train import pufferl_runner  # noqa: E402
from hiddengrid.train.agent import PPOAgent  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.config import PPOConfig  # noqa: E402
from hiddengrid.train.policy import ActorCritic  # noqa: E402
from hiddengrid.train.pufferl_runner import (  # noqa: E402
    PufferPolicy,
    import_pufferl,
    pufferl_settings,
    train_pufferl,
)

try:
    import_pufferl()
except ImportError as error:
    pytest.skip(str(error), allow_module_level=True)

# PuffeRL's train() is wrapped by torch's elastic error recorder, which warns that it cannot
# install its fault handler on pytest's captured stderr
pytestmark = pytest.mark.filterwarnings("ignore:Unable to enable fault handler")
AM = "hiddengrid/AnomalyMapping-v0"
SMALL = {"num_envs": 32, "rollout": 16, "minibatches": 2}  # 512 steps per update


def _config(env_id: str, steps: int, seed: int = 0, **settings: object) -> PPOConfig:
    return PPOConfig(env_id=env_id, total_steps=steps, seed=seed, **{**SMALL, **settings})


def test_pufferl_settings_carry_the_configs_ppo_settings() -> None:
    config = PPOConfig(
        num_envs=128,
        rollout=32,
        epochs=3,
        minibatches=8,
        learning_rate=1e-3,
        adam_eps=1e-5,
        gamma=0.97,
        gae_lambda=0.9,
        clip=0.1,
        value_clip=0.3,
        value_coef=0.7,
        entropy_coef=0.02,
        max_grad_norm=0.9,
        priority=0.6,
        priority_beta=0.4,
        lr_schedule="constant",
        seed=5,
    )
    s = pufferl_settings(config, "/tmp/x")
    assert (s["batch_size"], s["bptt_horizon"], s["minibatch_size"]) == (4096, 32, 512)
    assert s["max_minibatch_size"] == 512  # no gradient accumulation
    assert (s["update_epochs"], s["learning_rate"], s["adam_eps"]) == (3, 1e-3, 1e-5)
    assert (s["gamma"], s["gae_lambda"], s["clip_coef"], s["vf_clip_coef"]) == (0.97, 0.9, 0.1, 0.3)
    assert (s["vf_coef"], s["ent_coef"], s["max_grad_norm"]) == (0.7, 0.02, 0.9)
    assert (s["prio_alpha"], s["prio_beta0"], s["seed"]) == (0.6, 0.4, 5)
    assert s["anneal_lr"] is False and s["device"] == "cpu" and s["optimizer"] == "adam"
    assert pufferl_settings(PPOConfig(), "/tmp/x")["anneal_lr"] is True


def test_the_policy_masks_illegal_actions_and_splits_action_components() -> None:
    sample_logits = pytest.importorskip("pufferlib.pytorch").sample_logits
    torch.manual_seed(0)
    masked = PufferPolicy(ActorCritic(4, [3], 8, "mlp"), flat_width=4, masked=True)
    rows = torch.cat([torch.randn(2000, 4), torch.tensor([[1.0, 0.0, 1.0]]).repeat(2000, 1)], 1)
    logits, values = masked.forward_eval(rows)
    action, _, _ = sample_logits(logits)
    assert values.shape == (2000,)
    assert set(action.tolist()) == {0, 2}  # never the masked action 1
    split = PufferPolicy(ActorCritic(4, [2, 3], 8, "mlp"), flat_width=4, masked=False)
    parts, _ = split.forward(torch.randn(5, 4))
    assert [p.shape for p in parts] == [(5, 2), (5, 3)]
    action, logprob, _ = sample_logits(parts)
    assert action.shape == (5, 2) and logprob.shape == (5,)


def test_pufferl_trains_reproducibly_and_its_checkpoint_scores_like_ours(tmp_path: Path) -> None:
    first = train_pufferl(_config(AM, 1024), tmp_path / "a.pt")
    second = train_pufferl(_config(AM, 1024), tmp_path / "b.pt")
    other = train_pufferl(_config(AM, 1024, seed=1), tmp_path / "c.pt")
    assert first.steps == 1024 and 0 < first.env_seconds < first.seconds
    weights = [load_checkpoint(r.checkpoint)[0].state_dict() for r in (first, second, other)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert not all(torch.equal(weights[0][k], weights[2][k]) for k in weights[0])
    agent = functools.partial(PPOAgent, checkpoint=str(first.checkpoint))
    scored = run_episodes(AM, "ppo", 20, seed=5_000_000, agent_factory=agent)
    assert scored.episodes == 20


@pytest.mark.parametrize("env_id", ["hiddengrid/Megacity-v0", "hiddengrid/SquadRecon-v0"])
def test_pufferl_trains_on_masked_and_multi_component_actions(env_id: str, tmp_path: Path) -> None:
    # the adapter raises ValueError on a masked action, so a run that ends played legally
    result = train_pufferl(_config(env_id, 1024), tmp_path / "run.pt")
    model, config, _ = load_checkpoint(result.checkpoint)
    assert result.steps == 1024 and config.env_id == env_id
    assert len(model.nvec) == (3 if "Squad" in env_id else 1)


def test_pufferl_refuses_what_it_cannot_run(tmp_path: Path) -> None:
    refused = ({"policy": "gru"}, {"shaping": "field_cipher_slots"}, {"init_checkpoint": "x.pt"})
    for settings in refused:
        env_id = "hiddengrid/FieldCipher-v0" if "shaping" in settings else AM
        with pytest.raises(ValueError, match="plain PPO with the feed-forward policy"):
            train_pufferl(_config(env_id, 512, **settings), tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_importing_pufferl_keeps_ctrl_c_and_the_excepthook(monkeypatch) -> None:
    def handler(signum, frame) -> None:
        pass

    previous = signal.signal(signal.SIGINT, handler)
    hook = sys.excepthook
    try:
        monkeypatch.delitem(sys.modules, "pufferlib.pufferl")  # executes the module again
        import_pufferl()
        assert signal.getsignal(signal.SIGINT) is handler
        assert sys.excepthook is hook
    finally:
        signal.signal(signal.SIGINT, previous)


def test_versus_pufferl_writes_one_row_per_trainer_and_resumes(tmp_path: Path, monkeypatch) -> None:
    from hiddengrid.train import versus_pufferl

    out = tmp_path / "versus.json"
    args = ["--env", AM, "--steps", "16384", "--seeds", "0", "--episodes", "30", "--out", str(out)]
    assert versus_pufferl.main(args) == 0
    rows = json.loads(out.read_text())
    assert [r["trainer"] for r in rows] == ["hiddengrid", "pufferl"]
    assert rows[0]["vtrace_clip"] == 1.0 and "vtrace_clip" not in rows[1]  # ours' default
    for row in rows:
        assert row["steps"] == 16384 and row["budget"] == 16384 and row["episodes"] == 30
        assert row["eval_seed"] == 5_000_000 and 0 <= row["success"] <= 1
    monkeypatch.setattr(versus_pufferl, "run_pair", lambda *a: pytest.fail("ran a pair again"))
    assert versus_pufferl.main(args) == 0
    assert json.loads(out.read_text()) == rows


def test_versus_pufferl_reruns_only_ours_when_our_default_changed(
    tmp_path: Path, monkeypatch
) -> None:
    from hiddengrid.train import versus_pufferl

    out = tmp_path / "versus.json"
    base = {"env_id": AM, "budget": 16384, "seed": 0}
    old = [{**base, "trainer": "hiddengrid"}, {**base, "trainer": "pufferl"}]  # before V-trace
    out.write_text(json.dumps(old))
    asked = []

    def run_pair(env_id, steps, seed, episodes, trainers):
        asked.append((env_id, steps, seed, list(trainers)))
        return [{**base, "trainer": t, "vtrace_clip": 1.0} for t in trainers]

    monkeypatch.setattr(versus_pufferl, "run_pair", run_pair)
    args = ["--env", AM, "--steps", "16384", "--seeds", "0", "1", "--out", str(out)]
    assert versus_pufferl.main(args) == 0
    assert asked == [(AM, 16384, 0, ["hiddengrid"]), (AM, 16384, 1, ["hiddengrid", "pufferl"])]
    assert json.loads(out.read_text())[:2] == old


def test_versus_pufferl_scores_as_hiddengrid_eval_does(tmp_path: Path, capsys) -> None:
    from hiddengrid.cli import main
    from hiddengrid.train import versus_pufferl

    checkpoint = train_pufferl(_config(AM, 512), tmp_path / "run.pt").checkpoint
    scored = versus_pufferl._score(AM, checkpoint, 40)
    argv = ["eval", "--env", AM, "--agent", "ppo", "--checkpoint", str(checkpoint)]
    argv += ["--episodes", "40", "--seed", "5000000", "--json", str(tmp_path / "eval.json")]
    assert main(argv) == 0
    capsys.readouterr()
    (row,) = json.loads((tmp_path / "eval.json").read_text())
    assert row["success_rate"] == scored["success"]
    assert row["mean_return"] == scored["mean_return"]


def test_versus_pufferl_says_in_one_line_why_puffer_does_not_run(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    from hiddengrid.train import versus_pufferl

    def fails() -> None:
        raise ImportError("PufferLib's trainer does not import here: no kernel")

    monkeypatch.setattr(versus_pufferl, "import_pufferl", fails)
    out = tmp_path / "versus.json"
    assert versus_pufferl.main(["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not import here" in err
    assert not out.exists()


def test_the_training_bench_has_a_pufferl_row_or_says_why_not(monkeypatch, capsys) -> None:
    from hiddengrid.train.bench import pufferl_rows

    (row,) = pufferl_rows(AM, 1)
    name, steps_per_second, split = row
    assert name == "PuffeRL, our settings" and steps_per_second > 0
    assert set(split) == {"env", "other"} and split["env"] > 0

    def fails() -> None:
        raise ImportError("PufferLib's trainer does not import here: no kernel")

    monkeypatch.setattr(pufferl_runner, "import_pufferl", fails)
    assert pufferl_rows(AM, 1) == []
    assert "does not import here" in capsys.readouterr().out


def test_cputime_measures_pufferl_beside_both_trainers(capsys) -> None:
    from hiddengrid.train import cputime

    assert cputime.main(["--steps", "16384", "--repeats", "1", "--pufferl"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "median" not in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| first trainer",
        "| trainer v2, V-trace off",
        "| trainer v2 (defaults)",
        f"| {cputime.PUFFERL}",
    ]
    assert "PuffeRL uses" in out and "V-trace costs" in out
