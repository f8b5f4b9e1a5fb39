"""Calls by name from one compiled function to another (``opaque_call`` in a function made with
``opaque_caller``): the callee is compiled once, by itself; the caller's code only declares it;
what the caller bound is recorded beside its cache entry so a fresh process that loads the
caller from Numba's disk cache binds the callee first (else the process could not run it).

Each check runs in fresh processes on a cache folder of its own and counts Numba's compile
events (raised only when a function is compiled, never when it is loaded from the cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers import COMPILE_COUNTER

CALLER_MODULE = """
import numpy as np
from numba import njit
from hiddengrid.core.kernel import opaque_call, opaque_caller

@njit(cache=True)
def scale(rows, factor, out):
    for i in range(rows.shape[0]):
        out[i] = rows[i] * factor
    return rows.shape[0]

SCALE = opaque_call(scale)

@opaque_caller()
def scale_rows(block, out):
    n = 0
    for j in range(block.shape[0]):
        n += SCALE(block[j], 3, out[j])  # a row of each argument and a constant
    n += SCALE(block[0], np.int64(5), out[0])  # the same types: no second compile of scale
    return n
"""

CALLER_RUN = (
    COMPILE_COUNTER
    + """
import numpy as np
sys.path.insert(0, sys.argv[1])
import tiny_caller
block = np.arange(12, dtype=np.int64).reshape(3, 4)
out = np.zeros((3, 4), dtype=np.int64)
n = tiny_caller.scale_rows(block, out)
alone = None
if "scale_rows" in compiled:  # compiled here, so its code can be read
    f = tiny_caller.scale_rows
    lines = f.inspect_llvm(f.signatures[0]).splitlines()
    defined = [x for x in lines if x.startswith("define") and "scale" in x]
    declared = [x for x in lines if x.startswith("declare") and "hiddengrid.rows." in x]
    alone = all("scale_rows" in x for x in defined) and len(declared) == 1
print(json.dumps([int(n), out.tolist(), compiled, alone]))
"""
)


def run_caller(tmp_path, env) -> list:
    out = subprocess.run(
        [sys.executable, "-c", CALLER_RUN, str(tmp_path)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def test_a_caller_from_the_disk_cache_finds_its_callee(tmp_path) -> None:
    """First process: the callee compiles once (a constant argument is passed as its plain
    type), the caller's code declares it and defines none of it. Second: both load from the
    cache and the call reaches the callee. Third, with the caller's record of its callees
    deleted: the caller is compiled again rather than loaded without them, the callee loads."""
    (tmp_path / "tiny_caller.py").write_text(CALLER_MODULE)
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    expected = [[0, 5, 10, 15], [12, 15, 18, 21], [24, 27, 30, 33]]
    first = run_caller(tmp_path, env)
    assert first[0] == 16 and first[1] == expected
    assert sorted(first[2]) == ["scale", "scale_rows"]
    assert first[3] is True
    records = list(cache.rglob("*.calls"))
    assert len(records) == 1 and "scale_rows" in records[0].name
    second = run_caller(tmp_path, env)
    assert second[:3] == [16, expected, []]
    records[0].unlink()
    third = run_caller(tmp_path, env)
    assert third[:3] == [16, expected, ["scale_rows"]]
    assert list(cache.rglob("*.calls")) == records  # recorded again


def _plain_callers_of_calling_functions() -> list[str]:
    """Every plain compiled function of the package that calls, directly or through other
    plain compiled functions, a function made with ``calling``/``opaque_caller``."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import hiddengrid
    from hiddengrid.core.kernel import _Calling

    dispatchers: dict[int, object] = {}
    for info in pkgutil.walk_packages(hiddengrid.__path__, "hiddengrid."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                dispatchers[id(value)] = value

    def callees(dispatcher: object) -> list[object]:
        func = dispatcher.py_func  # type: ignore[attr-defined]
        names = func.__code__.co_names
        found = [func.__globals__.get(name) for name in names]
        return [f for f in found if isinstance(f, CPUDispatcher)]

    bad: list[str] = []

    def hazardous(dispatcher: object, seen: set[int]) -> bool:
        if id(dispatcher) in seen:
            return False
        seen.add(id(dispatcher))
        for callee in callees(dispatcher):
            if isinstance(callee, _Calling) or hazardous(callee, seen):
                return True
        return False

    for dispatcher in dispatchers.values():
        if not isinstance(dispatcher, _Calling) and hazardous(dispatcher, set()):
            func = dispatcher.py_func  # type: ignore[attr-defined]
            bad.append(f"{func.__module__}.{func.__qualname__}")
    return sorted(bad)


@pytest.mark.skipif(
    os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled functions without the JIT"
)
def test_no_plain_compiled_function_calls_a_calling_one_directly() -> None:
    """A function that calls kernels by name must itself be called by name (or be a
    ``calling`` function): a plain compiled caller links its code in, and a copy of that caller
    loaded from the disk cache in a fresh process would jump to callees nobody bound (a
    segmentation fault: Megacity's DAgger teacher once called the expert's planner so)."""
    assert _plain_callers_of_calling_functions() == []


def test_a_row_driver_compiles_at_a_lowered_level_and_its_callees_at_the_users() -> None:
    from numba.core import config

    from hiddengrid.core import kernel
    from hiddengrid.registry import definition_of

    user = config.OPT
    definition = definition_of("hiddengrid/AnomalyMapping-v0")
    assert kernel.row_driver(definition.step_all)._hiddengrid_opt == 1
    with kernel._optimization_level(1):
        assert int(config.OPT) == 1
        # what _bind_symbol does for a callee compiled while a driver's level is in force
        with kernel._optimization_level(kernel._OUTER_OPT[0]):
            assert int(config.OPT) == int(user)
        assert int(config.OPT) == 1
    assert config.OPT is user and kernel._OUTER_OPT == []
