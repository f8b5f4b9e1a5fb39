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


def flatten_batch(space: spaces.Dict, obs: dict[str, np.ndarray]) -> np.ndarray:
    """``(N, D)`` float32: row ``i`` is ``spaces.flatten(space, obs_i)`` for a batch of ``N``."""
    parts = []
    for key, sub in space.spaces.items():
        value = np.asarray(obs[key])
        n = value.shape[0]
        if isinstance(sub, spaces.Discrete):
            part = np.zeros((n, int(sub.n)), dtype=np.float32)
            part[np.arange(n), value.reshape(n) - int(sub.start)] = 1.0
        elif isinstance(sub, spaces.MultiDiscrete):
            flat = (value - sub.start).reshape(n, -1)
            offsets = np.concatenate([[0], np.cumsum(sub.nvec.reshape(-1))[:-1]])
            part = np.zeros((n, int(sub.nvec.sum())), dtype=np.float32)
            part[np.arange(n)[:, None], flat + offsets] = 1.0
        elif isinstance(sub, spaces.Box | spaces.MultiBinary):
            part = value.reshape(n, -1).astype(np.float32)
        else:
            raise TypeError(f"cannot flatten observation key {key!r} of space {sub}")
        parts.append(part)
    return np.concatenate(parts, axis=1)


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
