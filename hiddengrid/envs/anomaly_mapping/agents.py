"""AnomalyMapping agents: random (floor), a fair field-reading sweeper, the same sweeper told
its exact position (a non-fair reference), and an oracle (ceiling)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import get_thread_id, njit, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import inline, opaque_call, opaque_caller, run_rows, thread_scratch
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
    ROTATE_RIGHT,
    SOUTH,
    WEST,
)
from hiddengrid.envs.anomaly_mapping.rules import is_wall

ACTION_OF_DIRECTION = np.array([MOVE_NORTH, MOVE_EAST, MOVE_SOUTH, MOVE_WEST], dtype=np.int64)
NO_MOVE = -1


@njit(cache=True)
def _climb_direction(view: np.ndarray, i: int, blocked: np.ndarray) -> int:
    """The direction towards the strongest reading in the window, or -1 if none beats the centre.

    A diagonal maximum is approached along the axis whose orthogonal neighbour reads higher,
    unless that tile is known to block (``blocked[d]``): then along the other axis.
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
    vertical = NORTH if best_r == 0 else SOUTH if best_r == 2 else NO_MOVE
    horizontal = WEST if best_c == 0 else EAST if best_c == 2 else NO_MOVE
    if vertical == NO_MOVE:
        return horizontal
    if horizontal == NO_MOVE:
        return vertical
    first = horizontal if view[i, 1, best_c] > view[i, best_r, 1] else vertical
    second = vertical if first == horizontal else horizontal
    return second if blocked[first] and not blocked[second] else first


# --- the fair heuristic: dead reckoning over a map of what the sweep has ruled out -----------

SPAN = GRID_SIZE - 1  # the largest row (or column) distance two tiles of the grid can have
LOCAL = 2 * SPAN + 1  # the local map: offsets -14..14 from the start tile, in both axes
ORIGIN = SPAN
UNKNOWN, FREE, BLOCKED = 0, 1, 2
# How much an all-zero window rules out, by the tile's distance outside the 3x3 window: a tile
# inside it or next to it would read 2 or 3 somewhere (if that window tile is free, as 4 in 5
# are); one tile further would read 1 unless a wall shadows it.
RULED_OUT_NEAR = 0.8
RULED_OUT_FAR = 0.5
WEIGHTS = np.zeros((7, 7))
for _dr in range(-3, 4):
    for _dc in range(-3, 4):
        _out = max(abs(_dr) - 1, 0) + max(abs(_dc) - 1, 0)  # Manhattan distance to the window
        WEIGHTS[_dr + 3, _dc + 3] = (
            1.0 if _out == 0 else RULED_OUT_NEAR if _out == 1 else RULED_OUT_FAR if _out == 2 else 0
        )
PLAN_DEPTH = 3  # moves looked ahead
UNKNOWN_FREE = 0.8  # the chance an unknown tile is free (a fifth of the tiles are walls)


@inline
def _on_grid(bounds, i, r, c):
    """Whether local tile (r, c) can be on the grid, given the rows and columns walked: no
    two tiles of a 15x15 grid are more than 14 apart. (Weighting the tiles by how many start
    tiles keep them on the grid measured no better: 31.0 % against 31.5 %.)"""
    return (
        bounds[i, 1] - SPAN <= r <= bounds[i, 0] + SPAN
        and bounds[i, 3] - SPAN <= c <= bounds[i, 2] + SPAN
    )


MOVES_READ, EDGES_KNOWN = 1, 2  # what the non-fair reference is told (see heuristic_act)
EDGE_BELIEF = 4  # fair: a belief over where the agent started (see heuristic_act)
TOLD = MOVES_READ | EDGES_KNOWN
P_WALL = 0.2  # the chance that a tile next to a free one is a wall


@njit(cache=True)
def _bump(hyp, i, tr, tc):
    """A move into local tile (tr, tc) was blocked: a wall (chance P_WALL) if that tile is on
    the grid, for sure if not. ``hyp[i, sr, sc]``: the weight of "started on grid tile (sr, sc)"."""
    for sr in range(GRID_SIZE):
        ar = sr + tr - ORIGIN
        for sc in range(GRID_SIZE):
            ac = sc + tc - ORIGIN
            if 0 <= ar < GRID_SIZE and 0 <= ac < GRID_SIZE:
                hyp[i, sr, sc] *= P_WALL


@njit(cache=True)
def _start_prefix(hyp, bounds, i, prefix):
    """2-D prefix sums of the start weights, zero where a walked tile would be off the grid."""
    for sr in range(GRID_SIZE + 1):
        prefix[sr, 0] = 0.0
        prefix[0, sr] = 0.0
    for sr in range(GRID_SIZE):
        ok_r = sr + bounds[i, 0] - ORIGIN >= 0 and sr + bounds[i, 1] - ORIGIN < GRID_SIZE
        for sc in range(GRID_SIZE):
            ok = ok_r and sc + bounds[i, 2] - ORIGIN >= 0 and sc + bounds[i, 3] - ORIGIN < GRID_SIZE
            w = hyp[i, sr, sc] if ok else 0.0
            prefix[sr + 1, sc + 1] = w + prefix[sr, sc + 1] + prefix[sr + 1, sc] - prefix[sr, sc]


@inline
def _on_grid_chance(prefix, tr, tc):
    """The weight of the starts that put local tile (tr, tc) on the grid, over all starts."""
    total = prefix[GRID_SIZE, GRID_SIZE]
    if total <= 0.0:
        return 1.0
    r0 = max(ORIGIN - tr, 0)
    r1 = min(ORIGIN - tr + GRID_SIZE - 1, GRID_SIZE - 1)
    c0 = max(ORIGIN - tc, 0)
    c1 = min(ORIGIN - tc + GRID_SIZE - 1, GRID_SIZE - 1)
    if r0 > r1 or c0 > c1:
        return 0.0
    inside = prefix[r1 + 1, c1 + 1] - prefix[r0, c1 + 1] - prefix[r1 + 1, c0] + prefix[r0, c0]
    return inside / total


BOX = 2 * (3 + PLAN_DEPTH) + 1  # tiles a plan can touch, around the agent


@njit(cache=True)
def _step_ok(tiles, bounds, i, r, c, d, facing, mode):
    """Whether a planned move from local tile (r, c) in direction ``d``, facing ``facing``,
    may be taken, and its chance of going through (1 known free, 0.8 unknown, 0 refused).
    ``mode & MOVES_READ``: the agent is told its position, so a straight move can be read."""
    tr = r + DIR_ROW[d]
    tc = c + DIR_COL[d]
    if not (0 <= tr < LOCAL and 0 <= tc < LOCAL) or tiles[i, tr, tc] == BLOCKED:
        return 0.0
    if not (
        max(bounds[i, 1], tr) - min(bounds[i, 0], tr) <= SPAN
        and max(bounds[i, 3], tc) - min(bounds[i, 2], tc) <= SPAN
    ):
        return 0.0  # off the grid for sure
    if tiles[i, tr, tc] == FREE:
        return 1.0
    if d == facing and not mode & MOVES_READ:
        return 0.0  # its outcome could not be read
    return UNKNOWN_FREE


@njit(cache=True)
def _marginal(mass, keep, keep_out, br, bc):
    """Belief a window at box tile (br, bc) rules out beyond ``keep``; writes what is left."""
    # Explicit loops: a slice assignment here took 3 of the agent's 4 seconds of compilation.
    for r in range(keep.shape[0]):
        for c in range(keep.shape[1]):
            keep_out[r, c] = keep[r, c]
    total = 0.0
    for dr in range(-3, 4):
        for dc in range(-3, 4):
            w = WEIGHTS[dr + 3, dc + 3]
            r = br + dr
            c = bc + dc
            total += w * mass[r, c] * keep[r, c]
            keep_out[r, c] = keep[r, c] * (1.0 - w)
    return total


@njit(cache=True)
def _plan(belief, bounds, tiles, i, r0, c0, facing, mode, mass, keeps, path, prefix, onp):
    """The first move of the best plan of ``PLAN_DEPTH`` moves: the plan (d1, d2, d3) is worth
    q1 (g1 + q2 (g2 + q3 g3)), with q a move's chance of going through and g the belief its
    window rules out beyond the earlier ones. The plans are walked in order, recomputing only
    the moves that changed (one call site each keeps the compiled code small)."""
    h = BOX // 2
    for r in range(BOX):
        for c in range(BOX):
            tr = r0 - h + r
            tc = c0 - h + c
            on_grid = 0 <= tr < LOCAL and 0 <= tc < LOCAL and _on_grid(bounds, i, tr, tc)
            if on_grid and mode & EDGE_BELIEF:
                onp[r, c] = _on_grid_chance(prefix, tr, tc)
            else:
                onp[r, c] = 1.0 if on_grid else 0.0
            mass[r, c] = belief[i, tr, tc] * onp[r, c] if on_grid else 0.0
            keeps[0, r, c] = 1.0
    # path[level]: row, column and facing before the move, the move, its q and g
    path[0, 0] = r0
    path[0, 1] = c0
    path[0, 2] = facing
    best = -1.0
    best_d = NO_MOVE
    for k in range(4**PLAN_DEPTH):
        first = PLAN_DEPTH - 1
        while first > 0 and k % 4 ** (PLAN_DEPTH - first) == 0:
            first -= 1  # the moves before ``first`` are the previous plan's
        for lvl in range(first, PLAN_DEPTH):
            d = (k >> (2 * (PLAN_DEPTH - 1 - lvl))) & 3
            path[lvl, 3] = d
            path[lvl, 4] = 0.0
            path[lvl, 5] = 0.0
            if lvl > 0 and path[lvl - 1, 4] == 0.0:
                continue  # the plan stopped at an earlier move
            r = int(path[lvl, 0])
            c = int(path[lvl, 1])
            q = _step_ok(tiles, bounds, i, r, c, d, int(path[lvl, 2]), mode)
            if q == 0.0:
                continue
            nr = r + DIR_ROW[d]
            nc = c + DIR_COL[d]
            path[lvl, 4] = q
            path[lvl, 5] = _marginal(mass, keeps[lvl], keeps[lvl + 1], h + nr - r0, h + nc - c0)
            if lvl + 1 < PLAN_DEPTH:
                path[lvl + 1, 0] = nr
                path[lvl + 1, 1] = nc
                path[lvl + 1, 2] = d
        value = 0.0
        for lvl in range(PLAN_DEPTH - 1, -1, -1):
            value = path[lvl, 4] * (path[lvl, 5] + value)
        if path[0, 4] > 0.0 and value > best:
            best = value
            best_d = k >> (2 * (PLAN_DEPTH - 1))
    return best_d


@njit(cache=True)
def _rule_out(belief, i, r, c):
    """An all-zero window at (r, c): lowers the belief around it by what it rules out."""
    for dr in range(-3, 4):
        for dc in range(-3, 4):
            tr = r + dr
            tc = c + dc
            if 0 <= tr < LOCAL and 0 <= tc < LOCAL:
                belief[i, tr, tc] *= 1.0 - WEIGHTS[dr + 3, dc + 3]


@inline
def _extend(bounds, i, r, c):
    bounds[i, 0] = min(bounds[i, 0], r)
    bounds[i, 1] = max(bounds[i, 1], r)
    bounds[i, 2] = min(bounds[i, 2], c)
    bounds[i, 3] = max(bounds[i, 3], c)


# The planner, called by name from the kernel below: compiled once, by itself, rather than
# optimized again inside the kernel.
PLAN = opaque_call(_plan)


@opaque_caller()
def heuristic_act(
    view, facing, starts, pos, bounds, tiles, belief, last_move, last_facing, last_view, out,
    blockeds, masses, keepss, paths, mode, true_pos, true_start, hyp, prefixes, onps,
):  # fmt: skip
    """Dead-reckoning coverage. The agent keeps its position relative to its start tile and a
    map of tiles it walked (free) or bumped into (blocked): a move that turns the agent's facing
    went through, one that does not was blocked. To keep that readable it never steps into an
    unknown tile along its current facing. Over a belief of where the node can still be (tiles
    an all-zero window has not ruled out, within the grid the walked span allows) it takes the
    move whose window rules out the most, pulled towards the remaining mass when nothing is near.
    Once the window reads a non-zero level it climbs the field; it marks where the centre reads
    2 or more, which is always right. The four arrays after ``out`` are thread scratch
    (``hiddengrid.core.kernel.thread_scratch``), written in full before they are read.

    ``mode`` bits. ``EDGE_BELIEF`` (fair, the heuristic's): ``hyp`` weighs every grid tile the
    agent may have started on; a bump into an unknown tile lowers the starts that put it on the
    grid (a wall there has chance ``P_WALL``, the edge is certain), the walked span rules out
    the rest, and the node's belief on each tile is weighted by the chance that it is on the
    grid. ``MOVES_READ`` and ``EDGES_KNOWN`` are the non-fair reference's: told its tile
    (``true_pos`` now, ``true_start`` written here at the start), it learns whether each move
    went through, so a straight move can be read like any other (``MOVES_READ``), and it knows
    the grid's edges (``EDGES_KNOWN``). The page gives each bit alone."""
    for i in prange(out.shape[0]):
        t = get_thread_id()
        blocked = blockeds[t]
        mass = masses[t]
        keeps = keepss[t]
        path = paths[t]
        prefix = prefixes[t]
        onp = onps[t]
        if starts[i]:
            pos[i, 0] = ORIGIN
            pos[i, 1] = ORIGIN
            bounds[i, 0] = ORIGIN
            bounds[i, 1] = ORIGIN
            bounds[i, 2] = ORIGIN
            bounds[i, 3] = ORIGIN
            for r in range(LOCAL):  # loops, not slices: much less to compile
                for c in range(LOCAL):
                    tiles[i, r, c] = UNKNOWN
                    belief[i, r, c] = 1.0
            for r in range(GRID_SIZE):
                for c in range(GRID_SIZE):
                    hyp[i, r, c] = 1.0
            last_move[i] = NO_MOVE
            if mode & TOLD:
                true_start[i, 0] = true_pos[i, 0]
                true_start[i, 1] = true_pos[i, 1]
            if mode & EDGES_KNOWN:
                # Local tile ORIGIN + (true - start): rows and columns 0..14 of the grid are
                # ORIGIN - start .. ORIGIN - start + 14, the span _on_grid then allows exactly.
                bounds[i, 0] = ORIGIN - true_start[i, 0]
                bounds[i, 1] = bounds[i, 0] + SPAN
                bounds[i, 2] = ORIGIN - true_start[i, 1]
                bounds[i, 3] = bounds[i, 2] + SPAN
        elif mode & TOLD:
            if last_move[i] != NO_MOVE:
                tr = ORIGIN + true_pos[i, 0] - true_start[i, 0]
                tc = ORIGIN + true_pos[i, 1] - true_start[i, 1]
                if tr == pos[i, 0] and tc == pos[i, 1]:
                    d = last_move[i]
                    tiles[i, pos[i, 0] + DIR_ROW[d], pos[i, 1] + DIR_COL[d]] = BLOCKED
                pos[i, 0] = tr
                pos[i, 1] = tc
                if not mode & EDGES_KNOWN:
                    _extend(bounds, i, tr, tc)
        elif last_move[i] != NO_MOVE:
            d = last_move[i]
            tr = pos[i, 0] + DIR_ROW[d]
            tc = pos[i, 1] + DIR_COL[d]
            if last_facing[i] != d:
                moved = facing[i] == d
            else:  # the facing cannot tell: a known free tile or a changed window can
                moved = tiles[i, tr, tc] == FREE
                for r in range(3):
                    for c in range(3):
                        if view[i, r, c] != last_view[i, r, c]:
                            moved = True
            if moved:
                pos[i, 0] = tr
                pos[i, 1] = tc
                _extend(bounds, i, tr, tc)
            elif tiles[i, tr, tc] != BLOCKED:
                tiles[i, tr, tc] = BLOCKED
                _bump(hyp, i, tr, tc)
        r0 = pos[i, 0]
        c0 = pos[i, 1]
        tiles[i, r0, c0] = FREE
        for r in range(3):
            for c in range(3):
                last_view[i, r, c] = view[i, r, c]
        last_facing[i] = facing[i]
        if view[i, 1, 1] >= 2:
            out[i] = MARK
            last_move[i] = NO_MOVE
            continue
        for d in range(4):
            tr = r0 + DIR_ROW[d]
            tc = c0 + DIR_COL[d]
            inside = 0 <= tr < LOCAL and 0 <= tc < LOCAL
            blocked[d] = not inside or tiles[i, tr, tc] == BLOCKED
        direction = _climb_direction(view, i, blocked)
        if direction == NO_MOVE:
            if view[i, 1, 1] == 0:  # nothing in sight (a climb never stops on a lit tile)
                _rule_out(belief, i, r0, c0)
            if mode & EDGE_BELIEF:
                _start_prefix(hyp, bounds, i, prefix)
            direction = PLAN(
                belief, bounds, tiles, i, r0, c0, facing[i], mode, mass, keeps, path, prefix, onp
            )
            if direction == NO_MOVE:  # boxed in: turn, so the next move can be read
                out[i] = ROTATE_RIGHT
                last_move[i] = NO_MOVE
                continue
        last_move[i] = direction
        out[i] = ACTION_OF_DIRECTION[direction]


class FieldSweepAgent(BatchAgent):
    """Fair heuristic: sees only the observation (field window and facing). ``mode`` is
    ``EDGE_BELIEF``; a subclass with other bits gives the page's non-fair variants."""

    name = "heuristic"
    description = (
        "dead-reckoning coverage over a belief of where the node can be (weighted by a belief "
        "of where the agent started), then climbs"
    )
    mode = EDGE_BELIEF

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        n = self.num_envs
        # Read only by the exact-position reference; the fair agent gets placeholders.
        self.batch = env.batch if self.mode & TOLD else None
        self.true_start = np.zeros((n, 2), dtype=np.int64)
        self.hyp = np.ones((n, GRID_SIZE, GRID_SIZE))
        self.prefix = thread_scratch((GRID_SIZE + 1, GRID_SIZE + 1), np.float64)
        self.onp = thread_scratch((BOX, BOX), np.float64)
        self.pos = np.zeros((n, 2), dtype=np.int64)
        self.bounds = np.zeros((n, 4), dtype=np.int64)
        self.tiles = np.zeros((n, LOCAL, LOCAL), dtype=np.int8)
        self.belief = np.ones((n, LOCAL, LOCAL))
        self.last_move = np.full(n, NO_MOVE, dtype=np.int64)
        self.last_facing = np.zeros(n, dtype=np.int64)
        self.last_view = np.zeros((n, 3, 3), dtype=np.int8)
        self.actions = np.zeros(n, dtype=np.int64)
        self.blocked = thread_scratch((4,), np.bool_)
        self.mass = thread_scratch((BOX, BOX), np.float64)
        self.keeps = thread_scratch((PLAN_DEPTH + 1, BOX, BOX), np.float64)
        self.path = thread_scratch((PLAN_DEPTH, 6), np.float64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        run_rows(
            self.num_threads,
            heuristic_act,
            obs["field"],
            obs["facing"],
            starts,
            self.pos,
            self.bounds,
            self.tiles,
            self.belief,
            self.last_move,
            self.last_facing,
            self.last_view,
            self.actions,
            self.blocked,
            self.mass,
            self.keeps,
            self.path,
            np.int64(self.mode),
            self.batch["agent"] if self.mode & TOLD else self.true_start,
            self.true_start,
            self.hyp,
            self.prefix,
            self.onp,
            whole=(11, 12, 13, 14, 15, 19, 20),  # thread scratch and the mode
        )
        return self.actions.copy()


class ExactPositionAgent(FieldSweepAgent):
    """Not fair: the heuristic's planner told its exact tile every step (read from the hidden
    state). It shows what position ambiguity and the unknown grid edges cost a fair agent."""

    name = "exact-position"
    reads_scenario = True
    description = "the heuristic's planner told its exact position: knows the grid's edges"
    mode = MOVES_READ | EDGES_KNOWN


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
        for r in range(GRID_SIZE):  # loops, not a slice: much less to compile
            for c in range(GRID_SIZE):
                dist[r, c] = -1
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
        run_rows(self.num_threads, oracle_act, b["walls"], b["node"], b["agent"], self.actions)
        return self.actions.copy()


AGENTS = {
    "random": RandomAgent,
    "heuristic": FieldSweepAgent,
    "exact-position": ExactPositionAgent,
    "oracle": OracleAgent,
}
