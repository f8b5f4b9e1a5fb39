"""The page's level pictures are what ``make_docs`` draws, and its caption names the seed and
message those pictures show."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hiddengrid.design.field_cipher.make_docs import PICTURE_LEVELS, PICTURE_SEED, level_picture

Image = pytest.importorskip("PIL.Image")

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "hiddengrid" / "envs" / "field_cipher" / "README.md"


def caption() -> tuple[int, str]:
    found = re.search(r"Same seed \((\d+)\), same message `([0-9A-F]{4})`", PAGE.read_text())
    assert found, "the page's caption of the level pictures is missing"
    return int(found.group(1)), found.group(2)


def test_the_caption_names_the_seed_and_the_message_it_draws() -> None:
    seed, message = caption()
    assert seed == PICTURE_SEED
    for level in PICTURE_LEVELS:
        _, drawn = level_picture(level, seed)
        assert drawn == message


@pytest.mark.parametrize("level", PICTURE_LEVELS)
def test_the_pictures_are_what_the_script_draws(level: int) -> None:
    shown = np.asarray(Image.open(ROOT / "docs" / "images" / f"field_cipher_level{level}.png"))
    frame, _ = level_picture(level)
    assert shown.shape == frame.shape
    assert np.array_equal(shown[..., :3], frame)


def test_another_seed_draws_another_picture() -> None:
    """The comparison above can fail: a different seed gives a different frame and message."""
    frame, message = level_picture(0, PICTURE_SEED + 1)
    shown = np.asarray(Image.open(ROOT / "docs" / "images" / "field_cipher_level0.png"))
    assert message != caption()[1]
    assert not np.array_equal(shown[..., :3], frame)


def test_the_block_layout_picture_is_what_the_script_draws() -> None:
    from hiddengrid.design.field_cipher.make_docs import block_layout

    shown = np.asarray(Image.open(ROOT / "docs" / "images" / "field_cipher_blocks.png"))
    assert np.array_equal(shown[..., :3], block_layout())
