"""What a Bayesian can tell about the hidden geology from the step-0 observation alone.

It knows every published formula of the generator and the survey, enumerates every geology
the generator can draw (heavy edge, one or two seams with their pull, the fault line), weighs
each by its prior and by the likelihood of the surveyed stress map, and names the most
probable seam map and fault cells. The calibration reports how often that names the truth.

The likelihood: the survey shows, in every cell, ``STRESS_BASE + OVERBURDEN_STEP * depth +
SEAM_LOAD_STEP * seam position + grain + survey error`` (the fault concentrations are missing
from it until a scan), with the grain uniform on 0..ROCK_GRAIN-1 and the error uniform on
-SURVEY_ERROR..SURVEY_ERROR, independent per cell. The airflow is drawn independently of the
geology and carries nothing about it.
"""

from __future__ import annotations

from collections import Counter
from functools import cache, lru_cache
from itertools import product

import gymnasium as gym
import numpy as np

from hiddengrid.core.kernel import python_body
from hiddengrid.envs.megacity import generator
from hiddengrid.envs.megacity.constants import (
    EAST,
    FAULT_BENDS,
    FAULT_MAX_LEN,
    FAULT_MIN_CELLS,
    FAULT_MIN_LEN,
    GRID,
    NORTH,
    OVERBURDEN_STEP,
    ROCK_GRAIN,
    SEAM_LOAD_STEP,
    SOUTH,
    STRESS_BASE,
    STRESS_MAX,
    SURVEY_ERROR,
    WEST,
)

ENV_ID = "hiddengrid/Megacity-v0"
# The generator's own rules, run as plain Python: the enumeration calls them many thousand times.
paint_seam = python_body(generator.paint_seam)
seam_position = python_body(generator.seam_position)
fault_direction = python_body(generator.fault_direction)
fault_step = python_body(generator.fault_step)


def _seam_grid(lines: tuple[tuple[int, int, bool], ...]) -> np.ndarray:
    seams = np.zeros((1, GRID, GRID), dtype=np.int64)
    for orient, index, forward in lines:
        paint_seam(seams, 0, orient, index, forward)  # the generator's own rule
    return seams[0]


@lru_cache(maxsize=1)
def seam_configs() -> tuple[np.ndarray, np.ndarray]:
    """Every seam map the generator can draw, (m, 5, 5), and its prior probability (m,)."""
    lines = [(o, i, f) for o in range(2) for i in range(GRID) for f in (True, False)]
    prior: dict[bytes, float] = {}
    grids: dict[bytes, np.ndarray] = {}
    for a in lines:
        g = _seam_grid((a,))
        prior[g.tobytes()] = prior.get(g.tobytes(), 0.0) + 0.5 / len(lines)
        grids[g.tobytes()] = g
        for b in lines:
            if b[:2] == a[:2]:
                continue
            g = _seam_grid((a, b))
            p = 0.5 / len(lines) / (len(lines) - 2)
            prior[g.tobytes()] = prior.get(g.tobytes(), 0.0) + p
            grids[g.tobytes()] = g
    keys = list(grids)
    return np.stack([grids[k] for k in keys]), np.array([prior[k] for k in keys])


def _depth(heavy: int) -> np.ndarray:
    r, c = np.mgrid[0:GRID, 0:GRID]
    return {NORTH: GRID - 1 - r, SOUTH: r, EAST: c, WEST: GRID - 1 - c}[heavy]


@lru_cache(maxsize=1)
def base_maps() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The noiseless survey of every (heavy edge, seam map), (4m, 25); the seam map index of
    each row, (4m,); its prior, (4m,)."""
    grids, prior = seam_configs()
    rows, which, p = [], [], []
    for heavy in (NORTH, EAST, SOUTH, WEST):
        depth = _depth(heavy)
        for k, g in enumerate(grids):
            load = np.array(
                [
                    [seam_position(g[None], 0, r, c) if g[r, c] else 0 for c in range(GRID)]
                    for r in range(GRID)
                ]
            )
            rows.append((STRESS_BASE + OVERBURDEN_STEP * depth + SEAM_LOAD_STEP * load).ravel())
            which.append(k)
            p.append(prior[k] / 4)
    return np.array(rows), np.array(which), np.array(p)


def noise_log_pmf() -> tuple[np.ndarray, int]:
    """log P(grain + survey error = x) for x = lo..hi, as an array and lo."""
    grain = np.full(ROCK_GRAIN, 1.0 / ROCK_GRAIN)
    error = np.full(2 * SURVEY_ERROR + 1, 1.0 / (2 * SURVEY_ERROR + 1))
    pmf = np.convolve(grain, error)
    with np.errstate(divide="ignore"):
        return np.log(pmf), -SURVEY_ERROR


@cache
def fault_prior(seam_key: bytes) -> dict[frozenset, float]:
    """Every fault (its cells) the generator can draw given a seam map, with its probability:
    each draw (start, diagonal, length, the bend of each step) weighed by its probability,
    renormalised over the draws the generator keeps (inside the grid, at least
    FAULT_MIN_CELLS cells off the seams)."""
    seams = np.frombuffer(seam_key, dtype=np.int64).reshape(GRID, GRID)
    weights: Counter[frozenset] = Counter()
    for r in range(GRID):
        for c in range(GRID):
            for diagonal in range(4):
                dr, dc = fault_direction(diagonal)
                for length in range(FAULT_MIN_LEN, FAULT_MAX_LEN + 1):
                    weight = 1.0 / FAULT_BENDS ** (length - 1)
                    for bends in product(range(FAULT_BENDS), repeat=length - 1):
                        path = [(r, c)]
                        for bend in bends:
                            path.append(fault_step(*path[-1], dr, dc, bend))
                        if not all(0 <= pr < GRID and 0 <= pc < GRID for pr, pc in path):
                            continue
                        cells = frozenset(p for p in path if seams[p] == 0)
                        if len(cells) >= FAULT_MIN_CELLS:
                            weights[cells] += weight
    total = sum(weights.values())
    return {cells: w / total for cells, w in weights.items()}


def fault_map(seam_key: bytes) -> tuple[frozenset, float]:
    """The most probable fault cells given a seam map, and that probability."""
    prior = fault_prior(seam_key)
    best = max(prior, key=prior.__getitem__)
    return best, prior[best]


def infer(stress: np.ndarray) -> tuple[np.ndarray, frozenset]:
    """The most probable seam map (5, 5) and fault cells given a step-0 survey (5, 5)."""
    rows, which, prior = base_maps()
    log_pmf, lo = noise_log_pmf()
    x = stress.ravel()[None, :] - rows
    inside = (x >= lo) & (x < lo + len(log_pmf))
    # A survey clamped at the ceiling says only "at least this much".
    at_max = stress.ravel()[None, :] >= STRESS_MAX
    ll = np.where(inside, log_pmf[np.clip(x - lo, 0, len(log_pmf) - 1)], -np.inf)
    ll = np.where(at_max & (x <= lo + len(log_pmf) - 1), 0.0, ll)
    score = ll.sum(axis=1) + np.log(prior)
    grids, _ = seam_configs()
    post = np.full(len(grids), -np.inf)
    np.logaddexp.at(post, which, score)
    seams = grids[int(np.argmax(post))]
    faults, _ = fault_map(seams.tobytes())
    return seams, faults


def step0_naming_rates(episodes: int, seed: int = 0) -> tuple[int, int, int]:
    """Over ``episodes`` seeded episodes: (seam map named, seam map and fault cells named,
    episodes)."""
    venv = gym.make_vec(ENV_ID, num_envs=episodes, vectorization_mode="vector_entry_point")
    obs, _ = venv.reset(seed=seed)
    batch = venv.unwrapped.batch
    seams_ok = both_ok = 0
    for i in range(episodes):
        seams, faults = infer(np.asarray(obs["stress"][i], dtype=np.int64))
        true_faults = frozenset(map(tuple, np.argwhere(batch["faults"][i] != 0).tolist()))
        s_ok = bool((seams == batch["seams"][i]).all())
        seams_ok += s_ok
        both_ok += s_ok and faults == true_faults
    return seams_ok, both_ok, episodes
