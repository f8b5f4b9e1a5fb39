"""Single env against vector env, compiled against NUMBA_DISABLE_JIT=1, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import make, make_vec, obs_equal
from squad_recon_cases import ID

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
HERE = os.path.dirname(__file__)


def test_subenv_i_plays_single_env_seed_s_plus_i_across_autoresets():
    n, seed = 6, 77
    venv = make_vec(ID, n)
    singles = [make(ID) for _ in range(n)]
    vobs, _ = venv.reset(seed=seed)
    sobs = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    rng = np.random.default_rng(1)
    pending = [False] * n
    ends = 0
    for _ in range(300):
        for i in range(n):
            assert obs_equal({k: v[i] for k, v in vobs.items()}, sobs[i])
        # Mostly attacks and moves east/north, so episodes end in every way.
        actions = rng.choice([0, 1, 3, 5, 5], size=(n, 3))
        vobs, vrew, vterm, _, vinfo = venv.step(actions)
        for i, env in enumerate(singles):
            if pending[i]:
                sobs[i], _ = env.reset()
                assert vrew[i] == 0.0 and not vterm[i]
                pending[i] = False
                continue
            sobs[i], r, term, _, info = env.step(actions[i])
            assert vrew[i] == r and vterm[i] == term
            if term:
                assert vinfo["outcome"][i] == info["outcome"]
                assert venv.unwrapped.get_scenario(i) == env.unwrapped.scenario
                pending[i] = True
                ends += 1
    assert ends >= 20


SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
sys.path.insert(0, {here!r})
from helpers import vector_trace
from test_squad_recon_engine import scenarios
print(json.dumps([vector_trace({env_id!r}, 4, 5, 90), scenarios()]))
"""


def scenarios() -> list:
    venv = make_vec(ID, 40)
    venv.reset(seed=123)
    return [venv.unwrapped.get_scenario(i) for i in range(40)]


def test_compiled_matches_numba_disabled():
    from helpers import vector_trace

    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    script = SCRIPT.format(tests=TESTS_DIR, here=HERE, env_id=ID)
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    expected = json.loads(json.dumps([vector_trace(ID, 4, 5, 90), scenarios()]))
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected


BAD_ACTIONS = [
    [0, 0],
    [0, 0, 0, 0],
    [6, 0, 0],
    [0, -1, 0],
    [0.0, 1.0, 2.0],
    np.array([0.0, 0.0, 0.0]),
    ["0", "0", "0"],
    "0 0 0",
    None,
    3,
    [True, False, True],
    [[0, 0, 0]],
]


@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=repr)
def test_bad_action_raises_and_changes_nothing(bad):
    env = make(ID)
    env.reset(seed=0)
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(ValueError, match="action"):
        env.step(bad)
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_integer_forms_are_actions():
    """A list, a tuple and arrays of any integer type act exactly as the int64 array of the
    same numbers does (same observation, reward and ends, step by step)."""
    forms = (
        [0, 1, 2],
        (3, 4, 5),
        np.array([0, 0, 0], dtype=np.int8),
        np.array([5, 5, 5], dtype=np.uint64),
    )
    env, reference = make(ID), make(ID)
    first, _ = env.reset(seed=0)
    reference.reset(seed=0)
    observations = [first]
    for action in forms:
        obs, reward, terminated, truncated, _ = env.step(action)
        same = reference.step(np.asarray(action, dtype=np.int64))
        assert obs_equal(obs, same[0])
        assert (reward, terminated, truncated) == same[1:4]
        observations.append(obs)
    # The actions were carried out, not ignored: the squad moved.
    assert not all(obs_equal(observations[0], o) for o in observations[1:])


def test_vector_bad_actions():
    venv = make_vec(ID, 4)
    venv.reset(seed=0)
    before = venv.unwrapped.batch.snapshot()
    for bad in (
        np.zeros((4, 2), int),
        np.zeros((3, 3), int),
        np.full((4, 3), 6),
        np.zeros((4, 3)),
        np.full((4, 3), -1),
    ):
        with pytest.raises(ValueError):
            venv.step(bad)
    after = venv.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
