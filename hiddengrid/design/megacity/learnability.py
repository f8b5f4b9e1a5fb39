"""The policies of the learnability targets: the fair expert with some of its actions replaced.

* ``noisy(rate)``: each step, with probability ``rate``, a uniformly random legal action
  instead of the expert's (what a learner that has nearly found the expert's plan plays).
* ``mixture(p)``: each step the expert's action with probability ``p``, else ``wait`` (a city
  built part of the way: p = 0 is waiting, p = 1 the expert).

Every random choice comes from each sub-env's own seeded stream (``core.agents``), never from
global state, so an episode plays the same in any batch and on any machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.agents import BatchAgent, agent_streams
from hiddengrid.core.rng import below_from
from hiddengrid.envs.megacity.agents import ExpertAgent
from hiddengrid.envs.megacity.constants import WAIT

SCALE = 1_000_000  # probabilities are drawn as integers out of this
REPLACE_SALT = 0x5EED_0F_A11  # the replacement stream, apart from the expert's own seed


@njit(cache=True)
def perturb(
    expert: np.ndarray, mask: np.ndarray, streams: np.ndarray, keep: int, random: bool, out
) -> None:
    """``out[j]`` is ``expert[j]`` with probability ``keep / SCALE``, else a uniform legal
    action (``random``) or ``WAIT``; every draw from row ``j``'s own stream."""
    n = mask.shape[1]
    for j in range(expert.shape[0]):
        state = streams[j]
        state, u = below_from(state, SCALE)
        a = expert[j]
        if u >= keep:
            if random:
                legal = 0
                for b in range(n):
                    legal += mask[j, b]
                state, k = below_from(state, legal)
                for b in range(n):
                    if mask[j, b]:
                        if k == 0:
                            a = b
                            break
                        k -= 1
            else:
                a = WAIT
        streams[j] = state
        out[j] = a


class PerturbedExpert(BatchAgent):
    """The fair expert whose action is kept with probability ``keep`` each step and otherwise
    replaced by a uniform legal action (``random``) or by ``wait``."""

    keep = 1.0
    random = True

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.expert = ExpertAgent(env, seed)
        self.streams = agent_streams(seed, self.num_envs, salt=REPLACE_SALT)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        expert = self.expert.act(obs, starts)
        perturb(
            expert, self.env.batch["mask"], self.streams, round(self.keep * SCALE),
            self.random, self.actions,
        )  # fmt: skip
        return self.actions.copy()


def noisy(rate: float) -> type[PerturbedExpert]:
    """The expert with ``rate`` of its actions replaced by uniformly random legal ones."""
    name = f"expert {100 * rate:g} % random"
    return type("NoisyExpert", (PerturbedExpert,), {"keep": 1.0 - rate, "name": name})


def mixture(p: float) -> type[PerturbedExpert]:
    """Each step the expert's action with probability ``p``, else ``wait``."""
    name = f"expert/wait p = {p:g}"
    return type("ExpertWaitMixture", (PerturbedExpert,), {"keep": p, "random": False, "name": name})


NOISE_RATES = (0.02, 0.05, 0.10)
MIXTURE_P = (0.0, 0.25, 0.5, 0.75, 1.0)
