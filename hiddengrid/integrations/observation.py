"""Observations for libraries that read neither ``Dict`` spaces nor masks from ``info``.

``flatten_batch`` flattens a batch of ``Dict`` observations in one vectorised pass, laid out as
Gymnasium's ``spaces.flatten`` lays out one (``Discrete`` and ``MultiDiscrete`` one-hot,
``Box`` and ``MultiBinary`` as values, keys in the space's order). The wrappers put the action
mask into the observation as ``{"action_mask": ..., "observations": ...}`` (the layout RLlib's
action-masking module reads) for any env whose unwrapped env has ``action_masks()``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorObservationWrapper
from gymnasium.vector.utils import batch_space


def flat_space(space: spaces.Dict) -> spaces.Box:
    """The flat ``Box`` of ``space`` (float32), as ``gymnasium.spaces.flatten_space`` shapes it."""
    flat = spaces.flatten_space(space)
    return spaces.Box(flat.low.astype(np.float32), flat.high.astype(np.float32), dtype=np.float32)


def flatten_batch(
    space: spaces.Dict, obs: dict[str, np.ndarray], out: np.ndarray | None = None
) -> np.ndarray:
    """``(N, D)`` float32: row ``i`` is ``spaces.flatten(space, obs_i)`` for a batch of ``N``,
    written into ``out`` when given (no allocation then)."""
    n = np.asarray(next(iter(obs.values()))).shape[0]
    if out is None:
        out = np.empty((n, flat_space(space).shape[0]), dtype=np.float32)
    rows = np.arange(n)
    col = 0
    for key, sub in space.spaces.items():
        value = np.asarray(obs[key])
        if isinstance(sub, spaces.Discrete):
            width = int(sub.n)
            out[:, col : col + width] = 0.0
            out[rows, col + value.reshape(n) - int(sub.start)] = 1.0
        elif isinstance(sub, spaces.MultiDiscrete):
            nvec = sub.nvec.reshape(-1)
            width = int(nvec.sum())
            offsets = col + np.concatenate([[0], np.cumsum(nvec)[:-1]])
            out[:, col : col + width] = 0.0
            out[rows[:, None], (value - sub.start).reshape(n, -1) + offsets] = 1.0
        elif isinstance(sub, spaces.Box | spaces.MultiBinary):
            width = int(np.prod(sub.shape))
            out[:, col : col + width] = value.reshape(n, width)
        else:
            raise TypeError(f"cannot flatten observation key {key!r} of space {sub}")
        col += width
    return out


def _value_bounds(sub: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(sub, spaces.Discrete):
        return np.array([sub.start]), np.array([sub.start + sub.n - 1])
    if isinstance(sub, spaces.MultiDiscrete):
        return (sub.start).reshape(-1), (sub.start + sub.nvec - 1).reshape(-1)
    if isinstance(sub, spaces.MultiBinary):
        size = int(np.prod(sub.shape))
        return np.zeros(size), np.ones(size)
    if isinstance(sub, spaces.Box):
        return sub.low.reshape(-1), sub.high.reshape(-1)
    raise TypeError(f"cannot flatten observation space {sub}")


def value_space(space: spaces.Dict) -> spaces.Box:
    """The flat float32 ``Box`` of :func:`flatten_values`: one column per value, no one-hot."""
    bounds = [_value_bounds(sub) for sub in space.spaces.values()]
    low = np.concatenate([b[0] for b in bounds]).astype(np.float32)
    high = np.concatenate([b[1] for b in bounds]).astype(np.float32)
    return spaces.Box(low, high, dtype=np.float32)


def flatten_values(
    space: spaces.Dict, obs: dict[str, np.ndarray], out: np.ndarray | None = None
) -> np.ndarray:
    """``(N, D)`` float32 of every observation value in key order, ``Discrete`` as its value
    (not one-hot): one cast-and-copy per key, for engines where one-hot costs too much."""
    n = np.asarray(next(iter(obs.values()))).shape[0]
    if out is None:
        out = np.empty((n, value_space(space).shape[0]), dtype=np.float32)
    col = 0
    for key in space.spaces:
        value = np.asarray(obs[key]).reshape(n, -1)
        width = value.shape[1]
        out[:, col : col + width] = value
        col += width
    return out


def _mask_space(n: int) -> spaces.Box:
    return spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)


def has_masks(env: Any) -> bool:
    return hasattr(env.unwrapped, "action_masks")


class FlatObservation(gym.ObservationWrapper):
    """A single env's ``Dict`` observation as one flat float32 vector; with ``with_mask``
    (default: when the env masks actions) ``{"action_mask", "observations"}`` instead."""

    def __init__(self, env: gym.Env, with_mask: bool | None = None) -> None:
        super().__init__(env)
        self.with_mask = has_masks(env) if with_mask is None else with_mask
        self.dict_space = env.observation_space
        flat = flat_space(self.dict_space)
        if self.with_mask:
            n = int(env.action_space.n)
            self.observation_space = spaces.Dict(
                {"action_mask": _mask_space(n), "observations": flat}
            )
        else:
            self.observation_space = flat

    def observation(self, observation: dict[str, Any]) -> Any:
        batch = {k: np.asarray(v)[None] for k, v in observation.items()}
        flat = flatten_batch(self.dict_space, batch)[0]
        if not self.with_mask:
            return flat
        mask = np.asarray(self.env.unwrapped.action_masks(), dtype=np.float32)
        return {"action_mask": mask, "observations": flat}


class FlatVectorObservation(VectorObservationWrapper):
    """The native vector env's batched ``Dict`` observations flattened in one pass, with the
    action masks beside them for masked envs. In SAME_STEP mode the final observations in
    ``info["final_obs"]`` are flattened too (their mask is the last one: all-legal is not
    claimed)."""

    def __init__(self, env: VectorEnv, with_mask: bool | None = None) -> None:
        super().__init__(env)
        self.with_mask = has_masks(env) if with_mask is None else with_mask
        self.dict_space = env.single_observation_space
        flat = flat_space(self.dict_space)
        if self.with_mask:
            n = int(env.single_action_space.n)
            self.single_observation_space = spaces.Dict(
                {"action_mask": _mask_space(n), "observations": flat}
            )
        else:
            self.single_observation_space = flat
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def observations(self, observations: dict[str, np.ndarray]) -> Any:
        flat = flatten_batch(self.dict_space, observations)
        if not self.with_mask:
            return flat
        masks = np.asarray(self.env.unwrapped.action_masks(), dtype=np.float32)
        return {"action_mask": masks, "observations": flat}
