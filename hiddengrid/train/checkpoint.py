"""Saving and loading a trained policy: its settings, weights and the observation size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from hiddengrid.train.config import PPOConfig
from hiddengrid.train.encoders import build_encoder
from hiddengrid.train.features import build_view
from hiddengrid.train.policy import ActorCritic

FORMAT = 1
KEYS = ("format", "config", "step", "obs_size", "nvec", "model")


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


def _input_size(config: PPOConfig, obs_size: int, nvec: list[int]) -> int:
    """The policy's input width: the observation, plus the fed-back step with memory."""
    return obs_size + (sum(nvec) + 2 if config.memory_across_episodes else 0)


def aux_sizes(config: PPOConfig) -> tuple[int, ...]:
    """The auxiliary head's label sizes of a run's settings (none without an auxiliary task)."""
    if not config.auxiliary:
        return ()
    from hiddengrid.train.auxiliary import AUXILIARIES

    task = AUXILIARIES[config.auxiliary]
    return task.sizes if task.head == "aux" else ()


def build_model(config: PPOConfig, obs_size: int, nvec: list[int]) -> ActorCritic:
    """The policy a run of ``config`` trains on ``obs_size`` observation features: its input
    (with the fed-back step under memory), its view, its encoder, core and heads."""
    inputs = _input_size(config, obs_size, nvec)
    view = build_view(config.features, obs_size)
    extra = int(view.extra) if view is not None else 0
    encoder = build_encoder(config.encoder, inputs + extra, extra, config.hidden)
    return ActorCritic(inputs, nvec, config.hidden, config.policy, aux_sizes(config), view, encoder)


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[ActorCritic, PPOConfig, dict[str, Any]]:
    """The policy (in eval mode), its settings, and the raw checkpoint dict.

    Raises ``ValueError`` with one line when the file is missing, is not a checkpoint, or its
    parts disagree (a missing key, a bad setting, a weight whose shape is not the one its
    settings, action sizes and observation size give).
    """
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {name!r} does not exist")
    try:
        data = torch.load(path, map_location=device, weights_only=True)
    except Exception as exc:  # torch raises many kinds for a file that is not a checkpoint
        # torch's own message runs to several lines: its first says what went wrong
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{name!r} is not a hiddengrid PPO checkpoint ({reason})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{name!r} is not a hiddengrid PPO checkpoint (format {FORMAT})")
    missing = [key for key in KEYS if key not in data]
    if missing:
        raise ValueError(f"checkpoint {name!r} is damaged: it lacks {', '.join(missing)}")
    if not isinstance(data["config"], dict):
        raise ValueError(f"checkpoint {name!r} is damaged: its config is not a table")
    try:
        # a checkpoint written before legacy_env_seeds (or vtrace_clip) existed was trained
        # with those seeds (and without V-trace)
        old = {"legacy_env_seeds": True, "vtrace_clip": 0.0}
        config = PPOConfig.from_dict({**old, **data["config"]})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"checkpoint {name!r} has bad settings: {exc}") from None
    nvec, obs_size = data["nvec"], data["obs_size"]
    if not (isinstance(nvec, list) and nvec and all(isinstance(n, int) and n > 0 for n in nvec)):
        raise ValueError(f"checkpoint {name!r} is damaged: nvec {nvec!r} is not action sizes")
    if isinstance(obs_size, bool) or not isinstance(obs_size, int) or obs_size < 1:
        raise ValueError(f"checkpoint {name!r} is damaged: obs_size {obs_size!r}")
    weights = data["model"]
    if not isinstance(weights, dict):
        raise ValueError(f"checkpoint {name!r} is damaged: its weights are not a table")
    model = build_model(config, obs_size, nvec)
    expected = model.state_dict()
    if set(weights) != set(expected):
        lacking = sorted(set(expected) - set(weights))
        extra = sorted(set(weights) - set(expected))
        what = f"lacks {', '.join(lacking)}" if lacking else f"has unknown {', '.join(extra)}"
        raise ValueError(
            f"checkpoint {name!r} does not fit its settings ({config.policy}, hidden "
            f"{config.hidden}): its weights {what}"
        )
    for key, want in expected.items():
        got = weights[key]
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
            shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
            raise ValueError(
                f"checkpoint {name!r} does not fit its settings: weight {key} is {shape}, "
                f"hidden {config.hidden}, {obs_size} observation features and actions {nvec} "
                f"give {tuple(want.shape)}"
            )
    model.load_state_dict(weights)
    model.to(device).eval()
    return model, config, data


def check_fits_env(path: str | Path, data: dict[str, Any], env: Any) -> None:
    """Refuses, before any episode, a checkpoint whose observation or action sizes are not
    the env's (``env`` is a vector env or a single env of the checkpoint's id)."""
    from gymnasium import spaces

    from hiddengrid.core.flat import flat_size
    from hiddengrid.train.policy import action_nvec

    observation = getattr(env, "single_observation_space", None) or env.observation_space
    action = getattr(env, "single_action_space", None) or env.action_space
    size = flat_size(observation)
    if data["obs_size"] != size:
        raise ValueError(
            f"checkpoint {str(path)!r} expects {data['obs_size']} observation features, "
            f"this env gives {size}"
        )
    nvec = action_nvec(action) if isinstance(action, spaces.Discrete | spaces.MultiDiscrete) else []
    if list(data["nvec"]) != nvec:
        raise ValueError(
            f"checkpoint {str(path)!r} has actions {list(data['nvec'])}, this env has {nvec}"
        )


def check_env_args(path: str | Path, config: PPOConfig, env_args: dict[str, Any]) -> None:
    """Refuses an env built with other arguments than the ones the policy was trained on
    (``env_args`` as the env read them, its defaults filled in), naming the ``--env-arg``
    values that play the trained env."""
    trained = dict(config.env_kwargs)
    if dict(env_args) == trained:
        return
    wanted = " ".join(f"--env-arg {k}={v!r}" for k, v in trained.items()) or "no --env-arg"
    raise ValueError(
        f"checkpoint {str(path)!r} was trained on {config.env_id} with "
        f"{_args_text(trained)}, this env has {_args_text(env_args)}; pass {wanted}"
    )


def _args_text(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in sorted(args.items())) or "no arguments"
