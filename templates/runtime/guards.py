"""Guards: SciPy sees only the inputs a spec's guard admits; every output is NaN at the others.

Some SciPy routines crash the interpreter (segmentation fault), abort, or never return for arguments
far outside their domain: the Zhang-Jin Mathieu and spheroidal wave codes behind ``mathieu_*``,
``pro_*`` and ``obl_*``, for huge or NaN parameters and orders near 2**31. An exception can be caught;
a crash cannot, so such inputs must never reach SciPy. A spec's ``guard.valid`` condition is printed
as numpy code into its generated module (``Function.guard``), and ``Function.scipy_callable()`` wraps
SciPy with ``guarded``. Every evaluation on the host goes through ``scipy_callable()``, the values a
derivative rule needs included, so they are all guarded.

Outside the guard the result is NaN, as SciPy returns for its own domain errors, and no warning is
given: the inputs are far outside the function's domain, where SciPy is unreliable if it returns at
all, and the NaN says so.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def guarded(scipy_function: Callable, valid: Callable, rejected: Callable | None = None) -> Callable:
    """``scipy_function`` evaluated only where ``valid(*args)`` holds, elementwise; NaN elsewhere.
    ``rejected(*args)``, if given, is called where some element is not admitted (it reports SciPy's
    ValueError for arguments SciPy refuses).

    ``args`` are SciPy's positional (traced) operands, numpy arrays that broadcast together; keyword
    arguments (static values) are passed through, and a ufunc's ``out=`` buffers are filled. Where every input is admitted, SciPy is called on
    the operands as they are; otherwise on the admitted elements only, as flat arrays of their dtypes,
    so each admitted element takes the same SciPy loop, and gets the same value, as without a guard.
    """

    def call(*args, out=None, **statics):
        if out is not None:  # a ufunc's out=: fill the caller's buffers
            statics["out"] = out
        with np.errstate(all="ignore"):
            admitted = np.asarray(valid(*args), dtype=bool)
        if admitted.all():
            return scipy_function(*args, **statics)
        if rejected is not None:
            with np.errstate(all="ignore"):
                rejected(*args)
        statics.pop("out", None)
        shape = np.broadcast_shapes(admitted.shape, *(np.shape(a) for a in args))
        admitted = np.broadcast_to(admitted, shape)
        result = scipy_function(*(np.broadcast_to(np.asarray(a), shape)[admitted] for a in args), **statics)
        results = tuple(_spread(np.asarray(r), admitted) for r in (result if isinstance(result, tuple) else (result,)))
        if out is not None:
            for buffer, values in zip(out if isinstance(out, tuple) else (out,), results):
                buffer[...] = values
            return out
        return results if isinstance(result, tuple) else results[0]

    call.__wrapped__ = scipy_function
    call.__name__ = getattr(scipy_function, "__name__", "scipy_function")
    return call


def _spread(values: np.ndarray, admitted: np.ndarray) -> np.ndarray:
    """The admitted elements' values in place, NaN elsewhere."""
    dtype = values.dtype if values.dtype.kind in "fc" else np.result_type(values.dtype, np.float64)
    result = np.full(admitted.shape, np.nan, dtype=dtype)
    result[admitted] = values
    return result
