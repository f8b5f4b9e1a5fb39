"""The text layer's shared grammar and its limits: what every game reads the same way, and
what no answer, however odd or long, can do to it."""

from __future__ import annotations

import numpy as np
import pytest

import hiddengrid
from hiddengrid import ENV_IDS
from hiddengrid.text.env import REASON_LIMIT
from hiddengrid.text.parse import ECHO_LIMIT, TextActionError, parse_choice, quote

IDS = list(ENV_IDS)
AM = "hiddengrid/AnomalyMapping-v0"
FC = "hiddengrid/FieldCipher-v0"
IT = "hiddengrid/InvertedTreasure-v0"
SR = "hiddengrid/SquadRecon-v0"
MC = "hiddengrid/Megacity-v0"


def parse(env_id: str, text: object) -> object:
    definition = hiddengrid.definition_of(env_id)
    tenv = hiddengrid.make_text(env_id)
    return definition.text.parse_action(text, tenv.config)


@pytest.mark.parametrize(
    ("env_id", "answer", "expected"),
    [
        (AM, "north", 0),
        (AM, "move north", 0),
        (AM, "West.", 3),
        (IT, "north", 0),
        (IT, "east", 3),
        (IT, "hold", 5),
        (IT, "wait", 5),
        (FC, "A", 10),
        (FC, "f", 15),
        (FC, "write A", 10),
        (FC, "7", 7),
        (FC, "[b]", 11),
        (MC, "wait", 388),
        (MC, "hold", 388),
        (MC, "388", 388),
    ],
)
def test_shared_grammar(env_id: str, answer: str, expected: int) -> None:
    assert parse(env_id, answer) == expected


def test_squad_recon_reads_the_shared_words() -> None:
    assert parse(SR, "move north, wait, attack").tolist() == [1, 0, 5]
    assert parse(SR, "squad 2 wait, squad 1 east, squad 3 hold").tolist() == [3, 0, 0]


@pytest.mark.parametrize("env_id", [AM, FC, IT, SR, MC])
@pytest.mark.parametrize("digits", ["\u0663", "\uff13", "\u0967", "\U0001d7d1"])
def test_only_ascii_digits_are_numbers(env_id: str, digits: str) -> None:
    answer = " ".join([digits] * 3) if env_id == SR else digits
    with pytest.raises(TextActionError):
        parse(env_id, answer)


@pytest.mark.parametrize("env_id", [AM, FC, IT, SR, MC])
def test_huge_numbers_are_out_of_range_not_errors(env_id: str) -> None:
    huge = "9" * 4301  # past Python's int-conversion limit
    answer = f"{huge} 0 0" if env_id == SR else huge
    with pytest.raises(TextActionError, match="out of range") as info:
        parse(env_id, answer)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("env_id", IDS)
def test_no_answer_makes_step_raise_or_the_prompt_grow(env_id: str) -> None:
    tenv = hiddengrid.make_text(env_id, max_invalid=None)
    tenv.reset(seed=0)
    normal = len(tenv.prompt("x"))
    for answer in ["9" * 4301, "x" * 100_000, "move " * 20_000, "\x00", "😀" * 500]:
        reply, reward, terminated, truncated, info = tenv.step(answer)
        assert not (terminated or truncated) and reward == 0.0
        assert len(info["invalid_action"]) <= REASON_LIMIT
        assert len(reply) <= normal + REASON_LIMIT
    assert tenv.steps == 0


def test_megacity_cells_take_ascii_digits_only_and_echo_capped() -> None:
    assert parse(MC, "excavate (1,2)") == 7
    for answer in ["excavate (\u0661,2)", "build (\uff11, 2)", "excavate (1," + "9" * 5000 + ")"]:
        with pytest.raises(TextActionError) as info:
            parse(MC, answer)
        assert len(str(info.value)) < ECHO_LIMIT + 100


def test_quote_caps_the_echo() -> None:
    assert quote("abc") == "'abc'"
    long = quote("y" * 10_000)
    assert len(long) < ECHO_LIMIT + 40 and "10000 characters" in long
    with pytest.raises(TextActionError) as info:
        parse_choice("z" * 10_000, ["go"])
    assert len(str(info.value)) < ECHO_LIMIT + 100


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3", np.timedelta64(3)])
def test_make_text_checks_max_invalid(bad: object) -> None:
    with pytest.raises(ValueError, match="max_invalid"):
        hiddengrid.make_text(AM, max_invalid=bad)


def test_max_invalid_none_never_ends_the_episode() -> None:
    tenv = hiddengrid.make_text(AM, max_invalid=None)
    tenv.reset(seed=0)
    for _ in range(50):
        *_, terminated, truncated, _info = tenv.step("nonsense")
        assert not (terminated or truncated)
    tenv = hiddengrid.make_text(AM, max_invalid=np.int64(1))
    tenv.reset(seed=0)
    assert tenv.step("nonsense")[3]  # one invalid answer ends it


@pytest.mark.parametrize("env_id", [AM, FC, IT, SR])
def test_rules_text_gives_the_short_forms(env_id: str) -> None:
    rules = hiddengrid.make_text(env_id).rules
    assert ('"north"' in rules) or ("wait" in rules and "move north" in rules) or '"A"' in rules
