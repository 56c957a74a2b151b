"""Explicit derivative rules checked against mpmath, for specs without a sympy definition.

Where sympy cannot say what a function is, the spec's ``reference.mpmath`` can: at a few points of the
test domain the rule, evaluated in float64 by the very functions it calls (SciPy's, and jaxsci's own
derivative kernels read from templates/runtime/kernels/), must agree with mpmath's numerical
derivative of the reference. The tolerance is loose (float64 evaluation of SciPy, kernels accurate to
about 1e-9): the check catches a wrong formula (a sign, a missing term, a wrong neighbour), not last
digits, which the gradient suite measures. It runs with the rest of the derivation, so its result is
kept in the derive cache with the spec.
"""
from __future__ import annotations

import builtins
import cmath
import functools
import importlib.util
import random
import warnings
from pathlib import Path

import sympy
from sympy.core.function import AppliedUndef

from . import model
from .errors import SpecError
from .scipycheck import REFERENCE_BUILTINS, resolve

POINTS = 2  # sample points per rule (a wrong formula disagrees almost everywhere; the suite checks many more)
RTOL = 1e-6
DPS = 20
_KERNELS = Path(__file__).resolve().parent.parent / "templates" / "runtime" / "kernels"


class _Unavailable(Exception):
    """Something in the rule cannot be evaluated numerically here."""


@functools.lru_cache(maxsize=None)
def _kernel_module(family: str):
    path = _KERNELS / f"{family}.py"
    spec = importlib.util.spec_from_file_location(f"_jaxsci_generator_kernels_{family}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _host_function(spec: model.Spec):
    if spec.module == model.KERNELS:
        family, name = spec.scipy.split(".")[-2:]
        return getattr(_kernel_module(family), name)
    function = resolve(spec.scipy)
    if function is None:
        raise _Unavailable(spec.scipy)
    return function


def _number(value) -> complex:
    value = complex(value)
    if not cmath.isfinite(value):
        raise _Unavailable("not finite")
    return value


def _argument(arg: model.Arg, value: complex):
    if arg.kind == "integer":
        return int(round(value.real))
    return value.real if arg.kind == "real" or value.imag == 0 else value


def evaluate(catalog, expr, values: dict) -> complex:
    """``expr`` at ``values`` (symbol -> number), every spec'd call made by its host function in float64."""
    import numpy as np

    replacements = {}
    for call in expr.atoms(AppliedUndef):
        info = catalog.info(call)
        if info is None:
            raise _Unavailable(str(call))
        arguments = [_argument(a, evaluate(catalog, v, values)) for a, v in zip(info.spec.traced_args, info.traced)]
        statics = {k: v for k, v in info.statics if not isinstance(v, sympy.Basic)}
        if len(statics) != len(info.statics):
            raise _Unavailable("a symbolic static argument")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy's own complaints at a sample point (ellip_harm's truncation)
            out = _host_function(info.spec)(*arguments, **statics)
        outs = out if isinstance(out, tuple) else (out,)
        replacements[call] = sympy.sympify(complex(np.asarray(outs[info.output]).item()))
    result = expr.xreplace(replacements).xreplace({k: sympy.sympify(v) for k, v in values.items()})
    return _number(result.evalf(17))


def _reference_text(spec: model.Spec, condition: tuple) -> str | None:
    for case in spec.reference:
        if model.matches(case.when, condition):
            return case.value.text
    return None


def _static_values(spec: model.Spec, condition: tuple) -> dict:
    values = dict(condition)
    for arg in spec.args:
        if arg.static and arg.name not in values:
            values[arg.name] = arg.default if arg.has_default else spec.tests.statics[arg.name][0]
    return values


def check(catalog, spec: model.Spec, arg: model.Arg, condition: tuple, exprs, conj, loc: model.Location) -> str:
    """A sentence for the coverage table, or a SpecError where the rule disagrees with mpmath."""
    import mpmath
    import numpy as np

    text = _reference_text(spec, condition)
    if text is None or arg.kind not in ("real", "complex"):
        return "not cross-checked: no sympy expression and no mpmath reference (verified by the test suite)"
    names = [a.name for a in spec.traced_args]
    statics = _static_values(spec, condition)
    scope = {"__builtins__": {n: getattr(builtins, n) for n in REFERENCE_BUILTINS},
             **{k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}, **statics}
    code = compile(text, "<reference>", "eval")
    rng = random.Random(f"mpmath:{spec.name}:{arg.name}:{condition}")
    checked = 0
    with mpmath.workdps(DPS):
        for _ in range(POINTS):
            point = {}
            for a in spec.traced_args:
                lo, hi = spec.tests.domain[a.name]
                point[a.name] = rng.randint(int(lo), int(hi)) if a.kind == "integer" else round(rng.uniform(lo, hi), 3)

            def along(t, k):
                env = {**scope, **{n: (mpmath.mpf(point[n]) + t if n == arg.name else mpmath.mpf(point[n])) for n in names}}
                value = eval(code, env)  # noqa: S307 - spec files are project sources
                return (value if isinstance(value, tuple) else (value,))[k]

            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    primal = _host_function(spec)(*(_argument(a, complex(point[a.name])) for a in spec.traced_args),
                                                  **statics)
                primal = primal if isinstance(primal, tuple) else (primal,)
            except Exception:  # noqa: BLE001 - SciPy's complaint at a sample point says nothing about the rule
                continue
            for k, candidate in enumerate(exprs):
                try:
                    # where SciPy's value is not the reference's (nbdtrik clamps its root at 0), the
                    # reference's derivative is not SciPy's either: such a point says nothing of the rule
                    if not _close(_number(primal[k]), _number(along(0, k))):
                        continue
                    expected = _number(mpmath.diff(lambda t, k=k: along(t, k), 0))
                    got = evaluate(catalog, candidate, _by_name(candidate, point, statics))
                    if conj is not None:  # along a real direction, d/dt f(x + t) = d + conjugate part
                        got += evaluate(catalog, conj[k], _by_name(conj[k], point, statics))
                except Exception:  # noqa: BLE001 - mpmath and sympy raise many types where they cannot evaluate
                    continue  # a point where either side cannot be evaluated says nothing about the rule
                if not _close(got, expected):
                    where = ", ".join(f"{n}={point[n]}" for n in names)
                    output = f" (output {spec.outputs[k].name})" if len(exprs) > 1 else ""
                    raise SpecError(loc.path, loc.line, f"derivatives.{arg.name}{output}: the formula disagrees with mpmath's "
                                                        f"numerical derivative of the reference {text!r} at {where}: "
                                                        f"{_show(got)} != {_show(expected)}")
                checked += 1
    if not checked:
        return "not cross-checked: neither sympy nor mpmath could evaluate it at the sample points (verified by the test suite)"
    return f"agrees with mpmath's numerical derivative of the reference at {checked} sample point(s)"


def _close(got: complex, expected: complex) -> bool:
    return abs(got - expected) <= RTOL * max(1.0, abs(expected))


def _by_name(expr, point: dict, statics: dict) -> dict:
    values = {}
    for symbol in expr.free_symbols:
        if symbol.name in point:
            values[symbol] = point[symbol.name]
        elif symbol.name in statics and not isinstance(statics[symbol.name], str):
            values[symbol] = statics[symbol.name]
    return values


def _show(value: complex) -> str:
    return f"{value.real:.12g}" if value.imag == 0 else f"{value:.12g}"

