"""InvertedTreasure's red team: a policy that reads the icons the usual way.

The **literal reader** reveals every tile it stands on (in the Scout variant that shows the
four neighbours too) but believes the icons: it walks to the nearest revealed Flower and keeps
off the Bomb. Everything it sees is true; only the hidden rule (the icons mean the opposite)
is ignored. The env is sound when it loses nearly always: winning needs the rule, not the
pictures. ``python -m hiddengrid.design.inverted_treasure.redteam [episodes]`` prints its row
for both variants over the same seeded episodes as the agents' table on the page.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from hiddengrid.core.agents import BatchAgent
from hiddengrid.envs.inverted_treasure.constants import (
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
    REVEAL,
    WINDOW_RADIUS,
)
from hiddengrid.evaluate import run_episodes

UNSEEN, EMPTY, BOMB, FLOWER, OUTSIDE = range(5)
# (row, col) offsets in the north-up window, with the move that goes there
STEPS = ((-1, 0, MOVE_NORTH), (1, 0, MOVE_SOUTH), (0, -1, MOVE_WEST), (0, 1, MOVE_EAST))


def literal_action(window: np.ndarray) -> int:
    """One sub-env's action from its 5x5 window (centre = the agent)."""
    c = WINDOW_RADIUS
    if window[c, c] == UNSEEN:  # in the Scout variant this also reveals the four neighbours
        return REVEAL
    for goal in (FLOWER, UNSEEN):  # the "treasure" it believes in, else somewhere new
        cells = np.argwhere(window == goal)
        if len(cells):
            r, col = min(cells.tolist(), key=lambda rc: abs(rc[0] - c) + abs(rc[1] - c))
            for dr, dc, move in STEPS:
                closer = abs(r - c - dr) + abs(col - c - dc) < abs(r - c) + abs(col - c)
                if closer and window[c + dr, c + dc] not in (BOMB, OUTSIDE):
                    return move
    for dr, dc, move in STEPS[::-1]:  # east first, then west, south, north: sweep on
        if window[c + dr, c + dc] not in (BOMB, OUTSIDE):
            return move
    return REVEAL


class LiteralReader(BatchAgent):
    """Believes the icons: Flowers are treasure, the Bomb is a bomb (a Python loop: a red team
    is measured, not trained against)."""

    name = "literal"
    description = "scouts, then walks to Flowers and avoids the Bomb (the icons read as usual)"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        for i, window in enumerate(obs["window"]):
            self.actions[i] = literal_action(window)
        return self.actions.copy()


def main(argv: list[str]) -> int:
    episodes = int(argv[0]) if argv else 10_000
    for env_id in ("hiddengrid/InvertedTreasure-v0", "hiddengrid/InvertedTreasure-Scout-v0"):
        r = run_episodes(env_id, "literal", episodes, seed=0, agent_factory=LiteralReader)
        low, high = r.interval
        print(
            f"| {env_id.split('/')[1]} | literal reader (red team) | {r.success_rate:.4f} | "
            f"[{low:.4f}, {high:.4f}] | {r.mean_length:.2f} | "
            + ", ".join(f"{k} {v}" for k, v in sorted(r.outcomes.items()))
            + " |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
