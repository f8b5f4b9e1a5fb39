"""The single Gymnasium ``Env``: a batch of one over the env's compiled rules."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numba import njit

from hiddengrid.core.actions import check_single_action
from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import EnvDefinition
from hiddengrid.core.kernel import direct_entry
from hiddengrid.core.mask import LegalActionSpace, action_masks
from hiddengrid.core.options import parse_reset_options
from hiddengrid.core.rng import check_seed, seed_array
from hiddengrid.render.window import Window, pygame_available, require_pygame

RENDER_MODES = ("ansi", "rgb_array", "human")
INT64 = np.dtype(np.int64)  # NumPy's one int64 dtype: an identity test costs half an ==


@njit(cache=True)
def copy_if_in_range(action: np.ndarray, upper: np.ndarray, out: np.ndarray) -> bool:
    """Copies a contiguous 1-D int64 action into ``out[0]`` if every entry lies in
    ``[0, upper)``."""
    for j in range(upper.shape[0]):
        if action[j] < 0 or action[j] >= upper[j]:
            return False
    for j in range(upper.shape[0]):
        out[0, j] = action[j]
    return True


def check_render_mode(render_mode: object, allowed: tuple[str, ...]) -> None:
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode must be one of {allowed} or None, got {render_mode!r}")
    if render_mode == "human":
        require_pygame()


class HiddenGridEnv(gym.Env):
    """Shared plumbing of every hiddengrid single env; the rules live in the env's ``rules.py``."""

    definition: ClassVar[EnvDefinition]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, render_mode: str | None = None, **kwargs: Any) -> None:
        config = self.definition.configure(kwargs)
        check_render_mode(render_mode, RENDER_MODES)
        self.render_mode = render_mode
        if not pygame_available():
            # An env advertises "human" only where pygame is installed, so Gymnasium's checker
            # (which tries every advertised mode) passes on a base install. The class keeps it:
            # gym.make(render_mode="human") then reaches __init__, which says what to install.
            modes = [m for m in self.metadata["render_modes"] if m != "human"]
            self.metadata = {**self.metadata, "render_modes": modes}
        self.config = config
        self.batch = Batch(self.definition, 1, config)
        self.observation_space = self.definition.observation_space(config)
        self.action_space = self.definition.action_space(config)
        if self.definition.masked:
            # sample() draws among the legal actions: a masked one would raise
            self.action_space = LegalActionSpace(
                int(self.action_space.n), legal=self.batch[self.definition.action_mask][0]
            )
        self._build_fast_path()
        self._running = False
        self._seeded = False
        self._window: Window | None = None

    # The step's hot path (measured in docs/performance.md): the action goes into one
    # preallocated buffer, the kernel is called without Numba's type dispatch, and each
    # observation key is one copy of a row view made here (a scalar is read as such). These
    # are derived from the batch: a pickled or copied env rebuilds them over its own arrays
    # (compiled entry points do not pickle, and a pickled view would be a detached copy).
    _FAST_PATH = (
        "_obs_rows",
        "_discrete_n",
        "_action",
        "_row_shape",
        "_row_strides",
        "_upper",
        "_copy_row",
        "_step_kernel",
        "_reset_kernel",
        "_step_args",
        "_extra_check",
        "_step_info",
    )

    def _build_fast_path(self) -> None:
        self._obs_rows = [
            (key, arr, None if arr.ndim == 1 else arr[0])
            for key, arr in (
                (k, self.batch.fields[n]) for k, n in self.definition.observation.items()
            )
        ]
        self._step_kernel: Any = None  # resolved on the first step
        # Looked up once: each attribute chain costs tens of ns in a step of a few us.
        self._step_args = self.batch._step_args
        self._extra_check = self.definition.extra_action_check
        self._step_info = self.definition.step_info
        self._reset_kernel: Any = None  # resolved on the first reset
        space = self.action_space
        self._discrete_n = int(space.n) if isinstance(space, spaces.Discrete) else 0
        self._action = np.zeros((1, *space.shape), dtype=np.int64)
        # A 1-D multi-discrete action: a contiguous int64 row is checked and copied by compiled
        # code called directly (Numba's dispatch would cost more than the check).
        self._row_shape = None
        if isinstance(space, spaces.MultiDiscrete) and len(space.shape) == 1:
            self._row_shape = space.shape
            self._row_strides = (8,)
            self._upper = np.asarray(space.nvec, dtype=np.int64)
            self._copy_row = direct_entry(copy_if_in_range, self._upper, self._upper, self._action)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._FAST_PATH:
            state.pop(name, None)
        state["_window"] = None  # a window belongs to the process that opened it
        return state

    def __getattr__(self, name: str) -> Any:
        # Reached only when normal lookup fails: once per fast-path attribute after a copy. The
        # fast path is rebuilt on first use rather than while unpickling, because unpickling can
        # reach the env through a reference cycle (a space holding a view of its mask) before
        # the objects its state points to are themselves restored.
        fast = name in type(self)._FAST_PATH and "_obs_rows" not in self.__dict__
        if fast and "batch" in self.__dict__:
            self._build_fast_path()
            if name in self.__dict__:
                return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # --- Gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            seed = check_seed(seed)
        scenarios = parse_reset_options(self.definition, self.config, options, 1, vector=False)
        super().reset(seed=seed)
        if seed is None and not self._seeded:
            # The first unseeded reset takes fresh entropy from this env's own generator.
            seed = int(self.np_random.integers(0, 2**63))
        if seed is not None:
            self.batch.seed(seed_array(seed, 1))
            self._seeded = True
        batch = self.batch
        if scenarios is None:
            if self._reset_kernel is None:
                self._reset_kernel = direct_entry(self.definition.reset_done, *batch._reset_args)
            batch.done[0] = True
            self._reset_kernel(*batch._reset_args)  # what batch.reset_all() does, for one
            batch.reward[0] = 0.0
            batch.terminated[0] = False
        else:
            batch.load_scenario(0, scenarios[0])
        self._running = True
        if self.render_mode == "human":
            self.render()
        return self._observation(), self.definition.step_info(self.batch, 0)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if not self._running:
            raise RuntimeError("the episode is over (or never started): call reset() first")
        # Fast paths for the common action types, accepting exactly what check_single_action
        # accepts; anything else goes through it (and its error message).
        actions = self._action
        kind = type(action)
        if (kind is int or kind is np.int64) and 0 <= action < self._discrete_n:
            actions[0] = action
        elif not (
            kind is np.ndarray
            and self._row_shape is not None
            and action.dtype is INT64
            and action.shape == self._row_shape
            and action.strides == self._row_strides
            and self._copy_row(action, self._upper, actions)
        ):
            actions = check_single_action(self.action_space, action)
        batch = self.batch
        if self._extra_check is not None:
            self._extra_check(batch, actions)
        if actions is self._action:
            if self._step_kernel is None:
                self._step_kernel = direct_entry(
                    self.definition.step_all, actions, *self._step_args
                )
            self._step_kernel(actions, *self._step_args)
        else:
            batch.step(actions)
        terminated = batch.terminated.item(0)
        info = self._step_info(batch, 0)
        if terminated:
            info["outcome"] = batch.outcome_name(0)
            self._running = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), batch.reward.item(0), terminated, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.definition.render_ansi(self.batch, 0)
        if self.render_mode == "rgb_array":
            return self.definition.render_rgb(self.batch, 0)
        if self.render_mode == "human":
            if self._window is None:
                self._window = Window(self.definition.id, self.metadata["render_fps"])
            self._window.show(self.definition.render_rgb(self.batch, 0))
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # --- hiddengrid extras -------------------------------------------------------------
    @property
    def scenario(self) -> dict[str, Any]:
        """The hidden scenario of the current episode as a JSON-serialisable dict."""
        if not self._seeded and not self._running:
            raise RuntimeError("no episode yet: call reset() first")
        return self.batch.scenario(0)

    def action_masks(self) -> np.ndarray:
        """The actions legal now, bool, one entry per action (all of them where the env does
        not mask its actions: ``definition.masked`` says whether it does)."""
        return action_masks(self.batch, self.action_space)[0]

    @property
    def episode_running(self) -> bool:
        return self._running

    def _observation(self) -> dict[str, Any]:
        return {key: arr[0] if row is None else row.copy() for key, arr, row in self._obs_rows}
