"""The factorial family's frontend (``frontend:`` in specs/special/factorial.yaml, factorial2.yaml and
factorialk.yaml): every call of ``factorial``, ``factorial2`` and ``factorialk`` comes here first.

- SciPy's argument checks, as SciPy makes them and in its order (``scipy.special._basic``'s shared
  wrapper): ``extend`` must be 'zero' or 'complex'; ``exact=True`` excludes 'complex'; ``k`` must be an
  int (or, with 'complex', a float or complex number, not 0); ``n`` must be integers, floats or complex
  numbers, non-integer dtypes only with 'complex' (factorial also takes floats with 'zero'). Each is the
  ``ValueError`` SciPy raises, where the core alone would raise ``TypeError`` or return NaN.
- An empty ``n`` is returned unchanged, in its own dtype, as SciPy returns it.
- ``extend='complex'`` continues the multifactorial to real and complex n through the gamma function,
  computed in JAX from ``jaxsci.special.gamma``, so that it is differentiable in n (real and complex) at
  every order by gamma's own rules. With k = 1 it is Gamma(n + 1) (DLMF 5.2.1); otherwise the canonical
  continuation with f(1) = 1, n!(k) = k^((n - 1)/k) Gamma(n/k + 1) / Gamma(1/k + 1) (SciPy's factorialk
  notes; https://en.wikipedia.org/wiki/Double_factorial#Alternative_extension_of_the_multifactorial).
  At the poles, where n/k is a negative integer, the value is NaN (SciPy's gh-21827: NaN at n/k = -1
  too, where Gamma(0) would be inf), and so are its derivatives.

Every other call (``extend='zero'``, and ``exact=True``'s SciPy integers) goes on to the core.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .promote import _inexact, _is_weak, as_weak, complex_dtype

_EXTENDS = ("zero", "complex")


def factorial(fn, args: tuple, proceed):
    n, exact, extend = args
    return _factorialx(fn, "factorial", n, 1, exact, extend, args, proceed)


def factorial2(fn, args: tuple, proceed):
    n, exact, extend = args
    return _factorialx(fn, "factorial2", n, 2, exact, extend, args, proceed)


def factorialk(fn, args: tuple, proceed):
    n, k, exact, extend = args
    return _factorialx(fn, "factorialk", n, k, exact, extend, args, proceed)


def _number_kind(dtype) -> str | None:
    """'i', 'f' or 'c' for SciPy's permitted integer, floating and complex dtypes; None for any other
    (booleans, objects, strings, dates), which SciPy rejects."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return None
    for kind, family in (("i", jnp.integer), ("f", jnp.floating), ("c", jnp.complexfloating)):
        if jnp.issubdtype(dtype, family):
            return kind
    return None


def _dtype_of(value):
    """The dtype SciPy classifies ``value`` by: a scalar's type, an array's dtype (a list as numpy reads it)."""
    if hasattr(value, "dtype"):
        return value.dtype
    if isinstance(value, (bool, int, float, complex)):
        return type(value)
    try:
        return np.asarray(value).dtype
    except (TypeError, ValueError):
        return np.dtype(object)


def _factorialx(fn, fname: str, n, k, exact, extend, args: tuple, proceed):
    name = fn.public_name
    if not isinstance(extend, str) or extend not in _EXTENDS:
        raise ValueError(f"{name}: argument `extend` must be either 'zero' or 'complex', received: {extend}")
    exact_on = isinstance(exact, (bool, np.bool_, int, np.integer)) and bool(exact)  # SciPy tests its truth
    if exact_on and extend == "complex":
        raise ValueError(f"{name}: Incompatible options: `exact=True` and `extend='complex'`")
    permitted = ("Permitted data types are integers and floating point numbers, as well as complex numbers if "
                 "`extend='complex'` is passed." if fname == "factorial" else
                 "Permitted data types are integers, as well as floating point numbers and complex numbers if "
                 "`extend='complex'` is passed.")
    needs_complex = ("In order to use non-integer arguments, you must opt into this by passing `extend='complex'`. "
                     "Note that this changes the result for all negative arguments (which by default return 0).")
    if fname == "factorial2":
        needs_complex += " Additionally, it will rescale the values of the double factorial at even integers by a factor of sqrt(2/pi)."
    elif fname == "factorialk":
        needs_complex += " Additionally, it will perturb the values of the multifactorial at most positive integers `n`."
        # k is static (a Python or numpy number): SciPy classifies it by its type
        k_kind = _number_kind(type(k)) if isinstance(k, (int, float, complex, np.generic)) else None
        if k_kind is None:
            raise ValueError(f"{name}: Unsupported data type for `k` in {fname}: {type(k)}\n{permitted}")
        if k_kind in "fc" and extend != "complex":
            raise ValueError(f"{name}: {needs_complex}")
        if extend == "zero" and k < 1:
            raise ValueError(f"{name}: For `extend='zero'`, k must be a positive integer, received: {k}")
        if k == 0:
            raise ValueError(f"{name}: Parameter k cannot be zero!")
    if n is None:  # SciPy's NaN for None (a scalar only: None in a list makes an object array)
        return proceed(args) if exact_on else as_weak(jnp.asarray(jnp.nan, dtype=_inexact(np.dtype(int))))
    dtype = _dtype_of(n)
    kind = _number_kind(dtype)
    if kind is None:
        shown = type(n) if isinstance(n, np.generic) else dtype  # SciPy names a scalar's type
        raise ValueError(f"{name}: Unsupported data type for `n` in {fname}: {shown}\n{permitted}")
    if kind in ("c" if fname == "factorial" else "fc") and extend != "complex":
        raise ValueError(f"{name}: {needs_complex}")
    if exact_on:
        # SciPy's exact integers, and its ValueError for floats (NaN scalars are its NaN), for concrete
        # inputs only: the core's TypeError says so under a trace
        return proceed(args)
    if np.ndim(n) and np.size(n) == 0:
        return n if hasattr(n, "aval") else jnp.asarray(n)  # as SciPy returns it: unchanged
    if extend == "complex":
        return _continued(n, k)
    return proceed(args)


def _continued(n, k):
    """The multifactorial of order k continued through the gamma function (the module's docstring), in JAX."""
    from ..special import gamma  # jaxsci.special imports the core: imported when first used

    weak = _is_weak(n)
    x = n if hasattr(n, "aval") else jnp.asarray(n)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(_inexact(np.dtype(x.dtype)))  # JAX's promotion of integers (promote_args_inexact)
    k = k.item() if isinstance(k, np.generic) else k  # a Python number: it does not change x's dtype
    if k == 1:
        out = _nan_at_minus_one(x, gamma(x + 1))
    else:
        # a negative or complex order has a complex power, as SciPy's np.power(..., dtype=complex)
        complex_power = isinstance(k, complex) or k < 0
        if complex_power:
            x = x.astype(complex_dtype(np.dtype(x.dtype)))
        base = complex(k) if complex_power else float(k)
        ratio = x / k
        out = jnp.power(base, ratio) * _nan_at_minus_one(ratio, gamma(ratio + 1)) * _order_scale(base)
    return as_weak(out) if weak else out


def _nan_at_minus_one(z, gamma_of_z_plus_one):
    """NaN at the pole z = -1 for real z, where Gamma(0) is inf (SciPy's gh-21827; the other poles are NaN)."""
    if jnp.issubdtype(z.dtype, jnp.complexfloating):
        return gamma_of_z_plus_one
    return jnp.where(z == -1, jnp.nan, gamma_of_z_plus_one)


def _order_scale(k):
    """1 / (Gamma(1/k + 1) k^(1/k)), the constant that makes f(1) = 1: a Python number, computed on the
    host in float64 (complex128 for a complex k) when the function is traced."""
    import scipy.special as sc

    value = sc.rgamma(1 / k + 1) / np.power(k, 1 / k)
    return complex(value) if isinstance(k, complex) else float(value)
