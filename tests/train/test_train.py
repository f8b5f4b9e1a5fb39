"""PPO trainer: settings checks, exact pieces (advantages, masks, memory), determinism, learning."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import cli_error, play_checkpoint  # noqa: E402

from hiddengrid import ENV_IDS  # noqa: E402
from hiddengrid.cli import main  # noqa: E402
from hiddengrid.evaluate import run_episodes  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.agent import PPOAgent  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.policy import (  # noqa: E402
    ActorCritic,
    log_prob_entropy,
    masked_logits,
    sample,
)
from hiddengrid.train.trainer import PolicyInput  # noqa: E402

TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}


def tiny(env_id: str, tmp: Path, **extra: object) -> object:
    extra = {"reference_episodes": 0, **extra}
    return train(env_id, out_dir=tmp, progress=False, **{**TINY, **extra})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"total_steps": 0}, r"total_steps must be an integer in 1\.\.1,000,000,000,000, got 0"),
        ({"hidden": 99_999_999_999}, r"hidden must be an integer in 1\.\.4,096, got 99999999999"),
        ({"threads": 10**20}, r"threads must be an integer in 1\.\.1,024"),
        ({"seed": 2**64}, r"seed must be an integer in 0\.\.18446744073709551615 \(64 bits\)"),
        ({"seed": 10**5000}, r"got a number of about 5,001 digits$"),
        ({"num_envs": 65_536, "rollout": 4096}, "at most 4,194,304 samples per update"),
        ({"autoreset": "never"}, "autoreset must be one of auto, same_step, next_step"),
        ({"lr_schedule": "step"}, "lr_schedule must be one of cosine, linear, constant"),
        ({"value_clip": -1.0}, "value_clip must be >= 0"),
        (
            {"policy": "gru", "memory_across_episodes": True, "autoreset": "same_step"},
            "memory_across_episodes needs autoreset next_step",
        ),
        ({"policy": "transformer"}, "policy must be one of mlp, gru, lstm"),
        ({"memory_across_episodes": True}, "needs a recurrent policy"),
        ({"num_envs": 6, "rollout": 1, "minibatches": 4}, "must be a multiple of minibatches"),
        ({"gamma": 1.5}, r"gamma must be in \[0, 1\]"),
        ({"device": "tpu"}, "device must be auto, cpu or cuda"),
        ({"bogus": 1}, "unknown PPO settings"),
    ],
)
def test_bad_settings_are_refused_with_one_line(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PPOConfig.from_dict(settings)


def test_cli_train_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["train", "--env", ENV_IDS[0], "--num-envs", "0", "--out", str(tmp_path)]
    assert "--num-envs: 0 is out of range" in cli_error(argv, capsys)
    assert "unknown env" in cli_error(["train", "--env", "hiddengrid/Nope-v0"], capsys)
    argv = [
        "train",
        "--env",
        ENV_IDS[0],
        "--num-envs",
        "6",
        "--rollout",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert "multiple of minibatches" in cli_error(argv, capsys)
    assert not any(tmp_path.iterdir())


def test_advantages_match_a_hand_computation(tmp_path: Path) -> None:
    config = PPOConfig(total_steps=1, num_envs=1, rollout=4, minibatches=1, gamma=0.5)
    trainer = PPOTrainer(PPOConfig.from_dict({**config.as_dict(), "gae_lambda": 0.5}), tmp_path)
    trainer.rewards[:, 0] = torch.tensor([0.0, 1.0, 0.0, 2.0])
    trainer.values[:, 0] = torch.tensor([0.4, 0.2, 0.8, 0.6])
    trainer.dones[:, 0] = torch.tensor([False, True, False, False])
    trainer.next_value = torch.tensor([1.0])
    adv, ret = trainer._advantages(trainer.values)
    g = lam = 0.5
    d3 = 2.0 + g * 1.0 - 0.6
    d2 = 0.0 + g * 0.6 - 0.8
    d1 = 1.0 - 0.2  # the episode ended: no bootstrap
    d0 = 0.0 + g * 0.2 - 0.4
    a3 = d3
    a2 = d2 + g * lam * a3
    a1 = d1
    a0 = d0 + g * lam * a1
    np.testing.assert_allclose(adv[:, 0].numpy(), [a0, a1, a2, a3], rtol=1e-6)
    values = np.array([0.4, 0.2, 0.8, 0.6])
    np.testing.assert_allclose(ret[:, 0].numpy(), adv[:, 0].numpy() + values, rtol=1e-6)


def test_masked_actions_are_never_sampled_and_carry_no_probability() -> None:
    logits = torch.zeros(500, 5)
    mask = torch.zeros(500, 5, dtype=torch.bool)
    mask[:, 1] = True
    mask[::2, 3] = True
    g = torch.Generator().manual_seed(0)
    actions, logp = sample(masked_logits(logits, mask), [5], g)
    assert mask.gather(1, actions).all()
    assert set(actions[::2, 0].tolist()) == {1, 3}
    lp, ent = log_prob_entropy(masked_logits(logits, mask), [5], actions)
    torch.testing.assert_close(lp, logp)
    torch.testing.assert_close(ent[1::2], torch.zeros(250))  # one legal action: no entropy
    torch.testing.assert_close(ent[::2], torch.full((250,), float(np.log(2))))


def test_multidiscrete_sums_the_components() -> None:
    logits = torch.log(torch.tensor([[0.5, 0.5, 0.25, 0.75]]))
    lp, ent = log_prob_entropy(logits, [2, 2], torch.tensor([[1, 1]]))
    torch.testing.assert_close(lp, torch.log(torch.tensor([0.5 * 0.75])))
    want = -(2 * 0.5 * np.log(0.5)) - (0.25 * np.log(0.25) + 0.75 * np.log(0.75))
    torch.testing.assert_close(ent, torch.tensor([want], dtype=torch.float32))


@pytest.mark.parametrize("core", ["gru", "lstm"])
def test_memory_is_cleared_exactly_at_episode_starts(core: str) -> None:
    torch.manual_seed(0)
    model = ActorCritic(3, [2], 8, core)
    x = torch.randn(5, 2, 3)
    first = torch.zeros(5, 2, dtype=torch.bool)
    first[3, 0] = True
    state = tuple(torch.randn_like(s) for s in model.initial_state(2))
    logits, _, _ = model(x, state, first)
    fresh, _, _ = model(x[3:, :1], model.initial_state(1), None)
    torch.testing.assert_close(logits[3:, :1], fresh)
    # without a start the memory carries on: sub-env 1 differs from a fresh start
    other, _, _ = model(x[3:, 1:], model.initial_state(1), None)
    assert not torch.allclose(logits[3:, 1:], other)
    # no clearing (memory across episodes) is the same as never flagging a start
    never, _, _ = model(x, state, None)
    torch.testing.assert_close(never, model(x, state, torch.zeros_like(first))[0])


def test_policy_input_feeds_back_the_previous_step() -> None:
    inputs = PolicyInput(obs_size=2, nvec=[3, 2], extras=True, n=2)
    flat = np.array([[0.5, 1.0], [0.0, 0.25]], dtype=np.float32)
    rows = inputs.build(
        flat,
        prev_action=np.array([[2, 1], [0, 0]]),
        prev_reward=np.array([1.5, -1.0], dtype=np.float32),
        prev_done=np.array([True, False]),
        fresh=np.array([False, True]),
    )
    np.testing.assert_array_equal(rows[0], [0.5, 1.0, 0, 0, 1, 0, 1, 1.5, 1.0])
    np.testing.assert_array_equal(rows[1], [0.0, 0.25, 0, 0, 0, 0, 0, 0, 0])  # after a reset
    assert PolicyInput(2, [3], extras=False, n=1).size == 2


def test_fixed_seed_gives_the_same_run(tmp_path: Path) -> None:
    def run(name: str, seed: int) -> tuple[list, dict]:
        result = tiny(ENV_IDS[0], tmp_path / name, seed=seed, total_steps=256)
        with open(result.csv) as fh:
            rows = [{k: v for k, v in r.items() if "second" not in k} for r in csv.DictReader(fh)]
        return rows, torch.load(result.checkpoint, weights_only=True)["model"]

    rows_a, weights_a = run("a", 3)
    rows_b, weights_b = run("b", 3)
    _, weights_c = run("c", 4)
    assert rows_a == rows_b
    assert all(torch.equal(weights_a[k], weights_b[k]) for k in weights_a)
    assert not all(torch.equal(weights_a[k], weights_c[k]) for k in weights_a)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize(("policy", "memory"), [("mlp", False), ("gru", False), ("lstm", True)])
def test_every_env_trains_and_its_checkpoint_plays(
    env_id: str, policy: str, memory: bool, tmp_path: Path
) -> None:
    result = tiny(env_id, tmp_path, policy=policy, memory_across_episodes=memory)
    assert result.steps == 128 and result.checkpoint.is_file()
    with open(result.csv) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["step"]) for r in rows] == [64, 128]
    model, config, _ = load_checkpoint(result.checkpoint)
    assert (config.env_id, config.policy, model.recurrent) == (env_id, policy, policy != "mlp")
    # the env rejects illegal actions (Megacity's masked ones included), so playing is the check
    play_checkpoint(env_id, result.checkpoint, 12, seed=5)


def test_eval_cli_scores_a_checkpoint_and_refuses_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    result = tiny(ENV_IDS[0], tmp_path / "run")
    argv = ["eval", "--env", ENV_IDS[0], "--agent", "ppo", "--episodes", "20"]
    assert main([*argv, "--checkpoint", str(result.checkpoint)]) == 0
    assert "ppo" in capsys.readouterr().out
    assert "needs --checkpoint" in cli_error(argv, capsys)
    missing = [*argv, "--checkpoint", str(tmp_path / "missing.pt")]
    assert "does not exist" in cli_error(missing, capsys)
    junk = tmp_path / "junk.pt"
    junk.write_text("not a checkpoint")
    junk_argv = [*argv, "--checkpoint", str(junk)]
    assert "is not a hiddengrid PPO checkpoint" in cli_error(junk_argv, capsys)
    other = [a if a != ENV_IDS[0] else "hiddengrid/FieldCipher-v0" for a in argv]
    assert "was trained on" in cli_error([*other, "--checkpoint", str(result.checkpoint)], capsys)


def test_plot_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result = tiny(ENV_IDS[0], tmp_path)
    assert result.plot is not None and result.plot.read_bytes()[:4] == b"\x89PNG"


def test_ppo_learns_anomaly_mapping_beyond_random(tmp_path: Path) -> None:
    """A short run must beat the random agent's success rate (2.2 %) clearly."""
    result = train(
        "hiddengrid/AnomalyMapping-v0", out_dir=tmp_path, progress=False, total_steps=200_000
    )
    agent = lambda env, seed: PPOAgent(env, seed, checkpoint=str(result.checkpoint))  # noqa: E731
    trained = run_episodes("hiddengrid/AnomalyMapping-v0", "ppo", 2000, agent_factory=agent)
    random = run_episodes("hiddengrid/AnomalyMapping-v0", "random", 2000)
    assert trained.interval[0] > random.interval[1], (trained.success_rate, random.success_rate)


def test_greedy_play_takes_each_heads_most_likely_action(tmp_path: Path) -> None:
    env_id = "hiddengrid/SquadRecon-v0"  # three action heads
    result = tiny(env_id, tmp_path / "run")
    model, _, _ = load_checkpoint(result.checkpoint)
    env = gym.make_vec(env_id, num_envs=6, vectorization_mode="vector_entry_point")
    obs, _ = env.reset(seed=3)
    starts = np.ones(6, dtype=bool)
    greedy = PPOAgent(env, seed=0, checkpoint=str(result.checkpoint), greedy=True)
    actions = greedy.act(obs, starts)
    logits, _, _ = model(torch.as_tensor(greedy.encoder.encode(obs, 6)), ())
    want = np.stack([part.argmax(-1).numpy() for part in logits.split(model.nvec, -1)], -1)
    np.testing.assert_array_equal(actions, want)
    # no draw: any seed plays the same actions, where sampling seeds differ
    assert np.array_equal(
        PPOAgent(env, seed=9, checkpoint=str(result.checkpoint), greedy=True).act(obs, starts),
        actions,
    )
    env.close()


def test_eval_cli_greedy_rows_are_named_and_refused_without_ppo(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    env_id = "hiddengrid/Megacity-v0"  # masked: a greedy action must still be a legal one
    result = tiny(env_id, tmp_path / "run")
    argv = ["eval", "--env", env_id, "--agent", "ppo", "--episodes", "6"]
    argv += ["--checkpoint", str(result.checkpoint), "--greedy"]
    out = tmp_path / "greedy.json"
    assert main([*argv, "--json", str(out)]) == 0
    assert "ppo-greedy" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    assert [r["agent"] for r in rows] == ["ppo-greedy"] and rows[0]["episodes"] == 6
    bad = ["eval", "--env", env_id, "--agent", "random", "--episodes", "6", "--greedy"]
    assert "--greedy is for --agent ppo" in cli_error(bad, capsys)
