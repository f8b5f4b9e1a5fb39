"""A PufferLib native env over the batched engine: no per-env emulation.

PufferLib's native envs own flat buffers (``observations``, ``rewards``, ``terminals``,
``truncations``) and reset finished agents inside ``step``. This adapter steps the env's batch
kernels directly, resets the sub-envs that ended with the same-step reset kernel, and writes
the observation straight into PufferLib's buffer, in one of two encodings:

* ``"values"`` (default): every observation value as one float32 column, keys in the space's
  order, as PufferLib's own envs hand raw values to a policy that embeds them. One cast-and-copy
  per key: the adapter then runs at about the raw vector env's speed.
* ``"flat"``: the rows of :mod:`hiddengrid.core.flat` (one-hot small ranges, scaled wide ones),
  the layout hiddengrid's trainers and the RLlib recipe use. One-hot rows move several times
  the bytes of the raw observation, so this is slower at large N.

Every ended episode adds one dict of floats to the step's infos, ``{"episode_return": ...,
"episode_length": ..., "success": 1.0 or 0.0}``, as PufferLib's own envs report their
episodes: PufferLib's vector backends and its trainer average each key.

For a masked env (Megacity) the mask is appended to each row, since PufferLib's observation
must be one ``Box``: a policy must apply it itself, and a masked action given anyway raises
``ValueError`` as it does everywhere.
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

ENCODINGS = ("values", "flat")


def value_space(space: spaces.Dict) -> spaces.Box:
    """The float32 ``Box`` of the ``"values"`` encoding: one column per observation value."""
    lows, highs = [], []
    for sub in space.spaces.values():
        if isinstance(sub, spaces.Discrete):
            low, high = np.array([sub.start]), np.array([sub.start + sub.n - 1])
        elif isinstance(sub, spaces.MultiDiscrete):
            low, high = sub.start.reshape(-1), (sub.start + sub.nvec - 1).reshape(-1)
        elif isinstance(sub, spaces.MultiBinary):
            low, high = np.zeros(int(np.prod(sub.shape))), np.ones(int(np.prod(sub.shape)))
        elif isinstance(sub, spaces.Box):
            low, high = sub.low.reshape(-1), sub.high.reshape(-1)
        else:
            raise TypeError(f"cannot encode observation space {sub}")
        lows.append(low)
        highs.append(high)
    low = np.concatenate(lows).astype(np.float32)
    return spaces.Box(low, np.concatenate(highs).astype(np.float32), dtype=np.float32)


class HiddenGridPufferEnv(pufferlib.PufferEnv):
    """``num_envs`` sub-envs of ``env_id`` as one PufferLib native env (one agent each)."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        buf: dict[str, np.ndarray] | None = None,
        seed: int = 0,
        encoding: str = "values",
        **env_kwargs: Any,
    ) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
        self.encoding = encoding
        self.venv = make_vec_env(env_id, num_envs, **env_kwargs)
        self.engine = self.venv.unwrapped
        self.batch = self.engine.batch
        self.dict_space = self.engine.single_observation_space
        flat = flat_space(self.dict_space) if encoding == "flat" else value_space(self.dict_space)
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
        self._values = [
            self.batch.fields[names[key]].reshape(num_envs, -1) for key in self.dict_space
        ]
        self._flat = (
            np.zeros((num_envs, self.flat_width), dtype=np.float32) if self.masked else None
        )
        self.episode_return = np.zeros(num_envs, dtype=np.float64)
        self.episode_length = np.zeros(num_envs, dtype=np.int64)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        self.venv.reset(seed=self.seed if seed is None else seed)
        self._write_observations()
        self.rewards[:] = 0.0
        self.terminals[:] = False
        self.truncations[:] = False
        self.episode_return[:] = 0.0
        self.episode_length[:] = 0
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
        self.episode_return += self.batch.reward
        self.episode_length += 1
        infos: list[dict] = []
        if self.terminals.any():
            ended = np.flatnonzero(self.terminals)
            for i, code in zip(ended, self.batch.outcome[ended], strict=True):
                total = float(self.episode_return[i])
                success = definition.is_success(definition.outcomes[code], total)
                infos.append(
                    {
                        "episode_return": total,
                        "episode_length": float(self.episode_length[i]),
                        "success": float(success),
                    }
                )
            self.episode_return[ended] = 0.0
            self.episode_length[ended] = 0
            self.batch.reset_done()  # same-step reset, in the kernels
        self._write_observations()
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.engine.action_masks())

    def close(self) -> None:
        self.venv.close()

    def _write_observations(self) -> None:
        if self.encoding == "values":
            col = 0
            for value in self._values:
                width = value.shape[1]
                self.observations[:, col : col + width] = value
                col += width
            if self.masked:
                self.observations[:, col:] = self.engine.action_masks()
            return
        if not self.masked:
            self.encoder.write_parts(self._parts, self.observations)
            return
        # The compiled writer takes contiguous rows: encode, then copy beside the mask.
        self.encoder.write_parts(self._parts, self._flat)
        self.observations[:, : self.flat_width] = self._flat
        self.observations[:, self.flat_width :] = self.engine.action_masks()


__all__ = ["HiddenGridPufferEnv", "pufferlib"]
