"""The calibration of the docs page: agent win rates and the blind replay of oracle plans.

``python -m hiddengrid.envs.megacity.calibration 10000`` prints the table.
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

from hiddengrid.envs.megacity.agents import OracleAgent
from hiddengrid.envs.megacity.constants import STEP_BUDGET, SUCCESS, WAIT
from hiddengrid.evaluate import run_episodes, wilson_interval

ENV_ID = "hiddengrid/Megacity-v0"


def _vec(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point")


def oracle_plans(episodes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The oracle's plan (40 actions) for the first episode of seeds ``seed .. seed+n-1`` and
    whether it won."""
    venv = _vec(episodes)
    venv.reset(seed=seed)
    agent = OracleAgent(venv.unwrapped, seed=seed)
    for i in range(episodes):
        agent.plan_episode(i)
    return agent.plan.copy(), agent.plan_won.copy()


def replay_blind(plans: np.ndarray, seed: int) -> np.ndarray:
    """Plays plan ``k`` on the first episode of seed ``seed + k``, action for action, whatever
    it observes (an action that is masked there is replaced by wait). Returns the wins."""
    n = plans.shape[0]
    venv = _vec(n)
    venv.reset(seed=seed)
    base = venv.unwrapped
    rows = np.arange(n)
    won = np.zeros(n, dtype=bool)
    for t in range(STEP_BUDGET):
        actions = plans[:, t].copy()
        legal = base.batch["mask"][rows, actions]
        actions[~legal] = WAIT
        _, _, terminated, _, _ = venv.step(actions)
        ended = terminated & ~won
        won |= ended & (base.batch.outcome == SUCCESS)
        if terminated.all():
            break
    return won


def blind_replay_rate(episodes: int, seed: int = 0) -> tuple[int, int]:
    """Winning oracle plans of seeds ``seed..`` replayed on seeds ``seed + episodes + ..``:
    (wins, replays)."""
    plans, won = oracle_plans(episodes, seed)
    winning = plans[won]
    if len(winning) == 0:
        return 0, 0
    wins = replay_blind(winning, seed + episodes)
    return int(wins.sum()), len(winning)


def main(episodes: int) -> None:
    print("| agent | wins / episodes | win rate | 95 % interval | mean return | outcomes |")
    print("|---|---|---|---|---|---|")
    for name in ("oracle", "heuristic", "random"):
        t0 = time.time()
        r = run_episodes(ENV_ID, name, episodes, seed=0, batch_size=min(episodes, 4096))
        lo, hi = r.interval
        print(
            f"| {name} | {r.successes} / {r.episodes} | {100 * r.success_rate:.1f} % | "
            f"{100 * lo:.1f}-{100 * hi:.1f} % | {r.mean_return:.1f} | {r.outcomes} |"
            f" <!-- {time.time() - t0:.0f}s -->",
            flush=True,
        )
    wins, n = blind_replay_rate(episodes, seed=0)
    lo, hi = wilson_interval(wins, n)
    print(
        f"| oracle plan replayed blindly on another seed | {wins} / {n} | "
        f"{100 * wins / max(n, 1):.1f} % | {100 * lo:.1f}-{100 * hi:.1f} % | | |"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
