"""AnomalyMapping's numbers and codes."""

import numpy as np

GRID_SIZE = 15
NUM_WALLS = 45  # exactly 20 % of 225 tiles
NUM_FREE = GRID_SIZE * GRID_SIZE - NUM_WALLS
# The wall map is stored as one bit mask per row (bit c+1 of row r+1 is tile (r, c)) with a
# one-tile border of wall around the grid, so every neighbour lookup is in bounds, off-grid
# tiles read as walls (level 0), and the generator tests a 3x3 block with three loads.
PADDED = GRID_SIZE + 2
FULL_ROW = (1 << PADDED) - 1  # a border row: all wall
EDGE_ROW = 1 | (1 << (PADDED - 1))  # an empty row between the west and east border
STEP_BUDGET = 30
MAX_LEVEL = 3  # level(t) = max(0, 3 - d(t))
SENSOR_RADIUS = 1  # the 3x3 field window

# Facing directions, clockwise from north.
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
DIRECTION_NAMES = ("north", "east", "south", "west")
DIR_ROW = np.array([-1, 0, 1, 0], dtype=np.int64)  # north is row - 1
DIR_COL = np.array([0, 1, 0, -1], dtype=np.int64)

# Actions.
MOVE_NORTH, MOVE_SOUTH, MOVE_EAST, MOVE_WEST, ROTATE_LEFT, ROTATE_RIGHT, MARK = range(7)
NUM_ACTIONS = 7
ACTION_NAMES = (
    "move north",
    "move south",
    "move east",
    "move west",
    "rotate left",
    "rotate right",
    "mark",
)
MOVE_DIRECTION = np.array([NORTH, SOUTH, EAST, WEST], dtype=np.int64)  # by action 0..3

# Outcome codes; 0 means the episode is still running.
RUNNING, SUCCESS, WRONG_MARK, TIMEOUT = 0, 1, 2, 3
OUTCOMES = ("", "success", "wrong_mark", "timeout")
