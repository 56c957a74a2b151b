"""Derivative rules: parse or derive them with sympy, cross-check them, and plan their evaluations.

A rule for d f / d x is an expression in the function's arguments, elementary functions and calls to
spec'd functions. Every distinct call becomes one *need*: an evaluation the core adds to the single
host round trip that computes the primal, so a JVP costs one callback with the fewest SciPy calls.
"""
from __future__ import annotations

import dataclasses

import cmath
import random
from dataclasses import dataclass

import sympy
from sympy.core.function import AppliedUndef

from . import model, mpcheck, shift
from .errors import SpecError, SpecErrors
from .formulas import Catalog, FormulaError, arg_symbols, index_symbols, parse, sympy_namespace
from .printer import AtInfinity, JaxsciPrinter, Mask, PrintError, SafeValue

CROSS_CHECK_POINTS = 3  # random points per rule; a wrong formula disagrees at almost every point
LIMIT_CHECK_NEAR, LIMIT_CHECK_FAR = sympy.Float(10)**8, sympy.Float(10)**16  # where a point at infinity's limit is checked
CROSS_CHECK_DIGITS = 30
CROSS_CHECK_RTOL = 1e-12


@dataclass(frozen=True)
class PlannedArg:
    """One traced argument of a needed evaluation: the caller's own argument, or a derived value."""

    same_as: int | None  # index among the caller's traced arguments
    key: str | None  # canonical text in positional placeholders (_0, _1, ...), for de-duplication
    code: str | None


@dataclass(frozen=True)
class PlannedNeed:
    """The generator's plan of one evaluation a rule needs; rendered into the core's ``_core.Need``
    (templates/runtime/registry.py), which is the one ``Need``."""

    var: str
    spec: model.Spec
    statics: tuple
    args: tuple  # PlannedArg, ...
    # 0: planned with the primal; s > 0: its arguments use the primal's values (s = 1) or the results
    # of stage s - 1 needs, so it is evaluated in a later host round trip.
    stage: int = 0
    # ((caller's traced index, constant code), ...): used only at a special point (its arguments hold
    # Mask(x, c)), so the host evaluates it only where every such x equals its c.
    where: tuple = ()
    # ((name, Python code), ...) for the statics where a value is an integer expression in the caller's
    # static ints (``jvp(v, z, n + 1)``), computed when the rule runs; None when every value is fixed.
    statics_code: tuple | None = None


@dataclass(frozen=True)
class ArgRule:
    arg: model.Arg
    traced_index: int
    method: str  # "formula" or "sympy"
    source: str
    formulas: tuple  # ((output name, text), ...): as written, or sympy's result, for docs
    needs: tuple  # PlannedNeed, ...
    derivative: tuple  # code per output
    conjugate: tuple | None  # code per output, or None when holomorphic
    check: str  # how the rule was verified by the generator
    statics: tuple = ()  # the caller's static ints the rule's code uses: its functions take them as keywords
    # ((name, code), ...): subexpressions the derivative's (conjugate's) code shares, assigned first
    derivative_common: tuple = ()
    conjugate_common: tuple = ()
    # for a rule with a conjugate part and a `real` formula: the rule that calls with a real argument
    # use instead (its formula is the derivative along the real axis; no conjugate part)
    real: "ArgRule | None" = None


@dataclass(frozen=True)
class CaseRules:
    condition: tuple  # ((static bool name, value), ...)
    rules: tuple  # ArgRule, ...


def _error(loc: model.Location, message: str) -> SpecError:
    return SpecError(loc.path, loc.line, message)


def _unevaluated_eq(lhs, rhs):
    return sympy.Eq(lhs, rhs, evaluate=False)


def _parse_rule(catalog: Catalog, spec: model.Spec, statics: dict, formula: model.Formula, what: str, *,
                condition: bool = False):
    """A rule formula: a number-valued expression, or with ``condition`` a relation (``Eq(z, 0)``)."""
    names = {**catalog.rule_namespace(spec, statics), **shift.namespace(spec, catalog)}
    if condition:  # unevaluated: sympy's real symbols are finite, so it would make Eq(x, inf) False
        names["Eq"] = _unevaluated_eq
    try:
        expr = parse(formula.text, names)
        shift.check_range(spec, expr, what)
    except FormulaError as exc:
        raise _error(formula.loc, f"{what}: {exc}") from None
    if not condition:
        _check_value(expr, formula, what)
    allowed = set(arg_symbols(spec).values()) | set(index_symbols(spec).values())
    stray = {s for s in expr.free_symbols - allowed if s.name[:1] not in "'\""}  # quoted: a static string
    if stray:
        raise _error(formula.loc, f"{what}: unknown symbol(s) {', '.join(sorted(map(str, stray)))}")
    return expr


def _check_value(expr, formula: model.Formula, what: str) -> None:
    """A formula for a value must be a number-valued expression, not a condition, tuple or matrix."""
    if not isinstance(expr, sympy.Expr) or expr.is_Matrix or isinstance(expr, sympy.Lambda):
        kind = "a condition" if isinstance(expr, sympy.logic.boolalg.Boolean) else f"of sympy type {type(expr).__name__}"
        raise _error(formula.loc, f"{what}: {formula.text!r} is {kind}, not a number-valued expression")


def _case(cases: tuple, condition: tuple):
    for case in cases:
        if model.matches(case.when, condition):
            return case
    return None


def sympy_definition(spec: model.Spec, condition: tuple):
    """The spec's own sympy expression under ``condition``, or None."""
    case = _case(spec.sympy, condition)
    if case is None:
        return None
    try:
        expr = parse(case.value.text, sympy_namespace(spec, dict(condition)))
    except FormulaError as exc:
        raise _error(case.value.loc, f"sympy: {exc}") from None
    _check_value(expr, case.value, "sympy")
    if expr.has(sympy.zoo, sympy.nan):  # 1/0, 0/0: other specs' cross-checks would blame their own formulas
        raise _error(case.value.loc, f"sympy: {case.value.text!r} is undefined ({expr})")
    return expr


class _Deriver:
    def __init__(self, specs):
        self.catalog = Catalog(specs)
        self.specs = {s.name: s for s in specs}
        self._definitions: dict = {}
        # parsing a rule is the derive's costliest step (stdtr's df rule: 2 s in sympy's Piecewise folding), and
        # implicit rules reparse their callees' rules; sympy expressions are immutable, so one parse serves all
        self._explicit: dict = {}

    # ---- sympy definitions of spec'd calls, for cross-checks and the reverse map -------------------
    def definition(self, spec: model.Spec, statics: tuple):
        key = (spec.name, statics)
        if key not in self._definitions:
            condition = tuple(sorted((k, v) for k, v in statics if isinstance(v, bool)))
            self._definitions[key] = sympy_definition(spec, condition) if spec.sympy else None
        return self._definitions[key]

    def to_sympy(self, expr):
        """Replace every spec'd call by its sympy definition; None if some callee has none."""
        missing = []

        def replace(call):
            info = self.catalog.info(call)
            if info is None or len(info.spec.outputs) != 1:
                missing.append(str(call.func))
                return call
            definition = self.definition(info.spec, info.statics)
            if definition is None:
                missing.append(info.spec.name)
                return call
            symbols = arg_symbols(info.spec)
            mapping = {symbols[a.name]: v for a, v in zip(info.spec.traced_args, info.traced)}
            mapping.update({symbols[name]: sympy.sympify(v) for name, v in info.statics
                            if info.spec.arg(name).kind == "static_int"})
            return definition.xreplace(mapping)

        result = expr.replace(lambda e: isinstance(e, AppliedUndef), replace)
        return (None, sorted(set(missing))) if missing else (result, [])

    def _definitions_used(self, spec: model.Spec, expr) -> str:
        """Where the sympy expressions of the other specs called in ``expr`` are: they may be the wrong part."""
        places = {}
        for call in expr.atoms(AppliedUndef):
            info = self.catalog.info(call)
            if info is not None and info.spec.name != spec.name:
                condition = tuple(sorted((k, v) for k, v in info.statics if isinstance(v, bool)))
                case = _case(info.spec.sympy, condition)
                if case is not None:
                    places[info.spec.name] = case.value.loc
        if not places:
            return ""
        return " (with the sympy expression of " + ", ".join(f"{n} at {places[n]}" for n in sorted(places)) + ")"

    def reverse_map(self, spec: model.Spec):
        """sympy function class -> spec, for specs defined as ``F(their traced args)`` exactly."""
        candidates: dict = {}
        for other in self.specs.values():
            if other.static_args or len(other.outputs) != 1 or not other.sympy:
                continue
            definition = self.definition(other, ())
            symbols = tuple(arg_symbols(other)[a.name] for a in other.traced_args)
            if isinstance(definition, sympy.Function) and definition.args == symbols:
                candidates.setdefault(definition.func, []).append(other)
        chosen = {}
        for func, owners in candidates.items():
            mine = [o for o in owners if o.name == spec.name]
            chosen[func] = mine[0] if mine else sorted(owners, key=lambda o: o.name)[0]
        return chosen

    # ---- rules ------------------------------------------------------------------------------------
    def explicit(self, spec, rule: model.DerivativeRule, statics: dict):
        key = (spec.name, id(rule), tuple(sorted(statics.items())))
        if key not in self._explicit:
            self._explicit[key] = self._parse_explicit(spec, rule, statics)
        return self._explicit[key]

    def _parse_explicit(self, spec, rule: model.DerivativeRule, statics: dict):
        what = f"derivatives.{rule.arg}"
        outputs = dict(rule.formulas)
        exprs = [self._parse_output(spec, statics, outputs, o.name, what, rule.loc) for o in spec.outputs]
        conj = None
        if rule.conjugates:
            conj_map = dict(rule.conjugates)
            conj = [_parse_rule(self.catalog, spec, statics, conj_map[o.name], f"{what}.conjugate")
                    if o.name in conj_map else sympy.Integer(0) for o in spec.outputs]
        points = []
        for point in rule.at:
            where = _parse_rule(self.catalog, spec, statics, point.where, f"{what}.at.where", condition=True)
            symbol, value = _special_point(where, arg_symbols(spec), point.where)
            point_exprs = [self._parse_output(spec, statics, dict(point.formulas), o.name, f"{what}.at", point.loc)
                           for o in spec.outputs]
            points.append((symbol, value, point_exprs, point))
        return exprs, conj, points

    def _parse_output(self, spec, statics, formulas: dict, output: str, what: str, loc):
        if output not in formulas:
            raise _error(loc, f"{what} has no formula for output {output!r}")
        return _parse_rule(self.catalog, spec, statics, formulas[output], f"{what}")

    def derived(self, spec, arg: model.Arg, condition: tuple):
        if len(spec.outputs) != 1:
            raise _error(arg.loc, f"cannot derive d/d{arg.name} from sympy for a function with several outputs; give formulas")
        definition = self.definition(spec, condition)
        if definition is None:
            raise _error(arg.loc, f"argument {arg.name!r} has no derivative rule and the spec has no sympy expression")
        symbol = arg_symbols(spec)[arg.name]
        try:
            result = sympy.diff(definition, symbol).doit()
        except Exception as exc:  # noqa: BLE001 - sympy raises many types on expressions it cannot differentiate
            raise _error(arg.loc, f"sympy cannot differentiate {definition} in {arg.name} ({type(exc).__name__}: {exc}); "
                                  f"give derivatives.{arg.name} a formula with a source") from None
        unknown = result.atoms(sympy.Derivative, sympy.Subs, sympy.Integral)
        if unknown:
            raise _error(
                arg.loc,
                f"sympy knows no closed form for d/d{arg.name} of {definition} (it leaves {sorted(map(str, unknown))[0]}); "
                f"give derivatives.{arg.name} a formula with a source, or mark {arg.name!r} differentiable: false with a reason",
            )
        mapping = self.reverse_map(spec)

        def to_call(expr):
            owner = mapping.get(expr.func)
            return self.catalog.callable(owner)(*expr.args) if owner else expr

        result = result.replace(lambda e: isinstance(e, sympy.Function) and e.func in mapping, to_call)
        return [result]

    # ---- implicit rules: differentiate through spec'd functions with their own rules ----------------
    def partial(self, call, index: int, loc: model.Location, trail: tuple):
        """d call / d (its traced argument ``index``), from the callee's own rule, at the call's arguments."""
        info = self.catalog.info(call)
        callee, arg = info.spec, info.spec.traced_args[index]
        label = f"{callee.name}" + (f".{callee.outputs[info.output].name}" if len(callee.outputs) > 1 else "")
        if not arg.differentiable:
            reason = arg.why or f"arguments of kind {arg.kind} are not differentiable"
            raise _error(loc, f"the implicit rule needs d {label} / d {arg.name}, but {callee.name} is not "
                              f"differentiable in {arg.name!r} ({reason}); mark this argument not differentiable with that reason")
        condition = tuple(sorted((k, v) for k, v in info.statics if isinstance(v, bool)))
        key = (callee.name, condition, arg.name)
        if key in trail:
            cycle = " -> ".join(f"d {n}/d {a}" for n, _, a in trail + (key,))
            raise _error(loc, f"cyclic implicit rules: {cycle}")
        exprs, conj = self.rule_exprs(callee, arg, condition, trail + (key,))
        if conj is not None and conj[info.output] != 0:
            raise _error(loc, f"the implicit rule needs d {label} / d {arg.name}, which is not holomorphic (it has a conjugate part)")
        symbols = arg_symbols(callee)
        mapping = {symbols[a.name]: v for a, v in zip(callee.traced_args, info.traced)}
        mapping.update({symbols[name]: sympy.sympify(v) for name, v in info.statics if name in symbols})
        return exprs[info.output].xreplace(mapping)

    def rule_exprs(self, spec, arg, condition: tuple, trail: tuple = ()):
        """The main expressions (per output) of d spec / d arg under ``condition``, and the conjugate parts."""
        statics = dict(condition)
        rule = model.written_rule(spec, arg.name, condition)
        if rule is not None and rule.method == "formula":
            exprs, conj, _ = self.explicit(spec, rule, statics)
            return exprs, conj
        if rule is not None and rule.method == "implicit":
            return [self.implicit(spec, rule, arg, statics, trail)], None
        return self.derived(spec, arg, condition), None

    def total_diff(self, expr, symbol, loc, trail):
        """d expr / d symbol, differentiating spec'd calls by their own rules (the chain rule)."""
        calls = [c for c in expr.atoms(AppliedUndef) if symbol in c.free_symbols]
        dummies = {c: sympy.Dummy(f"call{i}") for i, c in enumerate(calls)}
        flat = expr.xreplace(dummies)
        result = sympy.diff(flat, symbol)
        for call, dummy in dummies.items():
            outer = sympy.diff(flat, dummy)
            if outer == 0:
                continue  # a call nested in another call's arguments: counted through that call
            info = self.catalog.info(call)
            for index, value in enumerate(info.traced):
                inner = self.total_diff(value, symbol, loc, trail)
                if inner != 0:
                    result += outer * self.partial(call, index, loc, trail) * inner
        return result.xreplace({d: c for c, d in dummies.items()})

    def implicit(self, spec, rule: model.DerivativeRule, arg: model.Arg, statics: dict, trail: tuple = ()):
        """From G(args, f(args)) = 0: df/darg = -(dG/darg) / (dG/df), with G's calls differentiated by their rules."""
        what = f"derivatives.{arg.name}.implicit"
        equation = _parse_rule(self.catalog, spec, statics, rule.implicit, what, condition=True)
        if isinstance(equation, sympy.Equality):
            _check_value(equation.lhs, rule.implicit, f"{what} (left side)")
            _check_value(equation.rhs, rule.implicit, f"{what} (right side)")
            equation = equation.lhs - equation.rhs
        elif isinstance(equation, sympy.logic.boolalg.Boolean):
            raise _error(rule.implicit.loc, f"{what}: give an expression that is zero at the function's value, or Eq(lhs, rhs)")
        else:
            _check_value(equation, rule.implicit, what)
        symbols = arg_symbols(spec)
        own = self.catalog.callable(spec)(**{a.name: statics[a.name] if a.kind == "static_bool" else symbols[a.name]
                                             for a in spec.args})
        if own not in equation.atoms(AppliedUndef):
            raise _error(rule.implicit.loc, f"{what}: the equation must contain the function's own value {own}")
        value = sympy.Dummy(spec.name)
        equation = equation.xreplace({own: value})
        loc = rule.implicit.loc
        d_value = self.total_diff(equation, value, loc, trail)
        d_arg = self.total_diff(equation, symbols[arg.name], loc, trail)
        if d_value == 0:
            raise _error(loc, f"{what}: the equation does not depend on the function's value")
        derivative = (-d_arg / d_value).xreplace({value: own})
        branches = []
        # a bound SciPy clamps to is not a root either, but there its value is constant: 0 comes first
        for key, result, meaning in (("constant_where", 0, "SciPy's value is constant"),
                                     ("nan_where", sympy.nan, "SciPy's value is not a root")):
            formula = getattr(rule, key)
            if formula is None:
                continue
            condition = _parse_rule(self.catalog, spec, statics, formula, f"derivatives.{arg.name}.{key}", condition=True)
            if not isinstance(condition, sympy.logic.boolalg.Boolean):
                raise _error(formula.loc, f"derivatives.{arg.name}.{key}: give a condition (a comparison, And, Or), "
                                          f"where {meaning}")
            branches.append((result, condition))
        return sympy.Piecewise(*branches, (derivative, True)) if branches else derivative

    # ---- cross-check ------------------------------------------------------------------------------
    def cross_check(self, spec, arg, condition, exprs, conj, points, loc, *, explicit: bool = True,
                    real_only: bool = False) -> str:
        """Check the rule against sympy's derivative of the spec's definition; without one, an explicit
        formula against mpmath's numerical derivative of the reference (mpcheck). An implicit rule is
        derived from its forward functions' rules, which are checked themselves."""
        definition = self.definition(spec, condition) if spec.sympy else None
        if definition is None:
            if not explicit:
                return "not cross-checked: the spec has no sympy expression"
            return mpcheck.check(self.catalog, spec, arg, condition, exprs, conj, loc)
        if len(spec.outputs) != 1:
            return "not cross-checked: several outputs"
        # a point at infinity holds the main formula's limit, not an identity: it is checked against
        # sympy's derivative far out instead of at the sample points themselves
        candidates = [("formula", exprs[0], None)] + [(f"special point {str(p[3].where.text)!r}", p[2][0],
                                                       None if p[1].is_finite else (p[0], sympy.sign(p[1])))
                                                      for p in points]
        symbols = arg_symbols(spec)
        rng = random.Random(f"{spec.name}:{arg.name}:{condition}")
        samples = _sample_points(spec, rng, CROSS_CHECK_POINTS, real=True)
        # a `real` formula is the derivative along the real axis at real points only
        complex_samples = _sample_points(spec, rng, CROSS_CHECK_POINTS, real=False) if spec.tests.complex_domain and not real_only else []
        t = sympy.Dummy("t", real=True)  # a Dummy: an argument may be called t (stdtr)
        x = symbols[arg.name]
        slopes: dict = {}  # direction -> d/dt definition(x + direction t), differentiated once
        expected_at: dict = {}  # (point, direction) -> sympy's derivative there, shared by every candidate

        def expected(point, direction):
            key = (tuple(sorted(point.items())), direction)
            if key not in expected_at:
                if direction not in slopes:
                    slopes[direction] = sympy.diff(definition.xreplace({x: x + direction * t}), t)
                values = {symbols[a.name]: point[a.name] for a in spec.traced_args}
                expected_at[key] = complex(slopes[direction].xreplace(values).subs(t, 0).evalf(CROSS_CHECK_DIGITS))
            return expected_at[key]

        # static ints take their first test value (or their default), as the test suites' first case does
        fixed = {symbols[a.name]: sympy.Integer(spec.tests.statics.get(a.name, (a.default,))[0])
                 for a in spec.args if a.kind == "static_int"}
        if fixed:
            definition = definition.xreplace(fixed)
            candidates = [(label, c.xreplace(fixed), limit) for label, c, limit in candidates]
            conj = None if conj is None else [c.xreplace(fixed) for c in conj]

        checked = 0
        for label, candidate, limit in candidates:
            try:
                rule, missing = self.to_sympy(candidate)
                conj_rule = None
                if conj is not None:
                    conj_rule, more = self.to_sympy(conj[0])
                    missing += more
            except Exception as exc:  # noqa: BLE001 - sympy raises many types on definitions it cannot substitute into
                return f"not cross-checked: sympy cannot substitute into {definition} ({type(exc).__name__})"
            if rule is None or (conj is not None and conj_rule is None):
                if explicit and label == "formula":  # sympy cannot evaluate a callee (a kernel): mpmath can
                    return mpcheck.check(self.catalog, spec, arg, condition, exprs, conj, loc)
                return f"not cross-checked: no sympy expression for {', '.join(missing)} (verified against mpmath by the test suite)"
            # a point at infinity: the formula's distance from sympy's derivative at |x| = 1e16 must be
            # within the tolerance, or a tenth of what it is at |x| = 1e8 (it tends to the limit)
            checks = [(p, (1,), None) for p in samples] + [(p, (1, sympy.I), None) for p in complex_samples]
            if limit is not None:
                symbol, sign = limit
                name = next(a.name for a in spec.traced_args if symbols[a.name] == symbol)
                checks = [({**p, name: sign * LIMIT_CHECK_FAR}, (1,), {**p, name: sign * LIMIT_CHECK_NEAR}) for p in samples]

            def distance(point, direction):
                e = expected(point, direction)
                got = rule * direction
                if conj_rule is not None:
                    got += conj_rule * sympy.conjugate(direction)
                got = got.xreplace({symbols[a.name]: point[a.name] for a in spec.traced_args})
                g = complex(got.evalf(CROSS_CHECK_DIGITS))
                return g, e, abs(g - e)

            for point, directions, nearer in checks:
                for direction in directions:
                    try:
                        g, e, far = distance(point, direction)
                        near = distance(nearer, direction)[2] if nearer is not None else None
                    except Exception as exc:  # noqa: BLE001 - sympy raises many types on what it cannot evaluate
                        return f"not cross-checked: sympy cannot evaluate the derivative numerically at {point} ({type(exc).__name__})"
                    if not cmath.isfinite(e):
                        return f"not cross-checked: sympy's derivative is not finite at {point}"
                    # NaN compares false: a NaN formula disagrees too
                    agrees = far <= CROSS_CHECK_RTOL * max(1.0, abs(e)) or (near is not None and far <= near / 10)
                    if not agrees:
                        where = ", ".join(f"{k}={v}" for k, v in point.items())
                        raise _error(loc, f"derivatives.{arg.name}: the {label} disagrees with sympy's derivative of "
                                          f"{definition} at {where} (direction {direction}): {g} != {e}"
                                          f"{self._definitions_used(spec, candidate)}")
                    checked += 1
        return f"agrees with sympy's derivative of {definition} at {checked} sample points"


def _special_point(where, symbols: dict, formula: model.Formula):
    """``Eq(x, c)`` with x a traced argument and c a number or ±inf: the only special-point form."""
    if isinstance(where, sympy.Equality):
        lhs, rhs = where.lhs, where.rhs
        if rhs.is_Symbol and lhs.is_number:
            lhs, rhs = rhs, lhs
        if lhs.is_Symbol and lhs in symbols.values() and (rhs.is_finite and rhs.is_number or rhs in (sympy.oo, -sympy.oo)):
            return lhs, rhs
    raise _error(formula.loc, f"a special point must be Eq(argument, number) or Eq(argument, inf), got {formula.text!r}")


def _decimal(x: float):
    return sympy.Float(str(round(x, 3)), 50)


def _sample_points(spec: model.Spec, rng: random.Random, count: int, *, real: bool) -> list:
    """Points inside the test domain: short decimals as 50-digit floats.

    Floats rather than Rationals: sympy raises an exact rational to a rational power by factoring
    numerator and denominator, which can take seconds to minutes ((1 + t**2/df)**((df + 1)/2)).
    """
    points = []
    for _ in range(count):
        point = {}
        for arg in spec.traced_args:
            lo, hi = spec.tests.domain[arg.name]
            if arg.kind == "integer":
                point[arg.name] = sympy.Integer(rng.randint(int(lo), int(hi)))
            elif not real and arg.name in spec.tests.complex_domain:
                (rlo, rhi), (ilo, ihi) = spec.tests.complex_domain[arg.name]
                point[arg.name] = _decimal(rng.uniform(rlo, rhi)) + sympy.I * _decimal(rng.uniform(ilo, ihi))
            else:
                point[arg.name] = _decimal(rng.uniform(lo, hi))
        points.append(point)
    return points


def plan_rule(deriver: _Deriver, spec: model.Spec, condition: tuple, arg: model.Arg, exprs, conj, points,
              loc: model.Location):
    """Turn the rule's expressions into needs (evaluations) and JAX code over them; errors point at ``loc``."""
    planner = _Planner(deriver.catalog, spec, condition, arg, loc)
    derivative = [planner.replace_calls(e) for e in _with_points(exprs, points)]
    conjugate = [planner.replace_calls(e) for e in conj] if conj is not None else None
    if spec.core:
        _check_core_needs(planner, arg, loc)
    _check_shifted(derivative + (conjugate or []), spec, arg, loc)
    code = planner.printer(derivative + (conjugate or []))
    statics, needs = planner.need_records(code, derivative + (conjugate or []))
    shared, derivative = _common_subexpressions(derivative, code, "derivative")
    if conjugate is not None:
        conjugate_shared, conjugate = _common_subexpressions(conjugate, code, "conjugate derivative")
    return (
        statics,
        needs,
        (shared, derivative),
        (conjugate_shared, conjugate) if conjugate is not None else None,
    )


def _common_subexpressions(exprs, code, what) -> tuple:
    """((name, code), ...) for the subexpressions ``exprs`` repeat, and each expression's code over them.

    A rule written as alternatives (stdtr's in df compares three forms' cancellation before taking one)
    repeats whole sums; JAX traces, and differentiates again at second order, every repetition, so a
    long rule took seconds to compile. The names are ``_c0``, ``_c1``, ...: arguments and needs never
    start with an underscore."""
    replacements, reduced = sympy.cse(list(exprs), symbols=sympy.numbered_symbols("_c"))
    return (tuple((str(name), code(value, what)) for name, value in replacements),
            tuple(code(e, what) for e in reduced))


def _check_core_needs(planner, arg: model.Arg, loc: model.Location) -> None:
    """A rule of a function with core dimensions may call the function itself at its own static values
    (``legendre_p(n + 1, z, diff_n=diff_n)`` in legendre_p's rule: the same core shape) and elementwise
    functions: those are evaluated after the function, broadcast over its loop and core shape
    (``_Planner.core``), where a callee with core dimensions of its own would add another core shape."""
    wrong = sorted(f"{info.spec.name}{tuple(info.traced)}" for _, info in planner.needs.values()
                   if not planner.at_own_statics(info) and (info.spec.core or not info.spec.traced_args or info.spec.reduction is not None))
    if wrong:
        raise _error(loc, f"derivatives.{arg.name}: a function with core dimensions may use its own outputs (with "
                          f"its own arguments), itself at its own static arguments (each passed on as name=name), its "
                          f"arguments, its index names, elementary functions and elementwise spec'd functions; not "
                          f"{', '.join(wrong)}, which has core dimensions, an axis or no traced arguments")


def _same_static(arg: model.Arg, value, symbols) -> bool:
    """Whether a call's value for a numeric static is the caller's own: its symbol, or the only value
    the argument admits (``sph_harm_y(n, m, theta, phi)`` in sph_harm_y's rule, whose diff_n is 0)."""
    return value == symbols[arg.name] or (arg.choices is not None and len(arg.choices) == 1 and value == arg.choices[0])


def _check_shifted(exprs, spec: model.Spec, arg: model.Arg, loc: model.Location) -> None:
    """``shift`` reads the function's own output (or its own evaluation), not an expression."""
    for expr in exprs:
        for node in expr.atoms(shift.Shift):
            if not isinstance(node.args[0], sympy.Symbol):
                raise _error(loc, f"derivatives.{arg.name}: shift of {node.args[0]}: only an output of {spec.name} "
                                  "itself at the same static values can be shifted")


class _Planner:
    """The needs of one rule: each distinct spec'd call becomes one evaluation (a ``PlannedNeed``), and
    the rule's expressions refer to it by a symbol; the function's own value is ``__value_<output>``."""

    def __init__(self, catalog: Catalog, spec: model.Spec, condition: tuple, arg: model.Arg, loc: model.Location):
        self.catalog, self.spec, self.condition, self.arg, self.loc = catalog, spec, condition, arg, loc
        self.symbols = symbols = arg_symbols(spec)
        self.own_traced = tuple(symbols[a.name] for a in spec.traced_args)
        self.placeholders = {s: sympy.Symbol(f"_{i}") for i, s in enumerate(self.own_traced)}
        self.needs: dict = {}  # (callee, statics, traced) -> (var, CallInfo)
        self.counters: dict = {}
        self.label_var: dict = {}  # "__need_<label>" symbol name -> var
        self.stages: dict = {}  # var -> stage
        self.canonical: dict = {}  # "__need_<label>" symbol -> the evaluation in placeholders, for keys
        self.core = bool(spec.core)

    def at_own_statics(self, info) -> bool:
        """Whether a call is of the function itself at its own static values (any traced arguments)."""
        return info.spec.name == self.spec.name and _statics_match(info.statics, self.condition) and all(
            _same_static(self.spec.arg(name), value, self.symbols) for name, value in info.statics
            if self.spec.arg(name).kind not in ("static_bool", "static_str"))

    def after_values(self, info) -> bool:
        """Whether an evaluation is made at the function's loop and core shape, after its values: an
        elementwise callee of a function with core dimensions."""
        return self.core and not info.spec.core

    def stage_of(self, values) -> int:
        stage = 0
        for symbol in set().union(*(sympy.sympify(v).free_symbols for v in values)):
            if symbol.name.startswith("__value_"):
                stage = max(stage, 1)
            elif symbol.name.startswith("__need_"):
                stage = max(stage, self.stages[self.label_var[symbol.name]] + 1)
        return stage

    def key_text(self, value) -> str:
        return sympy.sstr(value.xreplace(self.placeholders).xreplace(self.canonical), order="lex")

    def _replace_call(self, call):
        info = self.catalog.info(call)
        if info is None:
            raise _error(self.loc, f"derivatives.{self.arg.name}: cannot evaluate {call}: not a spec'd function")
        if info.traced == self.own_traced and self.at_own_statics(info):
            return sympy.Symbol(f"__value_{info.output}")
        key = (info.spec.name, info.statics, info.traced)
        if key not in self.needs:
            self.counters[info.spec.name] = self.counters.get(info.spec.name, 0) + 1
            var = f"{info.spec.name}_{self.counters[info.spec.name]}"
            self.needs[key] = (var, info)
            # with core dimensions an elementwise evaluation follows the function's own (a later round trip),
            # at its loop and core shape: the values of a call of the loop shape alone would not broadcast
            # against it; the function itself at other traced arguments has its core shape already
            self.stages[var] = max(self.stage_of(info.traced), 1 if self.after_values(info) else 0)
        var, _ = self.needs[key]
        label = var if len(info.spec.outputs) == 1 else f"{var}[{info.output}]"
        name = f"__need_{label}"
        self.label_var[name] = var
        self.canonical[sympy.Symbol(name)] = sympy.Symbol(
            f"{info.spec.name}{list(info.statics)}[{info.output}]({', '.join(self.key_text(v) for v in info.traced)})")
        return sympy.Symbol(name)

    def replace_calls(self, expr):
        return expr.replace(lambda e: isinstance(e, AppliedUndef), self._replace_call)

    def printer(self, exprs):
        """``code(expr, what)``: JAX code for an expression over the needs, the arguments and the outputs."""
        printer_names = {}
        need_values = [sympy.sympify(v) for _, info in self.needs.values() for v in info.traced]
        for symbol in set().union(*[e.free_symbols for e in exprs + need_values]):
            if symbol.name.startswith("__value_"):
                printer_names[symbol.name] = self.spec.outputs[int(symbol.name[len("__value_"):])].name
            elif symbol.name.startswith("__need_"):
                printer_names[symbol.name] = symbol.name[len("__need_"):]
        reserved = {a.name for a in self.spec.args} | {o.name for o in self.spec.outputs}
        for var, _ in self.needs.values():
            if var in reserved:
                raise _error(self.loc, f"internal name {var!r} collides with an argument or output name; rename it")
        printer = JaxsciPrinter(printer_names)

        def code(expr, what):
            try:
                return printer.doprint(expr)
            except PrintError as exc:
                raise _error(self.loc, f"derivatives.{self.arg.name}: {what}: {exc}") from None

        return code

    def need_records(self, code, exprs) -> tuple:
        """(the caller's static ints the rule's code uses, the needs in evaluation order: by stage,
        then by name). A need's static int may be an integer polynomial in the caller's static ints
        (``jvp(v, z, n + 1)``), computed when the rule runs."""
        own_ints = {self.symbols[a.name] for a in self.spec.args if a.kind == "static_int"}
        # the rule's own code may use static floats too (pbdv_seq's order v - floor(v) + k)
        own_floats = {self.symbols[a.name] for a in self.spec.args if a.kind == "static_float"}
        used_ints = set()
        for expr in exprs:
            used_ints |= expr.free_symbols & (own_ints | own_floats)
        records = []
        for key in sorted(self.needs, key=lambda k: (self.stages[self.needs[k][0]], self.needs[k][0])):
            var, info = self.needs[key]
            statics, statics_code = info.statics, None
            symbolic = [(name, value) for name, value in info.statics if isinstance(value, sympy.Basic)]
            for name, value in symbolic:
                if not (info.spec.arg(name).kind == "static_int" and value.free_symbols <= own_ints
                        and value.is_integer and value.is_polynomial(*value.free_symbols)):
                    raise _error(self.loc, f"derivatives.{self.arg.name}: {var} passes {name}={value} on as a symbol; "
                                           "a needed evaluation takes fixed static values, or an integer polynomial "
                                           "in the caller's static ints for a static int")
                used_ints |= value.free_symbols
            if symbolic:
                statics = tuple((name, sympy.sstr(value) if isinstance(value, sympy.Basic) else value)
                                for name, value in info.statics)
                statics_code = tuple((name, sympy.sstr(value) if isinstance(value, sympy.Basic) else repr(value))
                                     for name, value in info.statics)
            args = []
            for value in info.traced:
                used_ints |= sympy.sympify(value).free_symbols & own_ints
                if value in self.own_traced and not self.after_values(info):  # else reshaped to broadcast
                    args.append(PlannedArg(same_as=self.own_traced.index(value), key=None, code=None))
                else:
                    args.append(PlannedArg(same_as=None, key=self.key_text(value), code=code(value, f"argument of {var}")))
            records.append(PlannedNeed(var=var, spec=info.spec, statics=statics, args=tuple(args),
                                       stage=self.stages[var],
                                       where=() if self.core else _special_point_where(info.traced, self.own_traced),
                                       statics_code=statics_code))
        used = tuple(a.name for a in self.spec.args if self.symbols.get(a.name) in used_ints)
        return used, tuple(records)


def _with_points(per_output_main, per_output_points):
    """Each output's main expression, with its special points (``at``) as Piecewise branches."""
    combined = []
    for k, main in enumerate(per_output_main):
        expr = main
        # points at infinity outermost: the special formulas of finite points are then evaluated at their
        # finite stand-in there too, so reverse mode sees no inf in a branch that is not taken
        inner_first = [p for p in reversed(per_output_points) if p[1].is_finite] + \
                      [p for p in reversed(per_output_points) if not p[1].is_finite]
        for symbol, value, point_exprs, _ in inner_first:
            shared = {c for c in main.atoms(AppliedUndef)}
            special = point_exprs[k]
            masked_calls = {}
            for call in special.atoms(AppliedUndef):
                if call not in shared:
                    masked_calls[call] = call.xreplace({symbol: Mask(symbol, value)})
            special = special.xreplace(masked_calls)
            expr = sympy.Piecewise((special, _at(symbol, value)), (_safe(expr, symbol, value), True))
        combined.append(expr)
    return combined


def _at(symbol, value):
    """The condition symbol == value (at ±inf, AtInfinity: sympy would make Eq(x, inf) False)."""
    return sympy.Eq(symbol, value) if value.is_finite else AtInfinity(symbol, sympy.sign(value))


def _special_point_where(traced_values, own_traced) -> tuple:
    """The special point an evaluation is used at, from the Mask(x, c) in its arguments, as
    ((index of x among the caller's traced arguments, c as Python code), ...); () where it has none."""
    masks = set().union(*(sympy.sympify(v).atoms(Mask) for v in traced_values))
    where = set()
    for mask in masks:
        symbol, value = mask.args
        if symbol not in own_traced or not value.is_number:
            return ()  # not a plain point: evaluate everywhere
        value = complex(value)
        code = repr(value.real if value.imag == 0 else value)
        where.add((own_traced.index(symbol), f"float({code!r})" if cmath.isinf(value) else code))
    return tuple(sorted(where))


def _statics_match(call_statics, own_condition) -> bool:
    own = dict(own_condition)
    return all(own.get(k, v) == v for k, v in call_statics)


def _safe(expr, symbol, value):
    """Evaluate the elementary parts of ``expr`` away from the special point (see SafeValue).

    Spec'd calls keep their true arguments: they are shared with the primal and other rules.
    """
    calls = {call: sympy.Dummy() for call in expr.atoms(AppliedUndef)}
    restored = {dummy: call for call, dummy in calls.items()}
    return expr.xreplace(calls).xreplace({symbol: SafeValue(symbol, value)}).xreplace(restored)


def derive_spec(deriver: _Deriver, spec: model.Spec) -> tuple:
    """Every case's rules; all the spec's errors are raised together (one per argument and case)."""
    if spec.reduction is not None:  # over an axis: tangent rules of their own (generator/reduction.py)
        from .reduction import derive

        return derive(spec)
    static_bools = {a.name for a in spec.args if a.kind == "static_bool"}
    cases, errors = [], []
    choices = {a.name: a.choices for a in spec.args if a.choices is not None}
    traced_index = {a.name: i for i, a in enumerate(spec.traced_args)}
    for condition in model.all_conditions(static_bools):
        if any(name in choices and value not in choices[name] for name, value in condition):
            continue  # an unsupported value: the core rejects it before any rule is needed
        rules = []
        for arg in spec.differentiable_args:
            try:
                rules.append(_derive_arg(deriver, spec, condition, arg, traced_index[arg.name]))
            except SpecError as exc:
                if str(exc) not in map(str, errors):  # the same error under several static cases is one
                    errors.append(exc)
        cases.append(CaseRules(condition=condition, rules=tuple(rules)))
    omitted = tuple(sorted((a.name, None) for a in spec.args if a.optional))
    written = tuple(dataclasses.replace(r, when=()) for r in spec.derivatives if omitted and r.when == omitted)
    if written:
        # calls that leave the optional arguments out: the spec without them, with the when_omitted rules
        reduced = dataclasses.replace(spec, args=tuple(a for a in spec.args if not a.optional), sympy=(), derivatives=written)
        rules = []
        for index, arg in enumerate(reduced.traced_args):
            if not arg.differentiable:
                continue
            try:
                rules.append(_derive_arg(deriver, reduced, (), arg, index))
            except SpecError as exc:
                errors.append(exc)
        cases.append(CaseRules(condition=omitted, rules=tuple(rules)))
    if errors:
        raise SpecErrors(errors)
    return tuple(cases)


def _derive_arg(deriver: _Deriver, spec: model.Spec, condition: tuple, arg: model.Arg, index: int) -> ArgRule:
    statics = dict(condition)
    rule = model.written_rule(spec, arg.name, condition)
    if rule is not None and rule.method == "formula":
        exprs, conj, points = deriver.explicit(spec, rule, statics)
        if spec.core:  # what a core rule may call is said before any numerical check disagrees with it
            plan_rule(deriver, spec, condition, arg, exprs, conj, points, rule.loc)
        check = deriver.cross_check(spec, arg, condition, exprs, conj, points, rule.loc)
        method, source = "formula", rule.source
        shown = tuple((name, f.text) for name, f in rule.formulas)
    elif rule is not None and rule.method == "implicit":
        exprs, conj, points = [deriver.implicit(spec, rule, arg, statics)], None, []
        check = deriver.cross_check(spec, arg, condition, exprs, conj, points, rule.loc, explicit=False)
        if check.startswith("not cross-checked"):
            check = f"implicit-function rule on {rule.implicit.text!r}, from the spec'd derivatives of the functions in it"
        method, source = "implicit", rule.source
        shown = tuple((o.name, sympy.sstr(e)) for o, e in zip(spec.outputs, exprs))
    else:
        exprs, conj, points = deriver.derived(spec, arg, condition), None, []
        check = "derived by sympy"
        method, source = "sympy", "derived by sympy"
        shown = tuple((o.name, sympy.sstr(e)) for o, e in zip(spec.outputs, exprs))
    loc = rule.loc if rule is not None else arg.loc
    statics, needs, (derivative_common, derivative), conjugate = plan_rule(deriver, spec, condition, arg, exprs, conj,
                                                                            points, loc)
    conjugate_common, conjugate = conjugate if conjugate is not None else ((), None)
    real = _real_axis_rule(deriver, spec, condition, arg, index, rule) if rule is not None and rule.reals else None
    return ArgRule(arg=arg, traced_index=index, method=method, source=source, formulas=shown, needs=needs,
                   derivative=derivative, conjugate=conjugate, check=check, statics=statics,
                   derivative_common=derivative_common, conjugate_common=conjugate_common, real=real)


def _real_axis_rule(deriver: _Deriver, spec: model.Spec, condition: tuple, arg: model.Arg, index: int,
                    rule: model.DerivativeRule) -> ArgRule:
    """The rule's `real` formula as a rule of its own: the derivative along the real axis, checked there
    (against sympy, or mpmath's derivative of the reference), for calls with a real argument."""
    what = f"derivatives.{rule.arg}.real"
    exprs = [deriver._parse_output(spec, dict(condition), dict(rule.reals), o.name, what, rule.loc) for o in spec.outputs]
    check = deriver.cross_check(spec, arg, condition, exprs, None, [], rule.loc, real_only=True)
    statics, needs, (derivative_common, derivative), _ = plan_rule(deriver, spec, condition, arg, exprs, None, [], rule.loc)
    return ArgRule(arg=arg, traced_index=index, method="formula", source=rule.source,
                   formulas=tuple((name, f.text) for name, f in rule.reals), needs=needs, derivative=derivative,
                   conjugate=None, check=check, statics=statics, derivative_common=derivative_common)


def derive_all(specs) -> dict:
    """name -> CaseRules per static condition, for every spec; every spec's errors are raised together."""
    deriver = _Deriver(specs)
    rules, errors = {}, []
    for spec in specs:
        try:
            rules[spec.name] = derive_spec(deriver, spec)
        except SpecErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise SpecErrors(errors)
    return rules
