"""PPO on hiddengrid's native vector env (needs the ``train`` extra: torch, matplotlib).

    import hiddengrid
    result = hiddengrid.train("hiddengrid/AnomalyMapping-v0", total_steps=3_000_000)
    print(result.success_rate, result.checkpoint)

``hiddengrid.train(...)`` and ``hiddengrid.train.train(...)`` are the same function (the
package is callable); the command line is ``hiddengrid train --env ID``.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

from hiddengrid.core.kernel import import_with_sleeping_waits

# before anything imports torch: it brings the process's OpenMP, and Numba's threads share it
import_with_sleeping_waits("torch")

from hiddengrid.train.config import PPOConfig  # noqa: E402
from hiddengrid.train.trainer import PPOTrainer, TrainResult  # noqa: E402


def train(
    env_id: str = "hiddengrid/AnomalyMapping-v0",
    *,
    out_dir: str | Path | None = None,
    progress: bool = True,
    tensorboard: bool = False,
    reference_episodes: int = 500,
    **settings: Any,
) -> TrainResult:
    """Trains PPO on ``env_id``; ``settings`` are :class:`PPOConfig` fields (``total_steps``,
    ``seed``, ``policy`` = ``"mlp"``/``"gru"``/``"lstm"``, ``memory_across_episodes``, ...).

    Writes ``progress.csv``, ``checkpoint.pt`` and ``curve.png`` into ``out_dir`` (default
    ``runs/<Env>-<policy>-s<seed>``, or the first of ``-2``, ``-3``, ... that holds no run;
    a given ``out_dir`` that holds a run is refused). The curve shows the env's own agents
    scored on ``reference_episodes`` episodes (0: none). Raises ``ValueError`` for a bad
    setting.
    """
    config = PPOConfig.from_dict({"env_id": env_id, **settings})
    return PPOTrainer(config, out_dir).run(
        progress=progress, tensorboard=tensorboard, reference_episodes=reference_episodes
    )


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> TrainResult:
        return train(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["PPOConfig", "PPOTrainer", "TrainResult", "train"]
