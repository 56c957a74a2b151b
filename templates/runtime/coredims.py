"""Outputs with core dimensions sized by static arguments (``riccati_jn(n, x)``: n + 1 values per x).

Inside the core (the evaluation primitive, its batching and derivative rules, the host) the core
dimensions come last, after the loop dimensions, as in a NumPy gufunc: vmap's batch axis is then one
more loop dimension, and a tangent of the loop shape broadcasts against an output once it has
trailing axes of size 1. The public function moves them first, SciPy's ``(n + 1, *z.shape)``.
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax
import numpy as np


def core_shape(function, statics) -> tuple | None:
    """The core shape of ``function``'s outputs for the static values ``statics`` ((name, value), ...),
    or None for an elementwise function. Raises ValueError naming the static arguments when a size
    cannot be computed or is below 1."""
    if function.core_shape is None:
        return None
    values = dict(statics)
    used = ", ".join(f"{k}={v!r}" for k, v in values.items() if v is not None and not isinstance(v, (bool, str)))
    try:
        shape = tuple(function.core_shape(**values))
    except (ValueError, OverflowError, TypeError) as exc:  # floor(nan), floor(inf)
        raise ValueError(f"{function.public_name}: no output size for {used} ({exc})") from None
    if any(not isinstance(d, int) or d < 1 for d in shape):
        raise ValueError(f"{function.public_name}: {used} gives the outputs the core shape {shape}; each size must be "
                         "at least 1 (SciPy's own bound on these arguments)")
    return shape


def output_shapes(function, statics) -> tuple | None:
    """One core shape per output (all outputs share it), or None: the host calls' ``shapes`` entry."""
    shape = core_shape(function, statics)
    return None if shape is None else (shape,) * len(function.outputs)


def loop_dims(x, rank: int):
    """An argument of the loop shape, with ``rank`` trailing axes to broadcast against the outputs."""
    x = jnp.asarray(x)
    return x.reshape(x.shape + (1,) * rank)


def indices(value, rank: int) -> tuple:
    """The position along each of ``value``'s last ``rank`` axes, shaped to broadcast against it."""
    sizes = value.shape[value.ndim - rank:]
    return tuple(jnp.arange(size).reshape((size,) + (1,) * (rank - 1 - d)) for d, size in enumerate(sizes))


def shift(value, axis: int, offset: int):
    """``value`` at position i + offset along ``axis`` (a core axis, from the end): a rule's ``shift``
    (generator/shift.py). Positions outside the dimension are zero: the generator proves that no rule
    selects them (not NaN: reverse mode differentiates the branches ``where`` does not take)."""
    value = jnp.asarray(value)
    size = value.shape[axis]
    kept = max(size - abs(offset), 0)
    start = min(max(offset, 0), size)
    taken = lax.slice_in_dim(value, start, start + kept, axis=axis)
    pad = [(0, 0)] * value.ndim
    pad[axis] = (size - kept, 0) if offset < 0 else (0, size - kept)
    return jnp.pad(taken, pad)


def public(outputs: tuple, rank: int) -> tuple:
    """Core dimensions first, as SciPy returns them."""
    return tuple(jnp.moveaxis(o, tuple(range(o.ndim - rank, o.ndim)), tuple(range(rank))) for o in outputs)


def evaluate_into(function, statics: dict, arguments, outputs) -> None:
    """SciPy's values written into ``outputs`` (loop shape + core shape) on the host.

    The arguments go to SciPy in float64 (complex128). ``function.host_loop``: SciPy takes scalars only, so it is called once per element of the loop
    shape (all in this one callback). Otherwise it takes the arrays and returns the core dimensions
    leading. Either way the core shape SciPy returns must be the spec's: a size rule that disagrees
    with SciPy raises (NaN and a warning) instead of broadcasting a wrong shape.
    """
    # SciPy in float64: these functions' float32 loops compute in single precision, and riccati_jn's
    # returns NaN past its first value (riccati_jn(4, float32(1.5)))
    arguments = [a.astype(np.result_type(a.dtype, np.float64)) if a.dtype.kind in "fc" else a for a in arguments]
    host = function.scipy_callable()
    names = [a.name for a in function.traced_args]
    rank = function.core_rank
    loop = outputs[0].shape[:outputs[0].ndim - rank]
    core = outputs[0].shape[outputs[0].ndim - rank:]
    if not function.host_loop:
        values = _call_scipy(host, function, dict(zip(names, arguments)), statics)
        for value, output in zip(_tuple(values, len(outputs)), outputs):
            value = np.asarray(value)
            _check(function, value.shape[:rank], core)
            np.copyto(output, np.moveaxis(value, tuple(range(rank)), tuple(range(-rank, 0))), casting="unsafe")
        return
    valid = function.guard
    if valid is not None:  # the spec's guard, element by element: NaN where it fails
        host = host.__wrapped__
    # Python scalars, one element at a time, written into rows of the outputs seen as (elements, *core):
    # the per-element cost is SciPy's own call, not numpy indexing
    columns = [np.broadcast_to(a, loop).reshape(-1).tolist() for a in arguments]
    rows = [o.reshape((-1,) + core) for o in outputs]
    if any(not np.shares_memory(r, o) for r, o in zip(rows, outputs) if r.size):
        raise ValueError("the output buffers are not contiguous")
    count = len(outputs)
    rejected = False
    for i, scalars in enumerate(zip(*columns) if columns else [()]):
        if valid is not None:  # under the host's np.errstate(all="ignore")
            if not valid(*scalars):
                for row in rows:
                    row[i] = np.nan
                rejected = True
                continue
        values = _call_scipy(host, function, dict(zip(names, scalars)), statics)
        for value, row in zip(_tuple(values, count), rows):
            if np.shape(value) != core:
                _check(function, np.shape(value), core)
            row[i] = value
    report = function.report_raises() if rejected else None
    if report is not None:
        report(*arguments)


def _call_scipy(host, function, traced: dict, statics: dict):
    """SciPy's call in its own order: its static arguments may come first (lqn(n, z)), and its
    multi-ufuncs (legendre_p(n, z, *, diff_n=0)) take the arrays by position only."""
    values = {**traced, **statics}
    positional = [values[a.name] for a in function.args if not a.keyword_only]
    return host(*positional, **{a.name: values[a.name] for a in function.args if a.keyword_only})


def _tuple(values, count: int) -> tuple:
    values = values if isinstance(values, tuple) else (values,)
    if len(values) != count:
        raise ValueError(f"SciPy returned {len(values)} outputs, the spec declares {count}")
    return values


def _check(function, got: tuple, expected: tuple) -> None:
    if tuple(got) != tuple(expected):
        raise ValueError(f"SciPy returned the core shape {tuple(got)}, the spec's sizes give {tuple(expected)}")


__all__ = ["core_shape", "evaluate_into", "indices", "loop_dims", "output_shapes", "public", "shift"]
