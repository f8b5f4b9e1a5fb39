"""SquadRecon's red team: open-loop plans that ignore every observation.

A fixed plan is 40 orders per squad played whatever happens: moves along a fixed route, with
an attack order on every other step (an attack with no camp next to it is a hold, so a blind
plan loses nothing by attacking often, except squads when the strength next to a camp is too
low). The env is sound when none of them wins more than a few episodes in a hundred: finding
the camps needs the observation. The page reports the best of ``PLANS`` over the same seeded
episodes as the agents; ``tests/envs/squad_recon/test_squad_recon_agents.py`` runs them at a
small count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hiddengrid.core.agents import BatchAgent
from hiddengrid.envs.squad_recon.constants import (
    ATTACK,
    MOVE_EAST,
    MOVE_NORTH,
    MOVE_SOUTH,
    MOVE_WEST,
    NUM_SQUADS,
    STEP_BUDGET,
)

N, S, E, W = MOVE_NORTH, MOVE_SOUTH, MOVE_EAST, MOVE_WEST


def route_plan(*routes: tuple[int, ...]) -> np.ndarray:
    """A ``(STEP_BUDGET, NUM_SQUADS)`` plan: squad ``k`` cycles through ``routes[k]`` (one route
    for all squads if only one is given), attacking on every odd step."""
    if len(routes) == 1:
        routes = routes * NUM_SQUADS
    plan = np.full((STEP_BUDGET, NUM_SQUADS), ATTACK, dtype=np.int64)
    for k, route in enumerate(routes):
        for t in range(0, STEP_BUDGET, 2):
            plan[t, k] = route[(t // 2) % len(route)]
    return plan


# Named open-loop plans: the squads together on a staircase, diagonal or edge route, or fanned
# out (north, north-east, east), or sweeping back and forth.
PLANS: dict[str, np.ndarray] = {
    "together north-east": route_plan((N, E)),
    "together north then east": route_plan((N,) * 10 + (E,) * 10),
    "together east then north": route_plan((E,) * 10 + (N,) * 10),
    "fan out": route_plan((N,), (N, E), (E,)),
    "fan out and back": route_plan(
        (N,) * 7 + (S,) * 7, (N, E) * 4 + (S, W) * 4, (E,) * 7 + (W,) * 7
    ),
    "zigzag": route_plan(
        (N, N, N, E, E, E, S, S, S, E, E, E), (E, E, E, N, N, N, W, W, W, N, N, N), (N, E)
    ),
}


class FixedPlanAgent(BatchAgent):
    """Plays ``plan[t]`` on step ``t`` of every episode, ignoring the observation."""

    name = "fixed plan"
    description = "an open-loop plan of 40 orders per squad, the same in every episode"
    plan: np.ndarray = PLANS["together north-east"]

    def __init__(self, env: Any, seed: int = 0) -> None:
        super().__init__(env, seed)
        self.t = np.zeros(self.num_envs, dtype=np.int64)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        self.t[np.asarray(starts, dtype=bool)] = 0
        actions = self.plan[np.minimum(self.t, STEP_BUDGET - 1)]
        self.t += 1
        return actions


def fixed_plan_agents() -> dict[str, type[FixedPlanAgent]]:
    """One agent class per named plan, for ``run_episodes(..., agent_factory=...)``."""
    return {
        name: type("FixedPlan", (FixedPlanAgent,), {"plan": plan, "name": name})
        for name, plan in PLANS.items()
    }
