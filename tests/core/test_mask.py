"""Action masks served by the engine: every env answers ``action_masks()``, a masked env's
info carries ``"action_mask"`` in Gymnasium's mask dtype, its ``action_space.sample()`` draws a
legal action, and a masked action is refused before anything changes."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from helpers import make, make_vec

from hiddengrid import ENV_IDS, definition_of
from hiddengrid.core.mask import LegalActionSpace

MASKED = [i for i in ENV_IDS if definition_of(i).masked]
UNMASKED = [i for i in ENV_IDS if not definition_of(i).masked]


def test_some_env_masks_and_some_does_not() -> None:
    assert MASKED and UNMASKED


@pytest.mark.parametrize("env_id", UNMASKED)
def test_an_unmasked_env_answers_all_legal(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=0)
    space = env.action_space
    width = int(space.n) if isinstance(space, spaces.Discrete) else int(np.sum(space.nvec))
    masks = env.unwrapped.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (width,) and masks.all()
    venv = make_vec(env_id, 3)
    venv.reset(seed=0)
    assert venv.action_masks().shape == (3, width) and venv.action_masks().all()
    _, info = env.reset(seed=1)
    assert "action_mask" not in info


@pytest.mark.parametrize("env_id", MASKED)
def test_a_masked_env_reports_its_mask_in_gymnasiums_dtype(env_id: str) -> None:
    env = make(env_id)
    _, info = env.reset(seed=3)
    mask = info["action_mask"]
    assert mask.dtype == np.int8
    np.testing.assert_array_equal(mask.astype(bool), env.unwrapped.action_masks())
    assert 0 < mask.sum() < mask.size  # some actions are masked at the start
    for _ in range(20):  # Gymnasium's own idiom draws only legal actions
        action = env.action_space.sample(mask=info["action_mask"])
        assert mask[action] == 1
    _, _, _, _, info = env.step(int(env.action_space.sample(mask=mask)))
    assert info["action_mask"].dtype == np.int8
    venv = make_vec(env_id, 4)
    _, vinfo = venv.reset(seed=3)
    assert vinfo["action_mask"].dtype == np.int8 and vinfo["_action_mask"].all()
    np.testing.assert_array_equal(vinfo["action_mask"][0], mask)


@pytest.mark.parametrize("env_id", MASKED)
def test_the_space_samples_legal_actions_and_a_masked_one_changes_nothing(env_id: str) -> None:
    env = make(env_id)
    env.reset(seed=5)
    assert isinstance(env.action_space, LegalActionSpace)
    legal = env.unwrapped.action_masks()
    for _ in range(50):
        assert legal[env.action_space.sample()]
    illegal = int(np.flatnonzero(~legal)[0])
    fields = {k: v.copy() for k, v in env.unwrapped.batch.fields.items()}
    with pytest.raises(ValueError, match=rf"illegal action {illegal}\b"):
        env.step(illegal)
    for k, v in env.unwrapped.batch.fields.items():
        np.testing.assert_array_equal(v, fields[k], err_msg=k)
    venv = make_vec(env_id, 3)
    venv.reset(seed=5)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()])
    actions[2] = int(np.flatnonzero(~venv.action_masks()[2])[0])
    with pytest.raises(ValueError, match="in sub-env 2"):
        venv.step(actions)
