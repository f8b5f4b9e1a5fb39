"""Shared test helpers: legal random actions and trajectory traces for differential tests."""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import hiddengrid  # noqa: F401  (registers the ids)


def random_action(env: Any, rng: np.random.Generator) -> Any:
    """A legal action of a single env (respecting ``action_masks()`` where the env has one)."""
    base = env.unwrapped
    if base.definition.masked:
        legal = np.flatnonzero(base.action_masks())
        return int(rng.choice(legal))
    space = base.action_space
    if isinstance(space, spaces.Discrete):
        return int(rng.integers(0, int(space.n)))
    return rng.integers(0, space.nvec).astype(np.int64)


def random_actions(venv: Any, rng: np.random.Generator) -> np.ndarray:
    """Legal random actions for every sub-env of a vector env."""
    base = venv.unwrapped if hasattr(venv, "unwrapped") else venv
    space = base.single_action_space
    n = base.num_envs
    if base.definition.masked:
        masks = base.action_masks()
        return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)
    if isinstance(space, spaces.Discrete):
        return rng.integers(0, int(space.n), size=n)
    return rng.integers(0, space.nvec, size=(n, *space.shape))


def all_actions(space: spaces.Space) -> list[Any]:
    if isinstance(space, spaces.Discrete):
        return list(range(int(space.n)))
    return [np.array(t) for t in itertools.product(*(range(int(n)) for n in space.nvec))]


def make(env_id: str, **kwargs: Any) -> gym.Env:
    return gym.make(env_id, **kwargs)


def make_vec(env_id: str, n: int, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def obs_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def vector_trace(env_id: str, n: int, seed: int, steps: int) -> list[Any]:
    """Observations, rewards, flags and outcomes of a seeded vector run with seeded actions."""
    venv = make_vec(env_id, n)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    trace: list[Any] = [{k: v.tolist() for k, v in obs.items()}]
    for _ in range(steps):
        obs, reward, term, trunc, info = venv.step(random_actions(venv, rng))
        trace.append(
            [
                {k: v.tolist() for k, v in obs.items()},
                reward.tolist(),
                term.tolist(),
                trunc.tolist(),
                [str(x) for x in info.get("outcome", [None] * n)],
            ]
        )
    return trace


def scripted(lines: list[str]) -> tuple[Any, Any, list[str]]:
    """A scripted person at ``hiddengrid play``: ``read`` answers ``lines`` in turn (then end of
    input), ``write`` keeps what the game printed in the returned list."""
    answers = iter(lines)
    written: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read, written.append, written


# The head of a script run in a fresh process that records the qualified name of every function
# Numba compiles there, in ``compiled`` (the script prints it); a cached function adds nothing.
COMPILE_COUNTER = """
import json, sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
"""


def play_checkpoint(env_id: str, checkpoint: Any, episodes: int, **kwargs: Any) -> Any:
    """``hiddengrid eval``'s episodes of a trained checkpoint (the env refuses an illegal
    action, Megacity's masked ones included, so playing them through is itself a check);
    ``kwargs`` go to ``run_episodes`` (``env_kwargs``, ``seed``)."""
    from hiddengrid.evaluate import run_episodes
    from hiddengrid.train.agent import PPOAgent

    played = run_episodes(
        env_id,
        "ppo",
        episodes,
        agent_factory=lambda env, seed: PPOAgent(env, seed, checkpoint=str(checkpoint)),
        **kwargs,
    )
    assert played.episodes == episodes and sum(played.outcomes.values()) == episodes
    return played


def cli_error(argv: list[str], capsys: Any) -> str:
    """The CLI's one-line error (exit status 2, nothing else on stderr, no traceback)."""
    from hiddengrid.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]
