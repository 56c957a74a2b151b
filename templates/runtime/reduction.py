"""Reductions and normalisations over an axis (logsumexp, softmax, log_softmax).

``reduce(fn, *args)`` validates ``axis`` as numpy does, promotes and broadcasts the traced arguments
together, and either calls the spec's native JAX function or binds ``jaxsci_reduce``: one host callback
that hands SciPy the whole array with ``axis`` as a tuple of non-negative indices. The primitive's
batching rule moves the batch axis first and shifts those indices by one, so ``vmap`` is still one
callback and never reduces over the batch. Its JVP rule calls the spec's rules (generated from
``derivatives``), which receive the outputs with the reduced axes kept (size 1) and a ``reduce``
that sums over those axes keeping them; their tangents are linear in ``t`` (the generator checks), so
JAX transposes them for reverse mode, and they use the primitive's own outputs, so every order works.
"""
from __future__ import annotations

import functools
import operator
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from .config import config
from .errors import NonDifferentiableError
from .promote import compute_dtype, no_tangent, output_dtype, prepare, real_dtype
from .registry import Function, lookup
from .evaluate import checked_rule
from .transport import host_callback


@dataclass(frozen=True)
class ReductionFunction(Function):
    """A function reduced over ``axis`` (with ``keepdims``), with outputs of the reduced shape or the input's."""

    axis: str = "axis"
    keepdims: str | None = None
    shapes: tuple = ()  # ((output name, "reduced" or "input"), ...)
    only_when: tuple = ()  # ((output name, ((static bool, value), ...)), ...): present only then
    real_when: tuple = ()  # ((output name, ((static bool, value), ...)), ...): of the real dtype then

    def scipy_callable(self):
        # SciPy's traced arguments after the first follow static ones (logsumexp(a, axis=None, b=None)),
        # so the host passes them by name.
        return functools.partial(_by_name, Function.scipy_callable(self), tuple(a.name for a in self.traced_args))


def _by_name(function, names, *arguments, **statics):
    return function(**dict(zip(names, arguments)), **statics)


def _holds(condition: tuple, statics: dict) -> bool:
    return all(statics.get(name) == value for name, value in condition)


def _real(fn: ReductionFunction, name: str, statics: dict) -> bool:
    condition = dict(fn.real_when).get(name)
    return condition is not None and _holds(condition, statics)


def normalize_axis(fn: Function, name: str, axis, ndim: int) -> tuple:
    """``axis`` (None, an int or a sequence of ints) as sorted non-negative indices, with numpy's errors."""
    if isinstance(axis, jax.core.Tracer):
        raise TypeError(f"{fn.public_name}: argument {name!r} must be a static Python value, not a traced array")
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    indices = []
    for item in items:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
            raise TypeError(f"{fn.public_name}: argument {name!r} must be None, an int or a tuple of ints, got {axis!r}")
        if not -ndim <= item < ndim:
            raise np.exceptions.AxisError(f"{fn.public_name}: argument {name!r}: axis {int(item)} is out of bounds "
                                          f"for array of dimension {ndim}")
        indices.append(int(item) % ndim)
    if len(set(indices)) != len(indices):
        raise ValueError(f"{fn.public_name}: argument {name!r}: duplicate value in 'axis' ({axis!r})")
    return tuple(sorted(indices))


def reduce(fn: ReductionFunction, *args):
    """Evaluate the reduction ``fn`` at ``args`` (SciPy's positional order, defaults applied)."""
    values = {spec.name: value for spec, value in zip(fn.args, args)}
    omitted = tuple(spec.name for spec in fn.args if spec.optional and values[spec.name] is None)
    present = tuple(spec for spec in fn.traced_args if spec.name not in omitted)
    statics = tuple(values[spec.name] for spec in fn.static_args)
    stripped = tuple(None if spec.kind == "static_axis" else value for spec, value in zip(fn.static_args, statics))
    operands, public = prepare(fn, tuple(values[spec.name] for spec in present), stripped)
    operands, public = _as_scipy_promotes(fn, tuple(values[spec.name] for spec in present), operands, public)
    operands = tuple(jnp.broadcast_arrays(*operands)) if len(operands) > 1 else tuple(operands)
    # SciPy takes a 0-d input as 1-d: axis 0 is valid, and keepdims gives shape (1,)
    scalar = operands[0].ndim == 0
    operands = tuple(jnp.reshape(o, (1,)) for o in operands) if scalar else operands
    ndim = operands[0].ndim
    axes = normalize_axis(fn, fn.axis, values[fn.axis], ndim)
    items = {spec.name: _plain(value) for spec, value in zip(fn.static_args, statics)}
    items[fn.axis] = axes
    items.update((name, None) for name in omitted)
    outputs = [(out, dt) for out, dt in zip(fn.outputs, public)
               if _holds(dict(fn.only_when).get(out.name, ()), items)]
    dtypes = tuple(real_dtype(dt) if _real(fn, out.name, items) else dt for out, dt in outputs)
    if fn.native is not None and config.native and fn.native_callable() is not None and not any(jnp.iscomplexobj(o) for o in operands):
        return _unwrap(_native(fn, present, operands, items, dtypes), fn, outputs, scalar)
    # operands are in the compute dtype already (float16 is computed in float32)
    compute = tuple(real_dtype(operands[0].dtype) if _real(fn, out.name, items) else operands[0].dtype for out, _ in outputs)
    results = _reduce_p.bind(*operands, qualname=fn.qualname, statics=tuple(items.items()),
                             dtypes=tuple(np.dtype(d) for d in compute), transport=config.callback)
    results = tuple(r if r.dtype == dt else r.astype(dt) for r, dt in zip(results, dtypes))
    return _unwrap(results, fn, outputs, scalar)


def _as_scipy_promotes(fn: ReductionFunction, given: tuple, operands: tuple, public: tuple):
    """SciPy's result dtype for logsumexp, within JAX's dtypes: SciPy promotes ``a`` and ``b`` as numpy
    does (float32 with an int64 ``b`` is float64) and takes integers as the default float (float64),
    where JAX's promotion keeps float32 and makes int8 float32. Python scalars are weak in both."""
    if fn.qualname != "special.logsumexp":  # softmax and log_softmax follow numpy's exp (int8 is float16 there)
        return operands, public
    python_scalar = lambda v: isinstance(v, (int, float, complex)) and not isinstance(v, np.generic)  # noqa: E731
    arrays = [v for v in given if v is not None and not python_scalar(v)]
    try:
        dtypes = [np.dtype(jnp.result_type(v)) for v in arrays]
        wanted = np.result_type(*dtypes) if dtypes else None
    except TypeError:  # bfloat16 and other dtypes numpy does not promote: JAX's promotion
        return operands, public
    if wanted is None:
        return operands, public
    if wanted.kind in "biu":
        wanted = np.dtype(np.float64)
    wanted = np.dtype(jax.dtypes.canonicalize_dtype(wanted))
    promoted = np.dtype(jnp.result_type(*(o.dtype for o in operands)))
    if wanted == public[0] or wanted.kind not in "fc" or not jnp.issubdtype(promoted, jnp.inexact):
        return operands, public
    computed = compute_dtype(wanted)
    operands = tuple(o.astype(computed if jnp.iscomplexobj(o) else real_dtype(computed)) for o in operands)
    return operands, tuple(output_dtype(out.dtype, wanted) for out in fn.outputs)


def _unwrap(results: tuple, fn: ReductionFunction, outputs: list, scalar: bool):
    """One array or a tuple; outputs of the input's shape are 0-d again for a 0-d input."""
    if scalar:
        shapes = dict(fn.shapes)
        results = tuple(jnp.reshape(r, ()) if shapes[out.name] == "input" else r for r, (out, _) in zip(results, outputs))
    return results[0] if len(results) == 1 else results


def _native(fn: ReductionFunction, present: tuple, operands: tuple, items: dict, dtypes: tuple):
    guarded = [no_tangent(fn.public_name, spec.name, spec.why, operand) if not spec.differentiable else operand
               for spec, operand in zip(present, operands)]
    keywords = {spec.name: items[spec.name] for spec in fn.static_args}
    names = tuple(spec.name for spec in present[1:])

    # The spec's rules differentiate the native values, as on the callback path: jax's logsumexp
    # drops the elements whose weight b is 0 before exponentiating, so its d/db there is 0, not
    # exp(a - logsumexp(a, b)).
    @jax.custom_jvp
    def differentiated_by_the_spec(*operands):
        outputs = fn.native_callable()(operands[0], **keywords, **dict(zip(names, operands[1:])))
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def jvp(primals, tangents):
        outs = differentiated_by_the_spec(*primals)
        totals = _rule_tangents(fn, items, primals, outs, tuple(None if type(t) is SymbolicZero else t for t in tangents))
        return outs, tuple(jnp.zeros_like(v) if t is None else t for v, t in zip(outs, totals))

    differentiated_by_the_spec.defjvp(jvp, symbolic_zeros=True)
    outputs = differentiated_by_the_spec(*guarded)
    return tuple(o if o.dtype == dt else o.astype(dt) for o, dt in zip(outputs, dtypes))


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


# ---- the primitive -----------------------------------------------------------------------------------
def _output_shapes(fn: ReductionFunction, shape: tuple, statics: dict) -> tuple:
    axes = statics[fn.axis]
    keep = bool(statics.get(fn.keepdims, False))
    reduced = tuple(1 if k in axes else d for k, d in enumerate(shape)) if keep else tuple(
        d for k, d in enumerate(shape) if k not in axes)
    shapes = dict(fn.shapes)
    return tuple(reduced if shapes[out.name] == "reduced" else tuple(shape) for out in fn.outputs
                 if _holds(dict(fn.only_when).get(out.name, ()), statics))


def _host_reduce(*operands, qualname: str, statics: tuple, dtypes: tuple, transport: str):
    fn = lookup(qualname)
    shapes = _output_shapes(fn, operands[0].shape, dict(statics))
    host_calls = ((qualname, statics, tuple(range(len(operands))), dtypes, shapes, ()),)
    result_types = tuple(jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes))
    return host_callback(host_calls, result_types, operands, fn.vmap_method, transport, elementwise=False)


def _abstract(*avals, qualname: str, statics: tuple, dtypes: tuple, transport: str):
    shapes = _output_shapes(lookup(qualname), avals[0].shape, dict(statics))
    return tuple(jax.core.ShapedArray(s, d) for s, d in zip(shapes, dtypes))


def _batched(operands, dims, *, qualname: str, statics: tuple, dtypes: tuple, transport: str):
    # The batch axis goes first in every operand (broadcast into the unbatched ones, which must keep
    # the batched ones' shape), and the reduced axes move one along: still one callback.
    size = next(o.shape[d] for o, d in zip(operands, dims) if d is not None)
    moved = []
    for o, d in zip(operands, dims):
        o = jnp.asarray(o)
        moved.append(jnp.broadcast_to(o, (size,) + o.shape) if d is None else jnp.moveaxis(o, d, 0))
    fn = lookup(qualname)
    items = dict(statics)
    items[fn.axis] = tuple(k + 1 for k in items[fn.axis])
    outs = _reduce_p.bind(*moved, qualname=qualname, statics=tuple(items.items()), dtypes=dtypes, transport=transport)
    return outs, [0] * len(outs)


def _kept(fn: ReductionFunction, value, name: str, statics: dict):
    """An output with the reduced axes kept as size 1, so it broadcasts against the arguments."""
    if dict(fn.shapes)[name] == "reduced" and not statics.get(fn.keepdims, False):
        return jnp.expand_dims(value, statics[fn.axis])
    return value


def _jvp(primals, tangents, *, qualname: str, statics: tuple, dtypes: tuple, transport: str):
    outs = _reduce_p.bind(*primals, qualname=qualname, statics=statics, dtypes=dtypes, transport=transport)
    totals = _rule_tangents(lookup(qualname), dict(statics), primals, outs,
                            tuple(None if type(t) is ad.Zero else t for t in tangents))
    return outs, [ad.Zero(jax.typeof(v).to_tangent_aval()) if t is None else t for v, t in zip(outs, totals)]


def _rule_tangents(fn: ReductionFunction, items: dict, primals: tuple, outs: tuple, tangents: tuple) -> list:
    """The tangents of ``outs`` (computed by the host or natively) by the spec's rules; None where no
    tangent (None in ``tangents``) reaches an output."""
    names = [out.name for out in fn.outputs if _holds(dict(fn.only_when).get(out.name, ()), items)]
    kept = tuple(_kept(fn, value, name, items) for value, name in zip(outs, names))
    condition = tuple(sorted((k, v) for k, v in items.items() if k != fn.keepdims and (isinstance(v, bool) or v is None)))
    rules = fn.rules.get(condition, {})
    axes = items[fn.axis]

    def reduce_sum(x):
        return jnp.sum(x, axis=axes, keepdims=True)

    present = [a for a in fn.traced_args if items.get(a.name, 0) is not None]
    totals = [None] * len(outs)
    for index, (arg, tangent) in enumerate(zip(present, tangents)):
        if tangent is None:
            continue
        rule = checked_rule(fn, rules, index, arg)
        for k, term in enumerate(rule(*primals, kept, tangent, reduce_sum)):
            if term is None:
                continue
            if jnp.iscomplexobj(term) and not jnp.iscomplexobj(outs[k]):
                term = jnp.real(term)
            term = jnp.reshape(jnp.broadcast_to(term, kept[k].shape), outs[k].shape).astype(outs[k].dtype)
            totals[k] = term if totals[k] is None else totals[k] + term
    return totals


_reduce_p = Primitive("jaxsci_reduce")
_reduce_p.multiple_results = True
_reduce_p.def_impl(_host_reduce)
_reduce_p.def_abstract_eval(_abstract)
mlir.register_lowering(_reduce_p, mlir.lower_fun(_host_reduce, multiple_results=True))
batching.primitive_batchers[_reduce_p] = _batched
ad.primitive_jvps[_reduce_p] = _jvp
