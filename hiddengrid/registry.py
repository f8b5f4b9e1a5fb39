"""The registered environment ids and where each one lives.

Each env package declares its own ids once, as ``REGISTRATIONS`` in its ``__init__``; this
module only lists the packages, registers their ids with Gymnasium (string entry points, so
nothing compiles on ``import hiddengrid``) and finds an id's definition.
"""

from __future__ import annotations

import importlib

import gymnasium as gym

from hiddengrid.core.definition import EnvDefinition, Registration

ENV_PACKAGES: tuple[str, ...] = (
    "anomaly_mapping",
    "field_cipher",
    "inverted_treasure",
    "squad_recon",
    "megacity",
)


def _entries() -> dict[str, tuple[str, Registration]]:
    entries: dict[str, tuple[str, Registration]] = {}
    for package in ENV_PACKAGES:
        name = f"hiddengrid.envs.{package}"
        for registration in importlib.import_module(name).REGISTRATIONS:
            entries[registration.id] = (f"{name}.env", registration)
    return entries


# id -> (the env module, its registration)
_ENTRIES = _entries()
ENV_IDS: tuple[str, ...] = tuple(_ENTRIES)


def register_all() -> None:
    for env_id, (module, registration) in _ENTRIES.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point=f"{module}:{registration.single}",
            vector_entry_point=f"{module}:{registration.vector}",
            kwargs=dict(registration.kwargs),
        )


def definition_of(env_id: str) -> EnvDefinition:
    """The definition registered under ``env_id`` (its env module is imported); ``ValueError``
    naming the registered ids for any other."""
    if env_id not in _ENTRIES:
        raise ValueError(f"unknown env id {env_id!r}; registered: {list(ENV_IDS)}")
    module, registration = _ENTRIES[env_id]
    return getattr(importlib.import_module(module), registration.single).definition
