"""Per-sub-env random streams: one ``uint64`` word of state each, nothing global.

The generator is SplitMix64 (Steele, Lea & Flood 2014): the state advances by a fixed odd
constant and each output is a strong 64-bit mix of it. It needs only integer arithmetic, so the
same seed gives the same numbers on every platform, and one word per sub-env keeps a batch of
4096 generators in 32 KiB.
"""

import numpy as np
from numba import config, njit

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
SEED_SALT = np.uint64(0x6A09E667F3BCC909)  # keeps seed 0 away from the all-zero state
U64_MASK = (1 << 64) - 1


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def next_u64(rng: np.ndarray, i: int) -> np.uint64:
    """Advances sub-env ``i``'s stream and returns its next 64 random bits."""
    s = rng[i] + GOLDEN_GAMMA
    rng[i] = s
    return mix64(s)


@njit(cache=True, inline="always")
def below(rng: np.ndarray, i: int, n: int) -> int:
    """A uniform integer in ``[0, n)`` for ``n < 2**32`` (Lemire's multiply-shift, no division)."""
    hi = next_u64(rng, i) >> np.uint64(32)
    return np.int64((hi * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def below_from(state: np.uint64, n: int) -> tuple[np.uint64, int]:
    """``below`` on a stream state held in a local variable: returns (new state, value).

    Hot loops that draw many numbers keep the state in a register this way, instead of a
    load and store through the state array per draw; the numbers are the same.
    """
    state = state + GOLDEN_GAMMA
    hi = mix64(state) >> np.uint64(32)
    return state, np.int64((hi * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def seed_streams(rng: np.ndarray, seeds: np.ndarray) -> None:
    for i in range(rng.shape[0]):
        rng[i] = mix64(seeds[i] ^ SEED_SALT)


if config.DISABLE_JIT:
    # As plain Python, NumPy's uint64 scalars warn on the wrap-around the generator relies on;
    # the same arithmetic on Python ints, masked to 64 bits, gives the same numbers silently.

    def mix64(z: np.uint64) -> np.uint64:  # type: ignore[no-redef]
        x = int(z)
        x = ((x ^ (x >> 30)) * int(MIX_1)) & U64_MASK
        x = ((x ^ (x >> 27)) * int(MIX_2)) & U64_MASK
        return np.uint64(x ^ (x >> 31))

    def next_u64(rng: np.ndarray, i: int) -> np.uint64:  # type: ignore[no-redef]
        s = np.uint64((int(rng[i]) + int(GOLDEN_GAMMA)) & U64_MASK)
        rng[i] = s
        return mix64(s)

    def below(rng: np.ndarray, i: int, n: int) -> int:  # type: ignore[no-redef]
        return np.int64(((int(next_u64(rng, i)) >> 32) * int(n)) >> 32)

    def below_from(state: np.uint64, n: int) -> tuple[np.uint64, int]:  # type: ignore[no-redef]
        state = np.uint64((int(state) + int(GOLDEN_GAMMA)) & U64_MASK)
        return state, np.int64(((int(mix64(state)) >> 32) * int(n)) >> 32)

    def seed_streams(rng: np.ndarray, seeds: np.ndarray) -> None:  # type: ignore[no-redef]
        for i in range(rng.shape[0]):
            rng[i] = mix64(int(seeds[i]) ^ int(SEED_SALT))


def check_seed(seed: object) -> int:
    """A Gymnasium seed is a non-negative integer; anything else is refused, not coerced."""
    if isinstance(seed, bool | np.bool_ | np.timedelta64) or not isinstance(seed, int | np.integer):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def seed_array(base: int, n: int) -> np.ndarray:
    """Seeds ``base + i`` for sub-env ``i``, wrapped to 64 bits (seeds are taken modulo 2**64)."""
    return np.array([(base + i) & U64_MASK for i in range(n)], dtype=np.uint64)
