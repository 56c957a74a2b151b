"""The entry point every generated function calls."""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from . import objects
from . import coredims, derived
from .config import config
from .evaluate import Call, Plan, evaluate, evaluate_constant, rule_tangents
from .promote import as_weak, no_tangent, prepare, weak_result, whole_statics
from .registry import Function


def call(fn: Function, *args):
    """Evaluate ``fn`` at ``args`` (SciPy's positional order, defaults already applied).

    Returns one array, or a tuple for a function with several outputs, in the public dtypes.
    """
    fn.require_scipy()
    if fn.frontend is not None:  # the spec's frontend: SciPy's checks and modes that are not a SciPy call
        return fn.frontend_callable()(fn, args, functools.partial(_core_call, fn))
    return _core_call(fn, args)


def refuse_numpy_keywords(fn: Function, keywords: dict) -> None:
    """SciPy forwards ``**kwargs`` to a numpy ufunc (softplus's to np.logaddexp); jaxsci cannot honour them."""
    short = fn.qualname.rpartition(".")[2]
    if "out" in keywords:
        raise TypeError(f"{fn.public_name}: out= is not supported: JAX arrays are immutable, so jaxsci cannot write "
                        f"into one; use the array it returns (y = {short}(x)), or y = y.at[index].set({short}(x)) to "
                        f"replace part of a JAX array. {fn.numpy_keywords}")
    if keywords:
        named = ", ".join(f"{k}=" for k in sorted(keywords))
        raise TypeError(f"{fn.public_name}: the numpy ufunc keywords {named} are not supported: jaxsci returns a new "
                        "JAX array, to which jax.numpy applies a mask (jnp.where) or a dtype (.astype). "
                        f"{fn.numpy_keywords}")


def _core_call(fn: Function, args: tuple):
    args = whole_statics(fn, args)
    for position, (spec, value) in enumerate(zip(fn.args, args)):
        if spec.sum_of is not None and isinstance(value, (bool, np.bool_)) and bool(value):
            return _with_sum(fn, args, position, spec.sum_of)
        if spec.eager is not None and isinstance(value, (bool, np.bool_)) and bool(value) == spec.eager:
            return _eager(fn, args, spec)
    outputs = _call(fn, args)
    traced = tuple(a for a, spec in zip(args, fn.args) if spec.traced)
    if not weak_result(fn, traced):
        return outputs
    return tuple(as_weak(o) for o in outputs) if isinstance(outputs, tuple) else as_weak(outputs)


def _with_sum(fn: Function, args: tuple, position: int, summed: str) -> tuple:
    """The outputs for the flag False, then the sum of output ``summed`` over its core dimension (the
    leading one): SciPy's ``mu=True`` of the Gauss rules, whose mu is the integral of the weight function,
    which SciPy scales the weights to sum to. Summed in JAX, it is differentiable wherever the weights are."""
    outputs = call(fn, *args[:position], False, *args[position + 1:])
    index = [out.name for out in fn.outputs].index(summed)
    return (*outputs, jnp.sum(outputs[index], axis=0))


def _call(fn: Function, args: tuple):
    omitted = tuple(spec.name for a, spec in zip(args, fn.args) if spec.optional and a is None)
    traced = tuple(a for a, spec in zip(args, fn.args) if spec.traced and spec.name not in omitted)
    statics = tuple(a for a, spec in zip(args, fn.args) if not spec.traced)
    operands, public_dtypes = prepare(fn, traced, statics)
    if fn.raises is not None:
        _raise_where_scipy_does(fn, operands)
    static_items = tuple((spec.name, _plain(value)) for spec, value in zip(fn.static_args, statics))
    # Optional arguments are trailing traced ones (the generator checks), so the operands keep their
    # positions; SciPy gets the omitted ones as keyword None.
    static_items += tuple((name, None) for name in omitted)
    if not traced:
        return _constant(fn, static_items, public_dtypes)
    order = dict(static_items)[fn.derivative_outputs[0]] if fn.derivative_outputs is not None else 0
    if order:  # SciPy's diff_n: the value with its derivatives (derived.py)
        return derived.with_derivatives(fn, args, operands, public_dtypes[0], order, call)
    if fn.native is not None and config.native and fn.native_callable() is not None and not any(jnp.iscomplexobj(o) for o in operands):
        present = tuple(spec for spec in fn.traced_args if spec.name not in omitted)
        return _native(fn, present, operands, statics, static_items, public_dtypes)
    coredims.core_shape(fn, static_items)  # a bad size is a ValueError here, not a host failure
    plan = Plan(calls=(Call(fn.qualname, static_items, tuple(range(len(operands)))),),
                keys=tuple(("arg", i) for i in range(len(operands))))
    (outputs,) = evaluate(plan, *operands)
    outputs = tuple(o if o.dtype == dt else o.astype(dt) for o, dt in zip(outputs, public_dtypes))
    if fn.core_rank:
        outputs = coredims.public(outputs, fn.core_rank)
    return outputs[0] if len(outputs) == 1 else outputs


def _raise_where_scipy_does(fn: Function, operands: tuple) -> None:
    """SciPy's ValueError for concrete invalid arguments (``roots_jacobi(3, -1.5, 0.5)``); traced ones
    are NaN there and the host reports the same error through ``jaxsci.errstate``."""
    import jax

    if any(isinstance(o, jax.core.Tracer) for o in operands):
        return
    condition, message = fn.raises
    with np.errstate(all="ignore"):
        # in float64, as the host compares: float32 would round the condition's constants
        raised = condition(*(np.asarray(o).astype(np.result_type(np.asarray(o).dtype, np.float64)) for o in operands))
    if np.any(raised):
        raise ValueError(f"{fn.public_name}: {message}")


def _native(fn: Function, traced_specs: tuple, operands: tuple, statics: tuple, static_items: tuple, public_dtypes):
    """The spec's native JAX implementation on the prepared operands (jaxsci's promotion and errors
    already applied), cast back to the public dtypes. The spec's own rules differentiate it, as on the
    callback path (JAX's rules for expit are 0 for x > 36, where the true derivative is exp(-x)); a
    tangent on an argument the spec marks not differentiable still raises ``NonDifferentiableError``."""
    guarded = []
    for spec, operand in zip(traced_specs, operands):
        if spec.kind in ("real", "complex") and not spec.differentiable:
            operand = no_tangent(fn.public_name, spec.name, spec.why or f"{spec.kind} arguments are not differentiable", operand)
        guarded.append(operand)
    # a static argument with a single supported value is fixed: the native function has that behaviour
    keywords = {spec.name: _plain(value) for spec, value in zip(fn.static_args, statics)
                if spec.choices is None or len(spec.choices) > 1}
    native = functools.partial(fn.native_callable(), **keywords)

    @jax.custom_jvp
    def differentiated_by_the_spec(*operands):
        outputs = native(*operands)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def jvp(primals, tangents):
        values = differentiated_by_the_spec(*primals)
        tangents = tuple(None if type(t) is SymbolicZero else t for t in tangents)
        totals = rule_tangents(fn, static_items, primals, values, tangents)
        return values, tuple(jnp.zeros_like(v) if t is None else t for v, t in zip(values, totals))

    differentiated_by_the_spec.defjvp(jvp, symbolic_zeros=True)
    outputs = differentiated_by_the_spec(*guarded)
    outputs = tuple(o if o.dtype == dt else o.astype(dt) for o, dt in zip(outputs, public_dtypes))
    return outputs[0] if len(outputs) == 1 else outputs


def _eager(fn: Function, args: tuple, switch):
    """SciPy's own result for concrete inputs (``exact=True``'s Python integers), as SciPy returns it."""
    import jax

    for spec, value in zip(fn.args, args):
        if spec.traced and isinstance(value, jax.core.Tracer):
            raise TypeError(f"{fn.public_name}: {switch.name}={switch.eager!r} needs concrete inputs, but argument "
                            f"{spec.name!r} is traced (under jit, vmap, grad or another transformation): "
                            f"{switch.why_eager}; use {switch.name}={not switch.eager!r}")
    values = {spec.name: np.asarray(value) if isinstance(value, jax.Array) else value for spec, value in zip(fn.args, args)}
    return fn.scipy_callable()(**values)


def _size(dim, sizes: dict) -> int:
    """An output size: an int, a static int's name, or ((coefficient, name or None), ...) for ``n - m + 1``."""
    if isinstance(dim, str):
        return sizes[dim]
    if isinstance(dim, tuple):
        return sum(c * (sizes[name] if name is not None else 1) for c, name in dim)
    return dim


def _constant(fn: Function, static_items: tuple, public_dtypes):
    """A function of static arguments only (``roots_legendre(n)``): output shapes follow from them,
    or from SciPy's result, computed here (``objects``)."""
    if any(out.dtype == "orthopoly1d" for out in fn.outputs):
        return objects.orthopoly(fn, dict(static_items))
    if any(out.shape == "eager" for out in fn.outputs):
        outputs = objects.eager_arrays(fn, dict(static_items), tuple(public_dtypes))
        return outputs[0] if len(outputs) == 1 else outputs
    sizes = dict(static_items)
    shapes = []
    for out in fn.outputs:
        shape = tuple(_size(d, sizes) for d in (out.shape or ()))
        if any(d < 0 for d in shape):
            raise ValueError(f"{fn.public_name}: output {out.name!r} would have the negative shape {shape}")
        shapes.append(shape)
    outputs = evaluate_constant(fn.qualname, static_items, tuple(public_dtypes), tuple(shapes))
    return outputs[0] if len(outputs) == 1 else outputs


def _plain(value):
    """Static values become plain Python values, so plans hash and compare by value."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (float, np.floating)):
        return float(value)
    return int(value)
