"""InvertedTreasure agents: random (floor), a fair explorer for each variant, and an oracle.

The fair heuristic sees only the observation and which variant it plays (``env.config``); it
keeps its own 8x8 map of what the windows have shown. The oracle reads the hidden icons.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_thread_id, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import inline, kernel, run_rows, thread_scratch
from hiddengrid.envs.inverted_treasure.constants import (
    BOMB,
    EMPTY,
    FLOWER,
    GRID_SIZE,
    MOVE_COL,
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_ROW,
    MOVE_SOUTH,
    MOVE_WEST,
    NUM_TILES,
    REVEAL,
    UNSEEN,
    WAIT,
    WINDOW_RADIUS,
)

NONE = -1


@inline
def _inside(r: int, c: int) -> bool:
    return 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE


@inline
def safe_paths(known, i, ar, ac, dist, first, queue):
    """Breadth-first search from the agent that walks only through tiles known to be Empty.

    ``dist[r, c]`` is the number of moves to reach ``(r, c)`` (-1: unreachable) and
    ``first[r, c]`` the first move of one shortest such path. Unseen tiles and the Bomb are
    reached as end points but not walked through; Flowers are never entered.
    """
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            dist[r, c] = -1
            first[r, c] = NONE
    dist[ar, ac] = 0
    queue[0] = ar * GRID_SIZE + ac
    head = 0
    tail = 1
    while head < tail:
        t = queue[head]
        head += 1
        r = t // GRID_SIZE
        c = t % GRID_SIZE
        if dist[r, c] > 0 and known[i, r, c] != EMPTY:
            continue  # an end point
        for a in range(4):
            nr = r + MOVE_ROW[a]
            nc = c + MOVE_COL[a]
            if _inside(nr, nc) and dist[nr, nc] < 0 and known[i, nr, nc] != FLOWER:
                dist[nr, nc] = dist[r, c] + 1
                first[nr, nc] = a if dist[r, c] == 0 else first[r, c]
                queue[tail] = nr * GRID_SIZE + nc
                tail += 1


@inline
def _unseen_neighbours(known, i, r, c) -> int:
    count = 0
    for a in range(4):
        nr = r + MOVE_ROW[a]
        nc = c + MOVE_COL[a]
        if _inside(nr, nc) and known[i, nr, nc] == UNSEEN:
            count += 1
    return count


@kernel
def explore_act(window, position, starts, scout, known, dists, firsts, queues, out):
    """One action per sub-env from its observation and its own map ``known``.

    Both variants: a Bomb seen on a safe path is walked to. Base variant (icons are only seen
    by standing on them): step onto an unseen neighbour, in a snake order (east on even rows,
    west on odd rows, then north), else onto the nearest unseen tile; every action reveals a
    new tile. Scout variant: Reveal while the agent's tile or a neighbour is unseen, never
    step on an unseen tile or a Flower, otherwise walk to the Empty tile that reveals the most
    new tiles per action spent. ``dists``, ``firsts`` and ``queues`` are thread scratch.
    """
    for i in prange(out.shape[0]):
        t = get_thread_id()
        dist = dists[t]
        first = firsts[t]
        queue = queues[t]
        if starts[i]:
            for r in range(GRID_SIZE):
                for c in range(GRID_SIZE):
                    known[i, r, c] = UNSEEN
        ac = position[i, 0]
        ar = GRID_SIZE - 1 - position[i, 1]
        for dr in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1):
            for dc in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1):
                r = ar + dr
                c = ac + dc
                v = window[i, dr + WINDOW_RADIUS, dc + WINDOW_RADIUS]
                if _inside(r, c) and v != UNSEEN:
                    known[i, r, c] = v
        safe_paths(known, i, ar, ac, dist, first, queue)
        out[i] = WAIT
        bomb_found = False
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                if known[i, r, c] == BOMB and dist[r, c] > 0:
                    out[i] = first[r, c]
                    bomb_found = True
        if bomb_found:
            continue
        if scout:
            if known[i, ar, ac] == UNSEEN or _unseen_neighbours(known, i, ar, ac) > 0:
                out[i] = REVEAL
                continue
            best = 0.0
            best_dist = 0
            for r in range(GRID_SIZE):
                for c in range(GRID_SIZE):
                    if dist[r, c] <= 0 or known[i, r, c] != EMPTY:
                        continue
                    gain = _unseen_neighbours(known, i, r, c) / (dist[r, c] + 1.0)
                    if gain > best or (gain == best and gain > 0 and dist[r, c] < best_dist):
                        best = gain
                        best_dist = dist[r, c]
                        out[i] = first[r, c]
            continue
        horizontal = MOVE_EAST if position[i, 1] % 2 == 0 else MOVE_WEST
        other = MOVE_WEST if horizontal == MOVE_EAST else MOVE_EAST
        for a in (horizontal, MOVE_NORTH, other, MOVE_SOUTH):
            nr = ar + MOVE_ROW[a]
            nc = ac + MOVE_COL[a]
            if _inside(nr, nc) and known[i, nr, nc] == UNSEEN:
                out[i] = a
                break
        if out[i] != WAIT:
            continue
        best_dist = NUM_TILES
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                if known[i, r, c] == UNSEEN and 0 < dist[r, c] < best_dist:
                    best_dist = dist[r, c]
                    out[i] = first[r, c]


class ExplorerAgent(BatchAgent):
    """Fair heuristic: sees only the observation and which variant it plays."""

    name = "heuristic"
    description = (
        "base: snake walk onto a new tile every step; scout: reveal, avoid revealed Flowers, "
        "step on a revealed Bomb, otherwise explore"
    )

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.scout = bool(env.config["scout"])
        self.known = np.zeros((self.num_envs, GRID_SIZE, GRID_SIZE), dtype=np.int8)
        self.dist = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.first = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.queue = thread_scratch((NUM_TILES,), np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        run_rows(
            self.num_threads,
            explore_act,
            obs["window"],
            obs["position"],
            starts,
            self.scout,
            self.known,
            self.dist,
            self.first,
            self.queue,
            self.actions,
            whole=(3, 5, 6, 7),  # the variant flag and thread scratch
        )
        return self.actions.copy()


@kernel
def oracle_act(icons, agent, dists, queues, out):
    """Distances from the Bomb through tiles without a Flower, then one step down them. With
    no Flower-free path from the agent to the Bomb it waits (a timeout rather than a trap)."""
    for i in prange(out.shape[0]):
        dist = dists[get_thread_id()]
        queue = queues[get_thread_id()]
        head = 0
        tail = 0
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                dist[r, c] = -1
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                if icons[i, r, c] == BOMB:
                    dist[r, c] = 0
                    queue[tail] = r * GRID_SIZE + c
                    tail += 1
        while head < tail:
            t = queue[head]
            head += 1
            r = t // GRID_SIZE
            c = t % GRID_SIZE
            for a in range(4):
                nr = r + MOVE_ROW[a]
                nc = c + MOVE_COL[a]
                if _inside(nr, nc) and dist[nr, nc] < 0 and icons[i, nr, nc] != FLOWER:
                    dist[nr, nc] = dist[r, c] + 1
                    queue[tail] = nr * GRID_SIZE + nc
                    tail += 1
        ar = agent[i, 0]
        ac = agent[i, 1]
        out[i] = WAIT
        if dist[ar, ac] <= 0:
            continue
        for a in range(4):
            nr = ar + MOVE_ROW[a]
            nc = ac + MOVE_COL[a]
            if _inside(nr, nc) and dist[nr, nc] == dist[ar, ac] - 1:
                out[i] = a
                break


class OracleAgent(BatchAgent):
    """Reads the hidden icons: shortest Flower-free path to the Bomb (waits if there is none)."""

    name = "oracle"
    reads_scenario = True
    description = "shortest path to the Bomb avoiding Flowers; waits when no such path exists"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.batch = env.batch
        self.dist = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.queue = thread_scratch((NUM_TILES,), np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        b = self.batch
        run_rows(
            self.num_threads,
            oracle_act,
            b["icons"],
            b["agent"],
            self.dist,
            self.queue,
            self.actions,
            whole=(2, 3),  # thread scratch
        )
        return self.actions.copy()


AGENTS = {"random": RandomAgent, "heuristic": ExplorerAgent, "oracle": OracleAgent}
