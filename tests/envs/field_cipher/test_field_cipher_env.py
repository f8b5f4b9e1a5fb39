"""FieldCipher through Gymnasium: levels, single vs vector, compiled vs pure Python, bad input."""

import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from fc_helpers import ENV_ID, grid_for, hints_for, scenario

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher import FieldCipherEnv, FieldCipherVectorEnv


def make_vec(n, **kwargs):
    return gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def test_registered_classes():
    assert isinstance(gym.make(ENV_ID).unwrapped, FieldCipherEnv)
    assert isinstance(make_vec(2).unwrapped, FieldCipherVectorEnv)
    assert gym.spec(ENV_ID).max_episode_steps is None


@pytest.mark.parametrize("level", [0, 1, 2, 3, np.int64(2)])
def test_level_argument(level):
    env = gym.make(ENV_ID, level=level)
    assert env.unwrapped.config == {"level": int(level)}
    env.reset(seed=0)
    assert env.unwrapped.batch["level"][0] == level
    venv = make_vec(3, level=level)
    assert (venv.unwrapped.batch["level"] == level).all()


@pytest.mark.parametrize(
    ("level", "error"),
    [
        (4, ValueError),
        (-1, ValueError),
        (1.0, TypeError),
        ("1", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_bad_level_is_refused(level, error):
    with pytest.raises(error, match="level"):
        gym.make(ENV_ID, level=level)
    with pytest.raises(error, match="level"):
        make_vec(2, level=level)


def test_unknown_keyword_is_refused():
    with pytest.raises(TypeError, match="colour"):
        gym.make(ENV_ID, colour=1)


def _obs_equal(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("level", [0, 3])
def test_vector_subenv_i_plays_the_single_env_with_seed_s_plus_i(level):
    """Step for step, including the episodes after the next-step autoreset."""
    n, seed, steps = 5, 77, 150
    rng = np.random.default_rng(level)
    # Mostly writes and cursor moves, finalize now and then: several episodes per sub-env.
    actions = rng.choice(19, size=(steps, n), p=[0.04] * 16 + [0.1, 0.1, 0.16])
    venv = make_vec(n, level=level)
    singles = [gym.make(ENV_ID, level=level) for _ in range(n)]
    obs, _ = venv.reset(seed=seed)
    for i, env in enumerate(singles):
        o, _ = env.reset(seed=seed + i)
        assert _obs_equal(o, {k: v[i] for k, v in obs.items()})
    ended = np.zeros(n, dtype=bool)
    episodes = 0
    for t in range(steps):
        obs, reward, term, trunc, info = venv.step(actions[t])
        for i, env in enumerate(singles):
            vo = {k: v[i] for k, v in obs.items()}
            if ended[i]:  # the vector ignored the action and reset; the single env resets
                o, _ = env.reset()
                assert _obs_equal(o, vo) and reward[i] == 0.0 and not term[i]
                continue
            o, r, te, tr, inf = env.step(int(actions[t, i]))
            assert _obs_equal(o, vo)
            assert (r, te, tr) == (reward[i], term[i], trunc[i])
            if te:
                episodes += 1
                assert inf["outcome"] == info["outcome"][i]
                assert inf["correct"] == info["correct"][i]
        ended = term | trunc
    assert episodes >= 3 * n


PURE_SCRIPT = """
import json, sys
import numpy as np
import gymnasium as gym
import hiddengrid
level = int(sys.argv[1])
env = gym.make_vec("hiddengrid/FieldCipher-v0", num_envs=6, vectorization_mode="vector_entry_point",
                   level=level)
rng = np.random.default_rng(3)
obs, _ = env.reset(seed=11)
out = [obs["grid"].tolist(), obs["hints"].tolist()]
for t in range(90):
    a = rng.choice(19, size=6, p=[0.04] * 16 + [0.1, 0.1, 0.16])
    obs, r, term, trunc, info = env.step(a)
    out.append([{k: v.tolist() for k, v in obs.items()}, r.tolist(), term.tolist()])
print(json.dumps(out))
"""


def _run(level, disable_jit):
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    res = subprocess.run(
        [sys.executable, "-c", PURE_SCRIPT, str(level)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(res.stdout)


@pytest.mark.parametrize("level", [1, 3])
def test_compiled_matches_numba_disable_jit(level):
    assert _run(level, False) == _run(level, True)


# --- bad input --------------------------------------------------------------------------------


def _state(env):
    return env.unwrapped.batch.snapshot()


def _same(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "action", [19, -1, 1.5, 1.0, "3", "write 3", None, True, [3], np.array([3]), np.float32(2)]
)
def test_bad_action_raises_and_changes_nothing(action):
    env = gym.make(ENV_ID, level=2)
    env.reset(seed=3)
    env.step(5)
    before = _state(env)
    with pytest.raises(ValueError, match="invalid action"):
        env.step(action)
    assert _same(before, _state(env))
    obs, *_ = env.step(16)  # still running where it was
    assert obs["slots"].tolist() == [5, 16, 16, 16] and obs["step"] == 2


def test_numpy_and_0d_integer_actions_are_accepted():
    env = gym.make(ENV_ID)
    env.reset(seed=3)
    for a in (np.int8(3), np.int64(4), np.array(5), np.uint8(16)):
        env.step(a)
    assert env.unwrapped.batch["slots"][0].tolist() == [5, 16, 16, 16]


@pytest.mark.parametrize(
    "actions",
    [
        np.full(3, 19),
        np.array([0, -1, 0]),
        np.zeros(3) + 0.5,
        np.zeros(2, dtype=int),
        ["1", "2", "3"],
    ],
)
def test_vector_bad_actions_raise_and_change_nothing(actions):
    venv = make_vec(3)
    venv.reset(seed=0)
    venv.step(np.array([1, 2, 3]))
    before = venv.unwrapped.batch.snapshot()
    with pytest.raises(ValueError, match="invalid action"):
        venv.step(actions)
    assert _same(before, venv.unwrapped.batch.snapshot())


def _bad_scenarios():
    good = scenario("3F0A")
    wrong_grid = dict(good, grid=grid_for("3F0B"))
    yield wrong_grid, "does not spell"
    yield dict(good, message="3f0a"), "upper-case hex"
    yield dict(good, message="3F0"), "upper-case hex"
    yield dict(good, message="3F0G"), "upper-case hex"
    yield dict(good, message=0x3F0A), "upper-case hex"
    yield dict(good, grid=[row[:8] for row in good["grid"]]), "grid"
    yield dict(good, grid=[[3] * 9] * 9), "grid"
    yield dict(good, grid=[[0.0] * 9] * 9), "grid"
    yield dict(good, hints=hints_for((0, 1, 2, 2))), "distinct"
    lying = hints_for((0, 1, 2, 3))
    lying[0][4] = (lying[0][4] + 1) % 4
    yield dict(good, hints=lying), "codebook"
    yield dict(good, hints=[[0, 0, 0, 3, 0], *hints_for((1, 2, 3))]), "hints"
    yield dict(good, hints=hints_for((0, 1, 2))), "hints"
    yield {k: v for k, v in good.items() if k != "hints"}, "missing"
    yield dict(good, level=2), "unknown"


@pytest.mark.parametrize(("bad", "match"), list(_bad_scenarios()))
def test_bad_scenario_raises_and_the_episode_goes_on(bad, match):
    env = gym.make(ENV_ID)
    env.reset(options={"scenario": scenario("C0DE")})
    env.step(12)
    before = _state(env)
    with pytest.raises(ValueError, match=match):
        env.reset(options={"scenario": bad})
    assert _same(before, _state(env))
    _, reward, term, _, info = env.step(18)
    assert term and info["correct"] == 1 and reward == 0.25


def test_scenario_round_trip_at_every_level():
    for level in range(4):
        env = gym.make(ENV_ID, level=level)
        obs, _ = env.reset(seed=level)
        sc = env.unwrapped.scenario
        assert json.loads(json.dumps(sc)) == sc
        assert set(sc) == {"grid", "message", "hints"}
        other = gym.make(ENV_ID)  # a replayed scenario does not depend on the env's level
        obs2, _ = other.reset(options={"scenario": sc})
        assert all(np.array_equal(obs[k], obs2[k]) for k in obs)
        assert other.unwrapped.scenario == sc


def test_vector_info_reports_outcome_and_correct():
    venv = make_vec(3)
    venv.reset(options={"scenario": [scenario("3F0A"), scenario("0000"), scenario("3F0A")]})
    _, r, term, _, info = venv.step(np.array([3, 0, 5]))
    assert "correct" not in info and not term.any()
    _, r, term, _, info = venv.step(np.array([18, 18, 16]))
    assert term.tolist() == [True, True, False]
    assert r.tolist() == [0.25, 0.25, 0.0]
    assert info["correct"].tolist()[:2] == [1, 1] and info["_correct"].tolist() == [1, 1, 0]
    assert list(info["outcome"][:2]) == ["submitted", "submitted"]
