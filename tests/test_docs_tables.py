"""Every speed and results table of the docs is rendered from the files the commands wrote
(``docs/bench/bench.json``, ``docs/bench/eval.json``, ``docs/baselines/results.json``), never
retyped; pages whose own scripts measure other figures agree with the README where they measure
the same quantity."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hiddengrid.design.results_table import (
    BEGIN,
    END,
    PAGES,
    load_sources,
    render,
    render_ablation,
    render_env_speed,
    render_v2,
    render_versus_pufferl,
    rendered_pages,
    replace_table,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_holds_what_its_sources_render(page: str) -> None:
    old, new = rendered_pages(load_sources(ROOT), ROOT)[page]
    assert old == new, f"run python -m hiddengrid.design.results_table to refresh {page}"


def test_a_changed_figure_is_caught() -> None:
    rows = json.loads((ROOT / "docs" / "bench" / "eval.json").read_text())
    readme = (ROOT / "README.md").read_text()
    rows[0]["success_rate"] += 0.01
    assert replace_table(readme, render(rows)) != readme


def test_a_changed_speed_is_caught_on_the_env_page() -> None:
    sources = load_sources(ROOT)
    page = "hiddengrid/envs/anomaly_mapping/README.md"
    sources["bench"][0]["steps_per_second"] *= 2
    old, new = rendered_pages(sources, ROOT)[page]
    assert old != new


def test_every_env_and_every_speed_row_is_on_a_page() -> None:
    sources = load_sources(ROOT)
    shown = "".join((ROOT / page).read_text() for page in PAGES)
    for row in sources["bench"]:
        assert f"{row['steps_per_second']:,.0f}" in shown, row
    assert "| `SquadRecon-v0` | random |" in shown


def test_an_env_page_speed_table_shows_spread_when_the_bench_wrote_it() -> None:
    rows = [dict(r, spread=0.3) for r in load_sources(ROOT)["bench"]][:2]
    table = render_env_speed(rows, [rows[0]["env_id"]])
    assert table.splitlines()[0].endswith("| spread |")
    assert table.splitlines()[2].endswith("| 30% |")


def test_the_table_needs_its_markers() -> None:
    with pytest.raises(ValueError, match="once each"):
        replace_table("no markers", "| x |")
    assert replace_table(f"a\n{BEGIN}\nold\n{END}\nb", "new") == f"a\n{BEGIN}\nnew\n{END}\nb"
    with pytest.raises(ValueError, match="speed:begin"):
        replace_table(f"a\n{BEGIN}\nold\n{END}\nb", "new", "speed")


def test_the_command_checks_and_refuses_bad_arguments() -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "hiddengrid.design.results_table", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )

    assert run("--check").returncode == 0
    bad = run("--frobnicate")
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "usage" in bad.stderr
    assert "Traceback" not in bad.stderr


def _eval_row(env: str, agent: str) -> dict:
    rows = json.loads((ROOT / "docs" / "bench" / "eval.json").read_text())
    return next(r for r in rows if r["env"] == f"hiddengrid/{env}" and r["agent"] == agent)


def test_megacity_page_agrees_with_the_readme_at_its_default_level() -> None:
    """The calibration's level-3 rows of the agents are the same episodes as ``hiddengrid
    eval``'s: the same wins and the same mean return."""
    page = (ROOT / "hiddengrid" / "envs" / "megacity" / "README.md").read_text()
    level3 = page.split("#### Level 3", 1)[1].split("\n\n", 2)[1]
    for agent in ("random", "heuristic", "oracle"):
        row = _eval_row("Megacity-v0", agent)
        line = next(ln for ln in level3.splitlines() if ln.startswith(f"| {agent} | agent |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[2] == f"{row['outcomes'].get('success', 0)} / {row['episodes']}"
        assert cells[5] == f"{row['mean_return']:.1f}"


def test_field_cipher_page_agrees_with_the_readme_at_level_0() -> None:
    page = (ROOT / "hiddengrid" / "envs" / "field_cipher" / "README.md").read_text()
    for agent, label in (("random", "random (floor)"), ("heuristic", "heuristic, fair")):
        row = _eval_row("FieldCipher-v0", agent)
        line = next(ln for ln in page.splitlines() if ln.startswith(f"| 0 | {label}"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[2] == f"{row['success_rate']:.4f}"
        assert cells[4] == f"{row['mean_return']:.4f}"
        assert cells[5] == f"{row['mean_length']:.2f}"


def test_an_env_page_speed_table_shows_the_c_anchor_and_a_skipped_row() -> None:
    base = {"env_id": "hiddengrid/AnomalyMapping-v0", "reset_us": None, "ratio_to_sync": None}
    base |= {"ratio_to_minigrid": None, "ratio_to_one_thread": None}
    rows = [
        base
        | {"config": "C anchor N=4096", "steps_per_second": 2e7, "num_threads": 1}
        | {"ratio_to_c_anchor": 1.0},
        base
        | {"config": "step_all N=4096", "steps_per_second": 1.86e7, "num_threads": 1}
        | {"ratio_to_c_anchor": 0.93},
    ]
    table = render_env_speed(rows, ["hiddengrid/AnomalyMapping-v0"]).splitlines()
    assert table[0].endswith("| x C anchor |") and table[3].endswith("| 0.93 |")
    skipped = base | {"config": "C anchor N=4096", "steps_per_second": 0.0, "num_threads": 1}
    skipped |= {"note": "skipped: no C compiler"}
    line = render_env_speed([skipped], ["hiddengrid/AnomalyMapping-v0"]).splitlines()[2]
    assert "| skipped: no C compiler |" in line and "skipped: skipped" not in line


def test_trainer_v2_rows_are_on_the_pages_of_their_envs() -> None:
    v2 = load_sources(ROOT)["v2"]
    runs = [r for r in v2 if "run" in r]
    assert runs, "trainer v2's results hold no trained row"
    for page, tables in PAGES.items():
        if "v2" not in tables:
            continue
        text = (ROOT / page).read_text()
        on_page = [r for r in runs if f"{r['steps'] / 1e6:.2f}M" in text]
        assert on_page, f"{page} shows none of trainer v2's rows"


def test_every_published_v2_row_is_scored_on_held_out_episodes_and_ships_its_checkpoint() -> None:
    pytest.importorskip("torch")  # the rows' module is the trainer's
    from hiddengrid.train.baselines import HELD_OUT_SEED, V2_ROWS

    names = {row.name for row in V2_ROWS}
    for r in load_sources(ROOT)["v2"]:
        if "run" not in r:
            continue
        assert r["run"] in names, f"{r['run']} is published but is no row of V2_ROWS"
        assert (ROOT / r["checkpoint"]).is_file(), f"{r['run']}: no checkpoint"
        episodes = r["episodes"]
        assert r.get("heldout_seeds") == f"{HELD_OUT_SEED}..{HELD_OUT_SEED + episodes - 1}", (
            f"{r['run']} is not scored on held-out episodes "
            "(python -m hiddengrid.train.baselines --v2 --score-only --held-out --only NAME)"
        )


def test_trainer_v2_table_puts_the_envs_agents_first_and_keeps_small_rates_readable() -> None:
    rows = [
        {
            "env": "hiddengrid/SquadRecon-v0",
            "agent": "recipe x",
            "success": 0.0005,
            "ci95": [0.0002, 0.0012],
            "mean_return": 0.024,
            "steps": 524288,
            "imitation_steps": 262144,
            "ppo_steps": 262144,
            "train_wall_seconds": 120.0,
        },
        {
            "env": "hiddengrid/SquadRecon-v0",
            "agent": "random",
            "success": 0.0002,
            "ci95": [0.0001, 0.0007],
            "mean_return": 0.004,
        },
    ]
    table = render_v2(rows).splitlines()
    assert "| random |" in table[2] and "| recipe x |" in table[3]
    assert "| 0.05% | [0.02%, 0.12%] |" in table[3]  # not "0.1%": that would double it
    assert "0.52M (0.26M cloning + 0.26M PPO) | 2.0 min" in table[3]
    assert render_v2(rows, ["hiddengrid/AnomalyMapping-v0"]).count("\n") == 1  # header only


def test_trainer_v2_table_shows_greedy_and_held_out_scores_only_where_there_are_some() -> None:
    trained = {
        "env": "hiddengrid/SquadRecon-v0",
        "agent": "recipe x",
        "seed": 0,
        "success": 0.1003,
        "ci95": [0.0946, 0.1063],
        "mean_return": 0.242,
        "steps": 1048576,
        "train_wall_seconds": 60.0,
    }
    own = {"env": "hiddengrid/SquadRecon-v0", "agent": "random", "success": 0.0002}
    own |= {"ci95": [0.0001, 0.0007], "mean_return": 0.004}
    plain = render_v2([own, trained]).splitlines()
    assert "greedy" not in plain[0] and plain[0].count("|") == plain[2].count("|")
    scored = {**trained, "greedy_success": 0.17, "greedy_ci95": [0.163, 0.177]}
    table = render_v2([own, scored]).splitlines()
    assert table[0].endswith("| greedy: success | greedy: 95 % interval |")
    assert table[2].endswith("| 0.004 |  |  |")  # the env's own agent: no greedy score
    assert table[3].endswith("| 17.0% | [16.3%, 17.7%] |")
    assert all(line.count("|") == table[0].count("|") for line in table)
    held = {**scored, "heldout_success": 0.0987, "heldout_ci95": [0.093, 0.105]}
    table = render_v2([own, held]).splitlines()
    assert table[0].endswith(
        "| greedy: 95 % interval | held-out episodes: success | held-out episodes: 95 % interval |"
    )
    assert table[2].endswith("| 0.004 |  |  |  |  |")
    assert table[3].endswith("| 17.0% | [16.3%, 17.7%] | 9.9% | [9.3%, 10.5%] |")
    only_held = {k: v for k, v in held.items() if not k.startswith("greedy")}
    assert "greedy" not in render_v2([own, only_held]).splitlines()[0]


def test_trainer_v2_grid_puts_each_run_in_its_cell_with_its_budget_and_seeds() -> None:
    from hiddengrid.design.results_table import render_v2_grid

    def run(agent: str, seed: int, steps: int, success: float, **kwargs: int) -> dict:
        return {"env": "hiddengrid/Megacity-v0", "env_kwargs": kwargs, "agent": agent} | {
            "seed": seed,
            "steps": steps,
            "success": success,
            "ci95": [0, 1],
            "mean_return": 0,
        }

    own = {"env": "hiddengrid/Megacity-v0", "env_kwargs": {"level": 3}, "agent": "heuristic"}
    rows = [
        own | {"success": 0.55, "ci95": [0.5, 0.6], "mean_return": 74.6},
        run("PPO feed-forward", 1, 10_010_624, 0.0, level=3),
        run("PPO feed-forward", 0, 10_010_624, 0.004, level=3),
        run("PPO recurrent (GRU)", 0, 3_014_656, 0.02, level=3),
        run(
            "recipe megacity_dagger, from Megacity-v0-level0-dagger-2m-s0",
            0,
            3_014_656,
            0.511,
            level=3,
        ),
        run(
            "recipe megacity_dagger, from Megacity-v0-level0-dagger-2m-s1",
            1,
            3_014_656,
            0.548,
            level=3,
        ),
        run("recipe megacity_dagger", 0, 2_015_232, 0.744, level=0),
        run("PPO feed-forward, 1,024 sub-envs, on a GPU", 0, 50_003_968, 0.001, level=0),
        run("PPO feed-forward, 1,024 sub-envs, on a GPU", 1, 50_003_968, 0.002, level=0),
        run("PPO feed-forward, on a GPU, stopped at 39.3M of its 50M", 0, 39_321_600, 0, level=0),
    ]
    table = render_v2_grid(rows).splitlines()
    assert table[0] == "| env | env args | PPO feed-forward | PPO recurrent | recipe |"
    assert len(table) == 4  # a line per env arguments, the env's own agents in none
    assert table[2] == (
        "| `Megacity-v0` | level=3 | 10.0M, seeds 0, 1: 0.40% / 0.0% | GRU 3.0M, seed 0: 2.0% | "
        "megacity_dagger, from Megacity-v0-level0-dagger-2m 3.0M, seeds 0, 1: 51.1% / 54.8% |"
    )
    assert table[3] == (
        "| `Megacity-v0` | level=0 | 50.0M (1,024 sub-envs; on a GPU), seeds 0, 1: 0.10% / "
        "0.20%<br>39.3M (on a GPU; stopped at 39.3M of its 50M), seed 0: 0.0% | none | "
        "megacity_dagger 2.0M, seed 0: 74.4% |"
    )


def _versus(trainer: str, seed: int, success: float, sps: float) -> dict:
    return {
        "env_id": "hiddengrid/AnomalyMapping-v0",
        "trainer": trainer,
        "seed": seed,
        "budget": 262144,
        "success": success,
        "mean_return": success,
        "steps_per_second": sps,
    }


def test_the_pufferl_table_pairs_seeds_and_takes_means() -> None:
    on = {"vtrace_clip": 1.0}
    rows = [
        _versus("hiddengrid", 0, 0.04, 9000.0),  # written before vtrace_clip was recorded
        {**_versus("hiddengrid", 1, 0.06, 9000.0), "vtrace_clip": 0.0},
        {**_versus("hiddengrid", 0, 0.10, 3000.0), **on},
        _versus("pufferl", 0, 0.20, 1000.0),
        {**_versus("hiddengrid", 1, 0.20, 1000.0), **on},
        _versus("pufferl", 1, 0.30, 1000.0),
    ]
    (line,) = render_versus_pufferl(rows).splitlines()[2:]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells == [
        "`AnomalyMapping-v0`",
        "262,144",
        "0, 1",
        "10.0% / 20.0%",
        "**15.0%**",
        "20.0% / 30.0%",
        "**25.0%**",
        "5.0%",
        "0.15 / 0.25",
        "2,000 / 1,000 (2.00x)",
    ]
    with pytest.raises(ValueError, match="ran other seeds"):
        render_versus_pufferl(rows[:-1])
    with pytest.raises(ValueError, match="ran other seeds"):  # V-trace off for one seed only
        render_versus_pufferl(rows[1:])


def test_the_ablation_table_has_a_row_per_env_budget_and_variant_in_file_order() -> None:
    am, it = "hiddengrid/AnomalyMapping-v0", "hiddengrid/InvertedTreasure-Scout-v0"
    rows = [
        {"env_id": am, "steps": 100, "variant": "b", "seed": 1, "success": 0.3},
        {"env_id": am, "steps": 100, "variant": "a", "seed": 0, "success": 0.1},
        {"env_id": am, "steps": 100, "variant": "b", "seed": 0, "success": 0.1},
        {"env_id": it, "steps": 2000, "variant": "b", "seed": 0, "success": 0.5},
        {"env_id": am, "steps": 100, "variant": "b", "seed": 0, "success": 0.2},
    ]
    rows[-1]["legacy_env_seeds"] = False  # trained with --new-env-seeds: a row of its own
    assert render_ablation(rows).splitlines()[2:] == [
        "| `AnomalyMapping-v0` | 100 | `b` | 0, 1 | 10.0% / 30.0% | **20.0%** |",
        "| `AnomalyMapping-v0` | 100 | `a` | 0 | 10.0% | **10.0%** |",
        "| `InvertedTreasure-Scout-v0` | 2,000 | `b` | 0 | 50.0% | **50.0%** |",
        "| `AnomalyMapping-v0` | 100 | `b`, new env seeds | 0 | 20.0% | **20.0%** |",
    ]


def test_a_row_trained_elsewhere_or_stopped_early_says_so_and_its_checkpoint_agrees() -> None:
    pytest.importorskip("torch")  # the rows' module is the trainer's
    from hiddengrid.train.baselines import V2_ROWS, Row

    row = Row("x", "hiddengrid/SquadRecon-v0", 50_000_000, settings={"num_envs": 1024})
    assert row.label == "PPO feed-forward, 1,024 sub-envs"
    row = Row("x", "hiddengrid/SquadRecon-v0", 50_000_000, machine="a GPU", stopped=39_321_600)
    assert row.label == "PPO feed-forward, on a GPU, stopped at 39.3M of its 50M schedule"
    published = {r["run"]: r for r in load_sources(ROOT)["v2"] if "run" in r}
    for row in V2_ROWS:
        if row.name in published:
            r = published[row.name]
            assert r["agent"] == row.label, f"{row.name}: published as {r['agent']!r}"
            if row.stopped:
                assert r["steps"] == row.stopped, f"{row.name}: checkpoint at {r['steps']:,}"
            else:
                assert r["steps"] >= row.steps, f"{row.name}: {r['steps']:,} < {row.steps:,}"
