"""Trace-time argument handling: validation, JAX-style promotion, and rank alignment.

Errors here name the function and the argument and are raised while tracing, before any callback.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .errors import NonDifferentiableError
from .registry import Function

_HOST_FLOATS = (np.dtype("float32"), np.dtype("float64"), np.dtype("complex64"), np.dtype("complex128"))


@functools.lru_cache(maxsize=None)
def _inexact(dtype: np.dtype) -> np.dtype:
    """JAX's own non-inexact -> inexact mapping (``jnp.sin`` applies ``promote_args_inexact``)."""
    return np.dtype(jax.eval_shape(jnp.sin, jax.ShapeDtypeStruct((), dtype)).dtype)


def _as_array(fn: Function, name: str, value):
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{fn.public_name}: argument {name!r} must be a number or an array, got {type(value).__name__}")
    if isinstance(value, jax.Array) or hasattr(value, "aval"):
        return value
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{fn.public_name}: argument {name!r} cannot be converted to an array: {exc}") from None
    if array.dtype.kind in "fc" and array.dtype.itemsize > np.dtype(np.complex128 if array.dtype.kind == "c" else np.float64).itemsize:
        raise TypeError(f"{fn.public_name}: argument {name!r} has dtype {array.dtype} (numpy's long double), which JAX "
                        "has no dtype for: JAX's floats are at most 64-bit; convert it with .astype(np.float64) "
                        "(SciPy would compute in long double where it has such a loop)")
    if array.dtype == object or array.dtype.kind in "USVMm":
        raise TypeError(f"{fn.public_name}: argument {name!r} must be numeric, got {type(value).__name__} of dtype {array.dtype}")
    # Python scalars stay Python scalars so that they promote as weak types, as in jax.numpy.
    return value if isinstance(value, (bool, int, float, complex, np.ndarray, np.generic)) else array


def _dtype(value) -> np.dtype:
    if isinstance(value, (list, tuple)):  # jnp.result_type reads a list as a structured dtype's fields
        return np.asarray(value).dtype
    return np.dtype(jnp.result_type(value))


def _is_weak(value) -> bool:
    """JAX's weak type: a Python int, float or complex (not bool, not a numpy scalar), or a JAX value
    made from one."""
    if isinstance(value, np.generic):  # np.float64 subclasses float but is strongly typed in JAX
        return False
    if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
        return True
    aval = getattr(value, "aval", None)
    return bool(getattr(aval, "weak_type", getattr(value, "weak_type", False)))


def weak_result(fn: Function, traced: tuple) -> bool:
    """Whether the outputs are weakly typed, as ``jnp.sin(2.0)`` and jax.scipy's ``gammaln(2.0)`` are:
    when every argument that takes part in the promotion is weak (integer orders, which do not, count
    only for a function that has nothing else)."""
    promoting = [value for arg, value in zip(fn.traced_args, traced)
                 if value is not None and (arg.kind != "integer" or _is_float(value))]
    considered = promoting or [value for value in traced if value is not None]
    return bool(considered) and all(_is_weak(value) for value in considered)


def _is_float(value) -> bool:
    return jnp.issubdtype(_dtype(value), jnp.inexact)


def as_weak(output):
    """``output`` marked weakly typed (the same values and dtype), so that ``gamma(2.0) * x32`` stays
    float32 with x64 on, as JAX's own functions do. An integer output (jnjnp_zeros' indices) is left alone."""
    if not jnp.issubdtype(output.dtype, jnp.inexact):
        return output
    from jax._src.lax import lax as lax_internal  # the weak_type switch jax.numpy itself uses

    return lax_internal._convert_element_type(output, output.dtype, weak_type=True)


def real_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(jnp.finfo(dtype).dtype) if jnp.issubdtype(dtype, jnp.complexfloating) else np.dtype(dtype)


def complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(jnp.result_type(dtype, jnp.complex64))


@functools.lru_cache(maxsize=None)
def compute_dtype(public: np.dtype) -> np.dtype:
    """SciPy has float32/float64 loops only: narrower floats are computed in float32."""
    if public in _HOST_FLOATS:
        return public
    return np.dtype("complex64") if jnp.issubdtype(public, jnp.complexfloating) else np.dtype("float32")


def prepare(fn: Function, traced: tuple, statics: tuple):
    """Validate and promote the traced arguments.

    Returns the operands (rank-aligned, in compute dtypes) and the public dtype of each output.
    """
    values = [_as_array(fn, arg.name, value) for arg, value in zip(fn.traced_args, traced)]
    for arg, value in zip(fn.static_args, statics):
        _check_static(fn, arg, value)
    inexact = []
    for arg, value in zip(fn.traced_args, values):
        dtype = _dtype(value)
        kind = np.dtype(dtype).kind if dtype != jnp.bfloat16 else "f"
        if arg.kind == "integer":
            if kind == "f" and arg.accepts_float:
                inexact.append(value)
            elif kind not in "iub":
                detail = "a float (SciPy has no float loop for it)" if kind == "f" else f"dtype {dtype}"
                raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be an integer array, got {detail}")
            continue
        if kind == "c" and arg.kind != "complex":
            # a ufunc without a complex loop, or a function whose complex results are wrong (pbdn_seq's z)
            why = "SciPy has no complex loop for it" if fn.scipy_is_ufunc else "see its docstring"
            raise TypeError(f"{fn.public_name}: argument {arg.name!r} does not accept complex values ({why}), got {dtype}")
        if kind not in "iubfc":
            raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be real or complex numbers, got dtype {dtype}")
        inexact.append(value)
    promoted = jnp.result_type(*inexact) if inexact else jnp.result_type(float)
    promoted = np.dtype(promoted)
    if not jnp.issubdtype(promoted, jnp.inexact):
        promoted = _inexact(promoted)
    computed = compute_dtype(promoted)
    operands = []
    for arg, value in zip(fn.traced_args, values):
        dtype = _dtype(value)
        if arg.kind == "integer" and not jnp.issubdtype(dtype, jnp.floating):
            target = dtype if jnp.issubdtype(dtype, jnp.integer) else np.dtype(jnp.int_)  # booleans count as integers
            _check_fits(fn, arg.name, value, target)
        elif arg.kind == "integer" and arg.truncates_float:
            # SciPy truncates a float order; truncating here too keeps values unchanged and lets the
            # derivative rules, which multiply by the order, see the order SciPy used. The function is
            # then piecewise constant in it, and a tangent on it raises, as for every argument SciPy
            # floors or truncates (one policy: never jnp.trunc's silent zero).
            order = no_tangent(fn.public_name, arg.name, TRUNCATED_WHY, jnp.asarray(value, dtype=real_dtype(computed)))
            operands.append(jnp.trunc(order))
            continue
        elif arg.kind == "integer":
            target = real_dtype(computed)  # SciPy's float loop takes the value as it is
        elif arg.kind == "complex":
            target = computed
        else:
            target = real_dtype(computed)
        operands.append(jnp.asarray(value, dtype=target))
    shapes = [np.shape(o) for o in operands]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        described = ", ".join(f"{a.name} {tuple(s)}" for a, s in zip(fn.traced_args, shapes))
        raise ValueError(f"{fn.public_name}: argument shapes do not broadcast: {described}") from None
    rank = max((len(s) for s in shapes), default=0)
    # pure_callback's expand_dims batching needs operands of equal rank; size-1 axes cost nothing to send.
    operands = [jnp.reshape(o, (1,) * (rank - o.ndim) + o.shape) if o.ndim < rank else o for o in operands]
    public = tuple(output_dtype(out.dtype, promoted) for out in fn.outputs)
    return tuple(operands), public


def _check_fits(fn: Function, name: str, value, target: np.dtype) -> None:
    """A concrete integer that ``target`` cannot hold (an int64 order with x64 off, where JAX's integers
    are 32-bit) would wrap silently in ``jnp.asarray``: eval_legendre(2**32 + 3, x) would be P_3(x)."""
    if not isinstance(value, (np.ndarray, np.generic)) or value.dtype.kind not in "iu" or not value.size:
        return  # Python ints are checked by JAX itself (OverflowError); jax arrays already have JAX's dtype
    info = np.iinfo(target)
    low, high = value.min(), value.max()
    if low < info.min or high > info.max:
        bad = low if low < info.min else high
        raise OverflowError(
            f"{fn.public_name}: argument {name!r} has the value {int(bad)}, which does not fit in {target} "
            f"(with jax_enable_x64 off, JAX's integers are 32-bit and it would wrap to {int(np.asarray(bad).astype(target))}); "
            "enable x64 with jax.config.update('jax_enable_x64', True)")


def output_dtype(rule: str, promoted: np.dtype) -> np.dtype:
    if rule == "complex":
        return complex_dtype(promoted)
    if rule == "real":
        return real_dtype(promoted)
    if rule == "int32":  # an integer output of a function of static arguments (jnjnp_zeros' indices)
        return np.dtype("int32")
    return np.dtype(promoted)


def operand_dtype(operands) -> np.dtype:
    """The promoted dtype of already-prepared operands (integer operands do not take part)."""
    inexact = [o.dtype for o in operands if jnp.issubdtype(o.dtype, jnp.inexact)]
    return np.dtype(jnp.result_type(*inexact)) if inexact else np.dtype(jnp.result_type(float))


def whole_statics(fn: Function, args: tuple) -> tuple:
    """``args`` as SciPy reads its flags and sizes: a whole-number float given for a static int that
    accepts one (``roots_jacobi(3.0, ...)``) becomes the int, and the int 0 or 1 for a static bool
    (``y0_zeros(3, complex=1)``, SciPy tests its truth) becomes False or True, so that sizes and plans
    see plain values; other values are checked later, with the other statics."""
    def plain(spec, value):
        if spec.kind == "static_int" and spec.accepts_float and isinstance(value, (float, np.floating)) and float(value).is_integer():
            return int(value)
        if spec.kind == "static_bool" and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value in (0, 1):
            return bool(value)
        return value

    return tuple(plain(spec, value) for spec, value in zip(fn.args, args))


def _check_static(fn: Function, arg, value) -> None:
    if isinstance(value, jax.core.Tracer):
        raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be a static Python value, not a traced array")
    if arg.kind == "static_bool" and not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be True or False, got {value!r}")
    if arg.kind == "static_int" and arg.accepts_float and isinstance(value, (float, np.floating)):
        if not float(value).is_integer():  # NaN and inf too
            raise ValueError(f"{fn.public_name}: argument {arg.name}={value!r} must be an integer (SciPy accepts a "
                             "float only with an integer value)")
        value = int(value)
    if arg.kind == "static_int" and (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))):
        raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be a Python int, got {value!r}")
    if arg.kind == "static_float" and (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))):
        raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be a Python float, got {value!r}")
    if arg.kind == "static_str" and not isinstance(value, str):
        raise TypeError(f"{fn.public_name}: argument {arg.name!r} must be a string, got {value!r}")
    if arg.minimum is not None and not value >= arg.minimum:  # NaN fails too
        raise ValueError(f"{fn.public_name}: argument {arg.name}={value!r} is not >= {arg.minimum!r}: {arg.why_minimum}")
    if arg.choices is not None and value not in arg.choices:
        allowed = ", ".join(map(repr, arg.choices))
        raise ValueError(f"{fn.public_name}: argument {arg.name}={value!r} is not supported (supported: {allowed}): {arg.why_choices}")


TRUNCATED_WHY = ("SciPy truncates a float value of it to an integer, so the function is piecewise constant in it: "
                 "its derivative is zero between integers and undefined at them")


@functools.partial(jax.custom_jvp, nondiff_argnums=(0, 1, 2))
def no_tangent(function: str, argument: str, reason: str, x):
    """The identity; JAX calls its JVP rule only when a tangent reaches ``x``, at any order."""
    return x


@no_tangent.defjvp
def _no_tangent_jvp(function, argument, reason, primals, tangents):
    raise NonDifferentiableError(function, argument, reason)

