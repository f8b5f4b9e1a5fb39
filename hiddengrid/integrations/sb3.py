"""A Stable-Baselines3 ``VecEnv`` over the native batched engine.

SB3's ``VecEnv`` resets a finished sub-env within the step and hands the last observation in
``infos[i]["terminal_observation"]``: that is Gymnasium's SAME_STEP autoreset, which the native
vector env runs in its kernels, so the adapter only re-labels what the engine returns. Masked
envs (Megacity) answer ``env_method("action_masks")`` for sb3-contrib's ``MaskablePPO``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from hiddengrid.integrations.ids import make_vec_env


class HiddenGridVecEnv(VecEnv):
    """``num_envs`` sub-envs of ``env_id`` in one native batch, as an SB3 ``VecEnv``."""

    def __init__(self, env_id: str, num_envs: int, **env_kwargs: Any) -> None:
        self.venv = make_vec_env(
            env_id, num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **env_kwargs
        )
        self.engine = self.venv.unwrapped
        super().__init__(
            num_envs, self.engine.single_observation_space, self.engine.single_action_space
        )
        self._actions: np.ndarray | None = None
        self.render_mode = self.engine.render_mode

    def reset(self) -> dict[str, np.ndarray]:
        seeds = None if self._seeds[0] is None else [int(s) for s in self._seeds]
        obs, info = self.venv.reset(seed=seeds)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        if "action_mask" in info:
            for i, mask in enumerate(info["action_mask"]):
                self.reset_infos[i]["action_mask"] = mask
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        assert self._actions is not None, "step_async first"
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in info:
            final_info = info["final_info"]
            for i in np.flatnonzero(dones).tolist():  # only the sub-envs that ended
                infos[i]["terminal_observation"] = info["final_obs"][i]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                infos[i]["outcome"] = final_info["outcome"][i]
        return obs, reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """Masks of every sub-env, shape ``(num_envs, n)`` (all legal where the env does not
        mask its actions)."""
        return np.asarray(self.engine.action_masks())

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "action_masks":
            masks = self.action_masks()
            return [lambda m=masks[i]: m for i in self._get_indices(indices)]
        value = getattr(self.engine, attr_name)  # AttributeError when the engine has none
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(
            f"cannot set {attr_name!r} on one sub-env: the native engine shares one batch"
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name == "get_scenario":
            return [self.engine.get_scenario(i) for i in rows]
        raise AttributeError(
            f"the native engine has no per-sub-env method {method_name!r}; "
            "it offers action_masks and get_scenario"
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.engine.render_mode != "rgb_array":
            return [None] * self.num_envs
        return list(self.engine.render())

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        return super()._get_indices(indices)
