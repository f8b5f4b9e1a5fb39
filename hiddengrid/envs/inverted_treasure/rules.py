"""InvertedTreasure's rules (seed 002, SPEC section 4), in the order a step applies them.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode. Internally the
agent is kept as an array index ``[row, col]`` (row 0 north); the observation reports it in the
seed's ``(x, y)`` form, ``x = col`` and ``y = 7 - row``.
"""

import numpy as np
from numba import njit

from hiddengrid.core.definition import Field
from hiddengrid.envs.inverted_treasure.constants import (
    BOMB,
    FLOWER,
    GRID_SIZE,
    MOVE_COL,
    MOVE_EAST,
    MOVE_ROW,
    OUTSIDE,
    REVEAL,
    RUNNING,
    START_COL,
    START_ROW,
    STEP_BUDGET,
    TIMEOUT,
    TRAP,
    TREASURE,
    UNSEEN,
    WINDOW_RADIUS,
    WINDOW_SIZE,
)
from hiddengrid.envs.inverted_treasure.generator import draw_scenario

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    Field("icons", np.int8, (GRID_SIZE, GRID_SIZE)),  # scenario: 1 Empty, 2 Bomb, 3 Flower
    Field("scout", np.bool_),  # parameter (not reset): Reveal also reveals the 4 neighbours
    Field("seen", np.int8, (GRID_SIZE, GRID_SIZE)),  # revealed icons so far, 0 where unseen
    Field("agent", np.int64, (2,)),  # [row, col] now
    Field("steps_left", np.int64),  # also the observation
    Field("window", np.int8, (WINDOW_SIZE, WINDOW_SIZE)),  # observation, north-up
    Field("position", np.int64, (2,)),  # observation: (x, y), y grows to the north
)


@njit(cache=True)
def write_observation(
    i: int, seen: np.ndarray, agent: np.ndarray, window: np.ndarray, position: np.ndarray
) -> None:
    """The 5x5 window of revealed icons around the agent (4 off the grid) and its (x, y)."""
    ar = agent[i, 0]
    ac = agent[i, 1]
    for dr in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1):
        r = ar + dr
        for dc in range(-WINDOW_RADIUS, WINDOW_RADIUS + 1):
            c = ac + dc
            if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:
                window[i, dr + WINDOW_RADIUS, dc + WINDOW_RADIUS] = seen[i, r, c]
            else:
                window[i, dr + WINDOW_RADIUS, dc + WINDOW_RADIUS] = OUTSIDE
    position[i, 0] = ac
    position[i, 1] = GRID_SIZE - 1 - ar


@njit(cache=True)
def start_episode(i, icons, scout, seen, agent, steps_left, window, position):
    """The agent on (x, y) = (0, 0), every tile (the start tile too) unrevealed, 30 steps."""
    agent[i, 0] = START_ROW
    agent[i, 1] = START_COL
    seen[i, :, :] = UNSEEN
    steps_left[i] = STEP_BUDGET
    write_observation(i, seen, agent, window, position)


@njit(cache=True)
def reveal_tile(i: int, r: int, c: int, icons: np.ndarray, seen: np.ndarray) -> None:
    if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:
        seen[i, r, c] = icons[i, r, c]


@njit(cache=True)
def reveal(i: int, icons: np.ndarray, scout: np.ndarray, seen: np.ndarray, agent: np.ndarray):
    """Reveals the agent's tile; in the Scout variant also its four orthogonal neighbours."""
    r = agent[i, 0]
    c = agent[i, 1]
    reveal_tile(i, r, c, icons, seen)
    if scout[i]:
        reveal_tile(i, r - 1, c, icons, seen)
        reveal_tile(i, r + 1, c, icons, seen)
        reveal_tile(i, r, c - 1, icons, seen)
        reveal_tile(i, r, c + 1, icons, seen)


@njit(cache=True)
def step_one(i, action, outcome, reward, terminated, icons, scout, seen, agent, steps_left):
    """One action of sub-env ``i``: sets its reward, terminated flag and outcome."""
    steps_left[i] -= 1
    reward[i] = 0.0
    terminated[i] = False
    if action <= MOVE_EAST:
        r = agent[i, 0] + MOVE_ROW[action]
        c = agent[i, 1] + MOVE_COL[action]
        if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:  # off the grid: only the budget moves
            seen[i, r, c] = icons[i, r, c]  # the target is revealed first...
            agent[i, 0] = r  # ...then the agent stands on it, revealed before or not
            agent[i, 1] = c
            if icons[i, r, c] == FLOWER:
                terminated[i] = True
                outcome[i] = TRAP
                return
            if icons[i, r, c] == BOMB:
                terminated[i] = True
                reward[i] = 1.0
                outcome[i] = TREASURE
                return
    elif action == REVEAL:
        reveal(i, icons, scout, seen, agent)
    # WAIT does nothing.
    if steps_left[i] == 0:
        terminated[i] = True
        outcome[i] = TIMEOUT


@njit(cache=True)
def reset_all(rng, done, outcome, icons, scout, seen, agent, steps_left, window, position):
    for i in range(rng.shape[0]):
        draw_scenario(rng, i, icons)
        start_episode(i, icons, scout, seen, agent, steps_left, window, position)
        done[i] = False
        outcome[i] = RUNNING


@njit(cache=True)
def step_all(
    actions,
    rng,
    done,
    outcome,
    reward,
    terminated,
    icons,
    scout,
    seen,
    agent,
    steps_left,
    window,
    position,
):
    for i in range(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, icons)
            start_episode(i, icons, scout, seen, agent, steps_left, window, position)
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
            continue
        step_one(i, actions[i], outcome, reward, terminated, icons, scout, seen, agent, steps_left)
        done[i] = terminated[i]
        write_observation(i, seen, agent, window, position)
