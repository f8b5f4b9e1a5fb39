"""Rules every registered env keeps (docs/conventions.md), run over every id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from helpers import (
    all_actions,
    make,
    make_vec,
    obs_equal,
    random_action,
    random_actions,
    vector_trace,
)

from hiddengrid import ENV_IDS, definition_of
from hiddengrid.text.parse import TextActionError

IDS = list(ENV_IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(env_id: str) -> None:
    env = make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_gives_native_engine(env_id: str) -> None:
    venv = make_vec(env_id, 4)
    base = venv.unwrapped
    assert type(base).__name__.endswith("VectorEnv")
    assert base.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert base.num_envs == 4
    obs, _ = venv.reset(seed=3)
    assert base.observation_space.contains(obs)


@pytest.mark.parametrize("env_id", IDS)
def test_step_returns_python_types(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step(random_action(env, rng))
        assert type(reward) is float
        assert type(terminated) is bool and type(truncated) is bool
        assert truncated is False
        assert env.observation_space.contains(obs)
        if terminated:
            assert info["outcome"] in definition_of(env_id).outcomes[1:]
            obs, info = env.reset()


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_episode(env_id: str) -> None:
    runs = []
    for _ in range(2):
        env = make(env_id)
        obs, _ = env.reset(seed=42)
        rng = np.random.default_rng(7)
        seq = [obs]
        for _ in range(60):
            obs, r, term, _, _ = env.step(random_action(env, rng))
            seq.append((obs, r, term))
            if term:
                obs, _ = env.reset()
                seq.append(obs)
        runs.append((seq, env.unwrapped.scenario))
    assert json.dumps(runs[0][1]) == json.dumps(runs[1][1])
    assert repr(runs[0][0]) == repr(runs[1][0])


@pytest.mark.parametrize("env_id", IDS)
def test_vector_subenv_i_plays_single_env_seed_s_plus_i(env_id: str) -> None:
    """Step for step, including the episodes after autoreset (docs/conventions.md)."""
    n, seed, steps = 4, 1000, 150
    venv = make_vec(env_id, n)
    singles = [make(env_id) for _ in range(n)]
    vobs, _ = venv.reset(seed=seed)
    sobs = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    rng = np.random.default_rng(5)
    needs_reset = [False] * n
    for _ in range(steps):
        for i in range(n):
            assert obs_equal({k: v[i] for k, v in vobs.items()}, sobs[i])
        actions = random_actions(venv, rng)
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions)
        for i, env in enumerate(singles):
            if needs_reset[i]:
                sobs[i], _ = env.reset()
                assert vrew[i] == 0.0 and not vterm[i]
                needs_reset[i] = False
                continue
            sobs[i], r, term, trunc, info = env.step(actions[i])
            assert vrew[i] == r and vterm[i] == term and vtrunc[i] == trunc
            if term:
                assert vinfo["_outcome"][i] and vinfo["outcome"][i] == info["outcome"]
                needs_reset[i] = True


NOJIT_SCRIPT = """
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
np.seterr(all="ignore")
sys.path.insert(0, {tests!r})
from helpers import vector_trace
print(json.dumps(vector_trace({env_id!r}, 3, 11, 120)))
"""


@pytest.mark.parametrize("env_id", IDS)
def test_compiled_matches_pure_python(env_id: str) -> None:
    """The Numba kernels and the same code run as Python (NUMBA_DISABLE_JIT=1) agree."""
    tests_dir = os.path.dirname(os.path.dirname(__file__))
    script = NOJIT_SCRIPT.format(tests=tests_dir, env_id=env_id)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    expected = json.loads(json.dumps(vector_trace(env_id, 3, 11, 120)))
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected


@pytest.mark.parametrize("env_id", IDS)
def test_scenario_round_trip(env_id: str) -> None:
    env = make(env_id)
    obs, _ = env.reset(seed=9)
    scenario = json.loads(json.dumps(env.unwrapped.scenario))
    rng = np.random.default_rng(3)
    actions, first = [], []
    for _ in range(25):
        a = random_action(env, rng)
        actions.append(a)
        step = env.step(a)
        first.append(step[:4])
        if step[2]:
            break
    replay = make(env_id)
    obs2, _ = replay.reset(seed=12345, options={"scenario": scenario})
    assert obs_equal(obs, obs2)
    assert replay.unwrapped.scenario == scenario
    for a, expected in zip(actions, first, strict=True):
        got = replay.step(a)[:4]
        assert obs_equal(got[0], expected[0]) and got[1:] == expected[1:]


def _bad_actions(space: gym.Space) -> list[object]:
    common = [1.5, 1.0, "0", None, True, False, np.float32(1.0), [], object(), np.timedelta64(1)]
    if isinstance(space, gym.spaces.Discrete):
        return [*common, -1, int(space.n), np.int64(space.n), np.array([0]), [0], np.array(True)]
    k = len(space.nvec)
    return [
        *common,
        [0] * (k - 1),
        [0] * (k + 1),
        [-1] + [0] * (k - 1),
        [int(space.nvec[0])] + [0] * (k - 1),
        [0.0] * k,
        ["0"] * k,
        [True] + [0] * (k - 1),
        (np.True_, *([0] * (k - 1))),
        0,
    ]


@pytest.mark.parametrize("env_id", IDS)
def test_bad_actions_raise_and_change_nothing(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=4)
    base = env.unwrapped
    for bad in _bad_actions(base.action_space):
        before = base.batch.snapshot()
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before), bad


@pytest.mark.parametrize("env_id", IDS)
def test_vector_bad_actions_raise_and_change_nothing(env_id: str) -> None:
    venv = make_vec(env_id, 3)
    venv.reset(seed=4)
    base = venv.unwrapped
    space = base.single_action_space
    good = random_actions(venv, np.random.default_rng(0))
    bads = [good[:2], good.astype(np.float64), good.astype(str), None, "x"]
    with_bool = good.tolist()
    with_bool[0] = True if np.ndim(with_bool[0]) == 0 else [True, *with_bool[0][1:]]
    bads.append(with_bool)
    too_big = good.copy()
    too_big[1] = space.n if isinstance(space, gym.spaces.Discrete) else space.nvec
    bads.append(too_big)
    for bad in bads:
        before = base.batch.snapshot()
        with pytest.raises(ValueError):
            venv.step(bad)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before)


@pytest.mark.parametrize("env_id", IDS)
def test_bad_reset_options_raise_and_change_nothing(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=5)
    base = env.unwrapped
    scenario = base.scenario
    bad_options = [
        {"nonsense": 1},
        {"scenario": {**scenario, "extra_key": 1}},
        {"scenario": {k: v for k, v in list(scenario.items())[1:]}},
        {"scenario": "not a dict"},
        {"scenario": {k: "garbage" for k in scenario}},
    ]
    for options in bad_options:
        before = base.batch.snapshot()
        with pytest.raises(ValueError):
            env.reset(seed=99, options=options)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before), options
    obs, _ = env.reset(seed=6, options={"scenario": None})  # None: draw a new scenario
    assert env.observation_space.contains(obs)
    for bad_seed in (-1, 1.5, "3", np.timedelta64(3), np.True_):
        with pytest.raises(ValueError):
            env.reset(seed=bad_seed)


@pytest.mark.parametrize("env_id", IDS)
def test_step_after_end_raises(env_id: str) -> None:
    env = make(env_id)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(random_action(env, np.random.default_rng(0)))
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(1000):
        _, _, term, _, _ = env.step(random_action(env, rng))
        if term:
            break
    assert term
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(random_action(env, rng))


@pytest.mark.parametrize("env_id", IDS)
def test_no_global_random_state(env_id: str) -> None:
    state = np.random.get_state()[1].copy()
    env = make(env_id)
    env.reset(seed=0)
    env.reset()
    venv = make_vec(env_id, 5)
    venv.reset(seed=0)
    assert np.array_equal(np.random.get_state()[1], state)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes(env_id: str, mode: str) -> None:
    env = make(env_id, render_mode=mode)
    env.reset(seed=0)
    env.step(random_action(env, np.random.default_rng(0)))
    frame = env.render()
    if mode == "ansi":
        assert isinstance(frame, str) and "legend" in frame.lower()
    else:
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert frame.shape[0] >= 100 and frame.shape[1] >= 100
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 3


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_render_mode_and_kwargs_rejected(env_id: str) -> None:
    with pytest.raises(ValueError):
        make(env_id, render_mode="nope")
    with pytest.raises((TypeError, ValueError)):
        make(env_id, no_such_argument=1)


@pytest.mark.parametrize("env_id", IDS)
def test_text_actions_round_trip(env_id: str) -> None:
    definition = definition_of(env_id)
    env = make(env_id)
    text = definition.text
    config = env.unwrapped.config
    for action in all_actions(env.action_space):
        s = text.format_action(action, config)
        assert np.array_equal(text.parse_action(s, config), action), s
        assert np.array_equal(text.parse_action(f"  [{s.upper()}]. ", config), action)


JUNK = ["", "   ", "hello", "move", "north south", "99999", "-1", "1.5", "move north mark", "🙂"]


@pytest.mark.parametrize("env_id", IDS)
def test_text_junk_is_rejected_cleanly(env_id: str) -> None:
    text = definition_of(env_id).text
    config = make(env_id).unwrapped.config
    for junk in [*JUNK, None, 3]:
        with pytest.raises(TextActionError):
            text.parse_action(junk, config)


@pytest.mark.parametrize("env_id", IDS)
def test_evaluation_agents_run(env_id: str) -> None:
    from hiddengrid.evaluate import run_episodes

    for name in ("random", "heuristic", "oracle"):
        assert name in definition_of(env_id).agents
        result = run_episodes(env_id, name, 64, seed=0, batch_size=32)
        assert result.episodes == 64 and sum(result.outcomes.values()) == 64
        assert "None" not in result.outcomes


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_scores_do_not_depend_on_the_batch_layout(env_id: str) -> None:
    """Episode k is seed S+k whatever the batch size, and so is the oracle's play of it."""
    from hiddengrid.evaluate import run_episodes

    whole = run_episodes(env_id, "oracle", 24, seed=3, batch_size=24)
    pieces = run_episodes(env_id, "oracle", 24, seed=3, batch_size=7)
    assert whole.returns == pieces.returns and whole.outcomes == pieces.outcomes
