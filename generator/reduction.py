"""Reductions and normalisations over an axis argument (logsumexp, softmax, log_softmax).

Loading: the spec's top-level ``reduction`` key, and its ``derivatives`` (and ``when_omitted``) in the
reduction form, where a rule gives either each output's partial derivative (``formula``/``formulas``)
or its tangent (``jvp``/``jvps``), an expression linear in ``t``, the argument's tangent, in which
``sum(e)`` sums ``e`` over the reduced axes and keeps them. Deriving: each rule becomes one tangent
expression per output, parsed by sympy, checked to be linear in ``t``, and printed as JAX code for
templates/reduction.py.j2; the core (templates/runtime/reduction.py) calls it with the outputs kept at
the reduced axes (size 1), so outputs and arguments broadcast against each other.
"""
from __future__ import annotations

import sympy

from . import model
from .derive import ArgRule, CaseRules
from .errors import SpecError, SpecErrors
from .formulas import ELEMENTARY, FormulaError, arg_symbol, parse
from .printer import JaxsciPrinter, PrintError

SHAPES = ("reduced", "input")
TANGENT = "t"  # the argument's tangent, in a jvp
REDUCE = "sum"  # the sum over the reduced axes, keeping them
REDUCE_CODE = "reduce"  # what the generated rules call it: the core passes the function in


class ReduceSum(sympy.Function):
    """``sum(e)`` of a reduction rule: ``e`` summed over the reduced axes, which are kept (size 1)."""

    nargs = 1


def load(top, path: str, args: tuple, outputs: tuple, static_bools: set, mapping, condition, formula) -> model.Reduction:
    """The ``reduction`` key and the reduction-form ``derivatives``; ``mapping``, ``condition`` and
    ``formula`` are the loader's own readers (generator/loader.py), passed in to keep one grammar."""
    m = mapping(top.get("reduction", dict), path, "reduction", top.value_line("reduction"))
    by_name = {a.name: a for a in args}
    axis = m.get("axis", str, required=True)
    if by_name.get(axis) is None or by_name[axis].kind != "static_axis":
        raise SpecError(path, m.value_line("axis"), f"reduction.axis must name the static_axis argument, got {axis!r}")
    keepdims = m.get("keepdims", str)
    if keepdims is not None and (by_name.get(keepdims) is None or by_name[keepdims].kind != "static_bool"):
        raise SpecError(path, m.value_line("keepdims"), f"reduction.keepdims must name a static_bool argument, got {keepdims!r}")
    names = [o.name for o in outputs]
    raw_shapes = m.get("shapes", dict, required=True)
    sm = mapping(raw_shapes, path, "reduction.shapes", m.value_line("shapes"))
    shapes = []
    for name in names:
        shape = sm.get(name, str, required=True)
        if shape not in SHAPES:
            raise SpecError(path, sm.value_line(name), f"reduction.shapes.{name} must be one of {', '.join(SHAPES)}, got {shape!r}")
        shapes.append((name, shape))
    sm.done()
    conditional = {}
    for key in ("only_when", "real_when"):
        raw = m.get(key, dict, default={})
        cm = mapping(raw, path, f"reduction.{key}", m.value_line(key))
        found = []
        for name in list(raw):
            if name not in names:
                raise SpecError(path, cm.key_line(name), f"reduction.{key} names {name!r}, which is not an output ({', '.join(names)})")
            found.append((name, condition(cm.get(name, dict), path, cm.value_line(name), static_bools, f"reduction.{key}.{name}")))
        cm.done()
        conditional[key] = tuple(found)
    if keepdims is not None and any(keepdims in dict(c) for _, c in conditional["only_when"] + conditional["real_when"]):
        raise SpecError(path, m.line, "reduction: keepdims changes shapes, never which outputs there are or their dtypes")
    loc = m.loc()
    m.done()
    reduction = model.Reduction(axis=axis, keepdims=keepdims, shapes=tuple(shapes), only_when=conditional["only_when"],
                                real_when=conditional["real_when"], rules=(), loc=loc)
    rules = _rules(top, "derivatives", path, args, reduction, static_bools, mapping, condition, formula, omitted=())
    optional = tuple(sorted((a.name, None) for a in args if a.optional))
    if top.has("when_omitted"):
        wm = mapping(top.get("when_omitted", dict), path, "when_omitted", top.value_line("when_omitted"))
        present = tuple(a for a in args if not a.optional)
        rules += _rules(wm, "derivatives", path, present, reduction, static_bools, mapping, condition, formula, omitted=optional)
        wm.done()
    else:
        top.taken.add("when_omitted")
    return model.Reduction(**{**reduction.__dict__, "rules": rules})


def present_outputs(reduction: model.Reduction, outputs: tuple, full: tuple) -> tuple:
    """The outputs a call with the static values ``full`` returns (return_sign=False has no sign)."""
    only = dict(reduction.only_when)
    return tuple(o for o in outputs if o.name not in only or model.matches(only[o.name], full))


def _rules(top, key: str, path: str, args: tuple, reduction: model.Reduction, static_bools: set, mapping, condition,
           formula, *, omitted: tuple) -> tuple:
    raw = top.get(key, dict, default={})
    dm = mapping(raw, path, key, top.value_line(key))
    rules = []
    what_all = f"when_omitted.{key}" if omitted else key
    for arg in args:
        if not arg.differentiable:
            if arg.name in raw:
                raise SpecError(path, dm.key_line(arg.name), f"{what_all}.{arg.name}: the argument is not differentiable")
            continue
        if arg.name not in raw:
            raise SpecError(path, dm.line, f"{what_all} has no rule for the differentiable argument {arg.name!r}")
        value = dm.get(arg.name, (dict, list))
        items = value if isinstance(value, list) else [value]
        cases = []
        for i, item in enumerate(items):
            what = f"{what_all}.{arg.name}" + (f"[{i}]" if isinstance(value, list) else "")
            line = getattr(item, "line", dm.value_line(arg.name))
            im = mapping(item, path, what, line)
            when = condition(im.get("when", dict), path, im.value_line("when"), static_bools, what) if isinstance(value, list) else ()
            if not isinstance(value, list) and im.has("when"):
                raise SpecError(path, im.key_line("when"), f"{what}: 'when' belongs to a list of cases")
            jvps, written = _tangents(im, path, what, reduction, formula, when)
            source = im.get("source", str, required=True).strip()
            im.done()
            cases.append(model.ReductionRule(arg=arg.name, when=tuple(sorted(when + omitted)), jvps=jvps, written=written,
                                             source=source, loc=model.Location(path, line)))
        for full in model.all_conditions(static_bools - ({reduction.keepdims} if reduction.keepdims else set())):
            hits = [c for c in cases if model.matches(tuple(w for w in c.when if w[1] is not None), full)]
            label = ", ".join(f"{k}={v}" for k, v in full) or "all calls"
            if len(hits) != 1:
                raise SpecError(path, dm.value_line(arg.name), f"{what_all}.{arg.name} has {len(hits)} cases for {label}; it needs one")
        rules.extend(cases)
    dm.done()
    return tuple(rules)


def _tangents(im, path: str, what: str, reduction: model.Reduction, formula, when: tuple) -> tuple:
    """((output, tangent Formula or None), ...) and the texts as written, from formula(s) or jvp(s),
    for the outputs a call under ``when`` may return."""
    only, given_when = dict(reduction.only_when), dict(when)
    names = [name for name, _ in reduction.shapes
             if all(given_when.get(k, v) == v for k, v in only.get(name, ()))]
    given = [k for k in ("formula", "formulas", "jvp", "jvps") if im.has(k)]
    if len(given) != 1:
        raise SpecError(path, im.line, f"{what} needs exactly one of 'formula', 'formulas' (partial derivatives, "
                                       f"contracted over the reduced axes) or 'jvp', 'jvps' (tangents in t), got {given or 'none'}")
    key = given[0]
    if key in ("formula", "jvp"):
        if len(names) != 1:
            raise SpecError(path, im.key_line(key), f"{what}: the function has {len(names)} outputs; use '{key}s' with one per output ({', '.join(names)})")
        texts = {names[0]: im.get(key, (str, float))}
        lines = {names[0]: im.value_line(key)}
    else:
        raw = im.get(key, dict)
        sub = type(im)(raw, path, f"{what}.{key}", im.value_line(key))
        texts, lines = {}, {}
        for name in list(raw):
            if name not in names:
                raise SpecError(path, sub.key_line(name), f"{what}.{key} names {name!r}, which is not an output of a call "
                                                          f"in this case ({', '.join(names)})")
            texts[name] = sub.get(name, (str, float))
            lines[name] = sub.value_line(name)
        sub.done()
        missing = [n for n in names if n not in texts]
        if missing:
            raise SpecError(path, sub.line, f"{what}.{key} has nothing for output(s) {', '.join(missing)} (write 0 "
                                            "for an output that is piecewise constant in the argument)")
    shapes = dict(reduction.shapes)
    jvps, written = [], []
    for name in names:
        f = formula(texts[name], model.Location(path, lines[name]), f"{what}.{key}.{name}")
        written.append((name, f.text))
        if f.text == "0":
            jvps.append((name, None))
        elif key.startswith("jvp"):
            jvps.append((name, f))
        else:  # a partial derivative: reduced outputs sum it against the tangent, input-shaped ones multiply
            text = f"{REDUCE}(({f.text}) * {TANGENT})" if shapes[name] == "reduced" else f"({f.text}) * {TANGENT}"
            jvps.append((name, model.Formula(text=text, loc=f.loc)))
    return tuple(jvps), tuple(written)


# ---- deriving: parse, check linearity, print ---------------------------------------------------------
def _namespace(spec: model.Spec, present: tuple) -> dict:
    names = dict(ELEMENTARY)
    names.update({a.name: arg_symbol(a) for a in spec.args if a.traced})
    names.update({o.name: sympy.Symbol(o.name) for o in present})
    names[TANGENT] = sympy.Symbol(TANGENT)
    names[REDUCE] = ReduceSum
    return names


def _linear_in_tangent(expr) -> bool:
    """Whether ``expr`` is (real-)linear in t: ``sum``, ``re``, ``im`` and ``conjugate`` are, so each
    may be replaced by a factor of its own; what is left must be a polynomial of degree one in t."""
    t, k = sympy.Symbol(TANGENT), sympy.Dummy("k")
    flat = expr
    for linear in (ReduceSum, sympy.re, sympy.im, sympy.conjugate):
        factor = sympy.Dummy(linear.__name__)
        flat = flat.replace(lambda e, linear=linear: isinstance(e, linear) and e.has(t),
                            lambda e, factor=factor: factor * e.args[0])
    flat = flat.replace(ReduceSum, lambda e: k * e)
    return sympy.simplify(flat.subs(t, 0)) == 0 and sympy.simplify(sympy.diff(flat, t, 2)) == 0


class _Printer(JaxsciPrinter):
    def _print_ReduceSum(self, expr):
        return f"{REDUCE_CODE}({self._print(expr.args[0])})"


def derive(spec: model.Spec) -> tuple:
    """One CaseRules per static condition (keepdims excluded: it only reshapes), the rules' code being
    each output's tangent (None where it is zero); every error of the spec is raised together."""
    reduction = spec.reduction
    bools = {a.name for a in spec.args if a.kind == "static_bool"} - {reduction.keepdims}
    optional = tuple(sorted((a.name, None) for a in spec.args if a.optional))
    conditions = model.all_conditions(bools) + ([tuple(sorted(c + optional)) for c in model.all_conditions(bools)] if optional else [])
    cases, errors = [], []
    traced = [a for a in spec.traced_args]
    for full in conditions:
        omitted = {name for name, value in full if value is None}
        present_args = [a for a in traced if a.name not in omitted]
        outputs = present_outputs(reduction, spec.outputs, tuple(w for w in full if w[1] is not None))
        rules = []
        for rule in reduction.rules:
            if set(w for w in rule.when if w[1] is None) != {(n, None) for n in omitted}:
                continue
            if not model.matches(tuple(w for w in rule.when if w[1] is not None), full):
                continue
            try:
                rules.append(_arg_rule(spec, rule, present_args, outputs))
            except SpecError as exc:
                if str(exc) not in map(str, errors):
                    errors.append(exc)
        cases.append(CaseRules(condition=full, rules=tuple(rules)))
    if errors:
        raise SpecErrors(errors)
    return tuple(cases)


def _arg_rule(spec: model.Spec, rule: model.ReductionRule, present_args: list, outputs: tuple) -> ArgRule:
    names = _namespace(spec, outputs)
    for a in spec.traced_args:
        if a not in present_args:
            names.pop(a.name)  # an omitted argument is not there to use
    arg = spec.arg(rule.arg)
    present = {o.name for o in outputs}
    codes = []
    for output, formula in rule.jvps:
        if output not in present:
            continue
        if formula is None:
            codes.append("None")
            continue
        try:
            expr = parse(formula.text, names)
        except FormulaError as exc:
            raise SpecError(formula.loc.path, formula.loc.line, f"derivatives.{rule.arg}: {exc}") from None
        if not _linear_in_tangent(expr):
            raise SpecError(formula.loc.path, formula.loc.line,
                            f"derivatives.{rule.arg}: the tangent {sympy.sstr(expr)} of {output} is not linear in t")
        try:
            codes.append(_Printer().doprint(expr))
        except PrintError as exc:
            raise SpecError(formula.loc.path, formula.loc.line, f"derivatives.{rule.arg}: {exc}") from None
    return ArgRule(arg=arg, traced_index=[a.name for a in present_args].index(arg.name), method="formula",
                   source=rule.source, formulas=tuple((o, text) for o, text in rule.written if o in present),
                   needs=(), derivative=tuple(codes), conjugate=None,
                   check="parsed by sympy and checked linear in the tangent; verified by tests/test_reductions.py against mpmath")


def check(spec: model.Spec) -> None:
    """Cross-field rules of a reduction spec: one array to reduce, outputs of known dtypes."""
    traced = spec.traced_args
    if not traced or traced[0].optional or any(a.kind == "integer" for a in traced):
        raise SpecError(spec.path, spec.reduction.loc.line, "a reduction reduces its first traced argument, which must be "
                                                            "real or complex and not optional")
    if spec.guard is not None:
        raise SpecError(spec.path, spec.guard.loc.line, "a reduction cannot have a guard")
    if any(o.dtype != "promoted" for o in spec.outputs):
        raise SpecError(spec.path, spec.reduction.loc.line, "a reduction's outputs have the promoted dtype "
                                                            "(reduction.real_when gives the real one under a condition)")
