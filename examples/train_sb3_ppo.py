"""Train Stable-Baselines3 PPO on a hiddengrid env and compare it with the published agents.

    pip install "hiddengrid[train]"
    python examples/train_sb3_ppo.py --env hiddengrid/AnomalyMapping-v0 --steps 200000

SB3 runs its own vectorisation (``DummyVecEnv`` over single envs, with same-step autoreset),
so the envs are made with ``gymnasium.make``; the Dict observations need ``MultiInputPolicy``.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import hiddengrid  # noqa: F401  (registers the ids)


def evaluate(model: PPO, env_id: str, episodes: int, seed: int) -> float:
    """Mean return over ``episodes`` seeded episodes (episode k is ``reset(seed=seed+k)``)."""
    env = gym.make(env_id)
    total = 0.0
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        done = False
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(int(np.asarray(action)))
            total += reward
            done = terminated or truncated
    return total / episodes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="hiddengrid/AnomalyMapping-v0")
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-episodes", type=int, default=500)
    args = parser.parse_args()
    venv = make_vec_env(args.env, n_envs=args.envs, seed=args.seed)
    model = PPO("MultiInputPolicy", venv, n_steps=256, batch_size=512, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.steps)
    score = evaluate(model, args.env, args.eval_episodes, seed=10_000)
    print(f"{args.env}: PPO after {args.steps} steps: mean return {score:.3f}")


if __name__ == "__main__":
    main()
