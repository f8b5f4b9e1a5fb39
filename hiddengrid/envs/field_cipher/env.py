"""FieldCipher as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import from_modules, unexpected_keywords
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.spec import spec_from_page
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
    __doc__ = spec_from_page("hiddengrid.envs.field_cipher")

    definition = DEFINITION


class FieldCipherVectorEnv(HiddenGridVectorEnv):
    """N FieldCipher sub-envs in one batch; see :class:`FieldCipherEnv` for the rules."""

    definition = DEFINITION
