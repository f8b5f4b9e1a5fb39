"""Named encoders (PPOConfig.encoder): SquadRecon's squads encoder and its recipe."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from helpers import cli_error, play_checkpoint  # noqa: E402

from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.checkpoint import load_checkpoint  # noqa: E402
from hiddengrid.train.encoders import ENCODERS, build_encoder  # noqa: E402
from hiddengrid.train.recipes import recipe_settings  # noqa: E402
from hiddengrid.train.squad_recon import PER_SQUAD, SquadEncoder, SquadReconView  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SQUAD = "hiddengrid/SquadRecon-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}
VIEWED = {"features": "squad_recon_view", "encoder": "squad_recon_squads"}


def _encoder(hidden: int = 16) -> SquadEncoder:
    torch.manual_seed(0)
    extra = SquadReconView(1440).extra
    return SquadEncoder(1440 + extra, extra, hidden)


def test_squads_encoder_keeps_leading_dimensions() -> None:
    encoder = _encoder()
    x = torch.rand(5, 7, encoder.base + 3 * PER_SQUAD)
    assert encoder(x).shape == (5, 7, 16)
    assert torch.equal(encoder(x).reshape(35, 16), encoder(x.reshape(35, -1)))


def test_each_squad_is_read_by_the_same_weights_and_sees_only_its_own_view() -> None:
    """Changing squad 1's view block changes squad 1's features only; the same view block,
    summary and squad index give the same features whichever slot they sit in (one network
    shared by the squads, not three)."""
    encoder = _encoder()
    seen: list[torch.Tensor] = []
    encoder.squad.register_forward_hook(lambda m, i, out: seen.append(out.detach()))
    x = torch.rand(4, encoder.base + 3 * PER_SQUAD)
    y = x.clone()
    y[:, encoder.base + PER_SQUAD : encoder.base + 2 * PER_SQUAD] = torch.rand(4, PER_SQUAD)
    encoder(x)
    encoder(y)
    before, after = seen
    assert torch.equal(before[:, 0], after[:, 0]) and torch.equal(before[:, 2], after[:, 2])
    assert not torch.equal(before[:, 1], after[:, 1])
    # one set of weights: the per-squad network's first layer takes one squad's block
    first = encoder.squad[0]
    assert first.in_features == PER_SQUAD + 16 + 3
    assert not any(
        isinstance(m, torch.nn.Linear) and m.in_features > encoder.base for m in encoder.modules()
    )


def test_squads_encoder_refuses_another_view_width() -> None:
    with pytest.raises(
        ValueError,
        match="reads squad_recon_view's 1008 or squad_recon_paths' 1044 columns, got 100",
    ):
        SquadEncoder(1540, 100, 16)


def test_config_checks_the_encoder_and_its_view() -> None:
    with pytest.raises(ValueError, match="encoder must be one of squad_recon_squads"):
        PPOConfig.from_dict({"env_id": SQUAD, "encoder": "nope"})
    with pytest.raises(ValueError, match="encoder squad_recon_squads is for hiddengrid/SquadRecon"):
        PPOConfig.from_dict(
            {"env_id": "hiddengrid/FieldCipher-v0", "encoder": "squad_recon_squads"}
        )
    reads = "reads the view squad_recon_view or squad_recon_paths: set features="
    with pytest.raises(ValueError, match=reads):
        PPOConfig.from_dict({"env_id": SQUAD, "encoder": "squad_recon_squads"})
    config = PPOConfig.from_dict({"env_id": SQUAD, **VIEWED})
    assert config.encoder == "squad_recon_squads"
    assert all(entry.doc and entry.env_id == SQUAD for entry in ENCODERS.values())
    assert recipe_settings("squad_recon_dagger_squads", SQUAD)["encoder"] == "squad_recon_squads"


def test_the_mlp_stays_without_an_encoder_and_the_encoder_replaces_it(tmp_path: Path) -> None:
    # Without an encoder the policy keeps the two layers every published checkpoint holds
    # (test_published_rerun retrains one bit for bit); a named encoder takes their place.
    assert build_encoder("", 10, 0, 8) is None
    plain = PPOTrainer(PPOConfig.from_dict({"env_id": SQUAD, **TINY}), tmp_path / "a").model
    published = torch.load(
        ROOT / "docs/baselines/trainer_v2/SquadRecon-v0-dagger-view-10m-s0.pt", weights_only=True
    )["model"]
    keys = {k for k in plain.state_dict() if k.startswith("encoder.")}
    assert keys == {k for k in published if k.startswith("encoder.")}
    assert keys == {"encoder.0.weight", "encoder.0.bias", "encoder.2.weight", "encoder.2.bias"}
    config = PPOConfig.from_dict({"env_id": SQUAD, **TINY, **VIEWED})
    model = PPOTrainer(config, tmp_path / "b").model
    assert isinstance(model.encoder, SquadEncoder)
    assert not any(k.startswith("encoder.0.") for k in model.state_dict())


def test_squads_recipe_trains_and_its_checkpoint_loads_with_the_encoder_and_plays(
    tmp_path: Path,
) -> None:
    settings = {
        **recipe_settings("squad_recon_dagger_squads", SQUAD),
        "imitation_steps": 64,
        **TINY,
    }
    result = train(SQUAD, out_dir=tmp_path / "a", progress=False, reference_episodes=0, **settings)
    model, config, _ = load_checkpoint(result.checkpoint)
    assert config.encoder == "squad_recon_squads" and config.features == "squad_recon_view"
    assert isinstance(model.encoder, SquadEncoder)
    assert (tmp_path / "a" / "imitation.csv").is_file()
    # the weights it loads are the ones the run wrote (a second load plays the same)
    data = torch.load(result.checkpoint, weights_only=True)
    for key, value in model.state_dict().items():
        assert torch.equal(value, data["model"][key]), key
    play_checkpoint(SQUAD, result.checkpoint, 4)
    # a run starts from it only with the same encoder
    with pytest.raises(ValueError, match="has encoder 'squad_recon_squads', this run ''"):
        train(
            SQUAD,
            out_dir=tmp_path / "b",
            progress=False,
            reference_episodes=0,
            **{**settings, "encoder": "", "init_checkpoint": str(result.checkpoint)},
        )


def test_pufferl_refuses_an_encoder() -> None:
    from hiddengrid.train.pufferl_runner import train_pufferl

    config = PPOConfig.from_dict({"env_id": SQUAD, **TINY, **VIEWED})
    with pytest.raises(ValueError, match="PuffeRL runs plain PPO"):
        train_pufferl(config, "unused.pt")


def test_teacher_fit_writes_a_row_per_network(tmp_path: Path) -> None:
    from hiddengrid.train.teacher_fit import NETWORKS, main

    out = tmp_path / "fit.txt"
    assert main(["--steps", "8", "--passes", "1", "--out", str(out)]) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| ") and "%" in line]
    assert [row.split(" | ")[0][2:] for row in rows] == [n[0] for n in NETWORKS]
    for row in rows:
        shares = [float(cell.strip("* %")) for cell in row.split(" | ")[2:4]]
        assert all(0.0 <= share <= 100.0 for share in shares)
    with pytest.raises(SystemExit):
        main(["--steps", "2"])


def test_cputime_times_recipes_against_each_other(capsys) -> None:
    from hiddengrid.train import cputime

    names = ["squad_recon_dagger_view", "squad_recon_dagger_squads"]
    argv = ["--steps", "4096", "--repeats", "1"]
    assert cputime.main([*argv, "--recipe", names[0], "--recipe", names[1]]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| squad_recon")]
    assert [row.split(" | ")[0][2:] for row in rows] == names
    assert all(float(row.split(" | ")[1]) > 0 for row in rows)
    assert f"{names[1]} uses " in out
    for bad in (["--recipe", "nope"], ["--recipe", names[0], "--recipe", "megacity_dagger"]):
        with pytest.raises(SystemExit):
            cputime.main([*argv, *bad])
    assert "unknown recipe 'nope'" in capsys.readouterr().err


def test_cli_trains_the_squads_recipe_and_names_its_encoder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from hiddengrid.cli import main

    args = ["train", "--env", SQUAD, "--recipe", "squad_recon_dagger_squads", "--hidden", "8"]
    sizes = ["--num-envs", "16", "--rollout", "8", "--steps", "128", "--imitation-steps", "128"]
    assert main([*args, *sizes, "--quiet", "--out", str(tmp_path / "run")]) in (0, None)
    assert f"{SQUAD} mlp, encoder squad_recon_squads: 256 steps" in capsys.readouterr().out
    model, config, _ = load_checkpoint(tmp_path / "run" / "checkpoint.pt")
    assert config.encoder == "squad_recon_squads" and isinstance(model.encoder, SquadEncoder)


def test_cnn_maps_are_the_observation_cell_by_cell(tmp_path: Path) -> None:
    """Differential: the CNN's ten channels equal the env's arrays read cell by cell (the
    explored terrain's four values, visibility, each squad's cell, the detected standing
    camps, the cells where a camp may stand)."""
    import numpy as np

    from hiddengrid.envs.squad_recon.constants import CAMP_MIN_DISTANCE, DETECTED
    from hiddengrid.train.squad_recon import SquadMapCNN

    config = PPOConfig.from_dict({"env_id": SQUAD, **TINY, "num_envs": 16, "seed": 1_000_000})
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    rng = np.random.default_rng(3)
    flat = t.carry.flat
    for _ in range(12):
        flat, *_ = t.env.step(rng.integers(0, 6, size=(16, 3)))
    maps = SquadMapCNN(flat.shape[1], 0, 8).maps(torch.as_tensor(flat)).numpy()
    assert maps.shape == (16, 10, 15, 15)
    fields = t.base.batch.fields
    explored, visible = fields["explored"], fields["visible"]
    squads, camps = fields["squads"], fields["camps_view"]
    rows, cols = np.indices((15, 15))
    standing_seen = 0
    for i in range(16):
        for value in range(4):  # terrain -1, 0, 1, 2
            assert np.array_equal(maps[i, value], explored[i] == value - 1)
        assert np.array_equal(maps[i, 4], visible[i] != 0)
        for k in range(3):
            where = (rows == squads[i, k, 0]) & (cols == squads[i, k, 1])
            assert np.array_equal(maps[i, 5 + k], where)
        camp = np.zeros((15, 15))
        for j in range(2):
            if camps[i, j, 3] == DETECTED:
                camp[int(camps[i, j, 0]), int(camps[i, j, 1])] += 1
                standing_seen += 1
        assert np.array_equal(maps[i, 8], camp)
        assert np.array_equal(maps[i, 9], np.maximum(14 - rows, cols) >= CAMP_MIN_DISTANCE)
    assert standing_seen > 0  # the camp channel was checked on detected camps too


def test_cnn_encoder_needs_no_view_and_its_checkpoint_plays(tmp_path: Path) -> None:
    settings = {**TINY, "encoder": "squad_recon_cnn"}
    result = train(SQUAD, out_dir=tmp_path, progress=False, reference_episodes=0, **settings)
    model, config, _ = load_checkpoint(result.checkpoint)
    assert config.encoder == "squad_recon_cnn" and config.features == ""
    assert any(isinstance(m, torch.nn.Conv2d) for m in model.encoder.modules())
    assert model(torch.zeros(3, 1440), ())[0].shape == (3, 18)
    play_checkpoint(SQUAD, result.checkpoint, 4)


def test_cli_builds_a_run_from_its_named_techniques(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``--features``, ``--encoder``, ``--auxiliary`` and ``--shaping`` set the run's named
    techniques without a recipe, and the checkpoint keeps them."""
    from hiddengrid.cli import main

    args = ["train", "--env", SQUAD, "--encoder", "squad_recon_cnn", "--hidden", "8"]
    args += ["--auxiliary", "squad_recon_teacher", "--features", "squad_recon_view"]
    sizes = ["--num-envs", "16", "--rollout", "8", "--steps", "128", "--quiet"]
    assert main([*args, *sizes, "--out", str(tmp_path / "run")]) in (0, None)
    assert f"{SQUAD} mlp, encoder squad_recon_cnn: 128 steps" in capsys.readouterr().out
    model, config, _ = load_checkpoint(tmp_path / "run" / "checkpoint.pt")
    assert (config.encoder, config.features) == ("squad_recon_cnn", "squad_recon_view")
    assert config.auxiliary == "squad_recon_teacher" and config.shaping == ""
    from hiddengrid.train.squad_recon import SquadMapCNN

    assert isinstance(model.encoder, SquadMapCNN)
    cipher = ["train", "--env", "hiddengrid/FieldCipher-v0", "--shaping", "field_cipher_slots"]
    assert main([*cipher, *sizes, "--out", str(tmp_path / "cipher")]) in (0, None)
    assert load_checkpoint(tmp_path / "cipher" / "checkpoint.pt")[1].shaping == (
        "field_cipher_slots"
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--encoder", "nope"], "encoder must be one of squad_recon_squads, squad_recon_cnn"),
        (
            ["--encoder", "squad_recon_squads"],
            "reads the view squad_recon_view or squad_recon_paths: set features=",
        ),
        (["--features", "nope"], "features must be one of squad_recon_view"),
        (["--shaping", "field_cipher_slots"], "is for hiddengrid/FieldCipher-v0, not"),
        (["--auxiliary", "megacity_teacher"], "is for hiddengrid/Megacity-v0, not"),
    ],
)
def test_cli_refuses_unknown_or_misplaced_techniques(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    out = tmp_path / "run"
    argv = ["train", "--env", SQUAD, "--out", str(out), "--steps", "64", "--quiet", *extra]
    assert message in cli_error(argv, capsys)
    assert not out.exists()  # nothing written


def test_the_view_refuses_another_observation_size_naming_both() -> None:
    with pytest.raises(ValueError, match="needs SquadRecon's 1440 flat features, got 300"):
        SquadReconView(300)
