"""Env ids that work in processes that never imported hiddengrid.

Gymnasium 1.x has no plugin entry points: a worker process (RLlib, Tianshou's subprocess envs,
TorchRL's ``ParallelEnv``, Ray tasks) knows a hiddengrid id only once ``hiddengrid`` has been
imported there. Gymnasium's ``"module:id"`` form imports the module first, so
``gymnasium.make("hiddengrid:hiddengrid/AnomalyMapping-v0")`` works anywhere the package is
installed.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from hiddengrid.registry import ENV_IDS

PREFIX = "hiddengrid:"


def module_id(env_id: str) -> str:
    """``"hiddengrid:hiddengrid/<Id>"`` for a registered id (given with or without the prefix
    or the ``hiddengrid/`` namespace); a clear ``ValueError`` for anything else."""
    if not isinstance(env_id, str):
        raise ValueError(f"env id must be a string such as {PREFIX}{ENV_IDS[0]!s}, got {env_id!r}")
    bare = env_id.removeprefix(PREFIX)
    if "/" not in bare:
        bare = f"hiddengrid/{bare}"
    if bare not in ENV_IDS:
        raise ValueError(
            f"unknown env id {env_id!r}; registered: {', '.join(ENV_IDS)} "
            f"(in other processes use the form {PREFIX}<id>, e.g. {PREFIX}{ENV_IDS[0]})"
        )
    return PREFIX + bare


def make_env(env_id: str, **kwargs: Any) -> gym.Env:
    """``gymnasium.make`` through the module form, so it works in any worker process."""
    return gym.make(module_id(env_id), **kwargs)


# Every library these adapters serve loads torch, and with torch imported first Numba's OpenMP
# threading layer ran the multi-threaded kernels at 85k steps/s against 20M without torch
# (AnomalyMapping, N=1024, two cores): the adapters run the batch on one thread unless told.
LIBRARY_THREADS = 1


def make_vec_env(env_id: str, num_envs: int, **kwargs: Any) -> gym.vector.VectorEnv:
    """The native vector env (``vector_entry_point``) through the module form, on
    ``LIBRARY_THREADS`` threads unless ``num_threads`` is given."""
    kwargs.setdefault("num_threads", LIBRARY_THREADS)
    return gym.make_vec(
        module_id(env_id), num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )
