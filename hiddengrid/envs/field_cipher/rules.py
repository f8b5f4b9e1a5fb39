"""FieldCipher's rules, in the order a step applies them.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode. The grid never
changes during an episode; how it encodes the message (blocks, codebook) is in generator.py.
"""

import numpy as np
from numba import prange

from hiddengrid.core.definition import Field
from hiddengrid.core.kernel import inline, kernel
from hiddengrid.envs.field_cipher.constants import (
    CURSOR_LEFT,
    CURSOR_RIGHT,
    EMPTY_SLOT,
    FINALIZE,
    GRID_SIZE,
    HINT_WIDTH,
    MESSAGE_LEN,
    NUM_HINTS,
    NUM_SLOTS,
    RUNNING,
    STEP_BUDGET,
    SUBMITTED,
    TIMEOUT,
)
from hiddengrid.envs.field_cipher.generator import draw_scenario

SLOT_CREDIT = 0.25  # reward per slot holding the message's character at that position

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    Field("level", np.int64),  # config: 0..3, how the generator draws the grid
    Field("grid", np.int8, (GRID_SIZE, GRID_SIZE)),  # scenario and observation
    Field("message", np.int64, (MESSAGE_LEN,)),  # scenario: the hex digits 0..15
    Field("hints", np.int8, (NUM_HINTS, HINT_WIDTH)),  # scenario and observation
    Field("step", np.int64),  # observation: actions taken so far
    Field("cursor", np.int64),  # observation: slot 0..3 under the cursor
    Field("slots", np.int64, (NUM_SLOTS,)),  # observation: digit 0..15, or 16 = empty
    Field("correct", np.int64),  # right slots at the end (info["correct"])
)


@kernel
def start_episode(i, level, grid, message, hints, step, cursor, slots, correct):
    step[i] = 0
    cursor[i] = 0
    for j in range(NUM_SLOTS):
        slots[i, j] = EMPTY_SLOT
    correct[i] = 0


@inline
def moved_cursor(cursor: int, action: int) -> int:
    """Cursor right / left, wrapping round the 4 slots; other actions leave it."""
    if action == CURSOR_RIGHT:
        return (cursor + 1) % NUM_SLOTS
    if action == CURSOR_LEFT:
        return (cursor + NUM_SLOTS - 1) % NUM_SLOTS
    return cursor


@kernel
def reset_done(rng, done, outcome, level, grid, message, hints, step, cursor, slots, correct):
    """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
    autoreset): what ``step_all`` does for such a sub-env, without stepping the others."""
    for i in prange(rng.shape[0]):
        if not done[i]:
            continue
        draw_scenario(rng, i, level, grid, message, hints)
        start_episode(i, level, grid, message, hints, step, cursor, slots, correct)
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
    level,
    grid,
    message,
    hints,
    step,
    cursor,
    slots,
    correct,
):
    """One action of every sub-env. The step is written out here rather than in a helper that
    takes the arrays: such a call costs several times the step itself."""
    for i in prange(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, level, grid, message, hints)
            start_episode(i, level, grid, message, hints, step, cursor, slots, correct)
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
            continue
        action = actions[i]
        step[i] += 1
        reward[i] = 0.0
        terminated[i] = False
        if action < EMPTY_SLOT:  # write a hex digit under the cursor; the cursor stays
            slots[i, cursor[i]] = action
        else:
            cursor[i] = moved_cursor(cursor[i], action)
        if action == FINALIZE:
            outcome[i] = SUBMITTED  # also when it is the 40th action
        elif step[i] >= STEP_BUDGET:
            outcome[i] = TIMEOUT
        else:
            continue
        # The end: 0.25 per slot holding the message's character there; empty slots never do.
        right = 0
        for j in range(NUM_SLOTS):
            if slots[i, j] == message[i, j]:
                right += 1
        correct[i] = right
        reward[i] = SLOT_CREDIT * right
        terminated[i] = True
        done[i] = True
