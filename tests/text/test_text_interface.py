"""The text layer (docs/conventions.md, text): text env, parser fairness, oracle parity."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import make
from hypothesis import given, settings
from hypothesis import strategies as st

import hiddengrid
from hiddengrid import ENV_IDS
from hiddengrid.evaluate import run_episodes
from hiddengrid.text.transcript import TextPlayer, transcript

IDS = list(ENV_IDS)


def _same_state(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("env_id", IDS)
def test_reset_gives_rules_and_first_observation(env_id: str) -> None:
    tenv = hiddengrid.make_text(env_id)
    text, info = tenv.reset(seed=0)
    assert text.startswith(tenv.rules)
    assert tenv.observation_text() in text and tenv.legal_actions_text() in text
    assert "numeric_observation" in info


@pytest.mark.parametrize("env_id", IDS)
def test_rules_text_does_not_depend_on_the_episode(env_id: str) -> None:
    texts = set()
    for seed in range(5):
        tenv = hiddengrid.make_text(env_id)
        tenv.reset(seed=seed)
        texts.add(tenv.rules)
    assert len(texts) == 1  # so it can hold nothing an episode hides


@pytest.mark.parametrize("env_id", IDS)
def test_invalid_answers_cost_nothing_and_three_end_the_episode(env_id: str) -> None:
    tenv = hiddengrid.make_text(env_id)
    tenv.reset(seed=1)
    before = tenv.base.batch.snapshot()
    for k in range(2):
        text, reward, terminated, truncated, info = tenv.step("dance wildly")
        assert reward == 0.0 and not terminated and not truncated
        assert "invalid" in text.lower() and info["invalid_action"]
        assert tenv.steps == 0 and tenv.invalid_in_a_row == k + 1
        assert _same_state(before, tenv.base.batch.snapshot())
    text, reward, terminated, truncated, info = tenv.step("still not an action")
    assert truncated and not terminated and info["outcome"] == "invalid_actions"
    with pytest.raises(RuntimeError):
        tenv.step("0")


@pytest.mark.parametrize("env_id", IDS)
def test_a_valid_answer_resets_the_invalid_count(env_id: str) -> None:
    tenv = hiddengrid.make_text(env_id)
    tenv.reset(seed=2)
    legal = _first_legal_text(tenv)
    tenv.step("nonsense")
    tenv.step("nonsense")
    _, _, terminated, truncated, info = tenv.step(legal)
    assert "invalid_action" not in info and tenv.invalid_in_a_row == 0 and tenv.steps == 1
    if not (terminated or truncated):
        _, _, _, truncated, _ = tenv.step("nonsense")
        assert not truncated


def _first_legal_text(tenv: hiddengrid.TextEnv) -> str:
    base = tenv.base
    if base.definition.masked:
        return tenv.format_action(int(np.flatnonzero(base.action_masks())[0]))
    space = base.action_space
    action = 0 if space.shape == () else np.zeros(space.shape, dtype=np.int64)
    return tenv.format_action(action)


@pytest.mark.parametrize("env_id", IDS)
@settings(max_examples=60, deadline=None)
@given(junk=st.text(max_size=40))
def test_random_junk_never_raises_and_never_changes_state(env_id: str, junk: str) -> None:
    tenv = hiddengrid.make_text(env_id)
    tenv.reset(seed=3)
    before = tenv.base.batch.snapshot()
    try:
        tenv.parse(junk)
    except hiddengrid.text.parse.TextActionError:
        _, _, _, _, info = tenv.step(junk)
        assert "invalid_action" in info
        assert _same_state(before, tenv.base.batch.snapshot())


def _text_oracle_returns(env_id: str, episodes: int) -> list[float]:
    returns = []
    for k in range(episodes):
        tenv = hiddengrid.make_text(env_id)
        _, info = tenv.reset(seed=k)
        player = TextPlayer(tenv, "oracle", seed=k)
        total = 0.0
        while True:
            answer = player.answer(info["numeric_observation"])
            _, reward, terminated, truncated, info = tenv.step(answer)
            assert "invalid_action" not in info, info.get("invalid_action")
            total += reward
            if terminated or truncated:
                break
        returns.append(total)
    return returns


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_through_text_matches_numeric_env(env_id: str) -> None:
    episodes = 12
    numeric = run_episodes(env_id, "oracle", episodes, seed=0, batch_size=episodes).returns
    assert _text_oracle_returns(env_id, episodes) == pytest.approx(numeric, abs=0)


def test_play_runs_on_scripted_input() -> None:
    from hiddengrid.play import play

    answers = iter(["rules", "move north", "bogus", "reveal", "6", "quit"])
    lines: list[str] = []
    play("hiddengrid/AnomalyMapping-v0", seed=0, read=lambda _: next(answers), write=lines.append)
    out = "\n".join(lines)
    assert "Field levels around you" in out and "invalid" in out and "Final score" in out
    assert "legend" in out  # the reveal command draws the hidden state


def test_make_text_passes_kwargs_and_rejects_unknown() -> None:
    with pytest.raises((TypeError, ValueError)):
        hiddengrid.make_text("hiddengrid/AnomalyMapping-v0", nonsense=1)
    assert make("hiddengrid/AnomalyMapping-v0") is not None


@pytest.mark.parametrize("env_id", IDS)
def test_transcript_shows_a_whole_episode(env_id: str) -> None:
    md = transcript(env_id, seed=0)
    assert md.count("**Answer:**") >= 2 and "Outcome:" in md and "invalid" in md


@pytest.mark.parametrize("env_id", IDS)
def test_observation_text_holds_everything_the_observation_holds(env_id: str) -> None:
    """Markov text: two different numeric observations never read the same."""
    from helpers import random_action

    tenv = hiddengrid.make_text(env_id)
    rng = np.random.default_rng(0)
    seen: dict[str, bytes] = {}
    for seed in range(6):
        _, info = tenv.reset(seed=seed)
        while True:
            obs = info["numeric_observation"]
            key = b"".join(np.ascontiguousarray(obs[k]).tobytes() for k in sorted(obs))
            text = tenv.observation_text()
            assert seen.setdefault(text, key) == key, text
            action = random_action(tenv.env, rng)
            _, _, terminated, truncated, info = tenv.step(tenv.format_action(action))
            if terminated or truncated:
                break
