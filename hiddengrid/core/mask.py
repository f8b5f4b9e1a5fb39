"""Action masks as an engine capability.

An env whose legal actions change (a ``Discrete`` space over parameterised actions, such as
Megacity's) names in its definition the bool field where its kernels write the legal actions
now (``EnvDefinition.action_mask``). The engine then serves the rest for single, vector and
text envs alike: ``action_masks()``, ``info["action_mask"]``, the check that refuses a masked
action before anything changes, and an ``action_space`` whose ``sample()`` draws a legal one.
Code that needs to know asks ``definition.masked``; nothing probes for methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from numba import njit

if TYPE_CHECKING:
    from hiddengrid.core.batch import Batch


@njit(cache=True)
def first_illegal(mask: np.ndarray, done: np.ndarray, actions: np.ndarray) -> int:
    """The first sub-env whose action is masked (and that is not about to reset), or -1."""
    for i in range(actions.shape[0]):
        if not mask[i, actions[i]] and not done[i]:
            return i
    return -1


def check_legal(batch: Batch, actions: np.ndarray) -> None:
    """A masked action raises ``ValueError`` saying why, before anything changes (sub-envs
    about to be autoreset ignore their action and are not checked)."""
    definition = batch.definition
    mask = batch.fields[definition.action_mask]
    if batch.n == 1:  # the single env: one lookup costs less than the compiled call
        legal = batch.done.item(0) or mask.item(0, actions.item(0))
        i = -1 if legal else 0
    else:
        i = first_illegal(mask, batch.done, actions)
    if i >= 0:
        action = int(actions[i])
        where = f" in sub-env {i}" if batch.n > 1 else ""
        raise ValueError(
            f"illegal action {action}{where}: {definition.explain_masked(batch, i, action)}"
        )


def masks_of(batch: Batch) -> np.ndarray:
    """Legal actions of every sub-env now, ``(n, actions)`` ``int8`` (Gymnasium's mask dtype:
    ``action_space.sample(mask=...)`` takes it as it is)."""
    copied = batch.copied_mask
    if copied is not None:  # copied by the step's threads (see the vector env's step)
        batch.copied_mask = None
        return copied
    return batch.fields[batch.definition.action_mask].astype(np.int8)


def step_info_with_mask(
    step_info: Callable[[Batch, int], dict[str, Any]], batch: Batch, i: int
) -> dict[str, Any]:
    """The env's own step info of sub-env ``i`` and its legal actions now."""
    info = step_info(batch, i)
    info["action_mask"] = batch.fields[batch.definition.action_mask][i].astype(np.int8)
    return info


def vector_info_with_mask(
    vector_info: Callable[[Batch], dict[str, Any]], batch: Batch
) -> dict[str, Any]:
    """The env's own vector info and every sub-env's legal actions now (Gymnasium's masked
    info layout: the array and its ``_action_mask`` flags)."""
    info = vector_info(batch)
    info["action_mask"] = masks_of(batch)
    info["_action_mask"] = np.ones(batch.n, dtype=np.bool_)
    return info


def action_masks(batch: Batch, space: spaces.Space) -> np.ndarray:
    """Legal actions of every sub-env now, ``(n, width)`` bool. An env that does not mask its
    actions answers all-legal, shaped as sb3-contrib's maskable algorithms read a mask (one
    entry per choice of each action dimension), so every env answers the same question."""
    if batch.definition.masked:
        return batch.fields[batch.definition.action_mask].copy()
    width = int(space.n) if isinstance(space, spaces.Discrete) else int(np.sum(space.nvec))
    return np.ones((batch.n, width), dtype=np.bool_)


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` with no mask draws among the actions legal now.

    A masked action raises, so generic code that explores with ``env.action_space.sample()``
    (Gymnasium's own ``check_env`` among it) would otherwise fail on most draws. It holds only
    a view of the env's mask row (an array: no bound method, so it pickles); ``contains`` and
    equality are those of ``Discrete(n)``.
    """

    def __init__(self, n: int, legal: np.ndarray | None = None, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._legal = legal

    def sample(self, mask: Any = None, *args: Any, **kwargs: Any) -> np.int64:
        if mask is None and not args and not kwargs and self._legal is not None:
            mask = self._legal.astype(np.int8)
        return super().sample(mask, *args, **kwargs)

    def __deepcopy__(self, memo: dict) -> spaces.Discrete:
        # A copy stands alone: it samples like a plain Discrete, from a copy of the generator.
        copied = spaces.Discrete(int(self.n), start=int(self.start))
        copied.np_random.bit_generator.state = self.np_random.bit_generator.state
        return copied
