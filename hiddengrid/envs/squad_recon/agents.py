"""SquadRecon agents: random (floor), a fair frontier explorer, and an oracle (ceiling).

All act on the whole batch; the per-env loops are Numba. Scratch arrays are allocated once per
agent, never per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_thread_id, njit, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import inline, opaque_call, opaque_caller, run_rows, thread_scratch
from hiddengrid.envs.squad_recon.constants import (
    ALIVE,
    ATTACK,
    CAMP_MIN_DISTANCE,
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
    SENSOR_RADIUS,
    SENSOR_WIDTH,
    STEP_BUDGET,
    STRENGTH,
    UNEXPLORED,
)
from hiddengrid.envs.squad_recon.sight import IN_GRID, INNER, SHADOW

UNREACHABLE = -1
NO_CAMP = -1


# --- shared path finding -------------------------------------------------------------------------


@inline
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


@inline
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


@inline
def strength_after_moves(i, squads, out, cr, cc) -> int:
    """The strength of sub-env ``i``'s live squads that stand next to ``(cr, cc)`` once this
    step's orders ``out[i]`` have moved them."""
    total = 0
    for m in range(NUM_SQUADS):
        if squads[i, m, ALIVE] != 0 and next_to(
            np.int64(squads[i, m, ROW]) + ORDER_ROW[out[i, m]],
            np.int64(squads[i, m, COL]) + ORDER_COL[out[i, m]],
            cr,
            cc,
        ):
            total += np.int64(squads[i, m, STRENGTH])
    return total


@inline
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
            if (
                strength_after_moves(i, squads, out, camps[i, j, 0], camps[i, j, 1])
                <= camps[i, j, 2]
            ):
                safe = False
        if safe:
            out[i, k] = ATTACK


# --- fair heuristic ------------------------------------------------------------------------------
#
# The search: camps stand on open cells at Chebyshev distance >= CAMP_MIN_DISTANCE from [14, 0]
# (a published rule of the env), so the cells worth seeing are the unexplored ones that far out.
# Each live squad in turn picks the known open cell with the most such cells in sight from it
# (through the walls and forest known so far; unexplored cells are taken to be clear) for the
# length of its path (cells / steps squared), counting only cells no earlier squad's pick already
# covers: the squads spread out. With one camp detected, the group that beats it and gets there
# first takes it while the others search on; once every remaining camp is detected the squads
# follow the oracle's plan (split or together, whichever finishes first) on the distances known
# so far.

POSSIBLE_PAD = SENSOR_RADIUS  # bit rows padded by the sensor radius on every side
WINDOW_BITS = (1 << SENSOR_WIDTH) - 1
# A pick's score is gain / (steps + PATH_BIAS) ** PATH_POWER: with the square, a near pick wins
# unless a far one sees many more cells (1.5-2 points over gain / steps on development seeds).
PATH_BIAS = 0
PATH_POWER = 2
EARLY_STRIKE = 2  # see heuristic_act


@inline
def popcount(x: int) -> int:
    """Number of set bits of a non-negative int64 below 2**62 (the 49 window bits)."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@inline
def known_sight(terrain: np.ndarray, i: int, r0: int, c0: int) -> int:
    """Window bits (bit ``o`` = offset ``o`` of ``sight.OFFSET_ROW``) a squad on ``(r0, c0)``
    would see if every unexplored cell were clear: only known walls and forest cast shadows."""
    seen = IN_GRID[r0, c0]
    for r in range(max(r0 - INNER, 0), min(r0 + INNER, GRID_SIZE - 1) + 1):
        for c in range(max(c0 - INNER, 0), min(c0 + INNER, GRID_SIZE - 1) + 1):
            if terrain[i, r, c] > OPEN:
                seen &= ~SHADOW[r - r0 + INNER, c - c0 + INNER]
    return seen


@inline
def window_bits(rows: np.ndarray, r0: int, c0: int) -> int:
    """The 7x7 window around ``(r0, c0)`` of padded bit rows, as window bits."""
    bits = 0
    for k in range(SENSOR_WIDTH):
        bits |= ((rows[r0 + k] >> c0) & WINDOW_BITS) << (SENSOR_WIDTH * k)
    return bits


@inline
def claim_window(rows: np.ndarray, r0: int, c0: int, bits: int) -> None:
    """Clears the window bits ``bits`` around ``(r0, c0)`` from the padded bit rows."""
    for k in range(SENSOR_WIDTH):
        rows[r0 + k] &= ~(((bits >> (SENSOR_WIDTH * k)) & WINDOW_BITS) << c0)


@njit(cache=True)
def search_step(
    i: int, terrain: np.ndarray, passable: np.ndarray, sight: np.ndarray, wanted: np.ndarray,
    r: int, c: int, dist: np.ndarray, queue: np.ndarray, bias: int, power: int,
) -> int:  # fmt: skip
    """A squad's search order: walk towards the known open cell whose sight holds the most
    ``wanted`` cells for its path (``gain / (steps + bias) ** power``), then take that cell's wanted
    cells out of ``wanted`` so that the next squads look elsewhere. With nothing wanted in reach,
    the nearest frontier cell (known open ground next to unexplored ground)."""
    dist[:, :] = UNREACHABLE
    dist[r, c] = 0
    queue[0] = r * GRID_SIZE + c
    bfs(passable, dist, queue, 1)
    best_gain = 0
    best_steps = 1
    br = -1
    bc = -1
    frontier = NUM_CELLS
    fr = -1
    fc = -1
    for tr in range(GRID_SIZE):
        for tc in range(GRID_SIZE):
            d = dist[tr, tc]
            if d <= 0 or terrain[i, tr, tc] != OPEN:
                continue
            gain = popcount(sight[tr, tc] & window_bits(wanted, tr, tc))
            if gain * (best_steps + bias) ** power > best_gain * (d + bias) ** power:
                best_gain = gain
                best_steps = d
                br = tr
                bc = tc
            if d < frontier:
                for order in range(1, 5):
                    nr = tr + ORDER_ROW[order]
                    nc = tc + ORDER_COL[order]
                    if (
                        0 <= nr < GRID_SIZE
                        and 0 <= nc < GRID_SIZE
                        and terrain[i, nr, nc] == UNEXPLORED
                    ):
                        frontier = d
                        fr = tr
                        fc = tc
                        break
    if br < 0:
        if fr < 0:
            return HOLD
        br = fr
        bc = fc
    else:
        claim_window(wanted, br, bc, sight[br, bc])
    # Walk the path back from the pick to the cell next to the squad.
    while dist[br, bc] > 1:
        for order in range(1, 5):
            nr = br + ORDER_ROW[order]
            nc = bc + ORDER_COL[order]
            if 0 <= nr < GRID_SIZE and 0 <= nc < GRID_SIZE and dist[nr, nc] == dist[br, bc] - 1:
                br = nr
                bc = nc
                break
    for order in range(1, 5):
        if r + ORDER_ROW[order] == br and c + ORDER_COL[order] == bc:
            return order
    return HOLD


@inline
def keep_attacks_safe(i, squads, camps, remaining, out) -> None:
    """Turns an attack order into a hold unless, after every squad's move this step, the
    strength next to each remaining camp next to the attacker exceeds that camp's (the orders
    of searching squads are chosen after the striking ones', and may take a squad away)."""
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0 or out[i, k] != ATTACK:
            continue
        r = np.int64(squads[i, k, ROW])
        c = np.int64(squads[i, k, COL])
        for j in range(NUM_CAMPS):
            if not remaining[j] or not next_to(r, c, camps[i, j, 0], camps[i, j, 1]):
                continue
            if (
                strength_after_moves(i, squads, out, camps[i, j, 0], camps[i, j, 1])
                <= camps[i, j, 2]
            ):
                out[i, k] = HOLD


@opaque_caller()
def follow_plan(i, squads, camps, remaining, dists, assign, out, saved) -> None:
    """Each camp's group (``assign``) converges on it and attacks with enough strength."""
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
        STRIKE(i, squads, camps, remaining, j, dists[j], out)
        for k in range(NUM_SQUADS):
            if not (group >> k) & 1:
                out[i, k] = saved[k]


@opaque_caller()
def heuristic_act(
    terrain, squads, camps, starts, params, assign, planned, out, passables, distss, queues,
    remainings, saveds, sights, wanteds,
):  # fmt: skip
    """Per env: search (``search_step``) until every remaining camp is detected, then the
    oracle's plan on the known map. ``params``: [path bias, strike a detected camp early
    (0 never, 1 with a part of the squads that beats it, 2 also with all of them), replan every
    step (0/1), path power] (``search_step``). The arrays after ``out`` are thread scratch."""
    bias = params[0]
    early = params[1]
    every_step = params[2]
    power = params[3]
    for i in prange(out.shape[0]):
        t = get_thread_id()
        passable = passables[t]
        dists = distss[t]
        queue = queues[t]
        remaining = remainings[t]
        saved = saveds[t]
        sight = sights[t]
        wanted = wanteds[t]
        out[i, :] = HOLD
        live = 0
        for k in range(NUM_SQUADS):
            if squads[i, k, ALIVE] != 0:
                live |= 1 << k
        if live == 0:
            continue
        # Passable as far as the agent knows: anything not a known wall, forest or standing camp
        # (a squad always sees the cells next to it, so it never steps into an unknown one).
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                passable[r, c] = terrain[i, r, c] <= OPEN
        key = live << (2 * NUM_CAMPS)
        undetected = 0
        for j in range(NUM_CAMPS):
            status = camps[i, j, 3]
            remaining[j] = status != ELIMINATED
            key |= np.int64(status) << (2 * j)
            if status == DETECTED:
                passable[camps[i, j, 0], camps[i, j, 1]] = False
            elif status != ELIMINATED:
                undetected += 1
        for j in range(NUM_CAMPS):
            if camps[i, j, 3] == DETECTED:
                DISTANCES_TO_CAMP(passable, camps[i, j, 0], camps[i, j, 1], dists[j], queue)
        if starts[i] or planned[i] != key or every_step:
            if undetected == 0:
                PLAN(i, squads, camps, remaining, dists, assign)
            else:
                for k in range(NUM_SQUADS):
                    assign[i, k] = NO_CAMP
                if early > 0 and undetected == 1:
                    early_strike(i, squads, camps, dists, live, early, assign)
            planned[i] = key
        FOLLOW_PLAN(i, squads, camps, remaining, dists, assign, out, saved)
        if undetected == 0:
            keep_attacks_safe(i, squads, camps, remaining, out)
            continue
        # The rest search. Wanted: unexplored cells where a camp may stand.
        for r in range(GRID_SIZE + 2 * POSSIBLE_PAD):
            wanted[r] = 0
        for r in range(GRID_SIZE):
            bits = 0
            for c in range(GRID_SIZE):
                if terrain[i, r, c] == UNEXPLORED and (
                    GRID_SIZE - 1 - r >= CAMP_MIN_DISTANCE or c >= CAMP_MIN_DISTANCE
                ):
                    bits |= 1 << c
            wanted[r + POSSIBLE_PAD] = bits << POSSIBLE_PAD
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                sight[r, c] = known_sight(terrain, i, r, c) if terrain[i, r, c] == OPEN else 0
        for k in range(NUM_SQUADS):
            if not (live >> k) & 1 or assign[i, k] != NO_CAMP:
                continue
            r = np.int64(squads[i, k, ROW])
            c = np.int64(squads[i, k, COL])
            out[i, k] = SEARCH_STEP(
                i, terrain, passable, sight, wanted, r, c, dists[NUM_CAMPS], queue, bias, power
            )
        keep_attacks_safe(i, squads, camps, remaining, out)


@inline
def early_strike(i, squads, camps, dists, live, mode, assign) -> None:
    """With one camp detected and one not: send the group that reaches the detected camp first
    among those that beat it, if it leaves a squad to search (mode 1) or even if not (mode 2)."""
    j = 0 if camps[i, 0, 3] == DETECTED else 1
    if camps[i, j, 3] != DETECTED:
        return
    best = NUM_CELLS
    best_group = 0
    for group in range(1, 1 << NUM_SQUADS):
        if group & ~live:
            continue
        if group == live and mode < 2:
            continue
        s = 0
        for k in range(NUM_SQUADS):
            if (group >> k) & 1:
                s += np.int64(squads[i, k, STRENGTH])
        if s <= camps[i, j, 2]:
            continue
        t = arrival_time(i, squads, dists, j, group)
        if t < best:
            best = t
            best_group = group
    for k in range(NUM_SQUADS):
        if (best_group >> k) & 1:
            assign[i, k] = j


class SearchAgent(BatchAgent):
    """Fair heuristic: sees only the observation (explored map, squads, detected camps) and the
    published rule that camps stand at Chebyshev distance >= 5 from [14, 0]."""

    name = "heuristic"
    description = (
        "squads search apart, each heading for the known cell with the most unexplored "
        "camp-possible cells in sight for its distance; a detected camp is taken by the group "
        "that beats it first while the others search; once both are detected, the oracle's "
        "plan on the known map, attacking only with enough strength"
    )
    params = (PATH_BIAS, EARLY_STRIKE, 0, PATH_POWER)

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        n = self.num_envs
        self.actions = np.zeros((n, NUM_SQUADS), dtype=np.int64)
        self.assign = np.full((n, NUM_SQUADS), NO_CAMP, dtype=np.int64)
        self.planned = np.full(n, -1, dtype=np.int64)
        self.param_array = np.array(self.params, dtype=np.int64)
        self.passable = thread_scratch((GRID_SIZE, GRID_SIZE), np.bool_)
        self.dists = thread_scratch((NUM_CAMPS + 1, GRID_SIZE, GRID_SIZE), np.int64)
        self.queue = thread_scratch((NUM_CELLS,), np.int64)
        self.remaining = thread_scratch((NUM_CAMPS,), np.bool_)
        self.saved = thread_scratch((NUM_SQUADS,), np.int64)
        self.sight = thread_scratch((GRID_SIZE, GRID_SIZE), np.int64)
        self.wanted = thread_scratch((GRID_SIZE + 2 * POSSIBLE_PAD,), np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        run_rows(
            self.num_threads, heuristic_act, obs["terrain"], obs["squads"], obs["camps"],
            np.asarray(starts, dtype=np.bool_), self.param_array, self.assign, self.planned,
            self.actions, self.passable, self.dists, self.queue, self.remaining, self.saved,
            self.sight, self.wanted,
            whole=(4, 8, 9, 10, 11, 12, 13, 14),  # parameters and thread scratch
        )  # fmt: skip
        return self.actions.copy()


# --- oracle --------------------------------------------------------------------------------------


@inline
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


@opaque_caller()
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
                DISTANCES_TO_CAMP(passable, camps[i, j, 0], camps[i, j, 1], dists[j], queue)
        if starts[i] or steps_left[i] == STEP_BUDGET or planned[i] != key:
            PLAN(i, squads, camps, remaining, dists, assign)
            planned[i] = key
        # Each camp's group converges on it; squads of a taken camp were replanned above.
        FOLLOW_PLAN(i, squads, camps, remaining, dists, assign, out, saved)


# The large helpers, called by name from the kernels above: each is compiled once, by itself,
# rather than optimized again inside every compiled function that calls it (directly or not).
DISTANCES_TO_CAMP = opaque_call(distances_to_camp)
FOLLOW_PLAN = opaque_call(follow_plan)
PLAN = opaque_call(plan)
SEARCH_STEP = opaque_call(search_step)
STRIKE = opaque_call(strike)


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


AGENTS = {"random": RandomAgent, "heuristic": SearchAgent, "oracle": OracleAgent}
