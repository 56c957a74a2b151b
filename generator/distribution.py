"""Distribution specs (``specs/stats/<name>.yaml``) -> ``Distribution``; every problem is ``path:line: message``.

A distribution spec gives each method of SciPy's distribution in *standard form* (``loc = 0``,
``scale = 1``) as a formula over jaxsci.special's functions and a few elementary functions; the runtime
core (``templates/runtime/distributions.py``) standardises ``(x - loc) / scale`` once for every
distribution, applies SciPy's support and parameter checks, and fills in the methods a spec leaves out
exactly as SciPy's ``rv_continuous`` and ``rv_discrete`` do. Derivatives come from the special
functions' own rules, through JAX, so a formula needs no derivative rules of its own.

An optional ``sampler`` is a formula in the shape parameters over jax.random's exact samplers
(``random_gamma(a)``, ``RANDOM``) for ``rvs``; without one, the core draws ppf of a uniform. Either way the
core attaches the implicit reparameterization gradient to a continuous sample.

Formulas are parsed with Python's ``ast`` and printed back unchanged apart from the names (never through
sympy, which could reorder a tail-accurate form such as ``-expm1(-x)``), in a closed namespace: the
formula's variable, the shape parameters, jaxsci.special's functions, and ``ELEMENTARY``.
"""
from __future__ import annotations

import ast
import difflib
import functools
from dataclasses import dataclass, field
from pathlib import Path

import mpmath

from . import model
from .errors import SpecError, SpecErrors
from .loader import DISTRIBUTIONS, _Mapping, _describe, _scaffold_leftovers
from .yamlload import load_yaml

FOLDER = DISTRIBUTIONS  # specs/stats/: the distribution specs, loaded here and not by generator/loader.py

TYPES = ("continuous", "discrete")
# SciPy's method names, in SciPy's order; the discrete pmf/logpmf take the place of pdf/logpdf
DENSITY = {"continuous": ("pdf", "logpdf"), "discrete": ("pmf", "logpmf")}
TAIL_METHODS = ("cdf", "logcdf", "sf", "logsf")
QUANTILE_METHODS = ("ppf", "isf")
MOMENTS = ("mean", "var", "entropy")  # std and median follow from var and ppf, as in SciPy
# A density and a cdf and ppf are required; the other methods default as in SciPy's rv_generic.
REQUIRED = ("cdf", "ppf")

# The variable of each method's formula: the standardised point, or the probability of a quantile.
VARIABLE = {"continuous": "x", "discrete": "k"}
PROBABILITY = "q"

# Elementary functions a formula may call, printed as jax.numpy's function of the same name.
ELEMENTARY = frozenset({
    "exp", "log", "log1p", "expm1", "logaddexp", "sqrt", "abs", "floor", "ceil", "where", "maximum", "minimum",
    "isinf", "isfinite", "isnan", "square", "sin", "cos", "tan", "arcsin", "arctan", "arctan2", "arctanh", "sinh", "cosh", "tanh", "arcsinh", "real",
})
# ...except these, the core's: at a tie their derivative is the first operand's, where jax.numpy's splits it
# in half between the operands. Formulas clamp a branch's variable with them (where(x > 1, f(maximum(x, 1)),
# g(minimum(x, 1)))), and at x = 1 exactly the halved derivative was a silent wrong number.
TIE_TO_FIRST = frozenset({"maximum", "minimum"})
CONSTANTS = {"pi": "jnp.pi", "inf": "jnp.inf", "nan": "jnp.nan"}
# Functions of the runtime core's distributions module a formula may call.
CORE = frozenset({"as_integer", "core_sum", "core_cumsum", "core_index", "core_length", "bernoulli_sum_pmf"})
# Those that act on a core axis (a ``core: 1`` shape parameter's last one; specs/README.md, Core axes): each
# needs an argument with one, and keeps it (True) or reduces it (False). The others are elementwise.
CORE_AXIS = {"core_sum": False, "core_length": False, "core_cumsum": True, "core_index": True, "bernoulli_sum_pmf": True}
# jax.random's exact samplers a ``sampler`` formula may call, as ``random_<name>(parameters...)`` -> the
# number of parameters each takes (jax.random.<name>(key, *parameters, shape, dtype)); each call gets a
# key of its own.
RANDOM = {"normal": 0, "exponential": 0, "cauchy": 0, "laplace": 0, "logistic": 0, "gumbel": 0, "uniform": 0,
          "gamma": 1, "chisquare": 1, "t": 1, "beta": 2}
RANDOM_PREFIX = "random_"
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.BitAnd, ast.BitOr, ast.USub, ast.UAdd,
              ast.Invert, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Name, ast.Load, ast.Constant,
          *_OPERATORS)
# Names an mpmath reference may use besides mpmath's own and the distribution's variables.
_REFERENCE_BUILTINS = frozenset({"abs", "min", "max", "int", "float", "len", "lambda"})


@dataclass(frozen=True)
class Code:
    """A formula as written and as printed for the generated module, after its ``let`` bindings
    (``((name, printed), ...)``: local names, each evaluated once, for the formulas after it)."""

    text: str
    code: str
    loc: model.Location
    lets: tuple = ()
    draws: int = 0  # a sampler's number of jax.random calls, each with its own key (``keys[i]``)
    core: bool = False  # its value keeps a core axis (a ``let`` binding only)
    uses: tuple = ()  # the distributions whose standard-form methods it calls (``genhyperbolic.cdf(...)``)


@dataclass(frozen=True)
class Host:
    """A method SciPy computes on the host (``scipy.stats.<name>.<method>`` in standard form), with its
    derivative rules: ``derivatives`` the spec's formulas (argument -> Code), ``blocked`` the arguments a
    tangent may not reach (argument -> why: the spec's own, or those of the method its rule uses). The
    other arguments get the core's rules (``templates/runtime/distributions.py``, ``HOST_RULES``)."""

    derivatives: dict
    blocked: dict
    loc: model.Location


@dataclass(frozen=True)
class Shape:
    name: str
    integer: bool  # SciPy requires an integer (binom's n): not differentiable, with ``why``
    why: str | None
    doc: str
    core: int = 0  # trailing core axes (poisson_binom's vector p: 1), reduced by the formulas, never broadcast


@dataclass(frozen=True)
class Tests:
    gradient_rtol: float  # first order, float64; second order is SECOND_ORDER_FACTOR times it
    value_rtol: dict  # dtype -> rtol against SciPy
    # shape parameter -> why: derivatives the stored mpmath references leave out (mpmath.diff cannot afford the
    # reference there; the why says where they are checked against mpmath instead)
    unreferenced: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Distribution:
    path: str
    name: str
    scipy: str
    type: str
    summary: str
    description: str
    references: tuple
    shapes: tuple  # Shape, ...
    valid: Code | None  # SciPy's _argcheck; None: every shape parameter is positive
    lower: Code
    upper: Code
    open_support: bool  # the density is 0 at the support's ends (SciPy's _open_support_mask)
    methods: dict  # method -> Code, in standard form
    host: dict  # method -> Host: SciPy's own method on the host, with its derivative rules
    moments: dict  # moment -> Code
    reference: dict  # method -> mpmath expression text
    tests: Tests
    loc: model.Location
    sampler: Code | None = None  # an exact standard-form sampler over jax.random's; None: rvs is ppf of a uniform
    # moments given as ``{host: true}``: SciPy's own on the host, differentiated by quadrature
    # (templates/runtime/moments.py)
    host_moments: tuple = ()

    @property
    def variable(self) -> str:
        return VARIABLE[self.type]

    @property
    def density(self) -> tuple:
        return DENSITY[self.type]

    @property
    def public_methods(self) -> tuple:
        return (*self.density, *TAIL_METHODS, *QUANTILE_METHODS)

    @property
    def public_sampling(self) -> tuple:
        return ("rvs",)

    @property
    def public_moments(self) -> tuple:
        """The moments the generated module has: std with var, median always (it is ppf(0.5))."""
        given = set(self.moments) | set(self.host_moments)
        names = [m for m in ("mean", "var") if m in given]
        names += ["std"] if "var" in given else []
        return (*names, "median", *(["entropy"] if "entropy" in given else []))

    @property
    def differentiable(self) -> tuple:
        """The arguments a tangent may reach, in the public order (the point, shapes, loc, scale)."""
        if self.type == "discrete":
            return tuple(s.name for s in self.shapes if not s.integer)
        return (self.variable, *(s.name for s in self.shapes if not s.integer), "loc", "scale")


def special_arities(special_specs: list) -> dict:
    """The functions a formula may call -> (fewest, most traced arguments, module, static keywords): jaxsci.special's
    (aliases included), and jaxsci.kernels' derivative kernels (specs/kernels/: a host method's derivative
    with no closed form over jaxsci.special, vonmises' cdf in kappa), whose integer static arguments with a
    default a formula may give by keyword (geninvgauss' ``geninvgauss_cdf_d(x, p, b, i=0, j=1)``)."""
    arities = {}
    for spec in special_specs:
        if spec.module != "special" and not spec.kernel:
            continue
        traced = [a for a in spec.args if a.traced]
        if any(a.kind.startswith("static") and not a.has_default for a in spec.args) or not traced:
            continue
        keywords = frozenset(a.name for a in spec.args if spec.kernel and a.kind == "static_int" and a.has_default)
        arity = (sum(not a.has_default for a in traced), len(traced), "kernels" if spec.kernel else "special", keywords)
        for name in (spec.name, *spec.aliases):
            arities[name] = arity
    return arities


def collect_distributions(specs_dir: Path, root: Path, special_specs: list) -> tuple[list, list]:
    """Every distribution spec that loads, and every error of those that do not."""
    arities = special_arities(special_specs)
    found, errors = [], []
    for path in sorted((specs_dir / FOLDER).glob("*.yaml")):
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        try:
            found.append(parse_distribution(path.read_text(encoding="utf-8"), shown, path.stem, arities))
        except SpecErrors as exc:
            errors.extend(exc.errors)
        except SpecError as exc:
            errors.append(exc)
    names = {d.name for d in found} | {Path(e.path).stem for e in errors}  # a spec that fails is reported once
    for d in found:
        for code in _codes(d):
            for used in code.uses:
                if used not in names:
                    errors.append(SpecError(code.loc.path, code.loc.line, f"{used}.<method>: jaxsci.stats has no {used} "
                                                                          f"(no specs/{FOLDER}/{used}.yaml)"))
    return found, errors


def _codes(d: "Distribution"):
    """Every formula of a distribution spec."""
    yield from (c for c in (d.valid, d.lower, d.upper, d.sampler) if c is not None)
    yield from d.methods.values()
    yield from d.moments.values()
    for h in d.host.values():
        yield from h.derivatives.values()


def parse_distribution(text: str, path: str, stem: str, arities: dict) -> Distribution:
    data = load_yaml(text, path)
    leftovers = _scaffold_leftovers(data, text, path)
    if leftovers:
        raise SpecErrors(leftovers)
    top = _Mapping(data, path, "distribution", 1)
    name = top.get("name", str, required=True)
    if name != stem:
        raise SpecError(path, top.value_line("name"), f"name {name!r} must match the file name {stem}.yaml")
    scipy = top.get("scipy", str, required=True)
    _check_scipy(scipy, name, path, top.value_line("scipy"))
    kind = top.get("type", str, required=True)
    if kind not in TYPES:
        raise SpecError(path, top.value_line("type"), f"type must be one of {', '.join(TYPES)}, got {kind!r}")
    shapes = _shapes(top, path, kind)
    _check_shapes_match_scipy(scipy, shapes, path, top.value_line("shapes") if top.has("shapes") else top.line)
    variable = VARIABLE[kind]
    shape_names = {s.name for s in shapes}
    core = {s.name for s in shapes if s.core}
    parameters = Namespace(shape_names, arities, core=core)
    at_point = Namespace(shape_names | {variable}, arities, core=core)
    at_probability = Namespace(shape_names | {PROBABILITY}, arities, core=core)
    if core and not top.has("valid"):
        raise SpecError(path, top.line, f"a shape parameter with a core axis ({', '.join(sorted(core))}) needs valid "
                                        "(SciPy's _argcheck, reduced over the core axis: core_sum(...) == 0, ...)")

    valid = None
    if top.has("valid"):
        valid = parameters.code(top.get("valid", str), path, top.value_line("valid"), "valid")
    support = _Mapping(top.get("support", dict, required=True), path, "support", top.value_line("support"))
    lower = parameters.code(str(support.get("lower", (str, float), required=True)), path, support.value_line("lower"), "support.lower")
    upper = parameters.code(str(support.get("upper", (str, float), required=True)), path, support.value_line("upper"), "support.upper")
    open_support = support.get("open", bool, default=False)
    if open_support and kind == "discrete":
        raise SpecError(path, support.value_line("open"), "support.open is for continuous distributions (SciPy's "
                                                         "_open_support_mask); a discrete one's support is its integers")
    support.done()

    methods_map = _Mapping(top.get("methods", dict, required=True), path, "methods", top.value_line("methods"))
    public = (*DENSITY[kind], *TAIL_METHODS, *QUANTILE_METHODS)
    methods, host = {}, {}
    for method in list(methods_map.data):
        if method not in public:
            hint = difflib.get_close_matches(str(method), public, n=1)
            raise SpecError(path, methods_map.key_line(method), f"unknown method {method!r} for a {kind} distribution"
                            + (f"; did you mean {hint[0]!r}?" if hint else f" (methods: {', '.join(public)})"))
        namespace = at_probability if method in QUANTILE_METHODS else at_point
        value = methods_map.get(method, (str, dict))
        if isinstance(value, dict) and "host" in value:
            if core:
                raise SpecError(path, methods_map.value_line(method), f"methods.{method}: a host method takes scalar "
                                                                      f"shape parameters; {', '.join(sorted(core))} has a core axis")
            # a host method's derivative formulas may call the distribution's own methods in standard form
            own = Namespace(namespace.variables, arities, own={m: 1 + len(shapes) for m in public})
            host[method] = _host_method(value, path, methods_map.value_line(method), method, kind, own, shapes)
        else:
            methods[method] = namespace.formula(value, path, methods_map.value_line(method), f"methods.{method}")
    methods_map.done()
    given = set(methods) | set(host)
    if not set(DENSITY[kind]) & given:
        raise SpecError(path, methods_map.line, f"methods needs {' or '.join(DENSITY[kind])}")
    for method in REQUIRED:
        if method not in given:
            raise SpecError(path, methods_map.line, f"methods needs {method} (a formula, or {{host: true}}: SciPy's own)")
    host = _host_rules(host, methods, kind, shapes, path, methods_map.line)

    moments, host_moments = {}, []
    if top.has("moments"):
        moments_map = _Mapping(top.get("moments", dict), path, "moments", top.value_line("moments"))
        for moment in MOMENTS:
            if moments_map.has(moment):
                value = moments_map.get(moment, (str, float, dict))
                if isinstance(value, dict) and "host" in value:
                    _host_moment(value, path, moments_map.value_line(moment), moment)
                    host_moments.append(moment)
                    continue
                moments[moment] = parameters.formula(value if isinstance(value, dict) else str(value), path,
                                                     moments_map.value_line(moment), f"moments.{moment}")
        moments_map.done()
        if "var" in host_moments and "mean" not in moments and "mean" not in host_moments:
            raise SpecError(path, moments_map.value_line("var"), "moments.var: a host var needs a mean (a formula or "
                                                                 "{host: true}): its quadrature integrates (x - mean)**2")

    sampler = None
    if top.has("sampler") and core:
        raise SpecError(path, top.value_line("sampler"), f"sampler: jax.random's samplers take scalar parameters; "
                                                         f"{', '.join(sorted(core))} has a core axis (rvs is ppf of a uniform)")
    if top.has("sampler"):
        sampler = Namespace(shape_names, arities, draws=True).formula(top.get("sampler", (str, dict)), path,
                                                                     top.value_line("sampler"), "sampler")
    reference = _reference(top, path, kind, shape_names | {variable})
    tests = _tests(top, path)
    for argument in tests.unreferenced:
        if argument not in shape_names:
            raise SpecError(path, top.value_line("tests"), f"tests.unreferenced names {argument!r}, which is not a shape parameter")
    distribution = Distribution(
        path=path, name=name, scipy=scipy, type=kind, summary=top.get("summary", str, required=True),
        description=top.get("description", str, default=""),
        references=tuple(top.get("references", list, default=[])), shapes=shapes, valid=valid, lower=lower,
        upper=upper, open_support=open_support, methods=methods, host=host, moments=moments, reference=reference, tests=tests,
        loc=model.Location(path, 1), sampler=sampler, host_moments=tuple(host_moments))
    top.done()
    return distribution


def _host_moment(value: dict, path: str, line: int | None, moment: str) -> None:
    """``{host: true}``: SciPy's own moment, whose derivatives the core computes by quadrature."""
    m = _Mapping(value, path, f"moments.{moment}", line)
    if m.get("host", bool, required=True) is not True:
        raise SpecError(path, m.value_line("host"), f"moments.{moment}.host must be true (or give a formula instead)")
    m.done()


def _host_method(value: dict, path: str, line: int | None, method: str, kind: str, namespace: "Namespace",
                 shapes: tuple) -> Host:
    """``{host: true, derivatives: {argument: formula or {not_differentiable: why}}}``."""
    m = _Mapping(value, path, f"methods.{method}", line)
    if m.get("host", bool, required=True) is not True:
        raise SpecError(path, m.value_line("host"), f"methods.{method}.host must be true (or give a formula instead)")
    variable = PROBABILITY if method in QUANTILE_METHODS else VARIABLE[kind]
    arguments = [variable, *(s.name for s in shapes)]
    derivatives, blocked = {}, {}
    table = _Mapping(m.get("derivatives", dict, default={}), path, f"methods.{method}.derivatives",
                     m.value_line("derivatives") if m.has("derivatives") else m.line)
    for name in list(table.data):
        what = f"methods.{method}.derivatives.{name}"
        if name not in arguments:
            raise SpecError(path, table.key_line(name), f"{what}: {name!r} is not an argument of {method} "
                                                        f"(its arguments: {', '.join(arguments)})")
        entry = table.get(name, (str, dict))
        if isinstance(entry, dict):
            reason = _Mapping(entry, path, what, table.value_line(name))
            blocked[name] = " ".join(reason.get("not_differentiable", str, required=True).split())
            reason.done()
        else:
            rule = Namespace(namespace.variables, namespace.arities, own=namespace.own, core=namespace.core)
            derivatives[name] = rule.code(entry, path, table.value_line(name), what)
    table.done()
    m.done()
    return Host(derivatives, blocked, model.Location(path, line))


# What a host method's automatic rules use (templates/runtime/distributions.py, HOST_RULES): the point's
# derivative needs only values; a shape parameter's is the derivative of this method. A blocked shape
# parameter there is blocked here, with its reason.
_SHAPE_RULE_USES = {"sf": "cdf", "logcdf": "cdf", "logsf": "sf", "ppf": "cdf", "isf": "sf"}


def _host_rules(host: dict, methods: dict, kind: str, shapes: tuple, path: str, line: int | None) -> dict:
    """The host methods with every argument either given a rule by the spec, or one by the core, or
    blocked with a reason; an argument the core has no rule for is an error naming it."""
    density = DENSITY[kind]
    tail_formula = "cdf" in methods or "sf" in methods
    out = {}

    def resolve(method: str) -> Host:
        if method in out:
            return out[method]
        h = host[method]
        variable = PROBABILITY if method in QUANTILE_METHODS else VARIABLE[kind]
        blocked = dict(h.blocked)
        for shape in shapes:
            name = shape.name
            if name in h.derivatives or name in blocked or shape.integer:
                continue
            used = _SHAPE_RULE_USES.get(method)
            if used is None and method == "cdf" and "sf" in methods:
                used = "sf"
            if used is None and method in density and tail_formula and kind == "continuous":
                continue  # the cdf's (or sf's) formula differentiated in the point and then here
            if used is None:
                raise SpecError(path, h.loc.line, f"methods.{method}: give derivatives.{name} (a formula, or "
                                                  "{not_differentiable: why}): the core has no rule for a host "
                                                  f"{method} in a shape parameter" + ("" if method not in density else
                                                                                     " without a cdf or sf formula"))
            if used in host:
                if used == method:
                    raise AssertionError(method)
                why = resolve(used).blocked.get(name)
                if why is not None:
                    blocked[name] = why
        if (kind == "continuous" and method in density and variable not in h.derivatives and variable not in blocked
                and not tail_formula):
            raise SpecError(path, h.loc.line, f"methods.{method}: give derivatives.{variable} (a formula, or "
                                              "{not_differentiable: why}): without a cdf or sf formula the core has no "
                                              "rule for a host density in the point")
        for name in list(h.derivatives):
            if kind == "discrete" and name == VARIABLE[kind]:
                raise SpecError(path, h.loc.line, f"methods.{method}.derivatives.{name}: a discrete distribution is a "
                                                  "step function of k (the core raises NonDifferentiableError)")
        out[method] = Host(h.derivatives, blocked, h.loc)
        return out[method]

    for method in host:
        resolve(method)
    return out


# The generated module's and functions' own names (templates/distribution.py.j2), which a let may not shadow.
_GENERATED_NAMES = frozenset({"jnp", "jax", "special", "distributions", "key", "keys", "shape", "dtype"})


class Namespace:
    """The names a formula may use: ``variables``, jaxsci.special's functions, ``ELEMENTARY``, ``CONSTANTS``,
    and in a host method's derivative formulas ``own``: the distribution's own methods in standard form
    (method -> number of arguments, the point and the shapes), printed as ``_DISTRIBUTION.standard(...)``."""

    def __init__(self, variables: set, arities: dict, draws: bool = False, own: dict | None = None,
                 core: frozenset = frozenset()):
        self.variables = variables
        self.arities = arities
        self.draws = draws  # a sampler's formula: ``random_<name>(...)`` calls jax.random's sampler
        self.own = own or {}
        self.core = frozenset(core)  # the variables with a core axis (a core shape parameter, a let bound to one)

    def formula(self, value, path: str, line: int | None, what: str) -> Code:
        """A formula: a string, or ``{let: {name: formula, ...}, value: formula}``, each ``let`` name usable
        in the formulas after it (SciPy's poisson ppf uses ``ceil(pdtrik(q, mu))`` twice; a sampler draws
        once and uses the draw twice: norminvgauss' b V + sqrt(V) Z). A sampler's draws are numbered
        through its ``let`` formulas and value, each with a key of its own."""
        if isinstance(value, str):
            return self.code(value, path, line, what)
        m = _Mapping(value, path, what, line)
        lets = _Mapping(m.get("let", dict, required=True), path, f"{what}.let", m.value_line("let"))
        namespace, bound, texts, codes, drawn = self, [], [], [], 0
        for name in list(lets.data):
            if (not str(name).isidentifier() or name in self.variables or name in self.arities or name in ELEMENTARY | CORE
                    or name in _GENERATED_NAMES):
                raise SpecError(path, lets.key_line(name), f"{what}.let: {name!r} must be a new name")
            code = namespace.code(lets.get(name, str), path, lets.value_line(name), f"{what}.let.{name}", drawn, False,
                                  keeps_core=True)
            drawn = code.draws
            bound.append((name, code.code))
            texts.append(f"{name} = {code.text}")
            codes.append(code)
            namespace = Namespace(namespace.variables | {name}, self.arities, self.draws, own=self.own,
                                  core=namespace.core | ({name} if code.core else set()))
        lets.done()
        result = namespace.code(m.get("value", str, required=True), path, m.value_line("value"), f"{what}.value", drawn,
                                not drawn)
        m.done()
        uses = tuple(dict.fromkeys(u for code in (*codes, result) for u in code.uses))
        return Code("; ".join([*texts, result.text]), result.code, result.loc, tuple(bound), draws=result.draws, uses=uses)

    def code(self, text: str, path: str, line: int | None, what: str, first_draw: int = 0,
             must_draw: bool = True, keeps_core: bool = False) -> Code:
        """One expression; a sampler's draws are numbered from ``first_draw`` (after its ``let`` formulas'),
        and it must draw unless an earlier ``let`` did (``must_draw``); its value has no core axis left unless
        ``keeps_core`` (a ``let`` binding)."""
        text = " ".join(str(text).split())
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise SpecError(path, line, f"{what}: {text!r} does not parse: {exc.msg}") from None
        printer = _Printer(self, first_draw)
        try:
            axes = _CoreAxes(self.core)
            printed_tree = axes.visit(printer.visit(tree))
            core = getattr(printed_tree.body, "core_axis", False)
            if core and not keeps_core:
                raise _FormulaError(f"{text!r} keeps a core axis ({', '.join(sorted(axes.used))}'s): reduce it "
                                    "(core_sum, core_length)")
            printed = ast.unparse(printed_tree)
        except _FormulaError as exc:
            raise SpecError(path, line, f"{what}: {exc}") from None
        if self.draws and must_draw and printer.draws == first_draw:
            raise SpecError(path, line, f"{what}: {text!r} draws nothing (call one of "
                                        f"{', '.join(RANDOM_PREFIX + n for n in RANDOM)})")
        return Code(text, printed, model.Location(path, line), draws=printer.draws, core=core, uses=tuple(printer.uses))


class _FormulaError(Exception):
    pass


class _CoreAxes(ast.NodeTransformer):
    """Marks each node of a printed formula that has a core axis (``core_axis``), and lets values without one
    broadcast along it: where an operation mixes the two (poisson_binom's ``core_index(t) == k``), each operand
    without it is printed ``jnp.expand_dims(operand, -1)``, as a gufunc's loop dimensions meet its core one."""

    def __init__(self, core: frozenset):
        self.core = core
        self.used = set()

    def visit_Name(self, node):
        node.core_axis = node.id in self.core
        if node.core_axis:
            self.used.add(node.id)
        return node

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, ast.BinOp):
            node.left, node.right = self._align([node.left, node.right], node)
        elif isinstance(node, ast.UnaryOp):
            node.core_axis = getattr(node.operand, "core_axis", False)
        elif isinstance(node, ast.Compare):
            node.left, *node.comparators = self._align([node.left, *node.comparators], node)
        elif isinstance(node, ast.Call):
            function = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if function in CORE_AXIS and isinstance(node.func.value, ast.Name) and node.func.value.id == "distributions":
                if not all(getattr(a, "core_axis", False) for a in node.args):
                    raise _FormulaError(f"{function} needs an argument with a core axis (a shape parameter with core: 1, "
                                        "or a formula of one)")
                node.core_axis = CORE_AXIS[function]
            else:
                node.args = self._align(node.args, node)
        return node

    @staticmethod
    def _align(operands: list, node) -> list:
        node.core_axis = any(getattr(o, "core_axis", False) for o in operands)
        if not node.core_axis:
            return operands
        expand = ast.Attribute(ast.Name("jnp", ast.Load()), "expand_dims", ast.Load())
        return [o if getattr(o, "core_axis", False) or isinstance(o, ast.Constant) else
                ast.Call(expand, [o, ast.Constant(-1)], []) for o in operands]


class _Printer(ast.NodeTransformer):
    """Checks every node and name, and prefixes the names with the module that defines them."""

    def __init__(self, namespace: Namespace, first_draw: int = 0):
        self.namespace = namespace
        self.draws = first_draw
        self.uses = []

    def generic_visit(self, node):
        if not isinstance(node, _NODES):
            raise _FormulaError(f"{type(node).__name__} is not allowed in a formula (arithmetic, comparisons, & and |, "
                                "and calls of jaxsci.special's and elementary functions are)")
        return super().generic_visit(node)

    def visit_Constant(self, node):
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            raise _FormulaError(f"{node.value!r} is not a number")
        return node

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            if node.keywords:
                raise _FormulaError("only calls of named functions with positional arguments are allowed (a "
                                    "distribution's method, and jaxsci.special's functions; a derivative kernel's "
                                    "static integer arguments may be given by keyword)")
            return self._distribution_call(node.func.value.id, node.func.attr, [self.visit(a) for a in node.args])
        if not isinstance(node.func, ast.Name):
            raise _FormulaError("only calls of named functions are allowed")
        name = node.func.id
        keywords = self._static_keywords(name, node.keywords)
        args = [self.visit(a) for a in node.args]
        if self.namespace.draws and name.startswith(RANDOM_PREFIX) and name.removeprefix(RANDOM_PREFIX) in RANDOM:
            sampler = name.removeprefix(RANDOM_PREFIX)
            if len(args) != RANDOM[sampler]:
                raise _FormulaError(f"{name} takes {RANDOM[sampler]} argument(s) (jax.random.{sampler}'s parameters), "
                                    f"got {len(args)}")
            key = ast.Subscript(ast.Name("keys", ast.Load()), ast.Constant(self.draws), ast.Load())
            self.draws += 1
            function = ast.Attribute(ast.Attribute(ast.Name("jax", ast.Load()), "random", ast.Load()), sampler, ast.Load())
            return ast.Call(function, [key, *args, ast.Name("shape", ast.Load()), ast.Name("dtype", ast.Load())], [])
        if name in self.namespace.own:
            if len(args) != self.namespace.own[name]:
                raise _FormulaError(f"the distribution's own {name} takes {self.namespace.own[name]} argument(s) (the "
                                    f"point and the shape parameters, in standard form), got {len(args)}")
            method = ast.Attribute(ast.Name("_DISTRIBUTION", ast.Load()), "standard", ast.Load())
            return ast.Call(method, [ast.Constant(name), *args], [])
        if name in ELEMENTARY or name in CORE:
            module = "jnp" if name in ELEMENTARY - TIE_TO_FIRST else "distributions"
            return ast.Call(ast.Attribute(ast.Name(module, ast.Load()), name, ast.Load()), args, [])
        if name in self.namespace.arities:
            fewest, most, module, _ = self.namespace.arities[name]
            if not fewest <= len(args) <= most:
                wanted = str(most) if fewest == most else f"{fewest} to {most}"
                raise _FormulaError(f"jaxsci.{module}.{name} takes {wanted} argument(s), got {len(args)}")
            return ast.Call(ast.Attribute(ast.Name(module, ast.Load()), name, ast.Load()), args, keywords)
        raise _FormulaError(self._unknown(name, "function"))

    def _static_keywords(self, name: str, keywords: list) -> list:
        """A kernel's integer static arguments given by keyword (the order of a derivative), checked."""
        if not keywords:
            return []
        allowed = self.namespace.arities[name][3] if name in self.namespace.arities else frozenset()
        for keyword in keywords:
            if keyword.arg not in allowed:
                raise _FormulaError(f"{name}() takes no keyword {keyword.arg!r}" + (
                    f" (its static integer arguments: {', '.join(sorted(allowed))})" if allowed else
                    ": only a derivative kernel's static integer arguments may be given by keyword"))
            value = keyword.value
            if not (isinstance(value, ast.Constant) and type(value.value) is int and value.value >= 0):
                raise _FormulaError(f"{name}({keyword.arg}=...) must be a non-negative integer literal")
        return keywords

    def _distribution_call(self, name: str, method: str, args: list):
        """``name.method(point, *shapes)``: the standard-form method of jaxsci.stats' distribution ``name`` (this
        one or another; collect_distributions checks that it has a spec), with that method's derivatives."""
        import scipy.stats

        dist = getattr(scipy.stats, name, None)
        if not isinstance(dist, (scipy.stats.rv_continuous, scipy.stats.rv_discrete)):
            raise _FormulaError(f"{name}.{method}: {name!r} is not a scipy.stats distribution")
        kind = "continuous" if isinstance(dist, scipy.stats.rv_continuous) else "discrete"
        methods = (*DENSITY[kind], *TAIL_METHODS, *QUANTILE_METHODS)
        if method not in methods:
            raise _FormulaError(f"{name}.{method}: a formula may call a distribution's {', '.join(methods)}")
        if len(args) != 1 + dist.numargs:
            raise _FormulaError(f"{name}.{method} takes {1 + dist.numargs} argument(s) (the point or probability, then "
                                f"the shape parameters, in standard form), got {len(args)}")
        self.uses.append(name)
        return ast.Call(ast.Attribute(ast.Name("distributions", ast.Load()), "standard", ast.Load()),
                        [ast.Constant(name), ast.Constant(method), *args], [])

    def visit_Name(self, node):
        if node.id in self.namespace.variables:
            return node
        if node.id in CONSTANTS:
            return ast.parse(CONSTANTS[node.id], mode="eval").body
        raise _FormulaError(self._unknown(node.id, "name"))

    def _unknown(self, name: str, what: str) -> str:
        draws = {RANDOM_PREFIX + n for n in RANDOM} if self.namespace.draws else set()
        known = sorted(self.namespace.variables | ELEMENTARY | CORE | set(CONSTANTS) | set(self.namespace.arities) | draws
                       | set(self.namespace.own))
        hint = difflib.get_close_matches(name, known, n=1)
        return (f"unknown {what} {name!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")
                + f" (the formula's names: {', '.join(sorted(self.namespace.variables))}, jaxsci.special's functions, "
                  f"{', '.join(sorted(ELEMENTARY | CORE | set(CONSTANTS)))})")


def _shapes(top: _Mapping, path: str, type_: str) -> tuple:
    """The shape parameters. A name is SciPy's, so only the generated module's own names are refused: the
    point of this type of distribution (x, or k for a discrete one; mielke's shape k is continuous's), q,
    loc, scale, and the module's imports and sampling names."""
    shapes = []
    for index, item in enumerate(top.get("shapes", list, default=[])):
        line = top.data["shapes"].item_lines[index] if hasattr(top.data["shapes"], "item_lines") else top.line
        m = _Mapping(item, path, f"shapes[{index}]", line)
        name = m.get("name", str, required=True)
        # the generated module's own names, and those of its functions' arguments
        if not name.isidentifier() or name in (VARIABLE[type_], PROBABILITY, "loc", "scale", "jnp", "jax", "special",
                                                "kernels", "distributions", "key", "keys", "shape", "dtype", "size"):
            raise SpecError(path, m.value_line("name"), f"shape parameter name {name!r} is not allowed in a {type_} "
                                                        "distribution (a name of the generated module's own)")
        kind = m.get("kind", str, default="real")
        if kind not in ("real", "integer"):
            raise SpecError(path, m.value_line("kind"), f"shapes[{index}].kind must be real or integer, got {kind!r}")
        why = m.get("why", str) if kind == "integer" else None
        if kind == "integer" and why is None:
            raise SpecError(path, m.line, f"shape parameter {name!r} is an integer: give why (the reason it is not "
                                          "differentiable, shown in the error a tangent gets)")
        core = m.get("core", int, default=0)
        if core not in (0, 1) or isinstance(core, bool) or (core and kind == "integer"):
            raise SpecError(path, m.value_line("core"), f"shapes[{index}].core must be 0 or 1 (one trailing core axis, "
                                                        f"of a real shape parameter), got {core!r}")
        shapes.append(Shape(name, kind == "integer", why, m.get("doc", str, default="Shape parameter."), core))
        m.done()
    return tuple(shapes)


def _check_scipy(dotted: str, name: str, path: str, line: int | None) -> None:
    import scipy.stats

    if dotted != f"scipy.stats.{name}":
        raise SpecError(path, line, f"scipy must be scipy.stats.{name} (the spec's name is SciPy's), got {dotted!r}")
    if not isinstance(getattr(scipy.stats, name, None), (scipy.stats.rv_continuous, scipy.stats.rv_discrete)):
        raise SpecError(path, line, f"{dotted} is not a scipy.stats distribution")


def _check_shapes_match_scipy(dotted: str, shapes: tuple, path: str, line: int | None) -> None:
    import scipy.stats

    dist = getattr(scipy.stats, dotted.rsplit(".", 1)[1])
    theirs = [s.strip() for s in (dist.shapes or "").split(",") if s.strip()]
    ours = [s.name for s in shapes]
    if ours != theirs:
        raise SpecError(path, line, f"shapes must be SciPy's, in SciPy's order: {theirs}, got {ours}")


def _reference(top: _Mapping, path: str, kind: str, names: set) -> dict:
    """``reference: {method: mpmath expression}`` in the standard form's variables: the density (or its log)
    and cdf are required; tests/tools/make_stats_references.py finds the quantiles' references by root
    finding on them."""
    m = _Mapping(top.get("reference", dict, required=True), path, "reference", top.value_line("reference"))
    allowed = (*DENSITY[kind], "cdf", "sf")
    out = {}
    for method in list(m.data):
        if method not in allowed:
            raise SpecError(path, m.key_line(method), f"reference.{method}: references are given for {', '.join(allowed)}")
        text = m.get(method, str)
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise SpecError(path, m.value_line(method), f"reference.{method}: {text!r} does not parse: {exc.msg}") from None
        bound = {a.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for a in node.args.args}
        bound |= {n.id for node in ast.walk(tree) if isinstance(node, ast.comprehension)
                  for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in names | bound | _REFERENCE_BUILTINS and not hasattr(mpmath, node.id):
                raise SpecError(path, m.value_line(method), f"reference.{method}: {node.id!r} is neither an mpmath name "
                                                            f"nor one of {', '.join(sorted(names))}")
        out[method] = text
    m.done()
    if not set(DENSITY[kind]) & set(out) or "cdf" not in out:
        raise SpecError(path, m.line, f"reference needs {' or '.join(DENSITY[kind])}, and cdf")
    return out


def _tests(top: _Mapping, path: str) -> Tests:
    m = _Mapping(top.get("tests", dict, default={}), path, "tests", top.value_line("tests") if top.has("tests") else top.line)
    rtol = m.get("gradient_rtol", float, default=1e-8)
    values = m.get("value_rtol", dict, default={})
    value_rtol = {"float64": 1e-12, "float32": 2e-5}
    for dtype in list(values):
        if dtype not in value_rtol or not isinstance(values[dtype], (int, float)):
            raise SpecError(path, m.value_line("value_rtol"), f"tests.value_rtol: {{float64: rtol, float32: rtol}}, got {_describe(values)}")
        value_rtol[dtype] = float(values[dtype])
    unreferenced = m.get("unreferenced", dict, default={})
    for argument, why in unreferenced.items():
        if not isinstance(why, str) or not why.strip():
            raise SpecError(path, m.value_line("unreferenced"), f"tests.unreferenced.{argument}: say why, and where it is checked instead")
    m.done()
    return Tests(gradient_rtol=float(rtol), value_rtol=value_rtol,
                 unreferenced={argument: " ".join(why.split()) for argument, why in unreferenced.items()})


# ---- rendering ------------------------------------------------------------------------------------
_SUMMARY = {
    "pdf": "Probability density function at x.", "logpdf": "Log of the probability density function at x.",
    "pmf": "Probability mass function at k.", "logpmf": "Log of the probability mass function at k.",
    "cdf": "Cumulative distribution function.", "logcdf": "Log of the cumulative distribution function.",
    "sf": "Survival function (1 - cdf), computed without cancellation where the spec's formula allows.",
    "logsf": "Log of the survival function.", "ppf": "Percent point function (inverse of cdf) at q.",
    "isf": "Inverse survival function (inverse of sf) at q.", "mean": "Mean of the distribution.",
    "var": "Variance of the distribution.", "std": "Standard deviation of the distribution.",
    "median": "Median of the distribution (ppf at 0.5).", "rvs": "Random variates drawn with a jax.random key.", "entropy": "Differential entropy of the distribution."
                                                                      " (for a discrete one, its Shannon entropy).",
}
# SciPy's defaults (rv_generic, rv_continuous, rv_discrete) for the methods a spec leaves out
_DEFAULT = {
    "pdf": "exp(logpdf)", "logpdf": "log(pdf)", "pmf": "exp(logpmf)", "logpmf": "log(pmf)", "sf": "1 - cdf",
    "isf": "ppf(1 - q)",
    "logcdf": {"continuous": "log(cdf) below the median, log1p(-sf) above it", "discrete": "log(cdf)"},
    "logsf": {"continuous": "log(sf) above the median, log1p(-cdf) below it", "discrete": "log(sf)"},
}
SECOND_ORDER_FACTOR = 100  # tests/test_stats.py checks second derivatives to this multiple of gradient_rtol


# How the core differentiates a host method where the spec gives no formula (HOST_RULES in
# templates/runtime/distributions.py): by argument, the point (or probability) and a shape parameter.
HOST_RULE_TEXT = {
    "cdf": ("the density", "minus the sf formula's derivative"),
    "sf": ("minus the density", "minus the cdf's derivative"),
    "logcdf": ("exp(logpdf - logcdf)", "the cdf's derivative times exp(-logcdf)"),
    "logsf": ("-exp(logpdf - logsf)", "the sf's derivative times exp(-logsf)"),
    "ppf": ("exp(-logpdf(ppf)), the implicit-function rule", "-(d cdf/d shape)(ppf) exp(-logpdf(ppf)), the implicit-function rule"),
    "isf": ("-exp(-logpdf(isf)), the implicit-function rule", "(d sf/d shape)(isf) exp(-logpdf(isf)), the implicit-function rule"),
    "pdf": ("the cdf (or sf) formula's second derivative in x", "the cdf (or sf) formula's mixed derivative in x and the shape"),
    "logpdf": ("the pdf's derivative (from the cdf or sf formula) times exp(-logpdf)",
               "the pdf's derivative (from the cdf or sf formula) times exp(-logpdf)"),
}


def host_rule_text(d: Distribution, method: str) -> str:
    """The host method's derivative rules, argument by argument, as the docstrings and coverage.md say them."""
    h = d.host[method]
    variable = PROBABILITY if method in QUANTILE_METHODS else d.variable
    parts = []
    for name in (variable, *(s.name for s in d.shapes if not s.integer)):
        if d.type == "discrete" and (name == variable or method in QUANTILE_METHODS):
            continue
        if name in h.blocked:
            parts.append(f"{name}: not differentiable ({h.blocked[name]})")
        elif name in h.derivatives:
            parts.append(f"{name}: ``{h.derivatives[name].text}``")
        else:
            parts.append(f"{name}: {HOST_RULE_TEXT[method][0 if name == variable else 1]}")
    return "; ".join(parts)


def how_text(d: Distribution, method: str) -> str:
    """How a method is computed, in standard form: the spec's formula, SciPy's own method on the host, or
    SciPy's default."""
    if method in d.methods:
        return f"``{d.methods[method].text}``"
    if method in d.host:
        rules = host_rule_text(d, method)
        return f"SciPy's own ``{d.scipy}.{method}`` on the host" + (f" (derivatives: {rules})" if rules else "")
    default = _DEFAULT[method]
    return f"SciPy's default, {default[d.type] if isinstance(default, dict) else default}"


@functools.cache
def runtime_reasons() -> dict:
    """The reasons templates/runtime/distributions.py gives for its step functions, read from its source
    (the generator does not import the runtime core), for the docstrings and the coverage table; parsed
    once a run (it was 41 of the generator's 81 seconds, parsed for each of 3,576 calls)."""
    tree = ast.parse((Path(__file__).resolve().parent.parent / "templates" / "runtime" / "distributions.py").read_text())
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.endswith("_WHY")}


# The methods SciPy's default for a method left out uses (rv_generic; the core's Distribution._method).
_DEFAULT_USES = {"pdf": ("logpdf",), "logpdf": ("pdf",), "pmf": ("logpmf",), "logpmf": ("pmf",), "sf": ("cdf",),
                 "isf": ("ppf",), "logcdf": ("cdf", "sf", "ppf"), "logsf": ("sf", "cdf", "ppf"), "median": ("ppf",),
                 # a sample's derivative is -(dF/dθ)/f at it: the tail and the density it is drawn through
                 "rvs": ("ppf", "cdf", "sf", "pdf")}


def host_blocked(d: Distribution, method: str, seen: frozenset = frozenset()) -> dict:
    """argument -> why: the arguments a host method that ``method`` uses is not differentiable in."""
    if method in d.host:
        return dict(d.host[method].blocked)
    if method in d.methods or method in seen:
        return {}
    out = {}
    for used in _DEFAULT_USES.get(method, ()):
        for name, why in host_blocked(d, used, seen | {method}).items():
            out.setdefault(name, why)
    return out


def _moment_uses(d: Distribution, moment: str) -> tuple:
    """The methods a host moment's quadrature differentiates (templates/runtime/moments.py): the quantiles
    (continuous) or the pmf (discrete), the log density for the entropy, and the mean for the variance."""
    uses = ("ppf", "isf") if d.type == "continuous" else (d.density[0],)
    return (*uses, *((d.density[1],) if moment == "entropy" else ()), *(("mean",) if moment == "var" else ()))


def moment_blocked(d: Distribution, moment: str) -> dict:
    """shape parameter -> why: those a host moment (std: the variance's) is not differentiable in, because a
    method its quadrature differentiates is not (a density not differentiable in the point blocks them all)."""
    moment = "var" if moment == "std" else moment
    if moment not in d.host_moments:
        return {}
    shapes = [s.name for s in d.shapes]
    out = {}
    for used in _moment_uses(d, moment):
        blocked = moment_blocked(d, used) if used in MOMENTS else host_blocked(d, used)
        for name, why in blocked.items():
            for shape in (shapes if name == d.variable and used in d.density else [name] if name in shapes else []):
                out.setdefault(shape, why)
    return out


def not_differentiable(d: Distribution, method: str) -> dict:
    """argument -> why a tangent on it raises NonDifferentiableError, for one public method."""
    reasons = runtime_reasons()
    why = {s.name: s.why for s in d.shapes if s.integer}
    if method in (*MOMENTS, "std"):
        return {**moment_blocked(d, method), **why}
    if d.type == "continuous":
        blocked = host_blocked(d, method)
        if method == "rvs":  # a sample is no function of x, and loc and scale move it by JAX's arithmetic
            return {**{n: w for n, w in blocked.items() if n in {s.name for s in d.shapes}}, **why}
        if d.variable in blocked:  # the core passes loc and scale to the method through (x - loc) / scale
            blocked.update({n: blocked[d.variable] for n in ("loc", "scale")})
        return {**blocked, **why}
    if method == "rvs":
        return {**{n: reasons["DISCRETE_SAMPLE_WHY"] for n in [s.name for s in d.shapes] + ["loc"]}, **why}
    if method in QUANTILE_METHODS or method == "median":
        first = [PROBABILITY] if method in QUANTILE_METHODS else []
        return {**{n: reasons["DISCRETE_QUANTILE_WHY"] for n in first + [s.name for s in d.shapes]}, **why}
    return {d.variable: reasons["DISCRETE_POINT_WHY"], **host_blocked(d, method), **why, "loc": reasons["DISCRETE_POINT_WHY"]}


# The methods whose automatic rule in the point uses the density's value (HOST_RULES: d cdf/dx = pdf,
# d ppf/dq = exp(-logpdf(ppf)), and their kin); a shape parameter's rule in ppf and isf divides by it too.
_DENSITY_RULES = ("cdf", "sf", "logcdf", "logsf", *QUANTILE_METHODS)


def _rule_uses_density(d: Distribution, method: str, seen: frozenset = frozenset()) -> bool:
    if method in d.host:
        variable = PROBABILITY if method in QUANTILE_METHODS else d.variable
        return method in _DENSITY_RULES and variable not in d.host[method].derivatives
    if method in d.methods or method in seen:
        return False
    return any(_rule_uses_density(d, used, seen | {method}) for used in _DEFAULT_USES.get(method, ()))


def second_order_blocked(d: Distribution, method: str) -> dict:
    """argument -> why its first derivative exists but its second raises NonDifferentiableError: where a
    host density is not differentiable in the point, the methods whose rules use the density's value
    (d cdf/dx = pdf, d ppf/dq = 1/pdf at the quantile) are differentiable to first order only, in the
    point, loc and scale (cdf and its kin) or in q and the shape parameters (the quantiles, the median, and
    a sample, whose implicit gradient -(dF/dshape) / f is differentiated along the sample)."""
    if d.type != "continuous" or not _rule_uses_density(d, method):
        return {}
    why = next((d.host[m].blocked[d.variable] for m in d.density if m in d.host and d.variable in d.host[m].blocked), None)
    if why is None:
        return {}
    if method in (*QUANTILE_METHODS, "median", "rvs"):
        names = [*([PROBABILITY] if method in QUANTILE_METHODS else []), *(s.name for s in d.shapes)]
    else:
        names = [d.variable, "loc", "scale"]
    first = not_differentiable(d, method)
    return {n: f"the density's derivative in x is not available ({why})" for n in names if n not in first}


def _arguments(d: Distribution, method: str) -> list:
    """The public method's arguments: (name, default or None)."""
    first = [] if method in (*MOMENTS, "std", "median") else [PROBABILITY if method in QUANTILE_METHODS else
                                                              "key" if method == "rvs" else d.variable]
    scales = [("loc", 0)] + ([("scale", 1)] if d.type == "continuous" else [])
    size = [("size", "None")] if method == "rvs" else []
    return [(n, None) for n in first] + [(s.name, None) for s in d.shapes] + scales + size


def _function(d: Distribution, method: str) -> dict:
    arguments = _arguments(d, method)
    signature = ", ".join(n if default is None else f"{n}={default}" for n, default in arguments)
    call = ", ".join(n if default is None else f"{n}={n}" for n, default in arguments)
    docs = {s.name: s.doc for s in d.shapes}
    docs.update({d.variable: "Quantiles (the point).", PROBABILITY: "Probabilities.",
                 "loc": "Location parameter (default 0).", "scale": "Scale parameter (default 1).",
                 "key": "A jax.random key.", "size": "The sample's shape: None for the parameters' broadcast shape, an int "
                                                     "or a tuple the parameters broadcast to (as in SciPy)."})
    if method in d.public_methods:
        standard = f"({d.variable} - loc) / scale" if d.type == "continuous" else f"{d.variable} - loc"
        how = (how_text(d, method) + (f", with {d.variable} standing for {standard}" if method not in QUANTILE_METHODS else
                                      (", times scale, plus loc" if d.type == "continuous" else ", plus loc")))
    elif method == "median":
        how = "ppf(0.5)"
    elif method == "rvs":
        how = sampling_text(d) + (" (times scale) plus loc. A sample's derivative in a shape parameter is the implicit "
                                  "reparameterization gradient -(dF/dshape) / f at the sample (Figurnov, Mohamed and Mnih, "
                                  "NeurIPS 2018), from the cdf (sf in the upper half) and the density, at every order"
                                  if d.type == "continuous" else " plus loc, as floats (ppf's dtype)")
    elif method == "std":
        how = f"sqrt(var), var = {moment_text(d, 'var')}" + (" times scale squared" if d.type == "continuous" else "")
    else:
        how = moment_text(d, method) + {"mean": " (times scale) plus loc", "var": " (times scale squared)",
                                        "entropy": " (plus log(scale))"}[method]
    blocked = not_differentiable(d, method)
    names = [n for n, _ in arguments if n not in blocked and n not in ("key", "size")
             and not (d.type == "discrete" and method == "var" and n == "loc")]
    differentiable = ", ".join(names) or "nothing"
    if blocked:
        by_reason = {}
        for name, why in blocked.items():
            by_reason.setdefault(why, []).append(name)
        differentiable += ". Not differentiable (NonDifferentiableError): " + "; ".join(
            f"{', '.join(names)}: {why}" for why, names in by_reason.items())
    lead = "Drawn as" if method == "rvs" else f"Computed as SciPy's ``{d.scipy}.{method}`` computes it:"
    second = second_order_blocked(d, method)
    if second:
        differentiable += (f". First order only in {', '.join(second)} (second derivatives raise "
                           f"NonDifferentiableError): {next(iter(second.values()))}")
    return {"name": method, "signature": signature, "call": call, "summary": _SUMMARY[method], "how": how + ".", "lead": lead,
            "args": [f"{n}: {docs[n]}" for n, _ in arguments], "differentiable": differentiable}


# How a host moment is differentiated (templates/runtime/moments.py), for the docstrings and coverage.md.
_QUADRATURE_TEXT = {
    "continuous": {"mean": "the integral of ppf over (0, 1)", "var": "the integral of (ppf - mean)**2 over (0, 1)",
                   "entropy": "minus the integral of logpdf(ppf) over (0, 1)"},
    "discrete": {"mean": "the sum of k pmf(k)", "var": "the sum of (k - mean)**2 pmf(k)",
                 "entropy": "minus the sum of pmf(k) logpmf(k)"},
}


def moment_text(d: Distribution, moment: str) -> str:
    """A moment in standard form: the spec's formula, or SciPy's own with its quadrature."""
    if moment in d.moments:
        return f"``{d.moments[moment].text}``"
    how = ("by tanh-sinh quadrature, ppf below 1/2 and isf above, differentiated under the integral sign"
           if d.type == "continuous" else
           "over the integers from ppf(1e-17) while the mass from k on is 1e-17 or more (2048 at most), "
           "differentiated term by term")
    return (f"SciPy's own, on the host (its derivatives in the shape parameters are those of "
            f"{_QUADRATURE_TEXT[d.type][moment]}, {how}; NaN where the quadrature's error estimate exceeds 1e-7 "
            "of it or SciPy's value is not finite)")


def _uses_kernels(d: Distribution) -> bool:
    """Whether a formula calls one of jaxsci.kernels' functions (the generated module imports it then only)."""
    codes = [*d.methods.values(), *d.moments.values(), *(c for h in d.host.values() for c in h.derivatives.values()),
             d.lower, d.upper, *([d.valid] if d.valid else []), *([d.sampler] if d.sampler else [])]
    texts = [c.code for c in codes] + [value for c in codes for _, value in c.lets]
    return any(isinstance(node, ast.Name) and node.id == "kernels" for text in texts for node in ast.walk(ast.parse(text)))


def sampling_text(d: Distribution) -> str:
    """How rvs draws a standard-form sample."""
    return f"``{d.sampler.text}`` (jax.random's exact samplers)" if d.sampler else "ppf of a uniform in (0, 1)"


def render_distributions(env, distributions: list, uncovered: dict) -> dict:
    """relative path under generated/ -> content for jaxsci.stats, plus ``"coverage"``: the coverage
    table's section on scipy.stats (appended to coverage.md by the caller)."""
    files = {}
    for d in distributions:
        methods = [*d.public_methods, *d.public_moments, *d.public_sampling]
        shape_names = ", ".join(s.name for s in d.shapes)
        valid_text = d.valid.text if d.valid else ("every shape parameter > 0" if d.shapes else "no shape parameters")
        valid_code = d.valid.code if d.valid else (" & ".join(f"({s.name} > 0)" for s in d.shapes) or "True")
        files[f"jaxsci/stats/{d.name}.py"] = env.get_template("distribution.py.j2").render(
            d=d, public=methods, uses_kernels=_uses_kernels(d), host_moments={m: moment_blocked(d, m) for m in d.host_moments}, variables={m: PROBABILITY if m in QUANTILE_METHODS else d.variable for m in d.public_methods}, shape_names=shape_names, valid_text=valid_text, valid_code=valid_code,
            signature=", ".join(n if v is None else f"{n}={v}" for n, v in _arguments(d, "cdf")),
            functions=[_function(d, m) for m in methods])
    files["jaxsci/stats/__init__.py"] = env.get_template("stats_init.py.j2").render(
        names=[d.name for d in distributions])
    rows = []
    for d in distributions:
        methods = [*d.public_methods, *d.public_moments, *d.public_sampling]
        blocked = {}
        for method in methods:
            for name, why in not_differentiable(d, method).items():
                blocked.setdefault((name, why), []).append(method)
            for name, why in second_order_blocked(d, method).items():
                blocked.setdefault((name, f"second order: {why}"), []).append(method)
        rows.append({
            "name": d.name, "type": d.type,
            "shapes": ", ".join(s.name + (" (core axis)" if s.core else "") for s in d.shapes) or "–",
            "formulas": ", ".join(m for m in d.public_methods if m in d.methods) or "–",
            "host": "<br>".join([f"{m} ({host_rule_text(d, m) or 'not differentiable'})" for m in d.public_methods
                                 if m in d.host] + [f"{m} (SciPy's value; derivatives: {_QUADRATURE_TEXT[d.type][m]})"
                                                    for m in d.host_moments]) or "–",
            "defaults": ", ".join(m for m in d.public_methods if m not in d.methods and m not in d.host) or "–",
            "moments": ", ".join(d.public_moments),
            "rvs": f"`{d.sampler.text}`" if d.sampler else "ppf of a uniform",
            "differentiable": ", ".join(d.differentiable),
            "not_differentiable": "<br>".join(f"`{n}` ({', '.join(ms)}): {why}" for (n, why), ms in blocked.items()) or "–",
        })
    files["coverage"] = env.get_template("coverage_stats.md.j2").render(
        rows=rows, uncovered=[{"name": n, "reason": " ".join(r.split())} for n, r in sorted(uncovered.items())],
        second_order=SECOND_ORDER_FACTOR)
    return files


# ---- `python -m generator new scipy.stats.NAME` ----------------------------------------------------------
def _bound_text(value: float) -> str:
    return "inf" if value == float("inf") else "-inf" if value == float("-inf") else repr(float(value)).removesuffix(".0")


def render_scaffold(dotted: str) -> tuple[str, str]:
    """(name, spec text) for a scipy.stats distribution: what SciPy's object tells (its summary, shape
    parameters, type and default support), and placeholders under ``# TODO(jaxsci new)`` comments for
    the formulas, which the loader rejects until they are filled in."""
    import scipy.stats

    from .loader import SCAFFOLD_TODO
    from .scaffold import ScaffoldError

    name = dotted.removeprefix("scipy.stats.")
    dist = getattr(scipy.stats, name, None)
    if not isinstance(dist, (scipy.stats.rv_continuous, scipy.stats.rv_discrete)):
        raise ScaffoldError(f"{dotted} is not a scipy.stats distribution")
    kind = "discrete" if isinstance(dist, scipy.stats.rv_discrete) else "continuous"
    shapes = [s.strip() for s in (dist.shapes or "").split(",") if s.strip()]
    variable = VARIABLE[kind]
    todo = f"# {SCAFFOLD_TODO}:"
    lines = [f"name: {name}", f"scipy: {dotted}", f"type: {kind}",
             f"summary: {(dist.__doc__ or name).strip().splitlines()[0].strip()}"]
    if shapes:
        lines += ["shapes:"] + [f"  - name: {s}\n    doc: Shape parameter." for s in shapes]
    lines += [f"{todo} SciPy's _argcheck in {', '.join(shapes) or 'no shapes'} (scipy/stats/_{kind}_distns.py), or delete "
              "valid if it is every shape parameter > 0",
              f'valid: "{SCAFFOLD_TODO}: SciPy\'s _argcheck"',
              f"{todo} check the support against SciPy's _get_support, which may depend on the shape parameters",
              f"support: {{lower: {_bound_text(dist.a)}, upper: {_bound_text(dist.b)}}}",
              f"{todo} each method in standard form ({variable} for (point - loc){' / scale' if kind == 'continuous' else ''}, q for "
              f"the probability) over jaxsci.special's functions, as SciPy's _{DENSITY[kind][1]}, _cdf, ... compute it "
              "(tail-accurate forms where SciPy has them), or {host: true} for SciPy's own on the host (specs/README.md, "
              "Host methods); delete the methods SciPy's defaults make",
              "methods:"]
    for method in (DENSITY[kind][1], "cdf", "sf", "ppf", "isf"):
        lines.append(f'  {method}: "{SCAFFOLD_TODO}: SciPy\'s _{method} of {name}"')
    lines += [f"{todo} mpmath expressions of the density (or its log) and the cdf in standard form, for "
              "tests/tools/make_stats_references.py", "reference:",
              f'  {DENSITY[kind][1]}: "{SCAFFOLD_TODO}: the log density in mpmath"',
              f'  cdf: "{SCAFFOLD_TODO}: the cdf in mpmath"']
    return name, "\n".join(lines) + "\n"


def scaffold_distribution(dotted: str, root: Path) -> Path:
    """Write ``specs/stats/NAME.yaml`` under ``root``; never overwrites. Returns the path written."""
    from .scaffold import ScaffoldError

    name, text = render_scaffold(dotted)
    path = root / "specs" / FOLDER / f"{name}.yaml"
    if path.exists():
        raise ScaffoldError(f"{path.relative_to(root)} already exists; delete it first to scaffold it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
