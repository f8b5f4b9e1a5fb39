"""Megacity's red team: policies that do not model the hidden physics or the episode's geology.

Each is a batch agent like those in ``agents.py``; a sound design lets none of them win more
than 10 % of the episodes. ``calibration.py`` prints their win rates and mean returns beside
the agents'; ``tests/envs/megacity/test_megacity_redteam.py`` runs them at a small count.

* ``late``: excavates the six least-stressed cells (as surveyed at step 0), adds timber and a
  shaft along the current to each, lays at most one conduit (a guess: the middle cell), waits,
  then builds the six cores in the last six steps; ``late_timed`` builds them in steps 30-35
  instead, so that the activation delay can pass.
* ``early``: the same cells and preparation, each core built as soon as its cell is ready.
* ``greedy``: always opens the least-stressed rock cell as surveyed now, supports it with timber
  when the survey reads high, a shaft along the current, builds at once; never a conduit.
* ``idle``: one chamber and one shaft, then waits; ``wait``: only waits.
* ``no_research``: the expert heuristic without its research and scan (it plans on the survey
  alone, knows the equations, lays no conduit as it knows no fault).
* ``fixed_plan``: a fixed open-loop plan of 40 actions played whatever the observation (a
  masked action becomes a wait). ``fixed_plans`` gives twelve of them: the oracle's plans for
  twelve fixed episodes; the calibration reports the best.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from numba import njit

from hiddengrid.core.agents import BatchAgent
from hiddengrid.envs.megacity.agents import ExpertAgent
from hiddengrid.envs.megacity.constants import (
    BUILD_BASE,
    CHAMBER,
    CONDUIT_BASE,
    DEFAULT_LEVEL,
    DISTRICT_GOAL,
    EXCAVATE_BASE,
    GRID,
    NUM_CELLS,
    REWARD_TERMS,
    ROCK,
    STEP_BUDGET,
    SUCCESS,
    SUPPORT_BASE,
    TIMBER,
    VENT_BASE,
    WAIT,
)

ENV_ID = "hiddengrid/Megacity-v0"
LATE, LATE_TIMED, EARLY, GREEDY, IDLE, WAIT_ONLY = range(6)
LATE_START = {LATE: STEP_BUDGET - DISTRICT_GOAL, LATE_TIMED: 30}
GUESSED_TAP = 2 * GRID + 2  # the middle cell: a blind guess at the fault
TIMBER_ABOVE = 30  # the greedy builder shores up cells the survey reads above this


@njit(cache=True)
def along_current(airflow: np.ndarray, j: int, r: int, c: int) -> int:
    """The direction (1..4) the observed current runs in the cell (north when still)."""
    fr = airflow[j, r, c, 0]
    fc = airflow[j, r, c, 1]
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
def least_stressed(j, stress, cells, count, targets) -> None:
    """The ``count`` rock cells with the lowest surveyed stress (ties by cell index)."""
    taken = np.zeros(NUM_CELLS, dtype=np.bool_)
    for q in range(count):
        best = -1
        best_s = 1 << 30
        for k in range(NUM_CELLS):
            s = stress[j, k // GRID, k % GRID]
            if not taken[k] and cells[j, k // GRID, k % GRID] == ROCK and s < best_s:
                best_s = s
                best = k
        taken[best] = True
        targets[j, q] = best


@njit(cache=True)
def prepare(j, k, cells, supports, vents, airflow, mask) -> int:
    """The next step of readying cell k for a core: excavate, timber, a shaft along the
    current; -1 once it is ready."""
    r = k // GRID
    c = k % GRID
    if cells[j, r, c] == ROCK:
        return EXCAVATE_BASE + k
    if supports[j, r, c] == 0 and mask[j, SUPPORT_BASE + (TIMBER - 1) * NUM_CELLS + k]:
        return SUPPORT_BASE + (TIMBER - 1) * NUM_CELLS + k
    if vents[j, r, c] == 0:
        return VENT_BASE + 4 * k + along_current(airflow, j, r, c) - 1
    return -1


@njit(cache=True)
def scripted_act(
    mode, starts, stress, airflow, cells, supports, vents, conduits, step, targets, mask, out
) -> None:
    for j in range(out.shape[0]):
        if starts[j]:
            if mode == IDLE:
                least_stressed(j, stress, cells, 1, targets)
            elif mode != GREEDY:
                least_stressed(j, stress, cells, DISTRICT_GOAL, targets)
        a = WAIT
        if mode == WAIT_ONLY:
            a = WAIT
        elif mode == IDLE:
            p = prepare(j, targets[j, 0], cells, supports, vents, airflow, mask)
            a = p if p >= 0 else WAIT
        elif mode == GREEDY:
            a = -1
            opened = 0
            for k in range(NUM_CELLS):
                r = k // GRID
                c = k % GRID
                if cells[j, r, c] == ROCK:
                    continue
                opened += 1
                if a >= 0:
                    continue
                if (
                    supports[j, r, c] == 0
                    and stress[j, r, c] > TIMBER_ABOVE
                    and mask[j, SUPPORT_BASE + k]
                ):
                    a = SUPPORT_BASE + k
                elif vents[j, r, c] == 0:
                    a = VENT_BASE + 4 * k + along_current(airflow, j, r, c) - 1
                elif cells[j, r, c] == CHAMBER:
                    a = BUILD_BASE + k
            if a < 0 and opened < DISTRICT_GOAL:
                least_stressed(j, stress, cells, 1, targets)
                a = EXCAVATE_BASE + targets[j, 0]
            if a < 0:
                a = WAIT
        else:
            if step[j] == 0:
                a = CONDUIT_BASE + GUESSED_TAP
            else:
                a = -1
                for q in range(DISTRICT_GOAL):
                    k = targets[j, q]
                    p = prepare(j, k, cells, supports, vents, airflow, mask)
                    if p >= 0:
                        a = p
                        break
                    if mode == EARLY and cells[j, k // GRID, k % GRID] == CHAMBER:
                        a = BUILD_BASE + k
                        break
                if a < 0 and mode != EARLY:
                    start = STEP_BUDGET - DISTRICT_GOAL if mode == LATE else 30
                    if step[j] >= start:
                        for q in range(DISTRICT_GOAL):
                            k = targets[j, q]
                            if cells[j, k // GRID, k % GRID] == CHAMBER:
                                a = BUILD_BASE + k
                                break
                if a < 0:
                    a = WAIT
        out[j] = a if mask[j, a] else WAIT


class ScriptedAgent(BatchAgent):
    """One of the scripted blind policies (``mode``: LATE, LATE_TIMED, EARLY, GREEDY, IDLE,
    WAIT_ONLY)."""

    mode = WAIT_ONLY

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.targets = np.zeros((self.num_envs, DISTRICT_GOAL), dtype=np.int64)
        self.actions = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        scripted_act(
            self.mode, starts, obs["stress"], obs["airflow"], obs["cells"], obs["supports"],
            obs["vents"], obs["conduits"], obs["step"], self.targets, self.env.batch["mask"],
            self.actions,
        )  # fmt: skip
        return self.actions.copy()


def scripted(name: str, mode: int) -> type[ScriptedAgent]:
    return type(
        f"{name.title().replace('_', '')}Agent", (ScriptedAgent,), {"mode": mode, "name": name}
    )


class NoResearchExpert(ExpertAgent):
    """The expert heuristic that never researches and never scans."""

    name = "no_research"
    learn = False


class FixedPlanAgent(BatchAgent):
    """Plays one fixed plan of STEP_BUDGET actions in every sub-env, whatever it observes."""

    name = "fixed_plan"

    def __init__(self, env: Any, plan: np.ndarray, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.env = env
        self.plan = np.asarray(plan, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        t = np.minimum(obs["step"], STEP_BUDGET - 1)
        actions = self.plan[t].copy()
        legal = self.env.batch["mask"][np.arange(self.num_envs), actions]
        actions[~legal] = WAIT
        return actions


PLAN_SEED = 1_000_000  # the fixed plans are the oracle's for seeds PLAN_SEED .. PLAN_SEED + 11
NUM_FIXED_PLANS = 12


def fixed_plans(count: int = NUM_FIXED_PLANS, level: int = DEFAULT_LEVEL) -> np.ndarray:
    """The oracle's plans for ``count`` fixed episodes of ``level``: strong plans for *some*
    geology."""
    from hiddengrid.envs.megacity.agents import OracleAgent

    venv = gym.make_vec(
        ENV_ID, num_envs=count, vectorization_mode="vector_entry_point", level=level
    )
    venv.reset(seed=PLAN_SEED)
    oracle = OracleAgent(venv.unwrapped, seed=PLAN_SEED)
    for i in range(count):
        oracle.plan_episode(i)
    return oracle.plan.copy()


REDTEAM: dict[str, type[BatchAgent]] = {
    "late": scripted("late", LATE),
    "late_timed": scripted("late_timed", LATE_TIMED),
    "early": scripted("early", EARLY),
    "greedy": scripted("greedy", GREEDY),
    "idle": scripted("idle", IDLE),
    "wait": scripted("wait", WAIT_ONLY),
    "no_research": NoResearchExpert,
}


@dataclass
class Tally:
    """What a policy did over a run of episodes."""

    episodes: int = 0
    wins: int = 0
    returns: list[float] = field(default_factory=list)
    terms: np.ndarray = field(default_factory=lambda: np.zeros(len(REWARD_TERMS)))
    outcomes: dict[int, int] = field(default_factory=dict)

    @property
    def mean_return(self) -> float:
        return float(np.mean(self.returns)) if self.returns else 0.0


def play(
    make_agent: Callable[[Any, int], BatchAgent],
    episodes: int,
    seed: int = 0,
    batch: int = 2048,
    level: int = DEFAULT_LEVEL,
) -> Tally:
    """Plays ``episodes`` seeded episodes of ``level`` (sub-env i of a batch starting at seed
    s plays seed s + i) and tallies wins, returns and reward terms. ``make_agent(env, s)``
    builds a batch's agent with the batch's first seed, as ``hiddengrid eval`` does, so an
    agent's random streams follow the episodes (stream i of a batch from s is seed s + i's) and
    every policy plays each episode as ``hiddengrid eval`` plays it, whatever the batch."""
    tally = Tally()
    for offset in range(0, episodes, batch):
        n = min(batch, episodes - offset)
        venv = gym.make_vec(
            ENV_ID, num_envs=n, vectorization_mode="vector_entry_point", level=level
        )
        base = venv.unwrapped
        agent = make_agent(base, seed + offset)
        obs, _ = venv.reset(seed=seed + offset)
        starts = np.ones(n, dtype=bool)
        active = np.ones(n, dtype=bool)
        ret = np.zeros(n)
        while active.any():
            obs, reward, terminated, _, _ = venv.step(agent.act(obs, starts))
            starts[:] = False
            ret += np.where(active, reward, 0.0)
            tally.terms += (base.batch["terms"] * active[:, None]).sum(axis=0)
            ended = terminated & active
            for o in base.batch.outcome[ended]:
                tally.outcomes[int(o)] = tally.outcomes.get(int(o), 0) + 1
            tally.wins += int((base.batch.outcome[ended] == SUCCESS).sum())
            active &= ~terminated
        tally.returns.extend(ret.tolist())
        tally.episodes += n
    tally.terms /= max(tally.episodes, 1)
    return tally
