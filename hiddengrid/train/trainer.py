"""PPO on the native vector env: collect a rollout of every sub-env at once, then learn from it.

The env runs next-step autoreset: the step after an episode ends only resets that sub-env (its
action is ignored). Such a step is kept in the rollout (a recurrent policy's memory passes
through it) but carries no loss and cuts the return, so every learning sample is a real
transition.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from hiddengrid.core.flat import FlatVectorEnv
from hiddengrid.registry import ENV_IDS, definition_of
from hiddengrid.train.checkpoint import save_checkpoint
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.policy import (
    ActorCritic,
    State,
    action_nvec,
    log_prob_entropy,
    masked_logits,
    sample,
)

CSV_COLUMNS = (
    "step",
    "update",
    "episodes",
    "success_rate",
    "mean_return",
    "mean_length",
    "steps_per_second",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "seconds",
    "env_seconds",
    "forward_seconds",
    "learn_seconds",
)


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA device")
    return torch.device(name)


@dataclass
class TrainResult:
    """Where a run wrote its files and how it ended."""

    out_dir: Path
    checkpoint: Path
    csv: Path
    plot: Path | None
    steps: int
    success_rate: float  # over the training episodes of the last 10 % of the run
    steps_per_second: float
    # env: stepping and flattening; forward: every forward pass (acting, and the learning
    # passes' loss); backward: backward passes, gradient clipping and Adam; other: the rest
    seconds: dict[str, float] = field(default_factory=dict)


class PolicyInput:
    """Builds the policy's input rows: the flat observation, plus the previous action (one-hot
    per component), reward and end flag when memory carries across episodes."""

    def __init__(self, obs_size: int, nvec: list[int], extras: bool, n: int) -> None:
        self.obs_size = obs_size
        self.nvec = nvec
        self.extras = extras
        self.size = obs_size + (sum(nvec) + 2 if extras else 0)
        self.offsets = np.cumsum([0, *nvec[:-1]]) + obs_size
        self.rows = np.zeros((n, self.size), dtype=np.float32)

    def build(
        self,
        flat: np.ndarray,
        prev_action: np.ndarray | None = None,
        prev_reward: np.ndarray | None = None,
        prev_done: np.ndarray | None = None,
        fresh: np.ndarray | None = None,
    ) -> np.ndarray:
        """``fresh`` marks rows whose previous step was an autoreset (no action, no reward)."""
        rows = self.rows
        rows[:, : self.obs_size] = flat
        if self.extras:
            rows[:, self.obs_size :] = 0.0
            if prev_action is not None:
                index = np.arange(rows.shape[0])
                for k, offset in enumerate(self.offsets):
                    rows[index, offset + prev_action[:, k]] = 1.0
                rows[:, -2] = prev_reward
                rows[:, -1] = prev_done
                if fresh is not None:
                    rows[fresh, self.obs_size :] = 0.0
        return rows


class PPOTrainer:
    """One PPO run; :meth:`run` trains and writes the CSV, checkpoints and plot."""

    def __init__(self, config: PPOConfig, out_dir: str | Path | None = None) -> None:
        if config.env_id not in ENV_IDS:
            raise ValueError(f"unknown env {config.env_id!r}; registered: {', '.join(ENV_IDS)}")
        self.config = cfg = config
        self.device = resolve_device(cfg.device)
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        self.generator = torch.Generator(device=self.device).manual_seed(cfg.seed)
        self.definition = definition_of(cfg.env_id)
        venv = gym.make_vec(
            cfg.env_id, num_envs=cfg.num_envs, vectorization_mode="vector_entry_point"
        )
        self.env = FlatVectorEnv(venv)
        self.base = venv.unwrapped
        self.nvec = action_nvec(self.base.single_action_space)
        self.discrete = isinstance(self.base.single_action_space, gym.spaces.Discrete)
        self.masked = self.base.definition.masked
        self.inputs = PolicyInput(
            self.env.encoder.size, self.nvec, cfg.memory_across_episodes, cfg.num_envs
        )
        self.model = ActorCritic(self.inputs.size, self.nvec, cfg.hidden, cfg.policy).to(
            self.device
        )
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate, eps=1e-5)
        name = cfg.env_id.split("/")[-1]
        memory = "-rl2" if cfg.memory_across_episodes else ""
        default = Path("runs") / f"{name}-{cfg.policy}{memory}-s{cfg.seed}"
        self.out_dir = Path(out_dir) if out_dir is not None else default
        self.backward_seconds = 0.0  # of the learn time: backward pass, clipping and Adam
        self._allocate()

    def _allocate(self) -> None:
        cfg, dev = self.config, self.device
        t, n = cfg.rollout, cfg.num_envs
        self.obs = torch.zeros((t, n, self.inputs.size), device=dev)
        self.actions = torch.zeros((t, n, len(self.nvec)), dtype=torch.long, device=dev)
        self.logps = torch.zeros((t, n), device=dev)
        self.values = torch.zeros((t, n), device=dev)
        self.rewards = torch.zeros((t, n), device=dev)
        self.dones = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.valid = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.first = torch.zeros((t, n), dtype=torch.bool, device=dev)
        self.masks = (
            torch.zeros((t, n, sum(self.nvec)), dtype=torch.bool, device=dev)
            if self.masked
            else None
        )

    def _mask(self) -> np.ndarray:
        mask = np.asarray(self.base.action_masks(), dtype=bool).reshape(self.config.num_envs, -1)
        # a sub-env about to autoreset may report no legal action; its action is ignored
        empty = ~mask.any(axis=1)
        if empty.any():
            mask[empty] = True
        return mask

    def run(self, progress: bool = True, tensorboard: bool = False) -> TrainResult:
        cfg = self.config
        self.out_dir.mkdir(parents=True, exist_ok=True)
        csv_path = self.out_dir / "progress.csv"
        ckpt_path = self.out_dir / "checkpoint.pt"
        writer = _tensorboard(self.out_dir) if tensorboard else None
        bar = _progress_bar(cfg, progress)
        n, horizon = cfg.num_envs, cfg.rollout
        updates = -(-cfg.total_steps // cfg.steps_per_update)
        flat, _ = self.env.reset(seed=cfg.seed)
        state = self.model.initial_state(n, self.device)
        ended = np.zeros(n, dtype=bool)  # the last step ended the episode: this one resets
        first = np.ones(n, dtype=bool)  # the observation is an episode's first
        prev_action = np.zeros((n, len(self.nvec)), dtype=np.int64)
        prev_reward = np.zeros(n, dtype=np.float32)
        ep_return = np.zeros(n)
        ep_length = np.zeros(n, dtype=np.int64)
        timers = dict.fromkeys(("env", "forward", "learn"), 0.0)
        history: list[dict[str, float]] = []
        start = time.perf_counter()
        step = 0
        with open(csv_path, "w", newline="") as fh:
            out = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
            out.writeheader()
            for update in range(1, updates + 1):
                if cfg.anneal_lr:
                    frac = 1.0 - (update - 1) / updates
                    self.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
                initial = tuple(s.clone() for s in state)
                done_returns: list[float] = []
                done_lengths: list[int] = []
                successes = 0
                for t in range(horizon):
                    tick = time.perf_counter()
                    rows = self.inputs.build(flat, prev_action, prev_reward, ended, first)
                    x = torch.as_tensor(rows, device=self.device)
                    first_t = torch.as_tensor(first, device=self.device)
                    self.obs[t] = x
                    self.first[t] = first_t
                    self.valid[t] = torch.as_tensor(~ended, device=self.device)
                    mask_t = None
                    if self.masks is not None:
                        mask_t = torch.as_tensor(self._mask(), device=self.device)
                        self.masks[t] = mask_t
                    with torch.no_grad():
                        if self.model.recurrent:
                            clear = None if cfg.memory_across_episodes else first_t[None]
                            logits, value, state = self.model(x[None], state, clear)
                            logits, value = logits[0], value[0]
                        else:
                            logits, value, _ = self.model(x, state)
                        action, logp = sample(
                            masked_logits(logits, mask_t), self.nvec, self.generator
                        )
                    self.actions[t] = action
                    self.logps[t] = logp
                    self.values[t] = value
                    action_np = action.cpu().numpy()
                    tock = time.perf_counter()
                    timers["forward"] += tock - tick
                    flat, reward, terminated, _, info = self.env.step(
                        action_np[:, 0] if self.discrete else action_np
                    )
                    timers["env"] += time.perf_counter() - tock
                    self.rewards[t] = torch.as_tensor(reward, device=self.device)
                    self.dones[t] = torch.as_tensor(terminated | ended, device=self.device)
                    live = ~ended
                    ep_return += np.where(live, reward, 0.0)
                    ep_length += live
                    for i in np.flatnonzero(terminated):
                        outcome = str(info["outcome"][i])
                        successes += bool(self.definition.is_success(outcome, ep_return[i]))
                        done_returns.append(float(ep_return[i]))
                        done_lengths.append(int(ep_length[i]))
                    ep_return[terminated] = 0.0
                    ep_length[terminated] = 0
                    first = ended
                    ended = terminated.copy()
                    prev_action, prev_reward = action_np, reward.astype(np.float32)
                step += n * horizon
                tick = time.perf_counter()
                with torch.no_grad():
                    rows = self.inputs.build(flat, prev_action, prev_reward, ended, first)
                    x = torch.as_tensor(rows, device=self.device)
                    if self.model.recurrent:
                        clear = None if cfg.memory_across_episodes else first_t.new_tensor(first)
                        _, next_value, _ = self.model(
                            x[None], state, None if clear is None else clear[None]
                        )
                        next_value = next_value[0]
                    else:
                        _, next_value, _ = self.model(x, state)
                timers["forward"] += time.perf_counter() - tick
                tick = time.perf_counter()
                stats = self._learn(next_value, initial)
                timers["learn"] += time.perf_counter() - tick
                elapsed = time.perf_counter() - start
                episodes = len(done_returns)
                row = {
                    "step": step,
                    "update": update,
                    "episodes": episodes,
                    "success_rate": successes / episodes if episodes else float("nan"),
                    "mean_return": float(np.mean(done_returns)) if episodes else float("nan"),
                    "mean_length": float(np.mean(done_lengths)) if episodes else float("nan"),
                    "steps_per_second": step / elapsed,
                    **stats,
                    "seconds": elapsed,
                    "env_seconds": timers["env"],
                    "forward_seconds": timers["forward"],
                    "learn_seconds": timers["learn"],
                }
                out.writerow(row)
                fh.flush()
                history.append(row)
                if writer is not None:
                    for key in ("success_rate", "mean_return", "entropy", "approx_kl"):
                        writer.add_scalar(f"train/{key}", row[key], step)
                    writer.add_scalar("train/steps_per_second", row["steps_per_second"], step)
                if bar is not None:
                    bar.update(n * horizon)
                    bar.set_postfix(success=f"{row['success_rate']:.1%}", refresh=False)
                if update % cfg.checkpoint_every == 0 or update == updates:
                    save_checkpoint(ckpt_path, self.model, cfg, step, self.env.encoder.size)
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        plot = _plot(csv_path, self.out_dir / "curve.png", cfg)
        elapsed = time.perf_counter() - start
        tail = history[-max(1, len(history) // 10) :]
        total_eps = sum(r["episodes"] for r in tail)
        success = (
            sum(r["success_rate"] * r["episodes"] for r in tail if r["episodes"]) / total_eps
            if total_eps
            else 0.0
        )
        seconds = {
            "env": timers["env"],
            "forward": timers["forward"] + timers["learn"] - self.backward_seconds,
            "backward": self.backward_seconds,
            "other": elapsed - sum(timers.values()),
        }
        return TrainResult(
            out_dir=self.out_dir,
            checkpoint=ckpt_path,
            csv=csv_path,
            plot=plot,
            steps=step,
            success_rate=success,
            steps_per_second=step / elapsed,
            seconds=seconds,
        )

    def _advantages(self, next_value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cfg = self.config
        advantages = torch.zeros_like(self.rewards)
        last = torch.zeros_like(next_value)
        for t in reversed(range(cfg.rollout)):
            follow = next_value if t == cfg.rollout - 1 else self.values[t + 1]
            carry = (~self.dones[t]).float()
            delta = self.rewards[t] + cfg.gamma * follow * carry - self.values[t]
            last = delta + cfg.gamma * cfg.gae_lambda * carry * last
            advantages[t] = last
        return advantages, advantages + self.values

    def _loss(
        self,
        logits: torch.Tensor,
        values: torch.Tensor,
        index: Any,
        advantages: torch.Tensor,
        returns: torch.Tensor,
    ) -> tuple[torch.Tensor, dict[str, float]]:
        cfg = self.config
        valid = self.valid[index]
        if self.masks is not None:
            logits = masked_logits(logits, self.masks[index])
        logp, entropy = log_prob_entropy(logits, self.nvec, self.actions[index])
        logp, entropy, values = logp[valid], entropy[valid], values[valid]
        old, adv, ret = self.logps[index][valid], advantages[index][valid], returns[index][valid]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
        log_ratio = logp - old
        ratio = log_ratio.exp()
        pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
        value_loss = 0.5 * (values - ret).pow(2).mean()
        ent = entropy.mean()
        loss = pg + cfg.value_coef * value_loss - cfg.entropy_coef * ent
        with torch.no_grad():
            stats = {
                "policy_loss": float(pg),
                "value_loss": float(value_loss),
                "entropy": float(ent),
                "approx_kl": float(((ratio - 1) - log_ratio).mean()),
                "clip_fraction": float(((ratio - 1).abs() > cfg.clip).float().mean()),
            }
        return loss, stats

    def _learn(self, next_value: torch.Tensor, initial: State) -> dict[str, float]:
        cfg = self.config
        advantages, returns = self._advantages(next_value)
        totals: dict[str, float] = {}
        count = 0
        for _ in range(cfg.epochs):
            if self.model.recurrent:
                order = torch.randperm(cfg.num_envs, generator=self.generator, device=self.device)
                groups = order.view(cfg.minibatches, -1)
            else:
                cells = cfg.rollout * cfg.num_envs
                order = torch.randperm(cells, generator=self.generator, device=self.device)
                groups = order.view(cfg.minibatches, -1)
            for group in groups:
                if self.model.recurrent:
                    index: Any = (slice(None), group)
                    state = tuple(s[:, group] for s in initial)
                    clear = None if cfg.memory_across_episodes else self.first[index]
                    logits, values, _ = self.model(self.obs[index], state, clear)
                else:
                    index = (group // cfg.num_envs, group % cfg.num_envs)
                    logits, values, _ = self.model(self.obs[index], ())
                if not bool(self.valid[index].any()):
                    continue
                loss, stats = self._loss(logits, values, index, advantages, returns)
                tock = time.perf_counter()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                self.backward_seconds += time.perf_counter() - tock
                for key, value in stats.items():
                    totals[key] = totals.get(key, 0.0) + value
                count += 1
        return {key: value / max(count, 1) for key, value in totals.items()}


def _progress_bar(cfg: PPOConfig, enabled: bool) -> Any:
    if not enabled:
        return None
    import sys

    from tqdm import tqdm

    name = cfg.env_id.split("/")[-1]
    return tqdm(
        total=cfg.total_steps,
        unit="step",
        unit_scale=True,
        desc=f"{name} {cfg.policy}",
        file=sys.stderr,
        smoothing=0.1,
    )


def _tensorboard(out_dir: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError as exc:
        raise ValueError(
            "--tensorboard needs the tensorboard package: pip install 'hiddengrid[tensorboard]'"
        ) from exc
    return SummaryWriter(log_dir=str(out_dir / "tensorboard"))


def _plot(csv_path: Path, png_path: Path, cfg: PPOConfig) -> Path | None:
    try:
        from hiddengrid.train.plot import plot_curves
    except ImportError:
        return None
    try:
        plot_curves([csv_path], png_path, title=f"{cfg.env_id} PPO {cfg.policy}")
    except ImportError:
        return None
    return png_path
