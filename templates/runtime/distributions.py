"""jaxsci.stats' distributions: SciPy's method skeletons around the specs' standard-form formulas.

A spec gives each method in standard form (``loc = 0``, ``scale = 1``), over jaxsci.special's functions.
This module does, once for every distribution, what ``scipy.stats.rv_continuous`` and ``rv_discrete`` do
around their ``_pdf``, ``_cdf``, ... (scipy/stats/_distn_infrastructure.py): standardise
``(x - loc) / scale``, check the parameters (``_argcheck`` and ``scale > 0``), and give SciPy's values
outside the support (0, -inf, 0 or 1) and NaN for invalid parameters or a NaN point. A method the spec
leaves out is made from the others as SciPy's defaults make it (``sf = 1 - cdf``, ``isf(q) = ppf(1 - q)``,
a continuous ``logcdf`` from ``cdf`` below the median and ``log1p(-sf)`` above it, ...).

A spec may instead give a method as SciPy's own (``{host: true}``): ``scipy.stats.<name>.<method>`` in
standard form, evaluated on the host through the core's callback (``api.call``, one registered function
per host method, ``stats.<name>.<method>``), differentiated by the spec's formulas where it gives them and
otherwise by ``HOST_RULES``: d cdf/dx is the density, ppf and isf follow the implicit-function rule, the
log-methods the chain rule, and a shape parameter's derivative is that of the method the rule names
(differentiated by JAX, whatever computes it). A host density is differentiated through the cdf's (or
sf's) formula, differentiated in the point and then in the argument.

Derivatives are JAX's, through the special functions' own rules. Every formula is evaluated at a point
inside the support (points outside are replaced by one inside, and their result discarded), so that the
branch ``jnp.where`` does not take never turns a zero cotangent into NaN (``0 * inf``).

``rvs`` draws in standard form, by the spec's exact sampler (``jax.random``'s gamma, beta, normal, ...)
where it has one and otherwise as ppf of a uniform, then applies loc and scale. Whatever drew it, a
continuous sample's derivative in a shape parameter is the implicit reparameterization gradient
dx/dtheta = -(dF/dtheta)(x; theta) / f(x; theta) at the sample (Figurnov, Mohamed and Mnih, "Implicit
Reparameterization Gradients", NeurIPS 2018): a ``jax.custom_jvp`` around the sample evaluates it from
the spec's cdf (or sf, in the upper half, where 1 - cdf would cancel) and density, never through the
sampler's internals; the rule calls the sample itself, so the second derivative is that formula's own.
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
import operator
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from . import moments as _moments
from .api import call
from .promote import _inexact, no_tangent
from .registry import Arg, Function, Output, Rule, register

DISCRETE_POINT_WHY = ("SciPy evaluates a discrete distribution at integers only: it is a step function of "
                      "the point k and of loc (its derivative is zero between integers and does not exist at them)")
DISCRETE_QUANTILE_WHY = ("a discrete distribution's quantile is an integer: a step function of the probability "
                         "and of the shape parameters (its derivative is zero or does not exist)")
DISCRETE_SAMPLE_WHY = ("a discrete distribution's sample is an integer: a step function of its parameters "
                       "(its derivative is zero or does not exist)")


def maximum(a, b):
    """max(a, b) for spec formulas, NaN if either is. At a tie its derivative is a's whole (jnp.maximum gives
    each operand half): a formula's ``maximum(x, 1)`` clamps the variable of a branch taken at x = 1 too."""
    a, b = jnp.asarray(a), jnp.asarray(b)
    return jnp.where(jnp.isnan(b) | (b > a), b, a)


def minimum(a, b):
    """min(a, b) for spec formulas, NaN if either is; at a tie its derivative is a's (see maximum)."""
    a, b = jnp.asarray(a), jnp.asarray(b)
    return jnp.where(jnp.isnan(b) | (b < a), b, a)


def _unit_interval(value):
    """A probability rounded into [0, 1]. Not jnp.clip: its derivative is halved where the value equals a
    bound (min and max split a tie's derivative between their operands), which made bernoulli.pmf(1, p)'s
    derivative 0.5 at p = 1 instead of 1; here a value on the bound keeps its whole derivative."""
    return jnp.where(value > 1, 1, jnp.where(value < 0, 0, value))


@dataclass(frozen=True)
class Host:
    """A host method's derivatives: the spec's formulas (argument -> function(point, *shapes) in standard
    form), and the arguments a tangent may not reach (argument -> why, shown by NonDifferentiableError).
    Every other argument gets ``HOST_RULES``' rule."""

    derivatives: dict = field(default_factory=dict)
    blocked: dict = field(default_factory=dict)


def _no_evaluations(*_):
    return ()


# How a host method is differentiated where the spec gives no formula: method -> (rule in the point or
# probability, rule in a shape parameter), each ``rule(distribution, index, args, value)`` with ``args``
# the standard-form (point, *shapes) and ``value`` the method's value there. generator/distribution.py
# (HOST_RULE_TEXT) states them in the docstrings and coverage.md.
HOST_RULES = {
    # the density is the cdf's derivative; a shape parameter's comes from the sf's formula (the loader
    # makes the spec give one otherwise)
    "cdf": (lambda d, i, a, v: d._method(d._densities[0], a[0], a[1:]),
            lambda d, i, a, v: -d._partial("sf", i, a)),
    "sf": (lambda d, i, a, v: -d._method(d._densities[0], a[0], a[1:]),
           lambda d, i, a, v: -d._partial("cdf", i, a)),
    # the chain rule, with the point's derivative exp(logpdf - logcdf), accurate where cdf underflows
    "logcdf": (lambda d, i, a, v: jnp.exp(d._method(d._densities[1], a[0], a[1:]) - v),
               lambda d, i, a, v: d._partial("cdf", i, a) * jnp.exp(-v)),
    "logsf": (lambda d, i, a, v: -jnp.exp(d._method(d._densities[1], a[0], a[1:]) - v),
              lambda d, i, a, v: d._partial("sf", i, a) * jnp.exp(-v)),
    # the implicit-function rule on cdf(ppf(q)) = q and sf(isf(q)) = q (d sf/dx = -pdf: isf's sign differs)
    "ppf": (lambda d, i, a, v: jnp.exp(-d._method(d._densities[1], v, a[1:])),
            lambda d, i, a, v: -d._partial("cdf", i, (v, *a[1:])) * jnp.exp(-d._method(d._densities[1], v, a[1:]))),
    "isf": (lambda d, i, a, v: -jnp.exp(-d._method(d._densities[1], v, a[1:])),
            lambda d, i, a, v: d._partial("sf", i, (v, *a[1:])) * jnp.exp(-d._method(d._densities[1], v, a[1:]))),
    # a host density: the tail formula's derivative in the point, differentiated in the argument
    "pdf": (lambda d, i, a, v: d._density_partial(i, a), lambda d, i, a, v: d._density_partial(i, a)),
    "logpdf": (lambda d, i, a, v: d._density_partial(i, a) * jnp.exp(-v),
               lambda d, i, a, v: d._density_partial(i, a) * jnp.exp(-v)),
}


@dataclass(frozen=True)
class Distribution:
    """One distribution of a spec: its standard-form methods and SciPy's checks around them."""

    name: str
    shapes: tuple  # the shape parameters' names, in SciPy's order
    valid: object  # shapes -> bool array (SciPy's _argcheck), or None: every shape parameter positive
    support: object  # shapes -> (lower, upper) in standard form
    methods: dict  # method -> function(point or probability, *shapes) in standard form
    moments: dict = field(default_factory=dict)  # "mean", "var", "entropy" -> function(*shapes)
    integer_shapes: dict = field(default_factory=dict)  # name -> why it is not differentiable
    open_support: bool = False  # the density is 0 at the support's ends (SciPy's _open_support_mask)
    host: dict = field(default_factory=dict)  # method -> Host: SciPy's own method, evaluated on the host
    sampler: object = None  # (key, shape, dtype, *shapes) -> an exact standard-form sample; None: ppf of a uniform
    # name -> number of trailing core axes of a vector shape parameter (poisson_binom's p: 1), which the
    # formulas reduce and which never broadcast with the point (specs/README.md, Core axes)
    core: dict = field(default_factory=dict)
    # moment -> Host: SciPy's own moment on the host, differentiated by quadrature (moments.py); ``blocked``
    # holds the shape parameters the methods the quadrature uses are not differentiable in
    host_moments: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "_host_functions", {m: self._host_function(m, h) for m, h in self.host.items()})
        # the quantiles the moment quadrature asks for at probabilities down to 1e-300, where SciPy's may
        # raise (ncf.isf's Boost overflow): the quadrature stops at their NaN, and nobody is told of it
        object.__setattr__(self, "_quiet_host_functions", {
            m: register(dataclasses.replace(f, qualname=f"{f.qualname}.in_moment_quadrature", quiet=True))
            for m, f in self._host_functions.items() if m in ("ppf", "isf")})
        object.__setattr__(self, "_host_moments", {m: self._host_moment(m, h) for m, h in self.host_moments.items()})

    @property
    def _densities(self) -> tuple:
        return ("pmf", "logpmf") if isinstance(self, Discrete) else ("pdf", "logpdf")

    # ---- host methods ---------------------------------------------------------------------------
    def _host_function(self, method: str, host: Host) -> Function:
        """``scipy.stats.<name>.<method>`` as a core function of (point or probability, *shapes), with a
        rule for each argument a tangent may reach."""
        variable = "q" if method in ("ppf", "isf") else ("k" if isinstance(self, Discrete) else "x")
        blocked = dict(host.blocked)
        if isinstance(self, Discrete):  # the core's no_tangent raises first; this names the host function
            blocked.setdefault(variable, DISCRETE_QUANTILE_WHY if variable == "q" else DISCRETE_POINT_WHY)
            if variable == "q":
                blocked.update({name: DISCRETE_QUANTILE_WHY for name in self.shapes})
        blocked.update(self.integer_shapes)
        names = (variable, *self.shapes)
        args = tuple(Arg(n, "real", differentiable=n not in blocked, why=blocked.get(n)) for n in names)
        rules = {i: Rule((_no_evaluations,), self._host_derivative(method, host, i, n))
                 for i, n in enumerate(names) if n not in blocked}
        return register(Function(qualname=f"stats.{self.name}.{method}", scipy=f"scipy.stats.{self.name}.{method}",
                                 args=args, outputs=(Output("out", "promoted"),), vmap_method="expand_dims",
                                 rules={(): rules}))

    def _host_moment(self, moment: str, host: Host) -> Function:
        """``scipy.stats.<name>.<moment>`` as a core function of the shape parameters, differentiated by
        quadrature (moments.py) in each one a tangent may reach."""
        blocked = {**host.blocked, **self.integer_shapes}
        args = tuple(Arg(n, "real", differentiable=n not in blocked, why=blocked.get(n)) for n in self.shapes)
        rules = {i: Rule((_no_evaluations,), _moments.derivative(self, moment, i))
                 for i, n in enumerate(self.shapes) if n not in blocked}
        return register(Function(qualname=f"stats.{self.name}.{moment}", scipy=f"scipy.stats.{self.name}.{moment}",
                                 args=args, outputs=(Output("out", "promoted"),), vmap_method="expand_dims",
                                 rules={(): rules}))

    def _standard_moment(self, moment: str, shapes):
        """A moment in standard form: the spec's formula, or SciPy's on the host."""
        if moment in self.moments:
            return self.moments[moment](*shapes)
        return call(self._host_moments[moment], *shapes)

    def _checked_moment(self, moment: str, shapes, ok):
        """A moment in standard form where ``ok`` (the caller discards the rest); SciPy's own gets NaN
        parameters elsewhere, which it returns at once, rather than integrating for a value discarded (ksone's
        takes seconds). The where on the parameters also zeroes their cotangents there."""
        if moment in self.host_moments:
            shapes = [jnp.where(ok, s, jnp.nan) for s in shapes]
        return self._standard_moment(moment, shapes)

    def _host_derivative(self, method: str, host: Host, index: int, name: str):
        own = host.derivatives.get(name)
        automatic = HOST_RULES[method][0 if index == 0 else 1] if own is None else None  # the loader checks

        def derivative(*operands):
            *args, values, _ = operands
            return (own(*args) if own is not None else automatic(self, index, tuple(args), values[0]),)

        return derivative

    def _partial(self, method: str, index: int, args: tuple):
        """d method / d args[index] in standard form, by JAX (through the method's formula, or its host rules)."""
        def along(value):
            moved = (*args[:index], value, *args[index + 1:])
            return self._method(method, moved[0], moved[1:])

        return jax.jvp(along, (args[index],), (jnp.ones_like(args[index]),))[1]

    def _density_partial(self, index: int, args: tuple):
        """A host density's derivative: the cdf's formula (or minus the sf's) differentiated in the point,
        then in ``args[index]``."""
        tail, sign = ("cdf", 1) if "cdf" in self.methods else ("sf", -1)

        def density(value):
            moved = (*args[:index], value, *args[index + 1:])
            return sign * self._partial(tail, 0, moved)

        return jax.jvp(density, (args[index],), (jnp.ones_like(args[index]),))[1]

    # ---- arguments ------------------------------------------------------------------------------
    def _arrays(self, method: str, values: dict) -> list:
        """The arguments promoted together the JAX way (integers to the default float), each in its own
        shape: the formulas broadcast them, so that a term in the shape parameters alone (gamma's
        ``gammaln(a)``) is evaluated once per parameter, not once per point (benchmarks/RESULTS_stats.md)."""
        for name, value in values.items():
            if value is None or isinstance(value, (str, bytes)):
                raise TypeError(f"{self.qualname(method)}: argument {name!r} must be a number or an array, "
                                f"got {type(value).__name__}")
        # a vector shape parameter is given as SciPy takes it, a list included (poisson_binom's p)
        values = {name: jnp.asarray(v) if name in self.core and isinstance(v, (list, tuple)) else v
                  for name, v in values.items()}
        dtype = np.dtype(jnp.result_type(*values.values()))
        if jnp.issubdtype(dtype, jnp.complexfloating):
            raise TypeError(f"{self.qualname(method)}: the arguments must be real, got {dtype}")
        if not jnp.issubdtype(dtype, jnp.floating):
            dtype = _inexact(dtype)
        named = {name: jnp.asarray(v, dtype) for name, v in values.items()}
        for name, why in self.integer_shapes.items():
            named[name] = no_tangent(self.qualname(method), name, why, named[name])
        return list(named.values())

    def qualname(self, method: str) -> str:
        return f"stats.{self.name}.{method}"

    def _valid(self, shapes) -> jax.Array:
        if self.valid is not None:
            return jnp.asarray(self.valid(*shapes), bool)
        ok = jnp.asarray(True)
        for shape in shapes:
            ok = ok & (shape > 0)
        return ok

    def _batch_shapes(self, shapes) -> list:
        """Each shape parameter's shape without its core axes: what broadcasts with the point."""
        out = []
        for name, s in zip(self.shapes, shapes):
            shape = jnp.shape(s)
            out.append(shape[:len(shape) - self.core.get(name, 0)])
        return out

    def _broadcast_shapes_to(self, shapes, shape) -> list:
        """The shape parameters broadcast to the batch shape ``shape``, each keeping its core axes."""
        out = []
        for name, s in zip(self.shapes, shapes):
            axes = self.core.get(name, 0)
            out.append(jnp.broadcast_to(s, (*shape, *jnp.shape(s)[len(jnp.shape(s)) - axes:])))
        return out

    def _support(self, shapes, like):
        """The support's ends, in the broadcast shape of ``like`` and the shape parameters."""
        lower, upper = (jnp.asarray(end, like.dtype) for end in self.support(*shapes))
        shape = jnp.broadcast_shapes(like.shape, lower.shape, upper.shape, *self._batch_shapes(shapes))
        return jnp.broadcast_to(lower, shape), jnp.broadcast_to(upper, shape)

    # ---- sampling ---------------------------------------------------------------------------------------
    def _sample_shape(self, size, shape) -> tuple:
        """SciPy's rule (rv_generic._argcheck_rvs): size=None is the parameters' broadcast shape; otherwise
        the parameters must broadcast to size."""
        if size is None:
            return tuple(shape)
        try:
            size = (operator.index(size),) if np.ndim(size) == 0 else tuple(operator.index(n) for n in size)
        except TypeError:
            raise TypeError(f"{self.qualname('rvs')}: size must be None, an int or a tuple of ints, got {size!r}") from None
        try:
            fits = jnp.broadcast_shapes(tuple(shape), size) == size
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"{self.qualname('rvs')}: size {size} does not match the parameters' broadcast shape "
                             f"{tuple(shape)} (as in SciPy, the parameters must broadcast to size)")
        return size

    def _draw(self, key, shapes, shape, dtype):
        """A standard-form sample: the spec's exact sampler, or ppf of a uniform in (0, 1). Nothing is
        differentiated through it (the caller attaches the derivative)."""
        shapes = [jax.lax.stop_gradient(s) for s in self._broadcast_shapes_to(shapes, shape)]
        if self.sampler is not None:
            return jnp.asarray(self.sampler(key, shape, dtype, *shapes), dtype)
        # (0, 1), never 0, whose quantile is the support's lower end (an infinity where it is unbounded)
        uniform = jax.random.uniform(key, shape, dtype, minval=jnp.finfo(dtype).tiny, maxval=1)
        return self._method("ppf", uniform, shapes)

    # ---- standard-form methods, with SciPy's defaults for those a spec leaves out ---------------------
    def standard(self, method: str, z, *shapes):
        """``method`` in standard form at ``(z, *shapes)``, with no support or parameter checks around it: what
        a host method's derivative formula calls as ``pdf(x - 1, n - 1)`` (irwinhall's d pdf/dx), differentiable
        by the method's own rules."""
        return self._method(method, z, shapes)

    def _method(self, method: str, z, shapes, quiet: bool = False):
        """``quiet``: SciPy's failures in a host quantile are not reported (the moment quadrature's)."""
        own = self.methods.get(method)
        if own is not None:
            return own(z, *shapes)
        if method in self.host:
            return call((self._quiet_host_functions if quiet else self._host_functions)[method], z, *shapes)
        density, log_density = self._densities
        if method == density:
            return jnp.exp(self._method(log_density, z, shapes))
        if method == log_density:
            return jnp.log(self._method(density, z, shapes))
        if method == "sf":
            return 1 - self._method("cdf", z, shapes)
        if method == "isf":
            return self._method("ppf", 1 - z, shapes, quiet)
        if method in ("logcdf", "logsf") and isinstance(self, Discrete):
            return jnp.log(self._method(method[3:], z, shapes))
        if method in ("logcdf", "logsf"):
            # rv_continuous: log(cdf) below the median and log1p(-sf) above it (logsf: the mirror image),
            # each evaluated on its own side only
            median = self._method("ppf", jnp.full_like(z, 0.5), shapes)
            low = z < median if method == "logcdf" else z > median
            near, far = ("cdf", "sf") if method == "logcdf" else ("sf", "cdf")
            return jnp.where(low, jnp.log(self._method(near, jnp.where(low, z, median), shapes)),
                             jnp.log1p(-self._method(far, jnp.where(low, median, z), shapes)))
        raise AssertionError(f"{self.qualname(method)}: no formula and no default")  # the generator requires cdf and ppf


def standard(name: str, method: str, point, *shapes):
    """A formula's ``name.method(point, *shapes)``: jaxsci.stats' distribution ``name``'s method in standard
    form (its formula, host method or SciPy's default), differentiated by that method's own rules, without
    the public methods' support and parameter checks (the calling formula is evaluated inside its own
    support). A host rule may so use the same distribution at other parameters (geninvgauss' d cdf/db is
    a difference of its cdfs at p and p + 1) or a related one (norminvgauss' uses genhyperbolic's)."""
    module = importlib.import_module(f"{__package__.rsplit('.', 1)[0]}.stats.{name}")
    return module._DISTRIBUTION._method(method, point, shapes)


def as_integer(x):
    """An integer-valued float as JAX's default integer, for SciPy's integer loops (bdtr's n: its float
    loop warns that a float n is deprecated, whatever its value)."""
    return jnp.asarray(x).astype(jnp.int_)


# ---- functions of a shape parameter's core axis (the last), for the formulas of a spec with a ``core`` shape --
def core_sum(a):
    """The sum over the core axis."""
    return jnp.sum(a, axis=-1)


def core_cumsum(a):
    """The cumulative sum along the core axis."""
    return jnp.cumsum(a, axis=-1)


def core_index(a):
    """Each element's position along the core axis (0, 1, ...), in a's shape."""
    a = jnp.asarray(a)
    return jnp.broadcast_to(jnp.arange(a.shape[-1], dtype=a.dtype), a.shape)


def core_length(a):
    """The core axis' length, in the batch shape."""
    a = jnp.asarray(a)
    return jnp.full(a.shape[:-1], a.shape[-1], a.dtype)


@jax.jit
def bernoulli_sum_pmf(p):
    """P(S = j), j = 0..n, of the sum S of independent Bernoulli(p_i) over the core axis (length n): the
    coefficients of prod_i (1 - p_i + p_i z), by the recursion P_i(j) = P_(i-1)(j) (1 - p_i) + P_(i-1)(j - 1) p_i
    (Biscarri, Zhao and Brunner, Comput. Stat. Data Anal. 122 (2018) 92-100, eq. 2; SciPy's own). Its terms
    are non-negative, so each probability keeps its relative accuracy, and its derivatives in p are JAX's of
    the recursion: the polynomial's own, exact at every order."""
    p = jnp.asarray(p)
    start = jnp.zeros((*p.shape[:-1], p.shape[-1] + 1), p.dtype).at[..., 0].set(1)

    def step(table, pi):
        shifted = jnp.concatenate([jnp.zeros_like(table[..., :1]), table[..., :-1]], axis=-1)
        return table * (1 - pi[..., None]) + shifted * pi[..., None], None

    return jax.lax.scan(step, start, jnp.moveaxis(p, -1, 0))[0]


def _interior(lower, upper):
    """A point inside [lower, upper] (the formulas' stand-in for points outside the support)."""
    return jnp.where(jnp.isfinite(lower) & jnp.isfinite(upper), (lower + upper) / 2,
                     jnp.where(jnp.isfinite(lower), lower + 1, jnp.where(jnp.isfinite(upper), upper - 1, 0)))


def _bound(select, bound, scale, loc):
    """``bound * scale + loc`` where ``select`` holds; elsewhere a finite stand-in, so that an infinite
    bound that is not selected gives no ``0 * inf`` to reverse mode."""
    return jnp.where(select, bound, 0) * scale + loc


class Continuous(Distribution):
    """``scipy.stats.rv_continuous``'s public methods: ``method(x, *shapes, loc=0, scale=1)``."""

    def _standard(self, method, x, shapes, loc, scale):
        x, *shapes, loc, scale = self._arrays(method, {"x": x, **dict(zip(self.shapes, shapes)), "loc": loc, "scale": scale})
        # in one shape, as SciPy divides: XLA may divide by a scalar as a multiplication by its reciprocal,
        # an ulp off, which a formula such as pareto's 1 - x**-b near its lower end would magnify
        x, loc, scale = jnp.broadcast_arrays(x, loc, scale)
        positive = scale > 0
        scale = jnp.where(positive, scale, 1)
        z = (x - loc) / scale
        ok = self._valid(shapes) & positive
        lower, upper = self._support(shapes, z)
        return z, shapes, scale, ok, lower, upper

    def _density(self, method, x, shapes, loc, scale, outside):
        z, shapes, scale, ok, lower, upper = self._standard(method, x, shapes, loc, scale)
        inside = ok & ((lower < z) & (z < upper) if self.open_support else (lower <= z) & (z <= upper))
        safe = jnp.where(inside, z, _interior(lower, upper))
        value = self._method(method, safe, shapes)
        value = value / scale if method == "pdf" else value - jnp.log(scale)
        out = jnp.where(inside, value, outside)
        return jnp.where(~ok | jnp.isnan(z), jnp.nan, out)

    def _tail(self, method, x, shapes, loc, scale, below, above):
        z, shapes, scale, ok, lower, upper = self._standard(method, x, shapes, loc, scale)
        inside = ok & (lower < z) & (z < upper)
        safe = jnp.where(inside, z, _interior(lower, upper))
        edge = jnp.where(ok & (z >= upper), above, below) if method in ("cdf", "logcdf") else \
            jnp.where(ok & (z <= lower), below, above)
        out = jnp.where(inside, self._method(method, safe, shapes), edge)
        return jnp.where(~ok | jnp.isnan(z), jnp.nan, out)

    def _quantile(self, method, q, shapes, loc, scale):
        q, *shapes, loc, scale = self._arrays(method, {"q": q, **dict(zip(self.shapes, shapes)), "loc": loc, "scale": scale})
        positive = scale > 0
        scale = jnp.where(positive, scale, 1)
        ok = self._valid(shapes) & positive & (loc == loc)
        lower, upper = self._support(shapes, q)
        inside = ok & (0 < q) & (q < 1)
        value = self._method(method, jnp.where(inside, q, 0.5), shapes) * scale + loc
        at_lower = ok & (q == (0 if method == "ppf" else 1))
        at_upper = ok & (q == (1 if method == "ppf" else 0))
        return jnp.where(inside, value, jnp.where(at_lower, _bound(at_lower, lower, scale, loc),
                                                  jnp.where(at_upper, _bound(at_upper, upper, scale, loc), jnp.nan)))

    def pdf(self, x, *shapes, loc=0, scale=1):
        return self._density("pdf", x, shapes, loc, scale, 0)

    def logpdf(self, x, *shapes, loc=0, scale=1):
        return self._density("logpdf", x, shapes, loc, scale, -jnp.inf)

    def cdf(self, x, *shapes, loc=0, scale=1):
        return self._tail("cdf", x, shapes, loc, scale, 0, 1)

    def logcdf(self, x, *shapes, loc=0, scale=1):
        return self._tail("logcdf", x, shapes, loc, scale, -jnp.inf, 0)

    def sf(self, x, *shapes, loc=0, scale=1):
        return self._tail("sf", x, shapes, loc, scale, 1, 0)

    def logsf(self, x, *shapes, loc=0, scale=1):
        return self._tail("logsf", x, shapes, loc, scale, 0, -jnp.inf)

    def ppf(self, q, *shapes, loc=0, scale=1):
        return self._quantile("ppf", q, shapes, loc, scale)

    def isf(self, q, *shapes, loc=0, scale=1):
        return self._quantile("isf", q, shapes, loc, scale)

    # ---- moments: SciPy's rv_continuous.stats and entropy with loc and scale ------------------------
    def _moment(self, method, shapes, loc, scale):
        *shapes, loc, scale = self._arrays(method, {**dict(zip(self.shapes, shapes)), "loc": loc, "scale": scale})
        positive = scale > 0
        ok = self._valid(shapes) & positive & (loc == loc)  # SciPy's stats() gives NaN for a NaN loc, var too
        scale = jnp.where(positive, scale, 1)
        value = self._checked_moment("var" if method == "std" else method, shapes, ok)
        value = {"mean": lambda: value * scale + loc, "var": lambda: value * scale ** 2,
                 "std": lambda: jnp.sqrt(value) * scale, "entropy": lambda: value + jnp.log(scale)}[method]()
        return jnp.where(ok, jnp.broadcast_to(value, ok.shape), jnp.nan)

    def mean(self, *shapes, loc=0, scale=1):
        return self._moment("mean", shapes, loc, scale)

    def var(self, *shapes, loc=0, scale=1):
        return self._moment("var", shapes, loc, scale)

    def std(self, *shapes, loc=0, scale=1):
        return self._moment("std", shapes, loc, scale)

    def entropy(self, *shapes, loc=0, scale=1):
        return self._moment("entropy", shapes, loc, scale)

    def median(self, *shapes, loc=0, scale=1):
        return self.ppf(0.5, *shapes, loc=loc, scale=scale)

    # ---- sampling with implicit reparameterization gradients ------------------------------------------
    def rvs(self, key, *shapes, loc=0, scale=1, size=None):
        *shapes, loc, scale = self._arrays("rvs", {**dict(zip(self.shapes, shapes)), "loc": loc, "scale": scale})
        shape = self._sample_shape(size, jnp.broadcast_shapes(*self._batch_shapes(shapes), loc.shape, scale.shape))
        shapes, loc, scale = (self._broadcast_shapes_to(shapes, shape), jnp.broadcast_to(loc, shape),
                              jnp.broadcast_to(scale, shape))
        positive = scale > 0
        ok = self._valid(shapes) & positive
        z = self._reparameterized(self._draw(key, shapes, shape, loc.dtype), *shapes)
        return jnp.where(ok, z * jnp.where(positive, scale, 1) + loc, jnp.nan)

    @functools.cached_property
    def _reparameterized(self):
        """``(z, *shapes) -> z``, whose derivative in the shapes is -(dF/dshape)(z) / f(z) (and none in z, a
        draw): the implicit reparameterization gradient, whatever sampler drew z."""

        @jax.custom_jvp
        def sample(z, *shapes):
            return z

        def implicit(primals, tangents):
            z, *shapes = primals
            _, *shape_tangents = tangents
            # the sample again, so that at the next order its own dependence on the shapes is seen
            x = sample(z, *shapes)
            # only the shapes that move: a tangent on one the spec declares not differentiable raises, a
            # zero one (differentiating in another shape, or in loc) must not
            moving = [i for i, t in enumerate(shape_tangents) if type(t) is not SymbolicZero]
            if not moving:
                return z, jnp.zeros_like(z)

            def tail(method):
                def along(*moved):
                    values = list(shapes)
                    for i, value in zip(moving, moved):
                        values[i] = value
                    return self._method(method, x, values)

                return jax.jvp(along, tuple(shapes[i] for i in moving), tuple(shape_tangents[i] for i in moving))

            (cdf, d_cdf), (_, d_sf) = tail("cdf"), tail("sf")
            # dF = -dS: the upper half takes the survival function's, which keeps its relative accuracy there
            return z, jnp.where(cdf > 0.5, d_sf, -d_cdf) / self._method("pdf", x, shapes)

        sample.defjvp(implicit, symbolic_zeros=True)
        return sample


class Discrete(Distribution):
    """``scipy.stats.rv_discrete``'s public methods: ``method(k, *shapes, loc=0)``.

    A tangent on ``k`` or on ``loc`` of pmf, cdf and their kin, or on ``q`` or a shape parameter of ppf
    and isf, raises ``NonDifferentiableError``: those are step functions. The continuous shape
    parameters of pmf, cdf, ... are differentiable.
    """

    def _standard(self, method, k, shapes, loc):
        k, *shapes, loc = self._arrays(method, {"k": k, **dict(zip(self.shapes, shapes)), "loc": loc})
        k = no_tangent(self.qualname(method), "k", DISCRETE_POINT_WHY, k)
        loc = no_tangent(self.qualname(method), "loc", DISCRETE_POINT_WHY, loc)
        z = k - loc
        lower, upper = self._support(shapes, z)
        return z, shapes, self._valid(shapes), lower, upper

    @staticmethod
    def _stand_in(lower, upper):
        return jnp.where(jnp.isfinite(lower), lower, jnp.where(jnp.isfinite(upper), upper, 0))

    def _mass(self, method, k, shapes, loc, outside):
        z, shapes, ok, lower, upper = self._standard(method, k, shapes, loc)
        inside = ok & (z >= lower) & (z <= upper) & (jnp.floor(z) == z)
        value = self._method(method, jnp.where(inside, z, self._stand_in(lower, upper)), shapes)
        value = _unit_interval(value) if method == "pmf" else value
        return jnp.where(~ok | jnp.isnan(z), jnp.nan, jnp.where(inside, value, outside))

    def _tail(self, method, k, shapes, loc, below, above):
        z, shapes, ok, lower, upper = self._standard(method, k, shapes, loc)
        inside = ok & (z >= lower) & (z < upper) & jnp.isfinite(z)
        value = self._method(method, jnp.where(inside, z, self._stand_in(lower, upper)), shapes)
        value = _unit_interval(value) if method in ("cdf", "sf") else value
        # k = -inf is below every support, an unbounded one (dlaplace) included
        edge = jnp.where(z >= upper, above, below) if method in ("cdf", "logcdf") else \
            jnp.where((z < lower) | (z == -jnp.inf), below, above)
        # rv_discrete.logcdf gives 0 at and above the support's upper end whatever the parameters
        # (bernoulli's fixed upper end 1 with an invalid p), where its cdf gives NaN
        bad = ~ok & ~(z >= upper) if method == "logcdf" else ~ok
        return jnp.where(bad | jnp.isnan(z), jnp.nan, jnp.where(inside, value, edge))

    def _quantile(self, method, q, shapes, loc):
        q, *shapes, loc = self._arrays(method, {"q": q, **dict(zip(self.shapes, shapes)), "loc": loc})
        q = no_tangent(self.qualname(method), "q", DISCRETE_QUANTILE_WHY, q)
        shapes = [no_tangent(self.qualname(method), name, DISCRETE_QUANTILE_WHY, s) for name, s in zip(self.shapes, shapes)]
        ok = self._valid(shapes) & (loc == loc)
        lower, upper = self._support(shapes, q)
        inside = ok & (0 < q) & (q < 1)
        value = self._method(method, jnp.where(inside, q, 0.5), shapes) + loc
        at_lower = ok & (q == (0 if method == "ppf" else 1))
        at_upper = ok & (q == (1 if method == "ppf" else 0))
        # SciPy's lower end of a discrete quantile is one below the support
        return jnp.where(inside, value, jnp.where(at_lower, _bound(at_lower, lower - 1, 1, loc),
                                                  jnp.where(at_upper, _bound(at_upper, upper, 1, loc), jnp.nan)))

    def pmf(self, k, *shapes, loc=0):
        return self._mass("pmf", k, shapes, loc, 0)

    def logpmf(self, k, *shapes, loc=0):
        return self._mass("logpmf", k, shapes, loc, -jnp.inf)

    def cdf(self, k, *shapes, loc=0):
        return self._tail("cdf", k, shapes, loc, 0, 1)

    def logcdf(self, k, *shapes, loc=0):
        return self._tail("logcdf", k, shapes, loc, -jnp.inf, 0)

    def sf(self, k, *shapes, loc=0):
        return self._tail("sf", k, shapes, loc, 1, 0)

    def logsf(self, k, *shapes, loc=0):
        return self._tail("logsf", k, shapes, loc, 0, -jnp.inf)

    def ppf(self, q, *shapes, loc=0):
        return self._quantile("ppf", q, shapes, loc)

    def isf(self, q, *shapes, loc=0):
        return self._quantile("isf", q, shapes, loc)

    def _moment(self, method, shapes, loc):
        *shapes, loc = self._arrays(method, {**dict(zip(self.shapes, shapes)), "loc": loc})
        ok = self._valid(shapes) & (loc == loc)
        value = self._checked_moment("var" if method == "std" else method, shapes, ok)
        value = {"mean": lambda: value + loc, "var": lambda: value, "std": lambda: jnp.sqrt(value),
                 "entropy": lambda: value}[method]()
        return jnp.where(ok, jnp.broadcast_to(value, ok.shape), jnp.nan)

    def mean(self, *shapes, loc=0):
        return self._moment("mean", shapes, loc)

    def var(self, *shapes, loc=0):
        return self._moment("var", shapes, loc)

    def std(self, *shapes, loc=0):
        return self._moment("std", shapes, loc)

    def entropy(self, *shapes, loc=0):
        return self._moment("entropy", shapes, loc)

    def median(self, *shapes, loc=0):
        return self.ppf(0.5, *shapes, loc=loc)

    def rvs(self, key, *shapes, loc=0, size=None):
        *shapes, loc = self._arrays("rvs", {**dict(zip(self.shapes, shapes)), "loc": loc})
        shapes = [no_tangent(self.qualname("rvs"), name, DISCRETE_SAMPLE_WHY, s) for name, s in zip(self.shapes, shapes)]
        loc = no_tangent(self.qualname("rvs"), "loc", DISCRETE_SAMPLE_WHY, loc)
        shape = self._sample_shape(size, jnp.broadcast_shapes(*self._batch_shapes(shapes), loc.shape))
        shapes, loc = self._broadcast_shapes_to(shapes, shape), jnp.broadcast_to(loc, shape)
        ok = self._valid(shapes) & (loc == loc)
        return jnp.where(ok, self._draw(key, shapes, shape, loc.dtype) + loc, jnp.nan)
