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


def test_the_command_page_covers_every_subcommand_and_its_python_example_runs(capsys):
    from hiddengrid import cli

    text = (ROOT / "docs" / "cli.md").read_text()
    table = [line for line in text.splitlines() if line.startswith("| `")]
    named = {line.split("`")[1].split()[0] for line in table}
    assert named == {add.__name__.removeprefix("add_") for add in cli.SUBCOMMANDS}
    # The Python example, with fewer episodes: it runs and prints the table.
    code = text.split("```python\n", 1)[1].split("```", 1)[0].replace("episodes=1000", "episodes=5")
    # Its output read from stdout, not by replacing print: Numba prints its type annotations
    # into a buffer while it caches a kernel, so with a cold cache print is called before.
    exec(compile(code, "docs/cli.md", "exec"), {})
    printed = capsys.readouterr().out
    assert any(
        "hiddengrid/AnomalyMapping-v0" in line and "oracle" in line for line in printed.splitlines()
    )
