"""Env arguments of a training run (kept in the checkpoint, checked at evaluation), auxiliary
tasks from training-only labels, per-episode statistics columns and named recipes."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import cli_error, play_checkpoint  # noqa: E402

from hiddengrid.cli import main  # noqa: E402
from hiddengrid.core.flat import flat_layout  # noqa: E402
from hiddengrid.envs.field_cipher.generator import decode_message  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.agent import PPOAgent  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.recipes import RECIPES, recipe_settings  # noqa: E402

TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}
MEGACITY = "hiddengrid/Megacity-v0"
CIPHER = "hiddengrid/FieldCipher-v0"


TINY_ARGS = ["--num-envs", "8", "--rollout", "8", "--hidden", "16", "--steps", "64", "--quiet"]


# --- env arguments ----------------------------------------------------------------------------


def test_env_kwargs_are_checked_and_kept_with_their_defaults() -> None:
    assert PPOConfig.from_dict({"env_id": MEGACITY}).env_kwargs == {"level": 3}
    assert PPOConfig.from_dict({"env_id": MEGACITY, "env_kwargs": {"level": 0}}).env_kwargs == {
        "level": 0
    }
    with pytest.raises(ValueError, match=r"env_kwargs for hiddengrid/Megacity-v0: level must"):
        PPOConfig.from_dict({"env_id": MEGACITY, "env_kwargs": {"level": 9}})
    with pytest.raises(ValueError, match=r"env_kwargs for hiddengrid/Megacity-v0: .*'colour'"):
        PPOConfig.from_dict({"env_id": MEGACITY, "env_kwargs": {"colour": 1}})
    with pytest.raises(ValueError, match="env_kwargs must be a table"):
        PPOConfig.from_dict({"env_id": MEGACITY, "env_kwargs": [1]})


def test_train_plays_the_env_arguments_and_eval_follows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "run"
    argv = ["train", "--env", MEGACITY, "--env-arg", "level=0", "--out", str(out), *TINY_ARGS]
    assert main(argv) == 0
    capsys.readouterr()
    ckpt = out / "checkpoint.pt"
    _, config, _ = load_checkpoint(ckpt)
    assert config.env_kwargs == {"level": 0}
    eval_argv = ["eval", "--env", MEGACITY, "--agent", "ppo", "--episodes", "4"]
    eval_argv += ["--checkpoint", str(ckpt)]
    # the default level (3) is not the trained one: refused, naming the flag that fits
    line = cli_error(eval_argv, capsys)
    assert "level=0" in line and "level=3" in line and "--env-arg level=0" in line
    assert "level=0" in cli_error([*eval_argv, "--env-arg", "level=2"], capsys)
    assert main([*eval_argv, "--env-arg", "level=0"]) == 0
    assert "ppo" in capsys.readouterr().out
    # the Python agent refuses an env of another level too
    import gymnasium as gym

    env = gym.make_vec(MEGACITY, num_envs=2, vectorization_mode="vector_entry_point", level=1)
    with pytest.raises(ValueError, match="trained on hiddengrid/Megacity-v0 with level=0"):
        PPOAgent(env, 0, checkpoint=str(ckpt))
    env.close()
    level0 = gym.make_vec(MEGACITY, num_envs=2, vectorization_mode="vector_entry_point", level=0)
    PPOAgent(level0, 0, checkpoint=str(ckpt))  # the trained level is accepted
    level0.close()


def test_default_checkpoint_accepts_the_default_level_spelled_out(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    result = train(MEGACITY, out_dir=tmp_path, progress=False, reference_episodes=0, **TINY)
    argv = ["eval", "--env", MEGACITY, "--agent", "ppo", "--episodes", "2"]
    argv += ["--checkpoint", str(result.checkpoint), "--env-arg", "level=3"]
    assert main(argv) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env-arg", "level=9"], "level must be one of 0, 1, 2, 3"),
        (["--env-arg", "size=3"], "size"),
        (["--env-arg", "num_threads=2"], "num_threads is not an env argument"),
        (["--recipe", "nope"], "unknown recipe 'nope'; recipes: field_cipher_decoder"),
        (["--recipe", "field_cipher_decoder"], "is for hiddengrid/FieldCipher-v0, not"),
    ],
)
def test_train_refuses_bad_env_arguments_and_recipes(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    out = tmp_path / "run"
    argv = ["train", "--env", MEGACITY, "--out", str(out), *TINY_ARGS, *extra]
    assert message in cli_error(argv, capsys)
    assert not out.exists()  # nothing written


# --- auxiliary task and episode statistics ----------------------------------------------------


def test_aux_labels_are_the_message_of_the_observed_grid(tmp_path: Path) -> None:
    """Each step's labels are the message its observation's grid encodes, also on the steps
    right after a same-step reset (a label one episode off would fail here)."""
    config = PPOConfig.from_dict(
        {"env_id": CIPHER, **TINY, "rollout": 48, "auxiliary": "field_cipher_message"}
    )
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    episodes = t._collect()
    assert len(episodes.returns) > 0 and t.first[1:].any()  # resets inside the rollout
    grid = next(s for s in flat_layout(t.base.single_observation_space) if s.key == "grid")
    onehot = t.obs[..., grid.start : grid.stop].reshape(48, 8, 81, grid.width)
    grids = onehot.argmax(-1).reshape(48 * 8, 9, 9).numpy().astype(np.int8)
    labels = t.aux_labels.reshape(48 * 8, 6).numpy()
    cursor = next(s for s in flat_layout(t.base.single_observation_space) if s.key == "cursor")
    cursors = t.obs[..., cursor.start : cursor.stop].reshape(48 * 8, -1).argmax(-1).numpy()
    slots = next(s for s in flat_layout(t.base.single_observation_space) if s.key == "slots")
    typed = t.obs[..., slots.start : slots.stop].reshape(48 * 8, 4, -1).argmax(-1).numpy()
    held = 0
    for row in range(48 * 8):
        bits = decode_message(grids, row)
        digits = [(bits >> (12 - 4 * k)) & 15 for k in range(4)]
        assert list(labels[row, :4]) == digits, row
        under = digits[cursors[row]]
        assert labels[row, 4] == under and labels[row, 5] == (typed[row, cursors[row]] == under)
        held += int(labels[row, 5])
    assert 0 < held < 48 * 8  # both answers of the last label occur


def test_aux_head_learns_and_travels_in_the_checkpoint(tmp_path: Path) -> None:
    result = train(
        CIPHER,
        out_dir=tmp_path,
        progress=False,
        reference_episodes=0,
        **{**TINY, "total_steps": 512, "auxiliary": "field_cipher_message"},
    )
    with open(result.csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for column in ("aux_loss", "aux_accuracy", "slot0_right", "slot3_right"):
        assert column in rows[0]
    # cross-entropy of 5 uniform 16-way guesses and a 2-way one: 5 ln 16 + ln 2 = 14.56
    assert 13.5 < float(rows[0]["aux_loss"]) < 15.5
    model, config, _ = load_checkpoint(result.checkpoint)
    assert config.auxiliary == "field_cipher_message" and model.aux is not None
    play_checkpoint(CIPHER, result.checkpoint, 6)


def test_slot_columns_are_the_ended_episodes_right_slots(tmp_path: Path) -> None:
    """The per-slot accuracy of an update is the mean over its ended episodes of slot k
    holding the message's character; their sum is the mean return / 0.25 (the env pays 0.25
    per right slot at the end, and only then)."""
    result = train(CIPHER, out_dir=tmp_path, progress=False, reference_episodes=0, **TINY)
    with open(result.csv, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if int(r["episodes"])]
    assert rows
    for r in rows:
        total = sum(float(r[f"slot{k}_right"]) for k in range(4))
        assert total * 0.25 == pytest.approx(float(r["mean_return"]))
    assert "aux_loss" not in rows[0]


def test_aux_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="auxiliary must be one of field_cipher_message"):
        PPOConfig.from_dict({"env_id": CIPHER, "auxiliary": "nope"})
    with pytest.raises(ValueError, match="is for hiddengrid/FieldCipher-v0, not"):
        PPOConfig.from_dict({"auxiliary": "field_cipher_message"})
    with pytest.raises(ValueError, match="aux_coef must be >= 0"):
        PPOConfig.from_dict({"env_id": CIPHER, "aux_coef": -1.0})


def test_every_recipe_makes_valid_settings() -> None:
    for name, recipe in RECIPES.items():
        config = PPOConfig.from_dict(
            {"env_id": recipe.env_id, **recipe_settings(name, recipe.env_id)}
        )
        assert config.env_id == recipe.env_id


# --- imitation warm start ---------------------------------------------------------------------


def test_imitation_clones_the_heuristic_then_ppo_continues(tmp_path: Path) -> None:
    """The warm start's rollouts are the heuristic's (it wins every level-0 episode, so their
    success is 100 %), the policy's agreement with it rises, and the PPO curve's steps start
    after the warm start's."""
    settings = {**TINY, "num_envs": 16, "rollout": 32, "total_steps": 512}
    result = train(
        MEGACITY,
        out_dir=tmp_path,
        progress=False,
        reference_episodes=0,
        env_kwargs={"level": 0},
        imitation="heuristic",
        imitation_steps=16 * 32 * 6,
        **settings,
    )
    with open(tmp_path / "imitation.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6
    ended = [r for r in rows if int(r["episodes"])]
    assert ended and all(float(r["success_rate"]) == 1.0 for r in ended)
    assert float(rows[-1]["agreement"]) > float(rows[0]["agreement"])
    with open(result.csv, newline="") as fh:
        first = next(csv.DictReader(fh))
    assert int(first["step"]) == 16 * 32 * 7  # six warm-start updates, then PPO's first


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"imitation": "oracle", "imitation_steps": 10}, "oracle reads the hidden scenario"),
        ({"imitation": "nobody", "imitation_steps": 10}, "has no agent 'nobody'; fair ones:"),
        ({"imitation": "heuristic"}, "imitation needs imitation_steps >= 1"),
        ({"imitation_steps": 10}, "imitation_steps needs imitation"),
        ({"imitation": "heuristic", "imitation_steps": -1}, "imitation_steps must be an integer"),
    ],
)
def test_imitation_settings_are_checked(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PPOConfig.from_dict({"env_id": MEGACITY, **settings})


# --- the published table ----------------------------------------------------------------------


def test_v2_table_trains_publishes_and_scores_each_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from hiddengrid.train import baselines

    rows = (
        baselines.Row("cipher", CIPHER, 128, recipe="field_cipher_decoder", settings=TINY),
        baselines.Row("city", MEGACITY, 128, settings={**TINY, "env_kwargs": {"level": 0}}),
    )
    monkeypatch.setattr(baselines, "V2_ROWS", rows)
    docs, runs, images = tmp_path / "docs", tmp_path / "runs", tmp_path / "images"
    argv = ["--v2", "--episodes", "8", "--csv-dir", str(docs), "--runs", str(runs)]
    assert baselines.main([*argv, "--images", str(images)]) == 0
    table = capsys.readouterr().out
    for name in ("cipher", "city"):
        assert (docs / f"{name}.pt").is_file() and (docs / f"{name}.csv").is_file()
        assert (images / f"{name}.png").is_file()
    assert (images / "cipher-slots.png").is_file()
    import json

    results = json.loads((docs / "results.json").read_text())["rows"]
    city = next(r for r in results if r.get("run") == "city")
    assert city["env_kwargs"] == {"level": 0} and city["episodes"] == 8
    # the heuristic is scored on the level the row was trained on (it wins every level-0
    # episode of the Megacity page's table)
    heuristic = next(r for r in results if r["agent"] == "heuristic" and r["env"] == MEGACITY)
    assert heuristic["env_kwargs"] == {"level": 0} and heuristic["success"] == 1.0
    assert "recipe field_cipher_decoder" in table and "level=0" in table
    # the same figure as hiddengrid eval gives for the published checkpoint
    argv = ["eval", "--env", MEGACITY, "--agent", "ppo", "--episodes", "8"]
    argv += ["--checkpoint", str(docs / "city.pt"), "--env-arg", "level=0", "--json"]
    argv += [str(tmp_path / "eval.json")]
    assert main(argv) == 0
    capsys.readouterr()
    evaluated = json.loads((tmp_path / "eval.json").read_text())[0]
    assert evaluated["success_rate"] == city["success"]
    assert evaluated["mean_return"] == pytest.approx(city["mean_return"])
    assert "greedy_success" not in city
    # scored again with --greedy: the row gains the greedy figures hiddengrid eval --greedy gives
    argv = ["--v2", "--score-only", "--greedy", "--only", "city", "--episodes", "8"]
    argv += ["--csv-dir", str(docs), "--images", str(images)]
    assert baselines.main(argv) == 0
    rescored = json.loads((docs / "results.json").read_text())["rows"]
    assert len(rescored) == len(results)  # the row replaced, the rest kept
    city_again = next(r for r in rescored if r.get("run") == "city")
    assert city_again["success"] == city["success"]
    argv = ["eval", "--env", MEGACITY, "--agent", "ppo", "--episodes", "8", "--greedy"]
    argv += ["--checkpoint", str(docs / "city.pt"), "--env-arg", "level=0", "--json"]
    argv += [str(tmp_path / "greedy.json")]
    assert main(argv) == 0
    greedy = json.loads((tmp_path / "greedy.json").read_text())[0]
    assert greedy["agent"] == "ppo-greedy"
    assert city_again["greedy_success"] == greedy["success_rate"]
    assert city_again["greedy_mean_return"] == pytest.approx(greedy["mean_return"])
    # scored again with --held-out only: the greedy figures stay, the held-out ones are those
    # of hiddengrid eval --seed 5000000, on other episodes than the published ones
    argv = ["--v2", "--score-only", "--held-out", "--only", "city", "--episodes", "8"]
    assert baselines.main([*argv, "--csv-dir", str(docs), "--images", str(images)]) == 0
    city_held = next(
        r for r in json.loads((docs / "results.json").read_text())["rows"] if r.get("run") == "city"
    )
    assert city_held["greedy_success"] == city_again["greedy_success"]
    assert city_held["heldout_seeds"] == "5000000..5000007"
    argv = ["eval", "--env", MEGACITY, "--agent", "ppo", "--episodes", "8", "--seed", "5000000"]
    argv += ["--checkpoint", str(docs / "city.pt"), "--env-arg", "level=0", "--json"]
    argv += [str(tmp_path / "held.json")]
    assert main(argv) == 0
    held = json.loads((tmp_path / "held.json").read_text())[0]
    assert city_held["heldout_success"] == held["success_rate"]
    assert city_held["heldout_mean_return"] == pytest.approx(held["mean_return"])
    assert held["mean_return"] != pytest.approx(evaluated["mean_return"])  # other episodes


def test_teacher_labels_are_the_oracles_actions(tmp_path: Path) -> None:
    """field_cipher_teacher's label of each collected step is the action the env's oracle
    agent takes on that step's observation (differential test against the agent)."""
    from hiddengrid.envs.field_cipher.agents import OracleAgent
    from hiddengrid.train.auxiliary import AUXILIARIES

    config = PPOConfig.from_dict({"env_id": CIPHER, **TINY, "auxiliary": "field_cipher_teacher"})
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    oracle = OracleAgent(t.base)
    fields = t.base.batch.fields
    obs = {key: fields[name] for key, name in t.definition.observation.items()}
    kinds = set()
    for step in range(400):  # at least 60 steps, until writes and moves were both labels
        labels = AUXILIARIES["field_cipher_teacher"].labels(t.base.batch)[:, 0]
        expected = oracle.act(obs, np.zeros(8, dtype=bool))
        assert np.array_equal(labels, expected)
        kinds.update(np.where(labels < 16, 0, labels).tolist())
        if step >= 60 and kinds >= {0, 16}:
            break
        t.env.step(np.random.default_rng(step).integers(0, 19, size=8))
    assert kinds >= {0, 16}  # writes and moves both checked
    model, _, _ = PPOTrainer(config, tmp_path / "b").model, None, None
    assert model.aux is None  # the teacher's labels go to the policy's own logits


def test_teacher_recipe_runs_and_its_checkpoint_plays(tmp_path: Path) -> None:
    result = train(
        CIPHER,
        out_dir=tmp_path,
        progress=False,
        reference_episodes=0,
        **{**TINY, **recipe_settings("field_cipher_teacher", CIPHER)},
    )
    with open(result.csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert 0.0 <= float(rows[-1]["aux_accuracy"]) <= 1.0
    play_checkpoint(CIPHER, result.checkpoint, 4)


def test_a_rows_label_names_its_policy_or_recipe() -> None:
    """The table's agent column says which network a plain row trained (a recurrent row was
    once labelled feed-forward) and which recipe a recipe row used."""
    from hiddengrid.train.baselines import Row

    assert Row("a", CIPHER, 1).label == "PPO feed-forward"
    assert Row("b", CIPHER, 1, settings={"policy": "gru"}).label == "PPO recurrent (GRU)"
    assert Row("c", CIPHER, 1, settings={"policy": "lstm"}).label == "PPO recurrent (LSTM)"
    assert Row("d", CIPHER, 1, recipe="field_cipher_teacher").label == (
        "recipe field_cipher_teacher"
    )
    wide = Row("e", CIPHER, 1, recipe="r", settings={"hidden": 256, "precision": "bfloat16"})
    assert wide.label == "recipe r, hidden 256, bfloat16 passes"


def test_an_unknown_row_gets_one_line_naming_the_nearest_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hiddengrid.train import baselines

    rc = baselines.main(
        ["--v2", "--only", "SquadRecon-v0-dagger-view-10m-s7", "--csv-dir", str(tmp_path)]
    )
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err
    assert "unknown rows ['SquadRecon-v0-dagger-view-10m-s7']" in err
    assert "nearest: SquadRecon-v0-dagger-view-10m-s0" in err
    assert f"all {len(baselines.V2_ROWS)}: --v2 --list" in err
    assert list(tmp_path.iterdir()) == []  # nothing trained, scored or written
    assert baselines.main(["--v2", "--list"]) == 0
    listed = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == [row.name for row in baselines.V2_ROWS]


def test_every_setting_and_recipe_is_in_the_training_page() -> None:
    # the settings table names each PPOConfig field, the recipes table each recipe
    import dataclasses
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "training.md").read_text()
    settings = page[page.index("## Settings") : page.index("## Observations")]
    named = set(re.findall(r"`(\w+)`", "\n".join(re.findall(r"^\| [^|]+\|", settings, re.M))))
    missing = [f.name for f in dataclasses.fields(PPOConfig) if f.name not in named]
    assert not missing or missing == ["env_id"], missing
    recipes = page[page.index("## Recipes") : page.index("### Shaping alone")]
    assert [name for name in RECIPES if f"| `{name}` |" not in recipes] == []
