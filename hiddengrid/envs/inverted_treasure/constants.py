"""InvertedTreasure's numbers and codes."""

import numpy as np

GRID_SIZE = 8
NUM_TILES = GRID_SIZE * GRID_SIZE
NUM_BOMBS = 1
NUM_FLOWERS = 10
NUM_EMPTY = NUM_TILES - NUM_BOMBS - NUM_FLOWERS  # 53
STEP_BUDGET = 30
WINDOW_RADIUS = 2  # the 5x5 window
WINDOW_SIZE = 2 * WINDOW_RADIUS + 1
PAD = WINDOW_RADIUS  # rings of outside cells around the revealed board (see rules.py)
BOARD_SIZE = GRID_SIZE + 2 * PAD

# The start tile is (x, y) = (0, 0), the south-west corner: array [7 - y, x].
START_X, START_Y = 0, 0
START_ROW, START_COL = GRID_SIZE - 1 - START_Y, START_X

# Icons in the scenario, and the window codes of the observation.
UNSEEN, EMPTY, BOMB, FLOWER, OUTSIDE = 0, 1, 2, 3, 4
ICON_NAMES = ("unseen", "Empty", "Bomb", "Flower", "outside")

# Actions.
MOVE_NORTH, MOVE_SOUTH, MOVE_WEST, MOVE_EAST, REVEAL, WAIT = range(6)
NUM_ACTIONS = 6
ACTION_NAMES = ("move north", "move south", "move west", "move east", "reveal", "wait")
# Row / column change of each move action 0..3 (north is row - 1, i.e. y + 1).
MOVE_ROW = np.array([-1, 1, 0, 0], dtype=np.int64)
MOVE_COL = np.array([0, 0, -1, 1], dtype=np.int64)

# Outcome codes; 0 means the episode is still running.
RUNNING, TREASURE, TRAP, TIMEOUT = 0, 1, 2, 3
OUTCOMES = ("", "treasure", "trap", "timeout")
