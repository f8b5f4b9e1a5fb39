"""SquadRecon's numbers and codes."""

import numpy as np

GRID_SIZE = 15
NUM_CELLS = GRID_SIZE * GRID_SIZE
STEP_BUDGET = 40

# Terrain codes (also the observation's "terrain" values; -1 there means unexplored).
OPEN, WALL, FOREST = 0, 1, 2
UNEXPLORED = -1
TERRAIN_NAMES = ("open", "wall", "forest")

# Squads: three, starting in the south-west corner, strengths uniform in 1..4.
NUM_SQUADS = 3
SQUAD_STARTS = np.array([[14, 0], [14, 1], [13, 0]], dtype=np.int64)
MIN_SQUAD_STRENGTH, MAX_SQUAD_STRENGTH = 1, 4
MAX_TOTAL_STRENGTH = NUM_SQUADS * MAX_SQUAD_STRENGTH  # 12: "total_strength" is Discrete(13)
# Columns of the squads array (state and observation): row, col, strength, alive.
ROW, COL, STRENGTH, ALIVE = 0, 1, 2, 3

# Camps: two, on open cells at Chebyshev distance >= 5 from [14, 0], strengths uniform in 2..6.
NUM_CAMPS = 2
MIN_CAMP_STRENGTH, MAX_CAMP_STRENGTH = 2, 6
CAMP_MIN_DISTANCE = 5
MAX_REPLAY_CAMP_STRENGTH = MAX_TOTAL_STRENGTH  # a replayed level may use any strength 1..12
# Camp status (the 4th column of the "camps" observation).
UNDETECTED, DETECTED, ELIMINATED = 0, 1, 2
CAMP_REWARD = 0.5  # per eliminated camp; nothing else pays

# Sensors: a live squad sees its 7x7 window (Chebyshev radius 3) where the line is clear.
SENSOR_RADIUS = 3
SENSOR_WIDTH = 2 * SENSOR_RADIUS + 1

# Terrain generator (15-30 % of cells blocked, all open cells connected).
MIN_BLOCKED = 34  # ceil(0.15 * 225)
MAX_BLOCKED = 67  # floor(0.30 * 225)
# Cells the generator never blocks: the 3x3 south-west corner around the squads' starts.
SAFE_ROWS = (12, 14)  # inclusive
SAFE_COLS = (0, 2)

# Orders, one per squad (MultiDiscrete([6, 6, 6])).
HOLD, MOVE_NORTH, MOVE_SOUTH, MOVE_EAST, MOVE_WEST, ATTACK = range(6)
NUM_ORDERS = 6
ORDER_NAMES = ("hold", "north", "south", "east", "west", "attack")
SEED_ORDER_NAMES = (
    "HoldPosition",
    "MoveNorth",
    "MoveSouth",
    "MoveEast",
    "MoveWest",
    "AttackEnemyCamp",
)
# Row and column change of each order (hold and attack do not move).
ORDER_ROW = np.array([0, -1, 1, 0, 0, 0], dtype=np.int64)  # north is row - 1
ORDER_COL = np.array([0, 0, 0, 1, -1, 0], dtype=np.int64)

# Outcome codes; 0 means the episode is still running.
RUNNING, SUCCESS, WIPED_OUT, TIMEOUT = 0, 1, 2, 3
OUTCOMES = ("", "success", "wiped_out", "timeout")
