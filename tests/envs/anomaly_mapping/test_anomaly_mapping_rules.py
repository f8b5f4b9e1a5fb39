"""Every rule of AnomalyMapping's page on hand-built scenarios."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from helpers import make

from hiddengrid.envs.anomaly_mapping.constants import (
    MARK,
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
    ROTATE_LEFT,
    ROTATE_RIGHT,
)

ID = "hiddengrid/AnomalyMapping-v0"
N, E, S, W = 0, 1, 2, 3


def scenario(walls=(), node=(7, 7), agent=(7, 7), facing=N):
    grid = [[0] * 15 for _ in range(15)]
    for r, c in walls:
        grid[r][c] = 1
    return {"walls": grid, "node": list(node), "agent": list(agent), "facing": facing}


def start(**kwargs):
    env = make(ID)
    obs, _ = env.reset(options={"scenario": scenario(**kwargs)})
    return env, obs


def bfs_levels(walls: np.ndarray, node: tuple[int, int]) -> np.ndarray:
    """The page's definition, written independently: 3 - shortest free path, floored at 0."""
    dist = np.full((15, 15), -1)
    dist[node] = 0
    queue = deque([node])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < 15 and 0 <= nc < 15 and not walls[nr, nc] and dist[nr, nc] < 0:
                dist[nr, nc] = dist[r, c] + 1
                queue.append((nr, nc))
    levels = np.where(dist >= 0, np.maximum(0, 3 - dist), 0)
    return np.where(walls == 1, 0, levels)


def window(levels: np.ndarray, r: int, c: int) -> np.ndarray:
    padded = np.pad(levels, 1)
    return padded[r : r + 3, c : c + 3]


def test_field_open_floor_is_manhattan_formula():
    _, obs = start(node=(7, 7), agent=(7, 7))
    assert obs["field"].tolist() == [[1, 2, 1], [2, 3, 2], [1, 2, 1]]
    _, obs = start(node=(7, 7), agent=(7, 9))
    assert obs["field"].tolist() == [[1, 0, 0], [2, 1, 0], [1, 0, 0]]


def test_field_wall_casts_faraday_shadow():
    # A wall east of the node: the tile behind it is 2 away by Manhattan but 4 by any path.
    _, obs = start(walls=[(7, 8)], node=(7, 7), agent=(7, 9))
    assert obs["field"].tolist() == [[1, 0, 0], [0, 0, 0], [1, 0, 0]]
    # A diagonal tile stays lit through the one free corner and goes dark when both are walled.
    _, obs = start(walls=[(6, 7)], node=(7, 7), agent=(6, 9))
    assert obs["field"][1, 0] == 1  # (6, 8) via (7, 8)
    _, obs = start(walls=[(6, 7), (7, 8)], node=(7, 7), agent=(6, 9))
    assert obs["field"][1, 0] == 0
    assert obs["field"][2, 0] == 0  # the wall itself reads 0


def test_cells_off_the_grid_read_zero():
    _, obs = start(node=(0, 0), agent=(0, 0))
    assert obs["field"].tolist() == [[0, 0, 0], [0, 3, 2], [0, 2, 1]]


@pytest.mark.parametrize("seed", range(40))
def test_field_matches_shortest_path_definition(seed):
    env = make(ID)
    env.reset(seed=seed)
    sc = env.unwrapped.scenario
    walls = np.array(sc["walls"])
    levels = bfs_levels(walls, tuple(sc["node"]))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(options={"scenario": sc})
    for _ in range(29):
        r, c = env.unwrapped.batch["agent"][0]
        assert np.array_equal(obs["field"], window(levels, r, c))
        obs, _, _term, _, _ = env.step(int(rng.integers(0, 4)))
    # and on tiles next to every node position of a dense scenario
    for r in range(15):
        for c in range(15):
            if walls[r, c]:
                continue
            sc2 = dict(sc, agent=[r, c])
            obs, _ = env.reset(options={"scenario": sc2})
            assert np.array_equal(obs["field"], window(levels, r, c))


@pytest.mark.parametrize(
    ("action", "facing", "pos"),
    [
        (MOVE_NORTH, N, (6, 7)),
        (MOVE_SOUTH, S, (8, 7)),
        (MOVE_EAST, E, (7, 8)),
        (MOVE_WEST, W, (7, 6)),
    ],
)
def test_each_move_moves_and_faces(action, facing, pos):
    for start_facing in range(4):
        env, _ = start(node=(0, 0), agent=(7, 7), facing=start_facing)
        obs, reward, term, _trunc, _ = env.step(action)
        assert tuple(env.unwrapped.batch["agent"][0]) == pos
        assert obs["facing"] == facing and reward == 0.0 and not term
        assert obs["steps_left"] == 29


@pytest.mark.parametrize(
    ("action", "agent", "walls"),
    [
        (MOVE_NORTH, (0, 5), []),
        (MOVE_SOUTH, (14, 5), []),
        (MOVE_EAST, (5, 14), []),
        (MOVE_WEST, (5, 0), []),
        (MOVE_NORTH, (7, 7), [(6, 7)]),
        (MOVE_SOUTH, (7, 7), [(8, 7)]),
        (MOVE_EAST, (7, 7), [(7, 8)]),
        (MOVE_WEST, (7, 7), [(7, 6)]),
    ],
)
def test_illegal_moves_change_nothing_but_the_budget(action, agent, walls):
    env, obs0 = start(
        walls=walls,
        node=(10, 10) if agent != (10, 10) else (3, 3),
        agent=agent,
        facing=S if action == MOVE_NORTH else N,
    )
    obs, reward, term, _, _ = env.step(action)
    assert tuple(env.unwrapped.batch["agent"][0]) == agent
    assert obs["facing"] == obs0["facing"]
    assert np.array_equal(obs["field"], obs0["field"])
    assert obs["steps_left"] == 29 and reward == 0.0 and not term


def test_rotations():
    env, obs = start(node=(0, 0), facing=N)
    seq = []
    for _ in range(4):
        obs, *_ = env.step(ROTATE_LEFT)
        seq.append(int(obs["facing"]))
    assert seq == [W, S, E, N]
    seq = []
    for _ in range(4):
        obs, *_ = env.step(ROTATE_RIGHT)
        seq.append(int(obs["facing"]))
    assert seq == [E, S, W, N]
    assert tuple(env.unwrapped.batch["agent"][0]) == (7, 7)
    assert obs["steps_left"] == 22


@pytest.mark.parametrize(
    ("agent", "walls", "reward", "outcome"),
    [
        ((7, 7), [], 1.0, "success"),  # distance 0
        ((6, 7), [], 1.0, "success"),  # distance 1
        ((7, 8), [], 1.0, "success"),
        ((8, 8), [], 0.0, "wrong_mark"),  # distance 2, diagonal
        ((7, 9), [], 0.0, "wrong_mark"),  # distance 2, straight
        ((14, 14), [], 0.0, "wrong_mark"),
    ],
)
def test_mark(agent, walls, reward, outcome):
    env, _ = start(walls=walls, node=(7, 7), agent=agent)
    _, r, term, trunc, info = env.step(MARK)
    assert (r, term, trunc, info["outcome"]) == (reward, True, False, outcome)


def test_mark_ignores_walls_between_agent_and_node():
    # Adjacent by Manhattan distance; a wall cannot stand between two adjacent free tiles, but a
    # wall ring around both does not matter either.
    env, _ = start(walls=[(5, 7), (6, 6), (6, 8)], node=(7, 7), agent=(6, 7))
    _, r, _term, _, info = env.step(MARK)
    assert r == 1.0 and info["outcome"] == "success"


def test_timeout_after_exactly_30_actions():
    env, _ = start(node=(0, 0), agent=(14, 14))
    for k in range(29):
        obs, r, term, trunc, info = env.step(ROTATE_LEFT)
        assert not term and r == 0.0 and "outcome" not in info
        assert obs["steps_left"] == 29 - k
    obs, r, term, trunc, info = env.step(ROTATE_LEFT)
    assert term and not trunc and r == 0.0 and info["outcome"] == "timeout"
    assert obs["steps_left"] == 0


def test_mark_on_the_30th_action_is_judged_as_a_mark():
    env, _ = start(node=(7, 7), agent=(7, 7))
    for _ in range(29):
        env.step(ROTATE_RIGHT)
    _, r, term, _, info = env.step(MARK)
    assert term and r == 1.0 and info["outcome"] == "success"


def test_start_on_node_is_allowed_and_observation_hides_position():
    _, obs = start(node=(3, 4), agent=(3, 4))
    assert set(obs) == {"field", "facing", "steps_left"}
    assert obs["steps_left"] == 30


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"node": [7, 8]}, "node"),
        ({"agent": [7, 8]}, "agent"),
        ({"facing": 4}, "facing"),
        ({"facing": 1.0}, "facing"),
        ({"node": [15, 0]}, "node"),
        ({"agent": [0]}, "agent"),
        ({"walls": [[0] * 15] * 14}, "walls"),
        ({"walls": [[2] * 15] * 15}, "walls"),
    ],
)
def test_malformed_scenarios_name_the_field(change, match):
    env, _ = start(walls=[(7, 8)])
    sc = scenario(walls=[(7, 8)])
    sc.update(change)
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(ValueError, match=match):
        env.reset(options={"scenario": sc})
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_disconnected_walls_rejected():
    ring = [(0, 2), (1, 2), (2, 2), (2, 1), (2, 0)]
    env = make(ID)
    with pytest.raises(ValueError, match="connected"):
        env.reset(options={"scenario": scenario(walls=ring)})


def test_custom_level_with_other_wall_count_is_accepted():
    _, obs = start(walls=[(1, 1)], node=(5, 5), agent=(5, 5))
    assert obs["field"][1, 1] == 3


@pytest.mark.parametrize("agent", [(7, 14), (7, 0), (0, 7), (14, 14)])
def test_ansi_window_brackets_close_at_the_grid_edge(agent):
    env = make(ID, render_mode="ansi")
    env.reset(options={"scenario": scenario(node=(3, 3), agent=agent)})
    rows = env.render().splitlines()[1:16]
    for r in range(max(agent[0] - 1, 0), min(agent[0] + 1, 14) + 1):
        assert rows[r].count("[") == 1 and rows[r].count("]") == 1, rows[r]
