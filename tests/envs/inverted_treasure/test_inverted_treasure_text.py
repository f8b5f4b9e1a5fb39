"""The text interface: rules that never tell which icon is which, observations, the parser."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from it_helpers import BASE_ID, IDS, SCOUT_ID, icons

from hiddengrid.envs.inverted_treasure import text
from hiddengrid.envs.inverted_treasure.constants import ACTION_NAMES, REVEAL
from hiddengrid.text.parse import TextActionError

CONFIGS = ({"scout": False}, {"scout": True})


@pytest.mark.parametrize("config", CONFIGS)
def test_every_action_round_trips(config):
    for action in range(6):
        s = text.format_action(action, config)
        assert text.parse_action(s, config) == action
        assert text.parse_action(f" [{s.upper()}]. ", config) == action
        assert text.parse_action(str(action), config) == action


@pytest.mark.parametrize(
    "junk",
    ["", "move", "northward", "move up", "go east", "6", "-1", "1.5", "reveal and wait", None, 3],
)
def test_junk_is_rejected(junk):
    with pytest.raises(TextActionError):
        text.parse_action(junk, {"scout": False})


def sentences(s: str) -> list[str]:
    return [x.strip().lower() for x in re.split(r"[.:;\n]", s) if x.strip()]


@pytest.mark.parametrize("config", CONFIGS)
def test_rules_never_say_which_icon_is_the_treasure(config):
    rules = text.rules_text(config)
    assert "Bomb icon" in rules and "Flower icon" in rules
    # The two icons are only ever named together, so no sentence can tie one of them to the
    # treasure or to the traps; and the counts (1 and 10) that would give it away are absent.
    for sentence in sentences(rules):
        assert ("bomb" in sentence) == ("flower" in sentence), sentence
    lowered = rules.lower()
    for leak in ("ten ", "10 ", " one bomb", "1 bomb", "inverted", "opposite", "reversed"):
        assert leak not in lowered, leak
    swapped = rules.replace("Bomb", "@").replace("Flower", "Bomb").replace("@", "Flower")
    assert sorted(swapped.split()) == sorted(rules.split())  # symmetric in the two icons


def test_rules_describe_the_variant_reveal():
    assert "four tiles next to it" in text.rules_text({"scout": True})
    assert "four tiles next to it" not in text.rules_text({"scout": False})
    assert "your own tile" in text.rules_text({"scout": False})


def test_observation_text_is_north_up_with_x_y_labels():
    env = gym.make(SCOUT_ID)
    level = {"icons": icons(bomb=(0, 1), flowers=[(1, 0)])}
    obs, _ = env.reset(options={"scenario": level})
    obs, *_ = env.step(REVEAL)
    out = text.observation_text(obs, {"scout": True})
    lines = out.splitlines()
    assert lines[1].split() == ["-2", "-1", "0", "1", "2"]  # x labels
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:7]}
    assert list(rows) == ["2", "1", "0", "-1", "-2"]  # y labels, north on top
    assert rows["1"] == ["#", "#", "B", "?", "?"]  # the Bomb icon north of the agent
    assert rows["0"] == ["#", "#", ".", "F", "?"]  # the agent's tile, a Flower icon east
    assert rows["-1"] == ["#"] * 5
    assert "(x, y) = (0, 0)" in out and "Steps left: 29 of 30" in out
    assert "your tile is Empty" in out


def test_observation_text_at_reset_shows_the_start_tile_unseen():
    env = gym.make(BASE_ID)
    obs, _ = env.reset(seed=0)
    out = text.observation_text(obs, {"scout": False})
    assert "your tile is unseen" in out and "Steps left: 30 of 30" in out


@pytest.mark.parametrize("env_id", IDS)
def test_legal_actions_list_all_six(env_id):
    env = gym.make(env_id)
    obs, _ = env.reset(seed=0)
    listed = text.legal_actions_text(obs, env.unwrapped.config)
    for k, name in enumerate(ACTION_NAMES):
        assert f"{k} {name}" in listed
