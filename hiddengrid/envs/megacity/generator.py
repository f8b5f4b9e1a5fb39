"""What a Megacity reset draws (the hidden geology) and the checks of a given scenario.

The geology, in the order it is drawn from the sub-env's own stream:

1. **Seams** (1 or 2): straight mineral veins across the whole grid, each a row or a column
   (two seams never share a line). Each seam has a direction of sideways gravity along it:
   a row seam pulls east or west, a column seam north or south. Where two seams cross, the cell
   belongs to the first one.
2. **Fault line**: a crooked crack of 3 or 4 cells, wholly inside the grid: from a drawn cell
   it runs in one of the four diagonal directions, each step going with the diagonal or along
   one of its two axes (uniformly); cells on a seam are skipped, and at least 2 fault cells
   remain.
3. **Stress**: an overburden gradient rising towards one heavy edge, plus load that accumulates
   downstream along each seam, plus a concentration on the fault cells and a halo around them
   (both missing from the survey until a scan), plus the rock's grain (0..7 per cell).
4. **Airflow**: one prevailing direction for the whole region, speed 2 in a draft channel (the
   row or column along the prevailing direction through a drawn index), 1 elsewhere. The fault
   leaves no mark on it.
5. **Survey error**: the stress map shown to the agent is off by a fixed -8..+8 per cell, for
   the whole episode (a scan reveals the fault concentrations, not this error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.kernel import inline, kernel
from hiddengrid.core.rng import below
from hiddengrid.core.scenario import check_keys, int_array
from hiddengrid.envs.megacity.constants import (
    CHANNEL_SPEED,
    D_GRAIN,
    D_MAX_SEAMS,
    D_OVERBURDEN,
    D_SEAM_LOAD,
    D_STRESS_BASE,
    D_SURVEY,
    DIR_COL,
    DIR_ROW,
    EAST,
    FAULT_BENDS,
    FAULT_HALO,
    FAULT_LOAD,
    FAULT_MAX_LEN,
    FAULT_MIN_CELLS,
    FAULT_MIN_LEN,
    GRID,
    MIN_SEAMS,
    NORTH,
    SOUTH,
    STRESS_MAX,
    SURVEY_ERROR,
    WEST,
)


@inline
def seam_position(seams: np.ndarray, i: int, r: int, c: int) -> int:
    """How many seam cells lie upstream of (r, c) along its seam direction (0 at the source)."""
    d = seams[i, r, c]
    k = 0
    rr = r - DIR_ROW[d]
    cc = c - DIR_COL[d]
    while 0 <= rr < GRID and 0 <= cc < GRID and seams[i, rr, cc] != 0:
        k += 1
        rr -= DIR_ROW[d]
        cc -= DIR_COL[d]
    return k


@inline
def paint_seam(seams: np.ndarray, i: int, orient: int, index: int, forward: bool) -> None:
    """One seam across the whole grid: row ``index`` pulling east (``forward``) or west when
    ``orient`` is 0, column ``index`` pulling south or north when 1; a cell already on a seam
    keeps the first seam's pull."""
    for k in range(GRID):
        if orient == 0:
            r, c, d = index, k, EAST if forward else WEST
        else:
            r, c, d = k, index, SOUTH if forward else NORTH
        if seams[i, r, c] == 0:
            seams[i, r, c] = d


@inline
def draw_seams(rng: np.ndarray, i: int, draw: np.ndarray, seams: np.ndarray) -> None:
    seams[i, :, :] = 0
    count = MIN_SEAMS + below(rng, i, draw[i, D_MAX_SEAMS] - MIN_SEAMS + 1)
    used_orient = -1
    used_index = -1
    drawn = 0
    while drawn < count:
        orient = below(rng, i, 2)  # 0: a row (pulls east/west), 1: a column (pulls north/south)
        index = below(rng, i, GRID)
        forward = below(rng, i, 2) == 0
        if orient == used_orient and index == used_index:
            continue
        used_orient = orient
        used_index = index
        drawn += 1
        paint_seam(seams, i, orient, index, forward)


@inline
def fault_direction(diagonal: int) -> tuple[int, int]:
    """The (row, col) signs of diagonal 0..3: SE, SW, NE, NW."""
    return (1 if diagonal < 2 else -1), (1 if diagonal % 2 == 0 else -1)


@inline
def fault_step(r: int, c: int, dr: int, dc: int, bend: int) -> tuple[int, int]:
    """The next cell of a crack running along diagonal (dr, dc): bend 0 goes with the diagonal,
    1 along its row axis (rows only), 2 along its column axis (columns only). A crooked line,
    so no fixed set of cells taps it in many episodes."""
    return r + (0 if bend == 2 else dr), c + (0 if bend == 1 else dc)


@inline
def draw_fault(rng: np.ndarray, i: int, seams: np.ndarray, faults: np.ndarray) -> None:
    while True:
        faults[i, :, :] = 0
        r = below(rng, i, GRID)
        c = below(rng, i, GRID)
        dr, dc = fault_direction(below(rng, i, 4))
        length = FAULT_MIN_LEN + below(rng, i, FAULT_MAX_LEN - FAULT_MIN_LEN + 1)
        cells = 0
        for k in range(length):
            if k > 0:
                r, c = fault_step(r, c, dr, dc, below(rng, i, FAULT_BENDS))
            if not (0 <= r < GRID and 0 <= c < GRID):
                cells = -1
                break
            if seams[i, r, c] == 0:
                faults[i, r, c] = 1
                cells += 1
        if cells >= FAULT_MIN_CELLS:
            return


@inline
def draw_stress(rng: np.ndarray, i: int, draw: np.ndarray, seams, faults, stress0) -> None:
    heavy = 1 + below(rng, i, 4)  # the heavy edge: stress rises towards it
    for r in range(GRID):
        for c in range(GRID):
            if heavy == NORTH:
                depth = GRID - 1 - r
            elif heavy == SOUTH:
                depth = r
            elif heavy == EAST:
                depth = c
            else:
                depth = GRID - 1 - c
            s = draw[i, D_STRESS_BASE] + draw[i, D_OVERBURDEN] * depth
            s += below(rng, i, draw[i, D_GRAIN])
            if seams[i, r, c] != 0:
                s += draw[i, D_SEAM_LOAD] * seam_position(seams, i, r, c)
            if faults[i, r, c] != 0:
                s += FAULT_LOAD
            else:
                for d in range(1, 5):
                    rr = r + DIR_ROW[d]
                    cc = c + DIR_COL[d]
                    if 0 <= rr < GRID and 0 <= cc < GRID and faults[i, rr, cc] != 0:
                        s += FAULT_HALO
                        break
            stress0[i, r, c] = min(s, STRESS_MAX)


@inline
def draw_airflow(rng: np.ndarray, i: int, airflow0) -> None:
    prevailing = 1 + below(rng, i, 4)
    channel = below(rng, i, GRID)
    for r in range(GRID):
        for c in range(GRID):
            along_rows = prevailing in (EAST, WEST)
            in_channel = (r == channel) if along_rows else (c == channel)
            speed = CHANNEL_SPEED if in_channel else 1
            airflow0[i, r, c, 0] = speed * DIR_ROW[prevailing]
            airflow0[i, r, c, 1] = speed * DIR_COL[prevailing]


@inline
def draw_survey(rng: np.ndarray, i: int, draw: np.ndarray, survey) -> None:
    e = draw[i, D_SURVEY]
    for r in range(GRID):
        for c in range(GRID):
            survey[i, r, c] = below(rng, i, 2 * e + 1) - e


@kernel
def draw_scenario(rng, i, draw, seams, faults, stress0, airflow0, survey) -> None:
    """Seams, then the fault line, the stress map, the airflow field, the survey error, with
    the parameters of the sub-env's level (``draw[i]``, a row of LEVEL_DRAWS)."""
    draw_seams(rng, i, draw, seams)
    draw_fault(rng, i, seams, faults)
    draw_stress(rng, i, draw, seams, faults, stress0)
    draw_airflow(rng, i, airflow0)
    draw_survey(rng, i, draw, survey)


# --- scenarios as plain dicts -----------------------------------------------------------------

SCENARIO_KEYS = ("seams", "faults", "stress", "airflow", "survey")


def validate_scenario(scenario: Mapping[str, Any], config: Mapping[str, Any]) -> dict:
    """Checks a scenario dict and returns it as arrays for the batch.

    Hard rules: ``seams`` 5x5 of 0 (none) or 1..4 (the direction of sideways gravity: north,
    east, south, west); ``faults`` 5x5 of 0/1; no cell both on a seam and on a fault;
    ``stress`` 5x5 of 0..100 (the true stress, fault concentrations included); ``airflow``
    5x5x2 of -2..2 (``[row, col]`` components at step 0, row grows to the south); ``survey``
    5x5 of -8..8 (the fixed error of the stress map shown to the agent). Anything else
    (how many seams, their shape, the fault's shape) is a custom level and allowed.
    """
    check_keys(scenario, SCENARIO_KEYS)
    seams = int_array(scenario["seams"], "seams", (GRID, GRID), 0, 4)
    faults = int_array(scenario["faults"], "faults", (GRID, GRID), 0, 1)
    stress = int_array(scenario["stress"], "stress", (GRID, GRID), 0, STRESS_MAX)
    airflow = int_array(
        scenario["airflow"], "airflow", (GRID, GRID, 2), -CHANNEL_SPEED, CHANNEL_SPEED
    )
    survey = int_array(scenario["survey"], "survey", (GRID, GRID), -SURVEY_ERROR, SURVEY_ERROR)
    both = np.argwhere((seams != 0) & (faults != 0))
    if len(both):
        raise ValueError(
            f"scenario['faults'] cell {both[0].tolist()} lies on a seam; a cell is on a seam "
            "or on a fault, not both"
        )
    return {
        "seams": seams.astype(np.int8),
        "faults": faults.astype(np.int8),
        "stress0": stress.astype(np.int16),
        "airflow0": airflow.astype(np.int8),
        "survey": survey.astype(np.int8),
    }


def read_scenario(batch: Any, i: int) -> dict[str, Any]:
    return {
        "seams": batch["seams"][i].astype(int).tolist(),
        "faults": batch["faults"][i].astype(int).tolist(),
        "stress": batch["stress0"][i].astype(int).tolist(),
        "airflow": batch["airflow0"][i].astype(int).tolist(),
        "survey": batch["survey"][i].astype(int).tolist(),
    }
