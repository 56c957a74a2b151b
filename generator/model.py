"""The spec model: frozen records built by the loader, read by the generator and the tests."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

KERNELS = "kernels"  # specs/kernels/: jaxsci's own derivative kernels, evaluated on the host like SciPy
ARG_KINDS = ("real", "complex", "integer", "static_bool", "static_int", "static_float", "static_str", "static_axis")
TRACED_KINDS = ("real", "complex", "integer")
STATIC_KINDS = ("static_bool", "static_int", "static_float", "static_str", "static_axis")
# int32: functions of static arguments only; orthopoly1d: SciPy's own object, computed from static arguments
OUTPUT_DTYPES = ("promoted", "complex", "real", "int32", "orthopoly1d")
EAGER_SHAPE = "eager"  # an output shape known only from SciPy's result (mathieu_even_coef's, from q)
VMAP_METHODS = ("expand_dims", "broadcast_all", "sequential")
TEST_DTYPES = ("float32", "float64")
# the generic tests a spec may expect to fail, with a reason
GENERIC_TESTS = ("values", "complex_values", "jit", "vmap", "scan", "gradients", "complex_gradients", "check_grads", "properties")


@dataclass(frozen=True)
class Location:
    path: str
    line: int | None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class Formula:
    """Formula text as written in the spec, and where it was written."""

    text: str
    loc: Location


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str
    differentiable: bool
    why: str | None
    doc: str
    has_default: bool
    default: object
    accepts_float: bool
    truncates_float: bool  # SciPy's float loop truncates the value; the core truncates first, for the rules
    loc: Location
    choices: tuple | None = None  # static arguments: the values jaxsci supports, when not every value
    choices_why: str | None = None
    keyword_only: bool = False
    scipy_name: str | None = None  # SciPy's name for the argument, where the public name differs (jn's n is v)
    # ((major, minor), name) from the oldest release on: SciPy's renames of the argument (generator/releases.py)
    scipy_renamed: tuple = ()
    scipy_since: tuple | None = None  # (major, minor): the SciPy release that added this static argument
    scipy_default_before: tuple = ()  # ((major, minor), SciPy's default before that release), ...
    # static_bool: the value for which jaxsci calls SciPy eagerly on concrete inputs and returns what it
    # returns (exact=True's Python integers); traced inputs raise, saying ``eager_why``
    eager: bool | None = None
    eager_why: str | None = None
    # static_bool: the output whose sum over its core dimension the value True appends (roots_*'s mu)
    sum_of: str | None = None
    # static_int and static_float: the smallest value jaxsci accepts, and why (SciPy misbehaves below it)
    minimum: float | None = None
    minimum_why: str | None = None

    @property
    def traced(self) -> bool:
        return self.kind in TRACED_KINDS

    @property
    def static(self) -> bool:
        return self.kind in STATIC_KINDS

    @property
    def optional(self) -> bool:
        """A traced argument whose default None leaves it out of SciPy's call."""
        return self.traced and self.has_default and self.default is None

    def scipy_name_in(self, release: tuple) -> str:
        """SciPy's name for the argument in SciPy ``release`` ``(major, minor)``: its latest rename at or
        before it, else ``scipy_name``, else the public name."""
        name = self.scipy_name or self.name
        for since, renamed in self.scipy_renamed:
            if release >= since:
                name = renamed
        return name

    def scipy_default_in(self, release: tuple):
        """SciPy's default for the argument in SciPy ``release``: the one ``scipy_default_before`` gives
        for the first release after it, else the spec's."""
        for before, default in self.scipy_default_before:
            if release < before:
                return default
        return self.default


@dataclass(frozen=True)
class Output:
    name: str
    dtype: str
    doc: str
    loc: Location
    # functions of static arguments only: ints, static_int names, ((coefficient, name or None), ...) sums,
    # or EAGER_SHAPE
    shape: tuple | str | None = None
    evaluates: tuple | None = None  # orthopoly1d: (jaxsci function, (argument names with "x", ...))
    core: tuple = ()  # functions of traced arguments: CoreDim, ... (generator/coredims.py)


@dataclass(frozen=True)
class CoreDim:
    """One core dimension of an output of traced arguments: its size, an integer expression in the
    static arguments (``n + 1``, ``Max(floor(v), 1) + 1``), and the name formulas and references give
    the position along it (``k``)."""

    size: str  # as written; parsed by sympy (generator.coredims.size_expr)
    index: str
    loc: Location


Condition = tuple  # ((static arg name, value), ...), sorted by name; () means "always"


def all_conditions(static_bools) -> list:
    """Every combination of values of the static booleans, as full conditions."""
    names = sorted(static_bools)
    return [tuple(zip(names, values)) for values in itertools.product((False, True), repeat=len(names))]


def matches(condition: Condition, full: Condition) -> bool:
    """Whether a case's ``when`` condition holds under the full condition ``full``."""
    return set(condition) <= set(full)


def written_rule(spec: "Spec", arg_name: str, condition: Condition):
    """The spec's own derivative rule for ``arg_name`` under ``condition``, or None (derived by sympy)."""
    return next((r for r in spec.derivatives if r.arg == arg_name and matches(r.when, condition)), None)


@dataclass(frozen=True)
class SpecialPoint:
    """Where ``where`` holds, the derivative is given by ``formulas`` instead (a removable singularity)."""

    where: Formula
    formulas: tuple  # ((output name, Formula), ...)
    source: str | None
    loc: Location


@dataclass(frozen=True)
class DerivativeRule:
    """How one argument's partial derivatives are obtained, under one static condition."""

    arg: str
    when: Condition
    method: str  # "formula", "sympy" or "implicit"
    formulas: tuple  # ((output name, Formula), ...) for "formula"
    conjugates: tuple  # ((output name, Formula), ...): d/d(conj z) for non-holomorphic outputs
    source: str | None
    at: tuple  # SpecialPoint, ...
    loc: Location
    implicit: Formula | None = None  # for "implicit": an expression that is zero (or an Eq) at the function's value
    # for "implicit": where SciPy's value is constant (its search clamps at a bound), the derivative 0
    constant_where: Formula | None = None
    # for "implicit": where SciPy's value is not a root of the equation (a failed search), the derivative NaN
    nan_where: Formula | None = None
    # for a rule with conjugates: the derivative along the real axis (formula + conjugate), for calls
    # whose argument is real, in a form that does not cancel where the two parts do
    reals: tuple = ()  # ((output name, Formula), ...)


@dataclass(frozen=True)
class Case:
    """A value that applies when the static arguments match ``when``."""

    when: Condition
    value: object
    loc: Location


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float


@dataclass(frozen=True)
class ExpectedFailure:
    test: str
    reason: str
    dtype: str | None
    loc: Location


@dataclass(frozen=True)
class Native:
    """A native JAX implementation used for real inputs instead of SciPy (``jaxsci.config.native``)."""

    function: str  # dotted path of a callable in the installed jax, e.g. "jax.scipy.special.i0e"
    tolerance: dict  # dtype -> Tolerance: how close to SciPy it is over the test domain (and tested)
    why: str  # what was measured: speed against the SciPy path, largest errors seen
    loc: Location
    jax_since: tuple | None = None  # the jax release that added ``function``; SciPy computes it before (releases.py)


@dataclass(frozen=True)
class Frontend:
    """A function of the runtime core that every call goes through first (``frontend:``): SciPy's own
    argument checks and modes that are not a SciPy call (factorial's ``extend='complex'``, computed in
    JAX), handing the other calls on to the core."""

    function: str  # "jaxsci._core.<module>.<function>", defined in templates/runtime/<module>.py
    why: str  # what it does that the spec's grammar does not say, shown in the docstring and coverage.md
    loc: Location


@dataclass(frozen=True)
class DerivativeOutputs:
    """SciPy returns the function's own derivatives with its value (``sph_harm_y(..., diff_n=2)``:
    the value, the gradient and the hessian in ``args``); jaxsci computes them in forward mode from
    the spec's rules, so they are within ``tolerance`` of SciPy's, not bit for bit."""

    order: str  # the static_int argument that says how many orders are returned (SciPy's diff_n)
    args: tuple  # the arguments along each derivative axis, in that order
    tolerance: dict  # dtype -> Tolerance: against SciPy's own derivatives over the test domain (tested)
    loc: Location


@dataclass(frozen=True)
class TestPlan:
    domain: dict  # arg -> (lo, hi): real sampling interval (inclusive integers for integer args)
    complex_domain: dict  # arg -> ((re lo, re hi), (im lo, im hi)); complex tests run when present
    points: tuple  # dicts of extra points (all traced args) checked by the gradient suite
    gradient_tolerance: dict  # dtype -> Tolerance
    expected_failures: tuple  # ExpectedFailure, ...
    loc: Location
    statics: dict = field(default_factory=dict)  # static int/float/str argument -> values the suites try
    first_order_only: tuple = ()  # ((arg, why), ...): the second derivative raises, by design

    def expected_failure(self, test: str, dtype: str | None = None) -> ExpectedFailure | None:
        for failure in self.expected_failures:
            if failure.test == test and failure.dtype in (None, dtype):
                return failure
        return None


@dataclass(frozen=True)
class Guard:
    """SciPy is called only where ``valid`` holds; elsewhere every output is NaN (never a SciPy call).

    ``expr`` is ``valid`` parsed by sympy (a condition in the traced arguments, as plain symbols).
    """

    valid: Formula
    expr: object  # sympy Boolean
    reason: str
    loc: Location
    # where SciPy raises ValueError for the arguments (a condition inside ``not valid``), with SciPy's message:
    # raised for concrete arguments, reported through jaxsci.errstate for traced ones
    raises: object = None  # sympy Boolean or None
    raises_message: str | None = None
    raises_text: str | None = None  # the condition as the spec writes it


@dataclass(frozen=True)
class ReductionRule:
    """How the outputs of a reduction move with one argument, under one static condition.

    ``jvps`` are linear in the tangent ``t`` of the argument (``sum(...)`` sums over the reduced axes,
    keeping them); a ``formula`` given as a partial derivative is stored here already contracted
    (``sum(formula * t)`` for a reduced output, ``formula * t`` for one of the input's shape).
    """

    arg: str
    when: Condition
    jvps: tuple  # ((output name, Formula of the tangent, or None for a piecewise-constant output), ...)
    written: tuple  # ((output name, text as written), ...), for the docs
    source: str
    loc: Location


@dataclass(frozen=True)
class Reduction:
    """A function that reduces (or normalises) its traced arguments over ``axis`` (generator/reduction.py)."""

    axis: str  # the static_axis argument
    keepdims: str | None  # the static_bool argument that keeps the reduced axes, if any
    shapes: tuple  # ((output name, "reduced" or "input"), ...)
    only_when: tuple  # ((output name, Condition), ...): outputs present only under a condition (return_sign)
    real_when: tuple  # ((output name, Condition), ...): outputs of the real dtype under a condition
    rules: tuple  # ReductionRule, ...
    loc: Location


@dataclass(frozen=True)
class Spec:
    path: str
    module: str  # the jaxsci submodule, e.g. "special"
    name: str
    scipy: str  # dotted path of the wrapped callable
    summary: str
    description: str
    references: tuple
    args: tuple  # Arg, ...
    outputs: tuple  # Output, ...
    vmap_method: str
    sympy: tuple  # Case(value=Formula), ...
    derivatives: tuple  # DerivativeRule, ...
    reference: tuple  # Case(value=Formula) of mpmath expressions; empty when finite_differences is set
    tests: TestPlan
    loc: Location = field(compare=False)
    finite_differences: str | None = None  # why mpmath cannot serve: gradients are checked against SciPy's differences
    native: Native | None = None  # a native JAX implementation for real inputs
    guard: Guard | None = None  # where SciPy may be called at all (crashes and hangs outside)
    aliases: tuple = ()  # other public names of the same function (p_roots for roots_legendre), as in SciPy
    reduction: Reduction | None = None  # over an axis argument, not elementwise (logsumexp, softmax)
    # core dimensions: why SciPy is called once per element (it takes scalars only); None: SciPy takes
    # the arrays and returns the core dimensions leading, as its ``*_all`` functions do
    host_loop: str | None = None
    derivative_outputs: DerivativeOutputs | None = None  # the function's derivatives returned with it
    device: object = None  # generator.device.Device: kernels that evaluate it on an accelerator
    scipy_since: tuple | None = None  # (major, minor): the SciPy release that added the function
    frontend: Frontend | None = None  # a core function every call goes through first
    # SciPy forwards **kwargs to a numpy ufunc (softplus's out=, where=, dtype=): why, and jaxsci's
    # wrapper takes them only to refuse them clearly (JAX arrays are immutable)
    numpy_keywords: str | None = None

    @property
    def core(self) -> tuple:
        """The core dimensions every output shares (CoreDim, ...); () for an elementwise function."""
        return self.outputs[0].core

    @property
    def traced_args(self) -> tuple:
        return tuple(a for a in self.args if a.traced)

    @property
    def static_args(self) -> tuple:
        return tuple(a for a in self.args if a.static)

    @property
    def differentiable_args(self) -> tuple:
        return tuple(a for a in self.args if a.differentiable)

    def arg(self, name: str) -> Arg:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)

    @property
    def kernel(self) -> bool:
        """A derivative kernel of jaxsci's own (specs/kernels/), not a SciPy function."""
        return self.module == KERNELS

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"
