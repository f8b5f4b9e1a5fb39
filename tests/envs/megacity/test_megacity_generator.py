"""The hidden geology: invariants over thousands of seeds, and scenario checks."""

from __future__ import annotations

import json
from itertools import pairwise

import gymnasium as gym
import numpy as np
import pytest
from helpers import make_vec
from mc_helpers import ENV_ID, flat_scenario, make_env

from hiddengrid.envs.megacity.constants import (
    CHANNEL_SPEED,
    FAULT_HALO,
    FAULT_LOAD,
    FAULT_MAX_LEN,
    FAULT_MIN_CELLS,
    OVERBURDEN_STEP,
    ROCK_GRAIN,
    SEAM_LOAD_STEP,
    STRESS_BASE,
    SURVEY_ERROR,
)
from hiddengrid.envs.megacity.generator import validate_scenario


@pytest.fixture(scope="module")
def geology() -> dict[str, np.ndarray]:
    venv = make_vec(ENV_ID, 5000)
    venv.reset(seed=123)
    b = venv.unwrapped.batch
    return {
        k: b[k].astype(int)
        for k in ("seams", "faults", "stress0", "airflow0", "survey", "view_stress")
    }


def test_seams_are_one_or_two_full_lines_pulling_along_themselves(geology) -> None:
    sizes = set()
    for seams in geology["seams"]:
        rows = [r for r in range(5) if (seams[r] != 0).all()]
        cols = [c for c in range(5) if (seams[:, c] != 0).all()]
        assert 1 <= len(rows) + len(cols) <= 2
        covered = np.zeros((5, 5), dtype=bool)
        for r in rows:
            covered[r] = True
            # a row pulls east (2) or west (4), the same way along it (a crossing cell keeps
            # the first seam's pull)
            assert len({v for v in seams[r] if v in (2, 4)}) == 1
        for c in cols:
            covered[:, c] = True
            assert len({v for v in seams[:, c] if v in (1, 3)}) == 1
        assert np.array_equal(seams != 0, covered)
        sizes.add(int((seams != 0).sum()))
    assert sizes == {5, 9, 10}  # one seam; two crossing; two parallel


def crooked_along(cells: np.ndarray, dr: int, dc: int) -> bool:
    """Whether the cells lie on one crack drawn along diagonal (dr, dc): ordered along it, each
    next cell is 1 or 2 steps on (a step goes with the diagonal or along one of its axes), and
    one cell cut out by a seam leaves a gap of at most two steps."""
    order = sorted(cells.tolist(), key=lambda p: (dr * p[0] + dc * p[1], dr * p[0]))
    steps = 0
    for (r0, c0), (r1, c1) in pairwise(order):
        a, b = dr * (r1 - r0), dc * (c1 - c0)
        if a < 0 or b < 0 or not 1 <= max(a, b) <= 2:
            return False
        steps += max(a, b)
    return steps <= FAULT_MAX_LEN - 1


def test_fault_is_a_short_crooked_line_off_the_seams(geology) -> None:
    shapes = set()
    for seams, faults in zip(geology["seams"], geology["faults"], strict=True):
        cells = np.argwhere(faults == 1)
        assert FAULT_MIN_CELLS <= len(cells) <= FAULT_MAX_LEN
        assert not ((faults == 1) & (seams != 0)).any()
        assert np.ptp(cells, axis=0).max() <= FAULT_MAX_LEN - 1
        assert any(crooked_along(cells, dr, dc) for dr in (1, -1) for dc in (1, -1))
        shapes.add(faults.tobytes())
    # crooked, not straight: straight diagonals alone give fewer than 60 cell sets
    assert len(shapes) > 300


def test_crooked_along_refuses_what_the_generator_cannot_draw() -> None:
    assert crooked_along(np.array([[0, 0], [1, 1], [1, 2]]), 1, 1)
    assert not crooked_along(np.array([[0, 0], [1, 1], [0, 2]]), 1, 1)  # turns back
    assert not crooked_along(np.array([[0, 0], [3, 3], [4, 4]]), 1, 1)  # a gap of 3 steps
    assert not crooked_along(np.array([[0, 0], [0, 2], [0, 4]]), 1, 1)  # 5 cells long
    corner = np.array([[0, 0], [0, 2], [2, 0]])
    assert not any(crooked_along(corner, dr, dc) for dr in (1, -1) for dc in (1, -1))


def test_stress_has_geological_structure(geology) -> None:
    stress, faults, seams = geology["stress0"], geology["faults"], geology["seams"]
    assert stress.min() >= STRESS_BASE and stress.max() <= 100
    assert (stress[faults == 1] >= STRESS_BASE + FAULT_LOAD).all()
    # seam load accumulates downstream: the last seam cell beats the first by 4 steps
    # of seam load, up to the overburden and the noise
    n_checked = 0
    for k in range(len(stress)):
        for r in range(5):
            row = seams[k, r]
            if (row == 2).all() and not faults[k, r].any():
                diff = stress[k, r, 4] - stress[k, r, 0]
                assert diff >= 4 * SEAM_LOAD_STEP - 4 * OVERBURDEN_STEP - ROCK_GRAIN - FAULT_HALO
                n_checked += 1
    assert n_checked > 100
    # structure, not noise: neighbouring cells are far more alike than random pairs
    flat = stress.reshape(len(stress), -1)
    near = np.abs(stress[:, :, 1:] - stress[:, :, :-1]).mean()
    far = np.abs(flat - np.roll(flat, 1, axis=0)).mean()
    assert near < far


def test_the_survey_misses_the_fault_and_errs_by_a_bounded_fixed_amount(geology) -> None:
    survey, stress, faults = geology["survey"], geology["stress0"], geology["faults"]
    assert survey.min() == -SURVEY_ERROR and survey.max() == SURVEY_ERROR
    shown = geology["view_stress"]
    hidden = stress + survey - shown
    assert (hidden[faults == 1] == FAULT_LOAD).all()
    assert set(np.unique(hidden[faults == 0])) == {0, FAULT_HALO}
    # No exact marker: fault cells are not told apart by their survey or their airflow.
    speed = np.abs(geology["airflow0"]).max(axis=-1)
    assert set(np.unique(speed[faults == 1])) == {1, CHANNEL_SPEED}
    assert abs(shown[faults == 1].mean() - shown[faults == 0].mean()) < 6


def test_airflow_is_one_prevailing_current_with_a_channel(geology) -> None:
    for flow in geology["airflow0"]:
        speed = np.abs(flow).max(axis=2)
        assert set(np.unique(speed)) <= {1, CHANNEL_SPEED}
        directions = {tuple(np.sign(v)) for v in flow.reshape(-1, 2) if v.any()}
        assert len(directions) == 1
        ((dr, dc),) = directions
        assert abs(dr) + abs(dc) == 1
        fast = np.argwhere(speed == CHANNEL_SPEED)
        axis = 0 if dc != 0 else 1  # east/west currents run in a row
        assert len({int(x) for x in fast[:, axis]}) == 1


def test_every_seed_gives_a_winnable_layout_for_the_oracle() -> None:
    from hiddengrid.evaluate import run_episodes

    r = run_episodes(ENV_ID, "oracle", 128, seed=77, batch_size=128)
    assert r.success_rate >= 0.85


def test_scenario_round_trip_and_json(geology) -> None:
    env = gym.make(ENV_ID)
    env.reset(seed=5)
    scenario = env.unwrapped.scenario
    assert json.loads(json.dumps(scenario)) == scenario
    arrays = validate_scenario(scenario, {})
    assert set(arrays) == {"seams", "faults", "stress0", "airflow0", "survey"}
    other = make_env(scenario)
    assert other.unwrapped.scenario == scenario


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seams", [[0] * 5] * 4, "seams"),
        ("seams", [[7] * 5] * 5, "seams"),
        ("faults", [[2] * 5] * 5, "faults"),
        ("stress", [[101] * 5] * 5, "stress"),
        ("stress", [[1.5] * 5] * 5, "stress"),
        ("airflow", [[[3, 0]] * 5] * 5, "airflow"),
        ("airflow", [[0] * 5] * 5, "airflow"),
        ("survey", [[9] * 5] * 5, "survey"),
    ],
)
def test_bad_scenarios_name_the_field(field, value, message) -> None:
    scenario = flat_scenario()
    scenario[field] = value
    with pytest.raises(ValueError, match=message):
        validate_scenario(scenario, {})


def test_a_cell_cannot_be_seam_and_fault() -> None:
    scenario = flat_scenario()
    scenario["seams"][1][1] = 2
    scenario["faults"][1][1] = 1
    with pytest.raises(ValueError, match="faults"):
        validate_scenario(scenario, {})
    env = make_env()
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(ValueError):
        env.reset(options={"scenario": scenario})
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
