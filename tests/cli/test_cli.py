"""The ``hiddengrid`` command line: eval, bench, record, play, and the human window."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.error import DependencyNotInstalled

import hiddengrid  # noqa: F401
from hiddengrid.cli import main

ID = "hiddengrid/AnomalyMapping-v0"


def test_eval_prints_a_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "eval.json"
    assert main(["eval", "--env", ID, "--episodes", "300", "--seed", "5", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    for agent in ("random", "heuristic", "oracle"):
        assert agent in table
    rows = json.loads(out.read_text())
    # Every agent of the env: AnomalyMapping also has its non-fair "exact-position" reference.
    assert {r["agent"] for r in rows} == {"random", "heuristic", "exact-position", "oracle"}
    for r in rows:
        low, high = r["ci95"]
        assert r["episodes"] == 300 and low <= r["success_rate"] <= high
    oracle = next(r for r in rows if r["agent"] == "oracle")
    assert oracle["success_rate"] > 0.95


def test_eval_is_reproducible_and_batch_independent():
    from hiddengrid.evaluate import run_episodes

    a = run_episodes(ID, "heuristic", 500, seed=11, batch_size=500)
    b = run_episodes(ID, "heuristic", 500, seed=11, batch_size=64)
    assert a.returns == b.returns and a.outcomes == b.outcomes


def test_eval_rejects_unknown_names(capsys):
    # These used to raise SystemExit with the message; now every CLI error is one line on
    # stderr and exit status 2 (see test_cli_errors.py).
    assert exit_code(["eval", "--env", "hiddengrid/Nope-v0"]) == 2
    assert exit_code(["eval", "--env", ID, "--agent", "nobody"]) == 2
    assert exit_code(["eval", "--env", ID, "--agent", "llm"]) == 2  # no --base-url / --model
    assert exit_code(["record", ID, "--agent", "nobody", "--out", "x.gif"]) == 2
    assert "no agent" in capsys.readouterr().err


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def test_bench_reports_every_configuration(capsys, tmp_path):
    from hiddengrid.core.kernel import max_threads

    out = tmp_path / "bench.json"
    from hiddengrid.bench_anchor import find_compiler

    args = ["--seconds", "0.05", "--sizes", "1", "16", "--threads-n", "32", "--json", str(out)]
    main(["bench", "--env", ID, *args, "--anchor-n", "32"])
    text = capsys.readouterr().out
    assert "SyncVectorEnv" in text and "native vector N=16" in text
    rows = json.loads(out.read_text())
    # The threads rows (one thread, then every usable core) exist where there are two cores.
    threaded = max_threads() > 1
    # Then AnomalyMapping's C anchor rows: the C step, env.step and step_all (one skipped row,
    # with its reason, without a C compiler).
    anchor = rows[4 + 2 * threaded :]
    rows = rows[: 4 + 2 * threaded]
    assert len(rows) == 4 + 2 * threaded and all(r["steps_per_second"] > 0 for r in rows)
    if find_compiler() is None:
        assert len(anchor) == 1 and anchor[0]["note"].startswith("skipped: no C compiler")
        assert "skipped: no C compiler" in text
    else:
        assert [r["config"] for r in anchor] == ["C anchor N=32", "env.step N=32", "step_all N=32"]
        assert all(r["steps_per_second"] > 0 and r["num_threads"] == 1 for r in anchor)
        c = anchor[0]["steps_per_second"]
        assert [r["ratio_to_c_anchor"] for r in anchor] == pytest.approx(
            [1.0, anchor[1]["steps_per_second"] / c, anchor[2]["steps_per_second"] / c]
        )
        assert text.count("x C anchor") == 2 and "bare Numba kernel call" in text
    assert next(r for r in rows if "Sync" in r["config"])["ratio_to_sync"] == 1.0
    assert rows[0]["reset_us"] > 0
    assert [r["num_threads"] for r in rows[2:4]] == [1, 1]  # N=1 and 16: below the threshold
    if threaded:
        one, many = rows[4:]
        assert one["config"] == many["config"] == "threads N=32"
        assert (one["num_threads"], many["num_threads"]) == (1, max_threads())
        ratio = many["steps_per_second"] / one["steps_per_second"]
        assert many["ratio_to_one_thread"] == pytest.approx(ratio)
    try:
        import minigrid  # noqa: F401
    except ImportError:
        assert "MiniGrid is not installed" in text and rows[0]["ratio_to_minigrid"] is None
    else:
        assert rows[0]["ratio_to_minigrid"] > 0


def test_record_writes_an_animated_gif(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "ep.gif"
    main(["record", ID, "--agent", "oracle", "--out", str(out), "--seed", "3"])
    assert "outcome success" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.n_frames >= 2


def test_play_in_a_terminal_quits_cleanly():
    script = "move north\nnonsense\nquit\n"
    proc = subprocess.run(
        [sys.executable, "-m", "hiddengrid.cli", "play", ID, "--seed", "1"],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Field levels around you" in proc.stdout and "Final score" in proc.stdout


def test_play_survives_end_of_input():
    proc = subprocess.run(
        [sys.executable, "-m", "hiddengrid.cli", "play", ID],
        input="",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and "Final score" in proc.stdout


def test_human_mode_without_pygame_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # makes `import pygame` fail
    with pytest.raises(DependencyNotInstalled, match=r"hiddengrid\[human\]"):
        gym.make(ID, render_mode="human")


def test_human_mode_opens_a_window_when_pygame_is_there(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make(ID, render_mode="human")
    env.reset(seed=0)
    env.step(0)
    assert env.unwrapped._window is not None
    env.close()
    assert env.unwrapped._window is None
    assert os.environ["SDL_VIDEODRIVER"] == "dummy"


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (1, 3), (500, 1000), (0, 1), (1, 1)])
def test_wilson_interval_contains_the_rate(k, n):
    from hiddengrid.evaluate import wilson_interval

    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0
    assert high - low < 1.0
