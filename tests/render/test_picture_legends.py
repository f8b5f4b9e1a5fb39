"""Every picture explains what it shows: a legend entry for each kind of mark, and status lines
that fit the picture's width."""

from __future__ import annotations

import numpy as np
from helpers import make

from hiddengrid.envs.anomaly_mapping import render as am_render
from hiddengrid.envs.field_cipher import render as fc_render
from hiddengrid.envs.squad_recon import render as sr_render
from hiddengrid.render import draw


def labels(entries) -> list[str]:
    return [label for _, label in entries]


def test_anomaly_mapping_legend_names_every_level_colour_and_mark():
    text = " ".join(labels(am_render.LEGEND_ENTRIES))
    for word in ("3", "2", "1", "0 FIELD LEVEL", "WALL", "NODE", "AGENT", "SENSOR"):
        assert word in text
    env = make("hiddengrid/AnomalyMapping-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    # The legend row holds the level colours themselves.
    bar = frame[15 * am_render.TILE + 24 :].reshape(-1, 3)
    for colour in am_render.LEVEL_COLORS[1:]:
        assert (bar == colour).all(axis=1).any()


def test_squad_recon_legend_tells_squad_colours_from_strength_numbers():
    text = labels(sr_render.LEGEND_ENTRIES)
    for k in (1, 2, 3):
        assert f"SQUAD {k}" in text
    assert "NUMBER = STRENGTH" in text and "CAMP NOT SEEN" in text and "ELIMINATED" in text
    env = make("hiddengrid/SquadRecon-v0", render_mode="rgb_array")
    env.reset(seed=0)
    bar = env.render()[15 * sr_render.TILE :].reshape(-1, 3)
    for colour in sr_render.SQUAD_RGB:
        assert (bar == colour).all(axis=1).any()


def test_field_cipher_status_fits_the_picture_at_the_end():
    env = make("hiddengrid/FieldCipher-v0", render_mode="rgb_array")
    env.reset(seed=0)
    for action in (10, 16, 3, 16, 4, 16, 5, 18):
        env.step(action)
    base = env.unwrapped
    frame = env.render()
    lines = fc_render._status_lines(base.batch, 0)
    assert len(lines) == 2 and "correct" in lines[1]
    for line in lines:
        assert fc_render.MARGIN + draw.text_width(line, 2) <= frame.shape[1]
    assert "MESSAGE" in " ".join(labels(fc_render._legend_entries()))


def test_legend_wraps_inside_the_picture():
    img = draw.canvas(80, 120, (255, 255, 255))
    entries = [(draw.swatch((200, 0, 0)), "LONG LABEL")] * 4
    bottom = draw.legend(img, 0, 4, entries)
    assert bottom > 20  # it took more than one row
    assert (img[:, -2:] == 255).all()  # nothing drawn past the right edge
    assert np.any(img != 255)


def test_anomaly_mapping_sensor_window_stays_off_the_status_and_legend():
    """With the agent on an edge row or column the window is clipped to the lab, so nothing
    green is drawn below the grid but the legend's own SENSOR swatch."""
    env = make("hiddengrid/AnomalyMapping-v0", render_mode="rgb_array")
    env.reset(seed=1_000_005)
    batch = env.unwrapped.batch
    size = am_render.GRID_SIZE * am_render.TILE
    for r, c in ((am_render.GRID_SIZE - 1, 3), (0, 0), (7, am_render.GRID_SIZE - 1)):
        batch["agent"][0] = (r, c)
        frame = am_render.render_rgb(batch, 0)
        status = frame[size : size + 28].reshape(-1, 3)  # the status line, above the legend
        assert not (status == am_render.WINDOW).all(axis=1).any(), (r, c)
        window = frame[:size, :size].reshape(-1, 3)
        assert (window == am_render.WINDOW).all(axis=1).any()  # the window is still drawn
