"""Functions of static arguments whose result JAX cannot describe before SciPy computes it.

- ``eager_arrays``: an output whose size only SciPy's result tells (``mathieu_even_coef(m, q)`` picks
  its number of coefficients from q). SciPy is called in Python when the function is called, which
  under ``jit`` is when it is traced, and its arrays become constants of the declared dtype.
- ``orthopoly``: SciPy's ``orthopoly1d`` (``legendre(n)``), a numpy ``poly1d`` with roots and weights,
  returned as SciPy's own object. SciPy evaluates it through a numpy ufunc, which JAX cannot trace;
  jaxsci gives it an evaluation that sends JAX values through jaxsci's own function (``eval_legendre``),
  so ``legendre(3)(x)`` works under ``jit``, ``vmap`` and ``grad``, and leaves everything else to SciPy.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .registry import Function


def _scipy(fn: Function, statics: dict):
    """SciPy's own result, with SciPy's own exceptions (``ValueError: q >=0``) naming the jaxsci function."""
    try:
        return fn.scipy_callable()(**statics)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{fn.public_name}: {exc}") from exc


def eager_arrays(fn: Function, statics: dict, dtypes: tuple):
    """SciPy's arrays for the static arguments ``statics``, as JAX constants in ``dtypes``."""
    out = _scipy(fn, statics)
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(fn.outputs):
        raise ValueError(f"{fn.public_name}: SciPy returned {len(outs)} outputs, the spec declares {len(fn.outputs)}")
    return tuple(jnp.asarray(np.asarray(value), dtype=dtype) for value, dtype in zip(outs, dtypes))


class _Evaluation:
    """An orthopoly1d's ``_eval_func``: JAX values go to jaxsci's function, anything else to SciPy's own
    evaluation (its ufunc, or the poly1d's coefficients where SciPy has none), unchanged."""

    __slots__ = ("poly", "scipy", "function", "arguments", "scale")

    def __init__(self, poly, scipy, function, arguments, scale):
        self.poly, self.scipy, self.function, self.arguments, self.scale = poly, scipy, function, arguments, scale

    def __call__(self, x):
        if isinstance(x, (jax.Array, jax.core.Tracer)):
            value = self.function(*(x if a is None else a for a in self.arguments))
            return value if self.scale == 1.0 else value * jnp.asarray(self.scale, dtype=value.dtype)
        return self.scipy(x) if self.scipy is not None else np.poly1d.__call__(self.poly, x)


def orthopoly(fn: Function, statics: dict):
    """SciPy's orthopoly1d for ``statics``, evaluating JAX values through jaxsci.

    ``fn.outputs[0].evaluates`` names the jaxsci function that computes the polynomial for monic=False
    (``eval_legendre(n, x)``). A monic polynomial is that one divided by its leading coefficient,
    read from SciPy's monic=False object (SciPy's own k_n: the same number its monic evaluation uses).
    """
    from importlib import import_module

    poly = _scipy(fn, statics)
    name, names = fn.outputs[0].evaluates
    module = fn.qualname.partition(".")[0]
    function = getattr(import_module(f"{__name__.rpartition('.')[0].rpartition('.')[0]}.{module}"), name)
    arguments = tuple(None if a == "x" else statics[a] for a in names)
    scale = 1.0 / float(_scipy(fn, {**statics, "monic": False}).coeffs[0]) if statics["monic"] else 1.0
    poly._eval_func = _Evaluation(poly, poly._eval_func, function, arguments, scale)
    return poly
