"""AnomalyMapping's rules, in the order a step applies them.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode.
"""

import numpy as np
from numba import njit, prange

from hiddengrid.core.definition import Field
from hiddengrid.core.kernel import kernel
from hiddengrid.envs.anomaly_mapping.constants import (
    DIR_COL,
    DIR_ROW,
    MARK,
    MAX_LEVEL,
    MOVE_DIRECTION,
    MOVE_WEST,
    PADDED,
    ROTATE_LEFT,
    ROTATE_RIGHT,
    RUNNING,
    SENSOR_RADIUS,
    STEP_BUDGET,
    SUCCESS,
    TIMEOUT,
    WRONG_MARK,
)
from hiddengrid.envs.anomaly_mapping.generator import draw_scenario

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    Field("walls", np.int64, (PADDED,)),  # scenario: row bit masks, tile (r, c) = bit c+1 of r+1
    Field("node", np.int64, (2,)),  # scenario: [row, col] of the Vulnerability Node
    Field("start", np.int64, (2,)),  # scenario: the agent's start tile
    Field("start_facing", np.int64),  # scenario
    Field("agent", np.int64, (2,)),  # [row, col] now
    Field("facing", np.int64),  # 0 N, 1 E, 2 S, 3 W; also the observation
    Field("steps_left", np.int64),  # also the observation
    Field("view", np.int8, (3, 3)),  # observation: levels around the agent, north-up
)


@njit(cache=True, inline="always")
def is_wall(walls: np.ndarray, i: int, r: int, c: int) -> bool:
    """Tile (r, c), or the border when it is one step off the grid."""
    return (walls[i, r + 1] >> (c + 1)) & 1 == 1


@njit(cache=True, inline="always")
def field_level(walls: np.ndarray, i: int, node: np.ndarray, r: int, c: int) -> int:
    """``max(0, 3 - d)`` with ``d`` the shortest 4-connected free path from the node to (r, c).

    Only d <= 2 gives a non-zero level, and a free path of length <= 2 exists exactly when the
    Manhattan distance is that short and (at distance 2) a tile between them is free: a wall in
    the way forces a detour of at least 4, which is the Faraday shadow.
    """
    # Callers ask about tiles at most one step off the grid: those are the wall border, level 0.
    if is_wall(walls, i, r, c):
        return 0
    nr = node[i, 0]
    nc = node[i, 1]
    dr = abs(r - nr)
    dc = abs(c - nc)
    d = dr + dc
    if d <= 1:
        return MAX_LEVEL - d
    if d > 2:
        return 0
    if dr == 2:
        between_free = not is_wall(walls, i, (r + nr) // 2, c)
    elif dc == 2:
        between_free = not is_wall(walls, i, r, (c + nc) // 2)
    else:  # diagonal: either corner tile will do
        between_free = not is_wall(walls, i, nr, c) or not is_wall(walls, i, r, nc)
    return MAX_LEVEL - 2 if between_free else 0


@njit(cache=True, inline="always")
def write_observation(
    i: int, walls: np.ndarray, node: np.ndarray, agent: np.ndarray, view: np.ndarray
) -> None:
    # Window cells lie within Manhattan 2 of the agent and lit tiles within 2 of the node.
    if abs(agent[i, 0] - node[i, 0]) + abs(agent[i, 1] - node[i, 1]) > 2 * (MAX_LEVEL - 1):
        for r in range(3):  # explicit loops: a slice assignment costs more than the work here
            for c in range(3):
                view[i, r, c] = 0
        return
    for dr in range(-SENSOR_RADIUS, SENSOR_RADIUS + 1):
        for dc in range(-SENSOR_RADIUS, SENSOR_RADIUS + 1):
            view[i, dr + SENSOR_RADIUS, dc + SENSOR_RADIUS] = field_level(
                walls, i, node, agent[i, 0] + dr, agent[i, 1] + dc
            )


@kernel
def start_episode(i, walls, node, start, start_facing, agent, facing, steps_left, view):
    agent[i, 0] = start[i, 0]
    agent[i, 1] = start[i, 1]
    facing[i] = start_facing[i]
    steps_left[i] = STEP_BUDGET
    write_observation(i, walls, node, agent, view)


@njit(cache=True, inline="always")
def move(i: int, direction: int, walls: np.ndarray, agent: np.ndarray, facing: np.ndarray) -> None:
    """A legal move moves and faces its direction; into a wall or off the grid, nothing."""
    r = agent[i, 0] + DIR_ROW[direction]
    c = agent[i, 1] + DIR_COL[direction]
    if not is_wall(walls, i, r, c):  # the border makes off-grid a wall
        agent[i, 0] = r
        agent[i, 1] = c
        facing[i] = direction


@njit(cache=True, inline="always")
def mark_is_correct(i: int, node: np.ndarray, agent: np.ndarray) -> bool:
    """Manhattan distance at most 1 to the node; walls do not matter here."""
    return abs(agent[i, 0] - node[i, 0]) + abs(agent[i, 1] - node[i, 1]) <= 1


@njit(cache=True, inline="always")
def step_one(i, action, outcome, reward, terminated, walls, node, agent, facing, steps_left):
    """One action of sub-env ``i``: sets its reward, terminated flag and outcome."""
    steps_left[i] -= 1
    reward[i] = 0.0
    terminated[i] = False
    if action <= MOVE_WEST:
        move(i, MOVE_DIRECTION[action], walls, agent, facing)
    elif action == ROTATE_LEFT:
        facing[i] = (facing[i] + 3) % 4  # counter-clockwise
    elif action == ROTATE_RIGHT:
        facing[i] = (facing[i] + 1) % 4
    elif action == MARK:
        terminated[i] = True
        if mark_is_correct(i, node, agent):
            reward[i] = 1.0
            outcome[i] = SUCCESS
        else:
            outcome[i] = WRONG_MARK
        return
    if steps_left[i] == 0:
        terminated[i] = True
        outcome[i] = TIMEOUT


@kernel
def reset_done(
    rng, done, outcome, walls, node, start, start_facing, agent, facing, steps_left, view
):
    """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
    autoreset): what ``step_all`` does for such a sub-env, without stepping the others."""
    for i in prange(rng.shape[0]):
        if not done[i]:
            continue
        draw_scenario(rng, i, walls, node, start, start_facing)
        start_episode(i, walls, node, start, start_facing, agent, facing, steps_left, view)
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
    walls,
    node,
    start,
    start_facing,
    agent,
    facing,
    steps_left,
    view,
):
    for i in prange(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, walls, node, start, start_facing)
            start_episode(i, walls, node, start, start_facing, agent, facing, steps_left, view)
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
            continue
        step_one(i, actions[i], outcome, reward, terminated, walls, node, agent, facing, steps_left)
        done[i] = terminated[i]
        write_observation(i, walls, node, agent, view)
