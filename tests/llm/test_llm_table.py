"""The real-model table of the docs is made from run folders by a command, and kept equal to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hiddengrid.llm.table import HEAD, main, model_table

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "llm_evaluation.md"
AM = "hiddengrid/AnomalyMapping-v0"


def test_the_table_is_the_runs_summary_per_answer(tmp_path):
    pytest.importorskip("openai")
    from hiddengrid.llm.run import RunConfig, play_run
    from hiddengrid.llm.testserver import ScriptedServer

    # "hello" is never an action: each episode is two invalid answers (max_invalid=2).
    with ScriptedServer(["hello there friend"]) as server:
        config = RunConfig(envs=(AM,), model="m", base_url=server.url, episodes=3, max_invalid=2)
        _, summary = play_run(config, tmp_path / "run")
    s = summary["envs"][AM]
    (row,) = model_table([tmp_path / "run"]).splitlines()[2:]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:8] == ["AnomalyMapping-v0", "direct", "64", "3", "0%", "6", "100%",
                         f"{s['tokens_in'] / 6:.0f}"]  # fmt: skip
    assert cells[8] == "3.0"  # the scripted server counts words: "hello there friend"
    assert cells[10] == "invalid_actions 3"


def test_the_command_refuses_what_is_not_a_run_in_one_line(tmp_path, capsys):
    assert main([str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a run folder" in err[0]
    assert main([]) == 2 and "usage" in capsys.readouterr().err


BLOCK = re.compile(
    r"<!-- model-table: (?P<runs>[^>]*?) -->\n(?P<table>.*?)\n<!-- /model-table -->", re.S
)


def test_the_docs_real_model_table_is_the_commands_output():
    blocks = list(BLOCK.finditer(DOC.read_text(encoding="utf-8")))
    assert blocks, "the docs carry the real-model table between model-table markers"
    for block in blocks:
        runs = [ROOT / r for r in block["runs"].split()]
        assert all((r / "episodes.jsonl").is_file() for r in runs), runs
        assert block["table"].startswith(HEAD)
        assert block["table"] == model_table(runs)


LEADERBOARD = re.compile(
    r"<!-- leaderboard: (?P<runs>[^>]*?) -->\n```text\n(?P<table>.*?)\n```\n<!-- /leaderboard -->",
    re.S,
)


def test_the_docs_leaderboard_is_what_report_prints_for_its_runs():
    from hiddengrid.report.leaderboard import format_text, leaderboard

    (block,) = LEADERBOARD.finditer(DOC.read_text(encoding="utf-8"))
    runs = block["runs"].split()
    assert len(runs) >= 2
    board = leaderboard([ROOT / r for r in runs])
    # The rows name their run folders by the path given; the docs give them from the root.
    assert block["table"] == format_text(board)
    assert "InvertedTreasure-Scout" in block["table"]  # no env name is cut to another's
    page = (ROOT / "docs" / "llm" / "leaderboard.html").read_text(encoding="utf-8")
    assert all(row["name"] in page for row in board["rows"]) and "normalised score" in page
