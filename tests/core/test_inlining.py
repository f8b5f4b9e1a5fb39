"""Numba's inliner with one scope copy per inlined call (hiddengrid.core.inlining): the same
machine code as Numba's own copies, for a fraction of the copying."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from numba.core import ir

from hiddengrid.core import inlining

pytestmark = pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is inlined without the JIT"
)


@njit(inline="always")
def _clamp(x: int, lo: int, hi: int) -> int:
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@njit(inline="always")
def _walk(i: int, a: np.ndarray, b: np.ndarray) -> int:
    total = 0
    for k in range(a.shape[1]):
        if a[i, k] > 3:
            total += _clamp(a[i, k] - b[i, k], -2, 5)
        elif a[i, k] < -3:
            total -= _clamp(b[i, k], 0, 4)
        else:
            for j in range(k):
                total += a[i, j] * b[i, k]
    return total


def _outer(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    for i in range(a.shape[0]):
        out[i] = _walk(i, a, b) + _walk(i, b, a) + _clamp(out[i], 0, 9)


def _compile() -> tuple[str, np.ndarray]:
    """A fresh compile of ``_outer`` (no cache): its LLVM IR and its result on fixed arrays."""
    fn = njit(_outer)
    rng = np.random.default_rng(0)
    a = rng.integers(-6, 7, (5, 7))
    b = rng.integers(-6, 7, (5, 7))
    out = np.arange(5)
    fn(a, b, out)
    return next(iter(fn.inspect_llvm().values())), out


# Two compiles in one process differ in names from process-wide counters (inlined variables,
# blocks), so each way is compiled first thing in a fresh process.
_SCRIPT = """
import sys
from hiddengrid.core import inlining
from tests.core import test_inlining as t
if sys.argv[1] == "own":
    with inlining.unshared():
        llvm, out = t._compile()
else:
    llvm, out = t._compile()
print(llvm)
print(out.tolist())
"""


def _compile_in_fresh_process(way: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, way],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return done.stdout


class _VarCopies:
    """Counts the deep copies of IR variables made while it is active."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = ir.Var.__deepcopy__

        def counting(var: ir.Var, memo: dict) -> ir.Var:
            self.count += 1
            return original(var, memo)

        monkeypatch.setattr(ir.Var, "__deepcopy__", counting)


def test_installed_on_this_numba() -> None:
    assert inlining.install()
    from numba.core import inline_closurecall

    assert inline_closurecall.InlineWorker.inline_ir.__wrapped__ is not None


def test_same_machine_code_with_and_without_shared_scope_copies() -> None:
    shared = _compile_in_fresh_process("shared")
    own = _compile_in_fresh_process("own")
    assert "define" in shared
    assert shared == own


def test_shared_scope_copies_copy_far_fewer_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    copies = _VarCopies(monkeypatch)
    _compile()
    shared = copies.count
    copies.count = 0
    with inlining.unshared():
        _compile()
    own = copies.count
    assert shared > 0
    # _walk has about a dozen blocks: Numba's own copies copy its scope once per block.
    assert shared * 4 < own, (shared, own)
    print(f"variable copies: {shared} shared, {own} Numba's own")
