"""Learning-curve pictures from the CSV files a run writes (needs matplotlib)."""

from __future__ import annotations

import csv
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def read_curve(path: str | Path) -> dict[str, np.ndarray]:
    """The CSV's columns as float arrays."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return {}
    return {key: np.array([float(r[key]) for r in rows]) for key in rows[0]}


def smooth(step: np.ndarray, successes: np.ndarray, episodes: np.ndarray, window: int) -> tuple:
    """Episode-weighted success rate over ``window`` updates (a rolling sum of both)."""
    kernel = np.ones(window)
    wins = np.convolve(np.nan_to_num(successes * episodes), kernel, mode="valid")
    eps = np.convolve(episodes, kernel, mode="valid")
    with np.errstate(invalid="ignore", divide="ignore"):
        return step[window - 1 :], np.where(eps > 0, wins / eps, np.nan)


def plot_curves(
    groups: Sequence[str | Path] | dict[str, Sequence[str | Path]],
    out: str | Path,
    title: str = "",
    references: dict[str, float] | None = None,
    window: int = 5,
) -> Path:
    """Success rate against env steps: one line per CSV, or per label (the seeds of a label
    are drawn thin, their mean thick). ``references`` draws horizontal lines (random, oracle)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not isinstance(groups, dict):
        groups = {Path(p).parent.name: [p] for p in groups}
    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=110)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, paths) in enumerate(groups.items()):
        colour = colours[k % len(colours)]
        curves = []
        for p in paths:
            data = read_curve(p)
            if not data:
                continue
            w = max(1, min(window, len(data["step"])))
            x, y = smooth(data["step"], data["success_rate"], data["episodes"], w)
            curves.append((x, y))
            if len(paths) > 1:
                ax.plot(x, y, color=colour, alpha=0.3, linewidth=0.8)
        if curves:
            length = min(len(c[0]) for c in curves)
            with warnings.catch_warnings():  # a stretch without ended episodes is nan: a gap
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean([c[1][:length] for c in curves], axis=0)
            ax.plot(curves[0][0][:length], mean, color=colour, linewidth=1.8, label=label)
    for j, (name, value) in enumerate((references or {}).items()):
        ax.axhline(value, color="grey", linestyle=(0, (4, 2 + 2 * j)), linewidth=1)
        ax.annotate(
            name,
            (0.01, value),
            xycoords=("axes fraction", "data"),
            fontsize=8,
            va="bottom",
            color="dimgrey",
        )
    ax.set_xlabel("env steps")
    ax.set_ylabel("success rate (training episodes)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out
