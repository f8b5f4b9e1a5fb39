"""Builds the pictures and numbers of InvertedTreasure's docs page (run offline):

    python -m hiddengrid.design.inverted_treasure.make_docs [out_dir] [evaluate: yes|no]

Writes inverted_treasure_base.png and inverted_treasure_scout.png (the fair heuristic of each
variant part-way through the same level), inverted_treasure_base_end.png and
inverted_treasure_scout_end.png (the last frames, with the icons never revealed shown faded),
and prints the agents' scores over 10,000 seeded episodes per variant as a Markdown table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401  (registers the ids)
from hiddengrid.envs.inverted_treasure.agents import AGENTS
from hiddengrid.envs.inverted_treasure.env import ENV_ID, SCOUT_ENV_ID
from hiddengrid.evaluate import run_episodes

LEVEL_SEED = 10  # a level where the Scout heuristic wins late and the base one walks far


def heuristic_frames(env_id: str, seed: int) -> tuple[list[np.ndarray], str]:
    """Every frame of the fair heuristic's first episode on the level drawn by ``seed``."""
    venv = gym.make_vec(
        env_id, num_envs=1, vectorization_mode="vector_entry_point", render_mode="rgb_array"
    )
    agent = AGENTS["heuristic"](venv.unwrapped, seed=0)
    obs, _ = venv.reset(seed=seed)
    frames = [venv.render()[0]]
    starts = np.ones(1, dtype=bool)
    while True:
        obs, _, terminated, _, info = venv.step(agent.act(obs, starts))
        starts[:] = False
        frames.append(venv.render()[0])
        if terminated[0]:
            return frames, str(info["outcome"][0])


def scores(episodes: int = 10_000) -> list[tuple]:
    rows = []
    for env_id in (ENV_ID, SCOUT_ENV_ID):
        for agent in ("random", "heuristic", "oracle"):
            res = run_episodes(env_id, agent, episodes, seed=0)
            low, high = res.interval
            rows.append((env_id, agent, res.success_rate, low, high, res.mean_length, res.outcomes))
    return rows


def main(out_dir: str = "docs/images", evaluate: str = "yes") -> None:
    from PIL import Image

    out = Path(out_dir)
    for env_id, name in ((ENV_ID, "base"), (SCOUT_ENV_ID, "scout")):
        frames, outcome = heuristic_frames(env_id, LEVEL_SEED)
        middle = frames[min(len(frames) - 2, 12)]
        Image.fromarray(middle).save(out / f"inverted_treasure_{name}.png")
        Image.fromarray(frames[-1]).save(out / f"inverted_treasure_{name}_end.png")
        print(f"{env_id}: heuristic {outcome} after {len(frames) - 1} actions")
    if evaluate != "yes":
        return
    print("| variant | agent | success | 95% CI | mean length | outcomes |")
    print("|---|---|---|---|---|---|")
    for env_id, agent, rate, low, high, length, outcomes in scores():
        print(
            f"| {env_id} | {agent} | {rate:.4f} | [{low:.4f}, {high:.4f}] | {length:.2f} | "
            f"{outcomes} |"
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
