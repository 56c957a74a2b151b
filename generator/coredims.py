"""Outputs with core dimensions whose sizes come from static arguments, for functions of traced ones.

``riccati_jn(n, x)`` returns, for each x, the n + 1 values S_0(x) ... S_n(x): an output of
``outputs[].shape: ["n + 1"]`` with ``index: [k]``. The public shape is the core dimensions first,
then the broadcast shape of the traced arguments (SciPy's ``(n + 1, *z.shape)`` of its ``*_all``
functions); the core computes with them last (gufunc order), so vmap's batch axis is one more loop
dimension. A size is an integer sympy expression in the static ints and floats (``n + 1``,
``Max(floor(v), 1) + 1``), printed by sympy's Python printer into the generated module; the index
names the position along each core dimension in derivative formulas and mpmath references.
"""
from __future__ import annotations

import sympy
from sympy.printing.pycode import pycode

from . import model
from .errors import SpecError
from .formulas import FormulaError, parse

SIZE_NAMES = {name: getattr(sympy, name) for name in ("floor", "ceiling", "Max", "Min", "Abs", "Rational")}
SIZE_NAMES["abs"] = sympy.Abs
# names the generated rule functions bind besides the arguments and outputs
RESERVED = frozenset({"jnp", "np", "jsp", "_core", "values", "needs", "math"})


def size_symbols(args) -> dict:
    """The static ints (integer symbols) and floats (real symbols) a size may use."""
    kinds = {"static_int": {"integer": True}, "static_float": {"real": True}}
    return {a.name: sympy.Symbol(a.name, **kinds[a.kind]) for a in args if a.kind in kinds}


def size_expr(text, args) -> sympy.Expr:
    """A size, parsed by sympy in a closed namespace: the static ints and floats, numbers, floor,
    ceiling, Max, Min, abs. Raises FormulaError naming what is wrong."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        raise FormulaError(f"a size is an integer expression in the static arguments, got {text!r}")
    names = dict(SIZE_NAMES)
    names.update(size_symbols(args))
    traced = {a.name for a in args if a.traced}
    names.update({name: sympy.Symbol(name) for name in traced})
    expr = parse(text, names)
    used = {s.name for s in expr.free_symbols}
    if used & traced:
        raise FormulaError(f"size {text!r} uses the traced argument(s) {', '.join(sorted(used & traced))}: "
                           "a size must be known when the function is traced (static arguments only)")
    if not isinstance(expr, sympy.Expr) or expr.is_integer is not True:
        raise FormulaError(f"size {text!r} is not an integer expression (use floor(v) or int arithmetic of static ints)")
    return expr


def output_core(m, path: str, name: str, args) -> tuple:
    """``shape`` and ``index`` of an output of traced arguments (``m`` is the loader's mapping)."""
    shape = m.get("shape", list)
    line = m.value_line("shape")
    if not shape:
        raise SpecError(path, line, f"output {name!r}: shape must list at least one core dimension")
    if not m.has("index"):
        raise SpecError(path, line, f"output {name!r}: an output of traced arguments with a shape needs `index`, "
                                    "the name of the position along each core dimension (index: [k])")
    index = m.get("index", list)
    index_line = m.value_line("index")
    if len(index) != len(shape):
        raise SpecError(path, index_line, f"output {name!r}: index names {len(index)} position(s) for {len(shape)} core dimension(s)")
    taken = {a.name for a in args} | RESERVED
    dims = []
    for size, label in zip(shape, index):
        if not isinstance(label, str) or not label.isidentifier() or label.startswith("_"):
            raise SpecError(path, index_line, f"output {name!r}: index {label!r} is not a name")
        if label in taken:
            raise SpecError(path, index_line, f"output {name!r}: index {label!r} is already the name of an argument "
                                              "or of the generated code; choose another")
        taken.add(label)
        try:
            size_expr(size, args)
        except FormulaError as exc:
            raise SpecError(path, line, f"output {name!r}: {exc}") from None
        dims.append(model.CoreDim(size=str(size), index=label, loc=model.Location(path, line)))
    return tuple(dims)


def check_spec(spec: model.Spec, host_loop_line) -> None:
    """Every output shares one core; sizes are at least 1 at the tested statics; no guard or native."""
    core = spec.core
    if spec.host_loop is not None and not core:
        raise SpecError(spec.path, host_loop_line, "host_loop is for outputs with core dimensions (shape and index)")
    if not core:
        for out in spec.outputs:
            if out.core:
                raise SpecError(spec.path, out.loc.line, f"output {out.name!r} has core dimensions but output "
                                                         f"{spec.outputs[0].name!r} has none; all outputs share one core shape")
        return
    for out in spec.outputs:
        if [(d.size, d.index) for d in out.core] != [(d.size, d.index) for d in core]:
            raise SpecError(spec.path, out.loc.line, f"output {out.name!r}: every output of {spec.name} must have the "
                                                     f"shape and index of output {spec.outputs[0].name!r}")
        if out.name in {d.index for d in core}:
            raise SpecError(spec.path, out.loc.line, f"output {out.name!r} has the name of an index")
    if spec.native is not None:
        raise SpecError(spec.path, spec.native.loc.line, "native is not supported with core dimensions")
    if spec.guard is not None and spec.host_loop is None:
        raise SpecError(spec.path, spec.guard.loc.line, "a guard with core dimensions needs host_loop (it is "
                                                        "evaluated element by element)")
    exprs = [size_expr(d.size, spec.args) for d in core]
    symbols = size_symbols(spec.args)
    statics = spec.tests.statics
    if any(name not in statics and not spec.arg(name).has_default for name in symbols):
        return  # the loader's tests check reports the missing statics
    import itertools

    for values in itertools.product(*([*statics.get(n, ())] or [spec.arg(n).default] for n in symbols)):
        at = dict(zip(symbols, values))
        for dim, expr in zip(core, exprs):
            size = expr.xreplace({symbols[n]: sympy.sympify(v) for n, v in at.items()})
            if not (size.is_Integer and size >= 1):
                where = ", ".join(f"{n}={v}" for n, v in at.items())
                raise SpecError(spec.path, dim.loc.line, f"size {dim.size!r} is {size} at tests.statics {where}; "
                                                         "a core dimension has at least one element")


def shape_function(spec: model.Spec) -> tuple | None:
    """(parameters, Python code of each size) for the generated ``_<name>_core_shape``, or None."""
    if not spec.core:
        return None
    exprs = [size_expr(d.size, spec.args) for d in spec.core]
    params = sorted(set().union(*(e.free_symbols for e in exprs)), key=lambda s: s.name)
    return tuple(s.name for s in params), tuple(pycode(e, fully_qualified_modules=True) for e in exprs)
