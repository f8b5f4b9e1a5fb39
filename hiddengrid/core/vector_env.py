"""The native Gymnasium ``VectorEnv``: N sub-envs in one batch, one compiled call per step.

Follows Gymnasium's ``CartPoleVectorEnv``: single and batched spaces, ``reset(seed=s)``
seeding sub-env ``i`` with ``s + i``, and either of Gymnasium's autoreset modes, chosen with
``make_vec(..., autoreset_mode=...)``:

* ``NEXT_STEP`` (default): a sub-env that ended returns its reset observation on the following
  step, with reward 0 and the action ignored.
* ``SAME_STEP``: a sub-env that ended is reset within the same step; the step returns the new
  episode's first observation, the ended episode's last one in ``info["final_obs"]`` (an object
  array, ``None`` where nothing ended, masked by ``info["_final_obs"]``) and its step info in
  ``info["final_info"]`` (masked by ``info["_final_info"]``), as Gymnasium's ``SyncVectorEnv``.
* ``DISABLED``: the caller resets finished sub-envs with ``reset(options={"reset_mask": m})``
  (a boolean array of ``num_envs``; with ``seed``, only the masked sub-envs are re-seeded).
  A finished sub-env stepped without that reset starts its next episode, as in ``NEXT_STEP``.

``reset_mask`` is accepted in every mode; the sub-envs it leaves out go on untouched.

``num_threads`` sets how many threads step the sub-envs (default: as many as give each thread
512 sub-envs, up to every usable core); the results are the same for any count.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any, ClassVar

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hiddengrid.core.actions import check_batch_actions, is_int_scalar
from hiddengrid.core.batch import Batch
from hiddengrid.core.definition import EnvDefinition
from hiddengrid.core.kernel import kernel, prange, resolve_num_threads, run_on
from hiddengrid.core.mask import action_masks
from hiddengrid.core.options import parse_reset_options
from hiddengrid.core.rng import check_seed, seed_array, seed_streams
from hiddengrid.core.single_env import check_render_mode

VECTOR_RENDER_MODES = ("ansi", "rgb_array")
# An observation block at least this large is copied on the env's threads (see __init__).
PARALLEL_COPY_BYTES = 4 << 20
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)


def check_autoreset_mode(mode: object) -> AutoresetMode:
    """An ``AutoresetMode`` (``NEXT_STEP``, ``SAME_STEP`` or ``DISABLED``), or its name or value
    (``"SameStep"``); anything else is refused."""
    for allowed in AUTORESET_MODES:
        if mode is allowed or (isinstance(mode, str) and mode in (allowed.value, allowed.name)):
            return allowed
    raise ValueError(
        "autoreset_mode must be AutoresetMode.NEXT_STEP, SAME_STEP or DISABLED "
        f"(or 'NextStep', 'SameStep', 'Disabled'), got {mode!r}"
    )


@kernel
def copy_observation(
    block: np.ndarray,
    sources: tuple[np.ndarray, ...],
    offsets: np.ndarray,
    row_bytes: np.ndarray,
    chunks: int,
) -> None:
    """Copies every observation array (as flat bytes) into ``block`` at its offset, the rows cut
    into ``chunks`` contiguous runs, one per thread: a step's observation is copied on the
    threads that stepped it (byte copies, so the result does not depend on the cut)."""
    n = sources[0].shape[0] // row_bytes[0]
    for c in prange(chunks):
        lo = n * c // chunks
        hi = n * (c + 1) // chunks
        for k in range(len(sources)):
            first = lo * row_bytes[k]
            size = (hi - lo) * row_bytes[k]
            # Two views indexed from 0: a loop the compiler turns into a plain memory copy
            # (indexing the whole arrays at an offset measured 30 times slower).
            dst = block[offsets[k] + first : offsets[k] + first + size]
            src = sources[k][first : first + size]
            for b in range(size):
                dst[b] = src[b]


@kernel
def copy_rows(
    lo: int,
    hi: int,
    block: np.ndarray,
    sources: tuple[np.ndarray, ...],
    offsets: np.ndarray,
    row_bytes: np.ndarray,
) -> None:
    """Copies rows ``lo:hi`` of every observation array (as flat bytes) into ``block`` at its
    offset: run by each thread on the rows it has just stepped, inside the step's parallel call
    (byte copies, so the result does not depend on the cut)."""
    for k in range(len(sources)):
        first = lo * row_bytes[k]
        size = (hi - lo) * row_bytes[k]
        # Two views indexed from 0: a loop the compiler turns into a plain memory copy.
        dst = block[offsets[k] + first : offsets[k] + first + size]
        src = sources[k][first : first + size]
        for b in range(size):
            dst[b] = src[b]


def _only(info: dict[str, Any], rows: np.ndarray) -> dict[str, Any]:
    """``info`` as Gymnasium batches the infos of just the sub-envs in ``rows``: every
    ``_key`` mask is restricted to them (nested dicts too)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = _only(value, rows)
        elif key.startswith("_") and key[1:] in info:
            out[key] = np.asarray(value, dtype=bool) & rows
        else:
            out[key] = value
    return out


class HiddenGridVectorEnv(VectorEnv):
    """Shared plumbing of every hiddengrid vector env."""

    definition: ClassVar[EnvDefinition]
    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": list(VECTOR_RENDER_MODES),
        "render_fps": 4,
    }

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        num_threads: int | None = None,
        **kwargs: Any,
    ) -> None:
        if not is_int_scalar(num_envs) or num_envs < 1:  # type: ignore[operator]
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        num_envs = int(num_envs)  # type: ignore[call-overload]
        self.autoreset_mode = check_autoreset_mode(autoreset_mode)
        threads = resolve_num_threads(num_threads, num_envs, self.definition.envs_per_thread)
        config = self.definition.configure(kwargs)
        check_render_mode(render_mode, VECTOR_RENDER_MODES)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.config = config
        self.num_envs = num_envs
        self.num_threads = threads
        self.batch = Batch(self.definition, num_envs, config, threads)
        self.single_observation_space = self.definition.observation_space(config)
        self.single_action_space = self.definition.action_space(config)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs_views = [
            (key, self.batch.fields[name]) for key, name in self.definition.observation.items()
        ]
        # Each step's observation is copied into one fresh block: one allocation instead of one
        # per key. Several large buffers freed and re-allocated every step make glibc hand
        # memory back to the OS and fault it in again (measured: 320 us against 75 us per step
        # for SquadRecon's 2 MB at N=4096). Offsets are 64-byte aligned.
        self._obs_layout = []
        offset = 0
        for key, arr in self._obs_views:
            self._obs_layout.append((key, arr, offset))
            offset += -(-arr.nbytes // 64) * 64
        self._obs_bytes = offset
        # A large observation on several threads is copied by one compiled call over rows cut
        # into one run per thread: the same bytes, copied on every core. A smaller one is
        # copied serially: a parallel call's fixed cost (waking a sleeping thread, 7 us under
        # load and 41-47 us on an idle core of a virtual machine) exceeded what it saved for
        # SquadRecon's 2 MB at N=4096 (1.41x of one thread with the serial copy, 1.26x with
        # the threaded one), not for its 8 MB at N=16384 (1.63x, 1.69x; docs/performance.md).
        # The byte views of the fields are made on first use (a pickled view would be a
        # detached copy).
        self._obs_threads = threads if self._obs_bytes >= PARALLEL_COPY_BYTES else 1
        self._obs_sources: tuple[np.ndarray, ...] | None = None
        self._obs_offsets = np.array([off for _, _, off in self._obs_layout], dtype=np.int64)
        self._obs_row_bytes = np.array(
            [arr.nbytes // num_envs for _, arr in self._obs_views], dtype=np.int64
        )
        # On several threads a step's block also holds the info's action mask (a masked env),
        # copied there by the threads with the observation: bool and int8 share their bytes,
        # and Megacity's 1.6 MB mask at N=4096 was the largest serial part of its step.
        self._mask = (
            self.batch.fields[self.definition.action_mask] if self.definition.masked else None
        )
        self._step_bytes = self._obs_bytes
        offsets, row_bytes = list(self._obs_offsets), list(self._obs_row_bytes)
        if self._mask is not None:
            offsets.append(self._obs_bytes)
            row_bytes.append(self._mask.nbytes // num_envs)
            self._step_bytes += self._mask.nbytes
        self._step_offsets = np.array(offsets, dtype=np.int64)
        self._step_row_bytes = np.array(row_bytes, dtype=np.int64)
        self._seeded = False
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._outcome_names = np.array(self.definition.outcomes, dtype=object)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_obs_sources"] = None  # views of the batch's fields, remade on first use
        return state

    def reset(
        self,
        *,
        seed: int | list[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        seeds = self._seeds(seed)
        options, reset_mask = self._split_reset_mask(options)
        scenarios = parse_reset_options(self.definition, self.config, options, self.num_envs)
        if reset_mask is not None:
            return self._reset_some(reset_mask, seeds)
        if isinstance(seed, list | tuple):
            # Gymnasium seeds np_random from one int; a seed list seeds it from all of them.
            entropy = [int(s) & (2**64 - 1) for s in seed]
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))
            self._np_random_seed = -1
        else:
            super().reset(seed=None if seed is None else check_seed(seed))
        if seeds is None and not self._seeded:
            seeds = seed_array(int(self.np_random.integers(0, 2**63)), self.num_envs)
        if seeds is not None:
            self.batch.seed(seeds)
            self._seeded = True
        if scenarios is None:
            self.batch.reset_all()
        else:
            for i, arrays in enumerate(scenarios):
                self.batch.load_scenario(i, arrays)
        return self._observation(), self.definition.vector_info(self.batch)

    def _split_reset_mask(self, options: Any) -> tuple[Any, np.ndarray | None]:
        if not isinstance(options, dict) or "reset_mask" not in options:
            return options, None
        rest = {k: v for k, v in options.items() if k != "reset_mask"}
        mask = options["reset_mask"]
        if not (
            isinstance(mask, np.ndarray)
            and mask.dtype == np.bool_
            and mask.shape == (self.num_envs,)
        ):
            raise ValueError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                f"got {mask!r}"
            )
        if rest.get("scenario") is not None:
            raise ValueError("options['reset_mask'] cannot be combined with a scenario")
        if not self._seeded:
            raise RuntimeError("reset() every sub-env once before resetting some by reset_mask")
        return rest, mask

    def _reset_some(
        self, mask: np.ndarray, seeds: np.ndarray | None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Starts a new episode in the sub-envs of ``mask`` only (Gymnasium's ``reset_mask``)."""
        if seeds is not None:
            streams = np.zeros(self.num_envs, dtype=np.uint64)
            seed_streams(streams, seeds)
            self.batch.rng[mask] = streams[mask]
        untouched = self.batch.done & ~mask  # finished sub-envs that were not asked to reset
        self.batch.done[:] = mask
        self.batch.reset_done()
        self.batch.done[:] = untouched
        self.batch.reward[mask] = 0.0
        self.batch.terminated[mask] = False
        return self._observation(), self.definition.vector_info(self.batch)

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._seeded:
            raise RuntimeError("call reset() before step()")
        actions = check_batch_actions(self.single_action_space, actions, self.num_envs)
        if self.definition.extra_action_check is not None:
            self.definition.extra_action_check(self.batch, actions)
        if self.num_threads > 1:
            # Each thread copies the observation rows it has just stepped, in the same parallel
            # call: no serial copy, no second wake-up of the threads.
            block = np.empty(self._step_bytes, dtype=np.uint8)
            copy = (block, self._step_sources(), self._step_offsets, self._step_row_bytes)
            self.batch.step(actions, then=copy_rows, then_args=copy)
            if self._mask is not None:
                mask = block[self._obs_bytes :].view(np.int8).reshape(self._mask.shape)
                self.batch.copied_mask = mask  # the info's mask, taken by the next vector_info
        else:
            block = None
            self.batch.step(actions)
        terminated = self.batch.terminated.copy()
        info = self.definition.vector_info(self.batch)
        ended = np.flatnonzero(terminated)
        if ended.size:
            # Filled only where an episode ended: building a full object array every step
            # cost about a quarter of a step at N=4096. An empty object array holds None
            # already (half the cost of np.full's fill).
            outcome = np.empty(self.num_envs, dtype=object)
            outcome[ended] = self._outcome_names[self.batch.outcome[ended]]
            info["outcome"] = outcome
            info["_outcome"] = terminated
            if self.autoreset_mode is AutoresetMode.SAME_STEP:
                return self._same_step_reset(terminated, ended, info)
        return (
            self._observation(block),
            self.batch.reward.copy(),
            terminated,
            self._truncated.copy(),
            info,
        )

    def _same_step_reset(
        self, terminated: np.ndarray, ended: np.ndarray, step_info: dict
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        # Gymnasium's layout: an object array holding one observation dict per ended sub-env.
        # Built column-wise from one gathered copy per key (per-row indexing costs ~3x more).
        keys = [key for key, _, _ in self._obs_layout]
        columns = [list(arr[ended]) for _, arr, _ in self._obs_layout]
        final_obs = np.full(self.num_envs, None, dtype=object)
        rows = zip(*columns, strict=True)
        # map() builds the dicts in C: a comprehension costs ~1.5x as much per ended sub-env.
        final_obs[ended] = list(map(dict, map(zip, repeat(keys, len(ended)), rows)))
        self.batch.reset_done()
        # The info beside a new episode's first observation is a reset's: nothing has ended.
        self.batch.terminated[:] = False
        info = self.definition.vector_info(self.batch)
        self.batch.terminated[:] = terminated
        info["final_obs"] = final_obs
        info["_final_obs"] = terminated
        info["final_info"] = _only(step_info, terminated)
        info["_final_info"] = terminated
        return (
            self._observation(),
            self.batch.reward.copy(),
            terminated,
            self._truncated.copy(),
            info,
        )

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode == "ansi":
            return tuple(self.definition.render_ansi(self.batch, i) for i in range(self.num_envs))
        if self.render_mode == "rgb_array":
            return tuple(self.definition.render_rgb(self.batch, i) for i in range(self.num_envs))
        return None

    def action_masks(self) -> np.ndarray:
        """The actions legal now in every sub-env, ``(num_envs, width)`` bool (all of them
        where the env does not mask its actions: ``definition.masked`` says whether it does)."""
        return action_masks(self.batch, self.single_action_space)

    def get_scenario(self, i: int) -> dict[str, Any]:
        """The hidden scenario sub-env ``i`` is playing, as a JSON-serialisable dict."""
        if not is_int_scalar(i) or not 0 <= i < self.num_envs:  # type: ignore[operator]
            raise IndexError(f"sub-env index {i!r} out of range for {self.num_envs} envs")
        if not self._seeded:
            raise RuntimeError("no episode yet: call reset() first")
        return self.batch.scenario(int(i))  # type: ignore[call-overload]

    def _seeds(self, seed: int | list[int] | None) -> np.ndarray | None:
        if seed is None:
            return None
        if isinstance(seed, list | tuple):
            if len(seed) != self.num_envs:
                raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
            checked = [check_seed(s) for s in seed]
            return np.array([s & (2**64 - 1) for s in checked], dtype=np.uint64)
        return seed_array(check_seed(seed), self.num_envs)

    def _sources(self) -> tuple[np.ndarray, ...]:
        """The observation arrays as flat byte views (made on first use)."""
        if self._obs_sources is None:
            self._obs_sources = tuple(
                arr.reshape(-1).view(np.uint8) for _, arr, _ in self._obs_layout
            )
        return self._obs_sources

    def _step_sources(self) -> tuple[np.ndarray, ...]:
        """What a step on several threads copies: the observation arrays, then the mask."""
        sources = self._sources()
        if self._mask is None:
            return sources
        return (*sources, self._mask.reshape(-1).view(np.uint8))

    def _observation(self, copied: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The observation dict over one fresh block: ``copied`` when the step's threads have
        filled it already, else a new block filled here."""
        block = copied
        threads = self._obs_threads
        if block is None:
            block = np.empty(self._obs_bytes, dtype=np.uint8)
            if threads > 1:
                run_on(
                    threads,
                    copy_observation,
                    block,
                    self._sources(),
                    self._obs_offsets,
                    self._obs_row_bytes,
                    threads,
                )
        obs = {}
        for key, arr, offset in self._obs_layout:
            view = block[offset : offset + arr.nbytes].view(arr.dtype).reshape(arr.shape)
            if copied is None and threads == 1:
                np.copyto(view, arr)
            obs[key] = view
        return obs
