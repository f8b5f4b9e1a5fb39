"""Generator invariants over thousands of seeds, scenario replay and scenario validation."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from it_helpers import BASE_ID, BOMB, EMPTY, FLOWER, IDS, SCOUT_ID, icons

from hiddengrid.envs.inverted_treasure.constants import WAIT

SEEDS = 5000


def vector(env_id: str, n: int) -> gym.vector.VectorEnv:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")


def check_fresh_episodes(batch, which: np.ndarray) -> None:
    grids = batch["icons"][which]
    assert (np.count_nonzero(grids == BOMB, axis=(1, 2)) == 1).all()
    assert (np.count_nonzero(grids == FLOWER, axis=(1, 2)) == 10).all()
    assert (np.count_nonzero(grids == EMPTY, axis=(1, 2)) == 53).all()
    assert (grids[:, 7, 0] == EMPTY).all()  # the start tile (x, y) = (0, 0)
    board = batch["board"][which]
    assert not board[:, 2:10, 2:10].any()  # nothing revealed, the start tile neither
    ring = np.ones((12, 12), dtype=bool)
    ring[2:10, 2:10] = False
    assert (board[:, ring] == 4).all()  # the padding reads "outside"
    assert (batch["agent"][which] == [7, 0]).all()
    assert (batch["position"][which] == [0, 0]).all()
    assert (batch["steps_left"][which] == 30).all()
    assert not np.isin(batch["window"][which], (1, 2, 3)).any()


@pytest.mark.parametrize("env_id", IDS)
def test_generator_invariants_over_thousands_of_seeds(env_id):
    venv = vector(env_id, SEEDS)
    venv.reset(seed=123)
    check_fresh_episodes(venv.unwrapped.batch, np.ones(SEEDS, dtype=bool))


def test_autoreset_episodes_keep_the_invariants():
    venv = vector(BASE_ID, 512)
    venv.reset(seed=7)
    rng = np.random.default_rng(0)
    batch = venv.unwrapped.batch
    fresh_total = 0
    ended = np.zeros(512, dtype=bool)
    for _ in range(80):
        _, _, terminated, _, _ = venv.step(rng.integers(0, 6, size=512))
        if ended.any():  # these sub-envs were reset by this step
            check_fresh_episodes(batch, ended)
            fresh_total += int(ended.sum())
        ended = terminated
    assert fresh_total > 500


def test_placement_is_uniform_over_the_63_other_tiles():
    n = 40_000
    venv = vector(BASE_ID, n)
    venv.reset(seed=2024)
    grids = venv.unwrapped.batch["icons"]
    bomb = np.count_nonzero(grids == BOMB, axis=0).ravel()
    flower = np.count_nonzero(grids == FLOWER, axis=0).ravel()
    start = 7 * 8 + 0
    assert bomb[start] == 0 and flower[start] == 0
    others = np.delete(np.arange(64), start)
    # Chi-square against uniform with 62 degrees of freedom: p < 1e-6 above ~135.
    for counts, total in ((bomb[others], n), (flower[others], 10 * n)):
        expected = total / 63
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < 135, chi2
    # The Bomb's tile is independent of where the Flowers are: the Bomb sits next to the
    # start tile as often as uniform placement says (2 of 63 tiles).
    near = (grids[:, 6, 0] == BOMB) | (grids[:, 7, 1] == BOMB)
    assert abs(near.mean() - 2 / 63) < 0.004


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_icons_and_vector_matches_single(env_id):
    venv = vector(env_id, 6)
    venv.reset(seed=500)
    for i in range(6):
        env = gym.make(env_id)
        env.reset(seed=500 + i)
        assert env.unwrapped.scenario == venv.unwrapped.get_scenario(i)
    a, b = gym.make(env_id), gym.make(env_id)
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.unwrapped.scenario == b.unwrapped.scenario
    b.reset(seed=4)
    assert a.unwrapped.scenario != b.unwrapped.scenario


def test_both_variants_draw_the_same_icons_for_the_same_seed():
    a, b = gym.make(BASE_ID), gym.make(SCOUT_ID)
    for seed in range(20):
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.unwrapped.scenario == b.unwrapped.scenario


@pytest.mark.parametrize("env_id", IDS)
def test_scenario_round_trip(env_id):
    env = gym.make(env_id)
    env.reset(seed=77)
    scenario = env.unwrapped.scenario
    assert list(scenario) == ["icons"]
    assert json.loads(json.dumps(scenario)) == scenario
    replay = gym.make(env_id)
    replay.reset(options={"scenario": scenario})
    assert replay.unwrapped.scenario == scenario
    assert np.array_equal(replay.unwrapped.batch["icons"], env.unwrapped.batch["icons"])
    # A replayed level is played from the start: after the episode, reset() draws anew.
    for _ in range(30):
        _, _, terminated, _, _ = replay.step(WAIT)
    assert terminated
    replay.reset()
    assert replay.unwrapped.scenario != scenario


def test_vector_env_replays_one_scenario_everywhere_or_one_per_sub_env():
    venv = vector(BASE_ID, 3)
    level = {"icons": icons(bomb=(1, 0))}
    venv.reset(seed=0, options={"scenario": level})
    assert all(venv.unwrapped.get_scenario(i) == level for i in range(3))
    levels = [{"icons": icons(bomb=(k + 1, 0))} for k in range(3)]
    venv.reset(options={"scenario": levels})
    assert [venv.unwrapped.get_scenario(i) for i in range(3)] == levels
    _, reward, terminated, _, info = venv.step(np.array([3, 3, 3]))
    assert reward.tolist() == [1.0, 0.0, 0.0] and terminated.tolist() == [True, False, False]
    assert info["outcome"][0] == "treasure"


def _with(grid, x, y, value):
    grid = [row[:] for row in grid]
    grid[7 - y][x] = value
    return grid


BAD_SCENARIOS = [
    ({"icons": icons(), "extra": 1}, "unknown"),
    ({}, "missing"),
    ({"icons": icons()[:7]}, "shape"),
    ({"icons": [row[:7] for row in icons()]}, "shape"),
    ({"icons": "garbage"}, "icons"),
    ({"icons": None}, "icons"),
    ({"icons": [[1.0] * 8] * 8}, "integers"),
    ({"icons": [[True] * 8] * 8}, "integers"),
    ({"icons": _with(icons(), 3, 3, 0)}, "only 1"),
    ({"icons": _with(icons(), 3, 3, 4)}, "only 1"),
    ({"icons": _with(icons(), 7, 7, EMPTY)}, "exactly one Bomb"),
    ({"icons": _with(icons(), 3, 3, BOMB)}, "exactly one Bomb"),
    ({"icons": _with(icons(), 0, 0, FLOWER)}, "start tile"),
    ({"icons": _with(_with(icons(), 7, 7, EMPTY), 0, 0, BOMB)}, "start tile"),
]


@pytest.mark.parametrize(("scenario", "message"), BAD_SCENARIOS)
def test_bad_scenarios_raise_naming_the_field_and_change_nothing(scenario, message):
    env = gym.make(BASE_ID)
    env.reset(seed=1)
    env.step(3)
    base = env.unwrapped
    before = base.batch.snapshot()
    with pytest.raises(ValueError, match=message) as excinfo:
        env.reset(seed=5, options={"scenario": scenario})
    assert "icons" in str(excinfo.value) or "scenario" in str(excinfo.value)
    after = base.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
    assert base.episode_running
    env.step(WAIT)  # the episode that was running goes on
