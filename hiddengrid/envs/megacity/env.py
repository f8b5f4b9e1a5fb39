"""Megacity as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import EnvDefinition
from hiddengrid.core.single_env import HiddenGridEnv
from hiddengrid.core.vector_env import HiddenGridVectorEnv
from hiddengrid.envs.megacity import generator, render, rules, text
from hiddengrid.envs.megacity.actions import decode_action, encode_action
from hiddengrid.envs.megacity.agents import AGENTS
from hiddengrid.envs.megacity.constants import (
    CHANNEL_SPEED,
    GRID,
    NUM_ACTIONS,
    NUM_COMPONENTS,
    NUM_RULES,
    OUTCOMES,
    POWER_MAX,
    POWER_MIN,
    REWARD_TERMS,
    SEAM_UNKNOWN_DIRECTION,
    SHAFT_DRAFT,
    STEP_BUDGET,
    STRESS_MAX,
    WAIT,
)

ENV_ID = "hiddengrid/Megacity-v0"
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
            "power": spaces.Discrete(POWER_MAX - POWER_MIN + 1, start=POWER_MIN),
            "step": spaces.Discrete(STEP_BUDGET + 1),
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
}


def step_info(batch: Batch, i: int) -> dict[str, Any]:
    terms = batch["terms"][i]
    return {
        "reward_terms": {name: float(terms[k]) for k, name in enumerate(REWARD_TERMS)},
        "metrics": {name: int(batch[name][i]) for name in METRICS},
        "action_mask": batch["mask"][i].copy(),
    }


def vector_info(batch: Batch) -> dict[str, Any]:
    every = np.ones(batch.n, dtype=np.bool_)
    terms = batch["terms"]
    return {
        "reward_terms": {name: terms[:, k].copy() for k, name in enumerate(REWARD_TERMS)},
        "_reward_terms": every,
        "metrics": {name: batch[name].copy() for name in METRICS},
        "_metrics": every.copy(),
        "action_mask": batch["mask"].copy(),
        "_action_mask": every.copy(),
    }


def extra_action_check(batch: Batch, actions: np.ndarray) -> None:
    """A masked action raises ``ValueError`` before anything changes (sub-envs about to be
    autoreset ignore their action and are not checked)."""
    legal = batch["mask"][np.arange(batch.n), actions] | batch.done
    if not legal.all():
        i = int(np.flatnonzero(~legal)[0])
        a = int(actions[i])
        where = f" in sub-env {i}" if batch.n > 1 else ""
        raise ValueError(
            f"illegal action {a} {decode_action(a)}{where}: it is masked now; "
            "see action_masks() or info['action_mask']"
        )


def setup(batch: Batch) -> None:
    """Before the first reset only "wait" is marked legal (so a mask is never empty)."""
    batch["mask"][:, WAIT] = True


def is_success(outcome: str, episode_return: float) -> bool:
    return outcome == "success"


DEFINITION = EnvDefinition(
    id=ENV_ID,
    fields=rules.FIELDS,
    observation=OBSERVATION,
    observation_space=observation_space,
    action_space=action_space,
    outcomes=OUTCOMES,
    reset_all=rules.reset_all,
    step_all=rules.step_all,
    start_episode=rules.start_episode,
    validate_scenario=generator.validate_scenario,
    read_scenario=generator.read_scenario,
    render_ansi=render.render_ansi,
    render_rgb=render.render_rgb,
    agents=AGENTS,
    setup=setup,
    step_info=step_info,
    vector_info=vector_info,
    is_success=is_success,
    extra_action_check=extra_action_check,
    text=text,
)


class MegacityEnv(HiddenGridEnv):
    """DOCSTRING"""

    definition = DEFINITION

    def action_masks(self) -> np.ndarray:
        """Legal actions now: ``(390,)`` bool."""
        return self.batch["mask"][0].copy()

    @staticmethod
    def decode_action(action: int) -> tuple[Any, ...]:
        return decode_action(action)

    @staticmethod
    def encode_action(*action: Any) -> int:
        return encode_action(*action)


class MegacityVectorEnv(HiddenGridVectorEnv):
    """N Megacity sub-envs in one batch; see :class:`MegacityEnv` for the rules."""

    definition = DEFINITION

    def action_masks(self) -> np.ndarray:
        """Legal actions of every sub-env now: ``(num_envs, 390)`` bool."""
        return self.batch["mask"].copy()

    @staticmethod
    def decode_action(action: int) -> tuple[Any, ...]:
        return decode_action(action)

    @staticmethod
    def encode_action(*action: Any) -> int:
        return encode_action(*action)
