"""SquadRecon agents: random (floor), a fair frontier explorer, and an oracle (ceiling).

All act on the whole batch; the per-env loops are Numba. Scratch arrays are allocated once per
agent, never per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_thread_id, njit, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import run_rows, thread_scratch
from hiddengrid.envs.squad_recon.constants import (
    ALIVE,
    ATTACK,
    COL,
    DETECTED,
    ELIMINATED,
    GRID_SIZE,
    HOLD,
    NUM_CAMPS,
    NUM_CELLS,
    NUM_SQUADS,
    OPEN,
    ORDER_COL,
    ORDER_ROW,
    ROW,
    STEP_BUDGET,
    STRENGTH,
    UNEXPLORED,
)

UNREACHABLE = -1
NO_CAMP = -1
FOLLOW_DISTANCE = 3  # the heuristic's followers stay within this many steps of the leader


# --- shared path finding -------------------------------------------------------------------------


@njit(cache=True)
def bfs(passable: np.ndarray, dist: np.ndarray, queue: np.ndarray, tail: int) -> None:
    """Breadth-first distances over ``passable`` cells from the ``tail`` cells already queued
    (with ``dist`` 0 there and -1 elsewhere)."""
    head = 0
    while head < tail:
        t = queue[head]
        head += 1
        r = t // GRID_SIZE
        c = t % GRID_SIZE
        for order in range(1, 5):
            nr = r + ORDER_ROW[order]
            nc = c + ORDER_COL[order]
            if (
                0 <= nr < GRID_SIZE
                and 0 <= nc < GRID_SIZE
                and passable[nr, nc]
                and dist[nr, nc] == UNREACHABLE
            ):
                dist[nr, nc] = dist[r, c] + 1
                queue[tail] = nr * GRID_SIZE + nc
                tail += 1


@njit(cache=True)
def distances_to_camp(
    passable: np.ndarray, r: int, c: int, dist: np.ndarray, queue: np.ndarray
) -> None:
    """Steps from every cell to the nearest passable neighbour of the camp on ``(r, c)``."""
    dist[:, :] = UNREACHABLE
    tail = 0
    for order in range(1, 5):
        nr = r + ORDER_ROW[order]
        nc = c + ORDER_COL[order]
        if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE and passable[nr, nc]:
            dist[nr, nc] = 0
            queue[tail] = nr * GRID_SIZE + nc
            tail += 1
    bfs(passable, dist, queue, tail)


@njit(cache=True)
def step_down(dist: np.ndarray, r: int, c: int) -> int:
    """The first move (N, S, E, W) to a cell one step closer, or hold."""
    here = dist[r, c]
    if here <= 0:
        return HOLD
    for order in range(1, 5):
        nr = r + ORDER_ROW[order]
        nc = c + ORDER_COL[order]
        if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE and dist[nr, nc] == here - 1:
            return order
    return HOLD


@njit(cache=True)
def next_to(r: int, c: int, cr: int, cc: int) -> bool:
    return abs(r - cr) + abs(c - cc) == 1


@njit(cache=True)
def strike(
    i: int,
    squads: np.ndarray,
    camps: np.ndarray,
    remaining: np.ndarray,
    target: int,
    dist: np.ndarray,
    out: np.ndarray,
) -> None:
    """Orders for squads converging on camp ``target``: squads that are not next to it walk
    down ``dist``; squads next to it attack once the strength next to it after this step's moves
    exceeds the camp's, and hold before. A squad that is also next to another camp which that
    strength would not beat holds instead of attacking (an attack hits every camp next to it)."""
    cr = camps[i, target, 0]
    cc = camps[i, target, 1]
    arriving = 0
    adjacent = 0
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0:
            continue
        r = np.int64(squads[i, k, ROW])
        c = np.int64(squads[i, k, COL])
        if next_to(r, c, cr, cc):
            adjacent += 1
            arriving += np.int64(squads[i, k, STRENGTH])
            out[i, k] = HOLD
        else:
            order = step_down(dist, r, c)
            out[i, k] = order
            if next_to(r + ORDER_ROW[order], c + ORDER_COL[order], cr, cc):
                arriving += np.int64(squads[i, k, STRENGTH])
    if adjacent == 0 or arriving <= camps[i, target, 2]:
        return
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0 or out[i, k] != HOLD:
            continue
        r = np.int64(squads[i, k, ROW])
        c = np.int64(squads[i, k, COL])
        if not next_to(r, c, cr, cc):
            continue
        safe = True
        for j in range(NUM_CAMPS):
            if j == target or not remaining[j] or not next_to(r, c, camps[i, j, 0], camps[i, j, 1]):
                continue
            total = 0
            for m in range(NUM_SQUADS):
                if squads[i, m, ALIVE] != 0 and next_to(
                    np.int64(squads[i, m, ROW]) + ORDER_ROW[out[i, m]],
                    np.int64(squads[i, m, COL]) + ORDER_COL[out[i, m]],
                    camps[i, j, 0],
                    camps[i, j, 1],
                ):
                    total += np.int64(squads[i, m, STRENGTH])
            if total <= camps[i, j, 2]:
                safe = False
        if safe:
            out[i, k] = ATTACK


# --- fair heuristic ------------------------------------------------------------------------------


@njit(cache=True)
def heuristic_act(terrain, squads, camps, out, passables, dists, leads, queues, remainings):
    """Per env: walk all squads to the nearest detected camp that their total strength beats and
    attack it as soon as the strength next to it exceeds the camp's; otherwise explore: the
    first live squad walks to the nearest frontier cell (known open ground next to unexplored
    ground) and the others follow it, exploring on their own while within three steps of it.
    The arrays after ``out`` are thread scratch (``hiddengrid.core.kernel.thread_scratch``)."""
    for i in prange(out.shape[0]):
        t = get_thread_id()
        passable = passables[t]
        dist = dists[t]
        lead = leads[t]
        queue = queues[t]
        remaining = remainings[t]
        out[i, :] = HOLD
        total = 0
        leader = -1
        for k in range(NUM_SQUADS):
            if squads[i, k, ALIVE] != 0:
                total += np.int64(squads[i, k, STRENGTH])
                if leader < 0:
                    leader = k
        if leader < 0:
            continue
        # What the agent knows: explored open ground, minus camps still standing.
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                passable[r, c] = terrain[i, r, c] == OPEN
        for j in range(NUM_CAMPS):
            remaining[j] = camps[i, j, 3] != ELIMINATED
            if camps[i, j, 3] == DETECTED:
                passable[camps[i, j, 0], camps[i, j, 1]] = False
        lr = np.int64(squads[i, leader, ROW])
        lc = np.int64(squads[i, leader, COL])
        # A detected camp the squads can beat together: the nearest to the leader.
        target = NO_CAMP
        best = NUM_CELLS
        for j in range(NUM_CAMPS):
            if camps[i, j, 3] != DETECTED or camps[i, j, 2] >= total:
                continue
            distances_to_camp(passable, camps[i, j, 0], camps[i, j, 1], dist, queue)
            d = dist[lr, lc]
            if d != UNREACHABLE and d < best:
                best = d
                target = j
        if target != NO_CAMP:
            distances_to_camp(passable, camps[i, target, 0], camps[i, target, 1], dist, queue)
            strike(i, squads, camps, remaining, target, dist, out)
            continue
        # Explore: distances to the frontier (known open ground next to unexplored ground)
        # and to the leader. The leader walks to the nearest frontier cell; the others do too
        # while within FOLLOW_DISTANCE steps of the leader, and catch up with it otherwise.
        dist[:, :] = UNREACHABLE
        tail = 0
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                if not passable[r, c]:
                    continue
                for order in range(1, 5):
                    nr = r + ORDER_ROW[order]
                    nc = c + ORDER_COL[order]
                    if (
                        0 <= nr < GRID_SIZE
                        and 0 <= nc < GRID_SIZE
                        and terrain[i, nr, nc] == UNEXPLORED
                    ):
                        dist[r, c] = 0
                        queue[tail] = r * GRID_SIZE + c
                        tail += 1
                        break
        bfs(passable, dist, queue, tail)
        lead[:, :] = UNREACHABLE
        lead[lr, lc] = 0
        queue[0] = lr * GRID_SIZE + lc
        bfs(passable, lead, queue, 1)
        for k in range(NUM_SQUADS):
            if squads[i, k, ALIVE] == 0:
                continue
            r = np.int64(squads[i, k, ROW])
            c = np.int64(squads[i, k, COL])
            if k != leader and lead[r, c] > FOLLOW_DISTANCE:
                out[i, k] = step_down(lead, r, c)
            else:
                out[i, k] = step_down(dist, r, c)


class FrontierAgent(BatchAgent):
    """Fair heuristic: sees only the observation (explored map, squads, detected camps)."""

    name = "heuristic"
    description = (
        "frontier exploration with the squads kept together; attacks a detected camp when the "
        "strength next to it exceeds the camp's"
    )

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.actions = np.zeros((self.num_envs, NUM_SQUADS), dtype=np.int64)
        self.passable = thread_scratch((GRID_SIZE, GRID_SIZE), np.bool_)
        self.dist = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.lead = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.queue = thread_scratch((NUM_CELLS,), np.int64)
        self.remaining = thread_scratch((NUM_CAMPS,), np.bool_)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        run_rows(
            self.num_threads, heuristic_act, obs["terrain"], obs["squads"], obs["camps"],
            self.actions, self.passable, self.dist, self.lead, self.queue, self.remaining,
            whole=(4, 5, 6, 7, 8),  # thread scratch
        )  # fmt: skip
        return self.actions.copy()


# --- oracle --------------------------------------------------------------------------------------


@njit(cache=True)
def arrival_time(i, squads, dists, j, group) -> int:
    """Steps until the squads in bit set ``group`` can take camp ``j`` together: all of them next
    to it, one of them there a step earlier to give the order."""
    longest = -1
    shortest = NUM_CELLS
    for k in range(NUM_SQUADS):
        if (group >> k) & 1:
            d = dists[j, squads[i, k, ROW], squads[i, k, COL]]
            if d == UNREACHABLE:
                return NUM_CELLS
            longest = max(longest, d)
            shortest = min(shortest, d)
    return longest + 1 if shortest == longest else longest


@njit(cache=True)
def plan(i, squads, camps, remaining, dists, assign) -> None:
    """Chooses which camp each live squad heads for: every split of the squads into two groups
    that each beat their camp, and both orders of taking the camps with all squads together;
    the plan with the earliest estimated finish wins. A camp no live total can beat is left
    alone."""
    live = 0
    total = 0
    for k in range(NUM_SQUADS):
        assign[i, k] = NO_CAMP
        if squads[i, k, ALIVE] != 0:
            live |= 1 << k
            total += np.int64(squads[i, k, STRENGTH])
    beatable = 0
    for j in range(NUM_CAMPS):
        if remaining[j] and camps[i, j, 2] < total:
            beatable |= 1 << j
    if beatable == 0:
        return
    if beatable != (1 << NUM_CAMPS) - 1:
        j = 0 if beatable & 1 else 1
        for k in range(NUM_SQUADS):
            if (live >> k) & 1:
                assign[i, k] = j
        return
    best = NUM_CELLS * 4
    best_split = -1
    best_first = 0
    # Splits: group bit set = squads heading for camp 1.
    for group1 in range(1 << NUM_SQUADS):
        if group1 & ~live:
            continue
        group0 = live & ~group1
        if group0 == 0 or group1 == 0:
            continue
        s0 = 0
        s1 = 0
        for k in range(NUM_SQUADS):
            if (group0 >> k) & 1:
                s0 += np.int64(squads[i, k, STRENGTH])
            if (group1 >> k) & 1:
                s1 += np.int64(squads[i, k, STRENGTH])
        if s0 <= camps[i, 0, 2] or s1 <= camps[i, 1, 2]:
            continue
        t = max(
            arrival_time(i, squads, dists, 0, group0), arrival_time(i, squads, dists, 1, group1)
        )
        if t < best:
            best = t
            best_split = group1
    # Sequences: everyone to one camp, then everyone to the other.
    for first in range(NUM_CAMPS):
        other = 1 - first
        t = arrival_time(i, squads, dists, first, live)
        hop = NUM_CELLS
        cr = camps[i, first, 0]
        cc = camps[i, first, 1]
        for order in range(1, 5):
            nr = cr + ORDER_ROW[order]
            nc = cc + ORDER_COL[order]
            if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE and dists[other, nr, nc] >= 0:
                hop = min(hop, dists[other, nr, nc])
        t += hop + 1
        if t < best:
            best = t
            best_split = -1
            best_first = first
    for k in range(NUM_SQUADS):
        if (live >> k) & 1:
            if best_split >= 0:
                assign[i, k] = (best_split >> k) & 1
            else:
                assign[i, k] = best_first


@njit(cache=True)
def oracle_act(
    terrain, squads, camps, camp_status, steps_left, starts, assign, planned, out, passables,
    distss, queues, remainings, saveds,
):  # fmt: skip
    for i in prange(out.shape[0]):
        t = get_thread_id()  # the arrays after ``out`` are thread scratch
        passable = passables[t]
        dists = distss[t]
        queue = queues[t]
        remaining = remainings[t]
        saved = saveds[t]
        out[i, :] = HOLD
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                passable[r, c] = terrain[i, r, c] == OPEN
        key = 0  # replan when a camp falls, a squad dies or an episode starts
        for j in range(NUM_CAMPS):
            remaining[j] = camp_status[i, j] != ELIMINATED
            if remaining[j]:
                passable[camps[i, j, 0], camps[i, j, 1]] = False
                key |= 1 << j
        for k in range(NUM_SQUADS):
            if squads[i, k, ALIVE] != 0:
                key |= 1 << (NUM_CAMPS + k)
        for j in range(NUM_CAMPS):
            if remaining[j]:
                distances_to_camp(passable, camps[i, j, 0], camps[i, j, 1], dists[j], queue)
        if starts[i] or steps_left[i] == STEP_BUDGET or planned[i] != key:
            plan(i, squads, camps, remaining, dists, assign)
            planned[i] = key
        # Each camp's group converges on it; squads of a taken camp were replanned above.
        for j in range(NUM_CAMPS):
            if not remaining[j]:
                continue
            group = 0
            for k in range(NUM_SQUADS):
                if assign[i, k] == j and squads[i, k, ALIVE] != 0:
                    group |= 1 << k
            if group == 0:
                continue
            # strike() orders every live squad; keep only this group's orders.
            for k in range(NUM_SQUADS):
                saved[k] = out[i, k]
            strike(i, squads, camps, remaining, j, dists[j], out)
            for k in range(NUM_SQUADS):
                if not (group >> k) & 1:
                    out[i, k] = saved[k]


class OracleAgent(BatchAgent):
    """Reads the terrain and the camps: shortest paths, enough strength, best camp order."""

    name = "oracle"
    reads_scenario = True
    description = (
        "knows terrain and camps: splits the squads or keeps them together, whichever finishes "
        "first, walks shortest paths and attacks only with enough strength"
    )

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.batch = env.batch
        n = self.num_envs
        self.actions = np.zeros((n, NUM_SQUADS), dtype=np.int64)
        self.assign = np.full((n, NUM_SQUADS), NO_CAMP, dtype=np.int64)
        self.planned = np.full(n, -1, dtype=np.int64)
        self.passable = thread_scratch((GRID_SIZE, GRID_SIZE), np.bool_)
        self.dists = thread_scratch((NUM_CAMPS, GRID_SIZE, GRID_SIZE), np.int64)
        self.queue = thread_scratch((NUM_CELLS,), np.int64)
        self.remaining = thread_scratch((NUM_CAMPS,), np.bool_)
        self.saved = thread_scratch((NUM_SQUADS,), np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        b = self.batch
        run_rows(
            self.num_threads, oracle_act, b["terrain"], b["squads"], b["camps"], b["camp_status"],
            b["steps_left"],
            np.asarray(starts, dtype=np.bool_), self.assign, self.planned, self.actions,
            self.passable, self.dists, self.queue, self.remaining, self.saved,
            whole=(9, 10, 11, 12, 13),  # thread scratch
        )  # fmt: skip
        return self.actions.copy()


AGENTS = {"random": RandomAgent, "heuristic": FrontierAgent, "oracle": OracleAgent}
