"""The report page in a real headless browser (Debian's chromium driven by Selenium): open the
file, step through an episode, check what is shown, take a screenshot.

Needs ``apt-get install chromium chromium-driver`` and ``pip install selenium``; skipped with
the reason where they are absent. ``HIDDENGRID_SCREENSHOT=path.png`` also saves the screenshot
there (that is how the docs picture is made).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("PIL")
pytest.importorskip("selenium", reason="needs selenium: pip install selenium")

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from hiddengrid.cli import main
from hiddengrid.llm.run import EPISODES, RunConfig, play_run
from hiddengrid.llm.testserver import ScriptedServer, scripted

ID = "hiddengrid/InvertedTreasure-Scout-v0"
ANSWERS = ["move north", "move east", "reveal", "what?", "move south", "move west"]


def _browser_paths() -> tuple[str, str]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not binary or not driver:
        pytest.skip("needs chromium and its driver: apt-get install chromium chromium-driver")
    return binary, driver


@pytest.fixture
def browser():
    binary, driver_path = _browser_paths()
    options = Options()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument("--window-size=1280,1000")
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def test_step_through_an_episode_in_headless_chromium(browser, tmp_path):
    folder = tmp_path / "run"
    with ScriptedServer(scripted(ANSWERS, reasoning=True)) as server:
        config = RunConfig(
            envs=(ID,),
            model="scripted",
            base_url=server.url,
            episodes=6,
            trial_episodes=3,
            answer_format="reasoning",
        )
        play_run(config, folder, concurrency=2)
    main(["report", str(folder)])
    records = sorted(
        (json.loads(x) for x in (folder / EPISODES).read_text().splitlines()),
        key=lambda r: (r["trial"], r["index"]),
    )
    browser.get((folder / "report.html").resolve().as_uri())
    text = lambda id_: browser.find_element(By.ID, id_).text  # noqa: E731

    # The summary and the learning curve are drawn.
    assert (
        "InvertedTreasure-Scout-v0" in browser.find_element(By.CSS_SELECTOR, "table.summary").text
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.curve circle")) == 3

    # Pick the second episode of the first trial and step through it.
    record = records[1]
    options = browser.find_elements(By.CSS_SELECTOR, "#episode-select option")
    assert len(options) == len(records)
    options[1].click()
    assert f"seed {record['seed']}" in text("episode-meta")
    turns = record["turns"]
    assert text("step-label") == f"answer 1 of {len(turns)}"
    assert "Episode 2 of 3" in text("observation")
    # No thinking came beside the answers (it is in them, before the ACTION line).
    assert not browser.find_element(By.ID, "thinking-panel").is_displayed()
    picture = browser.find_element(By.ID, "picture")
    first_src = picture.get_attribute("src")
    assert first_src.startswith("data:image/png;base64,")
    assert picture.get_property("naturalWidth") > 0  # the browser decoded the picture

    steps = min(3, len(turns))
    for k in range(steps):
        turn = turns[k]
        assert text("answer") == turn["answer"]
        if turn["invalid"] is None:
            assert text("action").startswith(turn["action"])
        else:
            assert text("action").startswith("invalid:")
        if k + 1 < len(turns):
            browser.find_element(By.ID, "next").click()
            assert text("step-label") == f"answer {k + 2} of {len(turns)}"
    moved = any(t["action"] is not None for t in turns[: steps - 1])
    assert (picture.get_attribute("src") != first_src) == moved

    # The slider's end shows how the episode ended; "previous" steps back.
    browser.execute_script(
        "const s = document.getElementById('step-slider'); s.value = s.max;"
        "s.dispatchEvent(new Event('input'));"
    )
    assert text("step-label").startswith("end")
    assert f"episode over: {record['outcome']}" in text("action")
    browser.find_element(By.ID, "prev").click()
    assert text("step-label") == f"answer {len(turns)} of {len(turns)}"

    for _ in range(len(turns) - 3):  # back to an early answer for the picture
        browser.find_element(By.ID, "prev").click()
    browser.execute_script("document.getElementById('episode-select').scrollIntoView();")
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    target = os.environ.get("HIDDENGRID_SCREENSHOT")
    if target:
        Path(target).write_bytes(shot.read_bytes())
    assert browser.get_log("browser") == []  # no script errors on the page
