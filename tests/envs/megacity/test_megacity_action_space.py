"""``env.action_space.sample()`` draws legal actions, so generic exploration code works."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401

ID = "hiddengrid/Megacity-v0"


def test_sample_is_always_legal_and_space_is_still_discrete_390():
    env = gym.make(ID)
    assert env.action_space == gym.spaces.Discrete(390)
    env.action_space.seed(0)
    env.reset(seed=0)
    for _ in range(400):
        action = env.action_space.sample()
        assert env.unwrapped.action_masks()[action]
        _, _, terminated, _, _ = env.step(action)  # would raise if masked
        if terminated:
            env.reset()


def test_an_explicit_mask_still_wins_and_copies_stand_alone():
    env = gym.make(ID)
    env.reset(seed=1)
    only_wait = np.zeros(390, dtype=np.int8)
    only_wait[env.unwrapped.encode_action("wait")] = 1
    assert env.action_space.sample(mask=only_wait) == env.unwrapped.encode_action("wait")
    clone = copy.deepcopy(env.action_space)
    assert clone == env.action_space and clone.contains(int(clone.sample()))
