"""What a reset draws: decoding gives the message back, at every level, for thousands of seeds."""

import gymnasium as gym
import numpy as np
import pytest
from fc_helpers import ENV_ID, HEX, decode_bits, decode_message, pattern_of

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher import CODEBOOK
from hiddengrid.envs.field_cipher.constants import PATTERN_ORDER

SEEDS = 2500


def _draw(level: int, n: int = SEEDS, seed: int = 1234):
    env = gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", level=level)
    obs, _ = env.reset(seed=seed)
    messages = ["".join(HEX[d] for d in row) for row in env.unwrapped.batch["message"]]
    return obs, messages


@pytest.fixture(scope="module")
def draws():
    return {level: _draw(level) for level in range(4)}


@pytest.mark.parametrize("level", range(4))
def test_decoding_gives_the_message_back(draws, level):
    obs, messages = draws[level]
    for k in range(SEEDS):
        assert decode_message(obs["grid"][k]) == messages[k]
    assert set("".join(messages)) == set(HEX)  # every hex digit turns up


def test_same_seed_same_message_filler_and_hints_at_every_level(draws):
    obs0, messages0 = draws[0]
    filler0 = [decode_bits(g)[16:] for g in obs0["grid"][:500]]
    for level in (1, 2, 3):
        obs, messages = draws[level]
        assert messages == messages0
        assert (obs["hints"] == obs0["hints"]).all()
        assert [decode_bits(g)[16:] for g in obs["grid"][:500]] == filler0


def test_level_zero_leaves_blocks_18_to_24_empty_and_uses_canonical_patterns(draws):
    grids = draws[0][0]["grid"]
    assert not grids[:, 6:8, 6:9].any()
    assert not grids[:, 8, :].any()
    canonical = {int(PATTERN_ORDER[v, 0, 0]) for v in range(4)}
    padded = np.zeros((SEEDS, 10, 10), dtype=int)
    padded[:, :9, :9] = grids
    used = set()
    for k in range(18):
        r, c = 2 * (k // 5), 2 * (k % 5)
        used |= set(
            pattern_of(
                padded[:, r, c], padded[:, r, c + 1], padded[:, r + 1, c], padded[:, r + 1, c + 1]
            ).tolist()
        )
    assert used == canonical


def test_higher_levels_look_busier(draws):
    decoration = [
        np.count_nonzero(draws[lv][0]["grid"][:, 6:8, 6:9])
        + np.count_nonzero(draws[lv][0]["grid"][:, 8, :])
        for lv in range(4)
    ]
    assert decoration[0] == 0
    assert decoration[0] < decoration[1] < decoration[2] < decoration[3]
    patterns = []
    for lv in range(4):
        grids = np.zeros((SEEDS, 10, 10), dtype=int)
        grids[:, :9, :9] = draws[lv][0]["grid"]
        seen = set()
        for k in range(18):
            r, c = 2 * (k // 5), 2 * (k % 5)
            seen |= set(
                (
                    27 * grids[:, r, c]
                    + 9 * grids[:, r, c + 1]
                    + 3 * grids[:, r + 1, c]
                    + grids[:, r + 1, c + 1]
                ).tolist()
            )
        patterns.append(len(seen))
    assert patterns[0] == 4
    assert patterns[0] < patterns[1] < patterns[2] < patterns[3] == 81


@pytest.mark.parametrize("level", range(4))
def test_padding_blocks_keep_their_right_column_for_the_padding(draws, level):
    # Blocks 4, 9, 14 cover column 8 and the padding column 9: nothing may be lost.
    obs, messages = draws[level]
    for k in range(200):
        assert decode_message(obs["grid"][k]) == messages[k]
    assert set(np.unique(obs["grid"])) <= {0, 1, 2}


def test_hints_are_four_distinct_codebook_entries(draws):
    for level in range(4):
        hints = draws[level][0]["hints"].astype(int)
        assert hints.shape == (SEEDS, 4, 5)
        patterns = pattern_of(hints[..., 0], hints[..., 1], hints[..., 2], hints[..., 3])
        for k in range(SEEDS):
            assert len(set(patterns[k].tolist())) == 4
            for h in range(4):
                assert hints[k, h, 4] == CODEBOOK[patterns[k, h]]
    # all 81 patterns turn up as hints
    assert len(set(patterns.ravel().tolist())) == 81


def test_message_is_four_upper_case_hex_chars_in_the_scenario():
    env = gym.make(ENV_ID)
    env.reset(seed=5)
    message = env.unwrapped.scenario["message"]
    assert isinstance(message, str) and len(message) == 4
    assert all(ch in HEX for ch in message)
