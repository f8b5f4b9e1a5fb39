"""Megacity's action space, masks, text, rendering, batching and speed."""

from __future__ import annotations

import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from helpers import make_vec, obs_equal
from mc_helpers import ENV_ID, act, make_env, scenario_with

from hiddengrid.envs.megacity import text
from hiddengrid.envs.megacity.actions import decode_action, encode_action
from hiddengrid.envs.megacity.agents import AGENTS
from hiddengrid.envs.megacity.constants import ACTION_TYPES, NUM_ACTIONS
from hiddengrid.text.parse import TextActionError


def test_action_space_is_one_flat_discrete() -> None:
    env = gym.make(ENV_ID)
    assert env.action_space == gym.spaces.Discrete(NUM_ACTIONS) and NUM_ACTIONS == 390


def test_decode_encode_round_trip_for_every_action() -> None:
    counts = dict.fromkeys(ACTION_TYPES, 0)
    for a in range(NUM_ACTIONS):
        decoded = decode_action(a)
        assert decoded[0] in ACTION_TYPES
        counts[decoded[0]] += 1
        assert encode_action(*decoded) == a
        assert encode_action(decoded) == a
        if decoded[0] == "conduit":
            assert encode_action("conduit", tuple(reversed(decoded[1]))) == a
    assert counts == {
        "excavate": 25,
        "support": 75,
        "vent": 100,
        "conduit": 159,
        "build": 25,
        "research": 4,
        "wait": 1,
        "scan": 1,
    }
    assert decode_action(np.int64(389)) == ("scan",)
    assert decode_action(0) == ("excavate", (0, 0))
    assert decode_action(encode_action("vent", (1, 2), "north")) == ("vent", (1, 2), "north")
    assert decode_action(encode_action("support", "anchor", (4, 4))) == (
        "support",
        "anchor",
        (4, 4),
    )


@pytest.mark.parametrize(
    "bad",
    [
        ("dig", (0, 0)),
        ("excavate", (5, 0)),
        ("excavate",),
        ("vent", (0, 0), "up"),
        ("support", "wood", (0, 0)),
        ("conduit", ((0, 0), (1, 1))),
        ("conduit", ((0, 0), (0, 0))),
        ("conduit", ()),
        ("research", "magic"),
        ("wait", 1),
        ("excavate", (True, 0)),
    ],
)
def test_encode_rejects_bad_structured_actions(bad) -> None:
    with pytest.raises(ValueError):
        encode_action(*bad)


@pytest.mark.parametrize("bad", [-1, 390, 1.0, "3", None, True])
def test_decode_rejects_bad_ids(bad) -> None:
    with pytest.raises(ValueError):
        decode_action(bad)


def test_masked_actions_are_legal_and_unmasked_ones_are_rejected_without_change() -> None:
    env = gym.make(ENV_ID)
    base = env.unwrapped
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=1)
    for _ in range(400):
        mask = base.action_masks()
        assert np.array_equal(mask, info["action_mask"])
        assert mask.shape == (NUM_ACTIONS,) and mask.dtype == bool and mask.any()
        illegal = np.flatnonzero(~mask)
        for a in rng.choice(illegal, size=min(5, len(illegal)), replace=False):
            before = base.batch.snapshot()
            with pytest.raises(ValueError, match="masked"):
                env.step(int(a))
            after = base.batch.snapshot()
            assert all(np.array_equal(before[k], after[k]) for k in before)
        _, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term:
            _obs, info = env.reset()


def test_vector_masks_and_rejection() -> None:
    venv = make_vec(ENV_ID, 4)
    base = venv.unwrapped
    _, info = venv.reset(seed=2)
    masks = base.action_masks()
    assert masks.shape == (4, NUM_ACTIONS) and np.array_equal(masks, info["action_mask"])
    actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    before = base.batch.snapshot()
    with pytest.raises(ValueError, match="sub-env 2"):
        venv.step(bad)
    after = base.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)
    _, _, _, _, info = venv.step(actions)
    assert set(info) >= {"reward_terms", "_reward_terms", "metrics", "_metrics", "action_mask"}
    assert info["metrics"]["integrity"].shape == (4,)


def test_autoreset_step_ignores_even_a_masked_action() -> None:
    venv = make_vec(ENV_ID, 2)
    venv.reset(seed=0)
    base = venv.unwrapped
    for _ in range(40):
        _, _, term, _, _ = venv.step(np.full(2, encode_action("wait")))
    assert term.all()
    obs, reward, term, _, _ = venv.step(np.zeros(2, dtype=np.int64))  # anything goes
    assert (obs["step"] == 0).all() and (reward == 0).all() and not term.any()
    assert base.batch["mask"][:, 0].all()


def test_single_env_matches_vector_env_with_agents() -> None:
    n = 3
    venv = make_vec(ENV_ID, n)
    vobs, _ = venv.reset(seed=50)
    agent = AGENTS["heuristic"](venv.unwrapped)
    singles = [gym.make(ENV_ID) for _ in range(n)]
    sobs = [e.reset(seed=50 + i)[0] for i, e in enumerate(singles)]
    starts = np.ones(n, dtype=bool)
    pending = [False] * n
    for _ in range(90):
        actions = agent.act(vobs, starts)
        vobs, vr, vt, _, vinfo = venv.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                sobs[i], _ = e.reset()
                pending[i] = False
            else:
                sobs[i], r, t, _, info = e.step(int(actions[i]))
                assert r == vr[i] and t == vt[i]
                assert info["reward_terms"] == {k: v[i] for k, v in vinfo["reward_terms"].items()}
                pending[i] = t
            assert obs_equal(sobs[i], {k: v[i] for k, v in vobs.items()})
        starts = vt


NOJIT = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
sys.path.insert(0, {here!r})
from trace_megacity import trace
print(json.dumps(trace()))
"""


def test_compiled_matches_no_jit_with_all_agents() -> None:
    here = os.path.dirname(__file__)
    tests = os.path.dirname(os.path.dirname(here))
    script = NOJIT.format(tests=tests, here=here)
    out = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    sys.path.insert(0, here)
    import json

    from trace_megacity import trace

    assert json.loads(out.stdout.strip().splitlines()[-1]) == json.loads(json.dumps(trace()))


def test_text_round_trip_and_strictness() -> None:
    for a in range(NUM_ACTIONS):
        s = text.format_action(a, {})
        assert text.parse_action(s, {}) == a
        assert text.parse_action(f"  [{s.upper()}]. ", {}) == a
        assert text.parse_action(str(a), {}) == a
    assert text.parse_action("vent ( 1 , 2 ) north", {}) == encode_action("vent", (1, 2), "north")
    assert text.parse_action("conduit (0,1) (0,0)", {}) == encode_action(
        "conduit", ((0, 0), (0, 1))
    )
    for junk in [
        "excavate 1 2",
        "excavate (1,2) (1,3)",
        "conduit (0,0) (1,1)",
        "vent (1,1)",
        "support wood (1,1)",
        "research",
        "research magic",
        "wait now",
        "scan scan",
        "build (7,7)",
        "390",
    ]:
        with pytest.raises(TextActionError):
            text.parse_action(junk, {})


def test_text_uses_the_mask() -> None:
    env = make_env(scenario_with())
    obs = env.unwrapped.batch
    mask = env.unwrapped.action_masks()
    with pytest.raises(TextActionError, match="not legal"):
        text.parse_action("build (0,0)", {}, mask=mask)
    assert text.parse_action("excavate (0,0)", {}, mask=mask) == 0
    o, *_ = act(env, "excavate", (0, 0))
    listed = text.legal_actions_text(o, {})
    assert "build (r,c) for (0,0)" in listed and "excavate (r,c) for (0,1)" in listed
    assert np.array_equal(text.mask_from_observation(o), env.unwrapped.action_masks())
    assert obs is env.unwrapped.batch


def test_rules_text_never_gives_the_equations() -> None:
    rules = text.rules_text({})
    for secret in (
        "34",
        "15",
        "downstream",
        "relieve",
        "shear",
        "reverse",
        "8 steps",
        "amplif",
        "fault",
        "ceil",
        "creep",
        "leak",
        "brownout",
        "3 steps",
        "geotherm",
    ):
        assert secret not in rules.lower(), secret
    o, _ = gym.make(ENV_ID).reset(seed=0)
    assert "Step 0 of 40" in text.observation_text(o, {})


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_rendering(mode) -> None:
    env = gym.make(ENV_ID, render_mode=mode)
    env.reset(seed=4)
    for a in [("research", "gravity"), ("scan",), ("excavate", (2, 2)), ("vent", (2, 2), "east")]:
        env.step(env.unwrapped.encode_action(*a))
    frame = env.render()
    if mode == "ansi":
        assert "legend" in frame and "integrity" in frame and "airflow" in frame
    else:
        assert frame.dtype == np.uint8 and frame.shape[2] == 3 and frame.shape[0] > 300


def test_picture_legend_names_every_mark_the_grid_can_show():
    from hiddengrid.envs.megacity.render import LEGEND_ENTRIES

    labels = " ".join(label for _, label in LEGEND_ENTRIES)
    for mark in ("chamber", "core", "district", "timber", "steel", "anchor", "shaft", "conduit"):
        assert mark in labels
    for mark in ("airflow", "seam", "fault", "stress"):
        assert mark in labels
    env = make_env(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    plain = np.zeros_like(frame)
    assert frame.shape[0] > frame.shape[1] // 2 and not np.array_equal(frame, plain)
