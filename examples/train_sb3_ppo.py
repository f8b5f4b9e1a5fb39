"""Train Stable-Baselines3 PPO on any hiddengrid env and score it like the published agents.

    pip install "hiddengrid[train]"
    python examples/train_sb3_ppo.py --env hiddengrid/AnomalyMapping-v0 --steps 200000

SB3 runs its own vectorisation (``DummyVecEnv`` over single envs), so the envs are made with
``gymnasium.make``. Each one is wrapped in ``FlatObservation``: the Dict observation becomes
the same float32 vector hiddengrid's own trainer uses (one-hot or scaled per key), so a plain
``MlpPolicy`` works for every env, whatever its Discrete observations start at. SquadRecon's
``MultiDiscrete([6, 6, 6])`` action is kept as an array; Megacity's masked ``Discrete(390)``
trains with sb3-contrib's ``MaskablePPO``, which asks ``action_masks()`` before every step.

For speed and longer runs, ``hiddengrid train --env ID`` trains PPO on the native vector env.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import hiddengrid
from hiddengrid.core.flat import FlatObservation


def is_masked(env_id: str) -> bool:
    return hasattr(gym.make(env_id).unwrapped, "action_masks")


def make_model(env_id: str, n_envs: int = 8, seed: int = 0, **ppo_kwargs: Any) -> Any:
    """PPO (MaskablePPO where the env masks actions) on ``n_envs`` flattened single envs."""
    venv = make_vec_env(env_id, n_envs=n_envs, seed=seed, wrapper_class=FlatObservation)
    settings = {"n_steps": 256, "batch_size": 512, "seed": seed, "verbose": 0, **ppo_kwargs}
    if is_masked(env_id):
        from sb3_contrib import MaskablePPO

        return MaskablePPO("MlpPolicy", venv, **settings)
    return PPO("MlpPolicy", venv, **settings)


def to_env_action(action: np.ndarray, space: gym.Space) -> Any:
    """SB3's predicted action in the form the env accepts: an int for ``Discrete``, an int64
    array for ``MultiDiscrete`` (the env rejects anything else, as it should)."""
    if isinstance(space, gym.spaces.Discrete):
        return int(np.asarray(action).item())
    return np.asarray(action, dtype=np.int64).reshape(space.shape)


def evaluate(model: Any, env_id: str, episodes: int, seed: int) -> tuple[float, float]:
    """(success rate, mean return) over ``episodes`` seeded episodes (episode k is
    ``reset(seed=seed+k)``), with the env's own success rule as ``hiddengrid eval`` uses it."""
    env = FlatObservation(gym.make(env_id))
    base = env.unwrapped
    is_success = hiddengrid.definition_of(env_id).is_success
    masked = hasattr(base, "action_masks")
    successes, total = 0, 0.0
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        done, ep_return, info = False, 0.0, {}
        while not done:
            extra = {"action_masks": base.action_masks()} if masked else {}
            action, _ = model.predict(obs, deterministic=True, **extra)
            obs, reward, terminated, truncated, info = env.step(
                to_env_action(action, env.action_space)
            )
            ep_return += float(reward)
            done = terminated or truncated
        successes += bool(is_success(str(info.get("outcome")), ep_return))
        total += ep_return
    return successes / episodes, total / episodes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="hiddengrid/AnomalyMapping-v0")
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-episodes", type=int, default=500)
    args = parser.parse_args()
    if args.env not in hiddengrid.ENV_IDS:
        raise SystemExit(f"unknown env {args.env!r}; registered: {', '.join(hiddengrid.ENV_IDS)}")
    model = make_model(args.env, n_envs=args.envs, seed=args.seed)
    model.learn(total_timesteps=args.steps)
    success, score = evaluate(model, args.env, args.eval_episodes, seed=10_000)
    print(
        f"{args.env}: SB3 PPO after {args.steps} steps: success {success:.1%}, "
        f"mean return {score:.3f} over {args.eval_episodes} episodes"
    )


if __name__ == "__main__":
    main()
