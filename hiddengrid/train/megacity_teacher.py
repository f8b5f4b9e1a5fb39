"""Megacity's DAgger teacher: the fair expert's planner made a function of the observation.

The published expert (``hiddengrid.envs.megacity.agents.ExpertAgent``) chooses its target
cells once, on the step after its scan, and keeps them: the stress it sees later has moved
(excavation spills onto neighbours, chambers creep), so its later actions depend on a map a
feed-forward policy no longer sees. Behaviour cloning it for 1M steps agreed with it on about
70 % of the steps and never won. This teacher recomputes its plan on every step from the
current observation and mask alone: the open cells (off the fault) are its first targets, in
cell order, since they must be brought online or they creep; new cells are then taken in a
fixed chessboard order (one colour first, each in row order), skipping any that no available
support would carry with the expert's margin. Everything else is the expert's own planner
(``plan_action``). Its action is therefore a function of what the policy sees, so a policy can
learn it exactly, and labelling the states the *student* visits with it (DAgger) teaches the
policy to recover from its own mistakes, which cloning the expert's own trajectories never
shows it.

Why the fixed order: the expert takes the cell of least believed load, which asks a policy to
compare surveyed stresses a point or two apart (0.01 of the flat input's scale). Trained
offline on 110k labelled states (a 128-unit MLP, 1,000 Adam steps), a student picked the
least-load excavation (recomputed every step, open cells first) 16 % of the time and the
ordered teacher's 66 %. Measured on development
episodes (seeds from 1,000,000, 2,000 each): recomputing the expert's own least-load plan every
step wins 51 % at level 0 (its targets drift as the stress moves); with the open cells first
it wins 100 % at level 0 and 47 % at level 3; in chessboard order 100 % and 57 % (the published
expert: 100 % and 54 %). On episodes 0..9,999 the ordered teacher wins 100 % at level 0 and
58.5 % at level 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.batch import Batch
from hiddengrid.core.kernel import opaque_caller
from hiddengrid.envs.megacity.agents import (
    EXPERT_MARGIN,
    EXPERT_SLACK,
    EXPERT_TAPS,
    MAX_TARGETS,
    PLAN_ACTION,
    base_airflow,
    best_material,
    expected_load,
)
from hiddengrid.envs.megacity.constants import (
    DIR_COL,
    DIR_ROW,
    EXCAVATION_SPILL,
    GRAVITY,
    GRID,
    NUM_CELLS,
    RESEARCH_BASE,
    ROCK,
    ROCK_SPAN,
    SCAN,
    WAIT,
)

# The order in which the teacher takes new cells: the cells of one colour of the chessboard
# first (no two of them neighbours, so none loads another by its spill), each colour in row
# order. An order a policy reads off the map, where the least believed load (the expert's
# choice) asks it to compare surveyed stresses that differ by a point or two.
RANK = np.array(
    sorted(range(NUM_CELLS), key=lambda k: ((k // GRID + k % GRID) % 2, k)), dtype=np.int64
).argsort()
NO_RANK = np.full(NUM_CELLS, -1, dtype=np.int64)  # the expert's order: least believed load


@njit(cache=True)
def memoryless_targets(
    j, cells, stress, seams, faults, research, components, rank, targets, ntargets
):
    """The open cells off the fault first (cell order), then up to MAX_TARGETS in all: rock
    cells that the best available support carries with the expert's margin (counting the
    spill of excavating next to a chosen cell), in ``rank`` order, or with ``rank[0] < 0`` by
    least believed load as the expert chooses (``agents.choose_targets``)."""
    taken = np.zeros(NUM_CELLS, dtype=np.bool_)
    n = 0
    for k in range(NUM_CELLS):
        r = k // GRID
        c = k % GRID
        if cells[j, r, c] != ROCK and faults[j, r, c] != 1 and n < MAX_TARGETS:
            taken[k] = True
            targets[j, n] = k
            n += 1
    while n < MAX_TARGETS:
        best = -1
        best_key = 1 << 40
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if taken[k] or faults[j, r, c] == 1 or cells[j, r, c] != ROCK:
                continue
            load = expected_load(j, r, c, stress, seams, faults, research, EXPERT_MARGIN)
            crowd = 0
            for d in range(1, 5):
                rr = r + DIR_ROW[d]
                cc = c + DIR_COL[d]
                # an open neighbour has spilt onto this cell already: the survey shows it
                if 0 <= rr < GRID and 0 <= cc < GRID and taken[rr * GRID + cc]:
                    crowd += cells[j, rr, cc] == ROCK
            load += EXCAVATION_SPILL * crowd
            _, h = best_material(j, r, c, seams, components)
            if load > ROCK_SPAN + h:
                continue
            key = (load * 64 + k) if rank[0] < 0 else rank[k]
            if key < best_key:
                best_key = key
                best = k
        if best < 0:
            break
        taken[best] = True
        targets[j, n] = best
        n += 1
    ntargets[j] = n


# The expert's planner is called by name (it calls its own helpers by name): a plain compiled
# caller would link its code in and, loaded from the disk cache, find those helpers unbound.
@opaque_caller()
def teacher_act(
    stress, airflow, cells, supports, vents, conduits, seams, faults, research, components,
    air, step, mask, rank, targets, ntargets, air0, out,
) -> None:  # fmt: skip
    """The teacher's action for every row, from that row's observation and mask alone."""
    for j in range(out.shape[0]):
        if research[j, GRAVITY] < 2:
            out[j] = RESEARCH_BASE + GRAVITY if mask[j, RESEARCH_BASE + GRAVITY] else WAIT
            continue
        if faults[j, 0, 0] < 0:
            out[j] = SCAN if mask[j, SCAN] else WAIT
            continue
        memoryless_targets(
            j, cells, stress, seams, faults, research, components, rank, targets, ntargets
        )
        base_airflow(j, airflow, vents, step, air0)
        out[j] = PLAN_ACTION(
            j, EXPERT_MARGIN, EXPERT_TAPS, EXPERT_SLACK, stress, seams, faults, air0,
            cells, supports, vents, conduits, research, components, air, step, targets,
            ntargets, mask,
        )  # fmt: skip


def teacher_actions(
    obs: dict[str, np.ndarray], mask: np.ndarray, ordered: bool = True
) -> np.ndarray:
    """The teacher's action (N,) for a batch of observations (the env's observation keys,
    each with a leading batch axis) and their masks (N, 390); ``ordered=False`` takes new
    cells by least believed load, as the expert does, instead of in chessboard order."""
    n = np.asarray(obs["step"]).shape[0]
    targets = np.full((n, MAX_TARGETS), -1, dtype=np.int64)
    ntargets = np.zeros(n, dtype=np.int64)
    air0 = np.zeros((n, GRID, GRID, 2), dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    teacher_act(
        obs["stress"], obs["airflow"], obs["cells"], obs["supports"], obs["vents"],
        obs["conduits"], obs["seams"], obs["faults"], obs["research"], obs["components"],
        obs["air"], obs["step"], np.asarray(mask, dtype=np.bool_), RANK if ordered else NO_RANK,
        targets, ntargets, air0, out,
    )  # fmt: skip
    return out


def megacity_teacher_labels(batch: Batch) -> np.ndarray:
    """DAgger labels (N, 1): the teacher's action on the state each sub-env is in now (the
    state the student is about to act on)."""
    return teacher_actions(batch.observation_views(), batch["mask"])[:, None]


class MemorylessExpert:
    """The teacher as a playable agent (for measuring it: ``run_episodes(...,
    agent_factory=MemorylessExpert)``); it reads the observation and the mask only."""

    name = "megacity_teacher"
    reads_scenario = False

    def __init__(self, env: Any, seed: int = 0, ordered: bool = True) -> None:
        self.env = env
        self.ordered = ordered

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        return teacher_actions(obs, self.env.batch["mask"], self.ordered)

    def observe(self, reward: Any, terminated: Any, truncated: Any) -> None:
        pass
