"""Builds the pictures of Megacity's docs page (run offline):

    python -m hiddengrid.design.megacity.make_docs [out_dir]

Writes megacity_heuristic.png (the fair expert after 18 steps of seed 11), megacity_start.png
(the expert after its research and scan on seed 7) and megacity_oracle_end.png (the oracle's
city at step 40 of seed 7). The numbers of the page come from ``calibration.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.envs.megacity.env import ENV_ID
from hiddengrid.record import play_recorded

PICTURES = (  # file, agent, seed, frame (after that many actions; -1: the last)
    ("megacity_heuristic.png", "heuristic", 11, 18),
    ("megacity_start.png", "heuristic", 7, 3),
    ("megacity_oracle_end.png", "oracle", 7, -1),
)


def main(out_dir: str = "docs/images") -> None:
    from PIL import Image

    for name, agent, seed, frame in PICTURES:
        shots = play_recorded(ENV_ID, agent, seed).frames
        Image.fromarray(shots[min(frame, len(shots) - 1)]).save(Path(out_dir) / name)
        print(f"{name}: {agent} on seed {seed}, frame {frame} of {len(shots) - 1}")


if __name__ == "__main__":
    main(*sys.argv[1:])
