"""The Stable-Baselines3 example trains and plays every env (short budgets; the train extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from hiddengrid import ENV_IDS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_sb3_ppo.py"


def load_example() -> ModuleType:
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    spec = importlib.util.spec_from_file_location("train_sb3_ppo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_sb3_example_trains_and_evaluates_every_env(env_id: str) -> None:
    example = load_example()
    model = example.make_model(env_id, n_envs=2, seed=0, n_steps=32, batch_size=32, n_epochs=1)
    model.learn(total_timesteps=64)
    assert model.num_timesteps >= 64
    # the env raises on any illegal action (wrong type, shape, masked): playing is the check
    success, mean_return = example.evaluate(model, env_id, episodes=2, seed=0)
    assert 0.0 <= success <= 1.0 and mean_return == mean_return
