"""Generator invariants over thousands of seeds, and the checks of a given scenario."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest
from helpers import make, make_vec
from squad_recon_cases import ID, scenario

from hiddengrid.envs.squad_recon.generator import validate_scenario
from hiddengrid.envs.squad_recon.sight import bresenham_line

NUM_SEEDS = 3000


def regions(open_cells: np.ndarray) -> int:
    seen = ~open_cells
    count = 0
    for r0, c0 in np.argwhere(open_cells):
        if seen[r0, c0]:
            continue
        count += 1
        seen[r0, c0] = True
        queue = deque([(r0, c0)])
        while queue:
            r, c = queue.popleft()
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < 15 and 0 <= nc < 15 and not seen[nr, nc]:
                    seen[nr, nc] = True
                    queue.append((nr, nc))
    return count


def seen_from(terrain, r0, c0, r, c) -> bool:
    if max(abs(r - r0), abs(c - c0)) > 3:
        return False
    return all(terrain[y, x] == 0 for y, x in bresenham_line(r0, c0, r, c)[1:-1])


def longest_wall_run(walls: np.ndarray) -> int:
    best = 0
    for grid in (walls, walls.T):
        for row in grid:
            run = 0
            for v in row:
                run = run + 1 if v else 0
                best = max(best, run)
    return best


@pytest.fixture(scope="module")
def drawn():
    venv = make_vec(ID, NUM_SEEDS)
    obs, _ = venv.reset(seed=2024)
    b = venv.unwrapped.batch
    return b["terrain"].copy(), b["start_squads"].copy(), b["camps"].copy(), obs


def test_terrain_invariants(drawn):
    terrain, _, camps, _ = drawn
    for i in range(NUM_SEEDS):
        t = terrain[i]
        blocked = int((t != 0).sum())
        assert 34 <= blocked <= 67  # 15-30 % of 225
        assert (t == 1).any() and (t == 2).any()
        assert regions(t == 0) == 1
        assert (t[12:, :3] == 0).all()  # the start corner stays open
        # Open ground minus the camps is still one region: camps never cut the map.
        open_ground = t == 0
        open_ground[camps[i, :, 0], camps[i, :, 1]] = False
        assert regions(open_ground) == 1


def test_walls_are_straight_barriers(drawn):
    terrain = drawn[0]
    runs = [longest_wall_run(terrain[i] == 1) for i in range(NUM_SEEDS)]
    assert min(runs) >= 3
    assert np.mean(runs) >= 5


def test_squads_and_camps(drawn):
    terrain, squads, camps, obs = drawn
    assert (squads[:, :, :2] == [[14, 0], [14, 1], [13, 0]]).all()
    assert squads[:, :, 2].min() == 1 and squads[:, :, 2].max() == 4
    assert camps[:, :, 2].min() == 2 and camps[:, :, 2].max() == 6
    for i in range(NUM_SEEDS):
        t = terrain[i]
        (r0, c0, _), (r1, c1, _) = camps[i].tolist()
        assert (r0, c0) != (r1, c1)
        for r, c in ((r0, c0), (r1, c1)):
            assert t[r, c] == 0
            assert max(abs(r - 14), abs(c - 0)) >= 5
            assert not any(seen_from(t, sr, sc, r, c) for sr, sc in ((14, 0), (14, 1), (13, 0)))
            # Each camp has an open neighbour that is not the other camp.
            others = {(r0, c0), (r1, c1)}
            assert any(
                0 <= nr < 15 and 0 <= nc < 15 and t[nr, nc] == 0 and (nr, nc) not in others
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            )
    assert (obs["camps"] == 0).all()  # no camp in sight at the start
    assert (obs["steps_left"] == 40).all()


def test_strengths_are_uniform(drawn):
    _, squads, camps, _ = drawn
    squad_counts = np.bincount(squads[:, :, 2].ravel(), minlength=5)[1:]
    camp_counts = np.bincount(camps[:, :, 2].ravel(), minlength=7)[2:]
    for counts in (squad_counts, camp_counts):
        expected = counts.sum() / len(counts)
        assert (np.abs(counts - expected) < 5 * np.sqrt(expected)).all(), counts


def test_generator_is_deterministic_and_per_seed():
    a, b = make(ID), make(ID)
    a.reset(seed=7)
    b.reset(seed=7)
    assert a.unwrapped.scenario == b.unwrapped.scenario
    b.reset(seed=8)
    assert a.unwrapped.scenario != b.unwrapped.scenario
    venv = make_vec(ID, 3)
    venv.reset(seed=6)
    assert venv.unwrapped.get_scenario(1) == a.unwrapped.scenario


def test_scenario_is_json_and_replays():
    env = make(ID)
    obs, _ = env.reset(seed=3)
    sc = json.loads(json.dumps(env.unwrapped.scenario))
    assert set(sc) == {"terrain", "squads", "camps"}
    other = make(ID)
    obs2, _ = other.reset(options={"scenario": sc})
    assert all(np.array_equal(obs[k], obs2[k]) for k in obs)


# --- malformed scenarios --------------------------------------------------------------------------


def _bad(**changes):
    sc = scenario()
    sc.update(changes)
    return sc


def _with(cells, value):
    g = [[0] * 15 for _ in range(15)]
    for r, c in cells:
        g[r][c] = value
    return g


BAD_SCENARIOS = [
    ({**scenario(), "extra": 1}, "unknown"),
    ({k: v for k, v in scenario().items() if k != "camps"}, "missing"),
    (_bad(terrain=[[0] * 15] * 14), "terrain"),
    (_bad(terrain=[[0] * 14] * 15), "terrain"),
    (_bad(terrain=_with([(5, 5)], 3)), "terrain"),
    (_bad(terrain=_with([(5, 5)], -1)), "terrain"),
    (_bad(terrain=[[0.0] * 15] * 15), "terrain"),
    (_bad(terrain=[[False] * 15] * 15), "terrain"),
    (_bad(terrain="open"), "terrain"),
    (_bad(terrain=_with([(14, 0)], 1)), "squads"),  # squad on a wall
    (_bad(terrain=_with([(0, 14)], 2)), "camps"),  # camp in a forest
    (
        _bad(
            terrain=_with(
                [
                    (0, 7),
                    (1, 7),
                    (2, 7),
                    (3, 7),
                    (4, 7),
                    (5, 7),
                    (6, 7),
                    (7, 7),
                    (8, 7),
                    (9, 7),
                    (10, 7),
                    (11, 7),
                    (12, 7),
                    (13, 7),
                    (14, 7),
                ],
                1,
            )
        ),
        "connected",
    ),
    (_bad(squads=[[14, 0, 1], [14, 1, 1]]), "squads"),
    (_bad(squads=[[14, 0, 1], [14, 1, 1], [13, 0]]), "squads"),
    (_bad(squads=[[14, 0, 1], [14, 1, 1], [13, 0, 5]]), "strength"),
    (_bad(squads=[[14, 0, 1], [14, 1, 1], [13, 0, 0]]), "strength"),
    (_bad(squads=[[15, 0, 1], [14, 1, 1], [13, 0, 1]]), "off the"),
    (_bad(squads=[[-1, 0, 1], [14, 1, 1], [13, 0, 1]]), "off the"),
    (_bad(squads=[[14, 0, 1.5], [14, 1, 1], [13, 0, 1]]), "squads"),
    (_bad(squads=[[0, 14, 1], [14, 1, 1], [13, 0, 1]]), "camp"),  # squad on a camp
    (_bad(camps=[[0, 14, 2]]), "camps"),
    (_bad(camps=[[0, 14, 2], [0, 14, 3]]), "different"),
    (_bad(camps=[[0, 14, 2], [1, 14, 13]]), "strength"),
    (_bad(camps=[[0, 14, 2], [1, 14, 0]]), "strength"),
    (_bad(camps=None), "camps"),
]


@pytest.mark.parametrize(("bad", "word"), BAD_SCENARIOS)
def test_malformed_scenario_raises_and_changes_nothing(bad, word):
    with pytest.raises(ValueError, match=word):
        validate_scenario(bad, {})
    env = make(ID)
    _obs, _ = env.reset(seed=1)
    env.step(np.array([1, 3, 0]))
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(ValueError):
        env.reset(options={"scenario": bad})
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
    env.step(np.array([0, 0, 0]))  # the running episode goes on


def test_custom_levels_are_accepted():
    # Camps next to the squads, other strengths, squads sharing a cell, no walls at all.
    sc = scenario(squads=((7, 7, 4), (7, 7, 4), (7, 7, 4)), camps=((7, 8, 12), (7, 6, 1)))
    arrays = validate_scenario(sc, {})
    assert arrays["camps"].tolist() == [[7, 8, 12], [7, 6, 1]]
