"""Megacity agents: masked random (floor), a fair observe-then-build heuristic, and an oracle
that reads the hidden geology and plans with the equations (ceiling). All act on a batch."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from hiddengrid.core.agents import BatchAgent, RandomAgent
from hiddengrid.core.batch import Batch
from hiddengrid.core.rng import below, seed_streams
from hiddengrid.envs.megacity.constants import (
    AIR_BASE_DEMAND,
    AIR_OK,
    AIR_PER_DISTRICT,
    AIRFLOW,
    BUILD_BASE,
    CHAMBER,
    CONDUIT_BASE,
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
    STEEL,
    STEP_BUDGET,
    SUPPORT_BASE,
    TIMBER,
    VENT_BASE,
    WAIT,
)
from hiddengrid.envs.megacity.rules import (
    hold,
    phase,
    shaft_supply,
    shear,
    step_one,
    ventilated,
)

MAX_TARGETS = 8


# --- the fair heuristic: research, scan, then build --------------------------------------------


AIR_WATCH = 75  # the heuristic digs an extra shaft when air falls below this
POWER_WATCH = 25  # ... and taps one more fault cell when power falls below this


@njit(cache=True)
def _along_current(airflow: np.ndarray, i: int, r: int, c: int) -> int:
    """The direction (1..4) of the airflow seen in the cell now (north when still)."""
    fr = airflow[i, r, c, 0]
    fc = airflow[i, r, c, 1]
    if fr < 0:
        return 1
    if fc > 0:
        return 2
    if fr > 0:
        return 3
    if fc < 0:
        return 4
    return 1


@njit(cache=True)
def _heuristic_one(
    i, stress, airflow, cells, supports, vents, conduits, seams, faults, research, power, air,
    step, targets, mask,
) -> int:  # fmt: skip
    # 1. learn: two gravity research steps (seams and their pull), then one scan.
    if research[i, GRAVITY] < 2:
        return RESEARCH_BASE + GRAVITY
    if faults[i, 0, 0] < 0:
        return SCAN
    # 2. choose six target cells once: the lowest stress off the fault line.
    if targets[i, 0] < 0:
        taken = np.zeros(NUM_CELLS, dtype=np.bool_)
        for q in range(DISTRICT_GOAL):
            best = -1
            best_s = 1 << 30
            for k in range(NUM_CELLS):
                r = k // GRID
                c = k % GRID
                if taken[k] or faults[i, r, c] == 1:
                    continue
                s = stress[i, r, c]
                if seams[i, r, c] > 0:
                    s += 10  # seams felt risky in trials
                if s < best_s:
                    best_s = s
                    best = k
            taken[best] = True
            targets[i, q] = best
    # 3. a geothermal tap (one, more when power runs low): a conduit on the fault cell with the
    #    fewest target neighbours.
    taps = 0
    for r in range(GRID):
        for c in range(GRID):
            taps += conduits[i, r, c] * (faults[i, r, c] == 1)
    if taps == 0 or (power[i] < POWER_WATCH and step[i] < STEP_BUDGET - 8):
        best = -1
        best_n = 99
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if faults[i, r, c] != 1 or conduits[i, r, c] != 0:
                continue
            n = 0
            for d in range(1, 5):
                rr = r + DIR_ROW[d]
                cc = c + DIR_COL[d]
                if 0 <= rr < GRID and 0 <= cc < GRID:
                    for q in range(DISTRICT_GOAL):
                        n += targets[i, q] == rr * GRID + cc
            if n < best_n:
                best_n = n
                best = k
        if best >= 0 and mask[i, CONDUIT_BASE + best]:
            return CONDUIT_BASE + best  # the single-cell paths come first, by cell index
    # 4. air running low: one more shaft along the current, where the current is strongest.
    if air[i] < AIR_WATCH:
        best = -1
        best_f = -1
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if cells[i, r, c] == ROCK or vents[i, r, c] != 0:
                continue
            f = abs(airflow[i, r, c, 0]) + abs(airflow[i, r, c, 1])
            if f > best_f:
                best_f = f
                best = k
        if best >= 0:
            a = VENT_BASE + 4 * best + _along_current(airflow, i, best // GRID, best % GRID) - 1
            if mask[i, a]:
                return a
    # 5. build each target: excavate, support if it looks loaded, vent with the current, build.
    for q in range(DISTRICT_GOAL):
        k = targets[i, q]
        r = k // GRID
        c = k % GRID
        if cells[i, r, c] == DISTRICT:
            continue
        if cells[i, r, c] == ROCK:
            a = EXCAVATE_BASE + k
            return a if mask[i, a] else WAIT
        if supports[i, r, c] == 0 and stress[i, r, c] > 30:
            m = TIMBER if seams[i, r, c] > 0 else STEEL
            a = SUPPORT_BASE + (m - 1) * NUM_CELLS + k
            if mask[i, a]:
                return a
        if not ventilated(i, r, c, vents) and vents[i, r, c] == 0:
            a = VENT_BASE + 4 * k + _along_current(airflow, i, r, c) - 1
            if mask[i, a]:
                return a
        if cells[i, r, c] == CHAMBER:
            a = BUILD_BASE + k
            if mask[i, a]:
                return a
    return WAIT


@njit(cache=True)
def heuristic_act(
    starts, stress, airflow, cells, supports, vents, conduits, seams, faults, research, power,
    air, step, targets, mask, out,
) -> None:  # fmt: skip
    for i in range(out.shape[0]):
        if starts[i]:
            targets[i, :] = -1
        out[i] = _heuristic_one(
            i, stress, airflow, cells, supports, vents, conduits, seams, faults, research,
            power, air, step, targets, mask,
        )  # fmt: skip


class ObserveThenBuildAgent(BatchAgent):
    """Fair heuristic: sees only observations (and the action mask). Researches gravity twice
    and scans, then picks the six least-stressed cells off the fault line, taps the fault once
    for power, and builds each target: excavate, support if stressed, vent along the current
    airflow, build."""

    name = "heuristic"
    description = "research, scan, then build on the least-stressed cells"

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.targets = np.full((self.num_envs, DISTRICT_GOAL), -1, dtype=np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        heuristic_act(
            starts, obs["stress"], obs["airflow"], obs["cells"], obs["supports"], obs["vents"],
            obs["conduits"], obs["seams"], obs["faults"], obs["research"], obs["power"],
            obs["air"], obs["step"], self.targets, self.env.batch["mask"], self.actions,
        )  # fmt: skip
        return self.actions.copy()


# --- the oracle: reads the geology, plans with the equations, checks plans by simulation ------


@njit(cache=True)
def vent_plan(j, r, c, step, airflow0, baffled) -> tuple[int, int]:
    """The shaft direction drawing the most air from ``step`` to the end, and that air."""
    best_d = 1
    best = -1
    for d in range(1, 5):
        base = airflow0[j, r, c, 0] * DIR_ROW[d] + airflow0[j, r, c, 1] * DIR_COL[d]
        total = 0
        for t in range(step, STEP_BUDGET):
            along = phase(t) * base + SHAFT_DRAFT
            total += abs(along) if baffled else max(0, along)
        if total > best:
            best = total
            best_d = d
    return best_d, best


@njit(cache=True)
def projected_air(j, air, step, airflow0, vents, research, future_districts) -> int:
    baffled = research[j, AIRFLOW] >= DECODED
    a = air[j]
    for t in range(step[j], STEP_BUDGET):
        supply = 0
        for r in range(GRID):
            for c in range(GRID):
                supply += shaft_supply(j, r, c, t, airflow0, vents, baffled)
        a = min(100, a + supply - AIR_BASE_DEMAND - AIR_PER_DISTRICT * future_districts)
    return a


@njit(cache=True)
def best_hold(j, r, c, seams, components) -> int:
    best = 0
    for m in range(1, 4):
        if components[j, m - 1] != 0:
            h = HOLD_ON_SEAM[m] if seams[j, r, c] != 0 else HOLD_OFF_SEAM[m]
            best = max(best, h)
    return best


@njit(cache=True)
def best_material(j, r, c, seams, components) -> int:
    best = TIMBER
    best_h = -1
    for m in range(1, 4):
        if components[j, m - 1] != 0:
            h = HOLD_ON_SEAM[m] if seams[j, r, c] != 0 else HOLD_OFF_SEAM[m]
            if h > best_h:
                best_h = h
                best = m
    return best


@njit(cache=True)
def _oracle_policy(
    j, targets, ntargets, taps_wanted, slack,
    seams, faults, stress0, airflow0, cells, supports, vents, conduits, stress, damped,
    step, integrity, air, power, districts, research, components, scanned, power_paid,
    mask,
) -> int:  # fmt: skip
    # 1. geothermal taps on the fault cells that hurt the plan least
    taps = 0
    for r in range(GRID):
        for c in range(GRID):
            taps += conduits[j, r, c] * faults[j, r, c]
    if taps < taps_wanted[j]:
        best = -1
        best_n = 99
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if faults[j, r, c] == 0 or conduits[j, r, c] != 0:
                continue
            n = 0
            for q in range(ntargets[j]):
                t = targets[j, q]
                if abs(t // GRID - r) + abs(t % GRID - c) <= 1:
                    n += 1
            if n < best_n:
                best_n = n
                best = k
        if best >= 0 and mask[j, CONDUIT_BASE + best]:
            return CONDUIT_BASE + best
    # 2. air: one more shaft when the city would run short by the end
    pending = 0
    for q in range(ntargets[j]):
        t = targets[j, q]
        if cells[j, t // GRID, t % GRID] != DISTRICT:
            pending += 1
    goal = min(DISTRICT_GOAL, districts[j] + pending)
    if projected_air(j, air, step, airflow0, vents, research, goal) <= AIR_OK + slack[j]:
        best = -1
        best_air = 0
        best_d = 1
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            if cells[j, r, c] == ROCK or vents[j, r, c] != 0:
                continue
            d, total = vent_plan(j, r, c, step[j], airflow0, research[j, AIRFLOW] >= DECODED)
            if total > best_air:
                best_air = total
                best = k
                best_d = d
        if best >= 0 and mask[j, VENT_BASE + 4 * best + best_d - 1]:
            return VENT_BASE + 4 * best + best_d - 1
    # 3. the targets, in order
    for q in range(ntargets[j]):
        if districts[j] >= DISTRICT_GOAL:
            break
        k = targets[j, q]
        r = k // GRID
        c = k % GRID
        kind = cells[j, r, c]
        if kind == DISTRICT:
            continue
        load = stress[j, r, c] + shear(j, r, c, seams, damped)
        if kind == ROCK:
            if load > ROCK_SPAN + best_hold(j, r, c, seams, components) + (
                SEAM_SHEAR if seams[j, r, c] != 0 and damped[j, r, c] == 0 else 0
            ):
                continue  # cannot be held: skip this target
            a = EXCAVATE_BASE + k
            if mask[j, a]:
                return a
            return WAIT
        if load > hold(j, r, c, seams, supports):
            if supports[j, r, c] == 0:
                m = best_material(j, r, c, seams, components)
                a = SUPPORT_BASE + (m - 1) * NUM_CELLS + k
                if mask[j, a]:
                    return a
            if seams[j, r, c] != 0 and damped[j, r, c] == 0 and conduits[j, r, c] == 0:
                a = CONDUIT_BASE + k
                if mask[j, a]:
                    return a
            continue
        if not ventilated(j, r, c, vents):
            d, total = vent_plan(j, r, c, step[j], airflow0, research[j, AIRFLOW] >= DECODED)
            a = VENT_BASE + 4 * k + d - 1
            if mask[j, a]:
                return a
        if kind == CHAMBER:
            a = BUILD_BASE + k
            if mask[j, a]:
                return a
    return WAIT


@njit(cache=True)
def oracle_rollouts(
    rng, targets, ntargets, taps_wanted, slack, plans, returns, wins, outcome, reward,
    terminated,
    seams, faults, stress0, airflow0, cells, supports, vents, conduits, stress, damped,
    step, integrity, air, power, districts, research, components, scanned, power_paid,
    view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
    view_reversal, view_draft, view_conduit_effect, view_conduit_damps, terms, mask,
) -> None:  # fmt: skip
    """Every slot j holds a copy of one start state; each draws a plan (targets ordered by
    load plus noise, a number of taps, an air margin) and plays it to the end."""
    views = (
        view_stress, airflow, view_seams, view_faults, view_relief_reach, view_relief,
        view_reversal, view_draft, view_conduit_effect, view_conduit_damps,
    )  # fmt: skip
    n = plans.shape[0]
    key = np.zeros(NUM_CELLS, dtype=np.int64)
    for j in range(n):
        noise = below(rng, 0, 40) if j > 0 else 0
        for k in range(NUM_CELLS):
            r = k // GRID
            c = k % GRID
            load = stress[j, r, c] + shear(j, r, c, seams, damped)
            cost = max(0, load - ROCK_SPAN) * 4 + load
            if faults[j, r, c] != 0:
                cost += 40
            for d in range(1, 5):  # crowded neighbours take the spill
                rr = r + DIR_ROW[d]
                cc = c + DIR_COL[d]
                if 0 <= rr < GRID and 0 <= cc < GRID:
                    cost += EXCAVATION_SPILL // 2
            key[k] = cost * 64 + (below(rng, 0, noise + 1) * 64 if noise > 0 else 0) + k
        order = np.argsort(key)
        ntargets[j] = MAX_TARGETS
        for q in range(MAX_TARGETS):
            targets[j, q] = order[q]
        taps_wanted[j] = 1 + below(rng, 0, 2) if j > 0 else 1
        slack[j] = below(rng, 0, 6) if j > 0 else 2
        returns[j] = 0.0
        wins[j] = False
        plans[j, :] = WAIT
        for t in range(STEP_BUDGET):
            a = _oracle_policy(
                j, targets, ntargets, taps_wanted, slack,
                seams, faults, stress0, airflow0, cells, supports, vents, conduits, stress,
                damped, step, integrity, air, power, districts, research, components, scanned,
                power_paid, mask,
            )  # fmt: skip
            plans[j, t] = a
            step_one(
                j, a, outcome, reward, terminated,
                seams, faults, stress0, airflow0, cells, supports, vents, conduits, stress,
                damped, step, integrity, air, power, districts, research, components, scanned,
                power_paid, views, terms, mask,
            )  # fmt: skip
            returns[j] += reward[j]
            if terminated[j]:
                wins[j] = outcome[j] == 1
                break


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
        self.taps = np.zeros(k, dtype=np.int64)
        self.slack = np.zeros(k, dtype=np.int64)
        self.plans = np.zeros((k, STEP_BUDGET), dtype=np.int64)
        self.returns = np.zeros(k, dtype=np.float64)
        self.wins = np.zeros(k, dtype=np.bool_)
        self.plan = np.full((self.num_envs, STEP_BUDGET), WAIT, dtype=np.int64)
        self.plan_won = np.zeros(self.num_envs, dtype=np.bool_)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def plan_episode(self, i: int) -> None:
        # The candidate plans are drawn from a stream fixed by the episode itself (seeded with
        # the env's stream right after it drew this scenario), so an episode gets the same plans
        # however the batch is laid out: in a vector env of any size, or through the text env.
        seed_streams(self.rng, self.batch.rng[i : i + 1])
        for name, arr in self.scratch.fields.items():
            arr[:] = self.batch.fields[name][i]
        s = self.scratch
        oracle_rollouts(
            self.rng, self.targets, self.ntargets, self.taps, self.slack, self.plans,
            self.returns, self.wins, s.outcome, s.reward, s.terminated, *s.fields.values(),
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


AGENTS = {"random": RandomAgent, "heuristic": ObserveThenBuildAgent, "oracle": OracleAgent}
