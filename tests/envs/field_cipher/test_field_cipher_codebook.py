"""The codebook is the one FieldCipher's page fixes: a literal, balanced, padding-safe table."""

import ast
import collections
import inspect

from hiddengrid.design.field_cipher.make_codebook import make_codebook
from hiddengrid.envs import field_cipher
from hiddengrid.envs.field_cipher import CODEBOOK, constants


def test_codebook_is_a_tuple_of_81_two_bit_values():
    assert isinstance(CODEBOOK, tuple)
    assert len(CODEBOOK) == 81
    assert all(type(v) is int and 0 <= v <= 3 for v in CODEBOOK)
    assert field_cipher.CODEBOOK is constants.CODEBOOK


def test_codebook_is_balanced():
    counts = collections.Counter(CODEBOOK)
    assert sorted(counts) == [0, 1, 2, 3]
    assert all(n in (20, 21) for n in counts.values())


def test_every_value_has_two_patterns_with_empty_right_column():
    for v in range(4):
        right_empty = [
            p for p in range(81) if CODEBOOK[p] == v and (p // 9) % 3 == 0 and p % 3 == 0
        ]
        assert len(right_empty) >= 2, v


def test_codebook_is_a_literal_in_the_source():
    tree = ast.parse(inspect.getsource(constants))
    literal = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "CODEBOOK" for t in node.targets
        ):
            literal = ast.literal_eval(node.value)
    assert literal == CODEBOOK


def test_offline_script_reproduces_the_literal():
    assert make_codebook() == CODEBOOK


def test_level_tables_use_only_patterns_of_their_value():
    order, count = constants.PATTERN_ORDER, constants.LEVEL_COUNT
    for level in range(4):
        for v in range(4):
            for kind in range(2):
                n = count[level, v, kind]
                assert n >= 1
                for p in order[v, kind, :n]:
                    assert CODEBOOK[p] == v
                    if kind == 1:
                        assert (p // 9) % 3 == 0 and p % 3 == 0
    assert (count[0] == 1).all()  # level 0: one canonical pattern per value
    assert (count[3, :, 0] == [sum(1 for p in CODEBOOK if p == v) for v in range(4)]).all()
    assert (count[1:] >= count[:-1]).all()  # higher levels use at least as many patterns


def test_level_zero_writes_one_canonical_pattern_per_value_everywhere():
    order = constants.PATTERN_ORDER
    canon = [int(order[v, 0, 0]) for v in range(4)]
    assert canon == [int(order[v, 1, 0]) for v in range(4)]
    assert len(set(canon)) == 4
