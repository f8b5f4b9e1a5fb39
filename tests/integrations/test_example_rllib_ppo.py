"""``examples/rllib_ppo.py`` without RLlib: it fills the kernel cache before building the
algorithm (so runners do not compile against RLlib's sample timeout), and an iteration with no
runner results prints NaN instead of raising ``KeyError: 'env_runners'``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


def test_example_warms_first_and_survives_an_iteration_without_runner_results(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    events: list[str] = []

    class Algo:
        def train(self) -> dict:
            events.append("train")
            return {}  # what RLlib returns when every runner's sample timed out

        def stop(self) -> None:
            events.append("stop")

    class Config:
        def build_algo(self) -> Algo:
            events.append("build")
            return Algo()

    monkeypatch.setattr(example, "warm_env", lambda env_id: events.append(f"warm {env_id}"))
    monkeypatch.setattr(example, "ppo_config", lambda env_id, **kw: Config())
    monkeypatch.setattr(example.ray, "init", lambda **kw: None)
    monkeypatch.setattr(example.ray, "shutdown", lambda: None)
    monkeypatch.setattr(
        sys, "argv", ["rllib_ppo.py", "--env", "hiddengrid/Megacity-v0", "--iterations", "1"]
    )
    example.main()
    assert events == ["warm hiddengrid/Megacity-v0", "build", "train", "stop"]
    assert "return nan over 0 episodes" in capsys.readouterr().out
