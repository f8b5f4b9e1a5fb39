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
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            seen[i, r, c] = UNSEEN
    steps_left[i] = STEP_BUDGET
    write_observation(i, seen, agent, window, position)


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
    """One action of every sub-env, its rules top to bottom.

    The hot path is written out in this one loop on purpose: a Numba call that passes arrays
    costs reference-count updates, which would triple the time of a step.
    """
    for i in range(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored (same start as start_episode)
            draw_scenario(rng, i, icons)
            agent[i, 0] = START_ROW
            agent[i, 1] = START_COL
            for r in range(GRID_SIZE):
                for c in range(GRID_SIZE):
                    seen[i, r, c] = UNSEEN
            steps_left[i] = STEP_BUDGET
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
        else:
            action = actions[i]
            steps_left[i] -= 1  # every action costs one step, whatever it does
            reward[i] = 0.0
            terminated[i] = False
            r = agent[i, 0]
            c = agent[i, 1]
            if action <= MOVE_EAST:
                r += MOVE_ROW[action]
                c += MOVE_COL[action]
                if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:  # off the grid: nothing else
                    icon = icons[i, r, c]
                    seen[i, r, c] = icon  # the target is revealed first,
                    agent[i, 0] = r  # then the agent stands on it, revealed before or not
                    agent[i, 1] = c
                    if icon == FLOWER:
                        terminated[i] = True
                        outcome[i] = TRAP
                    elif icon == BOMB:
                        terminated[i] = True
                        reward[i] = 1.0
                        outcome[i] = TREASURE
            elif action == REVEAL:  # the agent's tile; Scout: and its neighbours in the grid
                seen[i, r, c] = icons[i, r, c]
                if scout[i]:
                    if r > 0:
                        seen[i, r - 1, c] = icons[i, r - 1, c]
                    if r < GRID_SIZE - 1:
                        seen[i, r + 1, c] = icons[i, r + 1, c]
                    if c > 0:
                        seen[i, r, c - 1] = icons[i, r, c - 1]
                    if c < GRID_SIZE - 1:
                        seen[i, r, c + 1] = icons[i, r, c + 1]
            # WAIT does nothing.
            if not terminated[i] and steps_left[i] == 0:
                terminated[i] = True
                outcome[i] = TIMEOUT
            done[i] = terminated[i]
        # The observation: what write_observation writes, written out for speed.
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
