"""Saving and loading a trained policy: its settings, weights and the observation size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from hiddengrid.train.config import PPOConfig
from hiddengrid.train.policy import ActorCritic

FORMAT = 1


def save_checkpoint(
    path: str | Path, model: ActorCritic, config: PPOConfig, step: int, obs_size: int
) -> None:
    """Writes atomically (to a temporary name, then renamed) so a reader never sees half."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    torch.save(
        {
            "format": FORMAT,
            "config": config.as_dict(),
            "step": step,
            "obs_size": obs_size,
            "nvec": list(model.nvec),
            "model": state,
        },
        tmp,
    )
    tmp.replace(path)


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[ActorCritic, PPOConfig, dict[str, Any]]:
    """The policy (in eval mode), its settings, and the raw checkpoint dict.

    Raises ``ValueError`` with one line when the file is missing or is not a checkpoint.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location=device, weights_only=True)
    except Exception as exc:  # torch raises many kinds for a file that is not a checkpoint
        # torch's own message runs to several lines: its first says what went wrong
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{str(path)!r} is not a hiddengrid PPO checkpoint ({reason})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a hiddengrid PPO checkpoint (format {FORMAT})")
    config = PPOConfig.from_dict(data["config"])
    input_size = data["model"]["encoder.0.weight"].shape[1]
    model = ActorCritic(input_size, data["nvec"], config.hidden, config.policy)
    model.load_state_dict(data["model"])
    model.to(device).eval()
    return model, config, data
