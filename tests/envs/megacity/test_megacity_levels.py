"""Levels 0-3: each level's generator draws, the check of the argument, and that a level
changes nothing but what a reset draws (same physics, spaces and rewards)."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from helpers import make_vec
from mc_helpers import ENV_ID, flat_scenario

from hiddengrid.envs.megacity.agents import AGENTS
from hiddengrid.envs.megacity.constants import (
    DEFAULT_LEVEL,
    DRAW_PARAMS,
    LEVEL_DRAWS,
    LEVELS,
    MAX_SEAMS,
    OVERBURDEN_STEP,
    ROCK_GRAIN,
    SEAM_LOAD_STEP,
    STRESS_BASE,
    SURVEY_ERROR,
)

# The generator's parameters per level, pinned: changing one changes what every seed draws at
# that level (level 3 is the full difficulty, the constants of the docs page).
PINNED_DRAWS = {
    0: {"stress_base": 2, "overburden_step": 2, "rock_grain": 4, "seam_load_step": 2,
        "survey_error": 2, "max_seams": 1},
    1: {"stress_base": 6, "overburden_step": 4, "rock_grain": 6, "seam_load_step": 4,
        "survey_error": 4, "max_seams": 2},
    2: {"stress_base": 9, "overburden_step": 5, "rock_grain": 8, "seam_load_step": 5,
        "survey_error": 6, "max_seams": 2},
    3: {"stress_base": 12, "overburden_step": 5, "rock_grain": 8, "seam_load_step": 5,
        "survey_error": 8, "max_seams": 2},
}  # fmt: skip


def test_the_levels_draw_parameters_are_pinned() -> None:
    assert LEVELS == (0, 1, 2, 3) and DEFAULT_LEVEL == 3
    for level, params in PINNED_DRAWS.items():
        assert dict(zip(DRAW_PARAMS, LEVEL_DRAWS[level].tolist(), strict=True)) == params
    level3 = [STRESS_BASE, OVERBURDEN_STEP, ROCK_GRAIN, SEAM_LOAD_STEP, SURVEY_ERROR, MAX_SEAMS]
    assert LEVEL_DRAWS[3].tolist() == level3


def scenarios(level: int | None, seeds: range) -> list[dict]:
    env = gym.make(ENV_ID) if level is None else gym.make(ENV_ID, level=level)
    out = []
    for seed in seeds:
        env.reset(seed=seed)
        out.append(env.unwrapped.scenario)
    return out


def test_the_default_is_level_3() -> None:
    assert scenarios(None, range(20)) == scenarios(3, range(20))
    assert gym.make(ENV_ID).unwrapped.config == {"level": 3}


@pytest.fixture(scope="module", params=LEVELS)
def drawn(request) -> tuple[int, dict[str, np.ndarray]]:
    venv = make_vec(ENV_ID, 3000, level=request.param)
    venv.reset(seed=4242)
    b = venv.unwrapped.batch
    return request.param, {k: b[k].astype(int) for k in ("seams", "faults", "stress0", "survey")}


def test_each_level_draws_its_own_stress_survey_and_seams(drawn) -> None:
    """The rock off the seams and away from the fault is ``base + step * depth + grain``
    (depth 0..4 towards the heavy edge); the survey errs by up to the level's bound; the
    number of seams is at most the level's; both ends of every range are drawn."""
    level, g = drawn
    p = dict(zip(DRAW_PARAMS, LEVEL_DRAWS[level].tolist(), strict=True))
    plain = []
    for seams, faults, stress in zip(g["seams"], g["faults"], g["stress0"], strict=True):
        near = faults.copy()
        near[1:] |= faults[:-1]
        near[:-1] |= faults[1:]
        near[:, 1:] |= faults[:, :-1]
        near[:, :-1] |= faults[:, 1:]
        plain.extend(stress[(seams == 0) & (near == 0)].tolist())
        lines = sum((seams[r] != 0).all() for r in range(5))
        lines += sum((seams[:, c] != 0).all() for c in range(5))
        assert 1 <= lines <= p["max_seams"]
    low = p["stress_base"]
    high = p["stress_base"] + 4 * p["overburden_step"] + p["rock_grain"] - 1
    assert min(plain) == low and max(plain) == high
    e = p["survey_error"]
    assert g["survey"].min() == -e and g["survey"].max() == e
    # the fault is drawn alike at every level: 3 or 4 cells, off the seams
    cells = g["faults"].sum(axis=(1, 2))
    assert set(cells.tolist()) == {3, 4}
    assert not (g["faults"] & (g["seams"] != 0)).any()


def test_lower_levels_draw_gentler_rock() -> None:
    means = []
    for level in LEVELS:
        venv = make_vec(ENV_ID, 500, level=level)
        venv.reset(seed=99)
        means.append(venv.unwrapped.batch["stress0"].mean())
    assert means == sorted(means)


@pytest.mark.parametrize("bad", [4, -1, 7, "3", 1.0, True, None, np.float64(2)])
def test_an_invalid_level_is_refused_naming_the_valid_ones(bad) -> None:
    with pytest.raises(ValueError, match=r"level must be .*0, 1, 2, 3") as err:
        gym.make(ENV_ID, level=bad)
    assert repr(bad) in str(err.value)
    with pytest.raises(ValueError, match=r"level must be .*0, 1, 2, 3"):
        make_vec(ENV_ID, 2, level=bad)


def test_numpy_integer_levels_are_accepted() -> None:
    env = gym.make(ENV_ID, level=np.int64(0))
    assert env.unwrapped.config == {"level": 0}


def test_an_unknown_keyword_is_refused() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'difficulty'"):
        gym.make(ENV_ID, difficulty=1)


def test_the_vector_env_draws_what_the_single_env_draws_at_each_level() -> None:
    for level in LEVELS:
        venv = make_vec(ENV_ID, 4, level=level)
        venv.reset(seed=10)
        assert [venv.unwrapped.get_scenario(i) for i in range(4)] == scenarios(level, range(10, 14))


def test_spaces_are_the_same_at_every_level() -> None:
    envs = [gym.make(ENV_ID, level=level) for level in LEVELS]
    for env in envs[1:]:
        assert env.observation_space == envs[0].observation_space
        assert env.action_space == envs[0].action_space


def play(level: int, scenario: dict, seed: int) -> list:
    """The expert on a replayed scenario at ``level``: every action, observation, reward and
    reward term."""
    venv = make_vec(ENV_ID, 1, level=level)
    agent = AGENTS["heuristic"](venv.unwrapped)
    obs, _ = venv.reset(seed=seed, options={"scenario": [scenario]})
    out = []
    start = np.ones(1, dtype=bool)
    while True:
        action = agent.act(obs, start)
        start[:] = False
        obs, reward, term, _, info = venv.step(action)
        terms = {k: v.tolist() for k, v in info["reward_terms"].items()}
        out.append(
            (action.tolist(), {k: v.tolist() for k, v in obs.items()}, reward.tolist(), terms)
        )
        if term[0]:
            return out


@pytest.mark.parametrize("seed", [1_000_003, 1_000_004])
def test_a_scenario_plays_the_same_at_every_level(seed: int) -> None:
    """The physics is the same at every level: a level-3 scenario replayed at level 0 gives the
    same episode, step for step, and so does a level-0 scenario at level 3."""
    for source in (3, 0):
        scenario = scenarios(source, range(seed, seed + 1))[0]
        runs = [play(level, scenario, seed) for level in LEVELS]
        assert all(run == runs[0] for run in runs[1:])


def test_a_custom_scenario_is_allowed_at_any_level() -> None:
    for level in LEVELS:
        env = gym.make(ENV_ID, level=level)
        env.reset(options={"scenario": flat_scenario(7)})
        assert env.unwrapped.scenario == flat_scenario(7)


def test_copies_keep_the_level() -> None:
    env = gym.make(ENV_ID, level=0)
    env.reset(seed=5)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        twin.reset(seed=6)
        env.reset(seed=6)
        assert twin.unwrapped.scenario == env.unwrapped.scenario
    assert scenarios(0, range(6, 7))[0] != scenarios(3, range(6, 7))[0]
