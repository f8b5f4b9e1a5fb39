"""The README's results table is rendered from ``docs/bench/eval.json`` (what
``hiddengrid eval --json`` wrote), never retyped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hiddengrid.design.results_table import BEGIN, END, render, replace_table

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_table_is_the_eval_output() -> None:
    rows = json.loads((ROOT / "docs" / "bench" / "eval.json").read_text())
    readme = (ROOT / "README.md").read_text()
    assert replace_table(readme, render(rows)) == readme


def test_a_changed_figure_is_caught() -> None:
    rows = json.loads((ROOT / "docs" / "bench" / "eval.json").read_text())
    readme = (ROOT / "README.md").read_text()
    rows[0]["success_rate"] += 0.01
    assert replace_table(readme, render(rows)) != readme


def test_the_table_needs_its_markers() -> None:
    with pytest.raises(ValueError, match="once each"):
        replace_table("no markers", "| x |")
    assert replace_table(f"a\n{BEGIN}\nold\n{END}\nb", "new") == f"a\n{BEGIN}\nnew\n{END}\nb"
