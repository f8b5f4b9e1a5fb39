"""PPO on the native vector env: per update, collect a rollout of every sub-env at once, learn
from it, record it.

By default a sub-env that ends starts its next episode within the same step (same-step
autoreset), so every collected step is a real transition. With next-step autoreset (needed by
memory across episodes) the step after an episode ends only resets that sub-env (its action is
ignored); such a step is kept in the rollout (a recurrent policy's memory passes through it)
but carries no loss and cuts the return.
"""

from __future__ import annotations

import contextlib
import csv
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from hiddengrid.core.flat import FlatVectorEnv
from hiddengrid.registry import ENV_IDS, definition_of
from hiddengrid.train.auxiliary import AUXILIARIES, EPISODE_STATS
from hiddengrid.train.checkpoint import build_model, save_checkpoint
from hiddengrid.train.config import PPOConfig
from hiddengrid.train.policy import (
    ActorCritic,
    State,
    action_nvec,
    aux_loss,
    log_prob_entropy,
    masked_logits,
    sample,
    teacher_loss,
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


def csv_columns(config: PPOConfig) -> tuple[str, ...]:
    """The progress CSV's columns: :data:`CSV_COLUMNS`, then the auxiliary task's loss and
    accuracy when there is one, then the env's episode statistics (FieldCipher's per-slot
    accuracy) when it has them."""
    extra: tuple[str, ...] = ("aux_loss", "aux_accuracy") if config.auxiliary else ()
    stat = EPISODE_STATS.get(config.env_id)
    return CSV_COLUMNS + extra + (stat.columns if stat else ())


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


RUN_FILES = ("progress.csv", "checkpoint.pt")
IMITATION_SEED = 3_000_000  # added to the run's seed for the imitated agent's random stream


def default_out_dir(config: PPOConfig) -> Path:
    """``runs/<Env>-<policy>[-rl2]-s<seed>``, or the first of ``...-2``, ``...-3``, ... that
    holds no run yet: a second run with the same settings never overwrites the first."""
    name = config.env_id.split("/")[-1]
    memory = "-rl2" if config.memory_across_episodes else ""
    base = Path("runs") / f"{name}-{config.policy}{memory}-s{config.seed}"
    folder, k = base, 1
    while holds_run(folder):
        k += 1
        folder = base.with_name(f"{base.name}-{k}")
    return folder


def holds_run(folder: Path) -> bool:
    return any((folder / name).exists() for name in RUN_FILES)


def check_out_dir(folder: Path) -> None:
    """Refuses, before any work, a folder that holds a run already or cannot be written."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out folder {str(folder)!r} is a file; give a folder")
    if holds_run(folder):
        raise ValueError(
            f"out folder {str(folder)!r} already holds a run ({', '.join(RUN_FILES)}); "
            "give a new folder, or move that run away first"
        )
    existing = folder
    while not existing.exists():  # the nearest folder that exists is where mkdir writes
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"out folder {str(folder)!r}: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"out folder {str(folder)!r}: {str(existing)!r} is not writable")


def lr_factor(schedule: str, update: int, updates: int) -> float:
    """The learning rate's factor at ``update`` (counted from 0) of ``updates``."""
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * update / updates))
    if schedule == "linear":
        return 1.0 - update / updates
    return 1.0


@dataclass
class _Carry:
    """What one collect phase hands the next: each sub-env's observation, memory and episode."""

    flat: np.ndarray
    state: State
    ended: np.ndarray  # the last step ended the episode, so this one resets (next_step only)
    first: np.ndarray  # the observation is an episode's first
    prev_action: np.ndarray
    prev_reward: np.ndarray
    ep_return: np.ndarray
    ep_length: np.ndarray


def start_from(model: ActorCritic, config: PPOConfig) -> None:
    """Loads ``config.init_checkpoint``'s weights into ``model`` (see ``PPOConfig``), or
    ``ValueError`` in one line naming what does not match; ``model`` is unchanged then."""
    from hiddengrid.train.checkpoint import load_checkpoint

    path = config.init_checkpoint
    try:
        source, old, _ = load_checkpoint(path)
    except ValueError as exc:
        raise ValueError(f"init_checkpoint: {exc}") from None
    if old.env_id != config.env_id:
        raise ValueError(
            f"init_checkpoint {path!r} was trained on {old.env_id}, not {config.env_id}"
        )
    for name in ("policy", "hidden", "memory_across_episodes", "features", "encoder"):
        if getattr(old, name) != getattr(config, name):
            raise ValueError(
                f"init_checkpoint {path!r} has {name} {getattr(old, name)!r}, this run "
                f"{getattr(config, name)!r}: a run starts only from the same network"
            )
    weights = source.state_dict()
    target = model.state_dict()
    # The auxiliary head predicts the labels its run named: kept only for the same task.
    keep_aux = old.auxiliary == config.auxiliary
    chosen = {k: v for k, v in weights.items() if keep_aux or not k.startswith("aux.")}
    for key, want in target.items():
        if key.startswith("aux.") and not keep_aux:
            continue
        got = chosen.get(key)
        if got is None or got.shape != want.shape:
            shape = "nothing" if got is None else tuple(got.shape)
            raise ValueError(
                f"init_checkpoint {path!r} does not fit this run: weight {key} is {shape}, "
                f"this run needs {tuple(want.shape)}"
            )
    model.load_state_dict({**target, **{k: chosen[k] for k in target if k in chosen}})


@dataclass
class _Episodes:
    """The episodes that ended during one collect phase."""

    returns: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    successes: int = 0
    stats: list[np.ndarray] = field(default_factory=list)  # the env's episode statistics


class PPOTrainer:
    """One PPO run; :meth:`run` repeats three phases per update: collect a rollout of every
    sub-env, learn from it, record the update (CSV, checkpoint, progress bar)."""

    def __init__(self, config: PPOConfig, out_dir: str | Path | None = None) -> None:
        if config.env_id not in ENV_IDS:
            raise ValueError(f"unknown env {config.env_id!r}; registered: {', '.join(ENV_IDS)}")
        self.config = cfg = config
        if out_dir is None:
            self.out_dir = default_out_dir(cfg)
        else:
            self.out_dir = Path(out_dir)
        check_out_dir(self.out_dir)
        self.device = resolve_device(cfg.device)
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        self.generator = torch.Generator(device=self.device).manual_seed(cfg.seed)
        self.definition = definition_of(cfg.env_id)
        venv = gym.make_vec(
            cfg.env_id,
            num_envs=cfg.num_envs,
            vectorization_mode="vector_entry_point",
            **cfg.env_kwargs,
        )
        self.env = FlatVectorEnv(venv)
        self.base = venv.unwrapped
        self.nvec = action_nvec(self.base.single_action_space)
        self.discrete = isinstance(self.base.single_action_space, gym.spaces.Discrete)
        self.masked = self.base.definition.masked
        self.shaping = None
        if cfg.shaping:
            from hiddengrid.train.shaping import SHAPINGS

            self.shaping = SHAPINGS[cfg.shaping]
        self.aux = AUXILIARIES[cfg.auxiliary] if cfg.auxiliary else None
        self.expert: Any = None  # the imitated agent, during the warm start only
        self.expert_obs: dict[str, np.ndarray] = {}
        self.episode_stat = EPISODE_STATS.get(cfg.env_id)
        self.inputs = PolicyInput(
            self.env.encoder.size, self.nvec, cfg.memory_across_episodes, cfg.num_envs
        )
        self.model = build_model(cfg, self.env.encoder.size, self.nvec).to(self.device)
        view = self.model.view
        # the rollout stores each input with its view's columns (see _collect)
        self.stored_size = self.inputs.size + (int(view.extra) if view is not None else 0)
        _check_memory(cfg, self.stored_size, sum(self.nvec))
        if cfg.init_checkpoint:
            start_from(self.model, cfg)
        self.optimizer = torch.optim.Adam(
            self.model.parameters(), lr=cfg.learning_rate, eps=cfg.adam_eps
        )
        updates = cfg.updates
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda k: lr_factor(cfg.lr_schedule, k, updates)
        )
        self.backward_seconds = 0.0  # of the learn time: backward pass, clipping and Adam
        self.timers = dict.fromkeys(("env", "forward", "learn"), 0.0)
        self._allocate()

    def _allocate(self) -> None:
        cfg, dev = self.config, self.device
        t, n = cfg.rollout, cfg.num_envs
        self.obs = torch.zeros((t, n, self.stored_size), device=dev)
        self.actions = torch.zeros((t, n, len(self.nvec)), dtype=torch.long, device=dev)
        self.logps = torch.zeros((t, n), device=dev)
        self.ratios: torch.Tensor | None = None  # V-trace's, during an update (_learn)
        self.last_ratio = torch.ones(0, device=dev)  # of the last minibatch's valid steps
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
        self.aux_labels = (
            torch.zeros((t, n, len(self.aux.sizes)), dtype=torch.long, device=dev)
            if self.aux is not None
            else None
        )

    def _mask(self) -> np.ndarray:
        mask = np.asarray(self.base.action_masks(), dtype=bool).reshape(self.config.num_envs, -1)
        # a sub-env about to autoreset may report no legal action; its action is ignored
        empty = ~mask.any(axis=1)
        if empty.any():
            mask[empty] = True
        return mask

    # --- the run ------------------------------------------------------------------------------

    def run(
        self, progress: bool = True, tensorboard: bool = False, reference_episodes: int = 500
    ) -> TrainResult:
        """Trains, then draws the curve with the env's own agents as reference lines, each
        scored on ``reference_episodes`` episodes (0: no lines)."""
        cfg = self.config
        self.out_dir.mkdir(parents=True, exist_ok=True)
        ckpt_path = self.out_dir / "checkpoint.pt"
        recorder = _Recorder(self.out_dir, cfg, progress, tensorboard)
        self.carry = self._start()
        step = self._imitate() if cfg.imitation else 0
        with recorder:
            for update in range(1, cfg.updates + 1):
                episodes = self._collect()
                step += cfg.steps_per_update
                tick = time.perf_counter()
                stats = self._learn()
                self.scheduler.step()
                self.timers["learn"] += time.perf_counter() - tick
                recorder.record(update, step, episodes, stats, self.timers)
                if update % cfg.checkpoint_every == 0 or update == cfg.updates:
                    save_checkpoint(ckpt_path, self.model, cfg, step, self.env.encoder.size)
        plot = _plot(recorder.csv_path, self.out_dir / "curve.png", cfg, reference_episodes)
        elapsed = recorder.elapsed()
        seconds = {
            "env": self.timers["env"],
            "forward": self.timers["forward"] + self.timers["learn"] - self.backward_seconds,
            "backward": self.backward_seconds,
            "other": elapsed - sum(self.timers.values()),
        }
        return TrainResult(
            out_dir=self.out_dir,
            checkpoint=ckpt_path,
            csv=recorder.csv_path,
            plot=plot,
            steps=step,
            success_rate=recorder.tail_success(),
            steps_per_second=recorder.steps_per_second(step),
            seconds=seconds,
        )

    def _start(self) -> _Carry:
        cfg, n = self.config, self.config.num_envs
        flat, _ = self.env.reset(seed=cfg.env_seed)
        return _Carry(
            flat=flat,
            state=self.model.initial_state(n, self.device),
            ended=np.zeros(n, dtype=bool),
            first=np.ones(n, dtype=bool),
            prev_action=np.zeros((n, len(self.nvec)), dtype=np.int64),
            prev_reward=np.zeros(n, dtype=np.float32),
            ep_return=np.zeros(n),
            ep_length=np.zeros(n, dtype=np.int64),
        )

    # --- collect ------------------------------------------------------------------------------

    def _act(self, x: torch.Tensor, first: torch.Tensor, mask: torch.Tensor | None) -> Any:
        """Action, log-probability and value of every sub-env; advances the memory."""
        c = self.carry
        with torch.no_grad():
            with self._precision():
                if self.model.recurrent:
                    clear = None if self.config.memory_across_episodes else first[None]
                    logits, value, c.state = self.model(x[None], c.state, clear, viewed=True)
                    logits, value = logits[0], value[0]
                else:
                    logits, value, _ = self.model(x, c.state, viewed=True)
            if self.config.precision != "float32":  # sampling and the buffers stay float32
                logits, value = logits.float(), value.float()
                c.state = tuple(s.float() for s in c.state)
            logits = masked_logits(logits, mask)
            if self.expert is not None:  # the warm start: the imitated agent acts
                chosen = self.expert.act(self.expert_obs, c.first)
                action = torch.as_tensor(np.asarray(chosen), device=x.device).reshape(
                    x.shape[0], len(self.nvec)
                )
                logp = log_prob_entropy(logits, self.nvec, action)[0]
            else:
                action, logp = sample(logits, self.nvec, self.generator)
        return action, logp, value

    # --- imitation warm start -----------------------------------------------------------------

    def _imitate(self) -> int:
        """Behaviour cloning before PPO: ``imitation_updates`` rollouts played by the env's
        fair agent ``imitation``, the policy taught its actions (cross-entropy) and the value
        head its returns. Writes ``imitation.csv`` (per update: the agent's success, the
        policy's cross-entropy and how often its most likely action is the agent's) and
        returns the env steps it took; PPO continues from the same sub-envs."""
        cfg = self.config
        factory = self.definition.agents[cfg.imitation]
        # its own seed stream: the agent's random choices never repeat the policy's
        self.expert = factory(self.base, seed=cfg.seed + IMITATION_SEED)
        # the observation as the agent reads it: the batch's arrays, updated in place by steps
        self.expert_obs = self.base.batch.observation_views()
        path = self.out_dir / "imitation.csv"
        columns = ("step", "episodes", "success_rate", "mean_return", "cross_entropy")
        step = 0
        try:
            with open(path, "w", newline="") as fh:
                out = csv.DictWriter(fh, fieldnames=(*columns, "agreement", "value_loss"))
                out.writeheader()
                for _ in range(cfg.imitation_updates):
                    episodes = self._collect()
                    step += cfg.steps_per_update
                    stats = self._learn_imitation()
                    count = len(episodes.returns)
                    out.writerow(
                        {
                            "step": step,
                            "episodes": count,
                            "success_rate": episodes.successes / count if count else "nan",
                            "mean_return": float(np.mean(episodes.returns)) if count else "nan",
                            **stats,
                        }
                    )
                    fh.flush()
        finally:
            self.expert = None
        # PPO's first rollout starts from these sub-envs mid-episode; its own memory and
        # sampling take over from here. The timers and steps/s are PPO's alone.
        self.timers = dict.fromkeys(self.timers, 0.0)
        self.backward_seconds = 0.0
        return step

    def _learn_imitation(self) -> dict[str, float]:
        cfg = self.config
        returns = self._advantages(self.values)[1]  # the value targets of the agent's play
        totals = {"cross_entropy": 0.0, "agreement": 0.0, "value_loss": 0.0}
        count = 0
        for _ in range(cfg.epochs):
            for index in self._minibatches():
                valid = self.valid[index]
                if not bool(valid.any()):
                    continue
                logits, values = self._forward(index)
                if self.masks is not None:
                    logits = masked_logits(logits, self.masks[index])
                actions = self.actions[index]
                logp, _ = log_prob_entropy(logits, self.nvec, actions)
                cross_entropy = -logp[valid].mean()
                value_loss = 0.5 * (values[valid] - returns[index][valid]).pow(2).mean()
                loss = cross_entropy + cfg.value_coef * value_loss
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    best = torch.stack(
                        [p.argmax(-1) for p in torch.split(logits, self.nvec, dim=-1)], -1
                    )
                    agree = (best == actions).all(-1)[valid].float().mean()
                totals["cross_entropy"] += float(cross_entropy.detach())
                totals["agreement"] += float(agree)
                totals["value_loss"] += float(value_loss.detach())
                count += 1
        return {key: value / max(count, 1) for key, value in totals.items()}

    def _precision(self) -> Any:
        """The context of the network's passes: torch's automatic mixed precision with
        ``precision="bfloat16"``, nothing otherwise (float32 runs stay bit for bit)."""
        if self.config.precision == "float32":
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=getattr(torch, self.config.precision))

    def _forward(self, index: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and values of the minibatch ``index`` of the rollout, recomputed."""
        cfg = self.config
        with self._precision():
            if self.model.recurrent:
                state = tuple(s[:, index[1]] for s in self.initial)
                clear = None if cfg.memory_across_episodes else self.first[index]
                logits, values, _ = self.model(self.obs[index], state, clear, viewed=True)
            else:
                logits, values, _ = self.model(self.obs[index], (), viewed=True)
        if cfg.precision == "float32":
            return logits, values
        if self.model.features is not None:  # the auxiliary head reads them in float32
            self.model.features = self.model.features.float()
        return logits.float(), values.float()

    def _collect(self) -> _Episodes:
        """Plays ``rollout`` steps of every sub-env into the buffers."""
        cfg, c, dev, timers = self.config, self.carry, self.device, self.timers
        same_step = cfg.same_step
        self.initial = tuple(s.clone() for s in c.state)
        done = _Episodes()
        for t in range(cfg.rollout):
            tick = time.perf_counter()
            rows = self.inputs.build(c.flat, c.prev_action, c.prev_reward, c.ended, c.first)
            # A view has no weights: its columns are computed once here, not in every epoch
            # (on SquadRecon it was half of each learning pass); the values are the same.
            x = self.model.with_view(torch.as_tensor(rows, device=dev))
            first_t = torch.as_tensor(c.first, device=dev)
            self.obs[t] = x
            self.first[t] = first_t
            self.valid[t] = torch.as_tensor(~c.ended, device=dev)
            mask_t = None
            if self.masks is not None:
                mask_t = torch.as_tensor(self._mask(), device=dev)
                self.masks[t] = mask_t
            action, logp, value = self._act(x, first_t, mask_t)
            self.actions[t] = action
            self.logps[t] = logp
            self.values[t] = value
            action_np = action.cpu().numpy()
            tock = time.perf_counter()
            timers["forward"] += tock - tick
            if self.aux_labels is not None:  # the episode this observation belongs to
                self.aux_labels[t] = torch.as_tensor(self.aux.labels(self.base.batch), device=dev)
            if self.shaping is not None:
                before = self.shaping.potential(self.base.batch)
            flat, reward, terminated, truncated, info = self.env.step(
                action_np[:, 0] if self.discrete else action_np
            )
            if self.expert is not None:
                self.expert.observe(reward, terminated, truncated)
            learn_reward = reward
            if self.shaping is not None:
                after = self.shaping.potential(self.base.batch)  # before any reset
                after[terminated] = 0.0
                # a reset step (next-step autoreset) learns nothing: it keeps its own reward
                learn_reward = np.where(c.ended, reward, reward + after - before)
            if self.episode_stat is not None and terminated.any():  # read before any reset
                done.stats.append(self.episode_stat.values(self.base.batch)[terminated])
            if same_step and terminated.any():
                # The next episode starts now: no step is spent on the reset.
                flat, _ = self.env.reset(options={"reset_mask": terminated})
            timers["env"] += time.perf_counter() - tock
            self.rewards[t] = torch.as_tensor(learn_reward, device=dev, dtype=torch.float32)
            self.dones[t] = torch.as_tensor(terminated | c.ended, device=dev)
            live = ~c.ended
            c.ep_return += np.where(live, reward, 0.0)
            c.ep_length += live
            for i in np.flatnonzero(terminated):
                outcome = str(info["outcome"][i])
                done.successes += bool(self.definition.is_success(outcome, c.ep_return[i]))
                done.returns.append(float(c.ep_return[i]))
                done.lengths.append(int(c.ep_length[i]))
            c.ep_return[terminated] = 0.0
            c.ep_length[terminated] = 0
            if same_step:
                c.first = terminated.copy()
            else:
                c.first, c.ended = c.ended, terminated.copy()
            c.prev_action, c.prev_reward = action_np, reward.astype(np.float32)
            c.flat = flat
        tick = time.perf_counter()
        self.next_value = self._bootstrap()
        timers["forward"] += time.perf_counter() - tick
        return done

    def _bootstrap(self) -> torch.Tensor:
        """The value of the observation after the rollout (its memory is not advanced)."""
        cfg, c = self.config, self.carry
        with torch.no_grad():
            rows = self.inputs.build(c.flat, c.prev_action, c.prev_reward, c.ended, c.first)
            x = torch.as_tensor(rows, device=self.device)
            with self._precision():
                if not self.model.recurrent:
                    return self.model(x, c.state)[1].float()
                first = torch.as_tensor(c.first, device=self.device)[None]
                clear = None if cfg.memory_across_episodes else first
                return self.model(x[None], c.state, clear)[1][0].float()

    # --- learn --------------------------------------------------------------------------------

    def _advantages(self, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE over the rollout from ``values``; returns (advantages, value targets).

        Runs before every minibatch with refreshed values: the one-step errors are computed
        for the whole rollout at once, and only the backward recursion loops over steps.
        During an update with ``vtrace_clip``, the errors and traces are weighted by the
        steps' latest probability ratios (``self.ratios``) clipped there."""
        cfg = self.config
        carry = (~self.dones).float()
        following = torch.cat([values[1:], self.next_value[None]])
        deltas = self.rewards + cfg.gamma * following * carry - values
        decay = cfg.gamma * cfg.gae_lambda * carry
        if cfg.vtrace_clip > 0 and self.ratios is not None:
            clipped = self.ratios.clamp(max=cfg.vtrace_clip)
            deltas = deltas * clipped
            decay = decay * clipped
        advantages = torch.empty_like(deltas)
        last = torch.zeros_like(self.next_value)
        for t in range(cfg.rollout - 1, -1, -1):
            last = deltas[t] + decay[t] * last
            advantages[t] = last
        return advantages, advantages + values

    def _loss(
        self,
        logits: torch.Tensor,
        values: torch.Tensor,
        index: Any,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        old_values: torch.Tensor,
        weight: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, dict[str, float]]:
        cfg = self.config
        valid = self.valid[index]
        if self.masks is not None:
            logits = masked_logits(logits, self.masks[index])
        logp, entropy = log_prob_entropy(logits, self.nvec, self.actions[index])
        logp, entropy, values = logp[valid], entropy[valid], values[valid]
        old, adv, ret = self.logps[index][valid], advantages[index][valid], returns[index][valid]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
        if weight is not None:  # prioritized draws: importance weights undo part of the bias
            adv = adv * weight[valid]
        log_ratio = logp - old
        ratio = log_ratio.exp()
        self.last_ratio = ratio.detach()
        pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
        value_error = (values - ret).pow(2)
        if cfg.value_clip > 0:
            before = old_values[index][valid]
            clipped = before + (values - before).clamp(-cfg.value_clip, cfg.value_clip)
            value_error = torch.max(value_error, (clipped - ret).pow(2))
        value_loss = 0.5 * value_error.mean()
        ent = entropy.mean()
        loss = pg + cfg.value_coef * value_loss - cfg.entropy_coef * ent
        aux_stats = {}
        if self.aux_labels is not None and self.aux is not None and self.aux.head == "policy":
            aux, right = teacher_loss(logits, self.nvec, self.aux_labels[index], valid)
            loss = loss + cfg.aux_coef * aux
            aux_stats = {"aux_loss": float(aux.detach()), "aux_accuracy": right}
        elif self.aux_labels is not None:
            aux, right = aux_loss(self.model, self.aux_labels[index], valid)
            loss = loss + cfg.aux_coef * aux
            aux_stats = {"aux_loss": float(aux.detach()), "aux_accuracy": right}
        with torch.no_grad():
            stats = {
                "policy_loss": float(pg),
                "value_loss": float(value_loss),
                "entropy": float(ent),
                "approx_kl": float(((ratio - 1) - log_ratio).mean()),
                "clip_fraction": float(((ratio - 1).abs() > cfg.clip).float().mean()),
                **aux_stats,
            }
        return loss, stats

    def _minibatches(self) -> Any:
        """Index of each minibatch of one epoch: whole rollouts of a subset of the sub-envs
        for a recurrent policy, single cells otherwise."""
        cfg = self.config
        if self.model.recurrent:
            order = torch.randperm(cfg.num_envs, generator=self.generator, device=self.device)
            return [(slice(None), g) for g in order.view(cfg.minibatches, -1)]
        cells = cfg.rollout * cfg.num_envs
        order = torch.randperm(cells, generator=self.generator, device=self.device)
        return [(g // cfg.num_envs, g % cfg.num_envs) for g in order.view(cfg.minibatches, -1)]

    def _prioritized(self, advantages: torch.Tensor, beta: float) -> tuple[Any, torch.Tensor]:
        """One minibatch of whole sub-env rollouts drawn by advantage, and their weights."""
        cfg = self.config
        size = (advantages.abs() * self.valid).sum(0) ** cfg.priority
        probs = (size + 1e-6) / (size.sum() + 1e-6)
        group = torch.multinomial(probs, cfg.num_envs // cfg.minibatches, generator=self.generator)
        weight = (cfg.num_envs * probs[group]) ** -beta
        return (slice(None), group), weight.expand(cfg.rollout, -1)

    def _learn(self) -> dict[str, float]:
        cfg = self.config
        # The values the advantages start from; with refresh_advantages each minibatch writes
        # the values it just predicted back, and the next recomputes the advantages from them.
        values = self.values.clone()
        # every step's ratio to the collecting policy, as its latest minibatch left it
        self.ratios = torch.ones_like(values) if cfg.vtrace_clip > 0 else None
        advantages, returns = self._advantages(values)
        totals: dict[str, float] = {}
        count = 0
        progress = (self.scheduler.last_epoch) / max(cfg.updates, 1)
        beta = cfg.priority_beta + (1 - cfg.priority_beta) * progress
        for _ in range(cfg.epochs):
            batches = [None] * cfg.minibatches if cfg.priority > 0 else self._minibatches()
            for index in batches:
                if cfg.refresh_advantages and count:
                    advantages, returns = self._advantages(values)
                weight = None
                if index is None:
                    index, weight = self._prioritized(advantages, beta)
                if not bool(self.valid[index].any()):
                    continue
                logits, new_values = self._forward(index)
                loss, stats = self._loss(
                    logits, new_values, index, advantages, returns, values, weight
                )
                tock = time.perf_counter()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                self.backward_seconds += time.perf_counter() - tock
                if cfg.refresh_advantages:
                    values[index] = new_values.detach()
                if self.ratios is not None:
                    cells = self.ratios[index]
                    cells[self.valid[index]] = self.last_ratio
                    self.ratios[index] = cells
                for key, value in stats.items():
                    totals[key] = totals.get(key, 0.0) + value
                count += 1
        self.ratios = None
        return {key: value / max(count, 1) for key, value in totals.items()}


def _check_memory(cfg: PPOConfig, input_size: int, logits: int) -> None:
    """Refuses a rollout buffer larger than half the machine's memory, before allocating it."""
    per_sample = 4 * input_size + 8 * 4 + logits  # inputs, the per-step scalars, the mask
    need = cfg.rollout * cfg.num_envs * per_sample
    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    if need > have // 2:
        raise ValueError(
            f"one update's buffer ({cfg.num_envs:,} sub-envs x {cfg.rollout:,} steps x "
            f"{input_size:,} inputs) needs {need / 2**30:.1f} GiB, more than half this "
            f"machine's {have / 2**30:.1f} GiB; lower num_envs or rollout"
        )


class _Recorder:
    """The record phase: one CSV row per update, TensorBoard scalars, the progress bar.

    Steps/s leaves out the first update, which also compiles the env's kernels (when Numba's
    cache is empty) and warms torch up; with one update only it is all there is."""

    def __init__(self, out_dir: Path, cfg: PPOConfig, progress: bool, tensorboard: bool) -> None:
        self.cfg = cfg
        self.csv_path = out_dir / "progress.csv"
        self.out_dir = out_dir
        self.progress = progress
        self.tensorboard = tensorboard
        self.history: list[dict[str, float]] = []
        self.first_update: tuple[int, float] | None = None  # (steps, seconds) at its end

    def __enter__(self) -> _Recorder:
        self.fh = open(self.csv_path, "w", newline="")
        self.columns = csv_columns(self.cfg)
        self.out = csv.DictWriter(self.fh, fieldnames=self.columns)
        self.out.writeheader()
        self.writer = _tensorboard(self.out_dir) if self.tensorboard else None
        self.bar = _progress_bar(self.cfg, self.progress)
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()
        if self.bar is not None:
            self.bar.close()
        if self.writer is not None:
            self.writer.close()
        self.end = time.perf_counter()

    def elapsed(self) -> float:
        return getattr(self, "end", time.perf_counter()) - self.start

    def steps_per_second(self, step: int) -> float:
        elapsed = self.elapsed()
        if self.first_update is None or step <= self.first_update[0]:
            return step / elapsed if elapsed > 0 else float("nan")
        steps, seconds = self.first_update
        return (step - steps) / max(elapsed - seconds, 1e-9)

    def record(
        self,
        update: int,
        step: int,
        episodes: _Episodes,
        stats: dict[str, float],
        timers: dict[str, float],
    ) -> None:
        elapsed = time.perf_counter() - self.start
        count = len(episodes.returns)
        row = {
            "step": step,
            "update": update,
            "episodes": count,
            "success_rate": episodes.successes / count if count else float("nan"),
            "mean_return": float(np.mean(episodes.returns)) if count else float("nan"),
            "mean_length": float(np.mean(episodes.lengths)) if count else float("nan"),
            "steps_per_second": self.steps_per_second(step),
            **stats,
            "seconds": elapsed,
            "env_seconds": timers["env"],
            "forward_seconds": timers["forward"],
            "learn_seconds": timers["learn"],
        }
        stat = EPISODE_STATS.get(self.cfg.env_id)
        if stat is not None:
            values = np.concatenate(episodes.stats) if episodes.stats else None
            for k, name in enumerate(stat.columns):
                row[name] = float(values[:, k].mean()) if values is not None else float("nan")
        if self.first_update is None:
            self.first_update = (step, elapsed)
        self.out.writerow(row)
        self.fh.flush()
        self.history.append(row)
        if self.writer is not None:
            for key in ("success_rate", "mean_return", "entropy", "approx_kl"):
                self.writer.add_scalar(f"train/{key}", row[key], step)
            self.writer.add_scalar("train/steps_per_second", row["steps_per_second"], step)
        if self.bar is not None:
            self.bar.update(self.cfg.steps_per_update)
            self.bar.set_postfix(success=f"{row['success_rate']:.1%}", refresh=False)

    def tail_success(self) -> float:
        """Success over the training episodes of the last 10 % of the updates."""
        tail = self.history[-max(1, len(self.history) // 10) :]
        total = sum(r["episodes"] for r in tail)
        wins = sum(r["success_rate"] * r["episodes"] for r in tail if r["episodes"])
        return wins / total if total else 0.0


def _progress_bar(cfg: PPOConfig, enabled: bool) -> Any:
    if not enabled:
        return None
    import sys

    from tqdm import tqdm

    name = cfg.env_id.split("/")[-1]
    # Without this line the bar would sit at 0 % while the kernels compile.
    print(
        "the first update compiles the env's kernels when Numba's cache is empty (a minute or "
        "more, once per install; `hiddengrid compile` does it ahead) and is left out of steps/s",
        file=sys.stderr,
    )
    return tqdm(
        total=cfg.steps,
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


REFERENCE_SEED = 1_000_000  # reference lines are scored away from the published seeds


def reference_rates(env_id: str, episodes: int) -> tuple[dict[str, float], dict[str, float]]:
    """Success rate and mean return of each of the env's own agents over ``episodes``
    episodes (seeds from :data:`REFERENCE_SEED`), named with the count, for the curve."""
    from hiddengrid.evaluate import run_episodes

    success, returns = {}, {}
    for agent in definition_of(env_id).agents:
        r = run_episodes(env_id, agent, episodes, seed=REFERENCE_SEED)
        success[agent] = r.success_rate
        returns[agent] = r.mean_return
    return success, returns


def _plot(csv_path: Path, png_path: Path, cfg: PPOConfig, reference_episodes: int) -> Path | None:
    try:
        from hiddengrid.train.plot import plot_curves
    except ImportError:
        return None
    success, returns = (
        reference_rates(cfg.env_id, reference_episodes) if reference_episodes else ({}, {})
    )
    memory = ", memory across episodes" if cfg.memory_across_episodes else ""
    label = f"PPO {cfg.policy}{memory}, seed {cfg.seed}"
    note = f" (grey: the env's agents, {reference_episodes:,} episodes)" if success else ""
    try:
        plot_curves(
            {label: [csv_path]},
            png_path,
            title=f"{cfg.env_id}: {label}{note}",
            references=success,
            return_references=returns,
        )
    except ImportError:
        return None
    return png_path
