"""Checks of ``reset`` arguments, done in full before anything in the env changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hiddengrid.core.definition import EnvDefinition

RESET_OPTIONS = frozenset({"scenario"})


def parse_reset_options(
    definition: EnvDefinition,
    config: Mapping[str, Any],
    options: object,
    n: int,
    vector: bool = True,
) -> list[dict[str, np.ndarray]] | None:
    """The validated scenarios to load (one per sub-env), or ``None`` to draw new ones.

    A vector env (``vector=True``) takes one scenario dict for every sub-env or a list of ``n``
    of them, ``n = 1`` included; the single env takes a dict.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = set(options) - RESET_OPTIONS
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {sorted(unknown)}; valid options: {sorted(RESET_OPTIONS)}"
        )
    if options.get("scenario") is None:  # no scenario given: draw a new one
        return None
    scenario = options["scenario"]
    if isinstance(scenario, Mapping):
        arrays = definition.validate_scenario(scenario, config)
        return [arrays] * n
    if isinstance(scenario, list | tuple) and vector:
        if len(scenario) != n:
            raise ValueError(f"options['scenario'] lists {len(scenario)} scenarios for {n} envs")
        out = []
        for i, s in enumerate(scenario):
            if not isinstance(s, Mapping):
                raise ValueError(f"options['scenario'][{i}] must be a dict")
            try:
                out.append(definition.validate_scenario(s, config))
            except ValueError as exc:
                raise ValueError(f"options['scenario'][{i}]: {exc}") from None
        return out
    raise ValueError(f"options['scenario'] must be a scenario dict, got {type(scenario).__name__}")
