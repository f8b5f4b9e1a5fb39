"""SquadRecon's training aids: the fair heuristic as a DAgger teacher.

The env's fair heuristic (``SearchAgent``) reads only the observation (the explored map, the
squads, the detected camps) and one published rule (camps stand at Chebyshev distance >= 5
from ``[14, 0]``). It keeps two arrays between steps (which camp each squad heads for, and when
it last planned); replanned on every step instead, its action is a function of the current
observation alone. Measured on development seeds (1,000,000 on, 1,024 sub-envs, 200 steps):
the replanning variant picks the same joint order as the original on 99.8 % of the original's
states and 93.6 % of a poor student's, and wins as often (72.2 % against 72.1 %). So a
feed-forward policy can learn it, and it can label any state the student reaches: the
teacher auxiliary (:mod:`hiddengrid.train.auxiliary`, ``head="policy"``) then puts its action
on the policy's logits for every collected step, which is DAgger with the student acting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hiddengrid.core.batch import Batch

ENV_ID = "hiddengrid/SquadRecon-v0"


class _BatchView:
    """What an agent's constructor reads of a vector env: its size and thread count."""

    def __init__(self, n: int) -> None:
        self.num_envs = n
        self.num_threads = 1


def replanning_heuristic_class() -> type:
    """The fair heuristic with its plan recomputed on every step (its third parameter): no
    state is carried between steps, so its action depends on the observation alone."""
    from hiddengrid.envs.squad_recon.agents import SearchAgent

    class ReplanningHeuristic(SearchAgent):
        params = (SearchAgent.params[0], SearchAgent.params[1], 1, SearchAgent.params[3])

    return ReplanningHeuristic


class HeuristicTeacher:
    """Labels a batch's current states with the replanning heuristic's orders. One agent per
    batch (its scratch arrays are sized by the batch), rebuilt when the batch changes."""

    def __init__(self) -> None:
        self._batch: Batch | None = None
        self._agent: Any = None
        self._keys: dict[str, str] = {}
        self._starts: np.ndarray = np.ones(0, dtype=bool)

    def __call__(self, batch: Batch) -> np.ndarray:
        if batch is not self._batch:
            from hiddengrid.registry import definition_of

            n = int(batch.fields["explored"].shape[0])
            self._agent = replanning_heuristic_class()(_BatchView(n))
            self._keys = dict(definition_of(ENV_ID).observation)
            self._starts = np.ones(n, dtype=bool)
            self._batch = batch
        obs = {key: batch.fields[name] for key, name in self._keys.items()}
        return np.asarray(self._agent.act(obs, self._starts), dtype=np.int64)


squad_recon_teacher_labels = HeuristicTeacher()
