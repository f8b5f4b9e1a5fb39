"""A PufferLib native env over the batched engine: no per-env emulation.

PufferLib's native envs own flat buffers (``observations``, ``rewards``, ``terminals``,
``truncations``) and reset finished agents inside ``step``. This adapter steps the env's batch
kernels directly, resets the sub-envs that ended with the same-step reset kernel, and writes
the observation straight into PufferLib's buffer as the flat float32 rows of
:mod:`hiddengrid.core.flat` (one compiled call per step). For a masked env (Megacity) the
mask is appended to each observation row (``mask_in_observation``), since PufferLib's
observation must be one ``Box``: a policy must apply it itself, and a masked action given
anyway raises ``ValueError`` as it does everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pufferlib
import pufferlib.spaces
from gymnasium import spaces

from hiddengrid.core.actions import check_batch_actions
from hiddengrid.core.flat import FlatEncoder, flat_space
from hiddengrid.integrations.ids import make_vec_env
from hiddengrid.integrations.observation import has_masks


class HiddenGridPufferEnv(pufferlib.PufferEnv):
    """``num_envs`` sub-envs of ``env_id`` as one PufferLib native env (one agent each)."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        buf: dict[str, np.ndarray] | None = None,
        seed: int = 0,
        **env_kwargs: Any,
    ) -> None:
        self.venv = make_vec_env(env_id, num_envs, **env_kwargs)
        self.engine = self.venv.unwrapped
        self.batch = self.engine.batch
        self.dict_space = self.engine.single_observation_space
        flat = flat_space(self.dict_space)
        self.masked = has_masks(self.venv)
        self.mask_width = int(self.engine.single_action_space.n) if self.masked else 0
        low = np.concatenate([flat.low, np.zeros(self.mask_width, dtype=np.float32)])
        high = np.concatenate([flat.high, np.ones(self.mask_width, dtype=np.float32)])
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = self.engine.single_action_space
        self.num_agents = num_envs
        self.seed = seed
        super().__init__(buf)
        self.flat_width = flat.shape[0]
        # The engine's state arrays are updated in place: the encoder's arguments are built once.
        self.encoder = FlatEncoder(self.dict_space)
        names = self.engine.definition.observation
        arrays = [self.batch.fields[names[s.key]] for s in self.encoder.layout]
        self._parts = self.encoder.parts(arrays, num_envs)
        self._flat = (
            np.zeros((num_envs, self.flat_width), dtype=np.float32) if self.masked else None
        )

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        self.venv.reset(seed=self.seed if seed is None else seed)
        self._write_observations()
        self.rewards[:] = 0.0
        self.terminals[:] = False
        self.truncations[:] = False
        return self.observations, []

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        checked = check_batch_actions(
            self.engine.single_action_space, np.asarray(actions, dtype=np.int64), self.num_agents
        )
        definition = self.engine.definition
        if definition.extra_action_check is not None:
            definition.extra_action_check(self.batch, checked)
        self.batch.step(checked)
        self.rewards[:] = self.batch.reward
        self.terminals[:] = self.batch.terminated
        infos: list[dict] = []
        if self.terminals.any():
            ended = np.flatnonzero(self.terminals)
            outcomes = np.array(definition.outcomes, dtype=object)[self.batch.outcome[ended]]
            infos.append({"episodes": int(ended.size), "outcomes": outcomes.tolist()})
            self.batch.reset_done(checked)  # same-step reset, in the kernels
        self._write_observations()
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.engine.action_masks())

    def close(self) -> None:
        self.venv.close()

    def _write_observations(self) -> None:
        if not self.masked:
            self.encoder.write_parts(self._parts, self.observations)
            return
        # The compiled writer takes contiguous rows: encode, then copy beside the mask.
        self.encoder.write_parts(self._parts, self._flat)
        self.observations[:, : self.flat_width] = self._flat
        self.observations[:, self.flat_width :] = self.engine.action_masks()


__all__ = ["HiddenGridPufferEnv", "pufferlib"]
