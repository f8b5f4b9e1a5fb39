"""The settings of one PPO run, checked once before anything starts."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

POLICIES = ("mlp", "gru", "lstm")
AUTORESETS = ("auto", "same_step", "next_step")
LR_SCHEDULES = ("cosine", "linear", "constant")
PRECISIONS = ("float32", "bfloat16")  # the network passes' (automatic mixed precision)

# Upper bounds that keep a typo from asking for terabytes: each is far above any useful run
# on one machine, and a value past it is refused with its name instead of a MemoryError.
LIMITS = {
    "total_steps": 10**12,
    "hidden": 4096,
    "num_envs": 65_536,
    "rollout": 4096,
    "epochs": 1000,
    "minibatches": 65_536,
    "threads": 1024,
    "checkpoint_every": 10**9,
}
# Training env seeds start here: the published episodes are seeds 0..9,999 (reference lines
# 1,000,000 on, held-out scores 5,000,000 on); 2**20 seeds per training seed (num_envs <= 2**16).
TRAIN_ENV_SEED = 2**40
MAX_SAMPLES = 1 << 22  # num_envs * rollout: one update's buffer
MAX_SEED = 2**64 - 1  # torch's generator takes a 64-bit seed; the env seeds wrap at 64 bits


def _check_named(setting: str, name: str, table: dict[str, Any], env_id: str) -> None:
    """``name`` is an entry of ``table`` (shapings, auxiliary tasks, observation views), made
    for ``env_id``; else one line naming the entries."""
    known = table.get(name)
    if known is None:
        raise ValueError(
            f"{setting} must be one of {', '.join(table)} (or empty), got {_shown(name)}"
        )
    if known.env_id != env_id:
        raise ValueError(f"{setting} {name} is for {known.env_id}, not {env_id}")


def _shown(value: object) -> str:
    """A value as a message shows it: a number of thousands of digits is not echoed whole."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else ""
    if not text:
        # str() of a number past 4,300 digits raises: count them from the bits instead
        text = f"a number of about {int(abs(value).bit_length() * 0.30103) + 1:,} digits"
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class PPOConfig:
    """Every setting of a PPO run (the defaults: see the training page's ablation).

    One update collects ``num_envs * rollout`` env steps, then runs ``epochs`` passes of
    ``minibatches`` minibatches over them. Recurrent policies (``gru``, ``lstm``) train on whole
    rollouts of a subset of the sub-envs per minibatch, starting from the memory each sub-env
    had when the rollout began. With ``memory_across_episodes`` the memory is never cleared at
    an episode's end and the policy also sees its previous action, reward and end flag
    (RL^2-style), so what it learnt in one episode can carry to the next.

    ``autoreset``: ``same_step`` starts a sub-env's next episode within the step that ended the
    last one, so every collected step is a real transition; ``next_step`` spends one step on the
    reset (no loss, its action ignored), the only way a policy with memory across episodes sees
    the last reward of an episode; ``auto`` is ``next_step`` for memory across episodes, else
    ``same_step``. ``refresh_advantages`` recomputes the advantages over the whole rollout
    before every minibatch from the values the latest minibatches predicted. ``value_clip``
    (0 = off) clips the value update around the collected value, as PPO clips the policy.
    ``priority`` (0 = off) draws each minibatch's sub-env rollouts with probability
    proportional to their summed absolute advantage to that power (prioritized replay within
    the rollout), weighting the policy loss by ``(n * p) ** -beta`` with ``beta`` rising from
    ``priority_beta`` towards 1 over the run. ``vtrace_clip`` (0 = off) weights each step's
    one-step error and trace in the refreshed advantages by the policy's probability ratio to
    the one that collected it, clipped at that value (V-trace, as PufferLib's trainer does);
    a step's ratio is the one its latest minibatch computed (1 before any). Checkpoints
    written before it was on by default load with 0, as they were trained. ``shaping`` names
    a potential-based shaping of :mod:`hiddengrid.train.shaping` (training-only; the
    episode return is unchanged).
    ``auxiliary`` names a supervised auxiliary task of :mod:`hiddengrid.train.auxiliary`: a
    second head on the encoder predicts training-only labels (the env's hidden state), its
    cross-entropy added to the loss times ``aux_coef``; the policy never reads the labels.
    ``imitation`` names one of the env's own fair agents (one that sees only what the policy
    sees): the run first plays ``imitation_steps`` env steps with that agent acting and the
    policy learning its actions (behaviour cloning, with the value head fitted to the agent's
    returns), then PPO takes over for ``total_steps``.
    ``features`` names an observation view of :mod:`hiddengrid.train.features` (extra inputs
    computed from the observation, such as the map around each of SquadRecon's squads).
    ``encoder`` names a network of :mod:`hiddengrid.train.encoders` that takes the place of
    the two-layer MLP encoder (one network shared by SquadRecon's squads, say); one that reads
    a view's columns needs that view as ``features``.
    ``env_kwargs`` are the env's keyword arguments (Megacity's ``level``, ...), checked by the
    env and kept in the checkpoint with its defaults filled in, so evaluation plays the env
    the policy learnt.
    The run's sub-env ``i`` starts from env seed ``TRAIN_ENV_SEED + seed * 2**20 + i``
    (:attr:`env_seed`), far from the episodes the tables publish (``reset(seed=k)`` for ``k``
    in 0..9,999) and from other training seeds' streams; ``legacy_env_seeds`` starts it from
    ``seed + i`` instead, as every run before this setting did (checkpoints without it load
    so), which the published rows keep so that each reruns bit for bit.
    ``precision`` ``"bfloat16"`` runs the network's passes (acting and learning) under torch's
    automatic mixed precision: the matrix products in bfloat16, the weights, the optimizer and
    the losses in float32 (PuffeRL's ``precision`` setting does the same). It pays where the
    hardware multiplies bfloat16 natively (Intel CPUs with AMX, recent GPUs) and costs where
    it does not; ``"float32"`` (the default) is what every published run used.
    ``init_checkpoint`` starts the policy from the weights of a checkpoint of the same env
    (a stage of a curriculum: trained at Megacity's level 0, say, then at level 3), with the
    same network (policy kind, ``hidden``, memory, ``features``, ``encoder``) and any env
    arguments; the optimizer, the step count and the learning-rate schedule start afresh, and
    the auxiliary head's weights are taken only when both runs name the same ``auxiliary``.
    """

    env_id: str = "hiddengrid/AnomalyMapping-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    total_steps: int = 1_500_000
    seed: int = 0
    policy: str = "mlp"
    hidden: int = 128
    memory_across_episodes: bool = False
    num_envs: int = 256
    rollout: int = 64
    epochs: int = 4
    minibatches: int = 4
    learning_rate: float = 5e-4
    adam_eps: float = 1e-8
    lr_schedule: str = "linear"
    autoreset: str = "auto"
    refresh_advantages: bool = True
    value_clip: float = 0.2
    priority: float = 0.8
    priority_beta: float = 0.2
    vtrace_clip: float = 1.0
    shaping: str = ""
    auxiliary: str = ""
    features: str = ""
    encoder: str = ""
    aux_coef: float = 1.0
    imitation: str = ""
    imitation_steps: int = 0
    init_checkpoint: str = ""
    legacy_env_seeds: bool = False
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
    precision: str = "float32"

    def __post_init__(self) -> None:
        self.check()

    @property
    def recurrent(self) -> bool:
        return self.policy != "mlp"

    @property
    def env_seed(self) -> int:
        """The env seed of sub-env 0 (sub-env ``i`` starts from ``env_seed + i``)."""
        return self.seed if self.legacy_env_seeds else TRAIN_ENV_SEED + self.seed * 2**20

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout

    @property
    def imitation_updates(self) -> int:
        """Updates of the behaviour-cloning warm start (0 without one)."""
        if not self.imitation:
            return 0
        return -(-self.imitation_steps // self.steps_per_update)

    @property
    def updates(self) -> int:
        return -(-self.total_steps // self.steps_per_update)

    @property
    def steps(self) -> int:
        """The env steps the run takes: ``total_steps`` rounded up to whole updates."""
        return self.updates * self.steps_per_update

    @property
    def same_step(self) -> bool:
        if self.autoreset == "auto":
            return not self.memory_across_episodes
        return self.autoreset == "same_step"

    def check(self) -> None:
        """Raises ``ValueError`` naming the first bad setting and what is valid."""
        for name, high in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise ValueError(f"{name} must be an integer in 1..{high:,}, got {_shown(value)}")
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ValueError(
                f"seed must be an integer in 0..{MAX_SEED} (64 bits), got {_shown(seed)}"
            )
        if self.num_envs * self.rollout > MAX_SAMPLES:
            raise ValueError(
                f"num_envs * rollout must be at most {MAX_SAMPLES:,} samples per update, got "
                f"{self.num_envs:,} * {self.rollout:,}"
            )
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.memory_across_episodes and not self.recurrent:
            raise ValueError("memory_across_episodes needs a recurrent policy (gru or lstm)")
        if self.autoreset not in AUTORESETS:
            raise ValueError(f"autoreset must be one of {', '.join(AUTORESETS)}")
        if self.memory_across_episodes and self.autoreset == "same_step":
            raise ValueError(
                "memory_across_episodes needs autoreset next_step (or auto): the reset step is "
                "where the policy sees an episode's last reward"
            )
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(
                f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}, got {self.lr_schedule!r}"
            )
        split = self.num_envs if self.recurrent else self.num_envs * self.rollout
        if split % self.minibatches:
            what = "num_envs" if self.recurrent else "num_envs * rollout"
            raise ValueError(f"{what} ({split}) must be a multiple of minibatches")
        for name in ("learning_rate", "adam_eps", "clip", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.shaping:
            from hiddengrid.train.shaping import SHAPINGS

            _check_named("shaping", self.shaping, SHAPINGS, self.env_id)
        if self.auxiliary:
            from hiddengrid.train.auxiliary import AUXILIARIES

            _check_named("auxiliary", self.auxiliary, AUXILIARIES, self.env_id)
        if self.features:
            from hiddengrid.train.features import FEATURES

            _check_named("features", self.features, FEATURES, self.env_id)
        if self.encoder:
            from hiddengrid.train.encoders import ENCODERS

            _check_named("encoder", self.encoder, ENCODERS, self.env_id)
            views = ENCODERS[self.encoder].views
            if views and self.features not in views:
                raise ValueError(
                    f"encoder {self.encoder} reads the view {' or '.join(views)}: set "
                    f"features={views[0]!r} (got {self.features!r})"
                )
        self.env_kwargs = resolved_env_kwargs(self.env_id, self.env_kwargs)
        check_imitation(self.env_id, self.imitation, self.imitation_steps)
        if not isinstance(self.legacy_env_seeds, bool):
            raise ValueError(
                f"legacy_env_seeds must be true or false, got {_shown(self.legacy_env_seeds)}"
            )
        if not isinstance(self.init_checkpoint, str):
            raise ValueError(
                f"init_checkpoint must be a checkpoint's path (or empty), got "
                f"{_shown(self.init_checkpoint)}"
            )
        if not 0 <= self.priority_beta <= 1:
            raise ValueError(f"priority_beta must be in [0, 1], got {self.priority_beta!r}")
        if self.priority > 0 and self.num_envs % self.minibatches:
            raise ValueError(
                f"with priority, num_envs ({self.num_envs}) must be a multiple of minibatches"
            )
        names = ("entropy_coef", "value_coef", "value_clip", "priority", "aux_coef", "vtrace_clip")
        for name in names:
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(
                f"precision must be one of {', '.join(PRECISIONS)}, got {_shown(self.precision)}"
            )
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"device must be auto, cpu or cuda[:N], got {self.device!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PPOConfig:
        values = dict(values)
        # Checkpoints of the first trainer carry anneal_lr (linear anneal or none) and none of
        # the second trainer's settings: they load as the run they were.
        if "anneal_lr" in values:
            values.setdefault("lr_schedule", "linear" if values.pop("anneal_lr") else "constant")
            values.setdefault("autoreset", "next_step")
            values.setdefault("refresh_advantages", False)
            values.setdefault("value_clip", 0.0)
            values.setdefault("adam_eps", 1e-5)
            values.setdefault("priority", 0.0)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown PPO settings {unknown}; valid: {sorted(known)}")
        return cls(**values)


def resolved_env_kwargs(env_id: str, kwargs: Any) -> dict[str, Any]:
    """``kwargs`` as the env reads them (its defaults filled in), or ``ValueError`` saying
    what is wrong: the checkpoint keeps these, so a default that changes later cannot
    silently change the env a stored policy is scored on."""
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise ValueError(f"env_kwargs must be a table of names to values, got {_shown(kwargs)}")
    import gymnasium as gym

    from hiddengrid.registry import ENV_IDS, definition_of

    if env_id not in ENV_IDS:
        raise ValueError(f"unknown env {env_id!r}; registered: {', '.join(ENV_IDS)}")
    if "num_threads" in kwargs:
        raise ValueError("env_kwargs: num_threads is not an env argument of a training run")
    try:
        return dict(definition_of(env_id).configure({**gym.spec(env_id).kwargs, **kwargs}))
    except (TypeError, ValueError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise ValueError(f"env_kwargs for {env_id}: {text[:200]}") from None


def check_imitation(env_id: str, agent: str, steps: Any) -> None:
    """The warm start's agent is one of the env's own and fair, and its step count is sane."""
    if isinstance(steps, bool) or not isinstance(steps, int) or not 0 <= steps <= 10**12:
        raise ValueError(f"imitation_steps must be an integer in 0..10**12, got {_shown(steps)}")
    if not agent:
        if steps:
            raise ValueError("imitation_steps needs imitation (the agent to imitate)")
        return
    from hiddengrid.registry import ENV_IDS, definition_of

    if env_id not in ENV_IDS:
        return  # the unknown env is refused by the trainer, naming the registered ones
    agents = definition_of(env_id).agents
    fair = sorted(n for n, cls in agents.items() if not getattr(cls, "reads_scenario", False))
    if agent not in agents:
        raise ValueError(f"imitation: {env_id} has no agent {agent!r}; fair ones: {fair}")
    if getattr(agents[agent], "reads_scenario", False):
        raise ValueError(
            f"imitation: {agent} reads the hidden scenario, so its actions are not ones a "
            f"policy could take from what it sees; fair ones: {fair}"
        )
    if not steps:
        raise ValueError("imitation needs imitation_steps >= 1")
