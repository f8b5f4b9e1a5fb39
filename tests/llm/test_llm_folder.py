"""Run folders and servers that misbehave: kills during a rewrite, hostile answers, broken server
bodies, damaged or edited folders, Retry-After, a second run on the same folder, credentials."""

from __future__ import annotations

import json
import os
import pathlib
import re
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")

from hiddengrid.cli import main
from hiddengrid.llm.client import ANSWER_LIMIT, LLMError
from hiddengrid.llm.run import CONFIG, EPISODES, RunConfig, RunDirError, play_run, prepare_dir
from hiddengrid.llm.testserver import ScriptedServer

ID = "hiddengrid/AnomalyMapping-v0"


def _config(url: str, **kw) -> RunConfig:
    return RunConfig(**({"envs": (ID,), "model": "m", "base_url": url, "episodes": 2} | kw))


def _lines(folder: Path) -> list[str]:
    return (folder / EPISODES).read_text().splitlines()


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> tuple[Path, RunConfig]:
    folder = tmp_path_factory.mktemp("good") / "run"
    with ScriptedServer(["move north", "mark", "what?"]) as server:
        config = _config(server.url, episodes=4, trial_episodes=2)
        play_run(config, folder)
    return folder, config


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for name in (CONFIG, EPISODES):
        (dst / name).write_bytes((src / name).read_bytes())
    return dst


def test_a_kill_during_the_resume_rewrite_keeps_every_finished_episode(
    good_run, tmp_path, monkeypatch
):
    folder = _copy(good_run[0], tmp_path / "run")
    before = _lines(folder)
    # A torn last line makes the resume rewrite the file.
    with open(folder / EPISODES, "a") as fh:
        fh.write('{"env": "hiddengrid/Anom')

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    def killed_after_truncating(self, *args, **kwargs):
        open(self, "w").close()
        raise KeyboardInterrupt

    # Killed at the rename, or (the old in-place way) after the file was opened for writing.
    monkeypatch.setattr(os, "replace", killed)
    monkeypatch.setattr(pathlib.Path, "write_text", killed_after_truncating)
    with pytest.raises(KeyboardInterrupt):
        prepare_dir(folder, good_run[1])
    assert _lines(folder)[: len(before)] == before


def _script_data(html: str) -> str:
    found = re.search(
        r'<script id="episodes-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert found is not None
    return found.group(1)


def test_report_data_escapes_every_angle_bracket(tmp_path):
    hostile = "<!--<script>alert(1)</script>"
    with ScriptedServer([hostile]) as server:
        play_run(_config(server.url, episodes=1), tmp_path / "run")
    assert main(["report", str(tmp_path / "run"), "--pictures", "0"]) == 0
    html = (tmp_path / "run" / "report.html").read_text()
    data = _script_data(html)
    assert "<" not in data and "\\u003c!--\\u003cscript" in data
    # The viewer still reads the answer back exactly, and the page ends as written.
    episodes = json.loads(data)
    assert episodes[0]["steps"][0]["answer"] == hostile
    assert html.rstrip().endswith("</body></html>")


BROKEN_BODIES = {
    "malformed JSON": b'{"choices": [',
    "not UTF-8": b'\xff\xfe{"choices": []}',
    "infinite usage": b'{"choices":[{"message":{"content":"mark"}}],'
    b'"usage":{"prompt_tokens":1e999}}',
    "negative usage": b'{"choices":[{"message":{"content":"mark"}}],"usage":{"prompt_tokens":-4}}',
    "a list": b"[1, 2]",
    "a string": b'"mark"',
    "null": b"null",
    "no choices": b'{"choices": []}',
    "content a number": b'{"choices":[{"message":{"content":7}}]}',
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("body", BROKEN_BODIES.values(), ids=BROKEN_BODIES.keys())
def test_a_broken_server_body_is_one_llm_error(body, tmp_path, capsys):
    with ScriptedServer(["mark"], raw_body=body) as server:
        with pytest.raises(LLMError, match=r"no usable answer|not a chat completion"):
            play_run(_config(server.url, episodes=1), tmp_path / "api", retries=0)
        code = main(
            [
                *("eval", "--env", ID, "--agent", "llm", "--base-url", server.url),
                *("--model", "m", "--episodes", "1", "--retries", "0"),
                *("--out", str(tmp_path / "cli")),
            ]
        )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert len([x for x in err.splitlines() if "error:" in x]) == 1


def _edit_record(folder: Path, edit) -> None:
    lines = _lines(folder)
    record = json.loads(lines[1])
    edit(record)
    lines[1] = json.dumps(record)
    (folder / EPISODES).write_text("\n".join(lines) + "\n")


def _set(key, value):
    return lambda r: r.__setitem__(key, value)


DAMAGES = {
    "config not JSON": lambda f: (f / CONFIG).write_text("{not json"),
    "config not an object": lambda f: (f / CONFIG).write_text("[1]"),
    "config not UTF-8": lambda f: (f / CONFIG).write_bytes(b"\xff\xfe\x00"),
    "config missing a key": lambda f: (f / CONFIG).write_text(
        json.dumps({k: v for k, v in json.loads((f / CONFIG).read_text()).items() if k != "seed"})
    ),
    "config wrong type": lambda f: (f / CONFIG).write_text(
        json.dumps(json.loads((f / CONFIG).read_text()) | {"trial_episodes": "2"})
    ),
    "config unknown env": lambda f: (f / CONFIG).write_text(
        json.dumps(json.loads((f / CONFIG).read_text()) | {"envs": ["nope/Nope-v0"]})
    ),
    "config a folder": lambda f: ((f / CONFIG).unlink(), (f / CONFIG).mkdir()),
    "a line not JSON": lambda f: (f / EPISODES).write_text(
        "garbage\n" + (f / EPISODES).read_text()
    ),
    "a line not UTF-8": lambda f: (f / EPISODES).write_bytes(
        b"\xff\xfe\n" + (f / EPISODES).read_bytes()
    ),
    "a line a list": lambda f: (f / EPISODES).write_text("[]\n" + (f / EPISODES).read_text()),
    "a line repeated": lambda f: (f / EPISODES).write_text(
        (f / EPISODES).read_text() + _lines(f)[0] + "\n"
    ),
    "a record edited": lambda f: _edit_record(f, _set("return", 1.0)),
    "an answer edited": lambda f: _edit_record(f, lambda r: r["turns"][0].update(answer="x")),
    "turns not a list": lambda f: _edit_record(f, _set("turns", 5)),
    "a record without its env": lambda f: _edit_record(f, lambda r: r.pop("env")),
    "a record without a digest": lambda f: _edit_record(f, lambda r: r.pop("digest")),
    "episodes a folder": lambda f: ((f / EPISODES).unlink(), (f / EPISODES).mkdir()),
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_folder_is_one_line_for_report_and_resume(damage, good_run, tmp_path, capsys):
    folder = _copy(good_run[0], tmp_path / "run")
    damage(folder)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert str(folder) in err and not (folder / "report.html").exists()
    with ScriptedServer(["mark"]) as server:
        config = RunConfig(**(good_run[1].as_dict() | {"envs": (ID,), "base_url": server.url}))
        with pytest.raises(RunDirError, match=re.escape(str(folder))):
            play_run(config, folder)
        assert server.served == 0


def test_retry_after_is_waited(tmp_path):
    with ScriptedServer(["mark"], failures=1, status=429, retry_after="1") as server:
        play_run(_config(server.url, episodes=1), tmp_path, backoff=0.01)
    assert len(server.times) == 2 and server.times[1] - server.times[0] >= 0.9


def test_workers_are_capped_at_the_trials(tmp_path, monkeypatch):
    import asyncio

    started = []
    ensure_future = asyncio.ensure_future

    def counting(*args, **kwargs):
        started.append(1)
        return ensure_future(*args, **kwargs)

    monkeypatch.setattr(asyncio, "ensure_future", counting)
    with ScriptedServer(["mark"]) as server:
        play_run(_config(server.url, episodes=2), tmp_path, concurrency=500)
    assert len(started) == 2


def test_a_second_run_on_a_folder_in_use_is_refused(tmp_path):
    with ScriptedServer(["move north"], latency=0.2) as server:
        config = _config(server.url, episodes=2)
        first = threading.Thread(target=play_run, args=(config, tmp_path))
        first.start()
        try:
            deadline = time.monotonic() + 60
            while server.served == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            with pytest.raises(RunDirError, match="in use by another run"):
                play_run(config, tmp_path)
        finally:
            first.join()
        # Once the first run ends, the same command resumes (nothing left to play).
        served = server.served
        play_run(config, tmp_path)
        assert server.served == served
    assert len(_lines(tmp_path)) == 2


def test_content_given_as_parts_is_joined(tmp_path):
    with ScriptedServer(["move north"], content_parts=True) as server:
        play_run(_config(server.url, episodes=1), tmp_path)
    turn = json.loads(_lines(tmp_path)[0])["turns"][0]
    assert turn["answer"] == "move north" and turn["action"] == "move north"


def test_a_huge_answer_is_capped_and_stored_once(tmp_path):
    with ScriptedServer(["x" * (ANSWER_LIMIT * 3)]) as server:
        play_run(_config(server.url, episodes=1), tmp_path)
    size = (tmp_path / EPISODES).stat().st_size
    record = json.loads(_lines(tmp_path)[0])
    assert all(len(t["answer"]) == ANSWER_LIMIT and "sent" not in t for t in record["turns"])
    assert size < (len(record["turns"]) + 1) * ANSWER_LIMIT


@pytest.mark.parametrize("secret_url", ["http://alice:hunter2@{}", "http://{}?key=s3cret"])
def test_credentials_in_the_url_are_never_written(secret_url, tmp_path):
    with ScriptedServer(["mark"]) as server:
        url = secret_url.format(server.url.removeprefix("http://"))
        # This SDK and transport refuse both forms, but nothing may keep the secret either way.
        with pytest.raises(LLMError) as caught:
            play_run(_config(url, episodes=1), tmp_path, retries=0)
    assert "***" in (tmp_path / CONFIG).read_text()
    for secret in ("hunter2", "s3cret", "alice"):
        assert secret not in str(caught.value)
        for path in tmp_path.iterdir():
            assert secret not in path.read_text(), path
