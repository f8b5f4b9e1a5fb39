"""The HTML report: summary, learning curves, the embedded episodes and their pictures, and the
same viewer for numeric agents (``hiddengrid record --html``)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openai")
pytest.importorskip("PIL")

from PIL import Image

from hiddengrid.cli import main
from hiddengrid.llm.folder import seal
from hiddengrid.llm.run import EPISODES, RunConfig, play_run
from hiddengrid.llm.testserver import ScriptedServer, scripted
from hiddengrid.registry import definition_of
from hiddengrid.report.frames import replay_frames
from hiddengrid.text.env import make_text

ID = "hiddengrid/AnomalyMapping-v0"
ANSWERS = ["move north", "move east", "rotate left", "mark", "what?", "move south"]


def make_run(folder: Path, trial_episodes: int = 2, episodes: int = 4) -> Path:
    with ScriptedServer(scripted(ANSWERS)) as server:
        config = RunConfig(
            envs=(ID,),
            model="scripted",
            base_url=server.url,
            episodes=episodes,
            trial_episodes=trial_episodes,
        )
        play_run(config, folder, concurrency=2)
    return folder


def page_data(html: str) -> list[dict]:
    found = re.search(
        r'<script id="episodes-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert found is not None
    return json.loads(found.group(1))


def decode(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))))


def test_report_is_one_self_contained_page(tmp_path):
    folder = make_run(tmp_path / "run")
    main(["report", str(folder), "--pictures", "1"])
    html = (folder / "report.html").read_text()
    # No network and no files beside it: nothing is loaded from anywhere.
    assert not re.search(r"""(src|href)=["']?(https?:|//|[^"'#d])""", html)
    assert "<svg" in html and "episode within the trial" in html
    assert ID in html and "Summary" in html
    records = [json.loads(x) for x in (folder / EPISODES).read_text().splitlines()]
    episodes = page_data(html)
    assert len(episodes) == len(records) == 4
    # Pictures for the first episode of the env only (--pictures 1); text for all.
    assert len(episodes[0]["frames"]) == 1 + sum(
        t["action"] is not None for t in _first(records)["turns"]
    )
    assert all(not e["frames"] and e["no_frames_reason"] for e in episodes[1:])
    for e, r in zip(episodes, sorted(records, key=lambda r: (r["trial"], r["index"])), strict=True):
        assert [s["answer"] for s in e["steps"]] == [t["answer"] for t in r["turns"]]
        assert [s["observation"] for s in e["steps"]] == [t["observation"] for t in r["turns"]]
        assert [s["invalid"] for s in e["steps"]] == [t["invalid"] for t in r["turns"]]


def _first(records: list[dict]) -> dict:
    return min(records, key=lambda r: (r["trial"], r["index"]))


def test_pictures_are_the_states_the_model_saw(tmp_path):
    folder = make_run(tmp_path / "run", trial_episodes=1, episodes=1)
    record = json.loads((folder / EPISODES).read_text().splitlines()[0])
    frames = replay_frames(record)
    tenv = make_text(ID)
    tenv.reset(seed=record["seed"])
    render = definition_of(ID).render_rgb
    expected = [render(tenv.base.batch, 0)]
    for turn in record["turns"]:
        _, _, _, _, info = tenv.step(turn.get("sent", turn["answer"]))
        if "invalid_action" not in info:
            expected.append(render(tenv.base.batch, 0))
    assert len(frames) == len(expected)
    for uri, rgb in zip(frames, expected, strict=True):
        assert np.array_equal(decode(uri), rgb)


def test_a_log_that_no_longer_replays_gets_no_pictures(tmp_path):
    folder = make_run(tmp_path / "run", trial_episodes=1, episodes=1)
    lines = (folder / EPISODES).read_text().splitlines()
    record = json.loads(lines[0])
    turn = next(t for t in record["turns"] if t["action"] is not None)
    turn["action"] = "something else"
    # Sealed again: a log written by an older version of the env, not one edited by hand.
    (folder / EPISODES).write_text(json.dumps(seal(record)) + "\n")
    main(["report", str(folder)])
    episode = page_data((folder / "report.html").read_text())[0]
    assert episode["frames"] == [] and "replay differs" in episode["no_frames_reason"]


def test_thinking_beside_the_answer_is_in_the_viewer(tmp_path):
    with ScriptedServer(["mark"], thinking="Field 3: the node is here.") as server:
        config = RunConfig(envs=(ID,), model="m", base_url=server.url, episodes=1)
        play_run(config, tmp_path / "run")
    main(["report", str(tmp_path / "run")])
    (episode,) = page_data((tmp_path / "run" / "report.html").read_text())
    assert episode["steps"][0]["thinking"] == "Field 3: the node is here."
    assert episode["steps"][0]["answer"] == "mark"


def test_report_of_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a run folder" in err[0]


def test_record_html_shows_a_numeric_agent_in_the_same_viewer(tmp_path, capsys):
    out = tmp_path / "ep.html"
    main(["record", ID, "--agent", "oracle", "--seed", "3", "--html", str(out)])
    assert "outcome success" in capsys.readouterr().out
    html = out.read_text()
    (episode,) = page_data(html)
    assert episode["outcome"] == "success" and episode["success"]
    assert len(episode["frames"]) == len(episode["steps"]) + 1
    assert all(s["answer"] is None and s["action"] for s in episode["steps"])
    assert episode["steps"][-1]["action"] == "mark"
    env = make_text(ID)
    env.reset(seed=3)
    assert episode["steps"][0]["observation"] == env.observation_text()
    expected = definition_of(ID).render_rgb(env.base.batch, 0)
    assert np.array_equal(decode(episode["frames"][0]), expected)


def test_record_needs_an_output(capsys):
    assert main(["record", ID]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out FILE.gif, --html FILE.html" in err[0]
