"""The leaderboard: several LLM runs beside the random, heuristic and oracle agents on the same
episodes, with a normalised score, tokens and latency per answer."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("openai")

from hiddengrid.cli import main
from hiddengrid.evaluate import run_episodes
from hiddengrid.llm.run import RunConfig, play_run
from hiddengrid.llm.testserver import ScriptedServer, scripted
from hiddengrid.report.leaderboard import leaderboard, normalised

ID = "hiddengrid/AnomalyMapping-v0"


def test_normalised_score_is_zero_at_random_and_one_at_oracle():
    assert normalised(0.2, 0.2, 0.9) == 0 and normalised(0.9, 0.2, 0.9) == 1
    assert normalised(0.55, 0.2, 0.9) == pytest.approx(0.5)
    assert normalised(0.5, 0.5, 0.5) is None  # no room between random and oracle


def _run(folder, answers, model):
    with ScriptedServer(scripted(answers)) as server:
        config = RunConfig(envs=(ID,), model=model, base_url=server.url, episodes=4, seed=7)
        play_run(config, folder, concurrency=4)
    return folder


def test_two_runs_side_by_side_with_the_baselines(tmp_path, capsys):
    a = _run(tmp_path / "a", ["move north", "move east", "mark"], "model-a")
    b = _run(tmp_path / "b", ["rotate left"], "model-b")
    out = tmp_path / "board.html"
    assert main(["report", str(a), str(b), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    names = [line.split()[0] for line in table.splitlines()[2:-1]]  # the last: "wrote ..."
    assert names[:2] == ["model-a", "model-b"] and names[2:] == ["random", "heuristic", "oracle"]
    html = out.read_text()
    assert "model-a (direct)" in html and "oracle" in html and "<script" not in html

    board = leaderboard([a, b])
    rows = {r["name"]: r for r in board["rows"]}
    # The baselines play the run's own episodes: seeds 7..10.
    for agent in ("random", "oracle"):
        expected = run_episodes(ID, agent, 4, seed=7).success_rate
        assert rows[agent]["cells"][ID]["success"] == expected
    random, oracle = rows["random"]["cells"][ID]["success"], rows["oracle"]["cells"][ID]["success"]
    assert oracle > random and rows["oracle"]["score"] == 1 and rows["random"]["score"] == 0
    model = rows["model-b (direct)"]
    assert model["score"] == pytest.approx(
        (model["cells"][ID]["success"] - random) / (oracle - random)
    )
    assert model["tokens_per_answer"] > 0 and model["latency_per_answer"] >= 0


def test_a_single_run_report_shows_the_baselines(tmp_path, capsys):
    a = _run(tmp_path / "a", ["mark"], "model-a")
    assert main(["report", str(a), "--pictures", "0"]) == 0
    html = (a / "report.html").read_text()
    assert "Beside the baselines" in html and re.search(r">oracle<", html)
    assert "oracle" in capsys.readouterr().out


def test_a_damaged_run_among_several_is_one_line(tmp_path, capsys):
    a = _run(tmp_path / "a", ["mark"], "model-a")
    assert main(["report", str(a), str(tmp_path), "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a run folder" in err[0] and not (tmp_path / "x.html").exists()
