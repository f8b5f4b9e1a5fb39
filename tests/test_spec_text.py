"""One spec text per env: the class docstring is the page's marked spec, and the numbers that
spec states are the ones the env's constants hold (a change of a constant that the prose does
not follow fails here)."""

from __future__ import annotations

from importlib import import_module

import pytest

from hiddengrid.core.spec import BEGIN, END, spec_from_page
from hiddengrid.envs.anomaly_mapping import constants as am
from hiddengrid.envs.field_cipher import constants as fc
from hiddengrid.envs.inverted_treasure import constants as it
from hiddengrid.envs.megacity import constants as mc
from hiddengrid.envs.squad_recon import constants as sr

# package -> (single env class, phrases the spec must state, formatted from the constants)
SPECS = {
    "anomaly_mapping": (
        "AnomalyMappingEnv",
        [
            f"{am.GRID_SIZE}x{am.GRID_SIZE}",
            f"Exactly {am.NUM_WALLS} of the {am.GRID_SIZE**2} tiles are walls",
            f"the {am.GRID_SIZE**2 - am.NUM_WALLS} free tiles",
            f"within {am.STEP_BUDGET} actions",
            f"max(0, {am.MAX_LEVEL} - d(t))",
            f"Discrete({am.STEP_BUDGET + 1})",
            f"Discrete({am.NUM_ACTIONS})",
        ],
    ),
    "field_cipher": (
        "FieldCipherEnv",
        [
            f"{fc.GRID_SIZE}x{fc.GRID_SIZE}",
            f"{fc.NUM_BLOCKS} blocks",
            f"one of {fc.NUM_PATTERNS}.",
            f"Discrete({fc.NUM_ACTIONS})",
            f"Discrete({fc.STEP_BUDGET + 1})",
            f"({fc.NUM_HINTS}, {fc.HINT_WIDTH})",
            f"{1 / fc.NUM_SLOTS:g}",
        ],
    ),
    "inverted_treasure": (
        "InvertedTreasureEnv",
        [
            f"{it.GRID_SIZE}x{it.GRID_SIZE}",
            f"{it.NUM_FLOWERS} Flowers",
            f"Discrete({it.NUM_ACTIONS})",
            f"Discrete({it.STEP_BUDGET + 1})",
            f"({it.WINDOW_SIZE}, {it.WINDOW_SIZE})",
            f"{it.STEP_BUDGET}th",
        ],
    ),
    "squad_recon": (
        "SquadReconEnv",
        [
            f"{sr.GRID_SIZE}x{sr.GRID_SIZE}",
            f"within {sr.STEP_BUDGET} steps",
            f"MultiDiscrete([{', '.join([str(sr.NUM_ORDERS)] * sr.NUM_SQUADS)}])",
            f"Chebyshev distance at least {sr.CAMP_MIN_DISTANCE}",
            f"Discrete({sr.STEP_BUDGET + 1})",
            f"{sr.SENSOR_WIDTH}x{sr.SENSOR_WIDTH}",
            f"+{sr.CAMP_REWARD:g}",
            f"({sr.NUM_SQUADS}, 4)",
            f"({sr.NUM_CAMPS}, 4)",
        ],
    ),
    "megacity": (
        "MegacityEnv",
        [
            f"Per cell ({mc.GRID}x{mc.GRID})",
            f"integrity {mc.INTEGRITY_START}, air {mc.AIR_START}, power {mc.POWER_START}",
            f"`Discrete({mc.NUM_ACTIONS})`",
            f"rock span `S = {mc.ROCK_SPAN}`",
            f"seam shear `G = {mc.SEAM_SHEAR}`",
            f"spill `E = {mc.EXCAVATION_SPILL}`",
            f"seam relief `L = {mc.SEAM_RELIEF}`",
            f"conduit amplification `A = {mc.CONDUIT_AMPLIFY}`",
            f"creep `C = {mc.CREEP}`",
            f"damage divisor `D = {mc.DAMAGE_DIVISOR}`",
            f"activation delay {mc.CORE_DELAY}",
            f"geothermal tap `{mc.FAULT_TAP}`",
            f"upkeep `{mc.DISTRICT_UPKEEP}` per core and district",
        ],
    ),
}

# The sections every spec has, by the page's own headings.
HEADINGS = {
    "megacity": ("### State", "### Levels", "### Actions", "### Observation", "### Rewards"),
}
DEFAULT_HEADINGS = ("## Description", "## Observation", "## Rewards", "## Scenario")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("package", sorted(SPECS))
def test_the_docstring_is_the_pages_spec(package: str) -> None:
    name, _ = SPECS[package]
    cls = getattr(import_module(f"hiddengrid.envs.{package}"), name)
    assert cls.__doc__ == spec_from_page(f"hiddengrid.envs.{package}")
    for heading in HEADINGS.get(package, DEFAULT_HEADINGS):
        assert heading in cls.__doc__


@pytest.mark.parametrize("package", sorted(SPECS))
def test_the_spec_states_the_constants(package: str) -> None:
    _, phrases = SPECS[package]
    spec = flat(spec_from_page(f"hiddengrid.envs.{package}"))
    missing = [p for p in phrases if p not in spec]
    assert not missing, f"{package}'s spec does not state {missing}"


def test_a_page_without_markers_is_refused(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "fakeenv"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "README.md").write_text(f"# Fake\n\n{BEGIN}\n## Description\nx\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="must mark its spec once"):
        spec_from_page("fakeenv")
    (pkg / "README.md").write_text(f"# Fake\n\n{BEGIN}\n## Description\nx\n{END}\n")
    assert spec_from_page("fakeenv") == "Fake\n\n## Description\nx\n"


def test_megacitys_prompt_states_the_constants() -> None:
    # The text prompt is written from the constants too: a changed start or goal shows here.
    from hiddengrid.envs.megacity.text import rules_text

    prompt = flat(rules_text({}))
    for phrase in [
        f"on a {mc.GRID}x{mc.GRID} grid of rock cells",
        f"{mc.DISTRICT_GOAL} active districts at the end of step {mc.STEP_BUDGET}",
        f"integrity above {mc.INTEGRITY_OK}, air above {mc.AIR_OK}",
        f"integrity {mc.INTEGRITY_START}, air {mc.AIR_START}, power {mc.POWER_START}",
    ]:
        assert phrase in prompt, phrase
