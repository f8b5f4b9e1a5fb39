"""Pictures: ansi and rgb_array show revealed icons, unseen tiles, the agent and the window,
and never tell a hidden Bomb from a hidden Flower while the episode runs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from it_helpers import IDS, SCOUT_ID, icons

from hiddengrid.envs.inverted_treasure import render
from hiddengrid.envs.inverted_treasure.constants import MOVE_EAST, MOVE_NORTH, REVEAL, WAIT

LEVEL = {"bomb": (2, 1), "flowers": [(1, 0), (5, 5)]}


def played(env_id: str, mode: str, actions, level=LEVEL):
    env = gym.make(env_id, render_mode=mode)
    env.reset(options={"scenario": {"icons": icons(**level)}})
    for a in actions:
        env.step(a)
    return env


def test_ansi_is_north_up_with_a_legend():
    env = played(SCOUT_ID, "ansi", [REVEAL, MOVE_NORTH, REVEAL])
    frame = env.render()
    lines = frame.splitlines()
    assert lines[0].startswith("y7") and lines[7].startswith("y0")
    assert "legend" in frame.lower() and "Bomb icon" in frame and "Flower icon" in frame
    row_y0 = lines[7].replace("[", " ").replace("]", " ").split()[1:]
    row_y1 = lines[6].replace("[", " ").replace("]", " ").split()[1:]
    assert row_y0[:3] == [".", "F", "?"]  # start tile revealed, Flower icon east of it
    assert row_y1[:3] == ["@", ".", "?"]  # the agent on (0, 1)
    assert "(x, y) = (0, 1)" in frame and "steps left 27" in frame
    assert "[" in lines[4] and "[" not in lines[3]  # the window reaches y = 3, not y = 4
    assert "b" not in lines[2] and "f" not in "".join(lines[:8])  # hidden icons stay hidden


def test_ansi_after_the_end_shows_what_was_never_revealed():
    env = played(SCOUT_ID, "ansi", [MOVE_NORTH, MOVE_EAST])  # to (1, 1), next to the Bomb
    frame = env.render()
    assert "?" in frame and "f" not in frame.split("\n")[2]
    _, _, terminated, _, info = env.step(MOVE_EAST)  # onto the Bomb at (2, 1)
    assert terminated and info["outcome"] == "treasure"
    frame = env.render()
    assert "treasure" in frame
    grid = "\n".join(frame.splitlines()[:8])
    assert "f" in grid  # the Flower at (5, 5) was never revealed


@pytest.mark.parametrize("env_id", IDS)
def test_rgb_frame(env_id):
    env = played(env_id, "rgb_array", [MOVE_NORTH])
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] >= 300 and frame.shape[1] >= 300


def tile(frame: np.ndarray, x: int, y: int) -> np.ndarray:
    r, c = 7 - y, x
    return frame[r * render.TILE : (r + 1) * render.TILE, render.LEFT + c * render.TILE :][
        :, : render.TILE
    ]


def has(img: np.ndarray, color) -> bool:
    return bool((img.reshape(-1, 3) == np.array(color, dtype=np.uint8)).all(axis=1).any())


def test_rgb_draws_a_bomb_and_a_flower_as_pictures():
    env = played(SCOUT_ID, "rgb_array", [MOVE_NORTH, MOVE_EAST, REVEAL])  # at (1, 1)
    frame = env.render()
    flower, bomb = tile(frame, 1, 0), tile(frame, 2, 1)
    assert has(flower, render.PETAL) and has(flower, render.FLOWER_CORE)
    assert has(flower, render.STEM)
    assert has(bomb, render.BOMB_BODY) and has(bomb, render.SPARK)
    assert not has(bomb, render.PETAL) and not has(flower, render.BOMB_BODY)
    # A picture, not a letter: many pixels in several colours.
    assert (bomb.reshape(-1, 3) == render.BOMB_BODY).all(axis=1).sum() > 150
    assert has(tile(frame, 1, 1), render.AGENT)
    assert has(tile(frame, 5, 5), render.UNSEEN_TILE)
    assert has(frame, render.WINDOW)


def test_rgb_never_tells_hidden_icons_apart_while_running():
    a = played(SCOUT_ID, "rgb_array", [WAIT], level={"bomb": (6, 6), "flowers": [(5, 5)]})
    b = played(SCOUT_ID, "rgb_array", [WAIT], level={"bomb": (5, 5), "flowers": [(6, 6)]})
    assert np.array_equal(a.render(), b.render())


def test_rgb_tiles_look_the_same_under_both_icons():
    # Revealed tiles share one background colour whatever icon they hold.
    env = played(SCOUT_ID, "rgb_array", [MOVE_NORTH, MOVE_EAST, REVEAL])
    frame = env.render()
    assert tuple(tile(frame, 1, 0)[2, 2]) == render.SEEN_TILE
    assert tuple(tile(frame, 2, 1)[2, 2]) == render.SEEN_TILE


def test_vector_env_renders_every_sub_env():
    venv = gym.make_vec(
        SCOUT_ID, num_envs=3, vectorization_mode="vector_entry_point", render_mode="ansi"
    )
    venv.reset(seed=0)
    frames = venv.render()
    assert len(frames) == 3 and all("legend" in f for f in frames)
