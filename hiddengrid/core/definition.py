"""The description an environment package hands to the shared plumbing.

Every env keeps its rules in its own ``rules.py`` as Numba kernels with one calling convention
(see :mod:`hiddengrid.core.batch`); this record names those kernels, the state the batch must
allocate for them, and the Python-side pieces (spaces, scenario validation, pictures, agents).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

from hiddengrid.core.mask import check_legal, step_info_with_mask, vector_info_with_mask

if TYPE_CHECKING:
    from hiddengrid.core.batch import Batch


@dataclass(frozen=True)
class Field:
    """One struct-of-arrays state array: ``shape`` is per sub-env, the batch adds ``(N,)``."""

    name: str
    dtype: type
    shape: tuple[int, ...] = ()


def unexpected_keywords(env_name: str, unknown: Iterable[str], takes: str) -> TypeError:
    """The error for keyword arguments an env does not take, in Python's own wording.

    Libraries probe optional keywords (TorchRL's ``GymEnv`` tries ``frameskip``) and retry
    without them only when the message reads like Python's ``got an unexpected keyword
    argument 'name'``, so the first unknown name is quoted exactly that way.
    """
    names = sorted(unknown)
    return TypeError(
        f"{env_name} got an unexpected keyword argument {names[0]!r} "
        f"(unknown: {', '.join(map(repr, names))}); it takes {takes}"
    )


def _no_config(options: Mapping[str, Any]) -> dict[str, Any]:
    if options:
        raise unexpected_keywords("this env", options, "no keyword arguments")
    return {}


def _no_setup(batch: Batch) -> None:
    return None


def _no_info(batch: Batch, i: int) -> dict[str, Any]:
    return {}


def _no_vector_info(batch: Batch) -> dict[str, Any]:
    return {}


def _no_explanation(batch: Batch, i: int, action: int) -> str:
    return "it is masked now; see action_masks() or info['action_mask']"


def _outcome_success(outcome: str, episode_return: float) -> bool:
    return outcome == "success"


@dataclass(frozen=True)
class EnvDefinition:
    """Everything the shared single env, vector env, CLI and tests need to know about one env.

    Kernel calling convention (all ``@njit``, all operate on the whole batch):

    * ``reset_done(rng, done, outcome, *fields)``: draws a scenario for, and starts, every sub-env
      whose ``done`` flag is set, and leaves the others alone: exactly what ``step_all`` does
      for such a sub-env on the next step. A reset of the whole batch sets every flag first; a
      same-step autoreset calls it right after the step.
    * ``step_all(actions, rng, done, outcome, reward, terminated, *fields)``: one step of every
      sub-env; a sub-env whose ``done`` flag is set is reset instead (next-step autoreset).
    * ``start_episode(i, *fields)``: starts sub-env ``i`` from the scenario already written
      into its scenario fields (used to replay a scenario).

    ``fields`` are the arrays of :attr:`fields` in declaration order.
    """

    id: str
    fields: tuple[Field, ...]
    observation: Mapping[str, str]  # observation key -> field name
    observation_space: Callable[[Mapping[str, Any]], spaces.Dict]
    action_space: Callable[[Mapping[str, Any]], spaces.Space]
    outcomes: tuple[str, ...]  # outcome code -> name; code 0 is "episode still running"
    reset_done: Callable[..., None]
    step_all: Callable[..., None]
    start_episode: Callable[..., None]
    validate_scenario: Callable[[Any, Mapping[str, Any]], dict[str, np.ndarray]]
    read_scenario: Callable[[Batch, int], dict[str, Any]]
    render_ansi: Callable[[Batch, int], str]
    render_rgb: Callable[[Batch, int], np.ndarray]
    agents: Mapping[str, Callable[..., Any]]
    configure: Callable[[Mapping[str, Any]], dict[str, Any]] = _no_config
    setup: Callable[[Batch], None] = _no_setup  # fills per-env parameter fields from batch.config
    step_info: Callable[[Batch, int], dict[str, Any]] = _no_info
    vector_info: Callable[[Batch], dict[str, Any]] = _no_vector_info
    is_success: Callable[[str, float], bool] = _outcome_success
    extra_action_check: Callable[[Batch, np.ndarray], None] | None = None
    # The bool field ``(actions,)`` per sub-env where the kernels write which actions are legal
    # now, for an env that masks its actions (``hiddengrid.core.mask``); ``explain_masked``
    # says why one action is masked for one sub-env, in a few words.
    action_mask: str | None = None
    explain_masked: Callable[[Batch, int, int], str] = _no_explanation
    text: Any = None  # the env's text module: rules_text, observation_text, parse_action...
    render_fps: int = 4
    # The default thread count gives each thread at least this many sub-envs. Envs whose step
    # costs a few tens of ns per sub-env raise it: below that share a second thread costs more
    # (waking it, the serial rest of a step) than it saves (docs/performance.md).
    envs_per_thread: int = 512
    doc: str = ""
    notes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def masked(self) -> bool:
        """Whether the env masks its actions (then ``action_masks()`` says which are legal)."""
        return self.action_mask is not None

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by reference: a definition made by ``from_modules`` is looked up again by id
        # on load (its env module imported first), so envs and batches pickle without their
        # kernels or text module (modules do not pickle) and a copy shares the original's
        # compiled kernels. Any other definition (a test's custom one) is rebuilt from its
        # parts with the text module named, not held.
        home = _HOMES.get(self.id)
        if home is not None and _BY_ID.get(self.id) is self:
            return (_by_reference, (self.id, home))
        parts = {f.name: getattr(self, f.name) for f in dataclass_fields(self)}
        text = parts.pop("text")
        return (_rebuild, (parts, getattr(text, "__name__", None)))


# Definitions made by ``from_modules``, by id, and the module that makes each one: what an
# unpickled reference resolves to. The engine keeps this itself so that it never needs the
# registry (which sits above it and knows ids, entry points and Gymnasium).
_BY_ID: dict[str, EnvDefinition] = {}
_HOMES: dict[str, str] = {}


def _by_reference(env_id: str, home: str) -> EnvDefinition:
    importlib.import_module(home)
    return _BY_ID[env_id]


def _rebuild(parts: dict[str, Any], text_module: str | None) -> EnvDefinition:
    text = importlib.import_module(text_module) if text_module is not None else None
    return EnvDefinition(text=text, **parts)


@dataclass(frozen=True)
class Registration:
    """One Gymnasium id an env package registers (in its ``__init__``, the one place the id is
    spelled): the names of its single and vector env classes in the package's ``env`` module
    and the keyword arguments the id fixes."""

    id: str
    single: str
    vector: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def lazy_exports(package: str, names: Iterable[str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for an env package that serves ``names`` from its ``env``
    module on first use, so that reading the package's registrations (every
    ``import hiddengrid``) does not import its kernels, agents and pictures."""
    served = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name in served:
            return getattr(importlib.import_module(f"{package}.env"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def from_modules(
    env_id: str,
    *,
    rules: Any,
    generator: Any,
    render: Any,
    text: Any,
    agents: Mapping[str, Callable[..., Any]],
    **parts: Any,
) -> EnvDefinition:
    """An env's definition from its modules, which follow the per-env file pattern
    (``docs/CONTRIBUTING_ENVS.md``): ``rules`` gives the fields and kernels, ``generator`` the
    scenario checks, ``render`` the pictures. ``parts`` are the remaining fields."""
    if parts.get("action_mask") is not None:
        # The engine serves a masked env's action check and its info's "action_mask".
        parts.setdefault("extra_action_check", check_legal)
        parts["step_info"] = partial(step_info_with_mask, parts.get("step_info", _no_info))
        parts["vector_info"] = partial(
            vector_info_with_mask, parts.get("vector_info", _no_vector_info)
        )
    definition = EnvDefinition(
        id=env_id,
        fields=rules.FIELDS,
        reset_done=rules.reset_done,
        step_all=rules.step_all,
        start_episode=rules.start_episode,
        validate_scenario=generator.validate_scenario,
        read_scenario=generator.read_scenario,
        render_ansi=render.render_ansi,
        render_rgb=render.render_rgb,
        text=text,
        agents=agents,
        **parts,
    )
    # The first definition made for an id is the one a pickled reference resolves to; its env
    # module is the one that, by the package layout, made it.
    if env_id not in _BY_ID:
        _BY_ID[env_id] = definition
        _HOMES[env_id] = f"{rules.__name__.rpartition('.')[0]}.env"
    return definition
