"""Megacity agents: masked random (floor), a fair expert that learns the geology by research
and a scan and then plans with the published equations, and an oracle that reads the hidden
geology and checks candidate plans by simulation (ceiling). All act on a batch.

The expert and the oracle share one planner (``plan_action``) over a *belief*: the stress,
seams, faults and base airflow it holds true. The oracle's belief is the hidden state itself;
the expert's is what the observation shows (the survey, what research and the scan revealed),
with a safety margin for the survey error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.batch import Batch
from hiddengrid.core.kernel import calling, opaque_call, opaque_caller
from hiddengrid.core.rng import below, seed_streams
from hiddengrid.envs.megacity.constants import (
    AIR_BASE_DEMAND,
    AIR_MAX,
    AIR_OK,
    AIR_PER_DISTRICT,
    AIRFLOW,
    BUILD_BASE,
    CHAMBER,
    CONDUIT_AMPLIFY,
    CONDUIT_BASE,
    CONDUITS,
    CORE,
    CORE_DELAY,
    CREEP,
    DECODED,
    DIR_COL,
    DIR_ROW,
    DISTRICT,
    DISTRICT_GOAL,
    EXCAVATE_BASE,
    EXCAVATION_SPILL,
    GRAVITY,
    GRID,
    HOLD_OFF_SEAM,
    HOLD_ON_SEAM,
    NUM_CELLS,
    RESEARCH_BASE,
    ROCK,
    ROCK_SPAN,
    SCAN,
    SEAM_SHEAR,
    SHAFT_DRAFT,
    STEP_BUDGET,
    SUPPORT_BASE,
    SURVEY_ERROR,
    TIMBER,
    VENT_BASE,
    WAIT,
)
from hiddengrid.envs.megacity.rules import phase, step_all

MAX_TARGETS = 8
OPEN_STEPS = CORE_DELAY + 3  # steps a planned chamber stays open before it is online (creep)
EXPERT_MARGIN = SURVEY_ERROR  # the expert's stress margin: the survey may read this much low
EXPERT_TAPS = 4  # every fault cell (a fault has at most 4)
EXPERT_SLACK = 4


# --- the shared planner -------------------------------------------------------------------------


@njit(cache=True)
def draws(j, r, c, d, t, air0, baffled) -> int:
    """What a shaft facing d in the cell draws at step t (``rules.supply_facing``)."""
    base = air0[j, r, c, 0] * DIR_ROW[d] + air0[j, r, c, 1] * DIR_COL[d]
    along = phase(t) * base + SHAFT_DRAFT
    return abs(along) if baffled else max(0, along)


@njit(cache=True)
def shaft_air(j, r, c, d, air0) -> int:
    """What a shaft facing d adds to the air index every step (``rules.shaft_air``)."""
    return SHAFT_DRAFT + abs(air0[j, r, c, 0] * DIR_ROW[d] + air0[j, r, c, 1] * DIR_COL[d])


@njit(cache=True)
def steady(j, r, c, d, step, air0, baffled) -> bool:
    """The shaft draws air on every step to the end (it never lets its districts suffocate)."""
    for t in range(step, STEP_BUDGET):  # noqa: SIM110 (a loop Numba compiles as it is)
        if draws(j, r, c, d, t, air0, baffled) <= 0:
            return False
    return True


@njit(cache=True)
def vent_plan(j, r, c, step, air0, baffled, need_steady) -> tuple[int, int]:
    """The shaft direction drawing the most air from ``step`` to the end (among the steady
    ones with ``need_steady``), and that air."""
    best_d = 1
    best = -(1 << 30)
    for d in range(1, 5):
        if need_steady and not steady(j, r, c, d, step, air0, baffled):
            continue
        total = shaft_air(j, r, c, d, air0) * (STEP_BUDGET - step)
        if total > best:
            best = total
            best_d = d
    return best_d, best


@njit(cache=True)
def projected_air(j, air, step, air0, vents, breathing) -> int:
    """Air at the end if ``breathing`` cores and districts breathe from now on."""
    supply = 0
    for r in range(GRID):
        for c in range(GRID):
            d = vents[j, r, c]
            if d != 0:
                supply += shaft_air(j, r, c, d, air0)
    a = air[j]
    for _ in range(step[j], STEP_BUDGET):
        a = min(AIR_MAX, a + supply - AIR_BASE_DEMAND - AIR_PER_DISTRICT * breathing)
    return a


@njit(cache=True)
def on_seam(j, r, c, b_seams) -> bool:
    return b_seams[j, r, c] > 0  # -1: unknown, taken as no seam


@njit(cache=True)
def best_material(j, r, c, b_seams, components) -> tuple[int, int]:
    """The available material that carries the most here, and what it carries."""
    best = TIMBER
    best_h = -1
    for m in range(1, 4):
        if components[j, m - 1] != 0:
            h = HOLD_ON_SEAM[m] if on_seam(j, r, c, b_seams) else HOLD_OFF_SEAM[m]
            if h > best_h:
                best_h = h
                best = m
    return best, best_h


@njit(cache=True)
def next_to_fault(j, r, c, b_faults) -> bool:
    for d in range(1, 5):
        rr = r + DIR_ROW[d]
        cc = c + DIR_COL[d]
        if 0 <= rr < GRID and 0 <= cc < GRID and b_faults[j, rr, cc] == 1:
            return True
    return False


@njit(cache=True)
def expected_load(j, r, c, b_stress, b_seams, b_faults, research, margin) -> int:
    """The load the cell is believed to carry once open, with the margin and the creep of
    OPEN_STEPS steps (before it comes online)."""
    load = b_stress[j, r, c] + margin + CREEP * OPEN_STEPS
    if on_seam(j, r, c, b_seams):
        load += SEAM_SHEAR
    if next_to_fault(j, r, c, b_faults) and research[j, CONDUITS] < DECODED:
        load += CONDUIT_AMPLIFY  # the tap we will lay on the fault loads its neighbours
    return load


@njit(cache=True)
def choose_targets(
    j, b_stress, b_seams, b_faults, research, components, margin, jitter, targets, ntargets
) -> None:
    """Up to MAX_TARGETS cells, greedily: the least believed load that an available support
    can carry, off the fault, counting the spill of excavating next to a chosen target."""
    taken = np.zeros(NUM_CELLS, dtype=np.bool_)
    n = 0
    for _ in range(MAX_TARGETS):
        best = -1
        best_key = 1 << 40
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if taken[k] or b_faults[j, r, c] == 1:
                continue
            load = expected_load(j, r, c, b_stress, b_seams, b_faults, research, margin)
            crowd = 0
            for d in range(1, 5):
                rr = r + DIR_ROW[d]
                cc = c + DIR_COL[d]
                if 0 <= rr < GRID and 0 <= cc < GRID and taken[rr * GRID + cc]:
                    crowd += 1
            load += EXCAVATION_SPILL * crowd
            _, h = best_material(j, r, c, b_seams, components)
            if load > ROCK_SPAN + h:
                continue
            key = (load + jitter[k]) * 64 + k
            if key < best_key:
                best_key = key
                best = k
        if best < 0:
            break
        taken[best] = True
        targets[j, n] = best
        n += 1
    ntargets[j] = n


@njit(cache=True)
def ventilated_by(j, r, c, step, air0, vents, baffled) -> bool:
    """A steady shaft within reach."""
    for d in range(0, 5):
        rr = r + DIR_ROW[d]
        cc = c + DIR_COL[d]
        if (
            0 <= rr < GRID
            and 0 <= cc < GRID
            and vents[j, rr, cc] != 0
            and steady(j, rr, cc, vents[j, rr, cc], step[j], air0, baffled)
        ):
            return True
    return False


@njit(cache=True)
def chosen(j, k, targets, ntargets) -> bool:
    """Cell k is one of the plan's targets."""
    for q in range(ntargets[j]):  # noqa: SIM110 (a loop Numba compiles as it is)
        if targets[j, q] == k:
            return True
    return False


@njit(cache=True)
def cell_load(j, r, c, margin, b_stress, b_seams) -> int:
    """The load an open cell is believed to carry until its core is online (the creep of
    CORE_DELAY + 1 more steps, the survey margin, the seam's shear)."""
    load = b_stress[j, r, c] + margin + CREEP * (CORE_DELAY + 1)
    if on_seam(j, r, c, b_seams):
        load += SEAM_SHEAR
    return load


@njit(cache=True)
def tend(
    j, k, margin, b_stress, b_seams, air0, cells, supports, vents, components, step, mask,
    baffled,
) -> int:  # fmt: skip
    """The next action that brings open cell k online: a support if the believed load needs
    one, a shaft if none in reach draws to the end, then the core; -1 when nothing is left to
    do (WAIT when the action is not affordable now)."""
    r = k // GRID
    c = k % GRID
    load = cell_load(j, r, c, margin, b_stress, b_seams)
    if supports[j, r, c] == 0 and load > ROCK_SPAN:
        m, _ = best_material(j, r, c, b_seams, components)
        if not on_seam(j, r, c, b_seams) and load <= ROCK_SPAN + HOLD_OFF_SEAM[TIMBER]:
            m = TIMBER  # cheaper, and enough
        a = SUPPORT_BASE + (m - 1) * NUM_CELLS + k
        return a if mask[j, a] else WAIT
    if vents[j, r, c] == 0 and not ventilated_by(j, r, c, step, air0, vents, baffled):
        d, _ = vent_plan(j, r, c, step[j], air0, baffled, True)
        a = VENT_BASE + 4 * k + d - 1
        return a if mask[j, a] else WAIT
    if cells[j, r, c] == CHAMBER:
        a = BUILD_BASE + k
        return a if mask[j, a] else WAIT
    return -1


@opaque_caller()
def plan_action(
    j, margin, taps_wanted, slack, b_stress, b_seams, b_faults, air0,
    cells, supports, vents, conduits, research, components, air, step, targets, ntargets, mask,
) -> int:  # fmt: skip
    """The next action of the plan: taps on the believed fault, a shaft when the air would
    run short by the end, then any open cell the plan did not choose (a stray action's), then
    each target in order (excavate, support if the believed load needs it, a shaft if none is
    within reach, build)."""
    baffled = research[j, AIRFLOW] >= DECODED
    # 1. geothermal taps on the believed fault cells
    taps = 0
    for r in range(GRID):
        for c in range(GRID):
            taps += conduits[j, r, c] * (b_faults[j, r, c] == 1)
    if taps < taps_wanted:
        best = -1
        best_n = 99
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if b_faults[j, r, c] != 1 or conduits[j, r, c] != 0:
                continue
            n = 0
            for q in range(ntargets[j]):
                t = targets[j, q]
                n += abs(t // GRID - r) + abs(t % GRID - c) == 1
            if n < best_n:
                best_n = n
                best = k
        if best >= 0 and mask[j, CONDUIT_BASE + best]:
            return CONDUIT_BASE + best  # the single-cell paths come first, by cell index
    # 2. air: one more shaft when the city would run short by the end
    opened = 0
    breathing = 0
    for q in range(ntargets[j]):
        t = targets[j, q]
        opened += cells[j, t // GRID, t % GRID] != ROCK
    for r in range(GRID):
        for c in range(GRID):
            breathing += cells[j, r, c] >= CORE
    planned = max(breathing, min(DISTRICT_GOAL, breathing + (DISTRICT_GOAL - opened)))
    if projected_air(j, air, step, air0, vents, planned) <= AIR_OK + slack:
        best = -1
        best_air = 0
        best_d = 1
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if cells[j, r, c] == ROCK or vents[j, r, c] != 0:
                continue
            d, total = vent_plan(j, r, c, step[j], air0, baffled, True)
            if total > best_air:
                best_air = total
                best = k
                best_d = d
        if best >= 0 and mask[j, VENT_BASE + 4 * best + best_d - 1]:
            return VENT_BASE + 4 * best + best_d - 1
    # 3. open cells the plan did not choose (a stray action opened them): they creep like any
    # chamber, so each is brought online like a target (or at least shored up when no support
    # carries it), and counts towards the six when it can hold
    opened = 0
    for k in range(NUM_CELLS):
        r = k // GRID
        c = k % GRID
        kind = cells[j, r, c]
        if kind == ROCK or chosen(j, k, targets, ntargets):
            continue
        holds = kind == DISTRICT or cell_load(j, r, c, margin, b_stress, b_seams) <= (
            ROCK_SPAN + best_material(j, r, c, b_seams, components)[1]
        )
        opened += holds
        if kind != DISTRICT and (holds or supports[j, r, c] == 0):
            a = TEND(j, k, margin, b_stress, b_seams, air0, cells, supports, vents, components,
                     step, mask, baffled)  # fmt: skip
            if a >= 0:
                return a
    # 4. the targets, in order, until six are open
    for q in range(ntargets[j]):
        k = targets[j, q]
        kind = cells[j, k // GRID, k % GRID]
        if kind == ROCK:
            if opened >= DISTRICT_GOAL:
                continue
            a = EXCAVATE_BASE + k
            return a if mask[j, a] else WAIT
        opened += 1
        if kind == DISTRICT:
            continue
        a = TEND(j, k, margin, b_stress, b_seams, air0, cells, supports, vents, components,
                 step, mask, baffled)  # fmt: skip
        if a >= 0:
            return a
    return WAIT


# The planner's large parts, called by name (the first two from the expert's and the oracle's
# kernels, the last from the planner): each is compiled once per argument types, by itself,
# rather than optimized again inside every compiled function that calls it.
CHOOSE_TARGETS = opaque_call(choose_targets)
PLAN_ACTION = opaque_call(plan_action)
TEND = opaque_call(tend)  # called twice in plan_action


# --- the fair expert: research, scan, then plan on what the observation shows ------------------


@njit(cache=True)
def base_airflow(j, airflow, vents, step, air0) -> None:
    """The step-0 airflow the expert works out from the current one: the published reversal
    and shaft draft, undone."""
    ph = phase(step[j])
    for r in range(GRID):
        for c in range(GRID):
            d = vents[j, r, c]
            air0[j, r, c, 0] = ph * (airflow[j, r, c, 0] - SHAFT_DRAFT * DIR_ROW[d])
            air0[j, r, c, 1] = ph * (airflow[j, r, c, 1] - SHAFT_DRAFT * DIR_COL[d])


@opaque_caller()
def expert_act(
    starts, learn, stress, airflow, cells, supports, vents, conduits, seams, faults, research,
    components, air, step, targets, ntargets, air0, mask, out,
) -> None:  # fmt: skip
    """``learn``: research gravity twice and scan first (the red-team variant skips it)."""
    jitter = np.zeros(NUM_CELLS, dtype=np.int64)
    for j in range(out.shape[0]):
        if starts[j]:
            ntargets[j] = -1
        if learn and research[j, GRAVITY] < 2:
            out[j] = RESEARCH_BASE + GRAVITY if mask[j, RESEARCH_BASE + GRAVITY] else WAIT
            continue
        if learn and faults[j, 0, 0] < 0:
            out[j] = SCAN if mask[j, SCAN] else WAIT
            continue
        if ntargets[j] < 0:
            CHOOSE_TARGETS(
                j, stress, seams, faults, research, components, EXPERT_MARGIN, jitter, targets,
                ntargets,
            )  # fmt: skip
        base_airflow(j, airflow, vents, step, air0)
        out[j] = PLAN_ACTION(
            j, EXPERT_MARGIN, EXPERT_TAPS, EXPERT_SLACK, stress, seams, faults, air0,
            cells, supports, vents, conduits, research, components, air, step, targets,
            ntargets, mask,
        )  # fmt: skip


class ExpertAgent(BatchAgent):
    """Fair expert: sees only observations (and the action mask) and knows the published
    equations. Researches gravity twice (the seams and their pull) and scans (the fault and
    its hidden stress), then taps the fault, picks six cells whose surveyed load an available
    support carries with a margin for the survey error, and builds each in turn: excavate,
    support, a shaft facing the direction that draws most air to the end, build."""

    name = "heuristic"
    description = "research gravity, scan, then plan with the published equations"
    learn = True

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.targets = np.full((self.num_envs, MAX_TARGETS), -1, dtype=np.int64)
        self.ntargets = np.full(self.num_envs, -1, dtype=np.int64)
        self.air0 = np.zeros((self.num_envs, GRID, GRID, 2), dtype=np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        expert_act(
            starts, self.learn, obs["stress"], obs["airflow"], obs["cells"], obs["supports"],
            obs["vents"], obs["conduits"], obs["seams"], obs["faults"], obs["research"],
            obs["components"], obs["air"], obs["step"], self.targets, self.ntargets, self.air0,
            self.env.batch["mask"], self.actions,
        )  # fmt: skip
        return self.actions.copy()


# --- the oracle: reads the geology, plans with the equations, checks plans by simulation ------


def oracle_rollouts(
    rng, targets, ntargets, plans, returns, wins, actions, sim_rng, done, outcome, reward,
    terminated,
    seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress, damped,
    progress, activated, step, integrity, air, power, districts, research, components,
    scanned, power_paid,
    view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
    view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask, draw,
) -> None:  # fmt: skip
    """Every slot j holds a copy of one start state; each draws a plan (targets ordered by
    load plus noise, a number of taps, an air margin, a stress margin) and plays it to the
    end on the true state.

    The slots are played in step: each step, every slot still playing plans its action, then
    the env's own ``step_all`` (``STEP_ALL``, called as compiled code) steps all of them at
    once. The oracle does not compile its own copy of the step (which cost about as much as
    the env's kernels), and one call per step serves every slot. A slot that has ended is
    autoreset by that call and ignored from then on; the slots never read each other's rows,
    and the plans draw all their random numbers before any step, so each slot plays exactly as
    if alone."""
    n = plans.shape[0]
    jitter = np.zeros(NUM_CELLS, dtype=np.int64)
    margins = np.zeros(n, dtype=np.int64)
    taps = np.zeros(n, dtype=np.int64)
    slacks = np.zeros(n, dtype=np.int64)
    playing = np.ones(n, dtype=np.bool_)
    for j in range(n):
        noise = below(rng, 0, 12) if j > 0 else 0
        for k in range(NUM_CELLS):
            jitter[k] = below(rng, 0, noise + 1) if noise > 0 else 0
        margins[j] = below(rng, 0, 5) if j > 0 else 0
        taps[j] = 2 + below(rng, 0, 3) if j > 0 else 4
        slacks[j] = below(rng, 0, 10) if j > 0 else 2
        CHOOSE_TARGETS(
            j, stress, seams, faults, research, components, margins[j], jitter, targets,
            ntargets,
        )  # fmt: skip
        returns[j] = 0.0
        wins[j] = False
        plans[j, :] = WAIT
        done[j] = False
    left = n
    for t in range(STEP_BUDGET):
        if left == 0:
            break
        for j in range(n):
            a = WAIT
            if playing[j]:
                a = PLAN_ACTION(
                    j, margins[j], taps[j], slacks[j], stress, seams, faults, airflow0,
                    cells, supports, vents, conduits, research, components, air, step, targets,
                    ntargets, mask,
                )  # fmt: skip
                plans[j, t] = a
            actions[j] = a
        STEP_ALL(
            actions, sim_rng, done, outcome, reward, terminated,
            seams, faults, stress0, airflow0, survey, cells, supports, vents, conduits, stress,
            damped, progress, activated, step, integrity, air, power, districts, research,
            components, scanned, power_paid,
            view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
            view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask, draw,
        )  # fmt: skip
        for j in range(n):
            if playing[j]:
                returns[j] += reward[j]
                if terminated[j]:
                    wins[j] = outcome[j] == 1
                    playing[j] = False
                    left -= 1


STEP_ALL = opaque_call(step_all)
# Arguments 6 onwards are step_all's, in its order; the planner's calls are recorded.
oracle_rollouts = calling(((step_all, tuple(range(6, 6 + 41))),), oracle_rollouts, records=True)


class OracleAgent(BatchAgent):
    """Reads the hidden geology and plans with the equations: at each episode start it plays
    ``candidates`` plans to the end on copies of the state (the rules are deterministic) and
    then follows the best one (a victory if any, then the highest return)."""

    name = "oracle"
    reads_scenario = True
    description = "simulates candidate plans with the hidden state and follows the best"

    def __init__(self, env: Any, seed: int = 0, candidates: int = 24) -> None:
        super().__init__(env, seed)
        self.batch: Batch = env.batch
        self.scratch = Batch(self.batch.definition, candidates, self.batch.config)
        self.rng = np.zeros(1, dtype=np.uint64)
        k = candidates
        self.targets = np.zeros((k, MAX_TARGETS), dtype=np.int64)
        self.ntargets = np.zeros(k, dtype=np.int64)
        self.plans = np.zeros((k, STEP_BUDGET), dtype=np.int64)
        self.returns = np.zeros(k, dtype=np.float64)
        self.wins = np.zeros(k, dtype=np.bool_)
        self.plan = np.full((self.num_envs, STEP_BUDGET), WAIT, dtype=np.int64)
        self.plan_won = np.zeros(self.num_envs, dtype=np.bool_)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)
        self.sim_actions = np.zeros(k, dtype=np.int64)

    def plan_episode(self, i: int) -> None:
        # The candidate plans are drawn from a stream fixed by the episode itself (seeded with
        # the env's stream right after it drew this scenario), so an episode gets the same plans
        # however the batch is laid out: in a vector env of any size, or through the text env.
        seed_streams(self.rng, self.batch.rng[i : i + 1])
        for name, arr in self.scratch.fields.items():
            arr[:] = self.batch.fields[name][i]
        s = self.scratch
        oracle_rollouts(
            self.rng, self.targets, self.ntargets, self.plans, self.returns, self.wins,
            self.sim_actions, *s._step_args,
        )  # fmt: skip
        score = self.returns + 1000.0 * self.wins
        best = int(np.argmax(score))
        self.plan[i] = self.plans[best]
        self.plan_won[i] = self.wins[best]

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        for i in np.flatnonzero(starts):
            self.plan_episode(int(i))
        t = np.minimum(obs["step"], STEP_BUDGET - 1)
        self.actions[:] = self.plan[np.arange(self.num_envs), t]
        legal = self.batch["mask"][np.arange(self.num_envs), self.actions]
        self.actions[~legal] = WAIT
        return self.actions.copy()


AGENTS = {"random": RandomAgent, "heuristic": ExpertAgent, "oracle": OracleAgent}
