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
)


def test_direct_mode_hands_the_whole_answer_to_the_parser():
    assert extract_action("  Move North.  ", reasoning=False) == "  Move North.  "
    assert extract_action("", reasoning=False) == ""


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
    assert extract_action(answer, reasoning=True) == action


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
        extract_action(answer, reasoning=True)


_line = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).filter(
    lambda s: "action" not in s.lower() and "\r" not in s and "\x0b" not in s
)


@given(st.lists(_line, max_size=8), st.sampled_from(["mark", "move north", "4", "rotate left"]))
def test_any_thinking_before_the_marker_is_ignored(thoughts, action):
    answer = "\n".join([*thoughts, f"ACTION: {action}"])
    assert extract_action(answer, reasoning=True) == action


def test_each_mode_has_its_instruction_and_token_budget():
    assert "ACTION:" in instruction(True) and "ACTION:" not in instruction(False)
    assert default_max_tokens(False) < default_max_tokens(True)
    assert default_max_tokens(True) >= 1024  # room for a reasoning model to think
