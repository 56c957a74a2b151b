"""JAX's debugging flags for jaxsci's evaluations: ``jax_debug_nans`` and ``jax_debug_infs``.

JAX checks the outputs of every operation it applies eagerly, and of every ``jit`` call, and raises
``FloatingPointError("invalid value (nan) encountered in <name>")`` (``jax._src.dispatch.check_special``).
Under ``jit`` it checks only the outputs of the whole computation; when one is NaN or inf it runs the
function again op by op, without ``jit``, so that the operation that made the value raises
(``jax._src.api_util.maybe_recursive_nan_check``). An exception inside a host callback is undefined
behaviour, so a callback never checks anything: jaxsci's part is its eager evaluation (``transport``'s
direct call), which that op-by-op run reaches, and which raises naming the jaxsci function.

Unlike JAX's own operations, jaxsci raises only for a NaN (inf) that the evaluation made: an element
whose arguments already held one (``jv(nan, 1.0)``) passes, since SciPy's result there only carries
the caller's value along.
"""
from __future__ import annotations

import jax
import numpy as np

from .registry import lookup


def check(host_calls: tuple, arrays, outputs) -> None:
    """Raise ``FloatingPointError`` where a call of ``host_calls`` made a NaN (inf) from arguments without one.

    ``arrays`` and ``outputs`` are the numpy operands and flat results of an eager evaluation
    (``host.evaluate_calls``). Without either flag this reads two settings and returns.
    """
    nans, infs = jax.config.jax_debug_nans, jax.config.jax_debug_infs
    if not (nans or infs):
        return
    start = 0
    for qualname, _statics, indices, dtypes, shapes, _where in host_calls:
        results = outputs[start:start + len(dtypes)]
        start += len(dtypes)
        arguments = [np.asarray(arrays[i]) for i in indices]
        for enabled, kind, test in ((nans, "nan", np.isnan), (infs, "inf", np.isinf)):
            if enabled and any(_made(test, np.asarray(result), arguments, shapes is None) for result in results):
                # JAX's own message (jax._src.pjit, jax._src.api), naming the jaxsci function
                raise FloatingPointError(f"invalid value ({kind}) encountered in {lookup(qualname).public_name}")


def _made(test, result: np.ndarray, arguments, elementwise: bool) -> bool:
    """Whether ``result`` has an element that ``test`` flags while none of its arguments there does.

    ``elementwise``: the result has the arguments' broadcast shape (a call without given output shapes);
    otherwise (core dimensions, a reduction) the arguments are taken as a whole.
    """
    if result.dtype.kind not in "fc":
        return False
    flagged = test(result)
    if not flagged.any():
        return False
    inexact = [a for a in arguments if a.dtype.kind in "fc"]
    if not inexact:
        return True
    if not elementwise:
        return not any(test(a).any() for a in inexact)
    carried = np.zeros(result.shape, dtype=bool)
    for argument in inexact:
        carried |= test(argument)
    return bool((flagged & ~carried).any())
