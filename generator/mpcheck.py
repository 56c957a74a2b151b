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
import importlib
import importlib.util
import itertools
import random
import sys
import warnings
from pathlib import Path

import sympy
from sympy.core.function import AppliedUndef

from . import coredims, model
from .errors import SpecError
from .scipycheck import REFERENCE_BUILTINS, resolve
from .shift import Shift, evaluate_position

POINTS = 2  # sample points per rule (a wrong formula disagrees almost everywhere; the suite checks many more)
RTOL = 1e-6
DPS = 20
_KERNELS = Path(__file__).resolve().parent.parent / "templates" / "runtime" / "kernels"


class _Unavailable(Exception):
    """Something in the rule cannot be evaluated numerically here."""


@functools.lru_cache(maxsize=None)
def _kernel_package() -> str:
    """templates/runtime/kernels loaded as a package of its own, so that a family's relative imports
    (bessel's ``from . import bessel_debye``, bessel_scaled's ``from . import bessel``) resolve."""
    name = "_jaxsci_generator_kernels"
    spec = importlib.util.spec_from_file_location(name, _KERNELS / "__init__.py", submodule_search_locations=[str(_KERNELS)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return name


@functools.lru_cache(maxsize=None)
def _kernel_module(family: str):
    return importlib.import_module(f"{_kernel_package()}.{family}")


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
        # a float that is not an integer stays one where the argument takes floats (lpmv's degree passed
        # on to a kernel's integer-kind degree): rounding it would check another function
        if arg.accepts_float and value.real != round(value.real):
            return value.real
        return int(round(value.real))
    return value.real if arg.kind == "real" or value.imag == 0 else value


def _call(spec: model.Spec, arguments, statics: dict):
    """The host function at ``arguments``; a function with core dimensions (a Python function whose
    static arguments may come first, riccati_jn(n, x)) by keyword."""
    if spec.core:  # in SciPy's order, keyword-only ones by keyword (legendre_p(n, z, *, diff_n=0))
        values = {**{a.name: v for a, v in zip(spec.traced_args, arguments)}, **statics}
        return _host_function(spec)(*[values[a.name] for a in spec.args if not a.keyword_only],
                                    **{a.name: values[a.name] for a in spec.args if a.keyword_only})
    return _host_function(spec)(*arguments, **statics)


def evaluate(catalog, expr, values: dict, position: tuple = ()) -> complex:
    """``expr`` at ``values`` (symbol -> number), every spec'd call made by its host function in float64;
    a call of a function with core dimensions gives its element at ``position``."""
    import numpy as np

    replacements = {}
    for node in expr.atoms(Shift):  # its own output at the neighbouring position; NaN outside the core
        moved = evaluate_position(node, position)
        sizes = np.shape(_core_value(catalog, node.args[0], values))
        inside = all(0 <= p < s for p, s in zip(moved, sizes))
        replacements[node] = sympy.sympify(evaluate(catalog, node.args[0], values, moved)) if inside else sympy.nan
    expr = expr.xreplace(replacements)
    replacements = {}
    for call in expr.atoms(AppliedUndef):
        info = catalog.info(call)
        if info is None:
            raise _Unavailable(str(call))
        arguments = [_argument(a, evaluate(catalog, v, values, position)) for a, v in zip(info.spec.traced_args, info.traced)]
        statics = dict(info.statics)
        if info.spec.core:  # its own outputs at the caller's static values (riccati_jn.jn(n, x) in its rule)
            statics = {k: _static_number(v.xreplace({s: sympy.sympify(values[s]) for s in v.free_symbols if s in values}))
                       if isinstance(v, sympy.Basic) else v for k, v in statics.items()}
        if any(isinstance(v, sympy.Basic) for v in statics.values()):
            raise _Unavailable("a symbolic static argument")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy's own complaints at a sample point (ellip_harm's truncation)
            out = _call(info.spec, arguments, statics)
        outs = out if isinstance(out, tuple) else (out,)
        element = np.asarray(outs[info.output])[position if info.spec.core else ()]
        replacements[call] = sympy.sympify(complex(element.item()))
    result = expr.xreplace(replacements).xreplace({k: sympy.sympify(v) for k, v in values.items()})
    return _number(result.evalf(17))


def _core_value(catalog, call, values: dict):
    """The core shape of a call of a function with core dimensions, from SciPy's value at ``values``."""
    import numpy as np

    info = catalog.info(call)
    arguments = [_argument(a, evaluate(catalog, v, values)) for a, v in zip(info.spec.traced_args, info.traced)]
    statics = {k: _static_number(v.xreplace({s: sympy.sympify(values[s]) for s in v.free_symbols if s in values}))
               if isinstance(v, sympy.Basic) else v for k, v in info.statics}
    out = _call(info.spec, arguments, statics)
    outs = out if isinstance(out, tuple) else (out,)
    return np.asarray(outs[info.output])


def _static_number(value):
    """A static argument's sympy value as a Python number, where it is one."""
    if value.is_Integer:
        return int(value)
    if value.is_number and value.is_extended_real:
        return float(value)
    return value


def _reference_text(spec: model.Spec, condition: tuple) -> str | None:
    for case in spec.reference:
        if model.matches(case.when, condition):
            return case.value.text
    return None


def _static_cases(spec: model.Spec, condition: tuple) -> list[dict]:
    """The static values the rule is checked at: for core dimensions every tests.statics combination
    (legendre_p's rule has a branch per diff_n), else one."""
    first = _static_values(spec, condition)
    tested = {n: v for n, v in spec.tests.statics.items() if n in first and n not in dict(condition)}
    if not spec.core or not tested:
        return [first]
    return [{**first, **dict(zip(tested, values))} for values in itertools.product(*tested.values())]


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
    cases = _static_cases(spec, condition)
    scope = {"__builtins__": {n: getattr(builtins, n) for n in REFERENCE_BUILTINS},
             **{k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}}
    code = compile(text, "<reference>", "eval")
    rng = random.Random(f"mpmath:{spec.name}:{arg.name}:{condition}")
    checked = 0
    with mpmath.workdps(DPS):
        for statics, _ in itertools.product(cases, range(POINTS)):
            point = {}
            for a in spec.traced_args:
                lo, hi = spec.tests.domain[a.name]
                point[a.name] = rng.randint(int(lo), int(hi)) if a.kind == "integer" else round(rng.uniform(lo, hi), 3)

            def along(t, k, at):
                env = {**scope, **statics, **at, **{n: (mpmath.mpf(point[n]) + t if n == arg.name else mpmath.mpf(point[n])) for n in names}}
                value = eval(code, env)  # noqa: S307 - spec files are project sources
                return (value if isinstance(value, tuple) else (value,))[k]

            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    primal = _call(spec, [_argument(a, complex(point[a.name])) for a in spec.traced_args], statics)
                primal = primal if isinstance(primal, tuple) else (primal,)
            except Exception:  # noqa: BLE001 - SciPy's complaint at a sample point says nothing about the rule
                continue
            for (k, candidate), at in itertools.product(enumerate(exprs), _positions(spec, statics)):
                position = tuple(at.values())
                try:
                    # where SciPy's value is not the reference's (nbdtrik clamps its root at 0), the
                    # reference's derivative is not SciPy's either: such a point says nothing of the rule
                    if not _close(_number(np.asarray(primal[k])[position]), _number(along(0, k, at))):
                        continue
                    expected = _number(mpmath.diff(lambda t, k=k: along(t, k, at), 0))
                    got = evaluate(catalog, candidate, _by_name(candidate, {**point, **at}, statics), position)
                    if conj is not None:  # along a real direction, d/dt f(x + t) = d + conjugate part
                        got += evaluate(catalog, conj[k], _by_name(conj[k], {**point, **at}, statics), position)
                except Exception:  # noqa: BLE001 - mpmath and sympy raise many types where they cannot evaluate
                    continue  # a point where either side cannot be evaluated says nothing about the rule
                if not _close(got, expected):
                    where = ", ".join(f"{n}={v}" for n, v in {**{n: point[n] for n in names}, **at}.items())
                    output = f" (output {spec.outputs[k].name})" if len(exprs) > 1 else ""
                    raise SpecError(loc.path, loc.line, f"derivatives.{arg.name}{output}: the formula disagrees with mpmath's "
                                                        f"numerical derivative of the reference {text!r} at {where}: "
                                                        f"{_show(got)} != {_show(expected)}")
                checked += 1
    if not checked:
        return "not cross-checked: neither sympy nor mpmath could evaluate it at the sample points (verified by the test suite)"
    return f"agrees with mpmath's numerical derivative of the reference at {checked} sample point(s)"


def _positions(spec: model.Spec, statics: dict) -> list[dict]:
    """The core positions checked ({index name: position}): the first two and the last; [{}] for an
    elementwise function."""
    import numpy as np

    if not spec.core:
        return [{}]
    symbols = coredims.size_symbols(spec.args)
    sizes = [int(coredims.size_expr(d.size, spec.args).xreplace({symbols[n]: sympy.sympify(statics[n]) for n in symbols}))
             for d in spec.core]
    every = list(np.ndindex(*sizes))
    chosen = dict.fromkeys(every[:2] + every[-1:])
    return [dict(zip((d.index for d in spec.core), position)) for position in chosen]


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

