"""``record --html`` of a numeric agent, run through the page's own script (with Node and a
stub DOM): steps, not answers; no answer panel; the episode's meta line once."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources

import pytest

from hiddengrid.record import record_episode_html

ID = "hiddengrid/AnomalyMapping-v0"
NODE = shutil.which("node")

STUB_DOM = """
const els = {};
function el(id) {
  if (!els[id]) els[id] = { id, textContent: "", style: {}, className: "", value: "", max: "",
    disabled: false, parentElement: { style: {} }, appendChild() {}, addEventListener() {},
    removeAttribute() {} };
  return els[id];
}
globalThis.document = {
  getElementById: (id) => id === "episodes-data" ? { textContent: DATA } : el(id),
  createElement: () => ({}), addEventListener() {},
};
"""
REPORT = """
const views = {};
views.first = { label: els["step-label"].textContent, answer: els["answer"].textContent,
  answerPanel: els["answer"].parentElement.style.display };
"""


@pytest.mark.skipif(NODE is None, reason="needs Node.js to run the viewer's script")
def test_a_numeric_agents_page_speaks_of_steps_and_has_no_answer_panel(tmp_path):
    out = tmp_path / "ep.html"
    record_episode_html(ID, "oracle", out, seed=1_000_004)
    html = out.read_text()
    data = re.search(
        r'<script id="episodes-data" type="application/json">(.*?)</script>', html, re.S
    ).group(1)
    (episode,) = json.loads(data)
    assert html.count(episode["meta"]) == 1  # in the data the viewer shows; not beside it too
    viewer = resources.files("hiddengrid.report").joinpath("viewer.js").read_text()
    script = f"const DATA = {json.dumps(data)};\n{STUB_DOM}\n{viewer}\n{REPORT}"
    script += "console.log(JSON.stringify(views.first));\n"
    proc = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    first = json.loads(proc.stdout)
    steps = len(episode["steps"])
    assert first == {"label": f"step 1 of {steps}", "answer": "", "answerPanel": "none"}
    assert "numeric agent" not in html
