"""The single Gymnasium ``Env``: a batch of one over the env's compiled rules."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from hiddengrid.core.actions import check_single_action
from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import EnvDefinition
from hiddengrid.core.options import parse_reset_options
from hiddengrid.core.rng import check_seed, seed_array
from hiddengrid.render.window import Window, pygame_available, require_pygame

RENDER_MODES = ("ansi", "rgb_array", "human")


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
        self._obs_views = [
            (key, self.batch.fields[name], self.batch.fields[name].ndim == 1)
            for key, name in self.definition.observation.items()
        ]
        self._running = False
        self._seeded = False
        self._window: Window | None = None

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
        if scenarios is None:
            self.batch.reset_all()
        else:
            self.batch.load_scenario(0, scenarios[0])
        self._running = True
        if self.render_mode == "human":
            self.render()
        return self._observation(), self.definition.step_info(self.batch, 0)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if not self._running:
            raise RuntimeError("the episode is over (or never started): call reset() first")
        actions = check_single_action(self.action_space, action)
        if self.definition.extra_action_check is not None:
            self.definition.extra_action_check(self.batch, actions)
        self.batch.step(actions)
        terminated = bool(self.batch.terminated[0])
        info = self.definition.step_info(self.batch, 0)
        if terminated:
            info["outcome"] = self.batch.outcome_name(0)
            self._running = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(self.batch.reward[0]), terminated, False, info

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

    @property
    def episode_running(self) -> bool:
        return self._running

    def _observation(self) -> dict[str, Any]:
        return {key: (arr[0] if scalar else arr[0].copy()) for key, arr, scalar in self._obs_views}
