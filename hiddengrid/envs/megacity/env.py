"""Megacity as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

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
from hiddengrid.envs.megacity import ENV_ID, generator, render, rules, text
from hiddengrid.envs.megacity.actions import decode_action, encode_action, why_masked
from hiddengrid.envs.megacity.agents import AGENTS
from hiddengrid.envs.megacity.constants import (
    CHANNEL_SPEED,
    CONDUIT_DAMPS,
    DEFAULT_LEVEL,
    GRID,
    LEVEL_DRAWS,
    LEVELS,
    NUM_ACTIONS,
    NUM_COMPONENTS,
    NUM_RULES,
    OUTCOMES,
    POWER_MAX,
    REVERSAL_PERIOD,
    REWARD_TERMS,
    SEAM_RELIEF,
    SEAM_UNKNOWN_DIRECTION,
    SHAFT_DRAFT,
    STEP_BUDGET,
    STRESS_MAX,
    WAIT,
)

METRICS = ("integrity", "air", "power", "districts")


def observation_space(config: Mapping[str, Any]) -> spaces.Dict:
    grid = (GRID, GRID)
    return spaces.Dict(
        {
            "stress": spaces.Box(0, STRESS_MAX, shape=grid, dtype=np.int8),
            "airflow": spaces.Box(
                -(CHANNEL_SPEED + SHAFT_DRAFT),
                CHANNEL_SPEED + SHAFT_DRAFT,
                shape=(GRID, GRID, 2),
                dtype=np.int8,
            ),
            "cells": spaces.Box(0, 3, shape=grid, dtype=np.int8),
            "supports": spaces.Box(0, 3, shape=grid, dtype=np.int8),
            "vents": spaces.Box(0, 4, shape=grid, dtype=np.int8),
            "conduits": spaces.Box(0, 1, shape=grid, dtype=np.int8),
            "seams": spaces.Box(-1, SEAM_UNKNOWN_DIRECTION, shape=grid, dtype=np.int8),
            "faults": spaces.Box(-1, 1, shape=grid, dtype=np.int8),
            "research": spaces.MultiDiscrete([4] * NUM_RULES),
            "components": spaces.MultiBinary(NUM_COMPONENTS),
            "districts": spaces.Discrete(GRID * GRID + 1),
            "integrity": spaces.Discrete(101),
            "air": spaces.Discrete(101),
            "power": spaces.Discrete(POWER_MAX + 1),
            "step": spaces.Discrete(STEP_BUDGET + 1),
            # research of the load, airflow and conduit rules (-1: not yet revealed)
            "relief_reach": spaces.Box(-1, GRID - 1, shape=grid, dtype=np.int8),
            "relief": spaces.Box(-1, (GRID - 1) * SEAM_RELIEF, shape=grid, dtype=np.int8),
            "reversal": spaces.Discrete(REVERSAL_PERIOD + 2),
            "draft": spaces.Box(
                -1, CHANNEL_SPEED + SHAFT_DRAFT, shape=(GRID, GRID, 4), dtype=np.int8
            ),
            "conduit_effect": spaces.Box(-1, CONDUIT_DAMPS, shape=grid, dtype=np.int8),
            "conduit_damps": spaces.Box(-1, GRID, shape=grid, dtype=np.int8),
        }
    )


def action_space(config: Mapping[str, Any]) -> spaces.Discrete:
    return spaces.Discrete(NUM_ACTIONS)


OBSERVATION = {
    "stress": "view_stress",
    "airflow": "airflow",
    "cells": "cells",
    "supports": "supports",
    "vents": "vents",
    "conduits": "conduits",
    "seams": "view_seams",
    "faults": "view_faults",
    "research": "research",
    "components": "components",
    "districts": "districts",
    "integrity": "integrity",
    "air": "air",
    "power": "power",
    "step": "step",
    "relief_reach": "view_relief_reach",
    "relief": "view_relief",
    "reversal": "view_reversal",
    "draft": "view_draft",
    "conduit_effect": "view_conduit_effect",
    "conduit_damps": "view_conduit_damps",
}


def step_info(batch: Batch, i: int) -> dict[str, Any]:
    # tolist() and item() give the Python floats and ints at once (per-element conversion
    # was most of a single-env step's info cost).
    fields = batch.fields
    return {
        "reward_terms": dict(zip(REWARD_TERMS, fields["terms"][i].tolist(), strict=True)),
        "metrics": {name: fields[name].item(i) for name in METRICS},
    }


def vector_info(batch: Batch) -> dict[str, Any]:
    every = np.ones(batch.n, dtype=np.bool_)
    # One copy of all the terms, then a column of it per term: cheaper than a copy per term,
    # and the columns still belong to the caller alone (no later step writes them).
    terms = batch["terms"].copy()
    return {
        "reward_terms": {name: terms[:, k] for k, name in enumerate(REWARD_TERMS)},
        "_reward_terms": every,
        "metrics": {name: batch[name].copy() for name in METRICS},
        "_metrics": every.copy(),
    }


def explain_masked(batch: Batch, i: int, action: int) -> str:
    why = why_masked(batch.fields, i, action) or "see info['action_mask']"
    return f"{decode_action(action)} is masked now, as {why}"


def configure(options: Mapping[str, Any]) -> dict[str, Any]:
    """The one argument, ``level``: 0, 1, 2 or 3 (the default, the full difficulty)."""
    options = dict(options)
    level = options.pop("level", DEFAULT_LEVEL)
    if options:
        raise unexpected_keywords("Megacity", options, "only 'level'")
    valid = ", ".join(map(str, LEVELS))
    if isinstance(level, bool | np.bool_) or not isinstance(level, int | np.integer):
        raise ValueError(
            f"level must be an int, one of {valid} (default {DEFAULT_LEVEL}), got {level!r}"
        )
    if int(level) not in LEVELS:
        raise ValueError(f"level must be one of {valid} (default {DEFAULT_LEVEL}), got {level!r}")
    return {"level": int(level)}


def setup(batch: Batch) -> None:
    """The level's generator parameters into every sub-env's ``draw`` row; before the first
    reset only "wait" is marked legal (so a mask is never empty)."""
    batch["draw"][:] = LEVEL_DRAWS[batch.config["level"]]
    batch["mask"][:, WAIT] = True


def is_success(outcome: str, episode_return: float) -> bool:
    return outcome == "success"


DEFINITION = from_modules(
    ENV_ID,
    rules=rules,
    generator=generator,
    render=render,
    text=text,
    agents=AGENTS,
    observation=OBSERVATION,
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
    configure=configure,
    setup=setup,
    step_info=step_info,
    vector_info=vector_info,
    is_success=is_success,
    action_mask="mask",
    explain_masked=explain_masked,
)


class MegacityEnv(HiddenGridEnv):
    __doc__ = spec_from_page("hiddengrid.envs.megacity")

    definition = DEFINITION

    @staticmethod
    def decode_action(action: int) -> tuple[Any, ...]:
        return decode_action(action)

    @staticmethod
    def encode_action(*action: Any) -> int:
        return encode_action(*action)


class MegacityVectorEnv(HiddenGridVectorEnv):
    """N Megacity sub-envs in one batch; see :class:`MegacityEnv` for the rules."""

    definition = DEFINITION

    @staticmethod
    def decode_action(action: int) -> tuple[Any, ...]:
        return decode_action(action)

    @staticmethod
    def encode_action(*action: Any) -> int:
        return encode_action(*action)
