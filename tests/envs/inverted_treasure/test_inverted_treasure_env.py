"""The env as a whole, in both variants: configuration, single against vector (autoreset
included), compiled against NUMBA_DISABLE_JIT=1, bad input, speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from it_helpers import BASE_ID, IDS, SCOUT_ID

from hiddengrid import definition_of
from hiddengrid.envs.inverted_treasure import InvertedTreasureEnv, InvertedTreasureVectorEnv
from hiddengrid.envs.inverted_treasure.agents import AGENTS


def vector(env_id: str, n: int):
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")


def test_registered_ids_configure_the_variant():
    assert gym.make(BASE_ID).unwrapped.config == {"scout": False}
    assert gym.make(SCOUT_ID).unwrapped.config == {"scout": True}
    assert not vector(BASE_ID, 3).unwrapped.batch["scout"].any()
    assert vector(SCOUT_ID, 3).unwrapped.batch["scout"].all()
    assert definition_of(BASE_ID) is definition_of(SCOUT_ID)
    assert definition_of(BASE_ID).is_success("treasure", 1.0)
    assert not definition_of(BASE_ID).is_success("timeout", 0.0)
    assert InvertedTreasureEnv().config == {"scout": False}  # the class default is the base
    assert InvertedTreasureEnv(scout=np.bool_(True)).config == {"scout": True}
    assert InvertedTreasureVectorEnv(num_envs=2, scout=True).config == {"scout": True}


@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0, [True]])
def test_scout_must_be_a_bool(bad):
    with pytest.raises(ValueError, match="scout"):
        gym.make(BASE_ID, scout=bad)
    with pytest.raises(ValueError, match="scout"):
        InvertedTreasureVectorEnv(num_envs=2, scout=bad)


def test_unknown_arguments_are_rejected():
    with pytest.raises(TypeError, match="level"):
        InvertedTreasureEnv(level=1)
    with pytest.raises(TypeError, match="level"):
        InvertedTreasureVectorEnv(num_envs=2, level=1)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_and_spaces(env_id):
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    space = env.observation_space
    assert space["window"].shape == (5, 5) and space["window"].dtype == np.int8
    assert space["window"].low.min() == 0 and space["window"].high.max() == 4
    assert space["position"].nvec.tolist() == [8, 8]
    assert space["steps_left"].n == 31
    assert env.action_space.n == 6
    venv = vector(env_id, 4)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


def heuristic_trace(env_id: str, n: int, seed: int, steps: int) -> list:
    """A seeded vector run played by the fair heuristic (with some random actions mixed in, so
    every action and every outcome shows up)."""
    venv = vector(env_id, n)
    agent = AGENTS["heuristic"](venv.unwrapped, seed=0)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    starts = np.ones(n, dtype=bool)
    trace: list = []
    for _ in range(steps):
        actions = agent.act(obs, starts)
        mix = rng.random(n) < 0.25
        actions = np.where(mix, rng.integers(0, 6, size=n), actions)
        obs, reward, terminated, _, info = venv.step(actions)
        starts = terminated  # the next observation of an ended sub-env is a new episode's
        trace.append(
            [
                actions.tolist(),
                {k: v.tolist() for k, v in obs.items()},
                reward.tolist(),
                terminated.tolist(),
                [str(x) for x in info.get("outcome", [None] * n)],
            ]
        )
    return trace


@pytest.mark.parametrize("env_id", IDS)
def test_vector_sub_env_i_plays_the_single_env_seeded_s_plus_i(env_id):
    n, seed = 5, 300
    trace = heuristic_trace(env_id, n, seed, 200)
    outcomes = {o for step in trace for o in step[4]}
    assert {"treasure", "trap"} <= outcomes
    for i in range(n):
        env = gym.make(env_id)
        obs, _ = env.reset(seed=seed + i)
        pending_reset = False
        for actions, vobs, vrew, vterm, vout in trace:
            if pending_reset:
                obs, _ = env.reset()  # what autoreset gave sub-env i
                assert vrew[i] == 0.0 and not vterm[i]
                pending_reset = False
            else:
                obs, reward, terminated, _, info = env.step(actions[i])
                assert (reward, terminated) == (vrew[i], vterm[i])
                if terminated:
                    assert info["outcome"] == vout[i]
                    pending_reset = True
            assert {k: v.tolist() for k, v in obs.items()} == {k: v[i] for k, v in vobs.items()}


NOJIT_SCRIPT = """
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
np.seterr(all="ignore")
sys.path.insert(0, {here!r})
from test_inverted_treasure_env import heuristic_trace
print(json.dumps([heuristic_trace(env_id, 4, 21, 90) for env_id in {ids!r}]))
"""


def test_compiled_kernels_match_numba_disable_jit():
    here = os.path.dirname(__file__)
    tests_dir = os.path.dirname(os.path.dirname(here))
    script = NOJIT_SCRIPT.format(here=here, ids=list(IDS))
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join([tests_dir, env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    expected = json.loads(json.dumps([heuristic_trace(env_id, 4, 21, 90) for env_id in IDS]))
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected


BAD_ACTIONS = [6, -1, 1.0, 1.5, "0", "move north", None, True, False, np.float32(2.0), [0], []]


@pytest.mark.parametrize("env_id", IDS)
def test_bad_actions_raise_value_error_and_change_nothing(env_id):
    env = gym.make(env_id)
    env.reset(seed=8)
    env.step(4)
    base = env.unwrapped
    for bad in BAD_ACTIONS:
        before = base.batch.snapshot()
        with pytest.raises(ValueError, match="invalid action"):
            env.step(bad)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before), bad
    for good in (np.int64(5), np.array(5), 5, np.uint8(5)):
        env.step(good)


@pytest.mark.parametrize("env_id", IDS)
def test_vector_bad_actions_raise_and_change_nothing(env_id):
    venv = vector(env_id, 3)
    venv.reset(seed=1)
    base = venv.unwrapped
    for bad in (np.array([0, 1, 6]), np.array([0, 1]), np.array([0.0, 1.0, 2.0]), None, "x"):
        before = base.batch.snapshot()
        with pytest.raises(ValueError):
            venv.step(bad)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before)


@pytest.mark.parametrize("env_id", IDS)
def test_step_after_the_end_asks_for_reset(env_id):
    env = gym.make(env_id)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(5)  # (the gymnasium wrapper raises its own ResetNeeded first)
    env.reset(seed=0)
    for _ in range(30):
        *_, terminated, _, _ = env.step(5)
    assert terminated
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(5)
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
