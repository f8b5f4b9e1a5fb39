"""Docs that must agree with the code: the thread default, the command page."""

from __future__ import annotations

from pathlib import Path

import pytest

from hiddengrid import ENV_IDS, definition_of
from hiddengrid.core.kernel import ENVS_PER_THREAD

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page", ["README.md", "docs/conventions.md"])
def test_the_page_gives_the_code_s_thread_default(page):
    text = " ".join((ROOT / page).read_text().split())
    start = text.index("default: one thread per")
    said = text[start : text.index(")", start)]
    assert said.startswith(f"default: one thread per {ENVS_PER_THREAD:,} sub-envs")
    assert "up to every" in said
    for env_id in ENV_IDS:
        share = definition_of(env_id).envs_per_thread
        family = env_id.removeprefix("hiddengrid/").split("-")[0]
        if share != ENVS_PER_THREAD:
            assert f"{share:,} for {family}" in said, (env_id, said)
        else:
            assert family not in said, (env_id, said)


def test_the_command_page_covers_every_subcommand_and_its_python_example_runs(monkeypatch):
    from hiddengrid import cli

    text = (ROOT / "docs" / "cli.md").read_text()
    table = [line for line in text.splitlines() if line.startswith("| `")]
    named = {line.split("`")[1].split()[0] for line in table}
    assert named == {add.__name__.removeprefix("add_") for add in cli.SUBCOMMANDS}
    # The Python example, with fewer episodes: it runs and prints the table.
    code = text.split("```python\n", 1)[1].split("```", 1)[0].replace("episodes=1000", "episodes=5")
    printed: list[str] = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: printed.append(" ".join(map(str, a))))
    exec(compile(code, "docs/cli.md", "exec"), {})
    assert "hiddengrid/AnomalyMapping-v0" in printed[0] and "oracle" in printed[0]
