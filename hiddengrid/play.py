"""A person plays in the terminal through the text layer, seeing what a model sees."""

from __future__ import annotations

from collections.abc import Callable

from hiddengrid.text.env import make_text

HELP = (
    "Type an action (its name or number), 'rules' to read the rules again, "
    "'reveal' to show the whole hidden state, 'reset' for a new episode, 'quit' to leave."
)


def play(
    env_id: str,
    seed: int | None = None,
    reveal: bool = False,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> float:
    """Plays episodes until the person quits; returns the total score."""
    tenv = make_text(env_id)
    text, _ = tenv.reset(seed=seed)
    write(text)
    write(HELP)
    score = 0.0
    while True:
        if reveal:
            write(tenv.render())
        try:
            answer = read("> ")
        except (EOFError, KeyboardInterrupt):
            write("")
            break
        command = answer.strip().lower()
        if command in ("quit", "q", "exit"):
            break
        if command in ("help", "?"):
            write(HELP)
            continue
        if command == "rules":
            write(tenv.rules)
            continue
        if command == "reveal":
            write(tenv.render())
            continue
        if command == "reset":
            text, _ = tenv.reset()
            write(tenv.prompt())
            continue
        text, reward, terminated, truncated, info = tenv.step(answer)
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
