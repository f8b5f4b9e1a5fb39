"""Every env, its spaces and its text env pickle and deep-copy, mid-episode state included: a
copy goes on exactly as the original does (what subprocess vector envs and RLlib rely on)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from helpers import make, make_vec, obs_equal, random_action, random_actions

from hiddengrid import ENV_IDS, definition_of, make_text
from hiddengrid.core.definition import EnvDefinition

IDS = list(ENV_IDS)
COPIERS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "deepcopy": copy.deepcopy,
}


def _info_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object))
        if not isinstance(a[k], dict)
        else _info_equal(a[k], b[k])
        for k in a
    )


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("env_id", IDS)
def test_single_env_copy_continues_identically(env_id: str, how: str) -> None:
    env = make(env_id)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.step(random_action(env, rng))
    twin = COPIERS[how](env)
    assert twin.unwrapped.scenario == env.unwrapped.scenario
    for _ in range(60):
        action = random_action(env, rng)
        a = env.step(action)
        b = twin.step(action)
        assert obs_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
        assert _info_equal(a[4], b[4])
        if a[2] or a[3]:
            # The next unseeded episode comes from the copied stream too.
            assert obs_equal(env.reset()[0], twin.reset()[0])
    assert twin.unwrapped.batch.definition is env.unwrapped.batch.definition


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("env_id", IDS)
def test_vector_env_copy_continues_identically(env_id: str, how: str) -> None:
    venv = make_vec(env_id, 4)
    venv.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(7):
        venv.step(random_actions(venv, rng))
    twin = COPIERS[how](venv)
    for _ in range(80):
        actions = random_actions(venv, rng)
        a = venv.step(actions)
        b = twin.step(actions)
        assert obs_equal(a[0], b[0])
        for x, y in zip(a[1:4], b[1:4], strict=True):
            np.testing.assert_array_equal(x, y)
        assert _info_equal(a[4], b[4])
    # The copy owns its state: stepping it leaves the original alone.
    before = venv.unwrapped.batch.snapshot()
    twin.step(random_actions(twin, rng))
    after = venv.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)


@pytest.mark.parametrize("how", list(COPIERS))
@pytest.mark.parametrize("env_id", IDS)
def test_text_env_copy_continues_identically(env_id: str, how: str) -> None:
    env = make_text(env_id)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    twin = COPIERS[how](env)
    assert twin.observation_text() == env.observation_text()
    for _ in range(10):
        answer = env.format_action(random_action(env.env, rng))
        a = env.step(answer)
        b = twin.step(answer)
        assert a[:4] == b[:4]
        if a[2] or a[3]:
            break


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_and_definition_pickle(env_id: str) -> None:
    venv = make_vec(env_id, 2)
    for space in (
        venv.single_observation_space,
        venv.single_action_space,
        venv.observation_space,
        venv.action_space,
    ):
        for copier in COPIERS.values():
            assert copier(space) == space
    # A single env's spaces too: a space that refers back to its env (a sampler bound to the
    # env's mask) reaches the env through a cycle while unpickling; the copy must still step.
    single = make(env_id)
    single.reset(seed=0)
    for copier in COPIERS.values():
        assert copier(single.unwrapped.action_space) == single.unwrapped.action_space
        assert copier(single.unwrapped.observation_space) == single.unwrapped.observation_space
    definition = venv.unwrapped.definition
    assert pickle.loads(pickle.dumps(definition)) is definition
    assert copy.deepcopy(definition) is definition


def test_unregistered_definition_pickles_by_value() -> None:
    # A definition that is not the registered one (a researcher's variant) is rebuilt from its
    # parts; its text module travels by name.
    base = make(IDS[0]).unwrapped.definition
    variant = EnvDefinition(
        **{name: getattr(base, name) for name in base.__dataclass_fields__} | {"id": "x/Var-v0"}
    )
    again = pickle.loads(pickle.dumps(variant))
    assert again is not base and again.id == "x/Var-v0"
    assert again.text is base.text
    assert again.fields == base.fields


def _legal_actions(venv: Any, rng: np.random.Generator) -> np.ndarray:
    space = venv.single_action_space
    if definition_of(venv.get_attr("spec")[0].id).masked:
        masks = venv.call("action_masks")
        return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
    if isinstance(space, gym.spaces.Discrete):
        return rng.integers(0, int(space.n), size=venv.num_envs)
    return rng.integers(0, space.nvec, size=(venv.num_envs, *space.shape))


@pytest.mark.parametrize("env_id", IDS)
def test_async_vector_env_matches_sync(env_id: str) -> None:
    # Gymnasium's subprocess vector env pickles the env factory and its spaces, and the
    # sub-env processes play exactly the episodes the in-process ones do.
    traces = []
    for mode in ("sync", "async"):
        venv = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
        rng = np.random.default_rng(3)
        obs, _ = venv.reset(seed=9)
        trace: list[Any] = [{k: v.tolist() for k, v in obs.items()}]
        for _ in range(40):
            obs, reward, term, _, _ = venv.step(_legal_actions(venv, rng))
            trace.append(({k: v.tolist() for k, v in obs.items()}, reward.tolist(), term.tolist()))
        venv.close()
        traces.append(trace)
    assert traces[0] == traces[1]


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_keyword_reads_like_python(env_id: str) -> None:
    # TorchRL's GymEnv probes keywords such as frameskip and retries without one only when the
    # error reads like Python's own; the env is not built and nothing else changes.
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'frameskip'"):
        gym.make(env_id, frameskip=4)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'frameskip'"):
        make_vec(env_id, 2, frameskip=4)
