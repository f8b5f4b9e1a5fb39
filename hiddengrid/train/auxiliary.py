"""Supervised auxiliary tasks from training-only information, and per-episode statistics.

An auxiliary task gives, for every collected step, labels read from the env's hidden state
(the batch's arrays, which a policy never sees). A second head on the policy's encoder predicts
them, and its cross-entropy joins the PPO loss: the encoder is taught what the observation
means, the policy still acts on the observation alone, and the env's rewards and scores are
untouched. The head is dropped at evaluation time (its weights travel in the checkpoint).

An episode statistic is a row of numbers per ended episode, read from the batch before the
sub-env resets (FieldCipher: which slots held the message's character), averaged per update
into extra CSV columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hiddengrid.core.batch import Batch


@dataclass(frozen=True)
class Auxiliary:
    env_id: str
    sizes: tuple[int, ...]  # classes of each label component
    labels: Callable[[Batch], np.ndarray]  # (n, len(sizes)) int64, one row per sub-env
    doc: str


@dataclass(frozen=True)
class EpisodeStat:
    columns: tuple[str, ...]
    values: Callable[[Batch], np.ndarray]  # (n, len(columns)) float, read at an episode's end


def _field_cipher_message(batch: Batch) -> np.ndarray:
    """The 4 digits, then the digit under the cursor, then whether that slot already holds it:
    the last two are what a feed-forward policy needs to choose its next action directly."""
    fields = batch.fields
    message = np.asarray(fields["message"], dtype=np.int64)
    rows = np.arange(message.shape[0])
    cursor = np.asarray(fields["cursor"], dtype=np.int64)
    under = message[rows, cursor]
    right = (np.asarray(fields["slots"])[rows, cursor] == under).astype(np.int64)
    return np.column_stack([message, under, right])


def _field_cipher_slots_right(batch: Batch) -> np.ndarray:
    fields = batch.fields
    return (fields["slots"] == fields["message"]).astype(np.float64)


AUXILIARIES: dict[str, Auxiliary] = {
    "field_cipher_message": Auxiliary(
        env_id="hiddengrid/FieldCipher-v0",
        sizes=(16, 16, 16, 16, 16, 2),
        labels=_field_cipher_message,
        doc="predict from the observation the hidden message's 4 hex digits, the digit under "
        "the cursor and whether its slot holds it already (labels from the scenario's "
        "message; the codebook that maps the picture to them is never given)",
    ),
}

EPISODE_STATS: dict[str, EpisodeStat] = {
    "hiddengrid/FieldCipher-v0": EpisodeStat(
        columns=("slot0_right", "slot1_right", "slot2_right", "slot3_right"),
        values=_field_cipher_slots_right,
    ),
}
