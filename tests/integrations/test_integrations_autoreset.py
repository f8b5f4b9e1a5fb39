"""The native vector env's two autoreset modes: SAME_STEP is NEXT_STEP without the reset step,
and it matches Gymnasium's own ``SyncVectorEnv(autoreset_mode=SAME_STEP)`` over single envs."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from helpers import make_vec

from hiddengrid import ENV_IDS
from hiddengrid.core.batch import Batch

IDS = list(ENV_IDS)
N = 3


def _legal(venv: Any, i: int, rng: np.random.Generator, masks: np.ndarray | None) -> Any:
    """A legal action of sub-env ``i`` drawn from that sub-env's own generator."""
    if masks is not None:
        return int(rng.choice(np.flatnonzero(masks[i])))
    space = venv.single_action_space
    if isinstance(space, spaces.Discrete):
        return int(rng.integers(0, int(space.n)))
    return rng.integers(0, space.nvec).astype(np.int64)


def _masks(venv: Any) -> np.ndarray | None:
    base = venv.unwrapped
    return np.asarray(base.action_masks()) if base.definition.masked else None


def _episodes(venv: Any, mode: AutoresetMode, steps: int) -> list[list[Any]]:
    """Per sub-env, the sequence of what it played: each episode's first observation, then per
    real step (reward, terminated, observation after the step, outcome at the end)."""
    rngs = [np.random.default_rng(100 + i) for i in range(N)]
    obs, _ = venv.reset(seed=21)
    per_env: list[list[Any]] = [[_row(obs, i)] for i in range(N)]
    resetting = np.zeros(N, dtype=bool)
    for _ in range(steps):
        masks = _masks(venv)
        # NEXT_STEP's reset step ignores the action: nothing is drawn for it.
        idle = np.zeros(venv.single_action_space.shape, dtype=np.int64)
        actions = [idle if resetting[i] else _legal(venv, i, rngs[i], masks) for i in range(N)]
        obs, reward, term, trunc, info = venv.step(np.stack(actions))
        assert not trunc.any()
        for i in range(N):
            if resetting[i]:
                per_env[i].append(_row(obs, i))  # the new episode's first observation
                assert reward[i] == 0.0 and not term[i]
                continue
            if mode is AutoresetMode.SAME_STEP and term[i]:
                last = info["final_obs"][i]
                outcome = info["final_info"]["outcome"][i]
                per_env[i].append((float(reward[i]), True, _flat(last), outcome))
                per_env[i].append(_row(obs, i))
            else:
                outcome = info["outcome"][i] if term[i] else None
                per_env[i].append((float(reward[i]), bool(term[i]), _row(obs, i), outcome))
        resetting = term.copy() if mode is AutoresetMode.NEXT_STEP else resetting
    return per_env


def _row(obs: dict[str, np.ndarray], i: int) -> dict[str, list]:
    return {k: np.asarray(v[i]).tolist() for k, v in obs.items()}


def _flat(obs: dict[str, Any]) -> dict[str, list]:
    return {k: np.asarray(v).tolist() for k, v in obs.items()}


@pytest.mark.parametrize("env_id", IDS)
def test_same_step_is_next_step_without_the_reset_step(env_id: str) -> None:
    steps = 130
    nxt = _episodes(make_vec(env_id, N), AutoresetMode.NEXT_STEP, steps)
    same = _episodes(
        make_vec(env_id, N, autoreset_mode=AutoresetMode.SAME_STEP), AutoresetMode.SAME_STEP, steps
    )
    ended = 0
    for a, b in zip(nxt, same, strict=True):
        # SAME_STEP skips the reset steps, so it has played further: compare the common part.
        common = min(len(a), len(b))
        assert a[:common] == b[:common]
        ended += sum(1 for x in a[:common] if isinstance(x, tuple) and x[1])
    assert ended >= N  # every sub-env ended at least one episode within the compared part


def _assert_info_matches(
    ours: dict[str, Any],
    theirs: dict[str, Any],
    exact_masks: bool,
    parent_mask: np.ndarray | None = None,
) -> None:
    # A nested dict of ours may carry one mask for all its keys (Gymnasium masks each key).
    for key, value in theirs.items():
        if key.startswith("_"):
            continue
        assert key in ours, key
        if key == "final_obs":
            for a, b in zip(ours[key], value, strict=True):
                assert (a is None) == (b is None)
                if a is not None:
                    assert _flat(a) == _flat(b)
            continue
        if isinstance(value, dict):
            _assert_info_matches(ours[key], value, exact_masks, ours.get(f"_{key}", parent_mask))
            continue
        mask = theirs[f"_{key}"]
        our_mask = ours.get(f"_{key}", parent_mask)
        if exact_masks:
            np.testing.assert_array_equal(our_mask, mask)
        else:
            assert np.all(our_mask[mask])
        for i in np.flatnonzero(mask):
            assert np.array_equal(np.asarray(ours[key][i]), np.asarray(value[i])), (key, i)


@pytest.mark.parametrize("env_id", IDS)
def test_same_step_matches_gymnasium_sync_vector_env(env_id: str) -> None:
    ours = make_vec(env_id, N, autoreset_mode="SameStep")
    theirs = SyncVectorEnv(
        [lambda: gym.make(env_id) for _ in range(N)], autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert ours.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    rng = np.random.default_rng(4)
    ours.reset(seed=8)
    theirs.reset(seed=8)
    ended = 0
    for _ in range(100):
        masks = _masks(ours)
        if masks is not None:
            np.testing.assert_array_equal(masks, np.stack(theirs.call("action_masks")))
        actions = np.stack([_legal(ours, i, rng, masks) for i in range(N)])
        a = ours.step(actions)
        b = theirs.step(actions)
        for key in b[0]:
            np.testing.assert_array_equal(a[0][key], b[0][key])
        for x, y in zip(a[1:4], b[1:4], strict=True):
            np.testing.assert_array_equal(x, y)
        assert ("final_obs" in a[4]) == ("final_obs" in b[4])
        if "final_obs" in b[4]:
            ended += int(b[4]["_final_obs"].sum())
            np.testing.assert_array_equal(a[4]["_final_obs"], b[4]["_final_obs"])
            np.testing.assert_array_equal(a[4]["_final_info"], b[4]["_final_info"])
            _assert_info_matches(a[4]["final_info"], b[4]["final_info"], exact_masks=True)
        _assert_info_matches(a[4], b[4], exact_masks=False)
    assert ended >= N


@pytest.mark.parametrize("env_id", IDS)
def test_reset_kernel_matches_the_step_kernels_autoreset(env_id: str) -> None:
    # reset_done must start exactly the episode that step_all's next-step autoreset starts: the
    # twin is reset by the step kernel on a gathered copy of the sub-envs that ended.
    venv = make_vec(env_id, 5)
    venv.reset(seed=3)
    batch = venv.unwrapped.batch
    batch.done[:] = [True, False, True, False, False]
    actions = np.zeros((5, *venv.single_action_space.shape), dtype=np.int64)
    twin = Batch(batch.definition, 5, batch.config)
    for name, arr in batch.snapshot().items():
        target = twin.fields[name[6:]] if name.startswith("field:") else getattr(twin, name)
        target[...] = arr
    batch.reset_done()
    ended = np.flatnonzero(twin.done)
    parts = [arr[ended] for arr in twin._step_args]
    twin.definition.step_all(actions[ended], *parts)
    for k, (arr, part) in enumerate(zip(twin._step_args, parts, strict=True)):
        if k not in (3, 4):  # reward and terminated keep what the real step returned
            arr[ended] = part
    a, b = batch.snapshot(), twin.snapshot()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not batch.done.any()


@pytest.mark.parametrize("env_id", IDS)
def test_disabled_mode_resets_only_the_masked_sub_envs(env_id: str) -> None:
    # Gymnasium's DISABLED mode: the caller resets finished sub-envs by reset_mask; the others
    # go on untouched, and a re-seeded sub-env plays what a fresh env with that seed plays.
    n = 4
    venv = make_vec(env_id, n, autoreset_mode=AutoresetMode.DISABLED)
    assert venv.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    venv.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(3):
        masks = _masks(venv)
        venv.step(np.stack([_legal(venv, i, rng, masks) for i in range(n)]))
    before = venv.unwrapped.batch.snapshot()
    mask = np.array([True, False, True, False])
    obs, _ = venv.reset(seed=[50, 51, 52, 53], options={"reset_mask": mask})
    after = venv.unwrapped.batch.snapshot()
    for name in before:
        np.testing.assert_array_equal(before[name][~mask], after[name][~mask])
    fresh, _ = make_vec(env_id, 1).reset(seed=52)
    assert {k: v[2].tolist() for k, v in obs.items()} == {
        k: v[0].tolist() for k, v in fresh.items()
    }
    with pytest.raises(ValueError, match="reset_mask"):
        venv.reset(options={"reset_mask": [True] * n})


@pytest.mark.parametrize("mode", ["Sometimes", "same", 1, None])
def test_bad_autoreset_mode_is_refused(mode: object) -> None:
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        make_vec(IDS[0], 2, autoreset_mode=mode)
