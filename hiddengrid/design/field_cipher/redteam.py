"""FieldCipher's red team: answers that ignore the codebook.

The **constant answer** types the same four characters every episode (``0000``; the message is
uniform over hex, so every constant answer scores alike) and finalizes: it reads neither the
grid nor the hints. Each slot is right 1 time in 16, so its mean return is about 0.0625 and it
almost never wins; an agent that beats it reads the picture.
``python -m hiddengrid.design.field_cipher.redteam [episodes]`` prints its row at every level.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from hiddengrid.core.agents import BatchAgent
from hiddengrid.envs.field_cipher.constants import CURSOR_RIGHT, FINALIZE, NUM_LEVELS
from hiddengrid.evaluate import run_episodes

PLAN = (0, CURSOR_RIGHT, 0, CURSOR_RIGHT, 0, CURSOR_RIGHT, 0, FINALIZE)  # "0000", submit


class ConstantAnswer(BatchAgent):
    """Types ``0000`` and finalizes, whatever it sees."""

    name = "constant"
    description = "types 0000 and finalizes, reading neither the grid nor the hints"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.step = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        self.step[np.asarray(starts, dtype=bool)] = 0
        actions = np.asarray(PLAN, dtype=np.int64)[np.minimum(self.step, len(PLAN) - 1)]
        self.step += 1
        return actions


def main(argv: list[str]) -> int:
    episodes = int(argv[0]) if argv else 10_000
    for level in range(NUM_LEVELS):
        r = run_episodes(
            "hiddengrid/FieldCipher-v0",
            "constant",
            episodes,
            seed=0,
            env_kwargs={"level": level},
            agent_factory=ConstantAnswer,
        )
        low, high = r.interval
        print(
            f"| {level} | constant answer 0000 (red team) | {r.success_rate:.4f} | "
            f"[{low:.4f}, {high:.4f}] | {r.mean_return:.4f} | {r.mean_length:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
