"""The settings of one PPO run, checked once before anything starts."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

POLICIES = ("mlp", "gru", "lstm")


@dataclass
class PPOConfig:
    """Every setting of a PPO run; the defaults are the published feed-forward baseline's.

    One update collects ``num_envs * rollout`` env steps, then runs ``epochs`` passes of
    ``minibatches`` minibatches over them. Recurrent policies (``gru``, ``lstm``) train on whole
    rollouts of a subset of the sub-envs per minibatch, starting from the memory each sub-env
    had when the rollout began. With ``memory_across_episodes`` the memory is never cleared at
    an episode's end and the policy also sees its previous action, reward and end flag
    (RL^2-style), so what it learnt in one episode can carry to the next.
    """

    env_id: str = "hiddengrid/AnomalyMapping-v0"
    total_steps: int = 1_500_000
    seed: int = 0
    policy: str = "mlp"
    hidden: int = 128
    memory_across_episodes: bool = False
    num_envs: int = 256
    rollout: int = 64
    epochs: int = 4
    minibatches: int = 4
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    device: str = "auto"
    # torch CPU threads. One by default: the batches are small, and on a machine whose cores
    # are busy two OpenMP threads were measured 50-100x slower than one.
    threads: int = 1
    checkpoint_every: int = 50  # updates between checkpoints (the last one is always saved)

    def __post_init__(self) -> None:
        self.check()

    @property
    def recurrent(self) -> bool:
        return self.policy != "mlp"

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout

    def check(self) -> None:
        """Raises ``ValueError`` naming the first bad setting and what is valid."""
        positive = ("total_steps", "hidden", "num_envs", "rollout", "epochs", "minibatches")
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.memory_across_episodes and not self.recurrent:
            raise ValueError("memory_across_episodes needs a recurrent policy (gru or lstm)")
        split = self.num_envs if self.recurrent else self.num_envs * self.rollout
        if split % self.minibatches:
            what = "num_envs" if self.recurrent else "num_envs * rollout"
            raise ValueError(f"{what} ({split}) must be a multiple of minibatches")
        for name in ("learning_rate", "clip", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        for name in ("entropy_coef", "value_coef"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"device must be auto, cpu or cuda[:N], got {self.device!r}")
        if self.threads < 1 or self.checkpoint_every < 1:
            raise ValueError("threads and checkpoint_every must be >= 1")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PPOConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown PPO settings {unknown}; valid: {sorted(known)}")
        return cls(**values)
