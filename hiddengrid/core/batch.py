"""A batch of N sub-envs of one kind as struct-of-arrays state, and the calls into its kernels.

The single env is a ``Batch`` of one and the vector env a ``Batch`` of N: both run the very same
compiled rules. Python touches the arrays only to seed, replay a scenario or read results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.definition import EnvDefinition
from hiddengrid.core.kernel import run_rows
from hiddengrid.core.rng import seed_streams


class Batch:
    """State of ``n`` sub-envs: per-env random streams, episode flags and the env's fields.

    ``num_threads`` (already checked, see :mod:`hiddengrid.core.kernel`) is how many threads
    ``reset_all``, ``reset_done`` and ``step`` run the sub-envs on; results do not depend on it.
    """

    def __init__(
        self,
        definition: EnvDefinition,
        n: int,
        config: Mapping[str, Any],
        num_threads: int = 1,
    ) -> None:
        if n < 1:
            raise ValueError(f"num_envs must be at least 1, got {n}")
        self.definition = definition
        self.n = n
        self.num_threads = num_threads
        self.config = dict(config)
        self.rng = np.zeros(n, dtype=np.uint64)
        self.done = np.zeros(n, dtype=np.bool_)  # episode over; the next step resets it
        self.outcome = np.zeros(n, dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        # The action mask as int8, when the step's threads copied it (taken by the next info).
        self.copied_mask: np.ndarray | None = None
        self.fields: dict[str, np.ndarray] = {
            f.name: np.zeros((n, *f.shape), dtype=f.dtype) for f in definition.fields
        }
        definition.setup(self)
        field_arrays = tuple(self.fields.values())
        self._reset_args = (self.rng, self.done, self.outcome, *field_arrays)
        self._step_args = (
            self.rng,
            self.done,
            self.outcome,
            self.reward,
            self.terminated,
            *field_arrays,
        )
        self._field_arrays = field_arrays

    def __getitem__(self, name: str) -> np.ndarray:
        return self.fields[name]

    def observation_views(self) -> dict[str, np.ndarray]:
        """The observation as an agent or a policy sees it: each key of the definition's
        observation, a view (not a copy) of its field for every sub-env."""
        return {key: self.fields[name] for key, name in self.definition.observation.items()}

    def seed(self, seeds: np.ndarray) -> None:
        seed_streams(self.rng, seeds.astype(np.uint64))

    def reset_all(self) -> None:
        """Starts a new episode in every sub-env: every one marked done, then the reset kernel."""
        self.done[:] = True
        self.reset_done()
        self.reward[:] = 0.0
        self.terminated[:] = False

    def step(self, actions: np.ndarray, then: Any = None, then_args: tuple[Any, ...] = ()) -> None:
        """One step of every sub-env; ``then(lo, hi, *then_args)`` runs on each thread's rows
        right after it (see :func:`hiddengrid.core.kernel.run_rows`)."""
        run_rows(
            self.num_threads,
            self.definition.step_all,
            actions,
            *self._step_args,
            then=then,
            then_args=then_args,
        )

    def reset_done(self) -> None:
        """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
        autoreset, or all of them from :meth:`reset_all`)."""
        run_rows(self.num_threads, self.definition.reset_done, *self._reset_args)

    def load_scenario(self, i: int, arrays: Mapping[str, np.ndarray]) -> None:
        """Writes a validated scenario into sub-env ``i`` and starts its episode."""
        for name, value in arrays.items():
            self.fields[name][i] = value
        self.done[i] = False
        self.outcome[i] = 0
        self.reward[i] = 0.0
        self.terminated[i] = False
        self.definition.start_episode(i, *self._field_arrays)

    def scenario(self, i: int) -> dict[str, Any]:
        return self.definition.read_scenario(self, i)

    def outcome_name(self, i: int) -> str:
        return self.definition.outcomes[int(self.outcome[i])]

    def snapshot(self) -> dict[str, np.ndarray]:
        """A deep copy of every array, for tests that check a rejected call changed nothing."""
        out = {f"field:{k}": v.copy() for k, v in self.fields.items()}
        for name in ("rng", "done", "outcome", "reward", "terminated"):
            out[name] = getattr(self, name).copy()
        return out
