"""The host half of a callback: SciPy on numpy views of the operands. It never raises.

An exception escaping a ``pure_callback`` is undefined behaviour in JAX, so every failure becomes a
NaN-filled result and a ``RuntimeWarning`` that names the function and the cause.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import platform
import warnings

import numpy as np

from .registry import lookup


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


@contextlib.contextmanager
def _ieee_floating_point():
    """SciPy's own floating-point environment, restored to the caller's afterwards.

    XLA runs callbacks on its CPU threads, which flush subnormals to zero (FTZ/DAZ): SciPy there
    would read a subnormal input as 0 and return 0 for a subnormal result (exp10(-38) in float32), and
    intermediate underflows change last bits, unlike SciPy outside JAX.
    """
    if _FENV is None:
        yield
        return
    fegetenv, fesetenv = _FENV
    saved = ctypes.create_string_buffer(256)  # larger than any glibc fenv_t
    if fegetenv(saved) != 0:
        yield
        return
    fesetenv(_FE_DFL_ENV)
    try:
        yield
    finally:
        fesetenv(saved)


class CallbackWarning(RuntimeWarning):
    """SciPy failed inside a callback; the affected outputs are NaN."""


def _fill(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.full(shape, np.nan, dtype=dtype)
    return np.zeros(shape, dtype=dtype)


def _as_output(value, dtype, shape):
    array = np.asarray(value)
    if array.shape != shape:
        array = np.broadcast_to(array, shape)
    # np.asarray(order="C") keeps 0-d arrays 0-d, unlike np.ascontiguousarray.
    return np.asarray(array, dtype=dtype, order="C")


def evaluate_calls(calls: tuple, *operands):
    """``calls``: ((qualname, statics, operand indices, output dtypes[, output shapes]), ...) -> flat outputs.

    Output shapes are given for functions of static arguments only; otherwise outputs broadcast.
    """
    try:
        arrays = [np.asarray(o) for o in operands]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
        _warn(calls[0][0] if calls else "?", exc)
        return tuple(_fill((), dt) for call in calls for dt in call[3])
    results = []
    for qualname, statics, indices, dtypes, *given in calls:
        shapes = given[0] if given else (shape,) * len(dtypes)
        try:
            function = lookup(qualname)
            with np.errstate(all="ignore"), _ieee_floating_point():
                out = function.scipy_callable()(*(arrays[i] for i in indices), **dict(statics))
            outs = out if isinstance(out, tuple) else (out,)
            if len(outs) != len(dtypes):
                raise ValueError(f"SciPy returned {len(outs)} outputs, the spec declares {len(dtypes)}")
            results.extend(_as_output(o, dt, s) for o, dt, s in zip(outs, dtypes, shapes))
        except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
            _warn(qualname, exc)
            results.extend(_fill(s, dt) for s, dt in zip(shapes, dtypes))
    return tuple(results)


def _warn(qualname: str, exc: BaseException) -> None:
    warnings.warn(f"jaxsci.{qualname}: SciPy raised {type(exc).__name__}: {exc}; the result is NaN",
                  CallbackWarning, stacklevel=2)
