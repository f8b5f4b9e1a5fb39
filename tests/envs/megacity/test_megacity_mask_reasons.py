"""A masked action is refused with its reason, the reason agrees with the mask everywhere, and
the mask has Gymnasium's own type (``int8``), so the standard sampling idiom works."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import hiddengrid  # noqa: F401
from hiddengrid.envs.megacity.actions import why_masked
from hiddengrid.envs.megacity.constants import NUM_ACTIONS
from hiddengrid.envs.megacity.text import parse_action

ID = "hiddengrid/Megacity-v0"


def test_the_reason_is_given_exactly_where_the_mask_says_no():
    """Over random legal play (development seeds), ``why_masked`` is None iff the mask is 1."""
    env = gym.make(ID)
    base = env.unwrapped
    rng = np.random.default_rng(1_000_003)
    _, info = env.reset(seed=1_000_003)
    seen_reasons = set()
    for _ in range(300):
        mask = info["action_mask"]
        for a in range(NUM_ACTIONS):
            why = why_masked(base.batch.fields, 0, a)
            assert (why is None) == bool(mask[a]), (a, why)
            if why is not None:
                seen_reasons.add(why.split(";")[0].split(" costs ")[0].split("cell")[0])
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            _, info = env.reset()
    # Every kind of reason came up, not only "costs more power".
    assert {"excavate needs rock", "build needs a chamber", "vent needs an open "} <= seen_reasons


def test_a_masked_build_says_it_needs_a_chamber():
    env = gym.make(ID)
    env.reset(seed=1_000_000)
    base = env.unwrapped
    build = base.encode_action(("build", (0, 0)))  # all rock at the start
    with pytest.raises(ValueError, match=r"masked now, as build needs a chamber; cell \(0, 0\)"):
        env.step(build)


def test_the_mask_samples_with_gymnasiums_own_idiom():
    env = gym.make(ID)
    _, info = env.reset(seed=1_000_001)
    assert info["action_mask"].dtype == np.int8
    env.action_space.seed(5)
    for _ in range(100):
        action = env.action_space.sample(mask=info["action_mask"])
        assert info["action_mask"][action] == 1
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            _, info = env.reset()
    venv = gym.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point")
    _, info = venv.reset(seed=1_000_002)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (3, NUM_ACTIONS)
    actions = venv.action_space.sample(mask=tuple(info["action_mask"]))
    venv.step(actions)  # legal everywhere, or it would raise


def test_a_parse_error_uses_the_right_article():
    env = gym.make(ID)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="as an excavate action"):
        parse_action("excavate (9, x)", env.unwrapped.config)
