"""Reading the action out of an answer: direct mode passes it through, reasoning mode reads
only a marked last line, strictly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hiddengrid.llm.answer import (
    AnswerFormatError,
    default_max_tokens,
    extract_action,
    instruction,
    legal_actions,
)
from hiddengrid.llm.conversation import system_prompt
from hiddengrid.registry import ENV_IDS
from hiddengrid.text.env import make_text


def test_direct_mode_hands_the_whole_answer_to_the_parser():
    assert extract_action("  Move North.  ", answer_format="direct") == "  Move North.  "
    assert extract_action("", answer_format="direct") == ""


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("I am facing east.\nThe field is 2 ahead.\nACTION: move east", "move east"),
        ("action: mark", "mark"),
        ("thinking...\n\n  Action:   rotate left  \n\n", "rotate left"),
        ("Let me see.\n**ACTION:** move north", "move north"),
        ("Let me see.\n**Action**: 3", "3"),
    ],
)
def test_reasoning_mode_reads_the_marked_last_line(answer, action):
    assert extract_action(answer, answer_format="reasoning") == action


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty answer"),
        ("move north", "last line must be"),
        ("ACTION: move north\nbecause it is free", "last line must be"),
        ("ACTION: mark\nACTION: move north", "one 'ACTION:' line only"),
        ("thinking\nACTION:   ", "names no action"),
        ("my action is: move north", "last line must be"),
    ],
)
def test_reasoning_mode_is_strict(answer, reason):
    with pytest.raises(AnswerFormatError, match=reason):
        extract_action(answer, answer_format="reasoning")


_line = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).filter(
    lambda s: "action" not in s.lower() and "\r" not in s and "\x0b" not in s
)


@given(st.lists(_line, max_size=8), st.sampled_from(["mark", "move north", "4", "rotate left"]))
def test_any_thinking_before_the_marker_is_ignored(thoughts, action):
    answer = "\n".join([*thoughts, f"ACTION: {action}"])
    assert extract_action(answer, answer_format="reasoning") == action


def test_each_format_has_its_instruction_and_token_budget():
    reasoning = instruction("reasoning", "wait")
    assert "ACTION: wait" in reasoning and "nothing else" not in reasoning
    assert "ACTION:" not in instruction("direct", "wait")
    assert '{"action": "wait"}' in instruction("constrained", "wait")
    assert default_max_tokens("direct") < default_max_tokens("reasoning")
    assert default_max_tokens("reasoning") >= 1024  # room for a reasoning model to think
    with pytest.raises(ValueError, match="valid formats: direct, reasoning, constrained"):
        instruction("json", "wait")


@pytest.mark.parametrize(
    ("answer", "action"),
    [('{"action": "move north"}', "move north"), ('  {"action":"4"} ', "4")],
)
def test_constrained_format_reads_the_json_action(answer, action):
    assert extract_action(answer, answer_format="constrained") == action


@pytest.mark.parametrize("answer", ["move north", '{"act": "mark"}', '["mark"]', '{"action": 4}'])
def test_constrained_format_refuses_other_answers(answer):
    with pytest.raises(AnswerFormatError, match="JSON object"):
        extract_action(answer, answer_format="constrained")


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("answer_format", ["direct", "reasoning", "constrained"])
def test_every_env_gives_a_legal_example_and_one_answer_rule(env_id, answer_format):
    tenv = make_text(env_id)
    for seed in range(1_000_000, 1_000_005):
        tenv.reset(seed=seed)
        tenv.parse(tenv.text.ANSWER_EXAMPLE)  # legal at the start of every episode
        assert tenv.text.ANSWER_EXAMPLE in legal_actions(tenv) or env_id.endswith("Recon-v0")
    prompt = system_prompt(tenv.rules, answer_format, 1, tenv.text.ANSWER_EXAMPLE)
    # The format is said once, at the end; the env's rules never say how to answer.
    assert "answer with exactly one" not in tenv.rules.lower()
    assert prompt.endswith(instruction(answer_format, tenv.text.ANSWER_EXAMPLE))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_legal_actions_of_the_schema_all_parse_back(env_id):
    tenv = make_text(env_id)
    tenv.reset(seed=1_000_000)
    actions = legal_actions(tenv)
    assert actions and len(set(actions)) == len(actions)
    for name in actions[:50]:
        tenv.parse(name)
