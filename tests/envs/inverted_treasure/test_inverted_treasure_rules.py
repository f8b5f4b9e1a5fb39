"""Every rule of InvertedTreasure's page on hand-built levels, in both variants."""

from __future__ import annotations

import numpy as np
import pytest
from it_helpers import BASE_ID, BOMB, EMPTY, FLOWER, IDS, SCOUT_ID, revealed, seen_at, start

from hiddengrid.envs.inverted_treasure.constants import (
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
    REVEAL,
    WAIT,
)

U, OUT = 0, 4  # unseen, outside


@pytest.mark.parametrize("env_id", IDS)
def test_reset_observation(env_id):
    env, obs = start(env_id)
    assert obs["position"].tolist() == [0, 0]
    assert obs["steps_left"] == 30
    # (0, 0) is the south-west corner: the window's south rows and west columns are outside.
    assert obs["window"].tolist() == [
        [OUT, OUT, U, U, U],
        [OUT, OUT, U, U, U],
        [OUT, OUT, U, U, U],
        [OUT, OUT, OUT, OUT, OUT],
        [OUT, OUT, OUT, OUT, OUT],
    ]
    assert obs["window"].dtype == np.int8
    assert not revealed(env).any()  # the start tile too is unrevealed
    assert env.unwrapped.batch["agent"][0].tolist() == [7, 0]  # (x, y) is [7 - y, x]


@pytest.mark.parametrize("env_id", IDS)
def test_position_is_x_y_with_y_up(env_id):
    env, _ = start(env_id, bomb=(7, 7))
    obs, *_ = env.step(MOVE_NORTH)
    assert obs["position"].tolist() == [0, 1]
    assert env.unwrapped.batch["agent"][0].tolist() == [6, 0]
    obs, *_ = env.step(MOVE_EAST)
    assert obs["position"].tolist() == [1, 1]
    obs, *_ = env.step(MOVE_EAST)
    assert obs["position"].tolist() == [2, 1]
    assert env.unwrapped.batch["agent"][0].tolist() == [6, 2]
    obs, *_ = env.step(MOVE_SOUTH)
    assert obs["position"].tolist() == [2, 0]
    obs, *_ = env.step(MOVE_WEST)
    assert obs["position"].tolist() == [1, 0]
    # Walked tiles are revealed; the window is north-up and west-left around (1, 0).
    # The start tile (0, 0) was never stood on after reset, so it is still unseen.
    assert obs["window"][:3, 1:].tolist() == [[U, U, U, U], [1, 1, 1, U], [U, 1, 1, U]]
    assert obs["window"][:, 0].tolist() == [OUT] * 5
    assert obs["window"][3:].tolist() == [[OUT] * 5] * 2


def test_window_is_north_up_west_left_in_scout():
    # A Flower east of the start and one north of it, seen from (0, 0) by a scouting Reveal.
    env, _ = start(SCOUT_ID, flowers=[(1, 0)])
    obs, reward, terminated, _, _ = env.step(REVEAL)
    assert (reward, terminated) == (0.0, False)
    assert obs["window"][2, 2] == EMPTY  # own tile
    assert obs["window"][2, 3] == FLOWER  # east: x + 1
    assert obs["window"][1, 2] == EMPTY  # north: y + 1
    env, _ = start(SCOUT_ID, flowers=[(0, 1)])
    obs, *_ = env.step(REVEAL)
    assert obs["window"][1, 2] == FLOWER
    assert obs["window"][2, 3] == EMPTY


@pytest.mark.parametrize("env_id", IDS)
def test_off_grid_moves_at_the_south_west_corner_change_only_the_budget(env_id):
    env, obs0 = start(env_id)
    for k, action in enumerate((MOVE_SOUTH, MOVE_WEST), start=1):
        seen = revealed(env)
        obs, reward, terminated, truncated, _ = env.step(action)
        assert obs["position"].tolist() == [0, 0]
        assert obs["steps_left"] == 30 - k
        assert np.array_equal(obs["window"], obs0["window"])
        assert np.array_equal(revealed(env), seen)
        assert (reward, terminated, truncated) == (0.0, False, False)


@pytest.mark.parametrize("env_id", IDS)
def test_off_grid_moves_at_the_north_east_corner(env_id):
    env, _ = start(env_id, bomb=(0, 7))
    for _ in range(7):
        env.step(MOVE_EAST)
    for _ in range(7):
        obs, *_ = env.step(MOVE_NORTH)
    assert obs["position"].tolist() == [7, 7]
    for k, action in enumerate((MOVE_NORTH, MOVE_EAST), start=1):
        obs, reward, terminated, _, _ = env.step(action)
        assert obs["position"].tolist() == [7, 7]
        assert obs["steps_left"] == 16 - k
        assert (reward, terminated) == (0.0, False)
    assert obs["window"][:2].tolist() == [[OUT] * 5] * 2
    assert obs["window"][:, 3:].tolist() == [[OUT, OUT]] * 5
    # x = 7 all the way up is revealed, (6, 7) and the rest of row y = 7 are not.
    assert obs["window"][2:, 2].tolist() == [EMPTY] * 3
    assert obs["window"][2, :2].tolist() == [U, U]


@pytest.mark.parametrize("env_id", IDS)
def test_stepping_on_a_flower_is_a_trap(env_id):
    env, _ = start(env_id, flowers=[(1, 0)])
    obs, reward, terminated, truncated, info = env.step(MOVE_EAST)
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["outcome"] == "trap"
    assert obs["position"].tolist() == [1, 0]  # the agent stands on it
    assert obs["window"][2, 2] == FLOWER  # revealed first
    assert seen_at(env, 1, 0) == FLOWER


@pytest.mark.parametrize("env_id", IDS)
def test_stepping_on_the_bomb_is_the_treasure(env_id):
    env, _ = start(env_id, bomb=(0, 1), flowers=[(1, 0)])
    obs, reward, terminated, truncated, info = env.step(MOVE_NORTH)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["outcome"] == "treasure"
    assert obs["position"].tolist() == [0, 1]
    assert obs["window"][2, 2] == BOMB


def test_revealing_is_not_winning_or_losing():
    # Scout: Reveal shows the Bomb and a Flower next to the agent; nothing ends.
    env, _ = start(SCOUT_ID, bomb=(0, 1), flowers=[(1, 0)])
    obs, reward, terminated, _, _ = env.step(REVEAL)
    assert (reward, terminated) == (0.0, False)
    assert obs["window"][1, 2] == BOMB and obs["window"][2, 3] == FLOWER


def test_stepping_on_an_already_revealed_flower_is_a_trap():
    env, _ = start(SCOUT_ID, flowers=[(1, 0)])
    env.step(REVEAL)
    assert seen_at(env, 1, 0) == FLOWER
    _, reward, terminated, _, info = env.step(MOVE_EAST)
    assert (reward, terminated, info["outcome"]) == (0.0, True, "trap")


def test_stepping_on_an_already_revealed_bomb_is_the_treasure():
    env, _ = start(SCOUT_ID, bomb=(1, 0))
    env.step(REVEAL)
    env.step(WAIT)
    _, reward, terminated, _, info = env.step(MOVE_EAST)
    assert (reward, terminated, info["outcome"]) == (1.0, True, "treasure")


@pytest.mark.parametrize("env_id", IDS)
def test_stepping_back_on_revealed_empty_tiles_goes_on(env_id):
    env, _ = start(env_id)
    env.step(MOVE_EAST)
    obs, reward, terminated, _, _ = env.step(MOVE_WEST)  # back onto the start tile
    assert (reward, terminated) == (0.0, False)
    assert obs["position"].tolist() == [0, 0]
    assert seen_at(env, 0, 0) == EMPTY  # moving onto it revealed it
    obs, reward, terminated, _, _ = env.step(MOVE_EAST)
    assert (reward, terminated) == (0.0, False)


def test_reveal_on_the_start_tile_base():
    env, obs0 = start(BASE_ID, flowers=[(1, 0), (0, 1)])
    obs, reward, terminated, _, _ = env.step(REVEAL)
    assert (reward, terminated) == (0.0, False)
    assert obs["window"][2, 2] == EMPTY
    expected = obs0["window"].copy()
    expected[2, 2] = EMPTY
    assert np.array_equal(obs["window"], expected)  # the neighbours stay unseen
    assert int(revealed(env).astype(bool).sum()) == 1
    obs, *_ = env.step(REVEAL)  # revealing again changes nothing but the budget
    assert np.array_equal(obs["window"], expected) and obs["steps_left"] == 28


def test_reveal_on_the_start_tile_scout_reveals_the_neighbours_inside_the_grid():
    env, _ = start(SCOUT_ID, flowers=[(1, 0)], bomb=(0, 1))
    obs, *_ = env.step(REVEAL)
    seen = revealed(env)
    assert int(seen.astype(bool).sum()) == 3  # own tile, north and east; south, west are off
    assert (seen_at(env, 0, 0), seen_at(env, 0, 1), seen_at(env, 1, 0)) == (EMPTY, BOMB, FLOWER)
    assert obs["window"][2, 1] == OUT and obs["window"][3, 2] == OUT  # outside stays outside


def test_scout_reveal_in_the_middle_reveals_exactly_the_four_neighbours():
    env, _ = start(SCOUT_ID, bomb=(7, 7), flowers=[(3, 3)])
    for action in (MOVE_EAST, MOVE_EAST, MOVE_NORTH, MOVE_NORTH):
        env.step(action)
    before = revealed(env).astype(bool).copy()
    obs, *_ = env.step(REVEAL)  # at (2, 2)
    after = revealed(env).astype(bool)
    new = {(x, 7 - r) for r, x in zip(*np.nonzero(after & ~before), strict=True)}
    assert new == {(2, 3), (1, 2), (3, 2)}  # (2, 1) was walked on, (2, 2) is the own tile
    assert obs["window"][2, 3] == EMPTY
    assert seen_at(env, 2, 1) == EMPTY
    assert seen_at(env, 3, 3) == U  # diagonal: not revealed


def test_base_reveal_never_reveals_neighbours():
    env, _ = start(BASE_ID, bomb=(7, 7), flowers=[(3, 3)])
    for action in (MOVE_EAST, MOVE_EAST, MOVE_NORTH, MOVE_NORTH):
        env.step(action)
    before = revealed(env).copy()
    env.step(REVEAL)
    assert np.array_equal(revealed(env), before)


@pytest.mark.parametrize("env_id", IDS)
def test_wait_does_nothing_but_spend_a_step(env_id):
    env, obs0 = start(env_id)
    obs, reward, terminated, _, _ = env.step(WAIT)
    assert np.array_equal(obs["window"], obs0["window"])
    assert obs["position"].tolist() == [0, 0] and obs["steps_left"] == 29
    assert (reward, terminated) == (0.0, False)
    assert not revealed(env).any()


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("filler", [WAIT, REVEAL, MOVE_SOUTH])
def test_timeout_after_exactly_30_actions(env_id, filler):
    env, _ = start(env_id)
    for k in range(29):
        obs, reward, terminated, truncated, info = env.step(filler)
        assert (reward, terminated, truncated) == (0.0, False, False), k
        assert obs["steps_left"] == 29 - k
        assert "outcome" not in info
    obs, reward, terminated, truncated, info = env.step(filler)
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["outcome"] == "timeout"
    assert obs["steps_left"] == 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(WAIT)


@pytest.mark.parametrize("env_id", IDS)
def test_treasure_on_the_30th_action_is_a_treasure_not_a_timeout(env_id):
    env, _ = start(env_id, bomb=(0, 1))
    for _ in range(29):
        env.step(WAIT)
    obs, reward, terminated, _, info = env.step(MOVE_NORTH)
    assert (reward, terminated, info["outcome"]) == (1.0, True, "treasure")
    assert obs["steps_left"] == 0


@pytest.mark.parametrize("env_id", IDS)
def test_trap_on_the_30th_action_is_a_trap_not_a_timeout(env_id):
    env, _ = start(env_id, flowers=[(0, 1)])
    for _ in range(29):
        env.step(WAIT)
    _, reward, terminated, _, info = env.step(MOVE_NORTH)
    assert (reward, terminated, info["outcome"]) == (0.0, True, "trap")


@pytest.mark.parametrize("env_id", IDS)
def test_walls_of_flowers_do_not_block_but_kill(env_id):
    # Tiles revealed as Empty stay Empty; a revealed Flower keeps killing on every visit.
    env, _ = start(env_id, flowers=[(2, 0)])
    env.step(MOVE_EAST)
    _, _, terminated, _, info = env.step(MOVE_EAST)
    assert terminated and info["outcome"] == "trap"


@pytest.mark.parametrize("env_id", IDS)
def test_a_replayed_level_may_hold_many_flowers(env_id):
    flowers = [(x, y) for x in range(8) for y in range(8) if (x, y) not in {(0, 0), (1, 0), (7, 7)}]
    env, _ = start(env_id, bomb=(1, 0), flowers=flowers)
    _, reward, terminated, _, info = env.step(MOVE_EAST)
    assert (reward, terminated, info["outcome"]) == (1.0, True, "treasure")


def place(env, x: int, y: int) -> None:
    """Hand-built state: puts the agent on (x, y) without revealing anything."""
    env.unwrapped.batch["agent"][0] = [7 - y, x]


@pytest.mark.parametrize("env_id", IDS)
def test_reveal_on_every_tile_reveals_own_tile_and_in_grid_neighbours_in_scout(env_id):
    for x in range(8):
        for y in range(8):
            if (x, y) == (7, 7):
                continue  # the Bomb's tile: standing there would have ended the episode
            env, _ = start(env_id, bomb=(7, 7))
            place(env, x, y)
            obs, reward, terminated, _, _ = env.step(REVEAL)
            assert (reward, terminated) == (0.0, False)
            got = {(int(c), 7 - int(r)) for r, c in zip(*np.nonzero(revealed(env)), strict=True)}
            expected = {(x, y)}
            if env_id == SCOUT_ID:
                for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                    if 0 <= x + dx < 8 and 0 <= y + dy < 8:
                        expected.add((x + dx, y + dy))
            assert got == expected, (x, y)
            assert obs["position"].tolist() == [x, y]


@pytest.mark.parametrize("env_id", IDS)
def test_every_move_from_every_tile(env_id):
    deltas = {MOVE_NORTH: (0, 1), MOVE_SOUTH: (0, -1), MOVE_WEST: (-1, 0), MOVE_EAST: (1, 0)}
    for x in range(8):
        for y in range(8):
            for action, (dx, dy) in deltas.items():
                env, _ = start(env_id, bomb=(3, 7) if (x, y) != (3, 7) else (4, 7))
                place(env, x, y)
                obs, *_ = env.step(action)
                tx, ty = x + dx, y + dy
                if 0 <= tx < 8 and 0 <= ty < 8:
                    assert obs["position"].tolist() == [tx, ty]
                    assert seen_at(env, tx, ty) != U  # revealed by the move
                else:
                    assert obs["position"].tolist() == [x, y]
                    assert not revealed(env).any()
                assert obs["steps_left"] == 29
