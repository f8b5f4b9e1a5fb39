"""Pictures: ansi with the field glyphs, hints, slots and cursor; a readable rgb image."""

import gymnasium as gym
import numpy as np
from fc_helpers import ENV_ID, scenario

import hiddengrid  # noqa: F401


def test_ansi_shows_field_hints_slots_cursor_and_legend():
    env = gym.make(ENV_ID, render_mode="ansi")
    sc = scenario("3F0A")
    sc["grid"][8][0] = 1  # a decorative segment
    sc["grid"][8][2] = 2  # and an intersection
    env.reset(options={"scenario": sc})
    env.step(3)
    env.step(16)
    out = env.render()
    assert "legend" in out and "segment" in out and "intersection" in out
    assert "hints" in out and "slots" in out and "cursor 1 (slots 0..3)" in out
    assert " 3 [_]" in out
    assert "3F0A" in out
    row8 = next(line for line in out.splitlines() if line.startswith(" 8 "))
    assert row8.split() == ["8", "-", ".", "+", ".", ".", ".", ".", ".", "."]
    for h in sc["hints"]:
        assert f"={h[4]}" in out


def test_rgb_image_differs_with_the_field_and_the_slots():
    env = gym.make(ENV_ID, render_mode="rgb_array", level=3)
    env.reset(seed=1)
    a = env.render()
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
    assert a.shape[0] >= 300 and a.shape[1] >= 300
    env.step(7)
    b = env.render()
    assert not np.array_equal(a, b)
    env.reset(seed=2)
    c = env.render()
    assert not np.array_equal(a[:380], c[:380])  # another field


def test_vector_render():
    venv = gym.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", render_mode="ansi"
    )
    venv.reset(seed=0)
    frames = venv.render()
    assert len(frames) == 2 and all("legend" in f for f in frames)
