"""Formula text -> sympy expressions, parsed (never pattern-matched) in a closed namespace.

Two namespaces exist:
- *rule* formulas (derivatives, special points) may use the spec'd functions, called with SciPy's
  signature, and a fixed set of elementary functions that the printer can emit as JAX code;
- *sympy* expressions (a spec's definition in sympy's terms) may use any public sympy name, plus
  ``diff``, and are only used to derive and cross-check rules.
Any other name is an error, so a typo cannot become a free symbol.
"""
from __future__ import annotations

import inspect
import math
import tokenize
from dataclasses import dataclass

import sympy
from sympy.core.function import AppliedUndef
from sympy.parsing.sympy_parser import auto_number, parse_expr

from . import model


class FormulaError(Exception):
    """A formula problem; the caller attaches the location."""


# Elementary names allowed in rule formulas. The printer knows how to emit each as JAX code.
ELEMENTARY = {
    name: getattr(sympy, name)
    for name in (
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "exp", "log", "sqrt", "Abs", "sign", "re", "im", "conjugate", "Piecewise", "Eq", "Ne", "Lt", "Le",
        "Gt", "Ge", "And", "Or", "Not", "KroneckerDelta", "gamma", "loggamma", "digamma", "polygamma",
        "erf", "erfc", "floor", "Min", "Max", "pi", "E", "I", "Rational",
    )
}
ELEMENTARY.update({"abs": sympy.Abs, "inf": sympy.oo, "nan": sympy.nan, "true": sympy.true, "false": sympy.false})


# Names allowed in a guard's condition (``guard.valid``): comparisons joined by And/Or, over the traced
# arguments, abs, floor, Min, Max and numbers. No Not or Ne: a NaN argument fails every comparison
# it is in, so an input with a NaN where the condition looks is always outside the guard.
GUARD_NAMES = {name: getattr(sympy, name) for name in ("Eq", "Lt", "Le", "Gt", "Ge", "And", "Or", "Abs", "floor",
                                                        "Min", "Max", "pi", "E", "Rational")}
GUARD_NAMES.update({"abs": sympy.Abs, "inf": sympy.oo})
_GUARD_NODES = (sympy.Symbol, sympy.Number, sympy.NumberSymbol, sympy.Abs, sympy.floor, sympy.Min, sympy.Max,
                sympy.Add, sympy.Mul, sympy.Pow, sympy.And, sympy.Or, sympy.Eq, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)


def parse_guard(text: str, names: list) -> sympy.Basic:
    """A guard's condition in the traced arguments ``names`` (plain symbols: an integer argument may
    hold a float, and no assumption may simplify a comparison away)."""
    namespace = dict(GUARD_NAMES)
    namespace.update({name: sympy.Symbol(name) for name in names})
    expr = parse(text, namespace)
    if expr in (sympy.true, sympy.false):
        raise FormulaError(f"{text!r} is always {'true' if expr == sympy.true else 'false'}: a guard must depend on the arguments")
    if not isinstance(expr, (sympy.And, sympy.Or, sympy.Rel)):
        raise FormulaError(f"{text!r} is not a condition: give comparisons (m <= 200) joined by And(...) or Or(...)")
    for node in sympy.preorder_traversal(expr):
        if not isinstance(node, _GUARD_NODES) or isinstance(node, sympy.Ne):
            name = type(node).__name__
            raise FormulaError(f"{text!r} uses {name} ({node}); a guard is comparisons (Eq, Lt, Le, Gt, Ge) "
                               "joined by And or Or, of the arguments, abs, floor, Min, Max and numbers")
        if isinstance(node, sympy.Number) and node.is_finite and not _float64(node):
            raise FormulaError(f"{text!r} has a number beyond float64's range (use inf for no bound)")
        if isinstance(node, sympy.Rel) and any(isinstance(a, (sympy.Rel, sympy.And, sympy.Or, sympy.logic.boolalg.BooleanAtom))
                                                for a in node.args):
            raise FormulaError(f"{text!r} compares a condition ({node}); compare numbers only")
    return expr


def _float64(number) -> bool:
    try:
        return math.isfinite(float(number))
    except (OverflowError, ValueError):
        return False


def arg_symbol(arg: model.Arg) -> sympy.Symbol:
    assumptions = {"real": {"real": True}, "integer": {"integer": True}, "static_int": {"integer": True}}
    return sympy.Symbol(arg.name, **assumptions.get(arg.kind, {}))


def arg_symbols(spec: model.Spec) -> dict:
    return {a.name: arg_symbol(a) for a in spec.args if not a.kind == "static_bool"}


def index_symbols(spec: model.Spec) -> dict:
    """The positions along the core dimensions (``k`` of riccati_jn's S_k), non-negative integers."""
    return {d.index: sympy.Symbol(d.index, integer=True, nonnegative=True) for d in spec.core}


@dataclass(frozen=True)
class CallInfo:
    """What a sympy application of a spec'd function stands for."""

    spec: model.Spec
    output: int  # index into spec.outputs
    traced: tuple  # sympy expressions, in spec argument order
    statics: tuple  # ((name, python value), ...)


class Catalog:
    """The spec'd functions, as sympy function symbols and as signature-checking callables."""

    def __init__(self, specs):
        self.specs = {s.name: s for s in specs}
        self._functions: dict[tuple, sympy.FunctionClass] = {}
        self._owners: dict[str, tuple] = {}
        self._callables: dict | None = None  # name -> callable, built once: every rule's namespace holds them all

    def function(self, spec: model.Spec, output: int) -> sympy.FunctionClass:
        key = (spec.name, output)
        if key not in self._functions:
            label = spec.name if len(spec.outputs) == 1 else f"{spec.name}.{spec.outputs[output].name}"
            fn = sympy.Function(label)
            self._functions[key] = fn
            self._owners[label] = key
        return self._functions[key]

    def info(self, call: AppliedUndef) -> CallInfo | None:
        """Decode an application made by ``callable``; None for any other function."""
        key = self._owners.get(call.func.__name__)
        if key is None or len(call.args) != len(self.specs[key[0]].args):  # e.g. Function('jv')(z) in a sympy expression
            return None
        spec = self.specs[key[0]]
        args = list(call.args)
        traced, statics = [], []
        for arg in spec.args:
            value = args.pop(0)
            if arg.traced:
                traced.append(value)
            else:
                statics.append((arg.name, _static_value(arg, value)))
        return CallInfo(spec=spec, output=key[1], traced=tuple(traced), statics=tuple(statics))

    def callable(self, spec: model.Spec):
        """``jv(v, z)`` or, for several outputs, ``airy.aip(z)``; checks arity and keywords."""
        if len(spec.outputs) == 1:
            return _SpecCallable(self, spec, 0)
        return _MultiOutput({o.name: _SpecCallable(self, spec, i) for i, o in enumerate(spec.outputs)}, spec)

    def rule_namespace(self, spec: model.Spec, statics: dict) -> dict:
        if self._callables is None:
            self._callables = {other.name: self.callable(other) for other in self.specs.values()}
        names = dict(ELEMENTARY)
        names.update(self._callables)
        for arg in spec.args:
            names[arg.name] = sympy.S.true if statics.get(arg.name) is True else (
                sympy.S.false if statics.get(arg.name) is False else arg_symbol(arg))
        names.update(index_symbols(spec))
        return names


class _MultiOutput:
    def __init__(self, outputs: dict, spec: model.Spec):
        self.__dict__.update(outputs)
        self._spec = spec

    def __call__(self, *args, **kwargs):
        names = ", ".join(f"{self._spec.name}.{o.name}" for o in self._spec.outputs)
        raise FormulaError(f"{self._spec.name} has several outputs; name one: {names}")

    def __getattr__(self, item):
        if item.startswith("_"):  # Python's and sympy's protocol lookups (_op_priority, __sympy__, ...)
            raise AttributeError(item)
        names = ", ".join(o.name for o in self._spec.outputs)
        raise FormulaError(f"{self._spec.name} has no output {item!r} (outputs: {names})")


class _SpecCallable:
    """Builds ``Function(name)(traced..., statics...)`` after binding SciPy's signature."""

    def __init__(self, catalog: Catalog, spec: model.Spec, output: int):
        self.catalog, self.spec, self.output = catalog, spec, output
        params = [
            inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              default=a.default if a.has_default else inspect.Parameter.empty)
            for a in spec.args
        ]
        self.signature = inspect.Signature(params)

    def __call__(self, *args, **kwargs):
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise FormulaError(f"{self.spec.name}{self.signature}: {exc}") from None
        bound.apply_defaults()
        values = []
        for arg in self.spec.args:
            value = bound.arguments[arg.name]
            if arg.kind == "static_bool":
                if value not in (True, False, sympy.true, sympy.false):
                    raise FormulaError(f"{self.spec.name}: argument {arg.name!r} is a static boolean; pass True or False")
                value = sympy.true if bool(value) else sympy.false
            elif arg.kind == "static_str" and isinstance(value, str):
                value = sympy.Symbol(repr(value))  # a string constant, decoded by _static_value
            else:
                value = sympy.sympify(value)
                number = {"static_int": "an integer", "static_float": "a real number"}.get(arg.kind)
                if number and value.is_number and not (value.is_Integer if arg.kind == "static_int" else value.is_extended_real):
                    raise FormulaError(f"{self.spec.name}: argument {arg.name!r} is static; pass {number}, got {value}")
            values.append(value)
        return self.catalog.function(self.spec, self.output)(*values)


def _static_value(arg: model.Arg, value):
    """The Python value of a static argument in a call, or the sympy symbol of the caller's own argument."""
    if arg.kind == "static_bool":
        return bool(value)
    if arg.kind == "static_str" and isinstance(value, sympy.Symbol) and value.name[:1] in "'\"":
        return value.name[1:-1]
    if arg.kind == "static_float" and value.is_number:
        return float(value)
    if arg.kind == "static_int" and value.is_Integer:
        return int(value)
    return value


def parse(text: str, names: dict) -> sympy.Basic:
    """Parse ``text`` with exactly ``names`` in scope (numbers become exact sympy numbers)."""
    global_names = {"__builtins__": {}, "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
                    "True": True, "False": False}
    try:
        result = parse_expr(text, local_dict=dict(names), global_dict=global_names,
                            transformations=(auto_number,), evaluate=True)
    except FormulaError:
        raise
    except NameError as exc:
        missing = str(exc).split("'")[1] if "'" in str(exc) else str(exc)
        raise FormulaError(f"unknown name {missing!r} in {text!r}") from None
    except (SyntaxError, tokenize.TokenError):
        raise FormulaError(f"cannot parse {text!r}: {_syntax_problem(text)}") from None
    except Exception as exc:  # sympy raises many types while evaluating; all mean "bad formula"
        raise FormulaError(f"cannot evaluate {text!r}: {type(exc).__name__}: {exc}") from None
    if isinstance(result, (bool, int, float, complex)):
        result = sympy.sympify(result)
    if not isinstance(result, sympy.Basic):
        raise FormulaError(f"{text!r} is not an expression (got {type(result).__name__})")
    return result


def _syntax_problem(text: str) -> str:
    """What is wrong with a formula, in Python's own words ("'(' was never closed"), with a column.

    sympy's tokenizer reports an unclosed bracket as its internal ``('EOF in multi-line statement',
    (2, 0))``; Python's parser says which bracket and where.
    """
    try:
        compile(text.strip(), "<formula>", "eval")
    except SyntaxError as exc:
        where = f" at column {exc.offset}" if exc.offset else ""
        return f"{exc.msg}{where}"
    return "not an expression sympy can read"


def sympy_namespace(spec: model.Spec, statics: dict) -> dict:
    names = {k: v for k, v in vars(sympy).items() if not k.startswith("_")}
    for arg in spec.args:
        if arg.kind == "static_bool":
            names[arg.name] = bool(statics[arg.name])
        else:
            names[arg.name] = arg_symbol(arg)
    return names
