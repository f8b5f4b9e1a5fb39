"""What a packager and a citer look for: the license, typing marker, extras and metadata."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import hiddengrid

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_all_installs_every_extra_but_the_test_servers_model_stack():
    extras = PROJECT["optional-dependencies"]
    (spec,) = extras["all"]
    listed = set(re.fullmatch(r"hiddengrid\[(.*)\]", spec).group(1).split(","))
    assert listed == set(extras) - {"all", "llm-server-test"}


def test_license_is_an_spdx_string_with_its_file():
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_classifiers_say_typed_and_the_python_versions():
    classifiers = PROJECT["classifiers"]
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX string says it


def test_the_package_is_marked_typed_and_ships_the_marker():
    assert (Path(hiddengrid.__file__).parent / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in data["package-data"]["*"]


def test_citation_and_changelog_name_this_version():
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version: 1.2.0" in citation
    assert f'version: "{hiddengrid.__version__}"' in citation
    assert "license: MIT" in citation
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{hiddengrid.__version__}]" in changelog


def test_the_ci_runs_exactly_the_readmes_test_command_with_every_integration():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```bash\n(python3 -m venv .*?)\n```", readme)
    tests = [c for c in commands if "pytest" in c]
    assert len(tests) == 1
    assert tests[0] in (ROOT / ".ci" / "run").read_text().splitlines()
    extras = re.search(r'pip install "\.\[(.*?)\]"', tests[0]).group(1).split(",")
    for extra in ("torchrl", "ray", "rllib", "puffer"):
        assert extra in extras and extra in PROJECT["optional-dependencies"]
    # PyPI's pufferlib-core wheel links CUDA's runtime: the command rebuilds it for the CPU,
    # so PuffeRL imports and its tests (tests/train/test_pufferl.py) run instead of skipping
    rebuild = tests[0].split(" && ")[-2]
    assert rebuild.startswith("PUFFERLIB_DISABLE_CUDA=1 .venv/bin/pip install --no-build-isolation")
    assert "--no-binary pufferlib-core" in rebuild and "--no-cache-dir" in rebuild
