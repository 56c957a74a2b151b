"""Function records written by the generated modules, looked up by name at trace and run time."""
from __future__ import annotations

import functools
import importlib
import itertools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .guards import guarded

REGISTRY: dict[str, "Function"] = {}


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str  # real | complex | integer | static_bool | static_int | static_float | static_str
    differentiable: bool = False
    why: str | None = None
    accepts_float: bool = False
    truncates_float: bool = False
    choices: tuple | None = None  # static arguments: the supported values, when not every value
    why_choices: str | None = None
    optional: bool = False  # traced, default None: None leaves it out of SciPy's call
    eager: bool | None = None  # static_bool: the value SciPy is called with eagerly, on concrete inputs only
    why_eager: str | None = None
    sum_of: str | None = None  # static_bool: True appends the sum of this output over its core dimension (mu)
    minimum: float | None = None  # static int or float: the smallest value accepted, and why
    why_minimum: str | None = None
    # SciPy takes it by keyword only (``*, diff_n=0``); the host of a core-dimension function passes
    # the others by position, in SciPy's order (its multi-ufuncs take no keywords for the arrays)
    keyword_only: bool = False
    # the SciPy release (major, minor) that added this static argument; an older SciPy is called without
    # it (its only choice is the default, which is what that SciPy does)
    scipy_since: tuple | None = None

    @property
    def traced(self) -> bool:
        return self.kind in ("real", "complex", "integer")


@dataclass(frozen=True)
class Output:
    name: str
    dtype: str = "promoted"  # promoted | complex | real | int32 | orthopoly1d
    # functions of static arguments only: ints, static_int names, ((coefficient, name or None), ...) sums,
    # or "eager" (known only from SciPy's result: objects.eager_arrays)
    shape: tuple | str | None = None
    evaluates: tuple | None = None  # "orthopoly1d": (jaxsci function, argument names with "x"): objects.orthopoly


@dataclass(frozen=True)
class Need:
    """An evaluation a derivative needs: ``function(*args, **statics)``.

    Each arg is an ``int`` (the caller's traced argument at that index, shared as is) or a pair
    ``(key, value)``: ``key`` names the value canonically in terms of the caller's arguments
    (``"_0 - 1"``), so equal needs from different rules or orders are evaluated once.
    """

    function: str
    statics: tuple
    args: tuple
    # ((caller's traced index, constant), ...): the evaluation is used only where every one of those
    # arguments equals its constant (a rule's special point), so the host evaluates it only there.
    where: tuple = ()


@dataclass(frozen=True)
class Rule:
    """Partial derivatives of every output with respect to one traced argument.

    ``needs`` holds one function per host round trip, ``stage(*traced, values, earlier)``, listing the
    evaluations the rule uses: the first is planned with the primal itself (its ``values`` are None);
    each later one may use the primal outputs ``values`` and the results ``earlier`` of the stages
    before it. ``derivative(*traced, values, needs)`` returns one array per output, where ``values``
    are the primal outputs and ``needs`` the results of all the evaluations, in order. ``conjugate`` has the same form and gives d/d(conj z) for outputs
    that are not holomorphic in a complex argument.
    """

    needs: tuple  # of callables, one per round trip
    derivative: Callable
    conjugate: Callable | None = None
    # static int arguments the rule's functions take as keywords (jvp's z-rule needs jvp(v, z, n + 1))
    statics: tuple = ()
    # the rule that calls with a real argument use (a spec's `real` formula): for a rule with a
    # conjugate part, derivative + conjugate along the real axis in a form that does not cancel
    real: "Rule | None" = None

    def at(self, primal) -> "Rule":
        """This rule, or its variant for a real ``primal`` (the differentiated argument's value)."""
        return self.real if self.real is not None and not np.iscomplexobj(primal) else self

    def keywords(self, call_statics: tuple) -> dict:
        """The call's values of this rule's static arguments, as keywords for its functions."""
        return {k: v for k, v in call_statics if k in self.statics} if self.statics else {}


@dataclass(frozen=True)
class Function:
    qualname: str  # "special.jv"
    scipy: str  # "scipy.special.jv"
    args: tuple
    outputs: tuple
    vmap_method: str
    rules: dict = field(default_factory=dict)  # condition -> {traced index: Rule}
    native: str | None = None  # a native JAX implementation for real inputs ("jax.scipy.special.i0e")
    # where SciPy may be called: numpy booleans from the traced operands (the spec's guard.valid), or None
    guard: Callable | None = None
    # (condition, SciPy's message): where SciPy raises ValueError for the arguments (outside the guard)
    raises: tuple | None = None
    # outputs with core dimensions (coredims.py): their sizes from the static values, how many, and
    # whether SciPy takes scalars only (the host then calls it once per element)
    core_shape: Callable | None = None
    core_rank: int = 0
    host_loop: bool = False
    # (order argument, (argument, ...)): the function returns its own derivatives in those arguments up
    # to that order with its value, as SciPy's diff_n does (derived.py)
    derivative_outputs: tuple | None = None
    scipy_since: tuple | None = None  # the SciPy release (major, minor) that added the function
    # "jaxsci._core.<module>.<function>": every call goes through it first (the spec's frontend), as
    # function(fn, args, proceed), proceed(args) being the core's own call
    frontend: str | None = None
    numpy_keywords: str | None = None  # why SciPy takes **kwargs: the numpy ufunc it forwards them to
    # SciPy's failures in this function's calls are expected by the caller, which uses their NaN (the moment
    # quadrature's quantiles beyond SciPy's range): NaN, not reported
    quiet: bool = False

    @property
    def public_name(self) -> str:
        return f"jaxsci.{self.qualname}"

    @property
    def traced_args(self) -> tuple:
        return tuple(a for a in self.args if a.traced)

    @property
    def static_args(self) -> tuple:
        return tuple(a for a in self.args if not a.traced)

    def rules_for(self, statics: tuple) -> dict:
        # static booleans, and optional arguments left out (zeta(x) without q: the spec's when_omitted rules)
        condition = tuple(sorted((k, v) for k, v in statics if isinstance(v, bool) or v is None))
        return self.rules.get(condition, {})

    def frontend_callable(self) -> Callable:
        module, _, name = self.frontend.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def require_scipy(self) -> None:
        """Raise ``NotImplementedError`` where the installed SciPy is older than the function."""
        if self.scipy_since is not None and installed_scipy() < self.scipy_since:
            import scipy

            raise NotImplementedError(f"{self.public_name} needs SciPy {'.'.join(map(str, self.scipy_since))} or later, "
                                      f"which added {self.scipy}; SciPy {scipy.__version__} is installed")

    def scipy_callable(self) -> Callable:
        """What the host calls: SciPy's callable, behind the spec's guard when it has one, and without the
        static arguments the installed SciPy does not have yet (``Arg.scipy_since``)."""
        newer = _newer_than_scipy(self.static_args)
        key = (self.scipy, self.guard, newer)
        cached = _SCIPY_CALLABLES.get(key)
        if cached is None:
            cached = _resolve(self.scipy)  # a method of an object too: scipy.stats.ncx2.pdf (jaxsci.stats' host methods)
            if newer:
                cached = _without(cached, newer)
            if self.guard is not None:
                cached = guarded(cached, self.guard, self.report_raises())
            _SCIPY_CALLABLES[key] = cached
        return cached

    def report_raises(self) -> Callable | None:
        """For traced arguments where SciPy raises (``raises``): the host reports SciPy's ValueError
        through jaxsci.errstate, and the outputs there stay NaN, the others computed."""
        if self.raises is None:
            return None
        condition, message = self.raises
        qualname = self.qualname

        def report_where_raised(*args) -> None:
            if np.any(condition(*args)):
                from .errstate import report

                report(qualname, ValueError(message))

        return report_where_raised

    @property
    def scipy_is_ufunc(self) -> bool:
        """Whether SciPy's callable is a NumPy ufunc (its loops decide the dtypes it takes)."""
        return isinstance(_resolve(self.scipy), np.ufunc)

    def native_callable(self) -> Callable | None:
        """The spec's native JAX implementation (``native``), imported on first use; None where the
        installed jax does not have it yet (``native.jax_since``: dawsn's is jax 0.10.2's), and SciPy
        computes the function instead."""
        if self.native not in _NATIVE_CALLABLES:
            try:
                _NATIVE_CALLABLES[self.native] = _resolve(self.native)
            except AttributeError:
                _NATIVE_CALLABLES[self.native] = None
        return _NATIVE_CALLABLES[self.native]


@functools.lru_cache(maxsize=None)
def _newer_than_scipy(static_args: tuple) -> frozenset:
    """The static arguments the installed SciPy does not have yet (``Arg.scipy_since``)."""
    return frozenset(a.name for a in static_args if a.scipy_since is not None and installed_scipy() < a.scipy_since)


def _without(function: Callable, names: frozenset) -> Callable:
    """``function`` called without the keywords ``names``."""
    @functools.wraps(function)
    def call(*args, **keywords):
        return function(*args, **{k: v for k, v in keywords.items() if k not in names})

    return call


@functools.lru_cache(maxsize=1)
def installed_scipy() -> tuple:
    """The installed SciPy's (major, minor)."""
    import scipy

    major, minor = scipy.__version__.split(".")[:2]
    return int(major), int("".join(itertools.takewhile(str.isdigit, minor)))


def _resolve(dotted: str) -> Callable:
    """The object a dotted name names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attr in parts[split:]:
            target = getattr(target, attr)
        return target
    raise ImportError(f"jaxsci: cannot import {dotted}")


_SCIPY_CALLABLES: dict[tuple, Callable] = {}
_NATIVE_CALLABLES: dict[str, Callable | None] = {}


def register(function: Function) -> Function:
    REGISTRY[function.qualname] = function
    return function


def lookup(qualname: str) -> Function:
    """The registered function ``module.name``, importing its generated module on first use.

    Function modules are loaded lazily (the packages' ``__getattr__``), so a rule's need for another
    function, or a host call in a fresh process, may be the first use of that function's module.
    """
    function = REGISTRY.get(qualname)
    if function is not None:
        return function
    module, _, name = qualname.partition(".")
    root = __name__.split(".")[0]
    target = f"{root}.{module}._{name}"
    try:
        importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if not target.startswith(exc.name or "?"):
            raise  # the module exists but one of its imports is missing: say so, not "not registered"
    try:
        return REGISTRY[qualname]
    except KeyError:
        raise LookupError(f"jaxsci: no function {qualname!r} is registered (no module {root}.{module}._{name})") from None
