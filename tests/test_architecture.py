"""The package's layout rules, checked on the source: the engine knows no env and no
application, env packages know only the engine and the shared drawing and text helpers, each id
is spelled once, every env folder holds the same files, and every kernel takes the state's
arrays in its env's field order."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from hiddengrid.registry import ENV_IDS, ENV_PACKAGES, definition_of

PACKAGE = Path(__file__).resolve().parent.parent / "hiddengrid"

# What an env package may import from hiddengrid besides itself: the engine, the shared
# drawing (and window) helpers and the text action error. Never another env, never an
# application (eval, bench, record, train, llm, report, cli, design tools).
ENV_MAY_IMPORT = ("hiddengrid.core", "hiddengrid.render", "hiddengrid.text.parse")

# The files every env package holds (docs/CONTRIBUTING_ENVS.md); a package may add modules its
# rules need (Megacity's action table, SquadRecon's line of sight), but no design tool.
ENV_FILES = {
    "__init__.py",
    "constants.py",
    "generator.py",
    "rules.py",
    "env.py",
    "render.py",
    "agents.py",
    "text.py",
    "README.md",
}
DESIGN_TOOL_NAMES = {"calibration", "redteam", "inference", "make_docs", "make_codebook", "bench"}


def hiddengrid_imports(path: Path) -> list[str]:
    """Every ``hiddengrid...`` module a source file imports (absolute imports only: the
    package uses no relative ones, which this also checks)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            if node.module and node.module.split(".")[0] == "hiddengrid":
                names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.split(".")[0] == "hiddengrid"]
    return names


# The leaf helpers below everything: pictures and windows, and the text action error.
LEAVES = ("hiddengrid.render", "hiddengrid.text.parse")


def test_the_leaf_helpers_import_only_themselves() -> None:
    for path in [*sorted((PACKAGE / "render").glob("*.py")), PACKAGE / "text" / "parse.py"]:
        for name in hiddengrid_imports(path):
            assert name.startswith(LEAVES), f"{path.name} imports {name}"


def test_the_engine_imports_nothing_above_it() -> None:
    # No registry, no env, no application: the engine is handed definitions.
    for path in sorted((PACKAGE / "core").glob("*.py")):
        for name in hiddengrid_imports(path):
            assert name.startswith(("hiddengrid.core", *LEAVES)), f"{path.name} imports {name}"


@pytest.mark.parametrize("package", ENV_PACKAGES)
def test_env_packages_import_only_the_engine_and_themselves(package: str) -> None:
    own = f"hiddengrid.envs.{package}"
    for path in sorted((PACKAGE / "envs" / package).glob("*.py")):
        for name in hiddengrid_imports(path):
            allowed = name == own or name.startswith((own + ".", *ENV_MAY_IMPORT))
            assert allowed, f"envs/{package}/{path.name} imports {name}"


@pytest.mark.parametrize("package", ENV_PACKAGES)
def test_every_env_folder_holds_the_same_files(package: str) -> None:
    folder = PACKAGE / "envs" / package
    present = {p.name for p in folder.iterdir() if p.is_file()}
    assert present >= ENV_FILES, f"envs/{package} lacks {sorted(ENV_FILES - present)}"
    tools = {p.stem for p in folder.glob("*.py")} & DESIGN_TOOL_NAMES
    assert not tools, f"design tools in envs/{package}: {sorted(tools)} (they live in design/)"


def string_constants(path: Path) -> list[str]:
    return [
        node.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_id_is_spelled_once_in_the_env_packages(env_id: str) -> None:
    # Docstrings may mention an id; a string that *is* the id may appear in one module only,
    # its package's ``__init__`` (the registration every other module imports).
    holders = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted((PACKAGE / "envs").rglob("*.py"))
        if env_id in string_constants(path)
    ]
    assert len(holders) == 1 and holders[0].endswith("/__init__.py"), holders


# The leading parameters of each kernel (docs/CONTRIBUTING_ENVS.md); the state's arrays follow.
KERNEL_PREFIX = {
    "reset_done": ["rng", "done", "outcome"],
    "step_all": ["actions", "rng", "done", "outcome", "reward", "terminated"],
    "start_episode": ["i"],
}


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("kernel", sorted(KERNEL_PREFIX))
def test_kernel_parameters_follow_the_field_list(env_id: str, kernel: str) -> None:
    # The batch passes the state positionally, in field order (a namedtuple state loses
    # in-place writes on the threaded path), so a kernel whose names drift from the field list
    # would silently read one array as another.
    definition = definition_of(env_id)
    function = getattr(definition, kernel)
    parameters = list(inspect.signature(getattr(function, "py_func", function)).parameters)
    expected = KERNEL_PREFIX[kernel] + [f.name for f in definition.fields]
    assert parameters == expected
