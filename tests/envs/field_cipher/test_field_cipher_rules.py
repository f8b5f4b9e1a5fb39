"""Every rule of FieldCipher's page, on hand-built scenarios through the public single env."""

import gymnasium as gym
import numpy as np
import pytest
from fc_helpers import ENV_ID, HEX, scenario

import hiddengrid  # noqa: F401

RIGHT, LEFT, FINALIZE = 16, 17, 18


def start(message="3F0A", level=0):
    env = gym.make(ENV_ID, level=level)
    obs, info = env.reset(options={"scenario": scenario(message)})
    return env, obs, info


def play(env, actions):
    out = []
    for a in actions:
        out.append(env.step(a))
    return out


def test_reset_observation():
    env, obs, info = start()
    assert obs["step"] == 0 and obs["cursor"] == 0
    assert obs["slots"].tolist() == [16, 16, 16, 16]
    assert obs["grid"].shape == (9, 9) and obs["grid"].dtype == np.int8
    assert obs["hints"].shape == (4, 5) and obs["hints"].dtype == np.int8
    assert obs["grid"].tolist() == scenario()["grid"]
    assert obs["hints"].tolist() == scenario()["hints"]
    assert info == {}
    assert env.observation_space.contains(obs)


def test_write_fills_the_slot_under_the_cursor_and_does_not_move_it():
    env, _, _ = start()
    obs, reward, term, trunc, info = env.step(7)
    assert obs["slots"].tolist() == [7, 16, 16, 16]
    assert obs["cursor"] == 0 and obs["step"] == 1
    assert (reward, term, trunc, info) == (0.0, False, False, {})
    obs, *_ = env.step(12)  # overwrite
    assert obs["slots"].tolist() == [12, 16, 16, 16] and obs["cursor"] == 0


def test_cursor_right_wraps_from_slot_3_to_0():
    env, _, _ = start()
    cursors = [s[0]["cursor"] for s in play(env, [RIGHT] * 5)]
    assert cursors == [1, 2, 3, 0, 1]


def test_cursor_left_wraps_from_slot_0_to_3():
    env, _, _ = start()
    cursors = [s[0]["cursor"] for s in play(env, [LEFT] * 5)]
    assert cursors == [3, 2, 1, 0, 3]


def test_cursor_moves_change_nothing_else():
    env, obs0, _ = start()
    env.step(5)
    obs, reward, term, _, _ = env.step(RIGHT)
    assert obs["slots"].tolist() == [5, 16, 16, 16] and reward == 0.0 and not term
    assert (obs["grid"] == obs0["grid"]).all() and (obs["hints"] == obs0["hints"]).all()


def type_answer(answer):
    actions = []
    for ch in answer:
        if ch != "_":
            actions.append(HEX.index(ch))
        actions.append(RIGHT)
    return actions[:-1]


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("3F0A", 4),
        ("3F0B", 3),
        ("3000", 2),
        ("0F11", 1),
        ("0000", 1),
        ("1111", 0),
        ("A03F", 0),
        ("____", 0),
        ("3F__", 2),
        ("_F_A", 2),
        ("3___", 1),
    ],
)
def test_finalize_pays_a_quarter_per_right_slot(answer, correct):
    env, _, _ = start("3F0A")
    for a in type_answer(answer):
        _, reward, term, _, _ = env.step(a)
        assert reward == 0.0 and not term  # reward only at the end
    _obs, reward, term, trunc, info = env.step(FINALIZE)
    assert term is True and trunc is False
    assert isinstance(reward, float) and reward == 0.25 * correct
    assert info == {"outcome": "submitted", "correct": correct}
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_empty_slots_score_nothing_even_where_the_message_has_no_digit_to_match():
    env, _, _ = start("0000")
    _, reward, _, _, info = env.step(FINALIZE)
    assert reward == 0.0 and info["correct"] == 0


def test_timeout_after_exactly_40_actions_scores_the_slots():
    env, _, _ = start("3F0A")
    actions = type_answer("3F0_")  # 5 actions
    actions += [LEFT, RIGHT] * 20
    actions = actions[:40]
    for t, a in enumerate(actions[:39]):
        obs, reward, term, trunc, info = env.step(a)
        assert not term and not trunc and reward == 0.0, t
        assert obs["step"] == t + 1
    obs, reward, term, trunc, info = env.step(actions[39])
    assert term and not trunc
    assert obs["step"] == 40
    assert reward == 0.75 and info == {"outcome": "timeout", "correct": 3}


def test_finalize_as_the_40th_action_is_submitted():
    env, _, _ = start("3F0A")
    for _ in range(39):
        _, _, term, _, _ = env.step(3)
        assert not term
    obs, reward, term, _, info = env.step(FINALIZE)
    assert term and info == {"outcome": "submitted", "correct": 1} and reward == 0.25
    assert obs["step"] == 40


def test_grid_and_hints_never_change():
    env, obs0, _ = start("BEEF", level=3)
    rng = np.random.default_rng(0)
    for a in rng.integers(0, 18, size=39):
        obs, *_ = env.step(int(a))
        assert (obs["grid"] == obs0["grid"]).all()
        assert (obs["hints"] == obs0["hints"]).all()


def test_each_action_only_advances_step_by_one():
    env, _, _ = start()
    for t, a in enumerate([0, 15, RIGHT, LEFT, 9]):
        obs, *_ = env.step(a)
        assert obs["step"] == t + 1


def test_oracle_answer_in_8_actions_gives_1():
    env, _, _ = start("C0DE")
    actions = [*type_answer("C0DE"), FINALIZE]
    assert len(actions) == 8
    *_, last = play(env, actions)
    assert last[1] == 1.0 and last[4]["correct"] == 4
