"""FieldCipher agents: random (floor), a fair table learner, and an oracle (ceiling).

Every agent types its answer the same way: write the digit for the slot under the cursor,
move right, ..., write the fourth digit, finalize: 8 actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.kernel import run_rows
from hiddengrid.envs.field_cipher.constants import (
    CODEBOOK_ARRAY,
    CURSOR_RIGHT,
    EMPTY_SLOT,
    FINALIZE,
    NUM_HINTS,
    NUM_PATTERNS,
    NUM_SLOTS,
    NUM_VALUES,
)
from hiddengrid.envs.field_cipher.generator import block_pattern

ALL_VALUES = (1 << NUM_VALUES) - 1  # candidate mask: bit v set = value v still possible


@njit(cache=True)
def type_answer(i: int, target: np.ndarray, cursor: np.ndarray, slots: np.ndarray) -> int:
    """The next action that types ``target`` (4 digits) left to right, then finalizes."""
    c = cursor[i]
    if slots[i, c] != target[c]:
        return target[c]
    if c < NUM_SLOTS - 1:
        return CURSOR_RIGHT
    return FINALIZE


@njit(cache=True)
def oracle_act(grid, cursor, slots, out):
    """Decodes blocks 0..7 with the codebook and types the message."""
    for i in prange(out.shape[0]):
        target = np.empty(NUM_SLOTS, dtype=np.int64)  # per sub-env: threads
        for j in range(NUM_SLOTS):
            hi = CODEBOOK_ARRAY[block_pattern(grid, i, 2 * j)]
            lo = CODEBOOK_ARRAY[block_pattern(grid, i, 2 * j + 1)]
            target[j] = 4 * hi + lo
        out[i] = type_answer(i, target, cursor, slots)


class OracleAgent(BatchAgent):
    """Reads the hidden codebook: decodes the grid exactly, types the message, finalizes."""

    name = "oracle"
    reads_scenario = True
    description = "decodes the grid with the codebook, types the message, finalizes (8 actions)"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        run_rows(
            self.num_threads, oracle_act, obs["grid"], obs["cursor"], obs["slots"], self.actions
        )
        return self.actions.copy()


# --- the fair table learner -------------------------------------------------------------------


@njit(cache=True)
def is_known(m: int) -> bool:
    return m != 0 and (m & (m - 1)) == 0


@njit(cache=True)
def known_value(m: int) -> int:
    for v in range(NUM_VALUES):
        if m == 1 << v:
            return v
    return -1


@njit(cache=True)
def absorb_hints(i, hints, mask):
    """Every hint shown is an exact codebook entry: remember it for good."""
    for h in range(NUM_HINTS):
        p = 27 * hints[i, h, 0] + 9 * hints[i, h, 1] + 3 * hints[i, h, 2] + hints[i, h, 3]
        mask[p] = 1 << hints[i, h, 4]


@njit(cache=True)
def _settle(mask, p, m):
    """Narrows pattern ``p`` to the candidates ``m``; ignores a contradiction."""
    if mask[p] & m:
        mask[p] &= m


@njit(cache=True)
def learn_from_ending(i, grid, slots, correct, mask):
    """What a finished episode's partial credit says about the patterns it guessed.

    Slots whose two patterns are both known are scored by the learner itself; the rest of the
    credit belongs to the guessed slots. None right: each guessed slot was wrong, which pins
    down a value wherever the slot's other block is known. All right: every guess was right.
    """
    known_right = 0
    guessed = 0
    for j in range(NUM_SLOTS):
        s = slots[i, j]
        if s == EMPTY_SLOT:
            continue
        ma = mask[block_pattern(grid, i, 2 * j)]
        mb = mask[block_pattern(grid, i, 2 * j + 1)]
        if is_known(ma) and is_known(mb):
            if 4 * known_value(ma) + known_value(mb) == s:
                known_right += 1
        else:
            guessed += 1
    right = correct - known_right
    if guessed == 0 or 0 < right < guessed:
        return
    for j in range(NUM_SLOTS):
        s = slots[i, j]
        if s == EMPTY_SLOT:
            continue
        pa = block_pattern(grid, i, 2 * j)
        pb = block_pattern(grid, i, 2 * j + 1)
        if is_known(mask[pa]) and is_known(mask[pb]):
            continue
        va = s >> 2
        vb = s & 3
        if right == guessed:  # every guess was right
            _settle(mask, pa, 1 << va)
            _settle(mask, pb, 1 << vb)
        elif pa == pb:
            if va == vb:
                _settle(mask, pa, ALL_VALUES ^ (1 << va))
        elif is_known(mask[pa]):
            if known_value(mask[pa]) == va:
                _settle(mask, pb, ALL_VALUES ^ (1 << vb))
        elif is_known(mask[pb]) and known_value(mask[pb]) == vb:
            _settle(mask, pa, ALL_VALUES ^ (1 << va))


@njit(cache=True)
def guess_value(mask, p, known_count):
    """The known value, else the candidate with the most patterns still unaccounted for (the
    codebook is balanced: about 81/4 patterns per value)."""
    m = mask[p]
    if is_known(m):
        return known_value(m)
    best = -1
    best_left = -(10**9)
    for v in range(NUM_VALUES):
        if m & (1 << v):
            left = NUM_PATTERNS - NUM_VALUES * known_count[v]
            if left > best_left:
                best = v
                best_left = left
    return best


@njit(cache=True)
def table_act(grid, hints, cursor, slots, ended, correct, masks, out):
    """Sub-env ``i`` reads and updates only its own table ``masks[i]``: what it learns comes
    from its own earlier episodes, never from episodes running beside it in the batch."""
    for i in prange(out.shape[0]):
        known_count = np.empty(NUM_VALUES, dtype=np.int64)  # per sub-env: threads
        target = np.empty(NUM_SLOTS, dtype=np.int64)
        mask = masks[i]
        if ended[i]:
            learn_from_ending(i, grid, slots, correct[i], mask)
        absorb_hints(i, hints, mask)
        for v in range(NUM_VALUES):  # a loop, not a slice: much less to compile
            known_count[v] = 0
        for p in range(NUM_PATTERNS):
            if is_known(mask[p]):
                known_count[known_value(mask[p])] += 1
        for j in range(NUM_SLOTS):
            hi = guess_value(mask, block_pattern(grid, i, 2 * j), known_count)
            lo = guess_value(mask, block_pattern(grid, i, 2 * j + 1), known_count)
            target[j] = 4 * hi + lo
        out[i] = type_answer(i, target, cursor, slots)


class TableLearnerAgent(BatchAgent):
    """Fair: learns the codebook from what the env shows it, across episodes.

    One candidate table (81 patterns x 4 values) per sub-env, kept across that sub-env's
    episodes for the agent's lifetime. A table learns only from its own sub-env's stream, so
    an evaluation (where every sub-env plays one episode) scores each episode the same
    whatever the batch size or episode count: a fresh learner's first episode. Learning across
    episodes shows where one sub-env plays many (training, or the learning curve on the env's
    page). It stores every hint it is shown, and after each episode it reads the
    partial credit (reward / 0.25 right slots) against the slots it submitted, with its
    guesses, to rule values in or out. It decodes what it knows and guesses the rest (the
    value with most patterns not yet accounted for), types the answer and finalizes.
    It sees only observations, and the rewards and termination flags handed to ``observe``.
    """

    name = "heuristic"
    description = "table learner: remembers every hint, learns from partial credit, guesses rest"
    learns_across_episodes = True

    def __init__(self, env: Any, seed: int = 0, use_rewards: bool = True) -> None:
        super().__init__(env, seed)
        self.reward = np.zeros(self.num_envs)
        self.ended = np.zeros(self.num_envs, dtype=np.bool_)
        self.use_rewards = use_rewards  # False: a hints-only ablation
        self.mask = np.full((self.num_envs, NUM_PATTERNS), ALL_VALUES, dtype=np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    @property
    def known(self) -> np.ndarray:
        """How many codebook entries each sub-env's table knows exactly."""
        return np.array([sum(is_known(int(m)) for m in row) for row in self.mask])

    def observe(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> None:
        self.reward = np.asarray(reward)
        self.ended = np.asarray(terminated)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        correct = np.rint(self.reward * 4).astype(np.int64)
        ended = self.ended if self.use_rewards else np.zeros_like(self.ended)
        run_rows(
            self.num_threads,
            table_act,
            obs["grid"],
            obs["hints"],
            obs["cursor"],
            obs["slots"],
            ended,
            correct,
            self.mask,
            self.actions,
        )
        return self.actions.copy()


AGENTS = {"random": RandomAgent, "heuristic": TableLearnerAgent, "oracle": OracleAgent}
