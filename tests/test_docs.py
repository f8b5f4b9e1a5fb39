"""The docs stand alone: every link resolves inside the repository, and no page points to
material a reader of the repository cannot open (design notes, seed files, issue numbers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# "SPEC" is matched in capitals only: in other cases it is an API word (Gymnasium's EnvSpec,
# find_spec, RLlib's RLModuleSpec and rl_module_spec=), not a reference to the contract.
UNFOLLOWABLE = re.compile(
    r"(?-i:SPEC\b)|SPEC\.md|\.\./shared/|seed document|seeds?/\d|\bseed 00\d|\bthe seed's\b"
    r"|\bissue #?\d+|\bthe issue\b|[0-9]{3}_[0-9a-f]{16}\.txt",
    re.IGNORECASE,
)


def _files(pattern: str) -> list[Path]:
    return sorted(ROOT.glob(pattern))


TEXT_FILES = [
    *_files("*.md"),
    *_files("docs/**/*.md"),
    *_files("hiddengrid/**/*.md"),
    *_files("hiddengrid/**/*.py"),
    *_files("tests/**/*.py"),
    *_files("examples/**/*.py"),
]


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reference_outside_the_repository(path: Path) -> None:
    if path == Path(__file__):
        return
    for number, line in enumerate(path.read_text().splitlines(), 1):
        assert not UNFOLLOWABLE.search(line), f"{path.name}:{number}: {line.strip()}"


@pytest.mark.parametrize(
    "path", [p for p in TEXT_FILES if p.suffix == ".md"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_relative_link_resolves(path: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        assert (path.parent / target.split("#")[0]).exists(), f"{path.name}: {target}"
