"""The flat observation path: layout rules, exact vectors, and agreement with the Dict obs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from helpers import random_actions

from hiddengrid import ENV_IDS
from hiddengrid.core.flat import (
    FlatEncoder,
    FlatObservation,
    FlatVectorEnv,
    flat_layout,
    flat_size,
    flatten_observation,
)

SPACE = spaces.Dict(
    {
        "facing": spaces.Discrete(4),
        "timer": spaces.Discrete(31),
        "level": spaces.Box(0, 3, shape=(2,), dtype=np.int8),
        "seen": spaces.MultiBinary(3),
        "shifted": spaces.Discrete(3, start=-1),
        "pair": spaces.MultiDiscrete([2, 5]),
        "ratio": spaces.Box(0.0, 2.0, shape=(1,), dtype=np.float32),
    }
)


def decode(layout: list, vector: np.ndarray) -> dict[str, np.ndarray]:
    """The inverse of the flat encoding, written from the layout's documented meaning."""
    out = {}
    for s in layout:
        chunk = vector[s.start : s.stop]
        low, high = np.array(s.low), np.array(s.high)
        if s.encoding == "one_hot":
            rows = chunk.reshape(-1, s.width)
            assert np.all(rows.sum(axis=1) == 1), f"{s.key}: not one-hot"
            values = rows.argmax(axis=1) + low
        elif s.encoding == "binary":
            values = chunk.astype(float)
        else:
            values = chunk * (high - low) + low
        out[s.key] = values.reshape(s.shape)
    return out


def test_layout_encodings_follow_the_value_ranges() -> None:
    layout = {s.key: s for s in flat_layout(SPACE)}
    assert (layout["facing"].encoding, layout["facing"].width) == ("one_hot", 4)
    assert layout["timer"].encoding == "scaled"  # 31 values > ONE_HOT_MAX
    assert (layout["level"].encoding, layout["level"].stop - layout["level"].start) == (
        "one_hot",
        8,
    )
    assert (layout["seen"].encoding, layout["seen"].stop - layout["seen"].start) == ("binary", 3)
    assert (layout["shifted"].width, layout["shifted"].low) == (3, (-1.0,))
    # MultiDiscrete([2, 5]): one width (the widest element) for both elements
    assert (layout["pair"].width, layout["pair"].stop - layout["pair"].start) == (5, 10)
    assert layout["ratio"].encoding == "scaled"
    starts = [s.start for s in flat_layout(SPACE)]
    stops = [s.stop for s in flat_layout(SPACE)]
    assert starts[0] == 0 and starts[1:] == stops[:-1] and flat_size(SPACE) == stops[-1] == 30


def test_exact_vector_of_a_hand_built_observation() -> None:
    obs = {
        "facing": np.int64(2),
        "timer": np.int64(15),
        "level": np.array([3, 0], dtype=np.int8),
        "seen": np.array([1, 0, 1], dtype=np.int8),
        "shifted": np.int64(-1),
        "pair": np.array([1, 4]),
        "ratio": np.array([0.5], dtype=np.float32),
    }
    # Gymnasium sorts a Dict's keys: facing, level, pair, ratio, seen, shifted, timer
    assert [s.key for s in flat_layout(SPACE)] == sorted(obs)
    expected = np.zeros(32, dtype=np.float32)
    expected[2] = 1  # facing 2 of 0..3: columns 0-3
    expected[4 + 3] = 1  # level[0] = 3: columns 4-7
    expected[8 + 0] = 1  # level[1] = 0: columns 8-11
    expected[12 + 1] = 1  # pair[0] = 1: columns 12-16 (width 5)
    expected[17 + 4] = 1  # pair[1] = 4: columns 17-21
    expected[22] = 0.25  # ratio 0.5 of 0..2
    expected[23:26] = [1, 0, 1]  # seen
    expected[26 + 0] = 1  # shifted -1, the first of -1..1: columns 26-28
    expected[29] = 0.5  # timer 15 of 0..30
    expected[30:] = 0  # (nothing else)
    got = flatten_observation(SPACE, obs)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, expected[:30])
    assert flat_size(SPACE) == 30


def test_value_outside_the_space_raises() -> None:
    space = spaces.Dict({"f": spaces.Discrete(4)})
    with pytest.raises(ValueError, match="outside"):
        flatten_observation(space, {"f": np.int64(4)})


def test_unbounded_box_is_refused() -> None:
    space = spaces.Dict({"x": spaces.Box(-np.inf, np.inf, shape=(2,))})
    with pytest.raises(ValueError, match="unbounded"):
        flat_layout(space)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_flat_vector_env_matches_the_dict_and_the_single_env(env_id: str) -> None:
    n = 3
    venv = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    flat = FlatVectorEnv(venv)
    encoder = FlatEncoder(venv.single_observation_space)
    singles = [FlatObservation(gym.make(env_id)) for _ in range(n)]
    expected = [env.reset(seed=7 + i)[0] for i, env in enumerate(singles)]
    obs, _ = flat.reset(seed=7)
    rng = np.random.default_rng(0)
    ended = np.zeros(n, dtype=bool)
    for _ in range(40):
        dict_obs = venv.unwrapped._observation()
        np.testing.assert_array_equal(obs, encoder.encode(dict_obs, n))
        for i in range(n):
            np.testing.assert_array_equal(obs[i], expected[i])
            for key, value in decode(flat.layout, obs[i]).items():
                want = np.asarray(dict_obs[key][i], dtype=float)
                np.testing.assert_allclose(value, want, atol=1e-5, err_msg=key)
        actions = random_actions(venv, rng)
        obs, _, terminated, _, _ = flat.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:  # next-step autoreset: the vector env resets, the action is ignored
                expected[i] = env.reset()[0]
            else:
                a = actions[i]
                expected[i], _, term, _, _ = env.step(int(a) if np.ndim(a) == 0 else a)
                assert term == bool(terminated[i])
        ended = terminated.copy()
    assert singles[0].observation_space.shape == (flat.encoder.size,)
    assert flat.single_observation_space.contains(obs[0])


def test_same_step_autoreset_gives_flat_final_observations() -> None:
    env_id = "hiddengrid/AnomalyMapping-v0"
    venv = gym.make_vec(
        env_id, num_envs=4, vectorization_mode="vector_entry_point", autoreset_mode="SameStep"
    )
    flat = FlatVectorEnv(venv)
    encoder = FlatEncoder(venv.single_observation_space)
    obs, _ = flat.reset(seed=1)
    for _ in range(40):
        obs, _, terminated, _, info = flat.step(np.full(4, 6))  # Mark: every episode ends
        assert terminated.all()
        np.testing.assert_array_equal(obs, encoder.encode(venv.unwrapped._observation(), 4))
        for i in range(4):
            final = info["final_obs"][i]
            assert final.shape == (encoder.size,) and final.dtype == np.float32
            assert final[40] == 29 / 30  # one step taken: steps_left 29, scaled
