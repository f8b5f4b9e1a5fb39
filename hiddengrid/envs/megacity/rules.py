"""Megacity's rules: every equation of the physics, in the order a
step applies them. The docs page (README.md) writes the same equations out with examples.

Plain scalar code over struct-of-arrays state, compiled by Numba; with NUMBA_DISABLE_JIT=1 it
runs as ordinary Python. Sub-env ``i`` of every array belongs to one episode.
"""

import numpy as np

from hiddengrid.core.definition import Field
from hiddengrid.core.kernel import inline, kernel, prange
from hiddengrid.envs.megacity.constants import (
    AIR_BASE_DEMAND,
    AIR_MAX,
    AIR_OK,
    AIR_PER_DISTRICT,
    AIR_START,
    AIRFLOW,
    BUILD_BASE,
    BUILD_COST,
    CHAMBER,
    COLLAPSE,
    COMPONENT_OF_RULE,
    CONDUIT_AMPLIFY,
    CONDUIT_BASE,
    CONDUIT_BITS,
    CONDUIT_COST_PER_CELL,
    CONDUIT_DAMPS,
    CONDUIT_LEAK,
    CONDUIT_LEAKS,
    CONDUIT_LENGTH,
    CONDUIT_PATHS,
    CONDUIT_TAPS,
    CONDUIT_TAPS_AND_LOADS,
    CONDUITS,
    CORE,
    CORE_DELAY,
    CREEP,
    DAMAGE_DIVISOR,
    DECODED,
    DIR_COL,
    DIR_ROW,
    DISTRICT,
    DISTRICT_GOAL,
    DISTRICT_UPKEEP,
    EXCAVATE_BASE,
    EXCAVATE_COST,
    EXCAVATION_SPILL,
    FAULT_HALO,
    FAULT_LOAD,
    FAULT_TAP,
    GRAVITY,
    GRID,
    HOLD_OFF_SEAM,
    HOLD_ON_SEAM,
    INTEGRITY_OK,
    INTEGRITY_START,
    LOAD,
    NOT_REVEALED,
    NUM_ACTIONS,
    NUM_CELLS,
    NUM_COMPONENTS,
    NUM_CONDUIT_PATHS,
    NUM_DRAW_PARAMS,
    NUM_MATERIALS,
    NUM_RULES,
    NUM_TERMS,
    POWER_INCOME,
    POWER_MAX,
    POWER_MILESTONE,
    POWER_START,
    R_AIR_DEFICIT,
    R_AIR_GAIN,
    R_CATASTROPHE,
    R_DISTRICT,
    R_INTEGRITY_DEFICIT,
    R_INTEGRITY_GAIN,
    R_OPERATION,
    R_POWER_MILESTONE,
    R_RESEARCH,
    R_VICTORY,
    RESEARCH_BASE,
    RESEARCH_COST,
    REVERSAL_HIDDEN,
    REVERSAL_PERIOD,
    ROCK,
    ROCK_SPAN,
    RUNNING,
    SCAN,
    SCAN_COST,
    SEAM_RELIEF,
    SEAM_SHEAR,
    SEAM_UNKNOWN_DIRECTION,
    SETTLING,
    SHAFT_DRAFT,
    STEEL,
    STEP_BUDGET,
    STRESS_MAX,
    SUCCESS,
    SUFFOCATION,
    SUPPORT_BASE,
    SUPPORT_COST,
    T_AIR_DEFICIT,
    T_AIR_GAIN,
    T_CATASTROPHE,
    T_DISTRICT,
    T_INTEGRITY_DEFICIT,
    T_INTEGRITY_GAIN,
    T_OPERATION,
    T_POWER_MILESTONE,
    T_RESEARCH,
    T_VICTORY,
    TIMBER,
    TIMEOUT,
    VENT_BASE,
    VENT_COST,
    VENT_REACH,
    WAIT,
)
from hiddengrid.envs.megacity.generator import draw_scenario

# The state of one sub-env; the kernels take these arrays in this order after the common ones.
FIELDS = (
    # scenario: the hidden geology
    Field("seams", np.int8, (GRID, GRID)),  # 0 none, 1..4 direction of sideways gravity
    Field("faults", np.int8, (GRID, GRID)),  # 1 on the fault line
    Field("stress0", np.int16, (GRID, GRID)),  # true stress at reset
    Field("airflow0", np.int8, (GRID, GRID, 2)),  # [row, col] airflow at step 0
    Field("survey", np.int8, (GRID, GRID)),  # the stress map's fixed error per cell
    # per cell (also observations: cells, supports, vents, conduits)
    Field("cells", np.int8, (GRID, GRID)),  # 0 rock, 1 chamber, 2 core, 3 district
    Field("supports", np.int8, (GRID, GRID)),  # 0 none, 1 timber, 2 steel, 3 anchor
    Field("vents", np.int8, (GRID, GRID)),  # 0 none, 1..4 shaft direction
    Field("conduits", np.int8, (GRID, GRID)),  # 1 conduit
    Field("stress", np.int16, (GRID, GRID)),  # true stress now
    Field("damped", np.int8, (GRID, GRID)),  # 1: a conduit cancels the seam's shear here
    Field("progress", np.int8, (GRID, GRID)),  # a core's steps in a row held and ventilated
    Field("activated", np.int8, (GRID, GRID)),  # 1 once the cell has come online (+5 once)
    # global (also observations)
    Field("step", np.int64),
    Field("integrity", np.int64),
    Field("air", np.int64),
    Field("power", np.int64),
    Field("districts", np.int64),  # active districts
    Field("research", np.int64, (NUM_RULES,)),  # stage 0..3 per rule
    Field("components", np.int8, (NUM_COMPONENTS,)),  # 1 available
    # global bookkeeping
    Field("scanned", np.int64),  # 1 after the first diagnostic scan
    Field("power_paid", np.int64),  # 1 once the power milestone bonus was given
    # observations derived from the state
    Field("view_stress", np.int8, (GRID, GRID)),  # stress as surveyed (faults hidden until scan)
    Field("airflow", np.int8, (GRID, GRID, 2)),  # the current airflow vectors
    Field("view_seams", np.int8, (GRID, GRID)),  # -1 unknown, 0 none, 5 seam, 1..4 direction
    Field("view_faults", np.int8, (GRID, GRID)),  # -1 unknown, 0/1 after a scan
    # what research reveals of the load, airflow and conduit rules (-1 before its stage)
    Field("view_relief_reach", np.int8, (GRID, GRID)),  # load 1: cells an excavation relieves
    Field("view_relief", np.int8, (GRID, GRID)),  # load 2: the stress it removes from them now
    Field("view_reversal", np.int64),  # airflow 1: 1 + steps until the current reverses
    Field("view_draft", np.int8, (GRID, GRID, 4)),  # airflow 2: air a new shaft facing d draws
    Field("view_conduit_effect", np.int8, (GRID, GRID)),  # conduits 1: what a conduit would do
    Field("view_conduit_damps", np.int8, (GRID, GRID)),  # conduits 2: seam cells it would damp
    # info
    Field("terms", np.float64, (NUM_TERMS,)),  # the last step's reward terms
    Field("mask", np.bool_, (NUM_ACTIONS,)),  # legal actions now
    # parameter (set once from the level, not reset): what the generator draws; the physics
    # never reads it
    Field("draw", np.int64, (NUM_DRAW_PARAMS,)),
)
# The observation fields derived from the state, in order: the kernels pass them on as one
# tuple, ``views`` (Numba inlines no call with more than 30 arguments).
VIEWS = (
    "view_stress",
    "airflow",
    "view_seams",
    "view_faults",
    "view_relief_reach",
    "view_relief",
    "view_reversal",
    "view_draft",
    "view_conduit_effect",
    "view_conduit_damps",
)


# --- the equations -----------------------------------------------------------------------------


@inline
def phase(step: int) -> int:
    """+1 for steps 0-7, 16-23, 32-39; -1 for steps 8-15, 24-31: the airflow reversal.

    The flips are exactly at steps 8, 16, 24 and 32: the final observation,
    at step 40, keeps the phase of step 39.
    """
    return 1 if (min(step, STEP_BUDGET - 1) // REVERSAL_PERIOD) % 2 == 0 else -1


@inline
def inside(r: int, c: int) -> bool:
    return 0 <= r < GRID and 0 <= c < GRID


@inline
def shear(i: int, r: int, c: int, seams: np.ndarray, damped: np.ndarray) -> int:
    """Sideways gravity: an open seam cell carries SEAM_SHEAR more, unless a conduit damps it."""
    # Without a branch (the same value): a branch on the cell's seam mispredicts often.
    return SEAM_SHEAR * ((seams[i, r, c] != 0) & (damped[i, r, c] == 0))


@inline
def hold(i: int, r: int, c: int, seams: np.ndarray, supports: np.ndarray) -> int:
    """What an open cell carries: the rock span plus its support (rigid steel fails on seams)."""
    m = supports[i, r, c]
    if seams[i, r, c] != 0:
        return ROCK_SPAN + HOLD_ON_SEAM[m]
    return ROCK_SPAN + HOLD_OFF_SEAM[m]


@inline
def overload(i, r, c, cells, supports, stress, seams, damped) -> int:
    """max(0, stress + shear - hold) for an open cell; rock never overloads."""
    if cells[i, r, c] == ROCK:
        return 0
    return max(0, stress[i, r, c] + shear(i, r, c, seams, damped) - hold(i, r, c, seams, supports))


@inline
def integrity_change(total_overload: int, integrity: int) -> int:
    """-ceil(total / DAMAGE_DIVISOR); with no overload the rock settles back by SETTLING, but
    only up to the safety line INTEGRITY_OK (so a damage-and-repair loop never pays)."""
    if total_overload == 0:
        return SETTLING if integrity < INTEGRITY_OK else 0
    return -((total_overload + DAMAGE_DIVISOR - 1) // DAMAGE_DIVISOR)


@inline
def points_lost_below(before: int, now: int, line: int) -> int:
    """The points lost this step below the safety line: ``max(0, min(before, line) - now)``.

    The deficits are charged once, on the step a point is lost (the mirror of the gain terms,
    paid on the step a point is gained); staying low costs nothing more, since the operation
    bonus and the victory already require the thresholds. A fall from above the line pays
    only for the part below it.
    """
    return max(0, min(before, line) - now)


@inline
def steps_to_reversal(step: int) -> int:
    """Steps until the airflow next reverses (``phase`` changes); 0 when it no longer will."""
    ph = phase(step)
    for later in range(step + 1, STEP_BUDGET + 1):
        if phase(later) != ph:
            return later - step
    return 0


@inline
def flow(i, r, c, k, step, airflow0, d) -> int:
    """Component k (0 row, 1 col) of the airflow in a cell whose shaft faces d (0 none):
    phase * base + the shaft's own draft."""
    v = phase(step) * airflow0[i, r, c, k]
    if d != 0:
        v += SHAFT_DRAFT * (DIR_ROW[d] if k == 0 else DIR_COL[d])
    return v


@inline
def supply_facing(i, r, c, d, step, airflow0, baffled) -> int:
    """Air a shaft facing d (1..4) in the cell draws: the current along d, max(0, .) (a shaft
    the current runs against draws nothing); baffled: |.|."""
    along = flow(i, r, c, 0, step, airflow0, d) * DIR_ROW[d]
    along += flow(i, r, c, 1, step, airflow0, d) * DIR_COL[d]
    if baffled:
        return abs(along)
    return max(0, along)


@inline
def shaft_supply(i, r, c, step, airflow0, vents, baffled) -> int:
    """Air the cell's shaft draws now (0 with no shaft): what ventilates the cells in reach."""
    d = vents[i, r, c]
    if d == 0:
        return 0
    return supply_facing(i, r, c, d, step, airflow0, baffled)


@inline
def shaft_air(i: int, r: int, c: int, d: int, airflow0: np.ndarray) -> int:
    """Air a shaft facing d (1..4) adds to the city every step: its draft plus the strength of
    the current along its axis, whichever way the current runs (so the air index does not
    swing with the reversals; the districts' ventilation does)."""
    base = airflow0[i, r, c, 0] * DIR_ROW[d] + airflow0[i, r, c, 1] * DIR_COL[d]
    return SHAFT_DRAFT + abs(base)


@inline
def built(i: int, cells: np.ndarray) -> int:
    """Cores and districts: what breathes and draws power, from the step it is built."""
    n = 0
    for r in range(GRID):
        for c in range(GRID):
            n += cells[i, r, c] >= CORE
    return n


@inline
def air_change(i, airflow0, vents, cells) -> int:
    """``shaft_air`` of every shaft minus AIR_BASE_DEMAND minus AIR_PER_DISTRICT per core and
    district."""
    supply = 0
    for r in range(GRID):
        for c in range(GRID):
            if vents[i, r, c] != 0:
                supply += shaft_air(i, r, c, vents[i, r, c], airflow0)
    return supply - AIR_BASE_DEMAND - AIR_PER_DISTRICT * built(i, cells)


@inline
def power_change(i, faults, conduits, cells) -> int:
    """POWER_INCOME + FAULT_TAP per conduit cell on a fault - CONDUIT_LEAK per conduit cell off
    the fault - DISTRICT_UPKEEP per core and district."""
    taps = 0
    leaks = 0
    for r in range(GRID):
        for c in range(GRID):
            taps += conduits[i, r, c] & faults[i, r, c]  # both 0/1
            leaks += conduits[i, r, c] & (1 - faults[i, r, c])
    return (
        POWER_INCOME + FAULT_TAP * taps - CONDUIT_LEAK * leaks - DISTRICT_UPKEEP * built(i, cells)
    )


@inline
def ventilated(i, r, c, step, airflow0, vents, baffled) -> bool:
    """A shaft within Manhattan distance VENT_REACH of the cell that draws air this step
    (``shaft_supply`` > 0): after a reversal a shaft facing the old current draws nothing and
    the districts that relied on it suffocate."""
    for rr in range(max(0, r - VENT_REACH), min(GRID, r + VENT_REACH + 1)):
        for cc in range(max(0, c - VENT_REACH), min(GRID, c + VENT_REACH + 1)):
            if (
                abs(rr - r) + abs(cc - c) <= VENT_REACH
                and vents[i, rr, cc] != 0
                and shaft_supply(i, rr, cc, step, airflow0, vents, baffled) > 0
            ):
                return True
    return False


@inline
def clamp_stress(s: int) -> int:
    return min(STRESS_MAX, max(0, s))


@inline
def add_stress(i: int, r: int, c: int, delta: int, stress: np.ndarray) -> None:
    stress[i, r, c] = clamp_stress(stress[i, r, c] + delta)


@inline
def seam_run(i: int, r: int, c: int, seams: np.ndarray) -> int:
    """How many seam cells follow the cell along its seam's pull, without a gap (0 off a
    seam): the cells excavating it relieves; with the cell itself, those a conduit damps."""
    d = seams[i, r, c]
    if d == 0:
        return 0
    n = 0
    while inside(r + (n + 1) * DIR_ROW[d], c + (n + 1) * DIR_COL[d]) and (
        seams[i, r + (n + 1) * DIR_ROW[d], c + (n + 1) * DIR_COL[d]] != 0
    ):
        n += 1
    return n


@inline
def seam_relief(i, r, c, stress, seams, apply) -> int:
    """Excavating a seam cell unloads every seam cell downstream by SEAM_RELIEF (never below
    0). Returns the stress that removes; with ``apply`` False nothing changes."""
    d = seams[i, r, c]
    removed = 0
    for n in range(1, seam_run(i, r, c, seams) + 1):
        rr = r + n * DIR_ROW[d]
        cc = c + n * DIR_COL[d]
        s = stress[i, rr, cc]
        after = clamp_stress(s - SEAM_RELIEF)
        removed += s - after
        if apply:
            stress[i, rr, cc] = after
    return removed


@inline
def excavate(i, r, c, cells, stress, seams, research) -> None:
    """Open the cell. Its load spills onto its 4 neighbours (+EXCAVATION_SPILL each, none with
    relief blasting); on a seam, every seam cell downstream is unloaded (``seam_relief``)."""
    cells[i, r, c] = CHAMBER
    if research[i, LOAD] < DECODED:
        for d in range(1, 5):
            if inside(r + DIR_ROW[d], c + DIR_COL[d]):
                add_stress(i, r + DIR_ROW[d], c + DIR_COL[d], EXCAVATION_SPILL, stress)
    seam_relief(i, r, c, stress, seams, True)


@inline
def conduit_loads(i, r, c, faults, research) -> bool:
    """A conduit on a fault loads the rock around it, until shielded (conduits decoded)."""
    return faults[i, r, c] != 0 and research[i, CONDUITS] < DECODED


@inline
def conduit_damping(i, r, c, seams, damped, apply) -> int:
    """A conduit on a seam damps the sideways gravity of its cell and every seam cell
    downstream. Returns how many of them were not damped yet; ``apply`` False changes nothing."""
    if seams[i, r, c] == 0:
        return 0
    d = seams[i, r, c]
    newly = 0
    for n in range(seam_run(i, r, c, seams) + 1):
        rr = r + n * DIR_ROW[d]
        cc = c + n * DIR_COL[d]
        newly += damped[i, rr, cc] == 0
        if apply:
            damped[i, rr, cc] = 1
    return newly


@inline
def conduit_effect(i, r, c, seams, faults, research) -> int:
    """What a conduit laid in the cell does: taps power on a fault (``power_change``) and loads
    the rock unless shielded (``conduit_loads``); elsewhere it leaks power, and on a seam it
    also damps the sideways gravity."""
    if conduit_loads(i, r, c, faults, research):
        return CONDUIT_TAPS_AND_LOADS
    if faults[i, r, c] != 0:
        return CONDUIT_TAPS
    if seams[i, r, c] != 0:
        return CONDUIT_DAMPS
    return CONDUIT_LEAKS


@inline
def lay_conduit_cell(i, r, c, conduits, stress, seams, faults, damped, research) -> None:
    """A conduit cell on a fault loads its cell and 4 neighbours by CONDUIT_AMPLIFY (not when
    shielded); on a seam it damps the sideways gravity of its cell and every cell downstream."""
    conduits[i, r, c] = 1
    if conduit_loads(i, r, c, faults, research):
        add_stress(i, r, c, CONDUIT_AMPLIFY, stress)
        for d in range(1, 5):
            if inside(r + DIR_ROW[d], c + DIR_COL[d]):
                add_stress(i, r + DIR_ROW[d], c + DIR_COL[d], CONDUIT_AMPLIFY, stress)
    conduit_damping(i, r, c, seams, damped, True)


@inline
def action_cost(action: int) -> int:
    """Power an action costs."""
    if action < SUPPORT_BASE:
        return EXCAVATE_COST
    if action < VENT_BASE:
        return SUPPORT_COST[1 + (action - SUPPORT_BASE) // NUM_CELLS]
    if action < CONDUIT_BASE:
        return VENT_COST
    if action < BUILD_BASE:
        return CONDUIT_COST_PER_CELL * CONDUIT_LENGTH[action - CONDUIT_BASE]
    if action < RESEARCH_BASE:
        return BUILD_COST
    if action < WAIT:
        return RESEARCH_COST
    if action == SCAN:
        return SCAN_COST
    return 0


# --- observation and mask ----------------------------------------------------------------------


# Written every step for every sub-env, so this is the hot path: values that are the same for
# every cell are read once per call, and the mask is written without branches (``&`` on
# booleans, not ``and``). A step rewrites only the parts it can have changed (``step_one``).


@inline
def concealed(i: int, r: int, c: int, faults: np.ndarray) -> int:
    """The stress concentration the survey misses before a scan: FAULT_LOAD on a fault cell,
    FAULT_HALO on a cell next to one."""
    if faults[i, r, c] != 0:
        return FAULT_LOAD
    for d in range(1, 5):
        rr = r + DIR_ROW[d]
        cc = c + DIR_COL[d]
        if inside(rr, cc) and faults[i, rr, cc] != 0:
            return FAULT_HALO
    return 0


@inline
def write_view_stress(i, faults, stress, survey, scanned, view_stress) -> None:
    """Stress as surveyed: the true stress plus the cell's fixed survey error, minus the fault
    concentrations until a scan reveals them."""
    seen = scanned[i] != 0
    for r in range(GRID):
        for c in range(GRID):
            s = stress[i, r, c] + survey[i, r, c]
            if not seen:
                s -= concealed(i, r, c, faults)
            view_stress[i, r, c] = clamp_stress(s)


@kernel
def write_airflow(i, step, airflow0, vents, airflow) -> None:
    """``flow`` of every cell (DIR_ROW[0] = DIR_COL[0] = 0: no shaft, no draft)."""
    ph = phase(step[i])
    for r in range(GRID):
        for c in range(GRID):
            d = vents[i, r, c]
            airflow[i, r, c, 0] = ph * airflow0[i, r, c, 0] + SHAFT_DRAFT * DIR_ROW[d]
            airflow[i, r, c, 1] = ph * airflow0[i, r, c, 1] + SHAFT_DRAFT * DIR_COL[d]


@kernel
def write_view_seams(i, seams, research, view_seams) -> None:
    """-1 before gravity research, then 0 / SEAM_UNKNOWN_DIRECTION, then the direction."""
    stage = research[i, GRAVITY]
    for r in range(GRID):
        for c in range(GRID):
            if stage == 0:
                view_seams[i, r, c] = -1
            elif seams[i, r, c] == 0:
                view_seams[i, r, c] = 0
            elif stage == 1:
                view_seams[i, r, c] = SEAM_UNKNOWN_DIRECTION
            else:
                view_seams[i, r, c] = seams[i, r, c]


@kernel
def write_view_faults(i, faults, scanned, view_faults) -> None:
    """-1 until a scan, then the fault map."""
    seen = scanned[i] != 0
    for r in range(GRID):
        for c in range(GRID):
            view_faults[i, r, c] = faults[i, r, c] if seen else -1


# What research reveals of the load, airflow and conduit rules: data of this episode computed
# by the same functions the step applies (never the equations); NOT_REVEALED before its stage.


@kernel
def write_view_relief_reach(i, seams, research, view_relief_reach) -> None:
    """Load stage 1: how many cells excavating each cell relieves (``seam_run``)."""
    shown = research[i, LOAD] >= 1
    for r in range(GRID):
        for c in range(GRID):
            view_relief_reach[i, r, c] = seam_run(i, r, c, seams) if shown else NOT_REVEALED


@inline
def write_view_relief(i, seams, stress, research, view_relief) -> None:
    """Load stage 2: the stress excavating each cell would remove from them now."""
    shown = research[i, LOAD] >= 2
    for r in range(GRID):
        for c in range(GRID):
            if shown:
                view_relief[i, r, c] = seam_relief(i, r, c, stress, seams, False)
            else:
                view_relief[i, r, c] = NOT_REVEALED


@inline
def write_view_reversal(i, step, research, view_reversal) -> None:
    """Airflow stage 1: 1 + steps until the current reverses (1: not again this episode;
    REVERSAL_HIDDEN = 0 before)."""
    if research[i, AIRFLOW] >= 1:
        view_reversal[i] = 1 + steps_to_reversal(step[i])
    else:
        view_reversal[i] = REVERSAL_HIDDEN


@kernel
def write_view_draft(i, step, airflow0, research, view_draft) -> None:
    """Airflow stage 2: the air a new shaft facing each direction would draw now."""
    shown = research[i, AIRFLOW] >= 2
    baffled = research[i, AIRFLOW] >= DECODED
    for r in range(GRID):
        for c in range(GRID):
            for d in range(1, 5):
                if shown:
                    view_draft[i, r, c, d - 1] = supply_facing(
                        i, r, c, d, step[i], airflow0, baffled
                    )
                else:
                    view_draft[i, r, c, d - 1] = NOT_REVEALED


@kernel
def write_view_conduit_effect(i, seams, faults, research, view_conduit_effect) -> None:
    """Conduit stage 1: what a conduit laid in each cell would do (``conduit_effect``)."""
    shown = research[i, CONDUITS] >= 1
    for r in range(GRID):
        for c in range(GRID):
            if shown:
                view_conduit_effect[i, r, c] = conduit_effect(i, r, c, seams, faults, research)
            else:
                view_conduit_effect[i, r, c] = NOT_REVEALED


@kernel
def write_view_conduit_damps(i, seams, damped, research, view_conduit_damps) -> None:
    """Conduit stage 2: how many seam cells a conduit in each cell would newly damp."""
    shown = research[i, CONDUITS] >= 2
    for r in range(GRID):
        for c in range(GRID):
            if shown:
                view_conduit_damps[i, r, c] = conduit_damping(i, r, c, seams, damped, False)
            else:
                view_conduit_damps[i, r, c] = NOT_REVEALED


@kernel
def write_observation(
    i, seams, faults, airflow0, survey, vents, stress, damped, step, research, scanned, views
) -> None:
    """Every view of sub-env ``i`` in full (``views``: the arrays of VIEWS, in order)."""
    (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    ) = views  # fmt: skip
    write_view_stress(i, faults, stress, survey, scanned, view_stress)
    write_airflow(i, step, airflow0, vents, airflow)
    write_view_seams(i, seams, research, view_seams)
    write_view_faults(i, faults, scanned, view_faults)
    write_view_relief_reach(i, seams, research, view_relief_reach)
    write_view_relief(i, seams, stress, research, view_relief)
    write_view_reversal(i, step, research, view_reversal)
    write_view_draft(i, step, airflow0, research, view_draft)
    write_view_conduit_effect(i, seams, faults, research, view_conduit_effect)
    write_view_conduit_damps(i, seams, damped, research, view_conduit_damps)


# Every action costs 1..AFFORD_MAX power, so the mask depends on power only through
# affordable(p) = min(max(p, 0), AFFORD_MAX): p >= cost exactly when affordable(p) >= cost.
AFFORD_MAX = max(
    EXCAVATE_COST,
    int(SUPPORT_COST.max()),
    VENT_COST,
    CONDUIT_COST_PER_CELL * int(CONDUIT_LENGTH.max()),
    BUILD_COST,
    RESEARCH_COST,
    SCAN_COST,
)


@inline
def affordable(p: int) -> int:
    return min(max(p, 0), AFFORD_MAX)


@inline
def usable_materials(i, p, components) -> int:
    """Bit m set: support material m is available and affordable."""
    materials = 0
    for m in range(1, NUM_MATERIALS + 1):
        if components[i, m - 1] != 0 and p >= SUPPORT_COST[m]:
            materials |= 1 << m
    return materials


@inline
def write_cell_mask(i, k, p, materials, cells, supports, vents, mask) -> None:
    """The excavate, support, vent and build entries of cell k."""
    r = k // GRID
    c = k % GRID
    cell = cells[i, r, c]
    mask[i, EXCAVATE_BASE + k] = (cell == ROCK) & (p >= EXCAVATE_COST)
    unsupported = (cell != ROCK) & (supports[i, r, c] == 0)
    for m in range(1, NUM_MATERIALS + 1):
        mask[i, SUPPORT_BASE + (m - 1) * NUM_CELLS + k] = unsupported & ((materials >> m) & 1 != 0)
    can_vent = (cell != ROCK) & (vents[i, r, c] == 0) & (p >= VENT_COST)
    for d in range(4):
        mask[i, VENT_BASE + 4 * k + d] = can_vent
    mask[i, BUILD_BASE + k] = (cell == CHAMBER) & (p >= BUILD_COST)


@inline
def write_conduit_mask(i, p, conduits, mask) -> None:
    """A path is legal when none of its cells holds a conduit and power pays for its length."""
    laid = 0  # bit k: cell k holds a conduit
    for k in range(NUM_CELLS):
        laid |= np.int64(conduits[i, k // GRID, k % GRID] != 0) << k
    for q in range(NUM_CONDUIT_PATHS):
        mask[i, CONDUIT_BASE + q] = ((CONDUIT_BITS[q] & laid) == 0) & (
            p >= CONDUIT_COST_PER_CELL * CONDUIT_LENGTH[q]
        )


@inline
def write_research_mask(i, p, research, mask) -> None:
    """Research (until decoded), wait (always) and scan."""
    for k in range(NUM_RULES):
        mask[i, RESEARCH_BASE + k] = (research[i, k] < DECODED) & (p >= RESEARCH_COST)
    mask[i, WAIT] = True
    mask[i, SCAN] = p >= SCAN_COST


@kernel
def write_mask(i, cells, supports, vents, conduits, power, research, components, mask) -> None:
    p = power[i]
    materials = usable_materials(i, p, components)
    for k in range(NUM_CELLS):
        write_cell_mask(i, k, p, materials, cells, supports, vents, mask)
    write_conduit_mask(i, p, conduits, mask)
    write_research_mask(i, p, research, mask)


def _de_bruijn_table() -> np.ndarray:
    table = np.zeros(32, dtype=np.int64)
    for k in range(32):
        table[((DE_BRUIJN << k) & 0xFFFFFFFF) >> 27] = k
    return table


DE_BRUIJN = 0x077CB531  # every 5-bit window of this 32-bit word is different
DE_BRUIJN_BIT = _de_bruijn_table()


@inline
def lowest_bit(bits: int) -> int:
    """The index of the lowest set bit of 0 < bits < 2**25 (a de Bruijn multiply: no loop;
    the product stays below 2**52, so it is the same in plain Python)."""
    return DE_BRUIJN_BIT[(((bits & -bits) * DE_BRUIJN) & 0xFFFFFFFF) >> 27]


@inline
def acted_cell(action: int) -> int:
    """The cell an excavate, support, vent or build action changes; -1 for other actions."""
    if action < SUPPORT_BASE:
        return action - EXCAVATE_BASE
    if action < VENT_BASE:
        return (action - SUPPORT_BASE) % NUM_CELLS
    if action < CONDUIT_BASE:
        return (action - VENT_BASE) // 4
    if BUILD_BASE <= action < RESEARCH_BASE:
        return action - BUILD_BASE
    return -1


@inline
def update_view(
    i, action, reversed_now, seams, faults, airflow0, survey, vents, stress, damped, step,
    research, scanned, views, cells, supports, conduits, power, components, mask, full_mask,
) -> None:  # fmt: skip
    """The observation and mask after a step, rewriting only what the step can have changed
    (the result is write_observation and write_mask of the new state, exactly, because before
    the step they were those of the old state: start_episode writes both in full):

    * stress as seen: every step (open chambers creep);
    * airflow: the vents change only by a vent action, the phase only when it reverses;
    * seams as seen: only gravity research; faults as seen: only a scan;
    * load research views: load research; the relief (stage 2) every step (the stress);
    * the reversal countdown: every step; the draft (stage 2): airflow research, a reversal;
    * conduit research views: conduit research; the damping (stage 2) also a conduit;
    * mask: with the same affordable(power) and components (``full_mask`` False), only the
      entries of what the action changed: its cell, the conduit paths, or the research
      entries (an activation turns a core into a district, which no entry tells apart).
    """
    (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    ) = views  # fmt: skip
    write_view_stress(i, faults, stress, survey, scanned, view_stress)
    if VENT_BASE <= action < CONDUIT_BASE or reversed_now:
        write_airflow(i, step, airflow0, vents, airflow)
    if action == RESEARCH_BASE + GRAVITY:
        write_view_seams(i, seams, research, view_seams)
    if action == SCAN:
        write_view_faults(i, faults, scanned, view_faults)
    if action == RESEARCH_BASE + LOAD:
        write_view_relief_reach(i, seams, research, view_relief_reach)
    if research[i, LOAD] >= 2:
        write_view_relief(i, seams, stress, research, view_relief)
    write_view_reversal(i, step, research, view_reversal)
    if action == RESEARCH_BASE + AIRFLOW or (reversed_now and research[i, AIRFLOW] >= 2):
        write_view_draft(i, step, airflow0, research, view_draft)
    if action == RESEARCH_BASE + CONDUITS:
        write_view_conduit_effect(i, seams, faults, research, view_conduit_effect)
    laid = CONDUIT_BASE <= action < BUILD_BASE
    if action == RESEARCH_BASE + CONDUITS or (laid and research[i, CONDUITS] >= 2):
        write_view_conduit_damps(i, seams, damped, research, view_conduit_damps)
    if full_mask:
        write_mask(i, cells, supports, vents, conduits, power, research, components, mask)
        return
    p = power[i]
    k = acted_cell(action)
    if k >= 0:
        materials = usable_materials(i, p, components)
        write_cell_mask(i, k, p, materials, cells, supports, vents, mask)
    elif action < BUILD_BASE:
        write_conduit_mask(i, p, conduits, mask)
    elif action < WAIT:
        write_research_mask(i, p, research, mask)


# --- episode start and one step ----------------------------------------------------------------


@kernel
def start_episode(
    i, seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress,
    damped, progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid,
    view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
    view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask, draw,
) -> None:  # fmt: skip
    """A new episode of sub-env ``i`` on its scenario (a loaded one, from Python)."""
    views = (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    )  # fmt: skip
    begin_episode(
        i, seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress,
        damped, progress, activated, step, integrity, air, power, districts, research,
        components, scanned, power_paid, views, terms, mask,
    )  # fmt: skip


@kernel
def begin_episode(
    i, seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress,
    damped, progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid, views, terms, mask,
) -> None:  # fmt: skip
    """A new episode on the drawn scenario; ``views`` is the tuple of VIEWS (the observation
    fields derived from the state: one argument, as Numba cannot inline a call with more than
    30 arguments)."""
    for r in range(GRID):
        for c in range(GRID):
            cells[i, r, c] = ROCK
            supports[i, r, c] = 0
            vents[i, r, c] = 0
            conduits[i, r, c] = 0
            damped[i, r, c] = 0
            progress[i, r, c] = 0
            activated[i, r, c] = 0
            stress[i, r, c] = stress0[i, r, c]
    step[i] = 0
    integrity[i] = INTEGRITY_START
    air[i] = AIR_START
    power[i] = POWER_START
    districts[i] = 0
    for k in range(NUM_RULES):
        research[i, k] = 0
    for k in range(NUM_COMPONENTS):
        components[i, k] = 0
    components[i, TIMBER - 1] = 1
    components[i, STEEL - 1] = 1
    scanned[i] = 0
    power_paid[i] = 0
    for k in range(NUM_TERMS):
        terms[i, k] = 0.0
    write_observation(
        i, seams, faults, airflow0, survey, vents, stress, damped, step, research, scanned, views
    )
    write_mask(i, cells, supports, vents, conduits, power, research, components, mask)


@inline
def apply_action(
    i, action, seams, faults, cells, supports, vents, conduits, stress, damped, progress,
    power, research, components, scanned,
) -> int:  # fmt: skip
    """Pays for and applies one (legal) action; returns how many rules it decoded (0 or 1)."""
    power[i] -= action_cost(action)
    if action < SUPPORT_BASE:
        k = action - EXCAVATE_BASE
        excavate(i, k // GRID, k % GRID, cells, stress, seams, research)
    elif action < VENT_BASE:
        k = (action - SUPPORT_BASE) % NUM_CELLS
        supports[i, k // GRID, k % GRID] = 1 + (action - SUPPORT_BASE) // NUM_CELLS
    elif action < CONDUIT_BASE:
        k = (action - VENT_BASE) // 4
        vents[i, k // GRID, k % GRID] = 1 + (action - VENT_BASE) % 4
    elif action < BUILD_BASE:
        q = action - CONDUIT_BASE
        for j in range(3):
            cell = CONDUIT_PATHS[q, j]
            if cell >= 0:
                lay_conduit_cell(
                    i, cell // GRID, cell % GRID, conduits, stress, seams, faults, damped,
                    research,
                )  # fmt: skip
    elif action < RESEARCH_BASE:
        k = action - BUILD_BASE
        cells[i, k // GRID, k % GRID] = CORE
        progress[i, k // GRID, k % GRID] = 0
    elif action < WAIT:
        rule = action - RESEARCH_BASE
        research[i, rule] += 1
        if research[i, rule] == DECODED:
            components[i, COMPONENT_OF_RULE[rule]] = 1
            return 1
    elif action == SCAN:
        scanned[i] = 1
    return 0


@inline
def settle_structure(
    i, step, seams, airflow0, cells, supports, vents, stress, damped, progress, activated,
    research,
) -> tuple[int, int]:  # fmt: skip
    """The structure after an action: every open cell's overload (summed), then the cores:
    one held (no overload) and ventilated gains a step of progress and comes online as a
    district after CORE_DELAY such steps in a row (any other step resets its progress); a
    district no longer ventilated suffocates back to a core; then every chamber and core not
    online creeps by CREEP. Returns (total overload, cells that came online for the first
    time)."""
    baffled = research[i, AIRFLOW] >= DECODED
    total = 0
    first = 0
    # Only open cells count. They are visited through a bitmask, not by testing every cell:
    # open cells lie anywhere, so a test per cell mispredicts often (the same sum, faster).
    opened = 0
    for k in range(NUM_CELLS):
        opened |= np.int64(cells[i, k // GRID, k % GRID] != ROCK) << k
    while opened != 0:
        k = lowest_bit(opened)
        opened &= opened - 1
        r = k // GRID
        c = k % GRID
        o = overload(i, r, c, cells, supports, stress, seams, damped)
        total += o
        kind = cells[i, r, c]
        if kind >= CORE:
            aired = ventilated(i, r, c, step[i], airflow0, vents, baffled)
            if kind == DISTRICT and not aired:
                cells[i, r, c] = CORE
                progress[i, r, c] = 0
            elif kind == CORE and o == 0 and aired:
                progress[i, r, c] += 1
                if progress[i, r, c] >= CORE_DELAY:
                    cells[i, r, c] = DISTRICT
                    first += activated[i, r, c] == 0
                    activated[i, r, c] = 1
            elif kind == CORE:
                progress[i, r, c] = 0
        if cells[i, r, c] != DISTRICT:
            add_stress(i, r, c, CREEP, stress)
    return total, first


@inline
def brownout(i: int, cells: np.ndarray, progress: np.ndarray) -> None:
    """Power cannot pay the upkeep: every district shuts down to a core (progress 0)."""
    for r in range(GRID):
        for c in range(GRID):
            if cells[i, r, c] == DISTRICT:
                cells[i, r, c] = CORE
                progress[i, r, c] = 0


@inline
def count_districts(i: int, cells: np.ndarray) -> int:
    n = 0
    for r in range(GRID):
        for c in range(GRID):
            n += cells[i, r, c] == DISTRICT
    return n


@inline
def step_one(
    i, action, outcome, reward, terminated,
    seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress, damped,
    progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid, views, terms, mask,
) -> None:  # fmt: skip
    """One action of sub-env ``i``, then the physics; sets reward, terms, terminated, outcome."""
    for k in range(NUM_TERMS):
        terms[i, k] = 0.0
    before_integrity = integrity[i]
    before_air = air[i]
    before_afford = affordable(power[i])
    # 1. the action
    decoded = apply_action(
        i, action, seams, faults, cells, supports, vents, conduits, stress, damped, progress,
        power, research, components, scanned,
    )  # fmt: skip
    # 2. structure: overload, cores coming online, creep
    total, first = settle_structure(
        i, step, seams, airflow0, cells, supports, vents, stress, damped, progress, activated,
        research,
    )  # fmt: skip
    change = integrity_change(total, integrity[i])
    integrity[i] = min(INTEGRITY_START, max(0, integrity[i] + change))
    # 3. air, 4. power (a shortfall is a brownout)
    air[i] = min(AIR_MAX, max(0, air[i] + air_change(i, airflow0, vents, cells)))
    p = power[i] + power_change(i, faults, conduits, cells)
    if p < 0:
        p = 0
        brownout(i, cells, progress)
    power[i] = min(POWER_MAX, p)
    districts[i] = count_districts(i, cells)
    step[i] += 1
    # 5. rewards
    terms[i, T_INTEGRITY_GAIN] = R_INTEGRITY_GAIN * max(0, integrity[i] - before_integrity)
    terms[i, T_AIR_GAIN] = R_AIR_GAIN * max(0, air[i] - before_air)
    terms[i, T_DISTRICT] = R_DISTRICT * first
    if power[i] > POWER_MILESTONE and power_paid[i] == 0:
        power_paid[i] = 1
        terms[i, T_POWER_MILESTONE] = R_POWER_MILESTONE
    terms[i, T_RESEARCH] = R_RESEARCH * decoded
    if integrity[i] > INTEGRITY_OK and air[i] > AIR_OK:
        terms[i, T_OPERATION] = R_OPERATION
    terms[i, T_INTEGRITY_DEFICIT] = R_INTEGRITY_DEFICIT * points_lost_below(
        before_integrity, integrity[i], INTEGRITY_OK
    )
    terms[i, T_AIR_DEFICIT] = R_AIR_DEFICIT * points_lost_below(before_air, air[i], AIR_OK)
    # 6. the end
    terminated[i] = False
    if integrity[i] == 0:
        terms[i, T_CATASTROPHE] = R_CATASTROPHE
        terminated[i] = True
        outcome[i] = COLLAPSE
    elif air[i] == 0:
        terms[i, T_CATASTROPHE] = R_CATASTROPHE
        terminated[i] = True
        outcome[i] = SUFFOCATION
    elif step[i] == STEP_BUDGET:
        terminated[i] = True
        if is_victory(districts[i], integrity[i], air[i], power[i]):
            terms[i, T_VICTORY] = R_VICTORY
            outcome[i] = SUCCESS
        else:
            outcome[i] = TIMEOUT
    total_reward = 0.0
    for k in range(NUM_TERMS):
        total_reward += terms[i, k]
    reward[i] = total_reward
    # 7. the observation and the mask
    update_view(
        i, action, phase(step[i]) != phase(step[i] - 1),
        seams, faults, airflow0, survey, vents, stress, damped, step, research, scanned, views,
        cells, supports, conduits, power, components, mask,
        decoded != 0 or affordable(power[i]) != before_afford,
    )  # fmt: skip


@inline
def is_victory(districts: int, integrity: int, air: int, power: int) -> bool:
    return districts >= DISTRICT_GOAL and integrity > INTEGRITY_OK and air > AIR_OK and power >= 0


@kernel
def reset_done(
    rng, done, outcome,
    seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress, damped,
    progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid,
    view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
    view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask, draw,
) -> None:  # fmt: skip
    """Starts a new episode in every sub-env whose ``done`` flag is set (same-step
    autoreset): what ``step_all`` does for such a sub-env, without stepping the others."""
    views = (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    )  # fmt: skip
    for i in prange(rng.shape[0]):
        if not done[i]:
            continue
        draw_scenario(rng, i, draw, seams, faults, stress0, airflow0, survey)
        begin_episode(
            i, seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits,
            stress, damped, progress, activated, step, integrity, air, power, districts,
            research, components, scanned, power_paid, views, terms, mask,
        )  # fmt: skip
        done[i] = False
        outcome[i] = RUNNING


@kernel
def step_all(
    actions, rng, done, outcome, reward, terminated,
    seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress, damped,
    progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid,
    view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
    view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask, draw,
) -> None:  # fmt: skip
    views = (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    )  # fmt: skip
    for i in prange(actions.shape[0]):
        if done[i]:  # next-step autoreset: the action is ignored
            draw_scenario(rng, i, draw, seams, faults, stress0, airflow0, survey)
            begin_episode(
                i, seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits,
                stress, damped, progress, activated, step, integrity, air, power, districts,
                research, components, scanned, power_paid, views, terms, mask,
            )  # fmt: skip
            done[i] = False
            outcome[i] = RUNNING
            reward[i] = 0.0
            terminated[i] = False
            continue
        step_one(
            i, actions[i], outcome, reward, terminated,
            seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress,
            damped, progress, activated, step, integrity, air, power, districts, research,
            components, scanned, power_paid, views, terms, mask,
        )  # fmt: skip
        done[i] = terminated[i]
