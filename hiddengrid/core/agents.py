"""The agent interface shared by every env: agents act on a whole batch at once.

An agent is built from the vector env it will play (``Agent(env, seed)``) and called once per
step with the batched observation and a mask of the sub-envs whose observation is the first of
a new episode; after each step ``observe`` hands it the rewards and end flags the step returned
(learners use them, others ignore them). Fair agents (``reads_scenario = False``) use only those
arguments; an oracle may read the hidden state through ``env.batch``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces


class BatchAgent:
    """Base class: a policy over a batch of sub-envs."""

    name: ClassVar[str] = ""
    reads_scenario: ClassVar[bool] = False
    description: ClassVar[str] = ""

    def __init__(self, env: Any, seed: int = 0) -> None:
        self.num_envs = int(env.num_envs)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def observe(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """What the last step returned; the default agent does not learn."""
        return None


class RandomAgent(BatchAgent):
    """Uniform over the action space (over the legal actions where the env masks them)."""

    name = "random"
    description = "uniform random actions"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.space = env.single_action_space
        self.rng = np.random.default_rng(seed)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        if isinstance(self.space, spaces.Discrete):
            return self.rng.integers(0, int(self.space.n), size=self.num_envs)
        if isinstance(self.space, spaces.MultiDiscrete):
            return self.rng.integers(0, self.space.nvec, size=(self.num_envs, *self.space.shape))
        raise TypeError(f"RandomAgent does not support {self.space}")
