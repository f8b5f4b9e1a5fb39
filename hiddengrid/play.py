"""A person plays in the terminal through the text layer, seeing what a model sees.

The game's own words always win: an answer the game reads as an action is played, so
InvertedTreasure's ``reveal`` is the game's Reveal. Commands of this program start with a
colon (``:help``, ``:rules``, ``:show``, ``:reset``, ``:quit``); the bare word works too when
the game has no action of that name. Invalid answers never end a person's episode, and an
empty line just asks again. In games that move by compass words, one key moves: ``n``, ``s``,
``e``, ``w`` (when the game does not read that key itself).

``:show`` (and ``--reveal`` each turn) shows the picture and the episode's hidden scenario, the
draw the game keeps from the player (the node, the icons' meanings, the geology ...).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from hiddengrid.text.env import make_text
from hiddengrid.text.parse import TextActionError, quote

HELP = (
    "Type an action (its name or number; n, s, e, w move where the game moves by compass). "
    "Commands: ':rules' to read the rules again, "
    "':show' to show the whole hidden state, ':reset' for a new episode, ':quit' to leave "
    "(also without the colon when the game has no action of that name)."
)
COMMANDS = {
    "help": "help",
    "?": "help",
    "rules": "rules",
    "show": "show",
    "reset": "reset",
    "quit": "quit",
    "exit": "quit",
    "q": "quit",
}


KEYS = {"n": "north", "s": "south", "e": "east", "w": "west"}


def expand_key(answer: str, is_action: Callable[[str], bool]) -> str:
    """A single compass key as the game's word for it, when the game does not read the key
    itself but reads the word; anything else unchanged."""
    key = answer.strip().lower()
    if key in KEYS and not is_action(key) and is_action(KEYS[key]):
        return KEYS[key]
    return answer


def hidden_state(picture: str, scenario: Mapping[str, Any]) -> str:
    """The picture, then every field of the hidden scenario (a grid row by row)."""
    lines = [picture, "Hidden scenario of this episode:"]
    for key, value in scenario.items():
        is_grid = isinstance(value, list) and value and all(isinstance(r, list) for r in value)
        if is_grid and all(not isinstance(x, list) for r in value for x in r):
            lines.append(f"  {key}:")
            lines += ["    " + " ".join(f"{x:>3}" for x in row) for row in value]
        else:
            lines.append(f"  {key}: {json.dumps(value)}")
    return "\n".join(lines)


def command_of(answer: str, is_action: Callable[[str], bool]) -> str | None:
    """The program command ``answer`` asks for, or ``None`` when it goes to the game."""
    word = answer.strip().lower()
    if word.startswith(":"):
        return COMMANDS.get(word[1:].strip(), "unknown")
    if word in COMMANDS and not is_action(word):
        return COMMANDS[word]
    return None


def play(
    env_id: str,
    seed: int | None = None,
    reveal: bool = False,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    env_kwargs: dict[str, Any] | None = None,
) -> float:
    """Plays episodes until the person quits; returns the total score."""
    tenv = make_text(env_id, max_invalid=None, **(env_kwargs or {}))

    def is_action(word: str) -> bool:
        try:
            tenv.parse(word)
        except TextActionError:
            return False
        return True

    def show() -> str:
        return hidden_state(tenv.render(), tenv.base.scenario)

    text, _ = tenv.reset(seed=seed)
    write(text)
    write(HELP)
    score = 0.0
    while True:
        if reveal:
            write(show())
        try:
            answer = read("> ")
        except (EOFError, KeyboardInterrupt):
            write("")
            break
        if not answer.strip():
            write("Type an action, or ':help'.")
            continue
        command = command_of(answer, is_action)
        if command == "quit":
            break
        if command == "help":
            write(HELP)
            continue
        if command == "unknown":
            write(f"Unknown command {quote(answer.strip())}. {HELP}")
            continue
        if command == "rules":
            write(tenv.rules)
            continue
        if command == "show":
            write(show())
            continue
        if command == "reset":
            text, _ = tenv.reset()
            write(tenv.prompt())
            continue
        text, reward, terminated, truncated, info = tenv.step(expand_key(answer, is_action))
        score += reward
        write(text)
        if reward:
            write(f"reward {reward:g}   score {score:g}")
        if terminated or truncated:
            write(tenv.render())
            write(f"Episode over: {info.get('outcome')}. Score so far: {score:g}.")
            write("A new episode starts.")
            text, _ = tenv.reset()
            write(tenv.prompt())
    tenv.close()
    write(f"Final score: {score:g}")
    return score
