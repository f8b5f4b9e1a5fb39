"""Numba's inliner made linear: one copy of a helper's variables per inlined call, not one per
block.

To inline a helper marked ``inline="always"`` Numba copies the helper's IR twice per call site,
each block by its own ``copy.deepcopy``. Every variable holds its function's ``Scope``, and the
scope holds every variable of the function, so each block's copy copies the whole scope again:
the work grows with blocks x variables, and helpers that inline other helpers grow both.
Megacity's ``step_all`` (72 inlined calls) spent about two thirds of its 25 CPU s compile in
these copies (13 million ``deepcopy`` calls); the other env kernels pay the same in proportion.

While Numba inlines one call, :func:`install` makes the copies of blocks that share a scope
share one copy of it (one ``deepcopy`` memo per scope), the way the helper's own blocks share
one scope. Numba keeps the first scope copy and renames the variables it holds, so the inlined
code is the same: ``tests/core/test_inlining.py`` compares the machine code with and without,
and Megacity's ``step_all`` compiled to byte-identical LLVM IR in 17 CPU s instead of 25.

Installed when :mod:`hiddengrid.core.kernel` is imported, before anything compiles. If a Numba
release reshapes its inliner (no ``InlineWorker.inline_ir``, or the module no longer copies
through ``copy.deepcopy``), nothing is changed and compiles simply take their old time.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

_memos: list[dict[int, dict[int, Any]]] = []  # one entry per inlining in progress
_installed = False
_disabled = False


class _CopyModule:
    """What Numba's inliner sees as its ``copy`` module: ``copy`` itself, except that
    ``deepcopy`` of a block during an inlining shares one memo with the other blocks of the
    same scope."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
        if memo is None and _memos and not _disabled:
            scope = getattr(value, "scope", None)
            if scope is not None and _is_block(value):
                memo = _memos[-1].setdefault(id(scope), {})
        return copy.deepcopy(value, memo)


def _is_block(value: Any) -> bool:
    from numba.core import ir

    return isinstance(value, ir.Block)


def install() -> bool:
    """Shares the scope copies of Numba's inliner (see the module's doc); returns whether it
    is in place (``False`` where this Numba's inliner is not the one described)."""
    global _installed
    if _installed:
        return True
    try:
        from numba.core import inline_closurecall as icc
    except ImportError:
        return False
    worker = getattr(icc, "InlineWorker", None)
    original = getattr(worker, "inline_ir", None)
    if original is None or getattr(icc, "copy", None) is not copy:
        return False

    def inline_ir(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Numba compiles under one global lock, so one list serves every thread; a fresh memo
        # per inlining keeps two call sites of the same helper from sharing copies.
        _memos.append({})
        try:
            return original(self, *args, **kwargs)
        finally:
            _memos.pop()

    inline_ir.__wrapped__ = original  # type: ignore[attr-defined]
    icc.copy = _CopyModule()
    worker.inline_ir = inline_ir
    _installed = True
    return True


@contextlib.contextmanager
def unshared() -> Iterator[None]:
    """Numba's own copies (one scope copy per block) inside the block: for comparing."""
    global _disabled
    previous, _disabled = _disabled, True
    try:
        yield
    finally:
        _disabled = previous
