"""Observation encoders: networks that replace the policy's two-layer MLP encoder, named by a
run's ``encoder`` setting (the empty name keeps the MLP).

An encoder reads the policy's whole input (the flat observation, the fed-back step with
memory, and its view's columns last) and returns ``hidden`` features, which the core (with
memory) and the heads read as they read the MLP's. The checkpoint keeps the name, so
evaluation builds the same network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn


@dataclass(frozen=True)
class Encoder:
    env_id: str
    views: tuple[str, ...]  # the observation views (``features``) it reads, () for any or none
    build: Callable[[int, int, int], nn.Module]  # (input size, view columns, hidden) -> module
    doc: str


def _squad_recon_squads(input_size: int, view_extra: int, hidden: int) -> nn.Module:
    from hiddengrid.train.squad_recon import SquadEncoder

    return SquadEncoder(input_size, view_extra, hidden)


def _squad_recon_cnn(input_size: int, view_extra: int, hidden: int) -> nn.Module:
    from hiddengrid.train.squad_recon import SquadMapCNN

    return SquadMapCNN(input_size, view_extra, hidden)


ENCODERS: dict[str, Encoder] = {
    "squad_recon_squads": Encoder(
        env_id="hiddengrid/SquadRecon-v0",
        views=("squad_recon_view", "squad_recon_paths"),
        build=_squad_recon_squads,
        doc="one network shared by the three squads reads each squad's egocentric view "
        "(with a summary of the whole observation and which squad it is); a layer mixes "
        "the three squads' features and the summary",
    ),
    "squad_recon_cnn": Encoder(
        env_id="hiddengrid/SquadRecon-v0",
        views=(),
        build=_squad_recon_cnn,
        doc="two 3x3 convolutions (16 channels) over ten map channels read from the flat "
        "observation (terrain, visible cells, each squad, the detected camps, where a camp "
        "may stand), beside the whole input into two ReLU layers",
    ),
}


def build_encoder(name: str, input_size: int, view_extra: int, hidden: int) -> nn.Module | None:
    """The named encoder for an input of ``input_size`` columns whose last ``view_extra``
    are its view's (None for no name: the policy builds its MLP)."""
    return ENCODERS[name].build(input_size, view_extra, hidden) if name else None
