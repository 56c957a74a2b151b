"""The specs' mpmath references and their directional derivatives, with mpmath alone.

Both the gradient suite (live, for the slow sweeps) and tests/tools/make_references.py (which stores
the references of the default suite under tests/data/references/) evaluate them through
``directional_derivatives``; the script runs it in worker processes, which import only this module.
"""
from __future__ import annotations

import functools
import math

import mpmath

DPS = 30  # working precision of the references (decimal digits)

MP_NAMES = {k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}
SAFE_BUILTINS = {"abs": abs, "min": min, "max": max, "int": int, "float": float, "complex": complex, "round": round}


@functools.lru_cache(maxsize=None)
def _compiled(text: str):
    return compile(text, "<reference>", "eval")


def reference_function(text: str, scope: dict, names, core=()):
    """The mpmath expression ``text`` as a function of the traced arguments ``names``; ``scope`` gives
    the static arguments' values. With ``core`` (one {index name: position} per element of a core
    shape, in C order) the expression is evaluated at each position, and the function returns every
    output's elements in turn: output by output, positions in that order."""
    code = _compiled(text)

    def evaluate(*values):
        # one globals dict: lambdas inside the expression (mpmath.diff(lambda t: ...)) see every name
        env = {"__builtins__": SAFE_BUILTINS, **MP_NAMES, **scope, **dict(zip(names, values))}
        if not core:
            return eval(code, env)  # noqa: S307 - spec files are project sources
        per_position = [outputs(eval(code, {**env, **position})) for position in core]  # noqa: S307
        return tuple(values[k] for k in range(len(per_position[0])) for values in per_position)

    return evaluate


def outputs(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def directional_derivatives(text: str, scope: dict, names, arg: str, point: dict, x0, direction, n_out: int, core=()):
    """First and second derivatives (one per output, or per output element with ``core``) of the
    reference along ``direction`` at the point where ``arg`` = ``x0`` and every other traced argument
    has its value in ``point``, at DPS digits."""
    mpmath.mp.dps = DPS
    if core:  # each position on its own (differentiating all of them for each would cost positions**2)
        count = n_out // len(core)
        per_position = [_derivatives(reference_function(text, scope, names, (position,)), names, arg, point, x0,
                                     direction, count) for position in core]
        return tuple([p[order][k] for k in range(count) for p in per_position] for order in (0, 1))
    return _derivatives(reference_function(text, scope, names), names, arg, point, x0, direction, n_out)


def _derivatives(ref, names, arg: str, point: dict, x0, direction, n_out: int):
    def along(t):
        values = [(mpmath.mpmathify(x0) + t * direction) if n == arg else mpmath.mpmathify(point[n]) for n in names]
        return outputs(ref(*values))

    first = [mpmath.diff(lambda t, k=k: along(t)[k], 0, 1) for k in range(n_out)]
    second = [mpmath.diff(lambda t, k=k: along(t)[k], 0, 2) for k in range(n_out)]
    return first, second


# ---- JSON encoding of numbers: floats by repr (exact), complex as [re, im], inf and nan as strings ------
def encode(value):
    if isinstance(value, (complex, mpmath.mpc)):
        return [encode(float(value.real)), encode(float(value.imag))]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    value = float(value)
    return value if math.isfinite(value) else repr(value)


def decode(value):
    if isinstance(value, list):
        return complex(decode(value[0]), decode(value[1]))
    if isinstance(value, str):
        return float(value)
    return value


def compute(task: dict) -> dict:
    """One stored reference: ``task`` is a planned job (JSON-ready, see tests/refdata.py), the result
    its ``first`` and ``second`` derivatives per output, or the ``error`` mpmath raised."""
    point = {k: decode(v) for k, v in task["point"].items()}
    x0, direction = decode(task["x"]), task["direction"]
    direction = mpmath.mpc(*direction) if isinstance(direction, list) else direction
    try:
        first, second = directional_derivatives(task["reference"], task["scope"], task["names"], task["arg"],
                                                point, x0, direction, task["outputs"], task.get("core", ()))
    except Exception as exc:  # noqa: BLE001 - stored, and raised by the test that needs this reference
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"first": [encode(v) for v in first], "second": [encode(v) for v in second]}


def compute_timed(item: tuple) -> tuple:
    """(index, task) -> (index, ``compute(task)``, seconds): what the script's worker processes run."""
    import time

    index, task = item
    start = time.perf_counter()
    result = compute(task)
    return index, result, time.perf_counter() - start
