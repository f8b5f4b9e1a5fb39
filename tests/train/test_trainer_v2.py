"""Trainer v2 pieces (same-step autoreset, refreshed advantages, value clipping, learning-rate
schedules, prioritized rollouts), run folders, checkpoint checks and the curve picture."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hiddengrid.registry import definition_of  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train import trainer as trainer_module  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.plot import _same_series, smooth  # noqa: E402
from hiddengrid.train.trainer import _Recorder, lr_factor  # noqa: E402

ENV = "hiddengrid/AnomalyMapping-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}
ROOT = Path(__file__).resolve().parents[2]


def tiny(tmp: Path | None, **extra: object) -> object:
    settings = {**TINY, "reference_episodes": 0, **extra}
    return train(ENV, out_dir=tmp, progress=False, **settings)


def trainer(tmp: Path, **extra: object) -> PPOTrainer:
    config = PPOConfig.from_dict({"env_id": ENV, **TINY, **extra})
    t = PPOTrainer(config, tmp)
    t.carry = t._start()
    return t


# --- collect: same-step autoreset ------------------------------------------------------------


def test_same_step_autoreset_spends_no_step_on_resets(tmp_path: Path) -> None:
    t = trainer(tmp_path, rollout=32)
    assert t.config.same_step
    episodes = t._collect()
    assert t.valid.all()  # every collected step is a real transition
    assert len(episodes.returns) > 0
    # the step after an episode's last is the next episode's first
    assert torch.equal(t.first[1:], t.dones[:-1])
    # the ended episodes' lengths and the running ones' add up to every step: none was spent
    # on a reset
    assert sum(episodes.lengths) + int(t.carry.ep_length.sum()) == 32 * 8


def test_next_step_autoreset_marks_its_reset_steps_invalid(tmp_path: Path) -> None:
    t = trainer(tmp_path, rollout=32, autoreset="next_step")
    episodes = t._collect()
    assert not t.valid.all()
    # the step after an episode's last only resets: no loss
    assert torch.equal(~t.valid[1:], t.dones[:-1] & t.valid[:-1])
    resets = int((~t.valid).sum())
    assert sum(episodes.lengths) + int(t.carry.ep_length.sum()) + resets == 32 * 8


def test_memory_across_episodes_keeps_the_reset_step() -> None:
    config = PPOConfig(policy="gru", memory_across_episodes=True)
    assert not config.same_step
    assert PPOConfig().same_step


# --- learn ------------------------------------------------------------------------------------


def test_refresh_recomputes_advantages_for_every_minibatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for refresh, want in ((True, 4 * 2), (False, 1)):
        t = trainer(tmp_path / str(refresh), refresh_advantages=refresh)
        t._collect()
        calls = []
        original = t._advantages

        def counted(values: torch.Tensor, original=original, calls=calls) -> object:  # type: ignore[no-untyped-def]
            calls.append(1)
            return original(values)

        monkeypatch.setattr(t, "_advantages", counted)
        t._learn()
        assert len(calls) == want, refresh


def test_refreshed_advantages_use_the_values_just_predicted(tmp_path: Path) -> None:
    t = trainer(tmp_path, epochs=1, minibatches=1)
    t._collect()
    before = t.values.clone()
    seen = []
    original = t._advantages
    t._advantages = lambda v: seen.append(v.clone()) or original(v)  # type: ignore[method-assign]
    # the first minibatch predicts with the collecting network (the same values); the
    # second predicts after one step, and the third's advantages start from those
    t.config.minibatches = 4
    t._learn()
    assert torch.equal(seen[0], before)
    assert not torch.equal(seen[2], before)


def test_value_clipping_takes_the_larger_error(tmp_path: Path) -> None:
    t = trainer(tmp_path, value_clip=0.1, entropy_coef=0.0)
    t.valid[:] = True
    t.logps[:] = 0.0
    logits = torch.zeros(1, sum(t.nvec))
    t.actions[:] = 0
    index = (torch.tensor([0]), torch.tensor([0]))
    old = torch.zeros_like(t.values)
    adv = torch.zeros_like(t.values)
    ret = torch.full_like(t.values, 1.0)
    # the new value 0.5 moved 0.5 from the old 0.0: clipped to 0.1, error 0.81 > 0.25
    _, stats = t._loss(logits, torch.tensor([0.5]), index, adv, ret, old)
    assert math.isclose(stats["value_loss"], 0.5 * 0.81, rel_tol=1e-6)
    t.config.value_clip = 0.0
    _, stats = t._loss(logits, torch.tensor([0.5]), index, adv, ret, old)
    assert math.isclose(stats["value_loss"], 0.5 * 0.25, rel_tol=1e-6)


@pytest.mark.parametrize(
    ("schedule", "want"),
    [("cosine", [1.0, 0.5 * (1 + math.cos(math.pi / 4)), 0.5]), ("linear", [1.0, 0.75, 0.5])],
)
def test_learning_rate_follows_its_schedule(tmp_path: Path, schedule: str, want: list) -> None:
    assert [lr_factor(schedule, k, 4) for k in range(3)] == pytest.approx(want)
    t = trainer(tmp_path, lr_schedule=schedule, total_steps=4 * 64, learning_rate=0.01)
    seen = []
    for _ in range(3):
        seen.append(t.optimizer.param_groups[0]["lr"])
        t.optimizer.step()  # no gradients: changes nothing, but comes first as in a run
        t.scheduler.step()
    assert seen == pytest.approx([0.01 * w for w in want])


def test_prioritized_minibatches_draw_rollouts_by_advantage(tmp_path: Path) -> None:
    t = trainer(tmp_path, priority=1.0, num_envs=8, minibatches=2)
    t.valid[:] = True
    adv = torch.zeros_like(t.values)
    adv[:, 3] = 5.0
    adv[:, 5] = 5.0
    counts = np.zeros(8)
    for _ in range(200):
        (_, group), weight = t._prioritized(adv, beta=1.0)
        counts[group.numpy()] += 1
        assert weight.shape == (8, 4)
    assert counts[3] == counts[5] == 200  # they hold nearly all the probability
    # importance weights: a likely rollout counts less than an unlikely one
    (_, group), weight = t._prioritized(adv, beta=1.0)
    w = dict(zip(group.tolist(), weight[0].tolist(), strict=True))
    assert w[3] < 1.0


def test_old_checkpoint_settings_load_as_the_first_trainer() -> None:
    old = {k: v for k, v in PPOConfig().as_dict().items()}
    for key in ("lr_schedule", "autoreset", "refresh_advantages", "value_clip", "adam_eps"):
        old.pop(key)
    old.pop("priority")
    old.pop("priority_beta")
    config = PPOConfig.from_dict({**old, "anneal_lr": True})
    assert (config.lr_schedule, config.autoreset, config.refresh_advantages) == (
        "linear",
        "next_step",
        False,
    )
    assert (config.value_clip, config.adam_eps) == (0.0, 1e-5)
    assert PPOConfig.from_dict({**old, "anneal_lr": False}).lr_schedule == "constant"


# --- record -----------------------------------------------------------------------------------


def test_steps_per_second_leaves_out_the_first_update(tmp_path: Path) -> None:
    recorder = _Recorder(tmp_path, PPOConfig(), progress=False, tensorboard=False)
    recorder.start = time.perf_counter() - 30.0
    recorder.end = recorder.start + 30.0
    assert recorder.steps_per_second(100) == pytest.approx(100 / 30.0)  # one update: all of it
    recorder.first_update = (100, 20.0)  # the first update took 20 s (compiling)
    assert recorder.steps_per_second(300) == pytest.approx(200 / 10.0)


def test_csv_speed_column_leaves_out_the_first_update(tmp_path: Path) -> None:
    import csv

    result = tiny(tmp_path, total_steps=256)
    with open(result.csv) as fh:
        rows = list(csv.DictReader(fh))
    first_s, first_step = float(rows[0]["seconds"]), int(rows[0]["step"])
    last = rows[-1]
    want = (int(last["step"]) - first_step) / (float(last["seconds"]) - first_s)
    assert float(last["steps_per_second"]) == pytest.approx(want, rel=0.05)


# --- run folders ------------------------------------------------------------------------------


def test_a_second_run_never_overwrites_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = tiny(None, seed=7)
    saved = first.checkpoint.read_bytes(), first.csv.read_bytes()
    second = tiny(None, seed=7)
    assert first.out_dir == Path("runs/AnomalyMapping-v0-mlp-s7")
    assert second.out_dir == Path("runs/AnomalyMapping-v0-mlp-s7-2")
    assert (first.checkpoint.read_bytes(), first.csv.read_bytes()) == saved
    with pytest.raises(ValueError, match="already holds a run"):
        tiny(first.out_dir)
    assert (first.checkpoint.read_bytes(), first.csv.read_bytes()) == saved


# --- the command line, through a subprocess ---------------------------------------------------


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "hiddengrid", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def one_line_error(args: list[str], cwd: Path) -> str:
    before = sorted(p.relative_to(cwd) for p in cwd.rglob("*"))
    done = run_cli(args, cwd)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.relative_to(cwd) for p in cwd.rglob("*")) == before  # nothing written
    return lines[0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--hidden", "99999999999"], "hidden must be an integer in 1..4,096"),
        (["--threads", "99999999999999999999"], "threads must be an integer in 1..1,024"),
        (["--seed", str(2**70)], "seed must be an integer in 0..18446744073709551615"),
        (["--num-envs", "65536", "--rollout", "4096"], "at most 4,194,304 samples"),
        (["--out", "afile"], "is a file; give a folder"),
        (["--out", "afile/sub"], "is a file, not a folder"),
        (["--out", "old"], "already holds a run"),
        (["--vtrace-clip", "-1"], "--vtrace-clip"),
        (["--vtrace-clip", "nan"], "--vtrace-clip"),
    ],
)
def test_cli_train_refuses_before_any_work(tmp_path: Path, extra: list, message: str) -> None:
    (tmp_path / "afile").write_text("x")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "progress.csv").write_text("step\n")
    line = one_line_error(["train", "--env", ENV, *extra], tmp_path)
    assert message in line, line
    assert (tmp_path / "old" / "progress.csv").read_text() == "step\n"


def test_cli_train_announces_rounding_and_compiling(tmp_path: Path) -> None:
    args = ["train", "--env", ENV, "--steps", "100", "--num-envs", "8", "--rollout", "8"]
    done = run_cli([*args, "--hidden", "8", "--out", "run"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--steps 100 runs 128 steps: 2 whole updates of 64 (8 sub-envs x 8 steps)" in (
        done.stderr
    )
    assert "the first update compiles the env's kernels" in done.stderr
    assert "128 steps" in done.stdout


def _checkpoint(tmp: Path) -> dict:
    result = tiny(tmp / "run")
    return torch.load(result.checkpoint, weights_only=True)


def _damage(data: dict, how: str) -> dict:
    data = {**data, "model": dict(data["model"]), "config": dict(data["config"])}
    if how == "no nvec":
        del data["nvec"]
    elif how == "no weight":
        del data["model"]["actor.weight"]
    elif how == "wrong shape":
        data["model"]["encoder.0.weight"] = data["model"]["encoder.0.weight"][:, :-1]
    elif how == "hidden changed":
        data["config"]["hidden"] = 32
    elif how == "nvec changed":
        data["nvec"] = [5]
    elif how == "obs size changed":
        data["obs_size"] = 40
    elif how == "config not a table":
        data["config"] = [1, 2]
    elif how == "bad setting":
        data["config"]["policy"] = "transformer"
    return data


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("no nvec", "is damaged: it lacks nvec"),
        ("no weight", "its weights lacks actor.weight"),
        ("wrong shape", "weight encoder.0.weight is (16, 40)"),
        ("hidden changed", "does not fit its settings"),
        ("nvec changed", "does not fit its settings: weight actor.weight"),
        ("obs size changed", "does not fit its settings: weight encoder.0.weight"),
        ("config not a table", "its config is not a table"),
        ("bad setting", "has bad settings: policy must be one of"),
    ],
)
def test_damaged_checkpoints_are_refused_in_one_line(
    how: str, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.pt"
    torch.save(_damage(_checkpoint(tmp_path), how), path)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_checkpoint(path)
    line = one_line_error(
        ["eval", "--env", ENV, "--agent", "ppo", "--episodes", "5", "--checkpoint", str(path)],
        tmp_path,
    )
    assert message in line, line


def test_checkpoint_of_another_observation_size_is_refused_before_any_episode(
    tmp_path: Path,
) -> None:
    data = _checkpoint(tmp_path)
    data["obs_size"] = 40
    data["model"]["encoder.0.weight"] = data["model"]["encoder.0.weight"][:, :40]
    path = tmp_path / "other.pt"
    torch.save(data, path)
    load_checkpoint(path)  # consistent in itself
    line = one_line_error(
        ["eval", "--env", ENV, "--agent", "ppo", "--episodes", "5", "--checkpoint", str(path)],
        tmp_path,
    )
    assert "expects 40 observation features, this env gives 41" in line


# --- the curve --------------------------------------------------------------------------------


def test_smoothing_keeps_every_point() -> None:
    step = np.array([1.0, 2.0, 3.0, 4.0])
    success = np.array([0.0, 1.0, 0.5, np.nan])
    episodes = np.array([2.0, 2.0, 4.0, 0.0])
    x, y = smooth(step, success, episodes, window=2)
    np.testing.assert_array_equal(x, step)
    np.testing.assert_allclose(y, [0.0, 0.5, 4 / 6, 0.5])


def test_success_only_return_is_not_drawn_twice(tmp_path: Path) -> None:
    result = tiny(tmp_path / "a")
    assert _same_series({"a": [result.csv]}, "success_rate", "mean_return")
    assert not _same_series({"a": [result.csv]}, "success_rate", "mean_length")


def test_curve_has_reference_lines_and_a_named_legend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    seen = {}
    import hiddengrid.train.plot as plot

    original = plot.plot_curves

    def spy(groups, out, **kwargs):  # type: ignore[no-untyped-def]
        seen.update(groups=groups, **kwargs)
        return original(groups, out, **kwargs)

    monkeypatch.setattr(plot, "plot_curves", spy)
    result = tiny(tmp_path / "run", reference_episodes=20, seed=3)
    assert set(seen["references"]) == set(definition_of(ENV).agents)
    assert all(0 <= v <= 1 for v in seen["references"].values())
    assert list(seen["groups"]) == ["PPO mlp, seed 3"]
    assert result.plot is not None and result.plot.read_bytes()[:4] == b"\x89PNG"
    assert trainer_module.REFERENCE_SEED >= 1_000_000


def test_step_ticks_read_in_millions() -> None:
    from hiddengrid.train.plot import millions

    assert [millions(v) for v in (0, 250_000, 1_000_000, 1.5e6, 5e7)] == [
        "0",
        "0.25M",
        "1M",
        "1.5M",
        "50M",
    ]


def test_close_reference_lines_share_one_label_clear_of_their_lines() -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hiddengrid.train.plot import _reference_lines

    fig, ax = plt.subplots()
    ax.set_ylim(-0.02, 1.02)
    _reference_lines(ax, {"random": 0.0749, "heuristic": 0.0912, "oracle": 0.9543})
    labels = {t.get_text(): t for t in ax.texts}
    plt.close(fig)
    assert set(labels) == {"random, heuristic", "oracle"}
    low = labels["random, heuristic"]  # over the upper line of its pair, not between them
    assert (low.xy[1], low.get_va()) == (0.0912, "bottom")
    high = labels["oracle"]  # under its line in the upper half
    assert (high.xy[1], high.get_va()) == (0.9543, "top")
    assert len(ax.lines) == 3


def test_redraw_finds_the_agents_lines_of_every_published_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hiddengrid.train import baselines

    drawn = {}

    def spy(row, docs, images, success, returns):  # type: ignore[no-untyped-def]
        drawn[row.name] = (success, returns)

    monkeypatch.setattr(baselines, "_plot_v2", spy)
    assert baselines.redraw_v2(baselines.V2_ROWS, baselines.V2_DIR, tmp_path) == len(
        baselines.V2_ROWS
    )
    for name, (success, returns) in drawn.items():
        assert set(success) == set(returns) == set(baselines.REFERENCE_AGENTS), name


# --- shaping ----------------------------------------------------------------------------------


def test_field_cipher_shaping_pays_right_characters_and_keeps_the_return(tmp_path: Path) -> None:
    config = PPOConfig(
        env_id="hiddengrid/FieldCipher-v0",
        num_envs=16,
        rollout=64,
        minibatches=4,
        total_steps=1024,
        shaping="field_cipher_slots",
    )
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    episodes = t._collect()
    assert episodes.returns  # some episodes ended inside the rollout
    # what was paid: the ended episodes' returns, plus what the running ones hold right now
    running = t.shaping.potential(t.base.batch)
    paid = float(t.rewards.sum())
    assert paid == pytest.approx(sum(episodes.returns) + float(running.sum()), abs=1e-5)
    # ...and rewards arrived before the episodes' ends (a right character when written)
    assert bool((t.rewards[~t.dones] != 0).any())


def test_shaping_is_refused_for_another_env_or_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="is for hiddengrid/FieldCipher-v0, not"):
        PPOConfig(shaping="field_cipher_slots")
    with pytest.raises(ValueError, match="shaping must be one of field_cipher_slots"):
        PPOConfig(shaping="more_reward")


def test_vtrace_weights_errors_and_traces_by_the_clipped_ratios(tmp_path: Path) -> None:
    config = PPOConfig(
        env_id=ENV, total_steps=1, num_envs=1, rollout=3, minibatches=1, vtrace_clip=1.0
    )
    t = PPOTrainer(
        PPOConfig.from_dict({**config.as_dict(), "gamma": 0.5, "gae_lambda": 0.5}), tmp_path
    )
    t.rewards[:, 0] = torch.tensor([1.0, 0.0, 2.0])
    t.values[:, 0] = torch.tensor([0.4, 0.2, 0.8])
    t.dones[:, 0] = torch.tensor([False, False, False])
    t.next_value = torch.tensor([1.0])
    plain, _ = t._advantages(t.values)
    t.ratios = torch.ones(3, 1)
    assert torch.allclose(t._advantages(t.values)[0], plain)  # ratios of 1: plain GAE
    t.ratios = torch.tensor([[0.5], [2.0], [0.25]])  # 2.0 is clipped to 1
    adv, ret = t._advantages(t.values)
    g = 0.5
    d = [1.0 + g * 0.2 - 0.4, 0.0 + g * 0.8 - 0.2, 2.0 + g * 1.0 - 0.8]
    a2 = 0.25 * d[2]
    a1 = 1.0 * d[1] + g * g * 1.0 * a2
    a0 = 0.5 * d[0] + g * g * 0.5 * a1
    np.testing.assert_allclose(adv[:, 0].numpy(), [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(ret[:, 0].numpy(), [a0 + 0.4, a1 + 0.2, a2 + 0.8], rtol=1e-6)


def test_an_update_with_vtrace_tracks_each_steps_latest_ratio(tmp_path: Path) -> None:
    t = trainer(tmp_path, vtrace_clip=1.0, epochs=2, minibatches=2, priority=0.0)
    t._collect()
    seen = []
    original = t._advantages

    def spy(values: torch.Tensor) -> object:
        seen.append(None if t.ratios is None else t.ratios.clone())
        return original(values)

    t._advantages = spy  # type: ignore[method-assign]
    t._learn()
    assert len(seen) == 4
    # a minibatch's ratios are computed before its optimizer step: the first ran on the
    # collecting network (ratio 1); the second, one step later, left its own steps' ratios
    assert torch.equal(seen[0], torch.ones_like(seen[0]))
    assert torch.equal(seen[1], torch.ones_like(seen[1]))
    trained = seen[2] != 1
    assert trained.any() and not trained.all()
    assert t.ratios is None  # only during an update
    with pytest.raises(ValueError, match="vtrace_clip must be >= 0"):
        PPOConfig(vtrace_clip=-1.0)


def test_cli_train_passes_vtrace_clip_to_the_run(tmp_path: Path) -> None:
    args = ["train", "--env", ENV, "--steps", "64", "--num-envs", "8", "--rollout", "8"]
    done = run_cli([*args, "--hidden", "8", "--vtrace-clip", "1.5", "--out", "run"], tmp_path)
    assert done.returncode == 0, done.stderr
    _, config, _ = load_checkpoint(tmp_path / "run" / "checkpoint.pt")
    assert config.vtrace_clip == 1.5


def test_vtrace_is_on_by_default_and_a_checkpoint_from_before_loads_with_it_off(
    tmp_path: Path,
) -> None:
    assert PPOConfig().vtrace_clip == 1.0
    result = train(ENV, out_dir=tmp_path / "run", progress=False, reference_episodes=0, **TINY)
    assert load_checkpoint(result.checkpoint)[1].vtrace_clip == 1.0
    data = torch.load(result.checkpoint, weights_only=True)
    del data["config"]["vtrace_clip"]
    torch.save(data, tmp_path / "old.pt")
    assert load_checkpoint(tmp_path / "old.pt")[1].vtrace_clip == 0.0
    # a run with it off is a different run (the default is not a no-op)
    off = train(
        ENV, out_dir=tmp_path / "off", progress=False, reference_episodes=0, vtrace_clip=0.0, **TINY
    )
    on_weights = torch.load(result.checkpoint, weights_only=True)["model"]
    off_weights = torch.load(off.checkpoint, weights_only=True)["model"]
    assert any(not torch.equal(on_weights[k], off_weights[k]) for k in on_weights)


def test_published_rows_and_the_ablations_earlier_variants_keep_vtrace_off() -> None:
    from hiddengrid.train.ablation import VARIANTS
    from hiddengrid.train.baselines import V2_ROWS

    assert all(row.config()["vtrace_clip"] == 0.0 for row in V2_ROWS)
    today = {k for k, v in VARIANTS.items() if v["vtrace_clip"] > 0}
    assert today == {
        "defaults_vtrace",
        "defaults_vtrace_cosine",
        "defaults_vtrace_bf16",
        "defaults_vtrace_epochs2",
        "defaults_vtrace_epochs1",
    }
    # defaults_vtrace is today's defaults, defaults the ones the ablation chose before V-trace
    defaults, chosen = PPOConfig(), dict(VARIANTS["defaults_vtrace"])
    assert chosen.pop("autoreset") == "same_step" and defaults.same_step  # "auto" is that here
    assert all(getattr(defaults, k) == v for k, v in chosen.items())
    assert {**VARIANTS["defaults"], "vtrace_clip": 1.0} == VARIANTS["defaults_vtrace"]
