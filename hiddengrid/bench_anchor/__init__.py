"""Hand-written C anchors for the benchmark: plain single-threaded C doing the same work as an
env's Numba kernels, compiled on demand with the system C compiler.

Never a dependency: without a C compiler :func:`load_anomaly_mapping` raises
:class:`AnchorUnavailable` with a one-line reason and ``hiddengrid bench`` skips the anchor row.
The shared library is built once per source version into a cache folder
(``$HIDDENGRID_ANCHOR_CACHE``, else a ``hiddengrid-c-anchor`` folder in the temporary folder).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from hiddengrid.core.rng import seed_array
from hiddengrid.envs.anomaly_mapping.constants import PADDED

SOURCE = Path(__file__).with_name("anomaly_mapping.c")
CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c99")


class AnchorUnavailable(RuntimeError):
    """No C compiler, or the anchor did not build: the message says which, in one line."""


def find_compiler() -> str | None:
    """``$CC`` when set, else the first of ``cc``, ``gcc``, ``clang`` on the PATH."""
    names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def build(source: Path = SOURCE) -> Path:
    """The shared library of ``source``, compiled unless the cache already holds this version."""
    compiler = find_compiler()
    if compiler is None:
        raise AnchorUnavailable("no C compiler found (set CC or install cc/gcc/clang)")
    code = source.read_bytes()
    key = hashlib.sha256(code + " ".join((compiler, *CFLAGS)).encode()).hexdigest()[:16]
    folder = Path(
        os.environ.get("HIDDENGRID_ANCHOR_CACHE")
        or Path(tempfile.gettempdir()) / f"hiddengrid-c-anchor-{os.getuid()}"
    )
    lib = folder / f"{source.stem}-{key}.so"
    if lib.exists():
        return lib
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f"{lib.name}.{os.getpid()}.tmp"
    proc = subprocess.run(
        [compiler, *CFLAGS, "-o", str(partial), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["(no message)"])[0]
        raise AnchorUnavailable(f"{compiler} could not build {source.name}: {first}")
    os.replace(partial, lib)  # atomic: a concurrent build never loads a half-written file
    return lib


_P = ctypes.c_void_p
_I64 = ctypes.c_int64
_STATE = [_P] * 13  # rng, done, outcome, reward, terminated, then the 8 field arrays


def _load(lib: Path) -> ctypes.CDLL:
    dll = ctypes.CDLL(str(lib))
    dll.am_seed.argtypes = [_I64, _P, _P]
    dll.am_reset_all.argtypes = [_I64, *_STATE]
    dll.am_step.argtypes = [_I64, _P, *_STATE]
    dll.am_can_wall_table.argtypes = [_P]
    for name in ("am_seed", "am_reset_all", "am_step", "am_can_wall_table"):
        getattr(dll, name).restype = None
    return dll


class AnomalyMappingC:
    """A batch of ``n`` AnomalyMapping sub-envs stepped by the C engine.

    The state is the native batch's, array for array (same names, dtypes and shapes), so the two
    can be compared directly: ``view``, ``facing`` and ``steps_left`` are the observation.
    """

    def __init__(self, n: int) -> None:
        self.dll = _load(build())
        self.n = n
        self.rng = np.zeros(n, dtype=np.uint64)
        self.done = np.zeros(n, dtype=np.bool_)
        self.outcome = np.zeros(n, dtype=np.int8)
        self.reward = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.walls = np.zeros((n, PADDED), dtype=np.int64)
        self.node = np.zeros((n, 2), dtype=np.int64)
        self.start = np.zeros((n, 2), dtype=np.int64)
        self.start_facing = np.zeros(n, dtype=np.int64)
        self.agent = np.zeros((n, 2), dtype=np.int64)
        self.facing = np.zeros(n, dtype=np.int64)
        self.steps_left = np.zeros(n, dtype=np.int64)
        self.view = np.zeros((n, 3, 3), dtype=np.int8)
        arrays = (
            self.rng, self.done, self.outcome, self.reward, self.terminated, self.walls,
            self.node, self.start, self.start_facing, self.agent, self.facing, self.steps_left,
            self.view,
        )  # fmt: skip
        self._state = tuple(a.ctypes.data for a in arrays)
        self._step = self.dll.am_step

    def reset(self, seed: int) -> None:
        """Seeds sub-env ``i`` with ``seed + i`` and starts every episode, as the vector env's
        ``reset(seed=seed)``."""
        seeds = seed_array(seed, self.n)
        self.dll.am_seed(self.n, seeds.ctypes.data, self.rng.ctypes.data)
        self.dll.am_reset_all(self.n, *self._state)

    def step(self, actions: np.ndarray) -> None:
        """One step of every sub-env; ``actions`` must be a C-contiguous int64 array of ``n``
        legal actions (not checked: this is the bare engine)."""
        self._step(self.n, actions.ctypes.data, *self._state)

    def can_wall_table(self) -> np.ndarray:
        out = np.zeros(512, dtype=np.int64)
        self.dll.am_can_wall_table(out.ctypes.data)
        return out


def load_anomaly_mapping(n: int) -> AnomalyMappingC:
    """The C engine for ``n`` sub-envs; :class:`AnchorUnavailable` when it cannot be built."""
    return AnomalyMappingC(n)
