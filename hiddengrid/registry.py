"""The registered environment ids and where each one lives."""

from __future__ import annotations

import importlib
from pathlib import Path

import gymnasium as gym

from hiddengrid.core.definition import EnvDefinition

# id -> (module, single env class, vector env class, extra kwargs)
_ENTRIES: dict[str, tuple[str, str, str, dict]] = {
    "hiddengrid/AnomalyMapping-v0": (
        "hiddengrid.envs.anomaly_mapping.env",
        "AnomalyMappingEnv",
        "AnomalyMappingVectorEnv",
        {},
    ),
    "hiddengrid/FieldCipher-v0": (
        "hiddengrid.envs.field_cipher.env",
        "FieldCipherEnv",
        "FieldCipherVectorEnv",
        {},
    ),
    "hiddengrid/InvertedTreasure-v0": (
        "hiddengrid.envs.inverted_treasure.env",
        "InvertedTreasureEnv",
        "InvertedTreasureVectorEnv",
        {"scout": False},
    ),
    "hiddengrid/InvertedTreasure-Scout-v0": (
        "hiddengrid.envs.inverted_treasure.env",
        "InvertedTreasureEnv",
        "InvertedTreasureVectorEnv",
        {"scout": True},
    ),
    "hiddengrid/SquadRecon-v0": (
        "hiddengrid.envs.squad_recon.env",
        "SquadReconEnv",
        "SquadReconVectorEnv",
        {},
    ),
    "hiddengrid/Megacity-v0": (
        "hiddengrid.envs.megacity.env",
        "MegacityEnv",
        "MegacityVectorEnv",
        {},
    ),
}


def _module_exists(module: str) -> bool:
    # An env whose module is not in this build (yet) is simply not registered.
    relative = Path(*module.split(".")[1:]).with_suffix(".py")
    return (Path(__file__).parent / relative).is_file()


ENV_IDS: tuple[str, ...] = tuple(k for k, v in _ENTRIES.items() if _module_exists(v[0]))


def register_all() -> None:
    for env_id in ENV_IDS:
        module, single, vector, kwargs = _ENTRIES[env_id]
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point=f"{module}:{single}",
            vector_entry_point=f"{module}:{vector}",
            kwargs=kwargs,
        )


def registered_definition(env_id: str) -> EnvDefinition | None:
    """The definition registered under ``env_id`` (the module that holds it is imported), or
    ``None`` for an id this build does not register."""
    if env_id not in ENV_IDS:
        return None
    module, single, _, _ = _ENTRIES[env_id]
    return getattr(importlib.import_module(module), single).definition


def definition_of(env_id: str) -> EnvDefinition:
    if env_id not in _ENTRIES:
        raise ValueError(f"unknown env id {env_id!r}; registered: {list(ENV_IDS)}")
    module, single, _, _ = _ENTRIES[env_id]
    return getattr(importlib.import_module(module), single).definition
