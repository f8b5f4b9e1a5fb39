"""The agents: what each one does on hand-built levels, and how well it plays."""

from __future__ import annotations

from collections import deque

import gymnasium as gym
import numpy as np
import pytest
from it_helpers import BASE_ID, IDS, SCOUT_ID, icons

from hiddengrid.envs.inverted_treasure.agents import AGENTS
from hiddengrid.envs.inverted_treasure.constants import (
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_WEST,
    REVEAL,
    WAIT,
)
from hiddengrid.evaluate import run_episodes


def play(env_id: str, agent_name: str, level: dict, steps: int = 30):
    """Plays one hand-built level with a batch of one; returns actions, last info, reward."""
    venv = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point")
    agent = AGENTS[agent_name](venv.unwrapped, seed=0)
    obs, _ = venv.reset(seed=0, options={"scenario": {"icons": icons(**level)}})
    starts = np.ones(1, dtype=bool)
    actions = []
    for _ in range(steps):
        action = agent.act(obs, starts)
        starts[:] = False
        actions.append(int(action[0]))
        obs, reward, terminated, _, info = venv.step(action)
        if terminated[0]:
            return actions, info["outcome"][0], float(reward[0])
    return actions, None, 0.0


def test_base_heuristic_walks_a_snake_onto_a_new_tile_every_step():
    # Bomb at (4, 3): row y=0 east, up, row y=1 west, up, row y=2 east, up, then west to x=4.
    actions, outcome, reward = play(BASE_ID, "heuristic", {"bomb": (4, 3)})
    assert (outcome, reward) == ("treasure", 1.0)
    snake = [MOVE_EAST] * 7 + [MOVE_NORTH] + [MOVE_WEST] * 7 + [MOVE_NORTH] + [MOVE_EAST] * 7
    assert actions == [*snake, MOVE_NORTH, MOVE_WEST, MOVE_WEST, MOVE_WEST]
    assert REVEAL not in actions  # in the base variant Reveal never shows anything new


def test_base_heuristic_is_blind_to_the_icons():
    # It walks straight into a Flower: in the base variant nothing warns it.
    actions, outcome, _ = play(BASE_ID, "heuristic", {"bomb": (7, 7), "flowers": [(3, 0)]})
    assert actions == [MOVE_EAST] * 3 and outcome == "trap"


def test_scout_heuristic_steps_on_a_revealed_bomb():
    actions, outcome, reward = play(SCOUT_ID, "heuristic", {"bomb": (1, 0)})
    assert actions == [REVEAL, MOVE_EAST] and (outcome, reward) == ("treasure", 1.0)


def test_scout_heuristic_goes_round_revealed_flowers():
    # The Flower north of the start is revealed first and never stepped on; the Bomb behind it
    # is found from the east side and reached round the Flower.
    level = {"bomb": (0, 2), "flowers": [(0, 1)]}
    actions, outcome, _ = play(SCOUT_ID, "heuristic", level)
    assert outcome == "treasure"
    assert actions[0] == REVEAL and actions[1] != MOVE_NORTH
    assert actions[-1] == MOVE_WEST  # onto (0, 2) from (1, 2)


def test_scout_heuristic_waits_when_flowers_wall_it_in():
    # Both neighbours of the start are Flowers: no safe move exists, so it never steps.
    actions, outcome, _ = play(SCOUT_ID, "heuristic", {"bomb": (7, 7), "flowers": [(1, 0), (0, 1)]})
    assert outcome == "timeout"
    assert actions[0] == REVEAL and set(actions[1:]) == {WAIT}


def test_oracle_takes_the_shortest_flower_free_path():
    actions, outcome, _ = play(BASE_ID, "oracle", {"bomb": (3, 0)})
    assert actions == [MOVE_EAST] * 3 and outcome == "treasure"
    # A Flower on the direct line forces a detour of two moves.
    actions, outcome, _ = play(BASE_ID, "oracle", {"bomb": (3, 0), "flowers": [(2, 0)]})
    assert outcome == "treasure" and len(actions) == 5


def test_oracle_waits_when_no_flower_free_path_exists():
    level = {"bomb": (7, 7), "flowers": [(6, 7), (7, 6)]}  # the Bomb is walled in
    actions, outcome, _ = play(BASE_ID, "oracle", level)
    assert set(actions) == {WAIT} and outcome == "timeout"


def flower_free_distance(grid: np.ndarray) -> int:
    """Shortest path from (x, y) = (0, 0) to the Bomb avoiding Flowers, -1 if none."""
    goal = tuple(int(v) for v in np.argwhere(grid == 2)[0])
    dist = {(7, 0): 0}
    queue = deque([(7, 0)])
    while queue:
        r, c = queue.popleft()
        if (r, c) == goal:
            return dist[(r, c)]
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < 8 and 0 <= nc < 8 and grid[nr, nc] != 3 and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return -1


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_wins_exactly_the_levels_with_a_flower_free_path(env_id):
    n, seed = 1500, 40
    result = run_episodes(env_id, "oracle", n, seed=seed, batch_size=n)
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    venv.reset(seed=seed)
    grids = venv.unwrapped.batch["icons"]
    winnable = sum(0 <= flower_free_distance(grids[k]) <= 30 for k in range(n))
    assert result.successes == winnable
    assert result.outcomes.get("trap", 0) == 0


def test_base_heuristic_is_close_to_one_in_eleven():
    # Tiles are exchangeable until stood on: the first icon found is the Bomb with p = 1/11.
    result = run_episodes(BASE_ID, "heuristic", 6000, seed=1)
    assert abs(result.success_rate - 1 / 11) < 0.015  # about 4 standard deviations
    assert result.outcomes.get("timeout", 0) < 10  # 30 new tiles almost always hit an icon


def test_scout_heuristic_is_far_above_luck_and_never_trapped():
    result = run_episodes(SCOUT_ID, "heuristic", 3000, seed=2)
    assert result.success_rate > 0.4
    assert result.outcomes.get("trap", 0) == 0


@pytest.mark.parametrize("env_id", IDS)
def test_random_agent_runs(env_id):
    result = run_episodes(env_id, "random", 500, seed=3)
    assert sum(result.outcomes.values()) == 500
    assert result.success_rate < 0.2


def test_heuristic_is_fair_it_reads_only_the_observation():
    assert not AGENTS["heuristic"].reads_scenario and AGENTS["oracle"].reads_scenario
    # Two levels that differ only in tiles the heuristic never sees get the same actions.
    a, _, _ = play(SCOUT_ID, "heuristic", {"bomb": (1, 0)})
    b, _, _ = play(SCOUT_ID, "heuristic", {"bomb": (1, 0), "flowers": [(7, 7), (6, 6)]})
    assert a == b
