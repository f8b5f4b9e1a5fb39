"""Observation views: weightless modules that add features computed from the flat observation
(the same information in another frame), named by a run's ``features`` setting.

A view reads the flat observation a policy gets and appends ``view.extra`` columns; the policy's
first layer takes both. The checkpoint keeps the name, so evaluation builds the same view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn


@dataclass(frozen=True)
class View:
    env_id: str
    build: Callable[[int], nn.Module]  # flat observation size -> module with ``extra``
    doc: str


def _squad_recon_view(obs_size: int) -> nn.Module:
    from hiddengrid.train.squad_recon import SquadReconView

    return SquadReconView(obs_size)


def _squad_recon_paths(obs_size: int) -> nn.Module:
    from hiddengrid.train.squad_recon import SquadReconPaths

    return SquadReconPaths(obs_size)


FEATURES: dict[str, View] = {
    "squad_recon_view": View(
        env_id="hiddengrid/SquadRecon-v0",
        build=_squad_recon_view,
        doc="per squad, the map around it (9x9 cells: unexplored, blocked, standing camp, "
        "unexplored where a camp may stand), the unexplored camp-possible cells north, south, "
        "east and west of it, and each detected camp's offset from it",
    ),
    "squad_recon_paths": View(
        env_id="hiddengrid/SquadRecon-v0",
        build=_squad_recon_paths,
        doc="squad_recon_view and, per squad and detected camp, whether it can reach the camp "
        "over the map as known, the length of the shortest way and which orders shorten it",
    ),
}


def build_view(name: str, obs_size: int) -> nn.Module | None:
    """The named view for a flat observation of ``obs_size`` features (None for no name)."""
    return FEATURES[name].build(obs_size) if name else None
