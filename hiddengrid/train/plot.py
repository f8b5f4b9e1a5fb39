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
    """Episode-weighted rate over the last ``window`` updates (fewer at the start, so every
    update keeps its point): a rolling sum of both, divided."""
    wins = np.cumsum(np.nan_to_num(successes * episodes))
    eps = np.cumsum(np.nan_to_num(episodes))
    before_wins = np.concatenate([np.zeros(window), wins])[: len(wins)]
    before_eps = np.concatenate([np.zeros(window), eps])[: len(eps)]
    wins, eps = wins - before_wins, eps - before_eps
    with np.errstate(invalid="ignore", divide="ignore"):
        return step, np.where(eps > 0, wins / eps, np.nan)


def millions(steps: float, _position: object = None) -> str:
    """An env-step tick's label: "0", "0.25M", "10M"."""
    return f"{steps / 1e6:g}M" if steps else "0"


def _steps_in_millions(ax: object) -> None:
    """Tick labels in millions on the env-step axis: matplotlib's own would put a "1e7"
    multiplier at the axis' end, where it runs into the axis label."""
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(millions))  # type: ignore[attr-defined]


def _reference_lines(ax: object, references: dict[str, float]) -> None:
    """Grey lines for the env's own agents, one label per group of lines closer than 4 % of
    the axis' span (their names side by side would otherwise print over each other)."""
    if not references:
        return
    values = sorted((float(v), name) for name, v in references.items())
    for value, _ in values:
        ax.axhline(value, color="grey", linestyle="--", linewidth=0.9)  # type: ignore[attr-defined]
    low, high = ax.get_ylim()  # type: ignore[attr-defined]  # with the lines in it
    span = high - low
    groups: list[list[tuple[float, str]]] = []
    for value, name in values:
        if groups and value - groups[-1][-1][0] < 0.04 * span:
            groups[-1].append((value, name))
        else:
            groups.append([(value, name)])
    for group in groups:
        # the label sits clear of its group's lines: under them in the upper half, over below
        upper = group[-1][0] >= 0.5 * (low + high)
        ax.annotate(  # type: ignore[attr-defined]
            ", ".join(name for _, name in group),
            (0.99, group[0][0] if upper else group[-1][0]),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="top" if upper else "bottom",
            fontsize=7,
            color="dimgrey",
        )


def _draw(ax: object, groups: dict, column: str, window: int, colours: list[str]) -> None:
    for k, (label, paths) in enumerate(groups.items()):
        colour = colours[k % len(colours)]
        curves = []
        for p in paths:
            data = read_curve(p)
            if not data:
                continue
            x, y = smooth(data["step"], data[column], data["episodes"], max(1, window))
            curves.append((x, y))
            if len(paths) > 1:
                ax.plot(x, y, color=colour, alpha=0.3, linewidth=0.8)  # type: ignore[attr-defined]
        if curves:
            length = min(len(c[0]) for c in curves)
            with warnings.catch_warnings():  # a stretch without ended episodes is nan: a gap
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean([c[1][:length] for c in curves], axis=0)
            ax.plot(  # type: ignore[attr-defined]
                curves[0][0][:length], mean, color=colour, linewidth=1.8, label=label
            )


def _same_series(groups: dict, a: str, b: str) -> bool:
    """Whether two columns hold the same numbers in every CSV (a success-only reward)."""
    for paths in groups.values():
        for p in paths:
            data = read_curve(p)
            if data and not np.allclose(data[a], data[b], equal_nan=True):
                return False
    return True


def plot_curves(
    groups: Sequence[str | Path] | dict[str, Sequence[str | Path]],
    out: str | Path,
    title: str = "",
    references: dict[str, float] | None = None,
    return_references: dict[str, float] | None = None,
    window: int = 5,
) -> Path:
    """Success rate (left) and mean return (right) against env steps, episode-weighted over
    the last ``window`` updates: one line per CSV, or per label (the seeds of a label thin,
    their mean thick). ``references`` and ``return_references`` draw the env's own agents as
    lines. Where the return is the success (a reward of 1 for a success only) the right panel
    shows the mean episode length instead of the same numbers on another scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not isinstance(groups, dict):
        groups = {Path(p).parent.name: [p] for p in groups}
    # constrained layout keeps the panels their width whatever the legend's labels hold
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=100, layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    _draw(left, groups, "success_rate", window, colours)
    left.set_ylim(-0.02, 1.02)
    _reference_lines(left, references or {})
    if _same_series(groups, "success_rate", "mean_return"):
        _draw(right, groups, "mean_length", window, colours)
        right.set_ylabel("mean episode length (steps)")
        right.set_ylim(bottom=0)
    else:
        _draw(right, groups, "mean_return", window, colours)
        _reference_lines(right, return_references or {})
        right.set_ylabel("mean return")
    left.set_ylabel(f"success rate (last {window} updates)")
    for ax in (left, right):
        ax.set_xlabel("env steps (training episodes, sampled actions)")
        ax.grid(alpha=0.3)
        _steps_in_millions(ax)
    # below both panels: a run's label (sub-envs, machine, seed) is wider than a panel
    fig.legend(*left.get_legend_handles_labels(), fontsize=9, loc="outside lower center")
    if title:
        fig.suptitle(title, fontsize=10)
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out


def plot_columns(
    csv_path: str | Path,
    columns: Sequence[str],
    out: str | Path,
    title: str = "",
    chance: float | None = None,
    window: int = 5,
) -> Path:
    """One line per column of a run's CSV (rates over its ended episodes, e.g. FieldCipher's
    per-slot accuracy), episode-weighted over the last ``window`` updates, with a grey line at
    ``chance``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = read_curve(csv_path)
    fig, ax = plt.subplots(figsize=(6, 3.8), dpi=100, layout="constrained")
    for column in columns:
        x, y = smooth(data["step"], data[column], data["episodes"], max(1, window))
        ax.plot(x, y, linewidth=1.5, label=column)
    ax.set_ylim(-0.02, 1.02)
    if chance is not None:
        _reference_lines(ax, {"chance": chance})
    ax.set_xlabel("env steps (training episodes, sampled actions)")
    ax.set_ylabel(f"share of ended episodes (last {window} updates)")
    ax.grid(alpha=0.3)
    _steps_in_millions(ax)
    ax.legend(fontsize=8, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9)
    out = Path(out)
    fig.savefig(out)
    plt.close(fig)
    return out
