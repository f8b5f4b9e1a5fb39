"""Megacity's numbers and codes: every constant of the physics.

The equations that use them are in ``rules.py`` and written out on the docs page (README.md).
"""

import numpy as np

GRID = 5
NUM_CELLS = GRID * GRID
STEP_BUDGET = 40
REVERSAL_PERIOD = 8  # the airflow flips sign after steps 8, 16, 24, 32

# --- metrics -----------------------------------------------------------------------------------
INTEGRITY_START = 100
AIR_START = 85
POWER_START = 50
INTEGRITY_OK = 80  # integrity must stay above this
AIR_OK = 60  # air must stay above this
POWER_MILESTONE = 80  # +3 the first time power exceeds this
DISTRICT_GOAL = 6
POWER_MAX = 200  # power is clamped to [0, POWER_MAX]: a shortfall is a brownout instead

# --- cells -------------------------------------------------------------------------------------
ROCK, CHAMBER, CORE, DISTRICT = 0, 1, 2, 3  # CORE: built, not yet online
CELL_NAMES = ("rock", "chamber", "core", "district")

# Directions: 1 north, 2 east, 3 south, 4 west (0 = none), as in seams and vents.
NONE_DIR, NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3, 4
DIRECTION_NAMES = ("none", "north", "east", "south", "west")
DIR_ROW = np.array([0, -1, 0, 1, 0], dtype=np.int64)  # north is row - 1
DIR_COL = np.array([0, 0, 1, 0, -1], dtype=np.int64)
SEAM_UNKNOWN_DIRECTION = 5  # what "seams" shows for a seam cell before its direction is known

# --- support materials -------------------------------------------------------------------------
NO_SUPPORT, TIMBER, STEEL, ANCHOR = 0, 1, 2, 3
MATERIAL_NAMES = ("none", "timber", "steel", "anchor")
NUM_MATERIALS = 3
SUPPORT_COST = np.array([0, 2, 3, 4], dtype=np.int64)
HOLD_OFF_SEAM = np.array([0, 10, 22, 26], dtype=np.int64)  # extra load a support carries
HOLD_ON_SEAM = np.array([0, 10, 0, 30], dtype=np.int64)  # under sideways gravity

# --- structure ---------------------------------------------------------------------------------
ROCK_SPAN = 30  # load an open cell carries with no support
SEAM_SHEAR = 16  # sideways gravity adds this load to an open seam cell (unless damped)
EXCAVATION_SPILL = 5  # excavating loads each orthogonal neighbour by this much
SEAM_RELIEF = 12  # excavating a seam cell unloads every seam cell downstream by this much
CONDUIT_AMPLIFY = 8  # a conduit on a fault loads its cell and 4 neighbours by this much
CREEP = 2  # an open chamber or core (not yet online) gains this stress every step
DAMAGE_DIVISOR = 4  # integrity lost per step = ceil(total overload / DAMAGE_DIVISOR)
SETTLING = 1  # integrity regained per step with no overload, only while below INTEGRITY_OK
STRESS_MAX = 100

# --- districts ---------------------------------------------------------------------------------
CORE_DELAY = 3  # a core comes online after this many steps in a row held and ventilated

# --- air ---------------------------------------------------------------------------------------
SHAFT_DRAFT = 1  # a shaft adds this draft along its direction in its own cell
AIR_BASE_DEMAND = 0  # the outpost breathes through its own old shaft: only new buildings count
AIR_PER_DISTRICT = 1  # every core and district breathes, from the step it is built
VENT_REACH = 1  # a core comes online only with a shaft within this Manhattan distance
AIR_MAX = 100

# --- power -------------------------------------------------------------------------------------
POWER_INCOME = 0  # the outpost has no reactor of its own: geothermal taps are the income
FAULT_TAP = 5  # per step, per conduit cell on a fault line (geothermal)
CONDUIT_LEAK = 1  # per step, per conduit cell off the fault line (it only carries losses)
DISTRICT_UPKEEP = 3  # per step, per core and district, from the step it is built
EXCAVATE_COST = 4
VENT_COST = 3
CONDUIT_COST_PER_CELL = 1
BUILD_COST = 5
RESEARCH_COST = 1
SCAN_COST = 2

# --- research ----------------------------------------------------------------------------------
GRAVITY, LOAD, AIRFLOW, CONDUITS = 0, 1, 2, 3
RULE_NAMES = ("gravity", "load", "airflow", "conduits")
NUM_RULES = 4
DECODED = 3  # stages 0..3; stage 3 decodes the rule (+4 once)

# Components: two materials from the start, one material and three techniques to unlock.
COMPONENT_NAMES = (
    "timber",
    "steel",
    "anchor",  # gravity decoded
    "relief_blasting",  # load decoded: excavation no longer spills load onto neighbours
    "baffled_shafts",  # airflow decoded: shafts draw air whichever way the current runs
    "shielded_conduits",  # conduits decoded: new conduits on faults no longer amplify load
)
NUM_COMPONENTS = 6
COMPONENT_OF_RULE = np.array([2, 3, 4, 5], dtype=np.int64)
NOT_REVEALED = -1  # what a research observation shows before its stage
REVERSAL_HIDDEN = 0  # "reversal" before airflow research; then 1 + steps to the next reversal
REVERSAL_NEVER = 1  # ... and 1 when the current will not turn again

# What a conduit laid in a cell would do ("conduit_effect", conduit research stage 1).
CONDUIT_LEAKS, CONDUIT_TAPS_AND_LOADS, CONDUIT_TAPS, CONDUIT_DAMPS = 0, 1, 2, 3
CONDUIT_EFFECT_NAMES = (
    "leaks power",
    "taps power, loads the rock",
    "taps power",
    "leaks power, damps the seam",
)

# --- hidden geology (generator) ----------------------------------------------------------------
MIN_SEAMS, MAX_SEAMS = 1, 2
FAULT_MIN_LEN, FAULT_MAX_LEN = 3, 4
FAULT_BENDS = 3  # each step of the fault: with its diagonal, or along its row or column axis
FAULT_MIN_CELLS = 3  # a fault keeps at least this many cells off the seams (else it is redrawn)
STRESS_BASE = 12
OVERBURDEN_STEP = 5  # stress rises by this per row/column away from the light edge
SEAM_LOAD_STEP = 5  # seam load accumulates downstream by this per cell
FAULT_LOAD = 24  # the hidden stress concentration on a fault cell (a scan reveals it)
FAULT_HALO = 8  # extra stress on the orthogonal neighbours of a fault cell (also hidden)
ROCK_GRAIN = 8  # uniform 0..ROCK_GRAIN-1 of true stress per cell (in every observation)
SURVEY_ERROR = 8  # the stress map is off by a fixed -8..+8 per cell (the scan does not fix it)
CHANNEL_SPEED = 2  # airflow magnitude in the draft channel, 1 elsewhere

# --- levels ------------------------------------------------------------------------------------
# A level changes only what a reset draws (the initial map conditions): never an equation, an
# action, the observation space or a reward. Level 3, the default, is the full difficulty and
# draws exactly what the constants above say; lower levels draw gentler rock (lower stress, less
# load along the seams), a more exact survey and fewer seams. The fault line is drawn the same
# way at every level: it is where the power is, and finding it is the task at every level.
LEVELS = (0, 1, 2, 3)
DEFAULT_LEVEL = 3
# The generator's parameters of a level, in this order (one row of LEVEL_DRAWS per level; a
# sub-env holds its row in the "draw" field, so the physics never reads it).
DRAW_PARAMS = (
    "stress_base",  # STRESS_BASE
    "overburden_step",  # OVERBURDEN_STEP
    "rock_grain",  # ROCK_GRAIN: the grain is uniform on 0..rock_grain-1
    "seam_load_step",  # SEAM_LOAD_STEP
    "survey_error",  # SURVEY_ERROR: the survey errs by a fixed -e..+e per cell
    "max_seams",  # MAX_SEAMS: 1..max_seams seams
)
D_STRESS_BASE, D_OVERBURDEN, D_GRAIN, D_SEAM_LOAD, D_SURVEY, D_MAX_SEAMS = range(6)
NUM_DRAW_PARAMS = 6
LEVEL_DRAWS = np.array(
    [
        [2, 2, 4, 2, 2, 1],  # 0
        [6, 4, 6, 4, 4, 2],  # 1
        [9, 5, 8, 5, 6, 2],  # 2
        [STRESS_BASE, OVERBURDEN_STEP, ROCK_GRAIN, SEAM_LOAD_STEP, SURVEY_ERROR, MAX_SEAMS],  # 3
    ],
    dtype=np.int64,
)

# --- actions -----------------------------------------------------------------------------------
ACTION_TYPES = ("excavate", "support", "vent", "conduit", "build", "research", "wait", "scan")


def _conduit_paths() -> np.ndarray:
    """Every set of 1-3 orthogonally contiguous cells, once, as a path of cell indices (-1 pad).

    Order: singles, then pairs, then triples; within a size by the cell indices, each path
    written from the end with the smaller index (an L starts at an arm, not at its corner).
    """
    paths: list[tuple[int, ...]] = []

    def neighbours(k: int) -> list[int]:
        r, c = divmod(k, GRID)
        out = []
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            if 0 <= r + dr < GRID and 0 <= c + dc < GRID:
                out.append((r + dr) * GRID + c + dc)
        return out

    seen: set[frozenset[int]] = set()
    for size in (1, 2, 3):
        found = []
        for a in range(NUM_CELLS):
            stack: list[tuple[int, ...]] = [(a,)]
            while stack:
                p = stack.pop()
                if len(p) == size:
                    key = frozenset(p)
                    if (size == 1 or p[0] < p[-1]) and key not in seen:
                        seen.add(key)
                        found.append(p)
                    continue
                for b in neighbours(p[-1]):
                    if b not in p:
                        stack.append((*p, b))
        found.sort(key=lambda p: tuple(sorted(p)) + p)
        paths.extend(found)
    table = np.full((len(paths), 3), -1, dtype=np.int64)
    for k, p in enumerate(paths):
        table[k, : len(p)] = p
    return table


CONDUIT_PATHS = _conduit_paths()  # (159, 3) cell indices, -1 padding
NUM_CONDUIT_PATHS = CONDUIT_PATHS.shape[0]
CONDUIT_LENGTH = (CONDUIT_PATHS >= 0).sum(axis=1).astype(np.int64)
CONDUIT_BITS = np.array(  # bit k set: the path uses cell k (for the mask)
    [sum(1 << int(k) for k in p if k >= 0) for p in CONDUIT_PATHS], dtype=np.int64
)

EXCAVATE_BASE = 0  # + cell
SUPPORT_BASE = EXCAVATE_BASE + NUM_CELLS  # + (material - 1) * 25 + cell
VENT_BASE = SUPPORT_BASE + NUM_MATERIALS * NUM_CELLS  # + cell * 4 + (direction - 1)
CONDUIT_BASE = VENT_BASE + 4 * NUM_CELLS  # + path index
BUILD_BASE = CONDUIT_BASE + NUM_CONDUIT_PATHS  # + cell
RESEARCH_BASE = BUILD_BASE + NUM_CELLS  # + rule
WAIT = RESEARCH_BASE + NUM_RULES
SCAN = WAIT + 1
NUM_ACTIONS = SCAN + 1

# --- rewards -----------------------------------------------------------------------------------
REWARD_TERMS = (
    "integrity_gain",
    "air_gain",
    "district",
    "power_milestone",
    "research",
    "operation",
    "victory",
    "integrity_deficit",
    "air_deficit",
    "catastrophe",
)
(
    T_INTEGRITY_GAIN,
    T_AIR_GAIN,
    T_DISTRICT,
    T_POWER_MILESTONE,
    T_RESEARCH,
    T_OPERATION,
    T_VICTORY,
    T_INTEGRITY_DEFICIT,
    T_AIR_DEFICIT,
    T_CATASTROPHE,
) = range(10)
NUM_TERMS = 10
R_INTEGRITY_GAIN = 2.0
R_AIR_GAIN = 1.0
R_DISTRICT = 5.0
R_POWER_MILESTONE = 3.0
R_RESEARCH = 4.0
R_OPERATION = 0.5
R_VICTORY = 40.0
R_INTEGRITY_DEFICIT = -2.0
R_AIR_DEFICIT = -1.0
R_CATASTROPHE = -40.0

# Outcome codes; 0 means the episode is still running.
RUNNING, SUCCESS, TIMEOUT, COLLAPSE, SUFFOCATION = 0, 1, 2, 3, 4
OUTCOMES = ("", "success", "timeout", "collapse", "suffocation")
