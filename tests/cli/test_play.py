"""``hiddengrid play``: one-key moves, and ``:show`` / ``--reveal`` show the hidden draw."""

from __future__ import annotations

import gymnasium as gym
from helpers import scripted

from hiddengrid.play import expand_key, play


def test_one_key_moves_like_the_word():
    by_key = scripted(["n", "e", "e", ":quit"])
    by_word = scripted(["north", "east", "east", ":quit"])
    for read, write, _ in (by_key, by_word):
        play("hiddengrid/AnomalyMapping-v0", seed=1_000_000, read=read, write=write)
    assert by_key[2] == by_word[2]
    assert "Your last answer was invalid" not in "\n".join(by_key[2])


def test_a_key_the_game_reads_itself_goes_to_the_game():
    is_action = {"e": True, "east": True}.get
    assert expand_key("e", lambda w: bool(is_action(w))) == "e"
    assert expand_key("W", lambda w: w == "west") == "west"
    assert expand_key("x", lambda w: True) == "x"


def test_show_and_reveal_show_inverted_treasures_hidden_icons():
    env = gym.make("hiddengrid/InvertedTreasure-v0")
    env.reset(seed=1_000_001)
    icons = env.unwrapped.scenario["icons"]
    row = "    " + " ".join(f"{x:>3}" for x in icons[0])
    read, write, written = scripted([":show", ":quit"])
    play("hiddengrid/InvertedTreasure-v0", seed=1_000_001, read=read, write=write)
    shown = "\n".join(written)
    assert "Hidden scenario of this episode:" in shown and row in shown
    read, write, written = scripted([":quit"])
    play("hiddengrid/InvertedTreasure-v0", seed=1_000_001, reveal=True, read=read, write=write)
    assert row in "\n".join(written)
