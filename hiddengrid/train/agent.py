"""A trained PPO checkpoint as a scored agent (``hiddengrid eval --agent ppo --checkpoint F``)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import torch
from gymnasium import spaces

from hiddengrid.core.agents import BatchAgent
from hiddengrid.core.flat import FlatEncoder
from hiddengrid.train.checkpoint import check_env_args, check_fits_env, load_checkpoint
from hiddengrid.train.policy import action_nvec, masked_logits, most_likely, sample
from hiddengrid.train.trainer import PolicyInput


class PPOAgent(BatchAgent):
    """Plays a checkpoint's policy, sampling its actions as in training (seeded), or with
    ``greedy`` each action head's most likely choice (a deterministic evaluation).

    A recurrent policy's memory is cleared at every episode start, except for a policy trained
    with memory across episodes, which keeps it and is fed its previous action, reward and end
    flag, as in training.
    """

    name = "ppo"
    description = "a PPO policy trained with hiddengrid train (--checkpoint FILE)"
    reads_scenario: ClassVar[bool] = False

    def __init__(self, env: Any, seed: int = 0, checkpoint: str = "", greedy: bool = False) -> None:
        super().__init__(env, seed)
        self.greedy = greedy
        self.model, self.config, data = load_checkpoint(checkpoint)
        env_id = getattr(getattr(env, "spec", None), "id", None) or env.definition.id
        if self.config.env_id != env_id:
            raise ValueError(
                f"checkpoint {checkpoint!r} was trained on {self.config.env_id}, not {env_id}"
            )
        torch.set_num_threads(self.config.threads)
        self.env = env
        check_fits_env(checkpoint, data, env)
        batch = getattr(env.unwrapped, "batch", None)
        if batch is not None:  # the env's arguments as it read them
            check_env_args(checkpoint, self.config, dict(batch.config))
        self.encoder = FlatEncoder(env.single_observation_space)
        self.nvec = action_nvec(env.single_action_space)
        self.discrete = isinstance(env.single_action_space, spaces.Discrete)
        self.masked = env.unwrapped.definition.masked
        self.memory = self.config.memory_across_episodes
        self.inputs = PolicyInput(self.encoder.size, self.nvec, self.memory, self.num_envs)
        self.state = self.model.initial_state(self.num_envs)
        self.generator = torch.Generator().manual_seed(seed)
        self.prev_action: np.ndarray | None = None
        self.prev_reward = np.zeros(self.num_envs, dtype=np.float32)
        self.prev_done = np.zeros(self.num_envs, dtype=bool)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        logits = self.policy_logits(obs, starts)
        with torch.no_grad():
            if self.greedy:
                action = most_likely(logits, self.nvec)
            else:
                action, _ = sample(logits, self.nvec, self.generator)
        self.prev_action = action.numpy()
        return self.prev_action[:, 0] if self.discrete else self.prev_action

    def policy_logits(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> torch.Tensor:
        """The policy's action logits on ``obs`` (the action mask applied), one row per sub-env
        and the heads side by side; a recurrent policy's memory moves on as in ``act``."""
        flat = self.encoder.encode(obs, self.num_envs)
        starts = np.asarray(starts, dtype=bool)
        rows = self.inputs.build(flat, self.prev_action, self.prev_reward, self.prev_done, starts)
        x = torch.as_tensor(rows)
        mask = None
        if self.masked:
            m = np.asarray(self.env.action_masks(), dtype=bool).reshape(self.num_envs, -1)
            m[~m.any(axis=1)] = True
            mask = torch.as_tensor(m)
        with torch.no_grad():
            if self.model.recurrent:
                clear = None if self.memory else torch.as_tensor(starts)[None]
                logits, _, self.state = self.model(x[None], self.state, clear)
                logits = logits[0]
            else:
                logits, _, _ = self.model(x, ())
            return masked_logits(logits, mask)

    def observe(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> None:
        self.prev_reward = np.asarray(reward, dtype=np.float32)
        self.prev_done = np.asarray(terminated) | np.asarray(truncated)
