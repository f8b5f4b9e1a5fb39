"""FieldCipher as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import from_modules, unexpected_keywords
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.vector_env import HiddenGridVectorEnv
from hiddengrid.envs.field_cipher import ENV_ID, generator, render, rules, text
from hiddengrid.envs.field_cipher.agents import AGENTS
from hiddengrid.envs.field_cipher.constants import (
    EMPTY_SLOT,
    GRID_SIZE,
    HINT_WIDTH,
    MAX_LEVEL,
    NUM_ACTIONS,
    NUM_HINTS,
    NUM_SLOTS,
    OUTCOMES,
    STEP_BUDGET,
)

CONFIG_KEYS = ("level",)
DEFAULT_LEVEL = 0


def configure(options: Mapping[str, Any]) -> dict[str, Any]:
    """``level``: an int 0..3 (default 0); a non-int is a ``TypeError``, out of range a
    ``ValueError``; any other keyword is a ``TypeError``."""
    unknown = sorted(set(options) - set(CONFIG_KEYS))
    if unknown:
        raise unexpected_keywords("FieldCipher", unknown, "only 'level'")
    level = options.get("level", DEFAULT_LEVEL)
    if isinstance(level, bool | np.bool_) or not isinstance(level, int | np.integer):
        raise TypeError(f"level must be an int 0..{MAX_LEVEL}, got {level!r}")
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level must be an int 0..{MAX_LEVEL}, got {level!r}")
    return {"level": int(level)}


def setup(batch: Batch) -> None:
    batch["level"][:] = batch.config["level"]


def step_info(batch: Batch, i: int) -> dict[str, Any]:
    if batch.terminated[i]:
        return {"correct": int(batch["correct"][i])}
    return {}


def vector_info(batch: Batch) -> dict[str, Any]:
    ended = batch.terminated
    if not ended.any():
        return {}
    return {"correct": np.where(ended, batch["correct"], 0), "_correct": ended.copy()}


def is_success(outcome: str, episode_return: float) -> bool:
    return episode_return == 1.0  # all four slots right


HINTS_HIGH = np.array([[2, 2, 2, 2, 3]] * NUM_HINTS, dtype=np.int8)


def observation_space(config: Mapping[str, Any]) -> spaces.Dict:
    return spaces.Dict(
        {
            "grid": spaces.Box(0, 2, shape=(GRID_SIZE, GRID_SIZE), dtype=np.int8),
            "hints": spaces.Box(
                np.zeros((NUM_HINTS, HINT_WIDTH), dtype=np.int8), HINTS_HIGH, dtype=np.int8
            ),
            "step": spaces.Discrete(STEP_BUDGET + 1),
            "cursor": spaces.Discrete(NUM_SLOTS),
            "slots": spaces.MultiDiscrete([EMPTY_SLOT + 1] * NUM_SLOTS),
        }
    )


def action_space(config: Mapping[str, Any]) -> spaces.Discrete:
    return spaces.Discrete(NUM_ACTIONS)


DEFINITION = from_modules(
    ENV_ID,
    # A step costs about 25 ns per sub-env: measured on 2 cores, a second thread lost below
    # 16,384 sub-envs (0.49x at 4,096, 0.94x at 16,384) and won from 65,536 (1.22x).
    envs_per_thread=32768,
    rules=rules,
    generator=generator,
    render=render,
    text=text,
    agents=AGENTS,
    observation={
        "grid": "grid",
        "hints": "hints",
        "step": "step",
        "cursor": "cursor",
        "slots": "slots",
    },
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
    configure=configure,
    setup=setup,
    step_info=step_info,
    vector_info=vector_info,
    is_success=is_success,
)


class FieldCipherEnv(HiddenGridEnv):
    """Decode a 4-character hex message hidden in a magnetic-field picture, then submit it.

    ## Description
    A static 9x9 grid of field cells (0 empty, 1 line segment, 2 intersection) is read as 25
    2x2 blocks with stride 2, in raster order, as if padded with an empty 10th row and column
    (block ``k`` covers rows ``2*(k//5)``, ``+1`` and cols ``2*(k%5)``, ``+1``). A block's
    pattern (tl, tr, bl, br) is one of 81; a fixed hidden **codebook**, the same in every
    episode and at every level, maps each pattern to a 2-bit value. Blocks 0..17 give a
    36-bit sequence (block 0 first, high bit first); bits 0..15 are the message, hex character
    ``i`` being bits ``4i..4i+3``; bits 16..35 are filler; blocks 18..24 encode nothing.
    Each observation shows 4 distinct codebook entries as hints. The agent types 4 hex
    characters into 4 slots with a cursor and finalizes; partial credit per right slot.

    ## Action Space
    ``Discrete(19)``

    | Num   | Action        | Effect                                                        |
    |-------|---------------|---------------------------------------------------------------|
    | 0..15 | write 0..F    | write that digit into the slot under the cursor; cursor stays |
    | 16    | cursor right  | cursor + 1, from slot 3 to slot 0                             |
    | 17    | cursor left   | cursor - 1, from slot 0 to slot 3                             |
    | 18    | finalize      | end the episode and score the slots                           |

    ## Observation
    ``Dict``: ``"grid"`` int8 ``(9, 9)`` 0/1/2, north-up, the same all episode; ``"hints"``
    int8 ``(4, 5)``, each row ``tl, tr, bl, br, value``; ``"step"`` ``Discrete(41)`` actions
    taken (0 at reset); ``"cursor"`` ``Discrete(4)`` (0 at reset); ``"slots"``
    ``MultiDiscrete([17] * 4)``, a hex digit 0..15 or 16 for empty (all empty at reset).

    ## Rewards
    0 on every step but the last. On the last: 0.25 per slot holding the message's character
    at that position (an empty slot scores nothing), so 0, 0.25, 0.5, 0.75 or 1.

    ## Termination
    Action 18 (``"submitted"``, also when it is the 40th action) or the 40th action
    (``"timeout"``, the slots are scored as they stand). Episodes never truncate; the budget
    is in the observation (``"step"``).

    ## Info
    On the final step: ``info["outcome"]`` (``"submitted"`` or ``"timeout"``) and
    ``info["correct"]`` (0..4 right slots). A vector env reports both as arrays with the
    ``"_outcome"`` / ``"_correct"`` masks. Success (for evaluation) is a return of 1.0.

    ## Arguments
    ``level``: 0..3 (default 0), how the grid looks, never what it means. Level 0 writes every
    2-bit value with one canonical pattern and leaves blocks 18..24 empty; levels 1, 2, 3 use
    3, 8 and all 20-21 equivalent patterns per value (blocks 4, 9, 14 use only patterns whose
    right column is empty) and add more decorative segments and intersections in blocks
    18..24. ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (needs
    pygame).

    ## Scenario
    ``{"grid": 9x9 of 0/1/2, "message": "3F0A" (4 upper-case hex characters), "hints": 4x5}``;
    replay with ``reset(options={"scenario": ...})``. A grid whose first 16 decoded bits do not
    spell the message, or a hint that is not a codebook entry, is a ``ValueError``.

    ## Registered Configurations
    ``hiddengrid/FieldCipher-v0`` (``gymnasium.make("hiddengrid/FieldCipher-v0", level=L)``)
    """

    definition = DEFINITION


class FieldCipherVectorEnv(HiddenGridVectorEnv):
    """N FieldCipher sub-envs in one batch; see :class:`FieldCipherEnv` for the rules."""

    definition = DEFINITION
