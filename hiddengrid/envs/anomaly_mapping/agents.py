"""AnomalyMapping agents: random (floor), a fair field-reading sweeper, and an oracle (ceiling)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import run_on
from hiddengrid.envs.anomaly_mapping.constants import (
    DIR_COL,
    DIR_ROW,
    EAST,
    GRID_SIZE,
    MARK,
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
    NORTH,
    SOUTH,
    WEST,
)
from hiddengrid.envs.anomaly_mapping.rules import is_wall

ACTION_OF_DIRECTION = np.array([MOVE_NORTH, MOVE_EAST, MOVE_SOUTH, MOVE_WEST], dtype=np.int64)
NO_MOVE = -1


@njit(cache=True)
def _climb_direction(view: np.ndarray, i: int) -> int:
    """The direction towards the strongest reading in the window, or -1 if none beats the centre.

    A diagonal maximum is approached along the axis whose orthogonal neighbour reads higher.
    """
    centre = view[i, 1, 1]
    best = centre
    best_r = 1
    best_c = 1
    for r in range(3):
        for c in range(3):
            # Orthogonal cells win ties against diagonal ones: they are one move away.
            if view[i, r, c] > best or (
                view[i, r, c] == best
                and best > centre
                and (r == 1 or c == 1)
                and best_r != 1
                and best_c != 1
            ):
                best = view[i, r, c]
                best_r = r
                best_c = c
    if best == centre:
        return NO_MOVE
    if best_r != 1 and best_c != 1:
        vertical = view[i, best_r, 1]
        horizontal = view[i, 1, best_c]
        if horizontal > vertical:
            best_r = 1
        else:
            best_c = 1
    if best_r == 0:
        return NORTH
    if best_r == 2:
        return SOUTH
    return EAST if best_c == 2 else WEST


@njit(cache=True)
def heuristic_act(view, facing, starts, vertical, horizontal, phase, last_move, last_facing, out):
    """Sweeps diagonally (alternating a vertical and a horizontal move, so the facing after each
    move tells whether it went through) and bounces off what blocks it; once the window reads a
    non-zero level it climbs the field, and it marks where the centre reads 2 or more."""
    for i in range(out.shape[0]):
        if starts[i]:
            vertical[i] = NORTH if facing[i] % 2 == 0 else SOUTH
            horizontal[i] = EAST if facing[i] < 2 else WEST
            phase[i] = 0
            last_move[i] = NO_MOVE
        elif last_move[i] != NO_MOVE and last_facing[i] != last_move[i] != facing[i]:
            # The move should have turned us to face its way and did not: it was blocked.
            # Bounce on that axis and retry it at once, while the facing still tells.
            if last_move[i] == vertical[i]:
                vertical[i] = (vertical[i] + 2) % 4
                phase[i] = 0
            elif last_move[i] == horizontal[i]:
                horizontal[i] = (horizontal[i] + 2) % 4
                phase[i] = 1
        if view[i, 1, 1] >= 2:
            out[i] = MARK
            last_move[i] = NO_MOVE
            continue
        direction = _climb_direction(view, i)
        if direction == NO_MOVE:
            direction = vertical[i] if phase[i] == 0 else horizontal[i]
            phase[i] = 1 - phase[i]
        last_facing[i] = facing[i]
        last_move[i] = direction
        out[i] = ACTION_OF_DIRECTION[direction]


class FieldSweepAgent(BatchAgent):
    """Fair heuristic: sees only the observation (field window and facing)."""

    name = "heuristic"
    description = "diagonal sweep that climbs the field once it reads a non-zero level"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        n = self.num_envs
        self.vertical = np.zeros(n, dtype=np.int64)
        self.horizontal = np.zeros(n, dtype=np.int64)
        self.phase = np.zeros(n, dtype=np.int64)
        self.last_move = np.full(n, NO_MOVE, dtype=np.int64)
        self.last_facing = np.zeros(n, dtype=np.int64)
        self.actions = np.zeros(n, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        heuristic_act(
            obs["field"],
            obs["facing"],
            starts,
            self.vertical,
            self.horizontal,
            self.phase,
            self.last_move,
            self.last_facing,
            self.actions,
        )
        return self.actions.copy()


@njit(cache=True)
def oracle_act(walls, node, agent, out):
    """Multi-source BFS from every free tile within Manhattan 1 of the node, then one step
    down the distance map; Mark on arrival."""
    n = GRID_SIZE * GRID_SIZE
    for i in prange(out.shape[0]):
        dist = np.empty((GRID_SIZE, GRID_SIZE), dtype=np.int64)  # per sub-env: threads
        queue = np.empty(n, dtype=np.int64)
        ar = agent[i, 0]
        ac = agent[i, 1]
        if abs(ar - node[i, 0]) + abs(ac - node[i, 1]) <= 1:
            out[i] = MARK
            continue
        dist[:, :] = -1
        head = 0
        tail = 0
        for d in range(5):
            r = node[i, 0] + (0 if d == 4 else DIR_ROW[d])
            c = node[i, 1] + (0 if d == 4 else DIR_COL[d])
            if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE and not is_wall(walls, i, r, c):
                dist[r, c] = 0
                queue[tail] = r * GRID_SIZE + c
                tail += 1
        while head < tail:
            t = queue[head]
            head += 1
            r = t // GRID_SIZE
            c = t % GRID_SIZE
            for d in range(4):
                nr = r + DIR_ROW[d]
                nc = c + DIR_COL[d]
                if not is_wall(walls, i, nr, nc) and dist[nr, nc] < 0:
                    dist[nr, nc] = dist[r, c] + 1
                    queue[tail] = nr * GRID_SIZE + nc
                    tail += 1
        out[i] = MARK
        for d in range(4):
            nr = ar + DIR_ROW[d]
            nc = ac + DIR_COL[d]
            # The wall test comes first: off the grid is the border, and dist has no such row.
            if not is_wall(walls, i, nr, nc) and 0 <= dist[nr, nc] == dist[ar, ac] - 1:
                out[i] = ACTION_OF_DIRECTION[d]
                break


class OracleAgent(BatchAgent):
    """Reads the hidden node and walls: shortest path to the nearest markable tile, then Mark."""

    name = "oracle"
    reads_scenario = True
    description = "shortest path to the nearest tile within distance 1 of the node, then Mark"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.batch = env.batch
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        b = self.batch
        run_on(self.num_threads, oracle_act, b["walls"], b["node"], b["agent"], self.actions)
        return self.actions.copy()


AGENTS = {"random": RandomAgent, "heuristic": FieldSweepAgent, "oracle": OracleAgent}
