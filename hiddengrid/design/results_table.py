"""Every speed and results table of the docs, written from the files the commands wrote.

    hiddengrid bench --json docs/bench/bench.json     # speed
    hiddengrid eval --json docs/bench/eval.json       # the agents' results
    python -m hiddengrid.design.results_table         # rewrites every table below
                                                      # (run from the repository's root)

A table lives in a page between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->``; the command
rewrites every such block of every page in :data:`PAGES` from ``docs/bench/bench.json``,
``docs/bench/eval.json`` and ``docs/baselines/results.json`` (the PPO checkpoints' scores, which
``python -m hiddengrid.train.report`` wrote). ``--check`` changes nothing and exits 1 naming
the pages that differ; ``tests/test_docs_tables.py`` runs the same check, so a figure is never
retyped. The tables:

- ``results``: the README's table of every agent on every env; on an env page, that env's rows
  (with the outcomes).
- ``speed``: the README's summary of ``hiddengrid bench``; on an env page, every configuration
  ``hiddengrid bench`` measured for that env.
- ``baselines``: the README's PPO baselines; ``ppo`` on an env page: those of that env beside
  the env's own agents from ``eval.json`` (on the training page: every env's).
- ``v2``: trainer v2's rows (plain PPO and the named recipes) beside the env's own agents on
  the same episodes and env arguments, from ``docs/baselines/trainer_v2/results.json``
  (``python -m hiddengrid.train.baselines --v2`` wrote it); on an env page, that env's rows.
  Where a checkpoint was also scored with ``--greedy``, two more columns give that score; where
  it was scored with ``--held-out`` (episodes from seed 5,000,000, which no training run met),
  two more give that one.
- ``v2grid``: how much of the baseline grid (id x feed-forward, recurrent, recipe) the ``v2``
  rows cover, each budget's seeds and success rates in one cell.
- ``pufferl``: ``hiddengrid train`` against PufferLib's PuffeRL at equal env steps, from
  ``docs/baselines/trainer_v2/versus_pufferl.json`` (``python -m
  hiddengrid.train.versus_pufferl`` wrote it); ``vtrace``: what PuffeRL's remaining
  differences are worth on top of our defaults, from ``docs/baselines/trainer_v2/
  ablation_vtrace.json`` (``python -m hiddengrid.train.ablation`` wrote it).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hiddengrid.evaluate import format_percent

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path("docs/bench/bench.json")
EVAL = Path("docs/bench/eval.json")
BASELINES = Path("docs/baselines/results.json")
V2 = Path("docs/baselines/trainer_v2/results.json")
VERSUS = Path("docs/baselines/trainer_v2/versus_pufferl.json")
VTRACE = Path("docs/baselines/trainer_v2/ablation_vtrace.json")
# The README's markers; an env page uses the same names for its own tables.
BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

# What each agent is (the column "kind"); an agent not named here is a reference.
KINDS = {
    "random": "floor",
    "heuristic": "fair heuristic",
    "oracle": "oracle (reads the scenario)",
    "exact-position": "non-fair reference (told its position)",
}
# The README's speed summary: native sizes shown, and the size of the thread comparison.
SPEED_SIZES = (64, 4096)
THREADS_N = 4096

Rows = list[dict[str, Any]]


def _short(env_id: str) -> str:
    return env_id.split("/", 1)[1]


def _count(value: float | None, fmt: str = ",.0f") -> str:
    return "-" if value is None else format(value, fmt)


def _times(value: float | None, fmt: str = ".1f") -> str:
    return "-" if value is None else f"{value:{fmt}}x"


# --- results (hiddengrid eval --json) ---------------------------------------------------------


def _label(row: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v}" for k, v in row.get("env_kwargs", {}).items())
    return f"`{_short(row['env'])}`" + (f" ({args})" if args else "")


def _interval(ci: Sequence[float]) -> str:
    return f"[{format_percent(ci[0])}, {format_percent(ci[1])}]"


def render(rows: Rows) -> str:
    """The README's markdown table of ``hiddengrid eval --json`` rows."""
    lines = [
        "| env | agent | kind | success | 95 % interval | mean return | mean length |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {_label(row)} | {row['agent']} | {KINDS.get(row['agent'], 'reference')} | "
            f"{format_percent(row['success_rate'])} | {_interval(row['ci95'])} | "
            f"{row['mean_return']:.3f} | {row['mean_length']:.2f} |"
        )
    return "\n".join(lines)


def render_env_results(rows: Rows, env_ids: Sequence[str]) -> str:
    """An env page's table: its agents' rows, with every outcome counted."""
    rows = [r for r in rows if r["env"] in env_ids]
    if not rows:
        raise ValueError(f"eval.json has no rows for {', '.join(env_ids)}")
    several = len(env_ids) > 1
    head = ["env"] if several else []
    head += ["agent", "kind", "success", "95 % interval", "mean return", "mean length"]
    head += ["outcomes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        outcomes = ", ".join(f"{name} {n:,}" for name, n in row["outcomes"].items())
        cells = [_label(row)] if several else []
        cells += [
            row["agent"],
            KINDS.get(row["agent"], "reference"),
            format_percent(row["success_rate"]),
            _interval(row["ci95"]),
            f"{row['mean_return']:.3f}",
            f"{row['mean_length']:.2f}",
            outcomes,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- PPO baselines (docs/baselines/results.json) ----------------------------------------------


def _ppo_rows(baselines: Rows, env_ids: Sequence[str]) -> Rows:
    return [r for r in baselines if r["env"] in env_ids and r["agent"].startswith("PPO ")]


def render_baselines(baselines: Rows) -> str:
    """The README's table of the published PPO baselines."""
    lines = [
        "| env | PPO | env steps x seeds | success | 95 % interval |",
        "|---|---|---|---|---|",
    ]
    rows = sorted(_ppo_rows(baselines, [r["env"] for r in baselines]), key=lambda r: r["env"])
    for r in rows:
        lines.append(
            f"| `{_short(r['env'])}` | {r['agent'].removeprefix('PPO ')} | "
            f"{r['steps'] / 1e6:.1f}M x {len(r['per_seed'])} | {format_percent(r['success'])} | "
            f"{_interval(r['ci95'])} |"
        )
    return "\n".join(lines)


def render_ppo(baselines: Rows, rows: Rows, env_ids: Sequence[str]) -> str:
    """An env page's PPO table: the env's own agents (from ``eval.json``, the README's figures)
    above the checkpoints' scores on the same episodes."""
    lines = [
        "| env | agent | env steps | success | 95 % interval | per seed |",
        "|---|---|---|---|---|---|",
    ]
    for env_id in env_ids:
        for r in rows:
            if r["env"] == env_id and not r.get("env_kwargs"):
                lines.append(
                    f"| `{_short(env_id)}` | {r['agent']} |  | "
                    f"{format_percent(r['success_rate'])} | {_interval(r['ci95'])} |  |"
                )
        for r in _ppo_rows(baselines, [env_id]):
            seeds = ", ".join(format_percent(s) for s in r["per_seed"])
            lines.append(
                f"| `{_short(env_id)}` | {r['agent']} | {r['steps'] / 1e6:.1f}M | "
                f"{format_percent(r['success'])} | {_interval(r['ci95'])} | {seeds} |"
            )
    return "\n".join(lines)


# --- trainer v2 (python -m hiddengrid.train.baselines --v2) -------------------------------------


def _steps(row: dict[str, Any]) -> str:
    if "steps" not in row:
        return ""
    if row.get("imitation_steps"):
        return (
            f"{row['steps'] / 1e6:.2f}M ({row['imitation_steps'] / 1e6:.2f}M cloning + "
            f"{row['ppo_steps'] / 1e6:.2f}M PPO)"
        )
    return f"{row['steps'] / 1e6:.2f}M"


def _wall(row: dict[str, Any]) -> str:
    seconds = row.get("train_wall_seconds")
    return "" if seconds is None else f"{seconds / 60:.1f} min"


def _small_percent(value: float) -> str:
    """Two decimals below 1 % (trained policies near the floor: 0.05 % is not "0.1%")."""
    return f"{value:.2%}" if 0 < value < 0.01 else format_percent(value)


def _env_args(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(row.get("env_kwargs", {}).items()))


# A v2 row's optional scores: the field prefix in results.json and the column's name.
EXTRA_SCORES = (("greedy", "greedy"), ("heldout", "held-out episodes"))


def render_v2(v2: Rows, env_ids: Sequence[str] | None = None) -> str:
    """Trainer v2's table: every row of ``results.json`` (of ``env_ids`` only, without the env
    column, when given), in the file's order grouped by env and env arguments."""
    with_env = env_ids is None
    head = ["env"] if with_env else []
    head += ["env args", "agent", "env steps", "training time", "success", "95 % interval"]
    head += ["mean return"]
    rows = [r for r in v2 if with_env or r["env"] in env_ids]
    # Scores a checkpoint may also have: its most likely actions (hiddengrid eval --greedy) and
    # episodes no training run met (--seed 5000000); columns only where some row has them.
    extras = [(p, name) for p, name in EXTRA_SCORES if any(f"{p}_success" in r for r in rows)]
    for _, name in extras:
        head += [f"{name}: success", f"{name}: 95 % interval"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    groups: dict[tuple[str, str], Rows] = {}
    for r in rows:
        args = _env_args(r)
        groups.setdefault((r["env"], args), []).append(r)
    for (env_id, args), group in groups.items():
        for r in sorted(group, key=lambda r: "steps" in r):  # the env's own agents first
            cells = [f"`{_short(env_id)}`"] if with_env else []
            low, high = (_small_percent(b) for b in r["ci95"])
            agent = r["agent"] + (f", seed {r['seed']}" if "seed" in r else "")
            cells += [args, agent, _steps(r), _wall(r), _small_percent(r["success"])]
            cells += [f"[{low}, {high}]", f"{r['mean_return']:.3g}"]
            for p, _ in extras:
                if f"{p}_success" in r:
                    e_low, e_high = (_small_percent(b) for b in r[f"{p}_ci95"])
                    cells += [_small_percent(r[f"{p}_success"]), f"[{e_low}, {e_high}]"]
                else:
                    cells += ["", ""]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


GRID_COLUMNS = ("PPO feed-forward", "PPO recurrent", "recipe")
QUALIFIER = re.compile(r"[\d,]+ sub-envs$|on |stopped at ")


def render_v2_grid(v2: Rows) -> str:
    """How much of the baseline grid (every id and env arguments x plain feed-forward PPO,
    plain recurrent PPO, the recipes) trainer v2's table covers: per cell, each budget's seeds
    and their success rates on episodes 0..9,999, from the same rows as :func:`render_v2`."""
    cells: dict[tuple[str, str], dict[str, dict[str, list[dict]]]] = {}
    for r in v2:
        args = _env_args(r)
        group = cells.setdefault((r["env"], args), {c: {} for c in GRID_COLUMNS})
        if "steps" not in r:  # the env's own agents are the other table's
            continue
        # a curriculum stage names the seed of the run it started from; one entry for all seeds
        agent = re.sub(r"-s\d+$", "", r["agent"])
        column = next(c for c in GRID_COLUMNS if agent.startswith(c))
        what = agent.removeprefix(column).strip(" ,").removeprefix("(").removesuffix(")")
        # how a run differs from the others of its cell (sub-envs, machine, an early stop)
        # follows its budget, in brackets
        parts = what.split(", ") if what else []
        notes = [p for p in parts if QUALIFIER.match(p)]
        head = ", ".join(p for p in parts if p not in notes)
        budget = f"{head} {r['steps'] / 1e6:.1f}M".strip()
        if notes:
            budget += f" ({'; '.join(notes)})"
        group[column].setdefault(budget, []).append(r)
    lines = ["| env | env args | " + " | ".join(GRID_COLUMNS) + " |", "|---|---|---|---|---|"]
    for (env_id, args), group in cells.items():
        texts = []
        for column in GRID_COLUMNS:
            parts = []
            for budget, runs in group[column].items():
                runs = sorted(runs, key=lambda r: r["seed"])
                seeds = ", ".join(str(r["seed"]) for r in runs)
                rates = " / ".join(_small_percent(r["success"]) for r in runs)
                parts.append(f"{budget}, seed{'s' * (len(runs) > 1)} {seeds}: {rates}")
            texts.append("<br>".join(parts) or "none")
        lines.append(f"| `{_short(env_id)}` | {args} | " + " | ".join(texts) + " |")
    return "\n".join(lines)


def render_versus_pufferl(rows: Rows) -> str:
    """``hiddengrid train`` against PuffeRL at equal env steps (the file
    ``python -m hiddengrid.train.versus_pufferl`` wrote): per id and budget, each trainer's
    held-out success per training seed and its mean, ours before V-trace was on by default
    (its rows without ``vtrace_clip``, or with 0), the mean returns, and the steps/s."""
    groups: dict[tuple[str, int], dict[str, Rows]] = {}
    for r in rows:
        kind = r["trainer"]
        if kind == "hiddengrid":
            kind = "ours" if r.get("vtrace_clip", 0.0) > 0 else "ours_off"
        group = groups.setdefault((r["env_id"], r["budget"]), {})
        group.setdefault(kind, []).append(r)
    head = ["env", "env steps", "seeds", "`hiddengrid train`: success per seed", "mean"]
    head += ["PuffeRL: success per seed", "mean", "ours, V-trace off: mean"]
    head += ["mean return (ours / PuffeRL)", "steps/s (ours / PuffeRL)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def mean(runs: Rows, key: str) -> float:
        return sum(r[key] for r in runs) / len(runs)

    for (env_id, budget), group in groups.items():
        ours, theirs, off = (
            sorted(group.get(t, []), key=lambda r: r["seed"])
            for t in ("ours", "pufferl", "ours_off")
        )
        seeds = [r["seed"] for r in theirs]
        if not ours or [r["seed"] for r in ours] != seeds or [r["seed"] for r in off] != seeds:
            raise ValueError(f"{env_id} at {budget:,} steps: the trainers ran other seeds")
        cells = [f"`{_short(env_id)}`", f"{budget:,}", ", ".join(str(r["seed"]) for r in ours)]
        for runs in (ours, theirs):
            cells.append(" / ".join(_small_percent(r["success"]) for r in runs))
            cells.append(f"**{_small_percent(mean(runs, 'success'))}**")
        cells.append(_small_percent(mean(off, "success")))
        cells.append(f"{mean(ours, 'mean_return'):.3g} / {mean(theirs, 'mean_return'):.3g}")
        speed = mean(ours, "steps_per_second"), mean(theirs, "steps_per_second")
        cells.append(f"{speed[0]:,.0f} / {speed[1]:,.0f} ({speed[0] / speed[1]:.2f}x)")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_ablation(rows: Rows) -> str:
    """An ablation file (``python -m hiddengrid.train.ablation`` wrote it): per env, budget
    and variant (and env seeds: runs with ``--new-env-seeds`` apart), the success per training
    seed and the mean."""
    groups: dict[tuple[str, int, str], Rows] = {}
    for r in rows:
        note = "" if r.get("legacy_env_seeds", True) else ", new env seeds"
        groups.setdefault((r["env_id"], r["steps"], f"`{r['variant']}`{note}"), []).append(r)
    lines = ["| env | env steps | variant | seeds | success per seed | mean |"]
    lines.append("|---|---|---|---|---|---|")
    for (env_id, steps, variant), runs in groups.items():
        runs = sorted(runs, key=lambda r: r["seed"])
        per = " / ".join(_small_percent(r["success"]) for r in runs)
        mean = sum(r["success"] for r in runs) / len(runs)
        seeds = ", ".join(str(r["seed"]) for r in runs)
        cells = [f"`{_short(env_id)}`", f"{steps:,}", variant, seeds, per]
        lines.append("| " + " | ".join(cells) + f" | **{_small_percent(mean)}** |")
    return "\n".join(lines)


# --- speed (hiddengrid bench --json) ----------------------------------------------------------


def _find(rows: Rows, env_id: str, config: str, threads: int | None = None) -> dict | None:
    for row in rows:
        same = row["env_id"] == env_id and row["config"] == config
        if same and (threads is None or row["num_threads"] == threads):
            return row
    return None


def _rate(row: dict | None) -> str:
    return _count(None if row is None else row["steps_per_second"])


def render_speed(bench: Rows) -> str:
    """The README's speed summary: per env the single env, its ratio to MiniGrid, Sync x8, the
    native env at :data:`SPEED_SIZES`, one thread against every core at :data:`THREADS_N`."""
    threaded = [
        r for r in bench if r["config"] == f"threads N={THREADS_N}" and r["num_threads"] != 1
    ]
    most = max((r["num_threads"] for r in threaded), default=None)
    head = [
        "env",
        "single (`gymnasium.make`)",
        "x MiniGrid",
        "SyncVectorEnv x8",
        *(f"native N={n}" for n in SPEED_SIZES[:-1]),
        f"native N={THREADS_N}, 1 thread",
        f"N={THREADS_N}, {most} threads" if most else f"N={THREADS_N}, every core",
        "x 1 thread",
        f"x Sync at N={SPEED_SIZES[-1]}",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for env_id in dict.fromkeys(r["env_id"] for r in bench):
        single = _find(bench, env_id, "gymnasium.make (single)")
        one = _find(bench, env_id, f"threads N={THREADS_N}", 1)
        every = _find(bench, env_id, f"threads N={THREADS_N}", most) if most else None
        last = _find(bench, env_id, f"native vector N={SPEED_SIZES[-1]}")
        cells = [
            f"`{_short(env_id)}`",
            _rate(single),
            _times(single and single["ratio_to_minigrid"]),
            _rate(_find(bench, env_id, "SyncVectorEnv x8")),
            *(_rate(_find(bench, env_id, f"native vector N={n}")) for n in SPEED_SIZES[:-1]),
            _rate(one or _find(bench, env_id, f"native vector N={THREADS_N}", 1)),
            _rate(every),
            _count(every and every["ratio_to_one_thread"], ".2f"),
            _times(last and last["ratio_to_sync"], ".0f"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_env_speed(bench: Rows, env_ids: Sequence[str]) -> str:
    """An env page's speed table: every configuration ``hiddengrid bench`` measured for it."""
    rows = [r for r in bench if r["env_id"] in env_ids]
    if not rows:
        raise ValueError(f"bench.json has no rows for {', '.join(env_ids)}")
    several = len(env_ids) > 1
    # Columns that only some configurations have appear where at least one row has them.
    optional = [
        ("x 1 thread", "ratio_to_one_thread", ".2f"),
        ("x MiniGrid", "ratio_to_minigrid", ".1f"),
        ("x C anchor", "ratio_to_c_anchor", ".2f"),
        ("spread", "spread", ".0%"),
    ]
    optional = [c for c in optional if any(r.get(c[1]) is not None for r in rows)]
    head = ["env"] if several else []
    head += ["configuration", "threads", "steps/s", "x SyncVectorEnv", "reset (us per sub-env)"]
    head += [name for name, _, _ in optional]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        skipped = r.get("note")
        cells = [f"`{_short(r['env_id'])}`"] if several else []
        cells += [
            r["config"],
            _count(r["num_threads"], "d"),
            skipped or _count(r["steps_per_second"]),
            _count(r["ratio_to_sync"], ".1f"),
            _count(r["reset_us"], ".2f"),
        ]
        cells += [_count(r.get(key), fmt) for _, key, fmt in optional]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- the pages --------------------------------------------------------------------------------

Sources = dict[str, Rows]
Renderer = Callable[[Sources], str]


def _env_page(env_ids: Sequence[str], results: bool, v2: bool = False) -> dict[str, Renderer]:
    tables: dict[str, Renderer] = {
        "speed": lambda s: render_env_speed(s["bench"], env_ids),
        "ppo": lambda s: render_ppo(s["baselines"], s["eval"], env_ids),
    }
    if v2:
        tables["v2"] = lambda s: render_v2(s["v2"], env_ids)
    if results:
        tables["results"] = lambda s: render_env_results(s["eval"], env_ids)
    return tables


ENVS = "hiddengrid/envs"
# Every page with generated tables, and what each of its tables is. FieldCipher's and
# Megacity's agents are scored per level on their pages (their make_docs and redteam scripts,
# the README's level is one of those rows), so they carry no ``results`` table of their own.
PAGES: dict[str, dict[str, Renderer]] = {
    "README.md": {
        "results": lambda s: render(s["eval"]),
        "speed": lambda s: render_speed(s["bench"]),
        "baselines": lambda s: render_baselines(s["baselines"]),
        "v2": lambda s: render_v2(s["v2"]),
        "v2grid": lambda s: render_v2_grid(s["v2"]),
    },
    f"{ENVS}/anomaly_mapping/README.md": _env_page(["hiddengrid/AnomalyMapping-v0"], True, v2=True),
    f"{ENVS}/field_cipher/README.md": _env_page(["hiddengrid/FieldCipher-v0"], False, v2=True),
    f"{ENVS}/inverted_treasure/README.md": _env_page(
        ["hiddengrid/InvertedTreasure-v0", "hiddengrid/InvertedTreasure-Scout-v0"], True, v2=True
    ),
    f"{ENVS}/squad_recon/README.md": _env_page(["hiddengrid/SquadRecon-v0"], True, v2=True),
    f"{ENVS}/megacity/README.md": _env_page(["hiddengrid/Megacity-v0"], False, v2=True),
    "docs/training.md": {
        "ppo": lambda s: render_ppo(
            s["baselines"], s["eval"], sorted({r["env"] for r in s["baselines"]})
        ),
        "v2": lambda s: render_v2(s["v2"]),
        "v2grid": lambda s: render_v2_grid(s["v2"]),
        "pufferl": lambda s: render_versus_pufferl(s["versus"]),
        "vtrace": lambda s: render_ablation(s["vtrace"]),
    },
}


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def replace_table(page: str, table: str, name: str = "results") -> str:
    """``page`` with the block between ``name``'s markers replaced by ``table``."""
    begin, end = markers(name)
    if page.count(begin) != 1 or page.count(end) != 1:
        raise ValueError(f"the page must hold {begin} and {end} once each")
    head, rest = page.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{table}\n{end}{tail}"


def load_sources(root: Path = ROOT) -> Sources:
    return {
        "bench": json.loads((root / BENCH).read_text()),
        "eval": json.loads((root / EVAL).read_text()),
        "baselines": json.loads((root / BASELINES).read_text()),
        "v2": json.loads((root / V2).read_text())["rows"],
        "versus": json.loads((root / VERSUS).read_text()),
        "vtrace": json.loads((root / VTRACE).read_text()),
    }


def rendered_pages(sources: Sources, root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """Each page's text as it stands and as the sources render it."""
    pages = {}
    for page, tables in PAGES.items():
        text = (root / page).read_text()
        new = text
        for name, renderer in tables.items():
            try:
                new = replace_table(new, renderer(sources), name)
            except ValueError as error:
                raise ValueError(f"{page}: {error}") from None
        pages[page] = (text, new)
    return pages


def main(argv: list[str]) -> int:
    usage = "usage: python -m hiddengrid.design.results_table [--check]"
    if argv not in ([], ["--check"]):
        print(f"{usage} (got: {' '.join(argv)[:80]})", file=sys.stderr)
        return 2
    root = Path.cwd()  # the repository's root: the pages and docs/ are read from here
    try:
        pages = rendered_pages(load_sources(root), root)
    except (OSError, ValueError, KeyError) as error:
        print(f"results_table: {error}", file=sys.stderr)
        return 2
    stale = [page for page, (old, new) in pages.items() if old != new]
    if argv == ["--check"]:
        for page in stale:
            print(f"{page}: its tables differ from docs/bench and docs/baselines", file=sys.stderr)
        return 1 if stale else 0
    for page in stale:
        (root / page).write_text(pages[page][1])
        print(f"rewrote the tables of {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
