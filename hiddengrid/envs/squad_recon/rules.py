"""SquadRecon's rules, in the order a step applies them.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode.

One step: (1) ``move_squads``: all moves at once; (2) ``attack_enemy_camps``: camps in index
order; (3) ``sensor_sweep``: sight and memory; (4) the budget and the end of the episode.
"""

import numpy as np
from numba import prange

from hiddengrid.core.definition import Field
from hiddengrid.core.kernel import inline, kernel
from hiddengrid.envs.squad_recon.constants import (
    ALIVE,
    ATTACK,
    CAMP_REWARD,
    COL,
    DETECTED,
    ELIMINATED,
    GRID_SIZE,
    NUM_CAMPS,
    NUM_SQUADS,
    OPEN,
    ORDER_COL,
    ORDER_ROW,
    ROW,
    RUNNING,
    SENSOR_RADIUS,
    SENSOR_WIDTH,
    STEP_BUDGET,
    STRENGTH,
    SUCCESS,
    TIMEOUT,
    UNDETECTED,
    UNEXPLORED,
    WIPED_OUT,
)
from hiddengrid.envs.squad_recon.generator import PADDED as OPEN_ROWS
from hiddengrid.envs.squad_recon.generator import draw_scenario
from hiddengrid.envs.squad_recon.sight import (
    BLOCKING_ROWS,
    WINDOW_ROW,
    fill_blocking_rows,
    window_in_sight,
    window_in_sight_from_rows,
)

# Rows of ``sight_rows``: the grid's, padded by SENSOR_RADIUS above and below and on the west
# (bit ``c + SENSOR_RADIUS`` is column ``c``), so a squad's window is ORed in without bounds tests.
SIGHT_ROWS = GRID_SIZE + 2 * SENSOR_RADIUS

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    Field("terrain", np.int8, (GRID_SIZE, GRID_SIZE)),  # scenario: 0 open, 1 wall, 2 forest
    Field("start_squads", np.int64, (NUM_SQUADS, 3)),  # scenario: row, col, strength
    Field("camps", np.int64, (NUM_CAMPS, 3)),  # scenario: row, col, strength
    Field("squads", np.int8, (NUM_SQUADS, 4)),  # row, col, strength, alive; the observation
    Field("camp_status", np.int8, (NUM_CAMPS,)),  # 0 undetected, 1 detected, 2 eliminated
    Field("explored", np.int8, (GRID_SIZE, GRID_SIZE)),  # observation "terrain": -1 or 0/1/2
    Field("visible", np.int8, (GRID_SIZE, GRID_SIZE)),  # observation: seen this step
    Field("camps_view", np.int8, (NUM_CAMPS, 4)),  # observation "camps"
    Field("progress", np.float32, (1,)),  # observation: eliminated / 2
    Field("steps_left", np.int64),  # observation
    Field("total_strength", np.int64),  # observation: strength of the live squads
    # Internal bit rows for the sight of ``update_sight`` (bit c = column c unless padded):
    Field("blocking_rows", np.int32, (BLOCKING_ROWS,)),  # walls and forest (sight.py), padded
    Field("sight_rows", np.int32, (SIGHT_ROWS,)),  # scratch: seen this step, padded
    Field("visible_rows", np.int32, (GRID_SIZE,)),  # "visible" as bits
    Field("explored_rows", np.int32, (GRID_SIZE,)),  # cells of "terrain" that are explored
    Field("sight_key", np.int64),  # the live squads' cells when sight was last computed
    Field("open_rows", np.int64, (OPEN_ROWS,)),  # scratch of the generator (generator.py)
)


# --- (1) moves -----------------------------------------------------------------------------------


@inline
def blocks_movement(terrain, camps, camp_status, i, r, c) -> bool:
    """Off the grid, a wall, forest, or a camp not yet eliminated. Squads never block squads."""
    if r < 0 or r >= GRID_SIZE or c < 0 or c >= GRID_SIZE:
        return True
    if terrain[i, r, c] != OPEN:
        return True
    for j in range(NUM_CAMPS):
        if camp_status[i, j] != ELIMINATED and camps[i, j, 0] == r and camps[i, j, 1] == c:
            return True
    return False


@inline
def move_squads(i, actions, terrain, camps, camp_status, squads) -> None:
    """Every live squad with a move order steps one cell unless the target blocks movement.

    Only terrain and camps block, never another squad, so the moves are independent and doing
    them one by one is the same as doing them all at once. Orders of destroyed squads are
    ignored; hold and attack do not move.
    """
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0:
            continue
        order = actions[i, k]
        r = np.int64(squads[i, k, ROW]) + ORDER_ROW[order]
        c = np.int64(squads[i, k, COL]) + ORDER_COL[order]
        if (r != squads[i, k, ROW] or c != squads[i, k, COL]) and not blocks_movement(
            terrain, camps, camp_status, i, r, c
        ):
            squads[i, k, ROW] = r
            squads[i, k, COL] = c


# --- (2) attacks ---------------------------------------------------------------------------------


@inline
def next_to(squads, camps, i, k, j) -> bool:
    """Live squad ``k`` stands at Manhattan distance 1 from camp ``j``."""
    return (
        squads[i, k, ALIVE] != 0
        and abs(np.int64(squads[i, k, ROW]) - camps[i, j, 0])
        + abs(np.int64(squads[i, k, COL]) - camps[i, j, 1])
        == 1
    )


@inline
def attack_enemy_camps(i, actions, camps, camp_status, squads, reward) -> None:
    """For each remaining camp in index order that a live attacking squad stands next to: the
    strengths of all live squads next to it (attacking or not) are totalled; more than the
    camp's strength eliminates it (+0.5), otherwise every squad next to it is destroyed. A
    squad destroyed at camp 0 neither counts nor attacks at camp 1. An attack order with no
    camp next to the squad is a hold."""
    for j in range(NUM_CAMPS):
        if camp_status[i, j] == ELIMINATED:
            continue
        attacked = False
        total = 0
        for k in range(NUM_SQUADS):
            if next_to(squads, camps, i, k, j):
                total += np.int64(squads[i, k, STRENGTH])
                if actions[i, k] == ATTACK:
                    attacked = True
        if not attacked:
            continue
        if total > camps[i, j, 2]:
            camp_status[i, j] = ELIMINATED
            reward[i] += CAMP_REWARD
        else:
            for k in range(NUM_SQUADS):
                if next_to(squads, camps, i, k, j):
                    squads[i, k, ALIVE] = 0


# --- (3) sight -----------------------------------------------------------------------------------


@inline
def sensor_sweep(i, terrain, camps, camp_status, squads, explored, visible) -> None:
    """Every live squad sees each cell of its 7x7 window (``sensor_radius`` 3) whose Bresenham
    line from the squad has no wall or forest strictly between (``window_in_sight`` in
    ``sight.py``, from lines computed once). Seen cells stay explored; a camp whose cell is seen
    is detected for good."""
    for r in range(GRID_SIZE):  # loops: a slice assignment costs more than the work here
        for c in range(GRID_SIZE):
            visible[i, r, c] = 0
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0:
            continue
        r0 = np.int64(squads[i, k, ROW])
        c0 = np.int64(squads[i, k, COL])
        shared = False  # squads on one cell see the same: look once
        for m in range(k):
            if squads[i, m, ALIVE] != 0 and squads[i, m, ROW] == r0 and squads[i, m, COL] == c0:
                shared = True
        if shared:
            continue
        seen = window_in_sight(terrain, i, r0, c0)  # bit o: offset o of the 7x7 window
        for r in range(max(r0 - SENSOR_RADIUS, 0), min(r0 + SENSOR_RADIUS, GRID_SIZE - 1) + 1):
            first_bit = (r - r0 + SENSOR_RADIUS) * SENSOR_WIDTH - c0 + SENSOR_RADIUS
            for c in range(max(c0 - SENSOR_RADIUS, 0), min(c0 + SENSOR_RADIUS, GRID_SIZE - 1) + 1):
                bit = np.int8((seen >> (first_bit + c)) & 1)
                visible[i, r, c] |= bit
                keep = ~(-bit)  # branch-free: explored = terrain where seen, else unchanged
                explored[i, r, c] = (terrain[i, r, c] & -bit) | (explored[i, r, c] & keep)
    for j in range(NUM_CAMPS):
        if camp_status[i, j] == UNDETECTED and visible[i, camps[i, j, 0], camps[i, j, 1]] != 0:
            camp_status[i, j] = DETECTED


@inline
def update_sight(
    i,
    terrain,
    camps,
    camp_status,
    squads,
    explored,
    visible,
    blocking_rows,
    sight_rows,
    visible_rows,
    explored_rows,
    sight_key,
) -> None:
    """``sensor_sweep`` as the steps run it, with the same result, kept as bit rows.

    ``sensor_sweep`` clears and rewrites up to 3 x 49 cells of two int8 maps every step; here
    the seen cells are ORed into one bit row per grid row, and the maps are rewritten only in
    the rows whose visible bits changed (most rows of a step do not). Explored cells never
    become unexplored, so ``explored`` changes only in rows with newly seen cells.
    """
    # Terrain is static, so what the squads see changes only when a squad moves or falls:
    # the key packs the cells of the live squads, and an unchanged key leaves everything as is.
    key = 0
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] != 0:
            key |= (np.int64(squads[i, k, ROW]) * GRID_SIZE + squads[i, k, COL] + 1) << (8 * k)
    if key == sight_key[i]:
        return
    sight_key[i] = key
    for r in range(SIGHT_ROWS):
        sight_rows[i, r] = 0
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] == 0:
            continue
        r0 = np.int64(squads[i, k, ROW])
        c0 = np.int64(squads[i, k, COL])
        seen = window_in_sight_from_rows(blocking_rows, i, r0, c0)  # bit o: offset o
        for w in range(SENSOR_WIDTH):  # window row w: grid row r0 - 3 + w, padded row r0 + w
            sight_rows[i, r0 + w] |= ((seen >> (SENSOR_WIDTH * w)) & WINDOW_ROW) << c0
    for r in range(GRID_SIZE):
        now = np.int64(sight_rows[i, r + SENSOR_RADIUS]) >> SENSOR_RADIUS
        if now == visible_rows[i, r]:
            continue
        visible_rows[i, r] = now
        for c in range(GRID_SIZE):
            visible[i, r, c] = (now >> c) & 1
        known = np.int64(explored_rows[i, r])
        if now & ~known == 0:
            continue
        known |= now
        explored_rows[i, r] = known
        for c in range(GRID_SIZE):  # branch-free: terrain | 0 where explored, terrain | -1 not
            explored[i, r, c] = terrain[i, r, c] | (((known >> c) & 1) - 1)
    for j in range(NUM_CAMPS):
        if (
            camp_status[i, j] == UNDETECTED
            and (visible_rows[i, camps[i, j, 0]] >> camps[i, j, 1]) & 1
        ):
            camp_status[i, j] = DETECTED


# --- observation ---------------------------------------------------------------------------------


@inline
def write_observation(i, camps, camp_status, squads, camps_view, progress, total_strength):
    """Camps: row, col, strength, status once detected (all zero before); progress; strength."""
    eliminated = 0
    for j in range(NUM_CAMPS):
        status = camp_status[i, j]
        shown = status != UNDETECTED
        camps_view[i, j, 0] = camps[i, j, 0] if shown else 0
        camps_view[i, j, 1] = camps[i, j, 1] if shown else 0
        camps_view[i, j, 2] = camps[i, j, 2] if shown else 0
        camps_view[i, j, 3] = status
        if status == ELIMINATED:
            eliminated += 1
    progress[i, 0] = eliminated / NUM_CAMPS
    total = 0
    for k in range(NUM_SQUADS):
        if squads[i, k, ALIVE] != 0:
            total += np.int64(squads[i, k, STRENGTH])
    total_strength[i] = total


# --- episodes ------------------------------------------------------------------------------------


@kernel
def start_episode(
    i,
    terrain,
    start_squads,
    camps,
    squads,
    camp_status,
    explored,
    visible,
    camps_view,
    progress,
    steps_left,
    total_strength,
    blocking_rows,
    sight_rows,
    visible_rows,
    explored_rows,
    sight_key,
    open_rows,
):
    for k in range(NUM_SQUADS):
        squads[i, k, ROW] = start_squads[i, k, 0]
        squads[i, k, COL] = start_squads[i, k, 1]
        squads[i, k, STRENGTH] = start_squads[i, k, 2]
        squads[i, k, ALIVE] = 1
    for j in range(NUM_CAMPS):
        camp_status[i, j] = UNDETECTED
    # One loop per array: writing two int8 maps in one loop keeps LLVM from vectorizing it
    # (they might overlap), which measured about 8 times slower.
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            explored[i, r, c] = UNEXPLORED
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            visible[i, r, c] = 0
    for r in range(GRID_SIZE):
        visible_rows[i, r] = 0
    for r in range(GRID_SIZE):
        explored_rows[i, r] = 0
    fill_blocking_rows(terrain, i, blocking_rows)
    sight_key[i] = -1  # nothing computed yet
    steps_left[i] = STEP_BUDGET
    update_sight(
        i, terrain, camps, camp_status, squads, explored, visible, blocking_rows, sight_rows,
        visible_rows, explored_rows, sight_key,
    )  # fmt: skip
    write_observation(i, camps, camp_status, squads, camps_view, progress, total_strength)


@inline
def step_one(
    i,
    actions,
    outcome,
    reward,
    terminated,
    terrain,
    camps,
    squads,
    camp_status,
    explored,
    visible,
    steps_left,
    blocking_rows,
    sight_rows,
    visible_rows,
    explored_rows,
    sight_key,
):
    """One step of sub-env ``i``: sets its reward, terminated flag and outcome."""
    reward[i] = 0.0
    terminated[i] = False
    move_squads(i, actions, terrain, camps, camp_status, squads)  # (1)
    attack_enemy_camps(i, actions, camps, camp_status, squads, reward)  # (2)
    update_sight(
        i, terrain, camps, camp_status, squads, explored, visible, blocking_rows, sight_rows,
        visible_rows, explored_rows, sight_key,
    )  # (3) sensor_sweep, incrementally  # fmt: skip
    steps_left[i] -= 1  # (4)
    remaining = 0
    for j in range(NUM_CAMPS):
        if camp_status[i, j] != ELIMINATED:
            remaining += 1
    alive = 0
    for k in range(NUM_SQUADS):
        alive += squads[i, k, ALIVE] != 0
    # A win or a wipe-out on the last step is reported as that, not as a timeout.
    if remaining == 0:
        outcome[i] = SUCCESS
    elif alive == 0:
        outcome[i] = WIPED_OUT
    elif steps_left[i] == 0:
        outcome[i] = TIMEOUT
    else:
        return
    terminated[i] = True


@kernel
def reset_done(
    rng,
    done,
    outcome,
    terrain,
    start_squads,
    camps,
    squads,
    camp_status,
    explored,
    visible,
    camps_view,
    progress,
    steps_left,
    total_strength,
    blocking_rows,
    sight_rows,
    visible_rows,
    explored_rows,
    sight_key,
    open_rows,
):
    """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
    autoreset): what ``step_all`` does for such a sub-env, without stepping the others."""
    for i in prange(rng.shape[0]):
        if not done[i]:
            continue
        draw_scenario(rng, i, terrain, start_squads, camps, open_rows)
        start_episode(
            i, terrain, start_squads, camps, squads, camp_status, explored, visible, camps_view,
            progress, steps_left, total_strength, blocking_rows, sight_rows, visible_rows,
            explored_rows, sight_key, open_rows,
        )  # fmt: skip
        done[i] = False
        outcome[i] = RUNNING


@kernel
def step_all(
    actions,
    rng,
    done,
    outcome,
    reward,
    terminated,
    terrain,
    start_squads,
    camps,
    squads,
    camp_status,
    explored,
    visible,
    camps_view,
    progress,
    steps_left,
    total_strength,
    blocking_rows,
    sight_rows,
    visible_rows,
    explored_rows,
    sight_key,
    open_rows,
):
    for i in prange(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, terrain, start_squads, camps, open_rows)
            start_episode(
                i, terrain, start_squads, camps, squads, camp_status, explored, visible,
                camps_view, progress, steps_left, total_strength, blocking_rows, sight_rows,
                visible_rows, explored_rows, sight_key, open_rows,
            )  # fmt: skip
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
            continue
        step_one(
            i, actions, outcome, reward, terminated, terrain, camps, squads, camp_status,
            explored, visible, steps_left, blocking_rows, sight_rows, visible_rows, explored_rows,
            sight_key,
        )  # fmt: skip
        done[i] = terminated[i]
        write_observation(i, camps, camp_status, squads, camps_view, progress, total_strength)
