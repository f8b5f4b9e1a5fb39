"""Megacity pictures (placeholder, completed below)."""

from __future__ import annotations

import numpy as np


def render_ansi(batch, i) -> str:
    return "legend: TODO"


def render_rgb(batch, i) -> np.ndarray:
    return np.zeros((120, 120, 3), dtype=np.uint8)
