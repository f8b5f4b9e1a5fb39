"""Text interface and pictures."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import make
from squad_recon_cases import ID, A, E, H, W, start, step

from hiddengrid.envs.squad_recon import text
from hiddengrid.envs.squad_recon.render import render_ansi, render_rgb
from hiddengrid.text.parse import TextActionError


def test_every_action_round_trips():
    for action in itertools.product(range(6), repeat=3):
        s = text.format_action(np.array(action), {})
        assert text.parse_action(s, {}).tolist() == list(action), s
        assert text.parse_action(f" [{s.upper()}]. ", {}).tolist() == list(action)
        bare = " ".join(text.ORDER_NAMES[o] for o in action)
        assert text.parse_action(bare, {}).tolist() == list(action)
        assert text.parse_action(" ".join(map(str, action)), {}).tolist() == list(action)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("squad 1 north, squad 2 hold, squad 3 attack", [1, 0, 5]),
        ("north hold attack", [1, 0, 5]),
        ("1 0 5", [1, 0, 5]),
        ("[1, 0, 5]", [1, 0, 5]),
        ("Squad 3: attack; squad 1: move north; squad 2: hold position.", [1, 0, 5]),
        ("move west, move east, attack enemy camp", [4, 3, 5]),
        ("`south south south`", [2, 2, 2]),
    ],
)
def test_accepted_forms(answer, expected):
    result = text.parse_action(answer, {})
    assert result.dtype == np.int64 and result.tolist() == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "north south",
        "north south east west",
        "squad 1 north, hold, attack",
        "squad 1 north, squad 1 hold, squad 3 attack",
        "squad 4 north, squad 2 hold, squad 3 attack",
        "1 0 6",
        "-1 0 0",
        "1.0 0 0",
        "move up, hold, hold",
        "north, hold, charge",
        "northhold attack",
        None,
        5,
        [1, 0, 5],
    ],
)
def test_rejected_answers(answer):
    with pytest.raises(TextActionError):
        text.parse_action(answer, {})


def test_parsed_action_steps_the_env():
    env, _ = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)))
    obs, *_ = env.step(text.parse_action("squad 2 east, squad 1 north, squad 3 hold", {}))
    assert obs["squads"][:, :2].tolist() == [[6, 7], [7, 8], [7, 7]]


def test_texts_describe_the_state_without_hidden_camps():
    env, obs = start(squads=((7, 4, 3), (7, 4, 1), (14, 0, 1)), camps=((7, 6, 2), (0, 14, 5)))
    rules = text.rules_text({})
    assert "40 steps" in rules and "attack" in rules and "+0.5" in rules
    seen = text.observation_text(obs, {})
    assert "camp 1: row 7, col 6, strength 2, detected" in seen
    assert "camp 2: not yet detected" in seen and "14, col 14" not in seen
    assert "Steps left: 40 of 40" in seen
    legal = text.legal_actions_text(obs, {})
    assert "squad 3 at [14, 0]" in legal
    obs, *_ = step(env, E, H, H)
    assert "camp 1 next to it" in text.legal_actions_text(obs, {})
    obs, *_ = step(env, A, H, H)
    assert "eliminated" in text.observation_text(obs, {})


def test_ansi_shows_terrain_fog_units_and_legend():
    env, _ = start(
        squads=((7, 5, 3), (7, 1, 2), (14, 0, 1)), camps=((7, 6, 2), (0, 14, 5)), walls=[(3, 3)]
    )
    batch = env.unwrapped.batch
    frame = render_ansi(batch, 0)
    assert "legend" in frame
    rows = frame.splitlines()
    assert rows[1 + 7][3 + 3 * 5 + 1] == "1"  # squad 1 on row 7, col 5
    assert rows[1 + 7][3 + 3 * 6 + 1] == "C"  # detected camp
    assert rows[1 + 0][3 + 3 * 14 + 1] == "c"  # hidden camp, shown to people
    assert rows[1 + 3][3 + 3 * 3 + 1 : 3 + 3 * 3 + 3] == "#~"  # unexplored wall
    assert "squad 1: [7, 5] strength 3 alive" in frame
    step(env, A, H, H)
    frame = render_ansi(batch, 0)
    assert frame.splitlines()[1 + 7][3 + 3 * 6 + 1] == "X"
    assert frame.splitlines()[1 + 7][3 + 3 * 8 + 1 : 3 + 3 * 8 + 3] == ". "  # in sight
    step(env, W, H, H)
    frame = render_ansi(batch, 0)
    assert frame.splitlines()[1 + 7][3 + 3 * 8 + 1 : 3 + 3 * 8 + 3] == ".-"  # remembered


def test_rgb_frames():
    from hiddengrid.envs.squad_recon.render import BAR

    env = make(ID, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    # The bar under the map grew from 62 to BAR pixels when the legend was added (deliberately).
    assert frame.dtype == np.uint8 and frame.shape == (15 * 40 + BAR, 15 * 40, 3)
    # Fog: an unexplored corner is darker than the squads' own corner.
    assert frame[10:30, 560:590].mean() < frame[14 * 40 + 10 : 14 * 40 + 20, 70:110].mean()
    env.step(np.array([1, 1, 1]))
    assert not np.array_equal(frame, env.render())


def test_vector_render():
    from helpers import make_vec

    venv = make_vec(ID, 2, render_mode="rgb_array")
    venv.reset(seed=0)
    frames = venv.render()
    assert len(frames) == 2 and frames[0].shape == render_rgb(venv.unwrapped.batch, 0).shape
