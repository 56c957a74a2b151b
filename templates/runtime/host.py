"""The host half of a callback: SciPy on numpy views of the operands, written into the outputs.

It never raises: an exception escaping a host callback is undefined behaviour in JAX, so every
failure becomes a NaN-filled result and a ``RuntimeWarning`` that names the function and the cause.
Large elementwise calls are split across a shared thread pool (SciPy releases the GIL).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
import platform
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import coredims
from .config import config
from .errstate import report
from .registry import lookup
from .sferror import carried, for_callback
from .sferror import geterr as _sf_geterr


def _glibc_fenv():
    """glibc's fegetenv/fesetenv, or None where the C library is another."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        return libm.fegetenv, libm.fesetenv
    except (OSError, AttributeError):
        return None


_FENV = _glibc_fenv()
_FE_DFL_ENV = ctypes.c_void_p(-1)  # glibc's FE_DFL_ENV: round to nearest, exceptions masked, no FTZ/DAZ


class _IeeeFloatingPoint:
    """SciPy's own floating-point environment, restored to the caller's afterwards.

    XLA runs callbacks on its CPU threads, which flush subnormals to zero (FTZ/DAZ): SciPy there
    would read a subnormal input as 0 and return 0 for a subnormal result (exp10(-38) in float32), and
    intermediate underflows change last bits, unlike SciPy outside JAX. Floating-point errors are
    ignored as well (SciPy reports them as NaN or inf, and a warning filter set to "error" must not
    turn them into exceptions inside the callback).
    """

    _buffers = threading.local()  # one saved-environment buffer per thread, reused

    def __enter__(self):
        self._errors = np.errstate(all="ignore")
        self._errors.__enter__()
        self._saved = None
        if _FENV is not None:
            saved = getattr(self._buffers, "saved", None)
            if saved is None:
                saved = self._buffers.saved = ctypes.create_string_buffer(256)  # > any glibc fenv_t
            if _FENV[0](saved) == 0:
                _FENV[1](_FE_DFL_ENV)
                self._saved = saved
        return self

    def __exit__(self, *exc_info):
        if self._saved is not None:
            _FENV[1](self._saved)
        self._errors.__exit__(*exc_info)
        return False


# Elements per evaluation of a host function that is not a ufunc (jaxsci's numpy kernels): large
# enough that numpy's per-call overhead is small against the work, small enough that the kernels'
# temporaries stay a few tens of MB whatever the size of the call.
_BLOCK = 1 << 16


def _pool_thread_start():
    """Pool threads are jaxsci's own: they keep SciPy's environment for good."""
    if _FENV is not None:
        _FENV[1](_FE_DFL_ENV)
    np.seterr(all="ignore")  # this thread's own setting: pool threads run nothing but SciPy


def _fill(output: np.ndarray) -> None:
    output[...] = np.nan if output.dtype.kind in "fc" else 0


def _aligned(array: np.ndarray, rank: int) -> np.ndarray:
    return array.reshape((1,) * (rank - array.ndim) + array.shape) if array.ndim < rank else array


class _Threads:
    """One pool shared by every callback, sized by ``config.num_threads``.

    Callbacks that already run concurrently (one per shard, or several Python threads) split the
    threads between them, so the process never runs more SciPy threads than configured.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._pool = None
        self._size = 0
        self._active = 0

    def enter(self) -> int:
        """Register a running callback; returns how many threads it may use."""
        with self._lock:
            self._active += 1
            return max(1, config.num_threads // self._active)

    def leave(self) -> None:
        with self._lock:
            self._active -= 1

    def pool(self, size: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < size:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)
                self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="jaxsci",
                                                initializer=_pool_thread_start)
                self._size = size
            return self._pool


_THREADS = _Threads()


def _chunks(shape: tuple, threads: int):
    """Slices of ``shape`` along its longest axis, one per thread, each at least ``parallel_min_size``."""
    size = math.prod(shape)
    pieces = min(threads, size // config.parallel_min_size) if shape else 1
    if pieces < 2:
        return None
    axis = max(range(len(shape)), key=lambda k: shape[k])
    pieces = min(pieces, shape[axis])
    if pieces < 2:
        return None
    bounds = np.linspace(0, shape[axis], pieces + 1).astype(int)
    return axis, [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _writes_in_place(function, statics: dict, arguments, outputs) -> bool:
    """Whether ``function`` is a ufunc that can write ``outputs`` itself (``out=``): they have the
    arguments' broadcast shape, one per ufunc output."""
    if not isinstance(function, np.ufunc) or statics or function.nin != len(arguments) or function.nout != len(outputs):
        return False
    shape = np.broadcast_shapes(*(np.shape(a) for a in arguments))
    return all(o.shape == shape for o in outputs)


def _evaluate_into(function, statics: dict, arguments, outputs, elementwise: bool = False) -> None:
    """``outputs[...] = function(*arguments, **statics)``; ``elementwise``: each output element depends on
    the arguments' elements at its place alone, so the call may be made piece by piece."""
    if _writes_in_place(function, statics, arguments, outputs):
        # The loop NumPy picks from the arguments' dtypes, cast into the outputs as np.copyto below
        # would: without a result array of SciPy's own (a whole array more at the peak).
        function(*arguments, out=tuple(outputs), casting="unsafe")
        return
    split = _blocks(arguments, outputs) if elementwise else None
    if split is None:
        _evaluate_whole(function, statics, arguments, outputs)
        return
    # A function that is not a ufunc (jaxsci's kernels, in numpy) holds temporaries for every element
    # it is given, tens of float64 arrays for an order kernel: given a block at a time, its peak
    # memory is bounded by the block, not by the call.
    axis, ranges = split
    arguments = [_aligned(np.asarray(a), outputs[0].ndim) for a in arguments]
    for lo, hi in ranges:
        index = (slice(None),) * axis + (slice(lo, hi),)
        _evaluate_whole(function, statics, [a if a.shape[axis] == 1 else a[index] for a in arguments],
                        [o[index] for o in outputs])


def _blocks(arguments, outputs):
    """``(axis, [(lo, hi), ...])``: slices of the outputs' longest axis of at most ``_BLOCK`` elements
    each, or None where one evaluation is as small (or the outputs differ in shape)."""
    shape = outputs[0].shape if outputs else ()
    size = math.prod(shape)
    if not arguments or size <= _BLOCK or any(o.shape != shape for o in outputs):
        return None
    axis = max(range(len(shape)), key=lambda k: shape[k])
    step = max(1, _BLOCK // (size // shape[axis]))
    return axis, [(lo, min(lo + step, shape[axis])) for lo in range(0, shape[axis], step)]


_MOST_ISOLATED = 32  # failing points isolated one by one before the rest of a failing call is NaN


def _evaluate_isolating(function, statics: dict, arguments, outputs) -> BaseException | None:
    """An elementwise call that raised, evaluated again in halves down to single points, so that only the
    points where SciPy raises are NaN: SciPy's vectorised methods raise for the whole array when one point
    fails (ncf.isf's Boost overflow at a tiny probability). A call that fails everywhere (a wrong static
    argument) stops isolating after ``_MOST_ISOLATED`` failing points, so it costs O(log n) calls more, not
    n. Returns what a failing point raised (what the whole raised, where isolating stopped early), or
    None where no point failed this time."""
    shape = outputs[0].shape
    size = math.prod(shape)
    flat_arguments = [np.broadcast_to(a, shape).reshape(-1) for a in arguments]
    flat_outputs = [np.empty(size, o.dtype) for o in outputs]
    first, at_a_point, isolated, pending = None, None, 0, [(0, size)]
    while pending:
        lo, hi = pending.pop()
        if isolated < _MOST_ISOLATED:
            try:
                _evaluate_whole(function, statics, [a[lo:hi] for a in flat_arguments], [o[lo:hi] for o in flat_outputs])
                continue
            except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
                first = first or exc
                if hi - lo == 1:
                    at_a_point = at_a_point or exc
            if hi - lo > 1:
                middle = (lo + hi) // 2
                pending += [(middle, hi), (lo, middle)]
                continue
            isolated += 1
        for output in flat_outputs:
            _fill(output[lo:hi])
    for output, flat in zip(outputs, flat_outputs):
        output[...] = flat.reshape(shape)
    return at_a_point or first


def _evaluate_whole(function, statics: dict, arguments, outputs) -> None:
    out = function(*arguments, **statics)
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(outputs):
        raise ValueError(f"SciPy returned {len(outs)} outputs, the spec declares {len(outputs)}")
    for value, output in zip(outs, outputs):
        np.copyto(output, value, casting="unsafe")


def _evaluate_call(function, statics: dict, arguments, outputs, threads: int) -> None:
    shape = outputs[0].shape
    split = _chunks(shape, threads) if all(o.shape == shape for o in outputs) else None
    if split is None:
        _evaluate_into(function, statics, arguments, outputs, elementwise=True)
        return
    axis, ranges = split
    rank = len(shape)
    arguments = [_aligned(a, rank) for a in arguments]
    # SciPy's error settings are per thread: the pool's threads take this callback's
    settings = _sf_geterr()

    def piece(lo, hi):
        index = (slice(None),) * axis + (slice(lo, hi),)
        sliced = [a if a.shape[axis] == 1 else a[index] for a in arguments]
        with carried(settings):
            _evaluate_into(function, statics, sliced, [o[index] for o in outputs], elementwise=True)

    pool = _THREADS.pool(threads)
    futures = [pool.submit(piece, lo, hi) for lo, hi in ranges[1:]]
    error = None
    try:
        piece(*ranges[0])
    except Exception as exc:  # noqa: BLE001 - re-raised below, after every thread has finished
        error = exc
    for future in futures:
        try:
            future.result()
        except Exception as exc:  # noqa: BLE001
            error = error or exc
    if error is not None:
        raise error


def _evaluate_where(function, statics: dict, arguments, outputs, arrays, where) -> None:
    """Evaluate only where each ``arrays[i] == constant`` of ``where``; zeros elsewhere.

    A rule's special-point evaluation (jv(v + 1, 0) at z = 0 in d/dz jv) is used only there; the
    other elements would cost a SciPy evaluation each for a value that is thrown away.
    """
    shape = outputs[0].shape
    selected = np.ones(shape, dtype=bool)
    for i, constant in where:
        selected &= np.broadcast_to(arrays[i] == constant, shape)
    for output in outputs:
        output[...] = 0
    if not selected.any():
        return
    picked = [np.broadcast_to(a, shape)[selected] for a in arguments]
    values = [np.empty(picked[0].shape if picked else (0,), o.dtype) for o in outputs]
    _evaluate_into(function, statics, picked, values, elementwise=True)
    for output, value in zip(outputs, values):
        output[selected] = value


class HostCalls(tuple):
    """``((qualname, statics, operand indices, output dtypes, output shapes or None, where), ...)``,
    the static description of one callback, with what the host needs of it looked up once, at its
    first run. ``where`` is ``((operand index, constant), ...)`` (``evaluate.Call.where``)."""

    def prepared(self) -> tuple:
        try:
            return self._prepared
        except AttributeError:
            self._prepared = tuple(
                (qualname, dict(statics), indices, len(dtypes), shapes is not None, where)
                for qualname, statics, indices, dtypes, shapes, where in self)
            return self._prepared


def _threads_for(outputs) -> int:
    """How many threads this callback may use: 1 unless it is large enough to split."""
    if not outputs or outputs[0].size < 2 * config.parallel_min_size or config.num_threads < 2:
        return 0
    return _THREADS.enter()


def run_calls(calls: HostCalls, arrays, outputs) -> None:
    """Evaluate ``calls`` on numpy ``arrays``, writing each call's outputs into ``outputs`` in order.

    A call that fails fills its outputs with NaN and reports it (``errstate``); nothing is raised.
    """
    if not isinstance(calls, HostCalls):
        calls = HostCalls(calls)
    threads = _threads_for(outputs)
    try:
        with _IeeeFloatingPoint(), carried(for_callback()):
            start = 0
            for qualname, statics, indices, count, given, where in calls.prepared():
                mine = outputs[start:start + count]
                start += count
                try:
                    function = lookup(qualname)
                    arguments = [arrays[i] for i in indices]
                    if indices and _has_core(qualname):  # outputs with core dimensions (coredims)
                        coredims.evaluate_into(function, statics, arguments, mine)
                    elif where:
                        _evaluate_where(function.scipy_callable(), statics, arguments, mine, arrays, where)
                    # Only elementwise calls split: one with given output shapes (roots_legendre(n)) is not.
                    elif threads > 1 and indices and not given:
                        _evaluate_call(function.scipy_callable(), statics, arguments, mine, threads)
                    else:
                        _evaluate_into(function.scipy_callable(), statics, arguments, mine,
                                       elementwise=bool(indices) and not given)
                except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
                    elementwise = indices and not given and not where and not _has_core(qualname)
                    if elementwise and mine and mine[0].size > 1:
                        try:
                            exc = _evaluate_isolating(function.scipy_callable(), statics, arguments, mine)
                        except Exception as again:  # noqa: BLE001
                            exc = again
                            for output in mine:
                                _fill(output)
                    else:
                        for output in mine:
                            _fill(output)
                    if exc is not None and not _quiet(qualname):
                        _warn(qualname, exc)
    finally:
        if threads:
            _THREADS.leave()


def _read_only(array) -> np.ndarray:
    """A numpy view of an operand that nothing can write through: XLA's input buffers (and the arrays
    ``pure_callback`` hands over, which may share a JAX array's memory) are immutable to JAX, so a SciPy
    function or kernel that tries to write into its input raises (and the call is NaN), never changes them."""
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def _quiet(qualname: str) -> bool:
    try:
        return lookup(qualname).quiet
    except Exception:  # noqa: BLE001 - an unknown name is reported
        return False


def _has_core(qualname: str) -> bool:
    """Whether the function's outputs have core dimensions (coredims): its calls give their core shape."""
    return bool(getattr(lookup(qualname), "core_rank", 0))


def evaluate_calls(calls: tuple, *operands):
    """``pure_callback``'s host function: returns the flat outputs, allocated here.

    Outputs have the operands' broadcast shape, or the call's given shapes where it has them (a function
    of static arguments only, a reduction); outputs with core dimensions have the broadcast shape
    followed by their given core shape.
    """
    try:
        arrays = [_read_only(o) for o in operands]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
        _warn(calls[0][0] if calls else "?", exc)
        outputs = [np.empty((), dt) for call in calls for dt in call[3]]
        for output in outputs:
            _fill(output)
        return tuple(outputs)
    outputs = [np.empty(shape if shapes is None else (shape + shapes[k] if _has_core(qualname) else shapes[k]), dt)
               for qualname, _, _, dtypes, shapes, _ in calls for k, dt in enumerate(dtypes)]
    run_calls(calls, arrays, outputs)
    return tuple(outputs)


def evaluate_calls_in_place(calls: tuple, context, out_buffers, *in_buffers) -> None:
    """``buffer_callback``'s host function: reads the operands and writes the outputs where XLA keeps them."""
    try:
        arrays = [_read_only(b) for b in in_buffers]
        outputs = [np.asarray(b) for b in out_buffers]
    except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
        _warn(calls[0][0] if calls else "?", exc)
        for buffer in out_buffers:  # NaN wherever the outputs can be reached, never stale memory
            try:
                _fill(np.asarray(buffer))
            except Exception:  # noqa: BLE001
                pass
        return
    run_calls(calls, arrays, outputs)


def _warn(qualname: str, exc: BaseException) -> None:
    report(qualname, exc)
