"""Observations for libraries that read neither ``Dict`` spaces nor masks from ``info``.

The flat vectors are :mod:`hiddengrid.core.flat`'s (one compiled call per batch; the layout
the trainers use too). These wrappers add the action mask for any env whose unwrapped env has
``action_masks()``: the observation becomes ``{"action_mask": ..., "observations": ...}``,
the layout RLlib's action-masking module reads. Without a mask they give the flat vector alone.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from hiddengrid.core.flat import FlatEncoder, FlatVectorEnv, flat_space


def has_masks(env: Any) -> bool:
    return env.unwrapped.definition.masked


def mask_space(n: int) -> spaces.Box:
    return spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)


class MaskedFlatObservation(gym.ObservationWrapper):
    """A single env's observation as the flat vector, with the action mask beside it in a
    ``Dict`` when the env masks actions (``with_mask``, default: whether it does)."""

    def __init__(self, env: gym.Env, with_mask: bool | None = None) -> None:
        super().__init__(env)
        self.with_mask = has_masks(env) if with_mask is None else with_mask
        self.encoder = FlatEncoder(env.observation_space)
        flat = flat_space(env.observation_space)
        if self.with_mask:
            n = int(env.action_space.n)
            self.observation_space = spaces.Dict(
                {"action_mask": mask_space(n), "observations": flat}
            )
        else:
            self.observation_space = flat

    def observation(self, observation: dict[str, Any]) -> Any:
        flat = self.encoder.encode(observation)
        if not self.with_mask:
            return flat
        mask = np.asarray(self.env.unwrapped.action_masks(), dtype=np.float32)
        return {"action_mask": mask, "observations": flat}


class MaskedFlatVectorEnv(VectorWrapper):
    """The native vector env with flat observations (:class:`~hiddengrid.core.flat.FlatVectorEnv`)
    and, for masked envs, the masks beside them. Each returned array is the caller's own (libraries
    such as RLlib keep observations across steps)."""

    def __init__(self, env: VectorEnv, with_mask: bool | None = None) -> None:
        flat_env = FlatVectorEnv(env)
        super().__init__(flat_env)
        self.with_mask = has_masks(env) if with_mask is None else with_mask
        flat = flat_env.single_observation_space
        if self.with_mask:
            n = int(env.single_action_space.n)
            self.single_observation_space = spaces.Dict(
                {"action_mask": mask_space(n), "observations": flat}
            )
        else:
            self.single_observation_space = flat
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def _with_mask(self, flat: np.ndarray) -> Any:
        flat = flat.copy()  # FlatVectorEnv reuses its output array
        if not self.with_mask:
            return flat
        masks = np.asarray(self.env.unwrapped.action_masks(), dtype=np.float32)
        return {"action_mask": masks, "observations": flat}

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        flat, info = self.env.reset(**kwargs)
        return self._with_mask(flat), info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        flat, reward, terminated, truncated, info = self.env.step(actions)
        return self._with_mask(flat), reward, terminated, truncated, info
