"""PufferLib's trainer (PuffeRL) on a hiddengrid env, with this project's network and inputs.

PuffeRL trains the policy of :mod:`hiddengrid.train.policy` (the same two 128-wide ReLU layers
and heads as ``hiddengrid train``) on :class:`~hiddengrid.integrations.puffer.HiddenGridPufferEnv`
with the ``"flat"`` encoding (the rows ``hiddengrid train`` reads), with the PPO settings of a
:class:`~hiddengrid.train.config.PPOConfig` wherever PuffeRL has one, and PuffeRL's own
mechanics (V-trace-clipped advantages recomputed every minibatch, its prioritized replay, its
cosine anneal, rewards clipped to [-1, 1]). The result is saved as an ordinary checkpoint, so
``hiddengrid eval --agent ppo --checkpoint FILE`` scores it like any run of ours.

PuffeRL imports only where PufferLib's compiled advantage kernel loads: the wheel that
``pip install ".[puffer]"`` builds on a machine with a CUDA compiler links CUDA's runtime,
which a CPU-only torch lacks. Built for the CPU (the training page gives the command), it
loads beside a CPU torch, and PuffeRL uses its CPU kernel.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from torch import nn

from hiddengrid.train.checkpoint import save_checkpoint
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.policy import ActorCritic, action_nvec, masked_logits

# PuffeRL settings with no counterpart in PPOConfig: PuffeRL's own defaults.
VTRACE_RHO_CLIP = 1.0
VTRACE_C_CLIP = 1.0


def import_pufferl() -> ModuleType:
    """``pufferlib.pufferl``, or ``ImportError`` with one line saying why it does not load.

    Importing it installs a SIGINT handler that ends the process at once and rich's traceback
    hook; both are put back as they were, so Ctrl-C and errors behave as before."""
    handler = signal.getsignal(signal.SIGINT)
    hook = sys.excepthook
    try:
        import pufferlib.pufferl as pufferl
    except ImportError as error:
        cause = error.__cause__ or error.__context__ or error
        raise ImportError(f"PufferLib's trainer does not import here: {cause}") from None
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        sys.excepthook = hook
    return pufferl


class PufferPolicy(nn.Module):
    """PufferLib's policy interface over an :class:`ActorCritic`: ``forward_eval`` and
    ``forward`` take the adapter's rows (the flat observation, then the legal-action mask where
    the env has one) and return PufferLib's logits (one tensor, or one per action component)
    and the values."""

    def __init__(self, model: ActorCritic, flat_width: int, masked: bool) -> None:
        super().__init__()
        self.model = model
        self.flat_width = flat_width
        self.masked = masked

    def forward_eval(self, observations: torch.Tensor, state: Any = None) -> tuple[Any, Any]:
        logits, values, _ = self.model(observations[:, : self.flat_width], ())
        if self.masked:
            logits = masked_logits(logits, observations[:, self.flat_width :] > 0.5)
        if len(self.model.nvec) > 1:
            return list(torch.split(logits, self.model.nvec, dim=-1)), values
        return logits, values

    def forward(self, observations: torch.Tensor, state: Any = None) -> tuple[Any, Any]:
        return self.forward_eval(observations, state)


def pufferl_settings(config: PPOConfig, data_dir: str) -> dict[str, Any]:
    """PuffeRL's train config for ``config``: one rollout of ``num_envs x rollout`` steps per
    update, the same epochs and minibatches, step size, discount, GAE lambda, clipping,
    coefficients, Adam epsilon, prioritization and precision."""
    batch = config.num_envs * config.rollout
    minibatch = batch // config.minibatches
    return {
        "env": config.env_id,
        "seed": config.seed,
        "torch_deterministic": True,
        "cpu_offload": False,
        "device": "cpu",
        "optimizer": "adam",
        "anneal_lr": config.lr_schedule != "constant",
        "precision": config.precision,
        "total_timesteps": config.total_steps,
        "learning_rate": config.learning_rate,
        "gamma": config.gamma,
        "gae_lambda": config.gae_lambda,
        "update_epochs": config.epochs,
        "clip_coef": config.clip,
        "vf_coef": config.value_coef,
        "vf_clip_coef": config.value_clip,
        "max_grad_norm": config.max_grad_norm,
        "ent_coef": config.entropy_coef,
        "adam_beta1": 0.9,
        "adam_beta2": 0.999,
        "adam_eps": config.adam_eps,
        "data_dir": data_dir,
        "checkpoint_interval": 2**31,
        "batch_size": batch,
        "minibatch_size": minibatch,
        "max_minibatch_size": minibatch,
        "bptt_horizon": config.rollout,
        "compile": False,
        "compile_mode": "default",
        "compile_fullgraph": False,
        "vtrace_rho_clip": VTRACE_RHO_CLIP,
        "vtrace_c_clip": VTRACE_C_CLIP,
        "prio_alpha": config.priority,
        "prio_beta0": config.priority_beta,
        "use_rnn": False,
    }


@dataclass
class PufferlResult:
    checkpoint: Path
    steps: int
    seconds: float
    env_seconds: float  # inside the env's step: the rest is PuffeRL and torch

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


def train_pufferl(config: PPOConfig, checkpoint: str | Path) -> PufferlResult:
    """Trains with PuffeRL for ``config.total_steps`` env steps (a whole number of updates,
    as PuffeRL stops) and writes the policy to ``checkpoint`` in this project's format.

    Sub-env ``i`` starts from env seed ``config.env_seed + i``, as in ``hiddengrid train``;
    torch's generator is seeded with ``config.seed`` (PuffeRL leaves that to its caller)."""
    extras = (config.shaping, config.auxiliary, config.imitation, config.features, config.encoder)
    if (
        config.policy != "mlp"
        or config.memory_across_episodes
        or config.init_checkpoint
        or any(extras)
    ):
        raise ValueError("PuffeRL runs plain PPO with the feed-forward policy only")
    pufferl = import_pufferl()
    from hiddengrid.integrations.puffer import HiddenGridPufferEnv

    torch.manual_seed(config.seed)
    env = HiddenGridPufferEnv(
        config.env_id, config.num_envs, seed=config.env_seed, encoding="flat", **config.env_kwargs
    )
    nvec = action_nvec(env.single_action_space)
    model = ActorCritic(env.flat_width, nvec, config.hidden, config.policy)
    policy = PufferPolicy(model, env.flat_width, env.masked)
    env_seconds = 0.0
    step = env.step

    def timed_step(actions: Any) -> Any:
        nonlocal env_seconds
        tick = time.perf_counter()
        out = step(actions)
        env_seconds += time.perf_counter() - tick
        return out

    env.step = timed_step  # type: ignore[method-assign]

    class QuietPuffeRL(pufferl.PuffeRL):  # type: ignore[misc, name-defined]
        def print_dashboard(self, *args: Any, **kwargs: Any) -> None:
            pass  # its full-screen dashboard would bury the caller's output

    with tempfile.TemporaryDirectory() as data_dir:
        start = time.perf_counter()
        with warnings.catch_warnings():
            # PuffeRL asks for float32 autocast, which CPU torch declines with a warning
            warnings.filterwarnings("ignore", "In CPU autocast", UserWarning)
            trainer = QuietPuffeRL(pufferl_settings(config, data_dir), env, policy)
        try:
            while trainer.global_step < config.total_steps:
                trainer.evaluate()
                trainer.train()
            seconds = time.perf_counter() - start
            steps = int(trainer.global_step)
        finally:
            trainer.utilization.stop()
            env.close()
    path = Path(checkpoint)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(path, model, config, steps, env.flat_width)
    return PufferlResult(path, steps, seconds, env_seconds)
