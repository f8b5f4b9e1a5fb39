"""The text interface: strict parser, round trip, and no codebook in the rules text."""

import gymnasium as gym
import numpy as np
import pytest
from fc_helpers import ENV_ID, scenario

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher import CODEBOOK, text
from hiddengrid.text.parse import TextActionError

CONFIG = {"level": 0}


@pytest.mark.parametrize("action", range(19))
def test_parse_format_round_trip(action):
    assert text.parse_action(text.format_action(action, CONFIG), CONFIG) == action
    assert text.parse_action(str(action), CONFIG) == action
    assert text.format_action(np.int64(action), CONFIG) == text.format_action(action, CONFIG)


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("write 3", 3),
        ("write a", 10),
        ("write A", 10),
        ("WRITE f", 15),
        ("  write 0. ", 0),
        ("[write b]", 11),
        ("`cursor right`", 16),
        ("cursor left", 17),
        ("Finalize", 18),
        ("18", 18),
        ("0", 0),
        ("action: write c", 12),
    ],
)
def test_parse_accepts(answer, action):
    assert text.parse_action(answer, CONFIG) == action


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   ",
        "write",
        "write 10",
        "write g",
        "write 3 write 4",
        "write 3 and finalize",
        "19",
        "-1",
        "1.5",
        "cursor up",
        "right",
        "submit",
        "write0",
        "finalise",
        "0x3",
        None,
        3,
        b"write 3",
    ],
)
def test_parse_rejects(answer):
    with pytest.raises(TextActionError):
        text.parse_action(answer, CONFIG)


@pytest.mark.parametrize("bad", [19, -1, 1.5, True, "3"])
def test_format_rejects_non_actions(bad):
    with pytest.raises(ValueError):
        text.format_action(bad, CONFIG)


def test_rules_text_never_reveals_the_codebook():
    rules = text.rules_text(CONFIG)
    assert "40" in rules and "0.25" in rules and "2x2" in rules
    assert "codebook" in rules
    # no pattern -> value table: no line mentions a 4-cell pattern with a value
    for p in range(81):
        cells = f"{p // 27}{(p // 9) % 3}{(p // 3) % 3}{p % 3}"
        assert f"{cells} -> {CODEBOOK[p]}" not in rules
    assert "->" not in rules


def test_observation_and_legal_actions_text():
    env = gym.make(ENV_ID)
    obs, _ = env.reset(options={"scenario": scenario("3F0A")})
    obs, *_ = env.step(10)
    obs, *_ = env.step(16)
    s = text.observation_text(obs, CONFIG)
    assert "Hints" in s and "value" in s
    assert " A " in s and "[_]" in s and "slot 2" in s
    assert "2 of 40" in s and "38 left" in s
    for h in scenario()["hints"]:
        assert f"-> value {h[4]}" in s
    legal = text.legal_actions_text(obs, CONFIG)
    assert "0 write 0" in legal and "15 write F" in legal and "18 finalize" in legal
