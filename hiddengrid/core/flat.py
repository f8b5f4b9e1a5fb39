"""A flat float32 view of the Dict observations, written by one compiled call per batch.

Neural-network trainers want one vector per sub-env. Gymnasium's ``FlattenObservation`` loops
over keys and spaces in Python on every step (over the native vector env it drops throughput
from about a million to a few thousand steps per second). Here the layout is decided once from
the observation space and one Numba call writes every key of every sub-env into one
``(N, size)`` float32 array:

* an integer key (``Discrete``, ``MultiDiscrete`` or integer ``Box``) whose elements take at
  most :data:`ONE_HOT_MAX` values is one-hot encoded, ``width`` = the largest element range,
  each element's value counted from its own low bound;
* a two-valued key (``MultiBinary``, a 0/1 ``Box``) is one feature per element, 0 or 1;
* anything wider (a timer such as ``steps_left``, stress 0..100, a float ``Box``) is scaled to
  ``[0, 1]`` from its bounds.

:func:`flat_layout` lists where each key lands; :class:`FlatVectorEnv` wraps the native vector
env and :class:`FlatObservation` a single env, so a trainer on the native engine and a library
on single envs (Stable-Baselines3, RLlib, PufferLib) see the same vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorWrapper
from numba import literal_unroll, njit

ONE_HOT_MAX = 20  # one-hot up to this many values per element; scaled above


@dataclass(frozen=True)
class FlatSlice:
    """Where one observation key lands in the flat vector.

    ``encoding`` is ``"one_hot"`` (element ``j`` with value ``v`` sets column
    ``start + j * width + (v - low_j)``), ``"binary"`` or ``"scaled"`` (column ``start + j``
    holds ``(v - low_j) / (high_j - low_j)``). Elements are in C order of the key's shape.
    """

    key: str
    start: int
    stop: int
    encoding: str
    shape: tuple[int, ...]
    width: int
    low: tuple[float, ...]
    high: tuple[float, ...]


def _bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per-element (low, high, integer) of a leaf space, flattened in C order."""
    if isinstance(space, spaces.Discrete):
        start = int(space.start)
        return np.array([start], float), np.array([start + int(space.n) - 1], float), True
    if isinstance(space, spaces.MultiDiscrete):
        start = np.broadcast_to(np.asarray(space.start), space.nvec.shape).astype(float).ravel()
        return start, start + space.nvec.astype(float).ravel() - 1, True
    if isinstance(space, spaces.MultiBinary):
        n = int(np.prod(space.shape))
        return np.zeros(n), np.ones(n), True
    if isinstance(space, spaces.Box):
        integer = np.issubdtype(space.dtype, np.integer)
        return space.low.astype(float).ravel(), space.high.astype(float).ravel(), integer
    raise TypeError(f"no flat encoding for {space!r}")


def _leaf_shape(space: spaces.Space) -> tuple[int, ...]:
    if isinstance(space, spaces.Discrete):
        return ()
    if isinstance(space, spaces.MultiDiscrete):
        return tuple(space.nvec.shape)
    return tuple(space.shape)


def flat_layout(space: spaces.Dict) -> list[FlatSlice]:
    """The flat layout of a ``Dict`` observation space, key by key in the space's order."""
    if not isinstance(space, spaces.Dict):
        raise TypeError(f"flat_layout needs a gymnasium Dict space, got {space!r}")
    layout = []
    start = 0
    for key, leaf in space.spaces.items():
        low, high, integer = _bounds(leaf)
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise ValueError(f"observation key {key!r} has unbounded values; cannot scale it")
        span = high - low
        width = int(span.max()) + 1 if span.size else 1
        if integer and width == 2 and np.all(span == 1):
            encoding, width = "binary", 1
        elif integer and width <= ONE_HOT_MAX:
            encoding = "one_hot"
        else:
            encoding, width = "scaled", 1
        stop = start + low.size * width
        layout.append(
            FlatSlice(
                key,
                start,
                stop,
                encoding,
                _leaf_shape(leaf),
                width,
                tuple(low.tolist()),
                tuple(high.tolist()),
            )
        )
        start = stop
    return layout


def flat_size(space: spaces.Dict) -> int:
    """Length of the flat vector of one observation."""
    layout = flat_layout(space)
    return layout[-1].stop if layout else 0


def flat_space(space: spaces.Dict) -> spaces.Box:
    """The ``Box`` a flat observation lives in: every feature is in ``[0, 1]``."""
    return spaces.Box(0.0, 1.0, shape=(flat_size(space),), dtype=np.float32)


@njit(cache=True)
def _write(parts: Any, out: np.ndarray) -> None:
    """Writes every part into ``out`` (N, size); a part is (values (N, m), start, one_hot,
    width, low (m,), scale (m,)). A value outside its key's range raises."""
    out[:] = 0.0
    for part in literal_unroll(parts):
        values, start, one_hot, width, low, scale = part
        n, m = values.shape
        for i in range(n):
            for j in range(m):
                if one_hot:
                    v = int(values[i, j]) - int(low[j])
                    if v < 0 or v >= width:
                        raise ValueError("observation value outside its space")
                    out[i, start + j * width + v] = 1.0
                else:
                    out[i, start + j] = (float(values[i, j]) - low[j]) * scale[j]


class FlatEncoder:
    """Writes observations of one ``Dict`` space into flat float32 rows (one compiled call)."""

    def __init__(self, space: spaces.Dict) -> None:
        self.space = space
        self.layout = flat_layout(space)
        self.size = self.layout[-1].stop if self.layout else 0
        self._plans = []
        for s in self.layout:
            low = np.asarray(s.low, dtype=np.float64)
            span = np.asarray(s.high, dtype=np.float64) - low
            scale = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 0.0)
            self._plans.append((s.start, s.encoding == "one_hot", s.width, low, scale))

    def parts(self, arrays: list[np.ndarray], n: int) -> tuple[Any, ...]:
        """The argument tuple for ``arrays`` (one per key, in layout order, leading axis n).
        Build it once for arrays that are updated in place, then call :meth:`write_parts`."""
        return tuple(
            (np.ascontiguousarray(a).reshape(n, -1), *plan)
            for a, plan in zip(arrays, self._plans, strict=True)
        )

    def write_parts(self, parts: tuple[Any, ...], out: np.ndarray) -> np.ndarray:
        _write(parts, out)
        return out

    def encode(self, obs: dict[str, Any], n: int | None = None) -> np.ndarray:
        """Flat rows of a batched observation dict (``n`` rows), or one row's vector when
        ``n`` is None and ``obs`` is a single observation."""
        rows = 1 if n is None else n
        arrays = [np.asarray(obs[s.key]) for s in self.layout]
        out = np.empty((rows, self.size), dtype=np.float32)
        self.write_parts(self.parts(arrays, rows), out)
        return out[0] if n is None else out


def flatten_observation(space: spaces.Dict, obs: dict[str, Any]) -> np.ndarray:
    """One observation of ``space`` as its flat float32 vector (see :func:`flat_layout`)."""
    return FlatEncoder(space).encode(obs)


class FlatVectorEnv(VectorWrapper):
    """The native vector env with one float32 ``(N, size)`` observation array.

    Steps and resets the wrapped env as usual (actions are checked, ``info`` is unchanged) and
    encodes straight from the batch's state arrays, which the wrapped env updates in place, so
    the Dict is never looked at key by key. ``out`` is reused: copy a returned observation if
    you keep it across steps. Under same-step autoreset ``info["final_obs"]`` holds flat
    vectors too.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not hasattr(base, "batch"):
            raise TypeError("FlatVectorEnv wraps hiddengrid's native vector env (make_vec)")
        self.encoder = FlatEncoder(base.single_observation_space)
        self.single_observation_space = flat_space(base.single_observation_space)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        fields = base.batch.fields
        names = base.definition.observation
        arrays = [fields[names[s.key]] for s in self.encoder.layout]
        self._parts = self.encoder.parts(arrays, self.num_envs)
        self._out = np.zeros((self.num_envs, self.encoder.size), dtype=np.float32)

    @property
    def layout(self) -> list[FlatSlice]:
        return self.encoder.layout

    def _flat(self) -> np.ndarray:
        return self.encoder.write_parts(self._parts, self._out)

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        _, info = self.env.reset(**kwargs)
        return self._flat(), info

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        _, reward, terminated, truncated, info = self.env.step(actions)
        if "final_obs" in info:  # same-step autoreset: the ended episodes' last observations
            final = info["final_obs"].copy()
            for i in np.flatnonzero(info["_final_obs"]):
                final[i] = self.encoder.encode(final[i])
            info = {**info, "final_obs": final}
        return self._flat(), reward, terminated, truncated, info


class FlatObservation(gym.ObservationWrapper):
    """A single env whose observation is the flat float32 vector of :func:`flat_layout`;
    the same vectors :class:`FlatVectorEnv` gives, for libraries that build single envs."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.encoder = FlatEncoder(env.observation_space)
        self.observation_space = flat_space(env.observation_space)

    @property
    def layout(self) -> list[FlatSlice]:
        return self.encoder.layout

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return self.encoder.encode(observation)
