"""InvertedTreasure's rules, in the order a step applies them.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode. Internally the
agent is kept as an array index ``[row, col]`` (row 0 north); the observation reports it in the
``(x, y)`` form, ``x = col`` and ``y = 7 - row``.

What the agent has revealed lives on a ``board`` padded with two rings of "outside" cells, so
the 5x5 window is a plain copy with no edge tests: tile ``[r, c]`` is ``board[r + 2, c + 2]``.
The batch kernels are compiled without reference counting and their helpers inlined
(``hiddengrid.core.kernel`` says why).
"""

import numpy as np
from numba import prange

from hiddengrid.core.definition import Field
from hiddengrid.core.kernel import inline, kernel
from hiddengrid.envs.inverted_treasure.constants import (
    BOARD_SIZE,
    BOMB,
    FLOWER,
    GRID_SIZE,
    MOVE_COL,
    MOVE_EAST,
    MOVE_ROW,
    OUTSIDE,
    PAD,
    REVEAL,
    RUNNING,
    START_COL,
    START_ROW,
    STEP_BUDGET,
    TIMEOUT,
    TRAP,
    TREASURE,
    UNSEEN,
    WINDOW_SIZE,
)
from hiddengrid.envs.inverted_treasure.generator import draw_scenario

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    Field("icons", np.int8, (GRID_SIZE, GRID_SIZE)),  # scenario: 1 Empty, 2 Bomb, 3 Flower
    Field("scout", np.bool_),  # parameter (not reset): Reveal also reveals the 4 neighbours
    Field("board", np.int8, (BOARD_SIZE, BOARD_SIZE)),  # revealed icons (0 unseen), padded
    Field("agent", np.int64, (2,)),  # [row, col] now
    Field("steps_left", np.int64),  # also the observation
    Field("window", np.int8, (WINDOW_SIZE, WINDOW_SIZE)),  # observation, north-up
    Field("position", np.int64, (2,)),  # observation: (x, y), y grows to the north
)


def revealed(batch, i: int) -> np.ndarray:
    """The (8, 8) grid of what sub-env ``i`` has revealed, row 0 north: 0 unseen, else the icon."""
    return batch["board"][i, PAD : PAD + GRID_SIZE, PAD : PAD + GRID_SIZE]


@inline
def write_observation(i, board, agent, window, position):
    """The 5x5 window of revealed icons around the agent (4 off the grid) and its (x, y)."""
    ar = agent[i, 0]
    ac = agent[i, 1]
    for dr in range(WINDOW_SIZE):  # board row ar + dr is grid row ar + dr - PAD
        for dc in range(WINDOW_SIZE):
            window[i, dr, dc] = board[i, ar + dr, ac + dc]
    position[i, 0] = ac
    position[i, 1] = GRID_SIZE - 1 - ar


@inline
def clear_board(i, board):
    """Every tile unseen (the start tile too); the outside rings are left as they are."""
    for r in range(PAD, PAD + GRID_SIZE):
        for c in range(PAD, PAD + GRID_SIZE):
            board[i, r, c] = UNSEEN


@kernel
def start_episode(i, icons, scout, board, agent, steps_left, window, position):
    """The agent on (x, y) = (0, 0), every tile unrevealed, 30 steps left."""
    for r in range(BOARD_SIZE):  # the outside rings, written once per replayed or reset level
        for c in range(BOARD_SIZE):
            board[i, r, c] = OUTSIDE
    clear_board(i, board)
    agent[i, 0] = START_ROW
    agent[i, 1] = START_COL
    steps_left[i] = STEP_BUDGET
    write_observation(i, board, agent, window, position)


@inline
def reveal_tile(i, r, c, icons, board):
    """Tile [r, c] shows its icon from now on."""
    board[i, r + PAD, c + PAD] = icons[i, r, c]


@inline
def step_one(i, action, outcome, reward, terminated, icons, scout, board, agent, steps_left):
    """One action of sub-env ``i``: sets its reward, terminated flag and outcome."""
    steps_left[i] -= 1  # every action costs one step, whatever it does
    reward[i] = 0.0
    terminated[i] = False
    r = agent[i, 0]
    c = agent[i, 1]
    if action <= MOVE_EAST:
        r += MOVE_ROW[action]
        c += MOVE_COL[action]
        if 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:  # off the grid: nothing but the budget
            reveal_tile(i, r, c, icons, board)  # the target is revealed first,
            agent[i, 0] = r  # then the agent stands on it, revealed before or not
            agent[i, 1] = c
            icon = icons[i, r, c]
            if icon == FLOWER:
                terminated[i] = True
                outcome[i] = TRAP
            elif icon == BOMB:
                terminated[i] = True
                reward[i] = 1.0
                outcome[i] = TREASURE
    elif action == REVEAL:  # the agent's tile; Scout: also its neighbours inside the grid
        reveal_tile(i, r, c, icons, board)
        if scout[i]:
            if r > 0:
                reveal_tile(i, r - 1, c, icons, board)
            if r < GRID_SIZE - 1:
                reveal_tile(i, r + 1, c, icons, board)
            if c > 0:
                reveal_tile(i, r, c - 1, icons, board)
            if c < GRID_SIZE - 1:
                reveal_tile(i, r, c + 1, icons, board)
    # WAIT does nothing.
    if not terminated[i] and steps_left[i] == 0:  # a win or a trap on the 30th action stands
        terminated[i] = True
        outcome[i] = TIMEOUT


@kernel
def reset_done(rng, done, outcome, icons, scout, board, agent, steps_left, window, position):
    """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
    autoreset): what ``step_all`` does for such a sub-env, without stepping the others."""
    for i in prange(rng.shape[0]):
        if not done[i]:
            continue
        draw_scenario(rng, i, icons)
        start_episode(i, icons, scout, board, agent, steps_left, window, position)
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
    icons,
    scout,
    board,
    agent,
    steps_left,
    window,
    position,
):
    for i in prange(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, icons)
            clear_board(i, board)  # what start_episode does; the outside rings never change
            agent[i, 0] = START_ROW
            agent[i, 1] = START_COL
            steps_left[i] = STEP_BUDGET
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
        else:
            step_one(
                i, actions[i], outcome, reward, terminated, icons, scout, board, agent, steps_left
            )
            done[i] = terminated[i]
        write_observation(i, board, agent, window, position)
