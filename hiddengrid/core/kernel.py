"""How the batch kernels are compiled, how they run on several threads, and where their
compiled code is cached.

A kernel is called from Python once per step over the whole batch and never allocates. It is
compiled without Numba's reference counting (``_nrt=False``): with it, every call of a helper
that takes arrays increments and decrements each array's count atomically, which measured
75 ns per sub-env step for AnomalyMapping against under 2 ns without. The small helpers a
kernel calls in its inner loops are marked ``inline="always"`` (:data:`inline`) so they are
compiled inside it, under the same flags. A large helper that runs once per sub-env step or
less (a whole view of the observation, the action mask, an episode's start) is better a
``@kernel`` of its own, called: it is compiled once, not once per place it is called from,
and the compiler's time grows faster than linearly with the size of one function (Megacity's
``reset_done`` and ``step_all`` with every helper inlined took 139 CPU s to compile, 58 s with
its episode start, full mask and rarely rewritten views called, for a step 7 % slower as
measured under load; docs/performance.md). Code that allocates (an oracle's BFS queue, say)
keeps the ordinary ``@njit``. Numba's inliner is made linear in the helper's size by
:mod:`hiddengrid.core.inlining`, installed below before anything compiles.

A compiled function that calls another links the callee's code into its own module, where LLVM
optimizes it again: a helper three calls deep is optimized four times. The agents' large
helpers (a planner, a path search) are therefore called by name (:func:`opaque_call`) from
functions made with :func:`opaque_caller`, and compiled once each; their one-line leaves are
inlined (inlining the large ones instead made the compile longer: LLVM's time grows faster
than the size of one function).

Threads: a batch loop is written ``for i in prange(n)``, and sub-env ``i`` reads and writes only
row ``i`` of every array (its own random stream included). An env's kernels run on several
threads through a row driver (:func:`row_driver`): a small ``parallel=True`` loop that cuts the
rows into one contiguous run per thread and calls the serial kernel itself on each run's row
slices. The kernel is compiled once, serially, whatever the thread count; only the small loop is
compiled with ``parallel=True``, and it calls the kernel's machine code by name
(:func:`opaque_call`) rather than linking a copy of it that LLVM would optimize again. The
result is the same bit for bit whatever the thread count. Agents' kernels run the same way
(:func:`run_rows`, with their per-thread scratch passed whole). A kernel whose arguments are not
rows (the observation copy, which cuts flat byte arrays itself) keeps a ``parallel=True`` twin
(:func:`parallel_twin`), where ``prange`` splits the loop. The kernels hold the GIL, so two
Python threads never enter Numba's threading layer at once (the ``workqueue`` layer would abort
if they did).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib
import os
import pickle
import shutil
import sys
import tempfile
import types
import warnings
from collections.abc import Iterator
from typing import Any

import numba
import numpy as np
from llvmlite import binding as llvm
from numba import config, njit
from numba.core import cgutils
from numba.core.caching import FunctionCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from hiddengrid.core import inlining

# Before anything compiles: Numba's inliner without its quadratic copies (see the module).
inlining.install()


def _probe() -> None:
    return None


def ensure_cache_location() -> str | None:
    """Makes sure Numba can cache this package's compiled code; returns the fallback folder.

    Numba caches beside the sources, else in the user's cache folder (or ``NUMBA_CACHE_DIR``).
    A read-only install run by a user without a writable home has neither, and every
    ``cache=True`` function would fail to import. Then the cache goes to a fresh temporary
    folder (compiled once per process instead of once per install), with one warning.
    """
    try:
        FunctionCache(_probe)
    except RuntimeError:
        folder = tempfile.mkdtemp(prefix="hiddengrid-numba-")
        config.CACHE_DIR = folder
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        warnings.warn(
            "hiddengrid: no writable Numba cache beside the package or in the user's cache "
            f"folder; compiled kernels are cached in {folder} for this run only "
            "(set NUMBA_CACHE_DIR to a writable folder to keep them)",
            RuntimeWarning,
            stacklevel=2,
        )
        return folder
    return None


ensure_cache_location()

kernel = njit(cache=True, _nrt=False)
inline = njit(cache=True, inline="always")
prange = numba.prange  # the batch loop: ``for i in prange(n)`` (see above)

# The default thread count gives each thread at least this many sub-envs: a parallel call costs
# 10-35 us more than a serial one here (waking the sleeping threads), a sub-env step 30-200 ns,
# so smaller shares lose more than they gain (``hiddengrid bench --scaling``, docs/performance.md).
ENVS_PER_THREAD = 512

_TWINS: dict[Any, Any] = {}


def python_body(function: Any) -> Any:
    """The plain Python function behind a compiled one (the function itself where JIT is
    disabled): for offline tools that reuse a kernel's rule many times from Python, where a
    compiled call per use would cost more than the rule."""
    return getattr(function, "py_func", function)


def parallel_twin(dispatcher: Any) -> Any:
    """The ``parallel=True`` compilation of a kernel (made once, cached on disk like it).

    The twin is a copy of the Python function under its own qualified name: Numba's on-disk
    cache keys entries by name and signature but not by compile flags, so under the same name
    the serial and the parallel machine code would overwrite each other's cache entries.
    With ``NUMBA_DISABLE_JIT=1`` the kernel is plain Python and is its own twin.
    """
    py_func = getattr(dispatcher, "py_func", None)
    if py_func is None:
        return dispatcher
    twin = _TWINS.get(dispatcher)
    if twin is None:
        copy = types.FunctionType(
            py_func.__code__,
            py_func.__globals__,
            py_func.__name__,
            py_func.__defaults__,
            py_func.__closure__,
        )
        copy.__qualname__ = f"{py_func.__qualname__}__parallel"
        copy.__module__ = py_func.__module__
        copy.__doc__ = py_func.__doc__
        nrt = dispatcher.targetoptions.get("_nrt", True)
        twin = njit(cache=True, parallel=True, _nrt=nrt)(copy)
        _TWINS[dispatcher] = twin
    return twin


_DRIVERS: dict[tuple[Any, tuple[int, ...]], Any] = {}


def _symbol(py_func: Any, argtypes: tuple[Any, ...]) -> str:
    """The name a row driver calls a kernel's compiled code by, for these argument types: the
    same in every process (Numba's own symbol names carry a per-process counter, and a driver
    loaded from the disk cache must find the kernel by the name it was compiled with)."""
    digest = hashlib.sha1(repr(argtypes).encode()).hexdigest()[:16]
    return f"hiddengrid.rows.{py_func.__module__}.{py_func.__qualname__}.{digest}"


def _bind_symbol(dispatcher: Any, argtypes: tuple[Any, ...]) -> str:
    """Compiles (or loads from the cache) ``dispatcher`` for ``argtypes`` and makes its machine
    code resolvable under :func:`_symbol`'s name; returns that name."""
    name = _symbol(dispatcher.py_func, argtypes)
    if name not in _BOUND:
        with _optimization_level(_OUTER_OPT[0] if _OUTER_OPT else None):
            dispatcher.compile(argtypes)
        result = dispatcher.overloads[argtypes]
        address = result.library.get_pointer_to_function(result.fndesc.llvm_func_name)
        if not address:
            raise RuntimeError(f"no compiled code for {dispatcher.py_func.__qualname__}")
        llvm.add_symbol(name, address)
        _BOUND[name] = address
    return name


_BOUND: dict[str, int] = {}


_CALLERS: dict[Any, Any] = {}


def opaque_call(dispatcher: Any) -> Any:
    """A function for compiled code that calls ``dispatcher``'s own machine code by name
    (:func:`_bind_symbol`), for the argument types it is called with; with
    ``NUMBA_DISABLE_JIT=1``, the plain Python kernel.

    A plain call from one compiled function to another links the callee's code into the
    caller's module, where LLVM optimizes it again (and may inline it): a row driver then cost
    about half its kernel's own compile (30 CPU s for Megacity's two). Called by name, the
    callee is compiled once and the caller compiles only its own code. Array arguments must be
    C-contiguous (the callee's types). A function that uses it must be built with
    :func:`calling` so that a copy loaded from the disk cache finds the callee."""
    if not hasattr(dispatcher, "py_func"):
        return dispatcher
    caller = _CALLERS.get(dispatcher)
    if caller is not None:
        return caller

    def typer(typingctx: Any, *args: Any) -> Any:
        for arg in args:
            if isinstance(arg, numba.types.Array) and arg.layout != "C":
                raise numba.core.errors.TypingError(
                    f"{dispatcher.py_func.__qualname__} is called on C-contiguous arrays only"
                )
        # A constant argument is passed as its plain type: one compile serves every value.
        argtypes = tuple(numba.types.unliteral(arg) for arg in args)
        name = _bind_symbol(dispatcher, argtypes)
        if _RECORDING:
            _record(_RECORDING[-1], _callee_key(dispatcher), argtypes)
        result = dispatcher.overloads[argtypes]
        sig = result.signature.return_type(*argtypes)

        def codegen(context: Any, builder: Any, signature: Any, values: Any) -> Any:
            fnty = context.call_conv.get_function_type(signature.return_type, argtypes)
            function = cgutils.get_or_insert_function(builder.module, fnty, name)
            status, value = context.call_conv.call_function(
                builder, function, signature.return_type, argtypes, values
            )
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return value

        return sig, codegen

    arity = dispatcher.py_func.__code__.co_argcount
    names = ", ".join(f"a{k}" for k in range(arity))
    namespace: dict[str, Any] = {"typer": typer}
    exec(f"def call(typingctx, {names}):\n    return typer(typingctx, {names})\n", namespace)
    function = namespace["call"]
    function.__name__ = f"{dispatcher.py_func.__name__}__call"
    caller = intrinsic(function)
    _CALLERS[dispatcher] = caller
    _OPAQUE[_callee_key(dispatcher)] = dispatcher
    return caller


# Every kernel called through :func:`opaque_call`, by :func:`_callee_key`.
_OPAQUE: dict[str, Any] = {}
# One frame per compile of a recording caller (see :func:`calling`) under way: its record
# file, its signature's key, and the ``(callee, argument types)`` bound while it compiles.
_RECORDING: list[tuple[str, str, list[tuple[str, tuple[Any, ...]]]]] = []


def _callee_key(dispatcher: Any) -> str:
    return f"{dispatcher.py_func.__module__}:{dispatcher.py_func.__qualname__}"


def _read_calls(path: str) -> dict[str, list[tuple[str, tuple[Any, ...]]]]:
    try:
        with open(path, "rb") as file:
            return pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return {}


def _record(frame: tuple[str, str, list[Any]], key: str, argtypes: tuple[Any, ...]) -> None:
    """Adds a callee's binding to the caller's record file at once: during the caller's
    typing, so before Numba saves the caller's machine code to the cache."""
    path, signature, bound = frame
    if (key, argtypes) in bound:
        return
    bound.append((key, argtypes))
    calls = _read_calls(path)
    calls[signature] = list(bound)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as file:
            pickle.dump(calls, file)
        os.replace(temporary, path)
    except OSError:
        pass  # no record: the next process compiles the caller again rather than load it


@contextlib.contextmanager
def _optimization_level(level: int | None) -> Iterator[None]:
    """Numba's LLVM optimization level (``NUMBA_OPT``) while the block compiles; ``None``
    leaves it. Numba reads the level each time it optimizes a module, so only what compiles
    inside the block is affected: every callee a caller binds is compiled before it enters."""
    if level is None:
        yield
        return
    # Numba's compile lock (re-entrant) first: no other thread compiles under this level.
    with global_compiler_lock:
        previous = config.OPT
        _OUTER_OPT.append(previous)
        config.OPT = type(previous)(level)
        try:
            yield
        finally:
            config.OPT = previous
            _OUTER_OPT.pop()


# The levels that :func:`_optimization_level` replaced, outermost first: a callee compiled
# while a caller's level is lowered gets the outermost one back.
_OUTER_OPT: list[Any] = []


class _NoLoad:
    """A dispatcher's cache that saves but never loads (see :class:`_Calling`)."""

    def __init__(self, cache: Any) -> None:
        self._inner = cache

    def load_overload(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Calling(CPUDispatcher):
    """The dispatcher of a function that calls kernels through :func:`opaque_call`: before it
    compiles, or loads from the disk cache, its code for some argument types, the callees' code
    for theirs is loaded and bound to the names the caller uses (a copy from the cache carries
    only those names). ``_hiddengrid_calls`` lists ``(callee, positions)``: the caller's
    arguments at ``positions`` are the callee's, in order, with the same types."""

    _hiddengrid_calls: tuple[tuple[Any, tuple[Any, ...]], ...] = ()
    _hiddengrid_records = False
    _hiddengrid_opt: int | None = None  # LLVM's optimization level for this function's own code

    def compile(self, sig: Any) -> Any:
        args, _ = numba.core.sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        for callee, positions in self._hiddengrid_calls:
            types = tuple(args[k] if isinstance(k, int) else k for k in positions)
            if all(not isinstance(t, numba.types.Array) or t.layout == "C" for t in types):
                _bind_symbol(callee, types)
        if not self._hiddengrid_records or self._cache is None or config.DISABLE_JIT:
            with _optimization_level(self._hiddengrid_opt):
                return super().compile(sig)
        path = f"{self._cache._cache_file._index_path}.calls"
        signature = repr(tuple(args))
        recorded = _read_calls(path).get(signature)
        cache = self._cache
        if recorded is None:
            # No record of what this signature calls: its copy in the cache (if any) could not
            # find its callees, so it is compiled, and recorded, again.
            self._cache = _NoLoad(cache)
        else:
            for key, types in recorded:
                callee = _OPAQUE.get(key)
                if callee is not None:
                    _bind_symbol(callee, types)
        _RECORDING.append((path, signature, list(recorded or [])))
        try:
            with _optimization_level(self._hiddengrid_opt):
                return super().compile(sig)
        finally:
            _RECORDING.pop()
            self._cache = cache


def calling(
    calls: tuple[tuple[Any, tuple[int, ...]], ...],
    function: Any,
    records: bool = False,
    **options: Any,
) -> Any:
    """``njit(cache=True, **options)(function)`` for a ``function`` that calls kernels through
    :func:`opaque_call`; ``calls`` lists each callee with the positions of ``function``'s
    arguments that it is passed (see :class:`_Calling`). With ``NUMBA_DISABLE_JIT=1``, the
    function itself.

    With ``records``, the callees may be passed anything (locals, rows of scratch arrays,
    constants): what each signature of ``function`` bound while it compiled is written to a
    file beside its cache index (``<index>.calls``) before its code is cached, and bound again
    from there before a later process loads that code; a signature with no record there is
    compiled again rather than loaded."""
    if config.DISABLE_JIT:
        return function
    dispatcher = _Calling(py_func=function, locals={}, targetoptions={"nopython": True, **options})
    dispatcher._hiddengrid_calls = calls
    dispatcher._hiddengrid_records = records
    dispatcher.enable_caching()
    return dispatcher


def opaque_caller(**options: Any) -> Any:
    """Decorator: ``calling((), function, records=True, **options)``, for a function whose
    calls through :func:`opaque_call` take any arguments (an agent's kernel calling its
    large helpers: each is compiled once, by itself, instead of being optimized again inside
    every compiled function that calls it, directly or not)."""

    def decorate(function: Any) -> Any:
        return calling((), function, records=True, **options)

    return decorate


def row_driver(dispatcher: Any, whole: tuple[int, ...] = (), then: Any = None) -> Any:
    """The multi-thread form of a row kernel: a small ``parallel=True`` function that cuts the
    rows into ``chunks`` contiguous runs and calls the serial kernel itself on each run's row
    slices, one run per thread: ``row_driver(k)(chunks, *args)``.

    A row kernel is one whose every argument (but those at the positions in ``whole``, passed
    as they are) is an array with the batch on its first axis, and which touches row ``i`` of
    them only for sub-env ``i``, as every batch kernel of an env does: so the slices give the
    same results as the whole arrays, bit for bit. A slice of a C-contiguous array along its
    first axis is C-contiguous, so the kernel is called with the very types the serial env uses
    and its machine code is compiled once for both; only this small loop is compiled with
    ``parallel=True`` (compiling a large kernel's ``parallel=True`` twin cost several times
    its serial compile: docs/performance.md).

    The driver is generated source, compiled under the kernel's own file name and line and a
    name of its own (``<kernel>__rows``): Numba caches it on disk beside the kernel, and an edit
    to the kernel's file (its time stamp) invalidates the driver's cache entry together with
    the kernel's. With ``NUMBA_DISABLE_JIT=1`` the kernel is plain Python and runs serially.

    ``then``, a compiled function ``then(lo, hi, *extra)``, is called by each thread right after
    the kernel on its run of rows ``lo:hi``: ``row_driver(k, then=f)(chunks, *extra, *args)``.
    The vector env copies each run's observation rows there, on the thread that stepped them,
    inside the same parallel call (a second parallel call would cost a second wake-up).
    """
    key = (dispatcher, tuple(sorted(whole)), then)
    driver = _DRIVERS.get(key)
    if driver is not None:
        return driver
    py_func = getattr(dispatcher, "py_func", None)
    extra = 0 if then is None else getattr(then, "py_func", then).__code__.co_argcount - 2
    if py_func is None:

        def driver(chunks: int, *args: Any) -> None:
            dispatcher(*args[extra:])
            if then is not None:
                rows = args[extra + min(set(range(len(args) - extra)) - set(key[1]))]
                then(0, rows.shape[0], *args[:extra])

        _DRIVERS[key] = driver
        return driver
    arity = py_func.__code__.co_argcount
    sliced = [k for k in range(arity) if k not in key[1]]
    if not sliced:
        raise ValueError(f"row_driver: {py_func.__qualname__} has no row argument")
    names = [f"a{k}" for k in range(arity)]
    call = ", ".join(f"a{k}[lo:hi]" if k in sliced else f"a{k}" for k in range(arity))
    suffix = "__rows" + "".join(f"_{k}" for k in key[1])
    extras = [f"t{k}" for k in range(extra)]
    after = ""
    if then is not None:
        suffix += f"__then_{getattr(then, 'py_func', then).__name__}"
        after = f"        THEN(lo, hi, {', '.join(extras)})\n"
    name = f"{py_func.__name__}{suffix}"
    source = (
        f"def {name}(chunks, {', '.join(extras + names)}):\n"
        f"    n = a{sliced[0]}.shape[0]\n"
        "    for c in prange(chunks):\n"
        "        lo = n * c // chunks\n"
        "        hi = n * (c + 1) // chunks\n"
        f"        CALL({call})\n"
        f"{after}"
    )
    code = py_func.__code__
    namespace: dict[str, Any] = {
        "CALL": opaque_call(dispatcher),
        "THEN": None if then is None else opaque_call(then),
        "prange": prange,
    }
    exec(compile(source, code.co_filename, "exec"), namespace)  # our own source, above
    function = namespace[name]
    function.__code__ = function.__code__.replace(co_firstlineno=code.co_firstlineno)
    function.__qualname__ = f"{py_func.__qualname__}{suffix}"
    function.__module__ = py_func.__module__
    # Reference counting only where the kernel has it (a kernel that allocates needs it).
    nrt = dispatcher.targetoptions.get("_nrt", True)
    # Its rows' slices have the whole arrays' types: the kernel is called with the driver's
    # own argument types (all but ``chunks``).
    calls: tuple[tuple[Any, tuple[Any, ...]], ...] = (
        (dispatcher, tuple(range(1 + extra, 1 + extra + arity))),
    )
    if then is not None and hasattr(then, "py_func"):
        # ``then`` is called by name too, on (lo, hi) and the driver's leading arguments.
        calls += ((then, (numba.types.int64, numba.types.int64, *range(1, 1 + extra))),)
    driver = calling(calls, function, parallel=True, _nrt=nrt)
    # The driver's own code is a loop over a few runs of rows that calls compiled code by
    # name: -O3 has nothing more to find there than -O1, and cost a third more time (Megacity's
    # step driver: 6.1 CPU s at -O3, 4.0 s at -O1). Not -O0: Numba's machine-code generator
    # stays at -O3, and on unoptimized code it took 43 s.
    driver._hiddengrid_opt = 1
    _DRIVERS[key] = driver
    return driver


def run_rows(
    num_threads: int,
    dispatcher: Any,
    *args: Any,
    whole: tuple[int, ...] = (),
    then: Any = None,
    then_args: tuple[Any, ...] = (),
) -> None:
    """Calls a row kernel (see :func:`row_driver`) on ``num_threads`` threads: the serial
    dispatcher for one, else its row driver after setting the calling thread's Numba thread
    count (thread-local, so vector envs with different counts in one process each get theirs).
    ``whole`` are the positions of arguments that are not cut by rows (thread scratch, say).
    ``then(lo, hi, *then_args)`` runs after the kernel on each run of rows (on one thread:
    once, over all of them)."""
    if num_threads == 1:
        dispatcher(*args)
        if then is not None:
            rows = args[min(set(range(len(args))) - set(whole))]
            then(0, rows.shape[0], *then_args)
        return
    _use_threads(num_threads)
    row_driver(dispatcher, whole, then)(num_threads, *then_args, *args)


def _use_threads(num_threads: int) -> None:
    """Starts the pool on first use and sets the calling thread's Numba thread count
    (thread-local, so vector envs with different counts in one process each get theirs)."""
    if not _pool_started:
        start_thread_pool()
    numba.set_num_threads(num_threads)


def max_threads() -> int:
    """The most threads a kernel can use: the cores this process may run on, capped by the
    size of Numba's thread pool (``NUMBA_NUM_THREADS``)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, numba.config.NUMBA_NUM_THREADS))


def resolve_num_threads(
    num_threads: object, num_envs: int, envs_per_thread: int = ENVS_PER_THREAD
) -> int:
    """The thread count a batch of ``num_envs`` runs on: ``None`` picks as many threads as give
    each at least ``envs_per_thread`` sub-envs (an env's definition may raise the default,
    :data:`ENVS_PER_THREAD`, when its step is too cheap to share), up to every usable core (so
    one thread below twice that); an int is taken as given, within ``1..NUMBA_NUM_THREADS``."""
    if num_threads is None:
        return max(1, min(max_threads(), num_envs // envs_per_thread))
    pool = numba.config.NUMBA_NUM_THREADS
    if (
        isinstance(num_threads, bool)
        or not isinstance(num_threads, int)
        or not 1 <= num_threads <= pool
    ):
        raise ValueError(
            f"num_threads must be None or an int from 1 to {pool} (the size of Numba's thread "
            f"pool, NUMBA_NUM_THREADS), got {num_threads!r}"
        )
    return num_threads


# Environment variables by which a user has already chosen how OpenMP threads wait.
WAIT_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")
_pool_started = False


def start_thread_pool() -> None:
    """Starts Numba's thread pool, with OpenMP threads that sleep when they wait.

    GNU OpenMP's default is to spin at the end of each parallel call. On cores shared with other
    work (other processes, or PyTorch's own threads in a training loop) a spinning thread holds
    the core that the thread still working needs: on this 2-core machine under load, a
    2-thread AnomalyMapping step at N=4096 measured between 1x and 30x slower than one thread,
    against 1.3x faster with sleeping threads (docs/performance.md). The setting is made only
    while Numba loads its OpenMP runtime and is removed from the environment right after, and
    only when nobody chose one: a pool already started, or any of :data:`WAIT_SETTINGS` set by
    the user, is left as it is.

    Starting the pool sets the process's OpenMP thread count to the pool's size, and PyTorch's
    CPU threads are OpenMP's: a training run that had set torch to one thread then ran its
    tensor operations on every core, beside a spinning pool thread (SquadRecon's recipe,
    whose teacher starts the pool after the trainer set its threads: a short run beside
    another on this 2-core machine took 67 s wall, 13.5 s with the fix). The thread count
    torch had is put back.
    """
    global _pool_started
    if _pool_started:
        return
    _pool_started = True
    try:
        numba.threading_layer()
        return  # started before us: its settings stand
    except ValueError:
        pass
    torch = sys.modules.get("torch")  # loaded by the caller, if at all: never imported here
    torch_threads = torch.get_num_threads() if torch is not None else None
    try:
        with _sleeping_waits():
            numba.get_num_threads()  # starts the pool
    finally:
        if torch is not None and torch.get_num_threads() != torch_threads:
            torch.set_num_threads(torch_threads)


@contextlib.contextmanager
def _sleeping_waits() -> Iterator[None]:
    """``OMP_WAIT_POLICY=PASSIVE`` for whatever loads OpenMP inside, unless the user chose one
    of :data:`WAIT_SETTINGS`; the environment is left as it was."""
    if any(name in os.environ for name in WAIT_SETTINGS):
        yield
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        del os.environ["OMP_WAIT_POLICY"]


def import_with_sleeping_waits(name: str) -> types.ModuleType:
    """Imports ``name``, a library that loads GNU OpenMP itself (PyTorch), with the sleeping
    waits :func:`start_thread_pool` gives Numba's threads.

    OpenMP reads its wait setting once, when it is loaded, and a process has one OpenMP: where
    torch is imported before Numba's pool starts (every training run), torch loads it with the
    default spinning waits and the pool's setting comes too late. Measured: AnomalyMapping
    trained with 2,048 sub-envs (two env threads) beside another run, 12.2 s wall with the
    pool thread spinning (1.9 CPU s) against 10.0 s with sleeping waits. The same rules: only
    when nobody chose a setting and nothing loaded OpenMP yet, and the environment is left as
    it was."""
    if name in sys.modules or _pool_started:
        return importlib.import_module(name)
    with _sleeping_waits():
        return importlib.import_module(name)


def run_on(num_threads: int, dispatcher: Any, *args: Any) -> None:
    """Calls a kernel on ``num_threads`` threads: the serial dispatcher for one, else its
    parallel twin after setting the calling thread's Numba thread count (thread-local, so
    vector envs with different counts in one process each get theirs)."""
    if num_threads == 1:
        dispatcher(*args)
        return
    _use_threads(num_threads)
    parallel_twin(dispatcher)(*args)


def direct_entry(dispatcher: Any, *args: Any) -> Any:
    """The compiled code of a kernel for exactly the types of ``args``, callable without
    Numba's per-call type dispatch (measured 0.25 us of AnomalyMapping's single-env step and
    0.4 us of SquadRecon's). Only for a caller that always passes arrays of these very types
    (the entry point does not check them); a plain Python kernel comes back unchanged."""
    if not hasattr(dispatcher, "overloads"):
        return dispatcher
    return dispatcher.compile(tuple(numba.typeof(a) for a in args))


def thread_scratch(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Scratch memory for a ``prange`` loop: one block of ``shape`` per pool thread, taken as
    ``scratch[numba.get_thread_id()]`` inside the loop body. Each sub-env must overwrite what it
    reads of its block, so the result does not depend on which thread ran it.

    Starts Numba's thread pool: compiled ``get_thread_id()`` reads the pool's state, and in a
    process where no parallel code has run yet even the serial (one-thread) kernel would crash
    on it."""
    start_thread_pool()
    return np.zeros((numba.config.NUMBA_NUM_THREADS, *shape), dtype=dtype)
