"""The command line's edges: every mistake is one line on stderr and exit status 2, checked
before any work; the options every command shares; the first run says it is compiling."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from helpers import scripted

import hiddengrid
from hiddengrid import cli
from hiddengrid.cli import main
from hiddengrid.play import command_of, play

ID = "hiddengrid/AnomalyMapping-v0"


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code)
    out, err = capsys.readouterr()
    return code, out, err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BAD = [
    ["eval", "--seed", "-1"],
    ["eval", "--episodes", "0"],
    ["eval", "--episodes", "many"],
    ["eval", "--env", "hiddengrid/Nope-v0"],
    ["eval", "--env", ID, "--agent", "nobody"],
    ["eval", "--env", ID, "--agent", "llm"],
    ["eval", "--env", ID, "--json", "/no/such/folder/out.json"],
    ["eval", "--env", ID, "--agent", "llm", "--base-url", "ftp://x", "--model", "m"],
    ["eval", "--env", ID, "--agent", "llm", "--concurrency", "0"],
    ["eval", "--env", ID, "--agent", "llm", "--trial-episodes", "0"],
    ["eval", "--env", "hiddengrid/FieldCipher-v0", "--env-arg", "level=9"],
    ["eval", "--env", ID, "--env-arg", "level=2"],
    ["eval", "--env", ID, "--env-arg", "novalue"],
    ["play", ID, "--seed", "-3"],
    ["play", "hiddengrid/Nope-v0"],
    ["bench", "--seconds", "0"],
    ["bench", "--seconds", "nan"],
    ["bench", "--sizes", "0"],
    ["bench", "--threads-n", "-1"],
    ["bench", "--scaling", "0"],
    ["bench", "--json", "/no/such/folder/b.json"],
    ["record", ID, "--fps", "0", "--out", "x.gif"],
    ["record", ID, "--out", "x.mp4"],
    ["record", ID, "--out", "/no/such/folder/x.gif"],
    ["record", ID, "--agent", "nobody", "--out", "x.gif"],
    ["record", ID],
    ["record", ID, "--html", "x.txt"],
    ["report", "/no/such/run/folder"],
    ["bench", "--llm", "--llm-concurrency", "0"],
    ["nonsense"],
    [],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) or "(none)" for a in BAD])
def test_every_error_is_one_line_and_exit_status_2(argv, capsys, monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError("the run started before the input was checked")

    monkeypatch.setattr("hiddengrid.evaluate.run_episodes", no_run)
    monkeypatch.setattr("hiddengrid.bench.run_bench", no_run)
    monkeypatch.setattr("hiddengrid.record.record_episode", no_run)
    code, _, err = run_cli(argv, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and err.startswith("hiddengrid")


def test_llm_server_down_is_one_line_before_the_run(capsys, monkeypatch):
    monkeypatch.setattr("hiddengrid.evaluate.run_episodes", None)
    url = f"http://127.0.0.1:{free_port()}/v1"
    argv = ["eval", "--env", ID, "--agent", "llm", "--base-url", url, "--model", "m"]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "cannot connect" in err and len(err.strip().splitlines()) == 1


def test_record_without_pillow_is_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    code, _, err = run_cli(["record", ID, "--out", str(tmp_path / "a.gif")], capsys)
    assert code == 2 and "hiddengrid[render]" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.gif").exists()


def test_repeated_agents_and_envs_run_once_and_json_has_the_seed(tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["eval", "--env", ID, "--env", "AnomalyMapping-v0", "--agent", "oracle"]
    argv += ["--agent", "oracle", "--episodes", "20", "--seed", "7", "--json", str(out)]
    code, table, _ = run_cli(argv, capsys)
    assert code == 0
    rows = json.loads(out.read_text())
    assert len(rows) == 1 and rows[0]["seed"] == 7 and rows[0]["episodes"] == 20
    assert table.count("oracle") == 1


def test_env_args_reach_the_env(tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["eval", "--env", "hiddengrid/FieldCipher-v0", "--agent", "oracle", "--episodes"]
    argv += ["5", "--env-arg", "level=2", "--json", str(out)]
    assert run_cli(argv, capsys)[0] == 0
    assert json.loads(out.read_text())[0]["env_kwargs"] == {"level": 2}


def test_help_lists_ids_and_agents_and_version(capsys):
    code, out, _ = run_cli(["eval", "--help"], capsys)
    assert code == 0
    for env_id in hiddengrid.ENV_IDS:
        assert env_id in out
    assert "random, heuristic, oracle" in out
    code, out, _ = run_cli(["--version"], capsys)
    assert code == 0 and hiddengrid.__version__ in out
    for sub in ("eval", "bench", "record", "play"):
        code, out, _ = run_cli([sub, "--help"], capsys)
        assert code == 0
        # every option has a help string
        assert all(
            action.help
            for parser in cli.build_parser()._subparsers._group_actions[0].choices.values()
            for action in parser._actions
        )


def test_python_dash_m_hiddengrid(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "hiddengrid", "--version"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.returncode == 0 and hiddengrid.__version__ in proc.stdout


def test_first_eval_says_it_is_compiling(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")  # a cold cache
    argv = [sys.executable, "-m", "hiddengrid", "eval", "--env", ID, "--agent", "random"]
    argv += ["--episodes", "3"]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0, first.stderr
    # the notice names what compiles (the env's kernels, for how many threads, its agents)
    assert "AnomalyMapping-v0: compiling its kernels for one thread" in first.stderr
    assert "(once" in first.stderr
    assert first.stderr.index("compiling its kernels") < first.stderr.index("ep/s")
    second = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    assert "compiling" not in second.stderr


def test_play_sends_the_games_own_words_to_the_game():
    read, write, written = scripted(["reveal", "quit"])
    play("hiddengrid/InvertedTreasure-v0", seed=0, read=read, write=write)
    text = "\n".join(written)
    assert "your tile is Empty" in text or "your tile is a" in text  # the Reveal action ran
    assert "Your last answer was invalid" not in text
    is_action = {"reveal": True, "show": False, "quit": False}.__getitem__
    assert command_of("reveal", is_action) is None
    assert command_of(":show", is_action) == "show"
    assert command_of("show", is_action) == "show"
    assert command_of(":nope", is_action) == "unknown"


def test_play_never_ends_an_episode_for_invalid_answers():
    read, write, written = scripted(["", "dance", "", "sing", "jump", "fly", ":quit"])
    play(ID, seed=1, read=read, write=write)
    text = "\n".join(written)
    assert "invalid_actions" not in text and "Too many invalid" not in text
    assert text.count("Your last answer was invalid") == 4  # empty lines are not answers
    assert "Final score" in text
