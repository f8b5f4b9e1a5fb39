"""The single env's fast step path (a Python or int64 action straight into a preallocated
buffer, the kernel called without type dispatch) behaves exactly like the checked path."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium import spaces
from helpers import make, obs_equal, random_action

from hiddengrid import ENV_IDS


def slow_form(action: object, space: spaces.Space) -> object:
    """The same action in a type the fast path does not take (so the full check runs)."""
    if isinstance(space, spaces.Discrete):
        return np.int32(action)  # type: ignore[call-overload]
    return [int(a) for a in np.asarray(action)]


def fast_forms(action: object, space: spaces.Space) -> list[object]:
    if isinstance(space, spaces.Discrete):
        return [int(action), np.int64(action)]  # type: ignore[call-overload]
    row = np.asarray(action, dtype=np.int64)
    return [row, row.repeat(2)[::2]]  # the strided row takes the checked path


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_fast_and_checked_actions_play_the_same_episode(env_id: str) -> None:
    checked = make(env_id)
    fast = make(env_id)
    space = checked.action_space
    rng = np.random.default_rng(7)
    o1, _ = checked.reset(seed=21)
    o2, _ = fast.reset(seed=21)
    kept = []
    for t in range(150):
        action = random_action(checked, rng)
        forms = fast_forms(action, space)
        got1 = checked.step(slow_form(action, space))
        got2 = fast.step(forms[t % len(forms)])
        assert obs_equal(got1[0], got2[0])
        assert got1[1:4] == got2[1:4] and type(got2[1]) is float and type(got2[2]) is bool
        assert got1[4].keys() == got2[4].keys()
        kept.append((got2[0], {k: np.copy(v) for k, v in got2[0].items()}))
        if got1[2]:
            o1, _ = checked.reset()
            o2, _ = fast.reset()
            assert obs_equal(o1, o2)
    # Observations are the caller's own: later steps never wrote into earlier ones.
    assert all(obs_equal(obs, copy) for obs, copy in kept)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_fast_path_refuses_what_the_check_refuses(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=3)
    base = env.unwrapped
    space = base.action_space
    if isinstance(space, spaces.Discrete):
        n = int(space.n)
        bads: list[object] = [n, -1, np.int64(n), np.int64(-1), 10**30, True, np.True_]
    else:
        nvec = np.asarray(space.nvec, dtype=np.int64)
        over = nvec.copy()
        under = np.zeros_like(nvec)
        under.flat[-1] = -1
        bads = [over, under, np.zeros(nvec.size + 1, dtype=np.int64), nvec.astype(np.int32)]
        bads.append(np.stack([nvec - 1, nvec - 1]))  # a batch of two, not one action
    for bad in bads:
        before = base.batch.snapshot()
        with pytest.raises(ValueError, match="invalid action"):
            env.step(bad)
        after = base.batch.snapshot()
        assert all(np.array_equal(before[k], after[k]) for k in before), bad


def test_unpickled_with_its_action_space_first_steps_like_the_original() -> None:
    """Pickling Megacity's action space before the env (the space reads the env's mask) must
    not leave the copy's fast path built over missing or stale state: it is rebuilt on first
    use, over the copy's own arrays."""
    env = make("hiddengrid/Megacity-v0")
    env.reset(seed=1)
    space, copy = pickle.loads(pickle.dumps((env.unwrapped.action_space, env)))
    rng = np.random.default_rng(0)
    for _ in range(5):
        action = random_action(env, rng)
        got, want = copy.step(action), env.step(action)
        assert obs_equal(got[0], want[0]) and got[1:4] == want[1:4]
    copy.reset(seed=3)
    env.reset(seed=3)
    assert space.contains(random_action(copy, rng))
    action = random_action(env, rng)
    got, want = copy.step(action), env.step(action)
    assert obs_equal(got[0], want[0]) and got[1:4] == want[1:4]
