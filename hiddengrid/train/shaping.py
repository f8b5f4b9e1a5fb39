"""Potential-based reward shaping from training-only information (the env's hidden state).

A shaping adds ``phi(s') - phi(s)`` to each step's reward, where ``phi`` reads the batch's
state arrays (which a policy never sees), with ``phi = 0`` after an episode's last step. Over an
episode the added terms sum to ``phi(end) - phi(start) = 0 - phi(start)``; every shaping here
has ``phi(start) = 0``, so an episode's return is unchanged: only when the reward arrives moves.
The env's rewards, success and the scored returns stay the env's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hiddengrid.core.batch import Batch


@dataclass(frozen=True)
class Shaping:
    env_id: str
    potential: Callable[[Batch], np.ndarray]
    doc: str


def _field_cipher_slots(batch: Batch) -> np.ndarray:
    from hiddengrid.envs.field_cipher.rules import SLOT_CREDIT

    fields = batch.fields
    right = (fields["slots"] == fields["message"]).sum(axis=1)
    return SLOT_CREDIT * right.astype(np.float64)


SHAPINGS: dict[str, Shaping] = {
    "field_cipher_slots": Shaping(
        env_id="hiddengrid/FieldCipher-v0",
        potential=_field_cipher_slots,
        doc="0.25 per slot holding the message's character: a right character is paid when "
        "written (taken back when overwritten), the final reward then adds nothing",
    ),
}
