"""LLM runs end to end over real HTTP against the scripted OpenAI-compatible server: parallel
episodes, reasoning mode, trials, accounting, results folders, resuming and clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")

from hiddengrid.cli import main
from hiddengrid.llm.run import EPISODES, RunConfig, RunDirError, play_run
from hiddengrid.llm.testserver import ScriptedServer, scripted
from hiddengrid.registry import ENV_IDS

ID = "hiddengrid/AnomalyMapping-v0"
IT = "hiddengrid/InvertedTreasure-v0"
# Several legal moves, one junk answer: episodes of varied length with invalid answers.
ANSWERS = ["move north", "move east", "rotate left", "mark", "what?", "move south"]
TIMING = ("latency_s", "digest")  # the digest seals the timings too


def _strip_timing(records: list[dict]) -> list[dict]:
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in TIMING}
        r["turns"] = [{k: v for k, v in t.items() if k not in TIMING} for t in r["turns"]]
        out.append(r)
    return out


def _records(folder: Path) -> list[dict]:
    lines = [json.loads(x) for x in (folder / EPISODES).read_text().splitlines()]
    return sorted(lines, key=lambda r: (r["env"], r["trial"], r["index"]))


def _config(url: str, **kw) -> RunConfig:
    base = {"envs": (ID, IT), "model": "scripted", "base_url": url, "episodes": 6, "seed": 3}
    return RunConfig(**(base | kw))


def test_parallel_run_equals_sequential_run(tmp_path):
    with ScriptedServer(scripted(ANSWERS)) as server:
        config = _config(server.url, trial_episodes=2)
        seq_dir, seq = play_run(config, tmp_path / "seq", concurrency=1)
        par_dir, par = play_run(config, tmp_path / "par", concurrency=6)
    a, b = _records(seq_dir), _records(par_dir)
    assert len(a) == 12 and _strip_timing(a) == _strip_timing(b)
    for env_id in (ID, IT):
        sa, sb = seq["envs"][env_id], par["envs"][env_id]
        for key in ("successes", "mean_return", "outcomes", "answers", "invalid_answers"):
            assert sa[key] == sb[key]
        assert sa["tokens_in"] == sb["tokens_in"] > 0
    # Seeds: episode i of trial t is seed + 2t + i, so the env's episodes cover seeds 3..8.
    assert sorted(r["seed"] for r in a if r["env"] == ID) == list(range(3, 9))
    assert any(r["invalid"] for r in a) and any(r["steps"] > 1 for r in a)


def test_requests_are_really_in_flight_together(tmp_path):
    with ScriptedServer(scripted(["mark"]), latency=0.5) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=8)
        play_run(config, tmp_path / "one", concurrency=1)
        assert server.max_in_flight == 1
        play_run(config, tmp_path / "eight", concurrency=8)
    # Eight one-request episodes, each answer held 0.5 s: all eight are asked at once.
    assert server.max_in_flight == 8


def test_reasoning_mode_plays_the_same_game_and_counts_invalid_answers_alike(tmp_path):
    with ScriptedServer(scripted(ANSWERS)) as direct_server:
        _, direct = play_run(_config(direct_server.url, envs=(ID,)), tmp_path / "d")
    with ScriptedServer(scripted(ANSWERS, reasoning=True)) as server:
        _, reasoned = play_run(
            _config(server.url, envs=(ID,), answer_format="reasoning"), tmp_path / "r"
        )
        body = server.requests[0]["body"]
    d, r = direct["envs"][ID], reasoned["envs"][ID]
    for key in ("outcomes", "mean_return", "answers", "invalid_answers", "mean_length"):
        assert d[key] == r[key]
    assert body["max_tokens"] == 4096 and "ACTION:" in body["messages"][0]["content"]
    rec = _records(tmp_path / "r")[0]
    assert rec["turns"][0]["answer"].endswith(f"ACTION: {rec['turns'][0]['sent']}")


def test_a_reasoning_answer_without_the_marker_is_an_invalid_answer(tmp_path):
    with ScriptedServer(["I would move north."]) as server:
        _, summary = play_run(
            _config(server.url, envs=(ID,), episodes=1, answer_format="reasoning"), tmp_path
        )
    rec = _records(tmp_path)[0]
    # Three invalid answers in a row end the episode, as for unparseable actions.
    assert rec["outcome"] == "invalid_actions" and rec["answers"] == 3 and rec["steps"] == 0
    assert all("ACTION:" in t["invalid"] for t in rec["turns"])
    assert "ACTION:" in rec["turns"][1]["observation"]  # the model is told what was wrong
    assert summary["envs"][ID]["invalid_rate"] == 1.0


def test_accounting_per_answer_and_summed(tmp_path):
    with ScriptedServer(["mark"], failures=2) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=2, max_tokens=7)
        _, summary = play_run(config, tmp_path, backoff=0.01)
        bodies = [r["body"] for r in server.requests]
    records = _records(tmp_path)
    turns = [t for r in records for t in r["turns"]]
    assert sum(t["retries"] for t in turns) == 2 and len(bodies) == 4
    assert bodies[-1]["max_tokens"] == 7 and bodies[-1]["model"] == "m"
    words = [sum(len(m["content"].split()) for m in b["messages"]) for b in bodies[2:]]
    assert sorted(t["tokens_in"] for t in turns) == sorted(words)
    assert all(t["tokens_out"] == 1 and t["latency_s"] > 0 for t in turns)
    env = summary["envs"][ID]
    assert env["retries"] == 2 and env["tokens_in"] == sum(words)
    assert summary["total"]["tokens_out"] == 2
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["envs"][ID]["tokens_in"] == sum(words)
    assert json.loads((tmp_path / "config.json").read_text())["max_tokens"] == 7


def test_history_window_is_bounded(tmp_path):
    with ScriptedServer(["rotate left"]) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1, history=3)
        play_run(config, tmp_path)
        sizes = [len(r["body"]["messages"]) for r in server.requests]
    assert len(sizes) == 30  # rotations until the step budget runs out
    assert max(sizes) == 1 + 2 * 3 + 1  # system, 3 past turns, the current observation


def test_a_trial_shows_the_finished_episodes_to_the_model(tmp_path):
    with ScriptedServer(["mark"]) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=6, history=6)
        config = RunConfig(**(config.as_dict() | {"envs": (ID,), "trial_episodes": 3}))
        _, summary = play_run(config, tmp_path)
        first_of_trial = next(
            r["body"]["messages"] for r in server.requests if "Episode 3 of 3" in str(r)
        )
    system = first_of_trial[0]["content"]
    assert "3 episodes of this game one after another" in system
    last = first_of_trial[-1]["content"]
    records = _records(tmp_path)
    for k in (0, 1):
        r = records[k]
        assert f"episode {k + 1}: outcome {r['outcome']}, return {r['return']:g}" in last
    curve = summary["envs"][ID]["by_trial_episode"]
    assert [row["index"] for row in curve] == [0, 1, 2]
    assert [row["episodes"] for row in curve] == [2, 2, 2]
    by_index = [sum(r["success"] for r in records if r["index"] == i) for i in range(3)]
    assert [row["successes"] for row in curve] == by_index


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_trials_work_on_every_env(env_id, tmp_path):
    answers = ["0", "1", "2", "3", "mark", "reveal", "finalize", "move north", "nonsense"]
    with ScriptedServer(scripted(answers)) as server:
        config = RunConfig(
            envs=(env_id,), model="m", base_url=server.url, episodes=2, trial_episodes=2
        )
        _, summary = play_run(config, tmp_path, concurrency=2)
    records = _records(tmp_path)
    assert [(r["trial"], r["index"]) for r in records] == [(0, 0), (0, 1)]
    assert records[0]["system"] and records[1]["system"] is None
    assert "Episode 2 of 2" in records[1]["turns"][0]["observation"]
    assert summary["envs"][env_id]["episodes"] == 2


def test_same_folder_other_configuration_is_refused(tmp_path):
    with ScriptedServer(["mark"]) as server:
        play_run(RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1), tmp_path)
        other = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1, history=2)
        with pytest.raises(RunDirError, match="differs in: history"):
            play_run(other, tmp_path)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"episodes": 5, "trial_episodes": 2}, "multiple of trial episodes"),
        ({"trial_episodes": 0}, "trial episodes must be at least 1"),
        ({"max_tokens": 0}, "max tokens must be at least 1"),
        ({"history": -1}, "history must be >= 0"),
    ],
)
def test_bad_configuration_says_what_is_valid(kw, match):
    with pytest.raises(ValueError, match=match):
        RunConfig(envs=(ID,), model="m", base_url="http://127.0.0.1:1/v1", **kw)


def _cli(url: str, out: Path, *extra: str) -> list[str]:
    return [
        "eval", "--env", ID, "--env", IT, "--agent", "llm", "--base-url", url,
        "--model", "scripted", "--episodes", "8", "--seed", "1", "--out", str(out), *extra,
    ]  # fmt: skip


def test_cli_runs_resumes_and_skips_finished_episodes(tmp_path, capsys):
    with ScriptedServer(scripted(ANSWERS)) as server:
        main(
            _cli(server.url, tmp_path / "run", "--concurrency", "4", "--json", str(tmp_path / "j"))
        )
        served = server.served
        main(_cli(server.url, tmp_path / "run", "--concurrency", "4"))
        assert server.served == served  # everything was finished: no request sent again
    out = capsys.readouterr()
    assert "llm" in out.out and "report" in out.err
    rows = json.loads((tmp_path / "j").read_text())
    assert {r["env"] for r in rows} == {ID, IT} and all(r["episodes"] == 8 for r in rows)
    assert len(_records(tmp_path / "run")) == 16


def test_killed_run_resumes_to_the_same_results(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    with ScriptedServer(scripted(ANSWERS), latency=0.05) as server:
        main(_cli(server.url, tmp_path / "whole", "--concurrency", "2"))
        killed = tmp_path / "killed"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hiddengrid.cli",
                *_cli(server.url, killed, "--concurrency", "2"),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            log = killed / EPISODES
            while time.monotonic() < deadline:
                if log.exists() and len(log.read_text().splitlines()) >= 4:
                    break
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        partial = len(log.read_text().splitlines())
        assert 4 <= partial < 16  # killed mid-run
        main(_cli(server.url, killed, "--concurrency", "3"))
    whole, resumed = _records(tmp_path / "whole"), _records(killed)
    assert _strip_timing(whole) == _strip_timing(resumed)
    a = json.loads((tmp_path / "whole" / "summary.json").read_text())["envs"]
    b = json.loads((killed / "summary.json").read_text())["envs"]
    for env_id in (ID, IT):
        for key in ("successes", "outcomes", "answers", "invalid_answers", "tokens_in"):
            assert a[env_id][key] == b[env_id][key]


def test_server_down_is_one_clear_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "hiddengrid.cli", *_cli("http://127.0.0.1:9/v1", tmp_path)],
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("hiddengrid eval: error: --base-url http://127.0.0.1:9/v1")
    assert "cannot connect" in last


def cli_error(argv: list[str], capsys: pytest.CaptureFixture, during_run: bool = False) -> bool:
    """Runs the CLI expecting its one-line error and exit status 2; keeps the line. An error
    found before the run is all that is printed; one met during the run follows the progress
    bar's lines."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    lines = err.replace("\r", "\n").strip().splitlines()
    assert code == 2 and "Traceback" not in err, err
    assert during_run or len(lines) == 1, lines
    capsys.last = lines[-1]
    assert capsys.last.startswith("hiddengrid eval: error: ")
    return True


def test_http_errors_that_retrying_cannot_fix_stop_the_run(tmp_path, capsys):
    with ScriptedServer(["mark"], failures=1, status=401) as server:
        assert cli_error(_cli(server.url, tmp_path), capsys, during_run=True)
        assert "HTTP 401" in capsys.last
        assert server.served == 1


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--trial-episodes", "3"], "multiple of trial episodes"),
        (["--concurrency", "0"], "--concurrency: 0 is out of range"),
        (["--max-tokens", "0"], "--max-tokens: 0 is out of range"),
    ],
)
def test_cli_rejects_bad_llm_options(extra, match, tmp_path, capsys):
    # The options are checked before the (absent) server is tried.
    assert cli_error(_cli("http://127.0.0.1:9/v1", tmp_path, *extra), capsys)
    assert match in capsys.last


def test_bench_llm_reports_each_concurrency(tmp_path, capsys):
    out = tmp_path / "b.json"
    args = ["--llm-latency", "0", "--llm-episodes", "6", "--llm-concurrency", "1", "3"]
    main(["bench", "--llm", *args, "--json", str(out)])
    rows = json.loads(out.read_text())
    assert [r["concurrency"] for r in rows] == [1, 3]
    assert all(r["requests"] == r["episodes"] == 6 for r in rows)
    assert rows[0]["ratio_to_first"] == 1.0
    assert "speed-up" in capsys.readouterr().out


def test_a_server_slower_than_the_timeout_is_retried_then_reported(tmp_path):
    from hiddengrid.llm.client import LLMError

    with ScriptedServer(["mark"], latency=2.0) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1)
        with pytest.raises(LLMError, match="failed after 2 attempts"):
            play_run(config, tmp_path, retries=1, timeout=0.3, backoff=0.01)
        assert server.served == 2


def test_servers_that_want_max_completion_tokens_get_it(tmp_path):
    with ScriptedServer(["mark"], completion_tokens_only=True) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=3, max_tokens=9)
        _, summary = play_run(config, tmp_path / "one")
        bodies = [r["body"] for r in server.requests]
        # Three first requests at once are all refused; each is sent again the other way.
        play_run(config, tmp_path / "three", concurrency=3)
        refused = [r for r in server.requests[len(bodies) :] if "max_tokens" in r["body"]]
    # One refusal, then every request names the budget the way this server wants.
    assert "max_tokens" in bodies[0] and len(bodies) == 4
    assert all(b.get("max_completion_tokens") == 9 and "max_tokens" not in b for b in bodies[1:])
    assert summary["envs"][ID]["episodes"] == 3 and summary["envs"][ID]["retries"] == 0
    assert len(refused) == 3
    assert len(_records(tmp_path / "three")) == 3


def test_thinking_returned_beside_the_answer_is_kept(tmp_path):
    with ScriptedServer(["mark"], thinking="The field reads 3 here.") as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1)
        play_run(config, tmp_path)
    turn = _records(tmp_path)[0]["turns"][0]
    assert turn["thinking"] == "The field reads 3 here." and turn["answer"] == "mark"
    assert turn["action"] == "mark" and turn["tokens_out"] == 1 + 5


def test_resume_keeps_whole_trials_only(tmp_path):
    from hiddengrid.llm.run import prepare_dir

    with ScriptedServer(scripted(ANSWERS)) as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=6, trial_episodes=3)
        play_run(config, tmp_path)
    lines = {
        (r["trial"], r["index"]): json.dumps(r)
        for r in map(json.loads, (tmp_path / EPISODES).read_text().splitlines())
    }
    # Trial 1 whole (written out of order), trial 0 missing an episode, then a torn line.
    order = [(1, 2), (0, 0), (1, 0), (1, 1), (0, 1)]
    text = "\n".join(lines[k] for k in order)
    (tmp_path / EPISODES).write_text(text + '\n{"env": "hiddengrid/Anomal')
    done = prepare_dir(tmp_path, config)
    assert [(r["trial"], r["index"]) for r in done] == [(1, 0), (1, 1), (1, 2)]
    kept = [json.loads(x) for x in (tmp_path / EPISODES).read_text().splitlines()]
    assert kept == done


def test_cli_reports_llm_next_to_other_agents(tmp_path, capsys):
    with ScriptedServer(["6"]) as server:
        args = _cli(
            server.url, tmp_path / "run", "--agent", "random", "--json", str(tmp_path / "j")
        )
        main(args)
    table = capsys.readouterr().out
    assert " llm " in table and " random " in table
    # The llm rows carry tokens in, out and seconds per answer (the scripted server counts words).
    head = next(line for line in table.splitlines() if "95% CI" in line)
    assert head.split()[-5:] == ["tok", "in/ans", "tok", "out/ans", "s/ans"]
    llm_row = next(line for line in table.splitlines() if line.startswith(ID) and " llm " in line)
    assert float(llm_row.split()[-3]) > 0 and float(llm_row.split()[-2]) == 1.0
    rows = json.loads((tmp_path / "j").read_text())
    assert sorted((r["env"], r["agent"]) for r in rows) == sorted(
        (env_id, agent) for env_id in (ID, IT) for agent in ("llm", "random")
    )
    llm = next(r for r in rows if r["agent"] == "llm" and r["env"] == ID)
    assert llm["episodes"] == 8 and llm["invalid_rate"] == 0.0  # "6" is mark in AnomalyMapping
    assert llm["tokens_in"] > 0 and llm["success_by_trial_episode"] == [llm["success_rate"]]


def test_server_bench_counts_answers_at_each_concurrency():
    from hiddengrid.llm.bench import run_server_bench

    # "hello" is never an action: each one-answer episode (max_invalid=1) is one request.
    with ScriptedServer(["hello"], latency=0.3) as server:
        rows = run_server_bench(server.url, "m", episodes=4, levels=(1, 4))
        assert server.max_in_flight == 4
    assert [(r["concurrency"], r["answers"]) for r in rows] == [(1, 4), (4, 4)]
    assert rows[0]["seconds"] >= 4 * 0.3 and rows[1]["seconds"] < rows[0]["seconds"]
    assert rows[0]["answers_per_s"] == pytest.approx(4 / rows[0]["seconds"])
    assert rows[0]["tokens_out"] == 4  # one word per answer, as the scripted server counts
