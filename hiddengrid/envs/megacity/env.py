"""Megacity as a Gymnasium ``Env`` and a native ``VectorEnv`` over the same rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import from_modules, unexpected_keywords
from hiddengrid.core.single_env import HiddenGridEnv
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
    """Grow an underground city of six districts in 40 steps under physics it must discover.

    ## Description
    A 5x5 region of rock under a hidden geology drawn per episode: 1-2 mineral seams (full
    rows or columns, each pulling sideways along itself), a short crooked fault line (a
    hidden stress concentration and the only source of power), a structured stress map
    (overburden gradient, load accumulating downstream along seams, the rock's grain) shown
    through a survey that errs by a fixed -8..+8 per cell and misses the fault until a scan,
    and a prevailing airflow with a faster draft channel. The city starts with 0 districts,
    integrity 100, air 85, power 50. The physics (the same in every episode; equations in
    ``rules.py`` and on the docs page ``hiddengrid/envs/megacity/README.md``): open cells carry
    their stress plus a sideways shear on seams against the rock span plus their support
    (steel is rigid and fails on seams); overload costs integrity, which settles back only
    below 80; open chambers creep until their core is online; excavation spills load onto
    neighbours but relieves every seam cell downstream; a core comes online after 3 steps in a
    row held and aired by a shaft within one cell, and suffocates back to a core when the
    current reverses (every 8 steps) against its shaft; cores and districts breathe and draw
    power from the moment they are built; conduits on the fault tap power (and load the rock),
    conduits elsewhere leak it (and damp the seam); a power shortfall is a brownout that
    shuts every district down.

    ## Action Space
    ``Discrete(390)``; ``action_masks()`` / ``info["action_mask"]`` mark the legal ones (a
    masked action raises ``ValueError``). Cell ``k = 5 * row + col``.

    | ids     | action                 | encoding                                   | power  |
    |---------|------------------------|--------------------------------------------|--------|
    | 0-24    | excavate(cell)         | ``k``                                      | 4      |
    | 25-99   | support(material, cell)| ``25 + 25 * m + k``; m: timber, steel, anchor | 2/3/4 |
    | 100-199 | vent(cell, direction)  | ``100 + 4 * k + d``; d 0 N, 1 E, 2 S, 3 W  | 3      |
    | 200-358 | conduit(path)          | ``200 + p``: 25 singles, 40 pairs, 94 triples | 1/cell |
    | 359-383 | build(cell)            | ``359 + k``                                | 5      |
    | 384-387 | research(rule)         | gravity, load, airflow, conduits           | 1      |
    | 388     | wait                   |                                            | 0      |
    | 389     | scan                   | diagnostic scan                            | 2      |

    ``decode_action(i)`` returns e.g. ``("vent", (1, 2), "north")``; ``encode_action`` is its
    inverse.

    ## Observation
    ``Dict``: ``"stress"`` int8 (5,5) as surveyed (fault concentrations missing until a scan);
    ``"airflow"`` int8 (5,5,2) current ``[row, col]`` vectors (with no shaft they flip sign
    exactly at steps 8, 16, 24, 32); ``"cells"`` (0 rock, 1 chamber, 2 core, 3 district),
    ``"supports"``, ``"vents"``, ``"conduits"`` int8 (5,5); ``"seams"`` int8 (5,5) (-1 unknown,
    0 none, 5 seam, 1..4 its pull, revealed by gravity research); ``"faults"`` int8 (5,5) (-1
    until a scan); ``"research"`` ``MultiDiscrete([4]*4)``; ``"components"`` ``MultiBinary(6)``
    (timber, steel, anchor, relief_blasting, baffled_shafts, shielded_conduits);
    ``"districts"`` ``Discrete(26)``; ``"integrity"``, ``"air"`` ``Discrete(101)``;
    ``"power"`` ``Discrete(201)``; ``"step"`` ``Discrete(41)`` (every ``Discrete`` starts at
    0). What research reveals of the other rules (-1 until that stage): load stage 1
    ``"relief_reach"`` int8 (5,5), how many cells excavating the cell relieves; load stage 2
    ``"relief"`` int8 (5,5), the stress that excavation would remove from them now; airflow
    stage 1 ``"reversal"`` ``Discrete(10)``, 1 + steps until the current next reverses (1: not
    again; 0 before the stage); airflow stage 2 ``"draft"`` int8 (5,5,4), what a shaft facing
    N, E, S, W in the cell would draw now; conduit stage 1 ``"conduit_effect"`` int8 (5,5),
    what a conduit laid there would do (0 leak power, 1 tap power and load the rock, 2 tap
    power, 3 leak power and damp the seam); conduit stage
    2 ``"conduit_damps"`` int8 (5,5), how many seam cells it would newly damp.

    ## Rewards
    +2 per integrity point gained, +1 per air point gained, +5 per core online (once), +3 the
    first time power > 80, +4 per rule decoded (research stage 3), +0.5 per step with
    integrity > 80 and air > 60, -2 per integrity point lost below 80 and -1 per air point lost
    below 60, on the step it is lost (``-2 * max(0, min(before, 80) - after)``, the same for air
    with 60), +40 at step 40 with >= 6 districts, integrity > 80, air > 60, power >= 0, -40 on
    collapse or suffocation.

    ## Termination
    Integrity 0 (``"collapse"``) or air 0 (``"suffocation"``) ends the episode at once;
    otherwise the 40th step ends it (``"success"`` or ``"timeout"``). Never truncated.

    ## Info
    ``"reward_terms"`` (integrity_gain, air_gain, district, power_milestone, research,
    operation, victory, integrity_deficit, air_deficit, catastrophe; floats summing to the
    reward), ``"metrics"`` (integrity, air, power, districts), ``"action_mask"``; at the end
    ``"outcome"``. Reset info holds the same keys.

    ## Arguments
    ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (needs pygame).
    ``level``: 0, 1, 2 or 3 (default 3, the full difficulty). A level changes only what a reset
    draws (gentler rock, a more exact survey, fewer seams at lower levels), never the physics,
    the spaces or the rewards; the parameters per level are on the docs page.

    ## Scenario
    ``{"seams": 5x5 of 0..4, "faults": 5x5 of 0/1, "stress": 5x5 of 0..100, "airflow": 5x5x2
    of -2..2, "survey": 5x5 of -8..8}``; a cell is not both seam and fault. Replay with
    ``reset(options={"scenario": ...})``.

    ## Registered Configurations
    ``hiddengrid/Megacity-v0`` (``gymnasium.make("hiddengrid/Megacity-v0", level=0)`` for
    level 0)
    """

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
