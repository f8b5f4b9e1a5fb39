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
from numba import njit, prange

from hiddengrid.core.kernel import run_rows
from hiddengrid.core.rng import below_from, seed_streams

REJECTION_TRIES = 32
# Agent streams are seeded like the env's (seed + i for sub-env i) but salted, so an agent
# never replays the very numbers its sub-env drew for the scenario.
AGENT_SALT = np.uint64(0xD1B54A32D192ED03)


def agent_streams(seed: int, n: int, salt: int = 0) -> np.ndarray:
    """One random stream per sub-env, stream ``i`` fixed by ``seed + i`` (and ``salt``, which
    sets an agent's second family of streams apart from its first) alone: an agent that draws
    only from its sub-env's stream plays an episode the same whatever the batch around it (what
    makes sharded evaluation equal a single run)."""
    seeds = np.array([(seed + i) & (2**64 - 1) for i in range(n)], dtype=np.uint64)
    streams = np.zeros(n, dtype=np.uint64)
    seed_streams(streams, seeds ^ np.uint64(AGENT_SALT ^ salt))
    return streams


@njit(cache=True)
def uniform_choice(sizes: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``out[i, j]`` uniform in ``[0, sizes[j])``, drawn from row ``i``'s own stream."""
    for i in prange(out.shape[0]):
        state = rng[i]
        for j in range(sizes.shape[0]):
            state, a = below_from(state, sizes[j])
            out[i, j] = a
        rng[i] = state


@njit(cache=True)
def masked_choice(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniform legal action per row of ``masks`` (N, n), from each row's own stream.

    Rejection sampling first (a few byte reads when many actions are legal), then an exact
    scan for rows where few are: both are uniform over the legal actions.
    """
    n = masks.shape[1]
    for i in prange(masks.shape[0]):
        state = rng[i]
        chosen = -1
        for _ in range(REJECTION_TRIES):
            state, a = below_from(state, n)
            if masks[i, a]:
                chosen = a
                break
        if chosen < 0:
            legal = 0
            for a in range(n):
                legal += masks[i, a]
            state, k = below_from(state, max(legal, 1))
            for a in range(n):
                if masks[i, a]:
                    if k == 0:
                        chosen = a
                        break
                    k -= 1
        rng[i] = state
        out[i] = chosen


class BatchAgent:
    """Base class: a policy over a batch of sub-envs."""

    name: ClassVar[str] = ""
    reads_scenario: ClassVar[bool] = False
    description: ClassVar[str] = ""
    # True for an agent that carries what it learns from one episode into the next (across
    # the batch too): its results depend on which episodes share its lifetime, so sharded
    # evaluation keeps its shards aligned with the batches of a single run.
    learns_across_episodes: ClassVar[bool] = False

    def __init__(self, env: Any, seed: int = 0) -> None:
        self.num_envs = int(env.num_envs)
        # Agents whose loops run in Numba use the vector env's threads (results do not
        # depend on the count; see hiddengrid.core.kernel).
        self.num_threads = int(getattr(env, "num_threads", 1))

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def observe(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """What the last step returned; the default agent does not learn."""
        return None


class RandomAgent(BatchAgent):
    """Uniform over the action space (over the legal actions where the env masks them)."""

    name = "random"
    description = "uniform random actions (over the legal ones where the env masks actions)"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.space = env.single_action_space
        self.masked = env.unwrapped.definition.masked
        if isinstance(self.space, spaces.Discrete):
            self.sizes = np.array([int(self.space.n)], dtype=np.int64)
        elif isinstance(self.space, spaces.MultiDiscrete):
            self.sizes = np.asarray(self.space.nvec, dtype=np.int64).reshape(-1)
        else:
            raise TypeError(f"RandomAgent does not support {self.space}")
        self.streams = agent_streams(seed, self.num_envs)
        self.actions = np.zeros((self.num_envs, self.sizes.size), dtype=np.int64)
        self.chosen = np.zeros(self.num_envs, dtype=np.int64)  # masked: one index per row

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        if self.masked:
            masks = np.asarray(self.env.action_masks()).reshape(self.num_envs, -1)
            run_rows(self.num_threads, masked_choice, masks, self.streams, self.chosen)
            return self.chosen.copy()
        run_rows(
            self.num_threads, uniform_choice, self.sizes, self.streams, self.actions, whole=(0,)
        )
        if isinstance(self.space, spaces.Discrete):
            return self.actions[:, 0] + int(self.space.start)
        return (self.actions + np.asarray(self.space.start).reshape(-1)).reshape(
            self.num_envs, *self.space.shape
        )
