"""Supervised auxiliary tasks from training-only information, and per-episode statistics.

An auxiliary task gives, for every collected step, labels read from the env's hidden state
(the batch's arrays, which a policy never sees). A second head on the policy's encoder predicts
them, and its cross-entropy joins the PPO loss: the encoder is taught what the observation
means, the policy still acts on the observation alone, and the env's rewards and scores are
untouched. The head is dropped at evaluation time (its weights travel in the checkpoint). A
task whose ``head`` is ``"policy"`` puts its labels on the policy's own logits instead
(distillation from a teacher that reads the hidden state): use it only where the teacher's
action is a function of what the policy sees, so that a policy can learn it.

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
    head: str = "aux"  # "aux": a head of its own; "policy": the policy's logits


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


def _field_cipher_teacher(batch: Batch) -> np.ndarray:
    """The oracle's action (type the message left to right, then finalize): the message is
    the grid decoded with the fixed codebook, so this is a function of the observation."""
    from hiddengrid.envs.field_cipher.constants import CURSOR_RIGHT, FINALIZE, NUM_SLOTS

    fields = batch.fields
    message = np.asarray(fields["message"], dtype=np.int64)
    rows = np.arange(message.shape[0])
    cursor = np.asarray(fields["cursor"], dtype=np.int64)
    under = message[rows, cursor]
    wrong = np.asarray(fields["slots"])[rows, cursor] != under
    move = np.where(cursor < NUM_SLOTS - 1, CURSOR_RIGHT, FINALIZE)
    return np.where(wrong, under, move)[:, None].astype(np.int64)


def _field_cipher_slots_right(batch: Batch) -> np.ndarray:
    fields = batch.fields
    return (fields["slots"] == fields["message"]).astype(np.float64)


def _squad_recon_teacher(batch: Batch) -> np.ndarray:
    """The fair heuristic's orders on the current states (hiddengrid.train.squad_recon)."""
    from hiddengrid.train.squad_recon import squad_recon_teacher_labels

    return squad_recon_teacher_labels(batch)


def _megacity_teacher(batch: Batch) -> np.ndarray:
    """The memoryless expert's action on the current states (hiddengrid.train.megacity_teacher)."""
    from hiddengrid.train.megacity_teacher import megacity_teacher_labels

    return megacity_teacher_labels(batch)


AUXILIARIES: dict[str, Auxiliary] = {
    "field_cipher_message": Auxiliary(
        env_id="hiddengrid/FieldCipher-v0",
        sizes=(16, 16, 16, 16, 16, 2),
        labels=_field_cipher_message,
        doc="predict from the observation the hidden message's 4 hex digits, the digit under "
        "the cursor and whether its slot holds it already (labels from the scenario's "
        "message; the codebook that maps the picture to them is never given)",
    ),
    "field_cipher_teacher": Auxiliary(
        env_id="hiddengrid/FieldCipher-v0",
        sizes=(19,),
        labels=_field_cipher_teacher,
        doc="the policy's logits are also taught the oracle's action (it decodes the grid "
        "with the fixed codebook and types the message): a teacher that reads the codebook, "
        "whose actions a feed-forward policy can reproduce from the observation",
        head="policy",
    ),
    "squad_recon_teacher": Auxiliary(
        env_id="hiddengrid/SquadRecon-v0",
        sizes=(6, 6, 6),
        labels=_squad_recon_teacher,
        doc="the policy's logits are also taught the fair heuristic's orders on the states "
        "the policy visits (DAgger): the heuristic replanned every step, whose orders are a "
        "function of the observation (hiddengrid.train.squad_recon)",
        head="policy",
    ),
    "megacity_teacher": Auxiliary(
        env_id="hiddengrid/Megacity-v0",
        sizes=(390,),
        labels=_megacity_teacher,
        doc="DAgger: the policy's logits are also taught, on the states it visits, the action of "
        "a teacher that reads only the observation and the mask (the fair expert's planner, its "
        "targets recomputed every step from the current observation)",
        head="policy",
    ),
}

EPISODE_STATS: dict[str, EpisodeStat] = {
    "hiddengrid/FieldCipher-v0": EpisodeStat(
        columns=("slot0_right", "slot1_right", "slot2_right", "slot3_right"),
        values=_field_cipher_slots_right,
    ),
}
