"""SquadRecon's DAgger teacher (the fair heuristic replanned every step) and its recipe."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import play_checkpoint  # noqa: E402

from hiddengrid.envs.squad_recon.agents import SearchAgent  # noqa: E402
from hiddengrid.train import PPOConfig, PPOTrainer, train  # noqa: E402
from hiddengrid.train.auxiliary import AUXILIARIES  # noqa: E402
from hiddengrid.train.recipes import recipe_settings  # noqa: E402
from hiddengrid.train.squad_recon import HeuristicTeacher, replanning_heuristic_class  # noqa: E402

SQUAD = "hiddengrid/SquadRecon-v0"
TINY = {"num_envs": 8, "rollout": 8, "minibatches": 2, "hidden": 16, "total_steps": 128}
DEV_SEED = 1_000_000


def _trainer(tmp_path: Path, n: int = 8) -> PPOTrainer:
    config = PPOConfig.from_dict(
        {
            "env_id": SQUAD,
            **TINY,
            "num_envs": n,
            "seed": DEV_SEED,
            "auxiliary": "squad_recon_teacher",
        }
    )
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    return t


def _observation(t: PPOTrainer) -> dict[str, np.ndarray]:
    fields = t.base.batch.fields
    return {key: fields[name] for key, name in t.definition.observation.items()}


def test_teacher_labels_are_the_heuristics_orders_when_it_plans_afresh(tmp_path: Path) -> None:
    """On every state of episodes the heuristic plays, the label is the order the env's own
    heuristic gives when it plans on that state from scratch (differential test), and the
    heuristic's own play (which keeps its plan between steps) mostly agrees with it."""
    t = _trainer(tmp_path, n=32)
    obs = _observation(t)
    player = SearchAgent(t.base)  # plays, keeping its plan between steps
    starts = np.ones(32, dtype=bool)
    kinds: set[int] = set()
    same = total = 0
    for _ in range(80):
        labels = AUXILIARIES["squad_recon_teacher"].labels(t.base.batch)
        fresh = SearchAgent(t.base).act(obs, np.ones(32, dtype=bool))
        assert labels.shape == (32, 3) and labels.dtype == np.int64
        assert np.array_equal(labels, fresh)
        kinds.update(labels.ravel().tolist())
        action = player.act(obs, starts)
        same += int((action == labels).all(axis=1).sum())
        total += 32
        _, reward, terminated, truncated, _ = t.env.step(action)
        player.observe(reward, terminated, truncated)
        starts = terminated | truncated
        if terminated.any():
            t.env.reset(options={"reset_mask": terminated})
    assert kinds == set(range(6))  # holds, all four moves and attacks were labelled
    assert same / total > 0.95


def test_teacher_reads_only_the_observation(tmp_path: Path) -> None:
    """Changing the hidden terrain and the undetected camps leaves the labels as they were."""
    t = _trainer(tmp_path)
    batch = t.base.batch
    before = AUXILIARIES["squad_recon_teacher"].labels(batch).copy()
    hidden = [name for name in batch.fields if name not in t.definition.observation.values()]
    assert "terrain" in hidden
    saved = {name: batch.fields[name].copy() for name in hidden}
    rng = np.random.default_rng(0)
    for name in hidden:
        field = batch.fields[name]
        if field.dtype != np.bool_ and field.size:
            field[...] = rng.integers(0, 3, size=field.shape).astype(field.dtype)
    try:
        after = AUXILIARIES["squad_recon_teacher"].labels(batch)
    finally:
        for name, value in saved.items():
            batch.fields[name][...] = value
    assert np.array_equal(before, after)


def test_teacher_keeps_no_state_between_calls(tmp_path: Path) -> None:
    """The same state labelled after other states gets the same orders: the teacher is a
    function of the observation (the replanning heuristic carries nothing between steps)."""
    t = _trainer(tmp_path)
    obs = _observation(t)
    teacher = HeuristicTeacher()
    first = teacher(t.base.batch).copy()
    saved = {key: value.copy() for key, value in obs.items()}
    for _ in range(5):
        t.env.step(np.random.default_rng(1).integers(0, 6, size=(8, 3)))
        teacher(t.base.batch)
    for key, value in saved.items():
        obs[key][...] = value
    assert np.array_equal(teacher(t.base.batch), first)
    assert replanning_heuristic_class().params[2] == 1  # replans on every step


def test_teacher_follows_a_new_batch(tmp_path: Path) -> None:
    teacher = HeuristicTeacher()
    small = _trainer(tmp_path / "a", n=4)
    large = _trainer(tmp_path / "b", n=16)
    assert teacher(small.base.batch).shape == (4, 3)
    assert teacher(large.base.batch).shape == (16, 3)
    expected = SearchAgent(small.base).act(_observation(small), np.ones(4, dtype=bool))
    assert np.array_equal(teacher(small.base.batch), expected)


def test_dagger_recipe_is_for_squad_recon_only() -> None:
    settings = recipe_settings("squad_recon_dagger", SQUAD)
    assert settings["auxiliary"] == "squad_recon_teacher"
    assert settings["imitation"] == "heuristic"
    with pytest.raises(ValueError, match="recipe squad_recon_dagger is for hiddengrid/SquadRecon"):
        recipe_settings("squad_recon_dagger", "hiddengrid/FieldCipher-v0")
    with pytest.raises(ValueError, match="auxiliary squad_recon_teacher is for"):
        PPOConfig.from_dict(
            {"env_id": "hiddengrid/FieldCipher-v0", "auxiliary": "squad_recon_teacher"}
        )


def test_dagger_recipe_runs_and_its_checkpoint_plays(tmp_path: Path) -> None:
    # the tiny batch's sizes over the recipe's (16 minibatches need 16 sub-envs or more)
    settings = {**recipe_settings("squad_recon_dagger", SQUAD), "imitation_steps": 64, **TINY}
    result = train(
        SQUAD,
        out_dir=tmp_path,
        progress=False,
        reference_episodes=0,
        **settings,
    )
    with open(result.csv, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert 0.0 <= float(rows[-1]["aux_accuracy"]) <= 1.0
    assert float(rows[-1]["aux_loss"]) > 0.0
    assert (tmp_path / "imitation.csv").is_file()
    model = PPOTrainer(PPOConfig.from_dict({"env_id": SQUAD, **settings}), tmp_path / "b").model
    assert model.aux is None  # the teacher's labels go to the policy's own logits
    play_checkpoint(SQUAD, result.checkpoint, 4)


# --- the egocentric view ------------------------------------------------------------------------


def test_view_is_the_map_around_each_squad(tmp_path: Path) -> None:
    """Differential: each squad's window equals the explored map read cell by cell around the
    squad (off the map counts as blocked), and its camp columns the detected camps' offsets."""
    from hiddengrid.envs.squad_recon.constants import CAMP_MIN_DISTANCE, DETECTED
    from hiddengrid.train.squad_recon import PER_SQUAD, VIEW_RADIUS, SquadReconView

    t = _trainer(tmp_path, n=16)
    rng = np.random.default_rng(3)
    flat = t.carry.flat
    for _ in range(12):
        flat, *_ = t.env.step(rng.integers(0, 6, size=(16, 3)))
    view = SquadReconView(flat.shape[1])
    out = view(torch.as_tensor(flat)).numpy().reshape(16, 3, PER_SQUAD)
    fields = t.base.batch.fields
    explored, squads, camps = fields["explored"], fields["squads"], fields["camps_view"]
    w = 2 * VIEW_RADIUS + 1
    detected_seen = 0
    for i in range(16):
        for k in range(3):
            r, c = int(squads[i, k, 0]), int(squads[i, k, 1])
            window = out[i, k, : w * w * 4].reshape(w, w, 4)
            for dr in range(w):
                for dc in range(w):
                    rr, cc = r + dr - VIEW_RADIUS, c + dc - VIEW_RADIUS
                    inside = 0 <= rr < 15 and 0 <= cc < 15
                    unexplored = inside and explored[i, rr, cc] == -1
                    blocked = not inside or explored[i, rr, cc] > 0
                    wanted = unexplored and max(14 - rr, cc) >= CAMP_MIN_DISTANCE
                    assert window[dr, dc, 0] == unexplored
                    assert window[dr, dc, 1] == blocked
                    assert window[dr, dc, 3] == wanted
            camp_part = out[i, k, w * w * 4 + 4 :].reshape(2, 4)
            for j in range(2):
                standing = camps[i, j, 3] == DETECTED
                detected_seen += standing
                assert camp_part[j, 3] == standing
                if standing:
                    assert camp_part[j, 0] == pytest.approx((camps[i, j, 0] - r) / 15)
                    assert camp_part[j, 1] == pytest.approx((camps[i, j, 1] - c) / 15)
                    near = abs(camps[i, j, 0] - r) + abs(camps[i, j, 1] - c) == 1
                    assert camp_part[j, 2] == near
                    dr, dc = int(camps[i, j, 0]) - r, int(camps[i, j, 1]) - c
                    if max(abs(dr), abs(dc)) <= VIEW_RADIUS:
                        assert window[VIEW_RADIUS + dr, VIEW_RADIUS + dc, 2] == 1
                else:
                    assert camp_part[j, 0] == 0 and camp_part[j, 1] == 0
    assert detected_seen > 0  # the camp columns were checked on detected camps too


def test_view_kernel_gives_the_tensor_code_values_bit_for_bit(tmp_path: Path) -> None:
    """Differential: the Numba pass (CPU, float32) and the tensor code (any device) agree on
    every bit, signs of zeros included, over the states of random play with camps found."""
    from hiddengrid.train.squad_recon import SquadReconView

    t = _trainer(tmp_path, n=32)
    rng = np.random.default_rng(11)
    flat = t.carry.flat
    view = SquadReconView(flat.shape[1])
    states = []
    for _ in range(60):
        flat, *_ = t.env.step(rng.integers(0, 6, size=(32, 3)))
        states.append(np.array(flat))
    x = torch.as_tensor(np.concatenate(states))
    fast, slow = view(x), view._tensor_view(x)
    assert fast.shape == slow.shape == (x.shape[0], view.extra)
    assert torch.equal(fast, slow)
    assert torch.equal(torch.signbit(fast), torch.signbit(slow))
    camps = view._one_hot(x, "camps", (view.camps_n, 4))
    assert bool((camps[:, :, 3, 1] > 0).any())  # detected camps were among the states


def test_view_keeps_leading_dimensions_and_refuses_other_envs() -> None:
    from hiddengrid.train.squad_recon import SquadReconView

    view = SquadReconView(1440)
    x = torch.zeros(5, 7, 1440)
    assert view(x).shape == (5, 7, view.extra)
    with pytest.raises(ValueError, match="squad_recon_view needs SquadRecon's"):
        SquadReconView(100)
    with pytest.raises(ValueError, match="features must be one of squad_recon_view"):
        PPOConfig.from_dict({"env_id": SQUAD, "features": "nope"})
    with pytest.raises(ValueError, match="features squad_recon_view is for hiddengrid/SquadRecon"):
        PPOConfig.from_dict({"env_id": "hiddengrid/FieldCipher-v0", "features": "squad_recon_view"})


def test_view_recipe_checkpoint_loads_with_its_view_and_plays(tmp_path: Path) -> None:
    from hiddengrid.train.checkpoint import load_checkpoint

    settings = {
        **recipe_settings("squad_recon_dagger_view", SQUAD),
        "imitation_steps": 64,
        **TINY,
    }
    result = train(SQUAD, out_dir=tmp_path, progress=False, reference_episodes=0, **settings)
    model, config, _ = load_checkpoint(result.checkpoint)
    assert config.features == "squad_recon_view"
    assert model.view is not None
    assert model.encoder[0].in_features == 1440 + model.view.extra
    play_checkpoint(SQUAD, result.checkpoint, 4)


def test_rollout_stores_the_view_once_and_the_learner_reads_the_same_logits(
    tmp_path: Path,
) -> None:
    # The view has no weights, so the rollout stores each input with its columns and the
    # learner's passes skip it; they must see exactly what a pass computing it would.
    config = PPOConfig.from_dict(
        {
            "env_id": SQUAD,
            **TINY,
            "features": "squad_recon_view",
            "seed": DEV_SEED,
        }
    )
    t = PPOTrainer(config, tmp_path)
    t.carry = t._start()
    t._collect()
    size = t.inputs.size
    assert t.obs.shape[-1] == size + t.model.view.extra
    raw = t.obs[..., :size].reshape(-1, size)
    assert bool(raw.any())
    with torch.no_grad():
        assert torch.equal(t.obs.reshape(-1, t.obs.shape[-1]), t.model.with_view(raw))
        logits, values, _ = t.model(raw, ())
        stored_logits, stored_values, _ = t.model(t.obs.reshape(raw.shape[0], -1), (), viewed=True)
    assert torch.equal(logits, stored_logits)
    assert torch.equal(values, stored_values)


def _bfs_from_camp(explored: np.ndarray, camps: np.ndarray, j: int) -> dict:
    """Plain breadth-first steps from camp ``j``'s passable neighbours over ``explored``
    (unexplored and open cells passable, standing detected camps not)."""
    from collections import deque

    from hiddengrid.envs.squad_recon.constants import DETECTED

    blocked = {(int(c[0]), int(c[1])) for c in camps if c[3] == DETECTED}

    def free(r: int, c: int) -> bool:
        return 0 <= r < 15 and 0 <= c < 15 and explored[r, c] <= 0 and (r, c) not in blocked

    dist: dict = {}
    queue: deque = deque()
    cr, cc = int(camps[j, 0]), int(camps[j, 1])
    for nr, nc in ((cr - 1, cc), (cr + 1, cc), (cr, cc + 1), (cr, cc - 1)):
        if free(nr, nc):
            dist[(nr, nc)] = 0
            queue.append((nr, nc))
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c + 1), (r, c - 1)):
            if free(nr, nc) and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return dist


def test_paths_view_gives_the_shortest_ways_the_teacher_follows() -> None:
    """Differential: for every live squad and standing detected camp of the heuristic's own
    play, the paths columns equal a plain breadth-first search over the explored map, the
    view's columns before them are squad_recon_view's, and every move the replanning teacher
    orders towards the camp it sends a squad to is one the columns mark as shortening."""
    import gymnasium as gym

    from hiddengrid.core.flat import FlatEncoder
    from hiddengrid.envs.squad_recon.constants import ALIVE, ATTACK, DETECTED, HOLD
    from hiddengrid.train.squad_recon import (
        PER_SQUAD,
        PER_SQUAD_PATHS,
        SquadReconPaths,
        SquadReconView,
    )

    n = 24
    venv = gym.make_vec(SQUAD, num_envs=n, vectorization_mode="vector_entry_point")
    player = SearchAgent(venv.unwrapped, seed=0)
    teacher = replanning_heuristic_class()(venv.unwrapped, seed=0)
    encoder = FlatEncoder(venv.single_observation_space)
    obs, _ = venv.reset(seed=DEV_SEED)
    starts = np.ones(n, dtype=bool)
    view = SquadReconPaths(encoder.size)
    plain = SquadReconView(encoder.size)
    checked = followed = 0
    for _ in range(40):
        x = torch.as_tensor(encoder.encode(obs, n).astype(np.float32))
        out = view(x).numpy().reshape(n, 3, PER_SQUAD_PATHS)
        assert np.array_equal(out[:, :, :PER_SQUAD].reshape(n, -1), plain(x).numpy())
        ways = out[:, :, PER_SQUAD:].reshape(n, 3, 2, 6)
        orders = teacher.act(obs, starts)
        terrain, squads, camps = obs["terrain"], obs["squads"], obs["camps"]
        for i in range(n):
            for j in range(2):
                standing = camps[i, j, 3] == DETECTED
                dist = _bfs_from_camp(terrain[i], camps[i], j) if standing else {}
                for k in range(3):
                    r, c = int(squads[i, k, 0]), int(squads[i, k, 1])
                    here = dist.get((r, c)) if squads[i, k, ALIVE] else None
                    if here is None:
                        assert not ways[i, k, j].any()
                        continue
                    checked += 1
                    assert ways[i, k, j, 0] == 1
                    assert ways[i, k, j, 1] == pytest.approx(here / 15)
                    steps = ((r - 1, c), (r + 1, c), (r, c + 1), (r, c - 1))  # N, S, E, W
                    shorter = [here > 0 and dist.get(cell) == here - 1 for cell in steps]
                    assert list(ways[i, k, j, 2:] == 1) == shorter
                    order = orders[i, k]
                    all_found = (camps[i, :, 3] > 0).all()
                    if all_found and teacher.assign[i, k] == j and order not in (HOLD, ATTACK):
                        assert ways[i, k, j, 1 + order] == 1
                        followed += 1
        action = player.act(obs, starts)
        obs, _, terminated, truncated, _ = venv.step(action)
        starts = terminated | truncated
    venv.close()
    assert checked > 100 and followed > 20  # the ways and the teacher's moves were compared


def test_paths_recipe_trains_and_its_checkpoint_plays(tmp_path: Path) -> None:
    from hiddengrid.train.checkpoint import load_checkpoint
    from hiddengrid.train.squad_recon import PER_SQUAD_PATHS

    settings = {
        **recipe_settings("squad_recon_dagger_paths", SQUAD),
        "imitation_steps": 64,
        **TINY,
    }
    result = train(SQUAD, out_dir=tmp_path, progress=False, reference_episodes=0, **settings)
    model, config, _ = load_checkpoint(result.checkpoint)
    assert (config.features, config.encoder) == ("squad_recon_paths", "squad_recon_squads")
    assert model.view.extra == 3 * PER_SQUAD_PATHS
    assert model.encoder.per == PER_SQUAD_PATHS
    play_checkpoint(SQUAD, result.checkpoint, 4)
