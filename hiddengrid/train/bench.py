"""Training speed: our PPO on the native vector env against Stable-Baselines3's and PuffeRL.

``hiddengrid bench --train [--env ID]`` runs, in one process and one after the other:

* ours, with its defaults (256 sub-envs x 64 steps per update, 4 epochs of 4 minibatches, two
  128-wide ReLU layers);
* SB3 ``PPO("MlpPolicy")`` on ``DummyVecEnv`` of 8 single envs wrapped in
  :class:`~hiddengrid.core.flat.FlatObservation` (the same input vectors), first with SB3's
  own defaults, then with our settings (same network, samples per update, epochs and
  minibatch size) so the two do the same learning work per step;
* PufferLib's PuffeRL with the same network, inputs and settings, where it imports
  (:mod:`hiddengrid.train.pufferl_runner`).

Every run uses one torch thread. It prints steps per second and ratios, and where the time
goes. Absolute figures move with the machine's load; quote the ratios.
"""

from __future__ import annotations

import tempfile
import time
from typing import Any

import gymnasium as gym
import torch

from hiddengrid.core.flat import FlatObservation
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.trainer import PPOTrainer

SB3_ENVS = 8


def ours(env_id: str, updates: int) -> tuple[float, dict[str, float]]:
    config = PPOConfig(env_id=env_id, total_steps=updates * PPOConfig().steps_per_update)
    with tempfile.TemporaryDirectory() as tmp:
        warm = PPOConfig(env_id=env_id, total_steps=1, num_envs=16, rollout=8, minibatches=1)
        # compiles the env and the flat writer
        PPOTrainer(warm, f"{tmp}/warm").run(progress=False, reference_episodes=0)
        result = PPOTrainer(config, f"{tmp}/run").run(progress=False, reference_episodes=0)
    return result.steps_per_second, result.seconds


def sb3(env_id: str, steps: int, matched: bool) -> tuple[float, dict[str, float]]:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    masked = gym.make(env_id).unwrapped.definition.masked
    timer = {"env": 0.0}

    class TimedDummyVecEnv(DummyVecEnv):
        def step_wait(self) -> Any:
            tick = time.perf_counter()
            out = super().step_wait()
            timer["env"] += time.perf_counter() - tick
            return out

    venv = make_vec_env(
        env_id, n_envs=SB3_ENVS, seed=0, wrapper_class=FlatObservation, vec_env_cls=TimedDummyVecEnv
    )
    kwargs: dict[str, Any] = {"seed": 0, "verbose": 0, "device": "cpu"}
    if matched:
        base = PPOConfig()
        kwargs.update(
            n_steps=base.steps_per_update // SB3_ENVS,
            batch_size=base.steps_per_update // base.minibatches,
            n_epochs=base.epochs,
            learning_rate=base.learning_rate,
            ent_coef=base.entropy_coef,
            policy_kwargs={"net_arch": [base.hidden, base.hidden]},
        )
    if masked:
        from sb3_contrib import MaskablePPO

        model: Any = MaskablePPO("MlpPolicy", venv, **kwargs)
    else:
        model = PPO("MlpPolicy", venv, **kwargs)
    tick = time.perf_counter()
    model.learn(total_timesteps=steps)
    elapsed = time.perf_counter() - tick
    done = model.num_timesteps
    return done / elapsed, {"env": timer["env"], "other": elapsed - timer["env"]}


def pufferl_rows(env_id: str, updates: int) -> list[tuple[str, float, dict[str, float]]]:
    """PuffeRL with our network, inputs and settings, where it imports; else one line why."""
    try:
        from hiddengrid.train.pufferl_runner import import_pufferl, train_pufferl

        import_pufferl()
    except ImportError as error:
        print(f"{error} (the training page says how to build it for the CPU)")
        return []
    config = PPOConfig(env_id=env_id, total_steps=updates * PPOConfig().steps_per_update)
    with tempfile.TemporaryDirectory() as tmp:
        warm = PPOConfig(env_id=env_id, total_steps=2048, num_envs=32, rollout=64)
        train_pufferl(warm, f"{tmp}/warm.pt")  # compiles the env and the flat writer
        run = train_pufferl(config, f"{tmp}/run.pt")
    split = {"env": run.env_seconds, "other": run.seconds - run.env_seconds}
    return [("PuffeRL, our settings", run.steps_per_second, split)]


def _split(seconds: dict[str, float]) -> str:
    total = sum(seconds.values()) or 1.0
    return " / ".join(f"{k} {v / total:.0%}" for k, v in seconds.items())


def run_train_bench(env_id: str, seconds: float = 1.0, updates: int = 6) -> int:
    """Prints the comparison table; ``seconds`` scales the run lengths (1.0: about a minute)."""
    torch.set_num_threads(1)
    scale = max(1, round(seconds))
    per_update = PPOConfig().steps_per_update
    rows = []
    sps, split = ours(env_id, updates * scale)
    rows.append(("ours (native vector env)", sps, split))
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        print("stable-baselines3 is not installed (pip install 'hiddengrid[train]')")
        rows_sb3 = []
    else:
        rows_sb3 = [
            ("SB3 PPO, SB3 defaults", *sb3(env_id, per_update * scale, matched=False)),
            ("SB3 PPO, our settings", *sb3(env_id, 2 * per_update * scale, matched=True)),
        ]
    rows_puffer = pufferl_rows(env_id, updates * scale)
    print(f"PPO training speed on {env_id} (one process, one torch thread, shared machine)")
    print(f"{'trainer':<28} {'steps/s':>10} {'ours x':>7}  where the time goes")
    for name, value, parts in rows + rows_sb3 + rows_puffer:
        ratio = sps / value
        print(f"{name:<28} {value:>10,.0f} {ratio:>6.1f}x  {_split(parts)}")
    return 0
