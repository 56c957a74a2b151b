"""Moments SciPy computes numerically: SciPy's value, with derivatives in the shape parameters by quadrature.

A spec's moment written ``{host: true}`` (specs/README.md, Distributions) is SciPy's own
``scipy.stats.<name>.<moment>`` in standard form, evaluated on the host through the callback core, so its
value is SciPy's. Its derivative in a shape parameter is that of a quadrature which computes the same moment
from the spec's own methods, differentiated under the integral (or sum) sign by JAX, at every order:

- continuous: over the probability u in (0, 1), with the quantile x(u) (ppf(u) for u <= 1/2, isf(1 - u)
  above, so that both tails keep their relative accuracy):
  mean = int x du, var = int (x - mean)**2 du, entropy = -int logpdf(x(u)) du.
  The rule is tanh-sinh (Takahasi and Mori, "Double exponential formulas for numerical integration",
  Publ. RIMS 9 (1974) 721-741): u = 1 / (1 + exp(-pi sinh t)) on a grid of t with step ``STEP``, whose
  nodes crowd doubly exponentially at u = 0 and 1, where a heavy tail or a density singular at an end of
  its support makes these integrands singular. A quantile's derivative in a shape parameter is the spec's
  (a formula's own, or the implicit-function rule -(dF/dtheta) / f of a host quantile).
- discrete: sum of pmf(k) g(k) over the integers from ppf(TAIL) (TERMS of them at most) up to where the
  mass from k on is below TAIL, with g = k, (k - mean)**2, -logpmf(k); SciPy's generic entropy also stops
  where the mass left is below about 1e-17. The integers beyond, whose terms are below TAIL times a
  polynomial in k at every order, are left out: far in a tail (skellam's pmf at 1e-153, k = 204) a
  formula's second derivative may be NaN, which would make the sum's NaN.

Each quadrature estimates its own error, at every derivative order (each order's integrand is checked
as the value's is), and gives NaN, never a number it cannot vouch for, where the estimate is above
``TOLERANCE`` times the sum of the terms' magnitudes: a continuous rule against the same sum on every
other node (step 2 STEP), and its truncation by the last term it keeps (the terms are summed outward from
u = 1/2 while they are finite: beyond, a quantile has reached an infinite or the support's end, or the
formulas overflow); a discrete sum against the same sum without the outer tails of mass below
``COARSE_TAIL``, and the mass of its window (within ``MASS_TOLERANCE`` of 1, else the window of TERMS
integers is too short). The first derivative is also NaN where SciPy's value is not finite (an infinite or
undefined moment: SciPy's inf or NaN) or where the quadrature's value is further than ``VALUE_TOLERANCE``
from SciPy's (they do not compute the same thing there).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

TOLERANCE = 1e-7  # the error estimate's bound, relative to the sum of |terms| (float32: 64 eps)
VALUE_TOLERANCE = 1e-6  # the quadrature's value against SciPy's (SciPy's own integration is good to about 1e-8)
STEP = 1 / 128  # the tanh-sinh step in t (1559 nodes); the error estimate takes every other node
SMALLEST = 1e-300  # the smallest probability node (float32: a thousand times its smallest normal number)
TAIL = 1e-17  # a discrete sum starts at ppf(TAIL) and stops where the mass from k on is below it
COARSE_TAIL = 1e-12  # ... and its error estimate leaves out the tails of mass below this
TERMS = 2048  # the integers a discrete sum takes
MASS_TOLERANCE = 1e-9  # the discrete window's mass must be 1 to this


def _tolerance(dtype) -> float:
    return max(TOLERANCE, 64 * float(np.finfo(dtype).eps))


@functools.lru_cache(maxsize=None)
def _nodes(dtype: np.dtype) -> tuple:
    """The tanh-sinh nodes below 1/2, s = 1 / (1 + exp(pi sinh t)) for t = 0, STEP, ..., down to the
    smallest probability the dtype holds well, and their weights STEP pi cosh t s (1 - s); the nodes above
    1/2 are 1 - s (t < 0) with the same weights. ``coarse``: the weights' factor on the grid of step
    2 STEP (2 on every other node, from t = 0)."""
    smallest = max(SMALLEST, float(np.finfo(dtype).tiny) * 1e3)
    t = np.arange(int(np.arcsinh(np.log(1 / smallest) / np.pi) / STEP) + 1) * STEP
    e = np.exp(-np.pi * np.sinh(t))
    s = e / (1 + e)
    weights = STEP * np.pi * np.cosh(t) * e / (1 + e) ** 2
    coarse = np.where(np.arange(t.size) % 2 == 0, 2.0, 0.0)
    return s, weights, coarse


def _sums(terms, fine, coarse, last, ok, tol):
    """(the sum, the sum of magnitudes, whether the error estimate is within tol of it)."""
    kept = jnp.where(fine, terms, 0)
    value = jnp.sum(kept, axis=-1)
    scale = jnp.sum(jnp.abs(kept), axis=-1)
    difference = jnp.abs(value - jnp.sum(coarse * kept, axis=-1))
    tail = jnp.sum(jnp.where(last, jnp.abs(kept), 0), axis=-1)
    return value, scale, ok & (difference <= tol * scale) & (tail <= tol * scale)


def _checked(terms, masks, count: int, tol: float):
    """``f(*shapes, *aux)``: the sum of ``terms(shapes, aux)`` over its last axis where its error estimate
    (``masks(shapes, aux, terms)``: which terms it keeps, the coarse weights, its last terms, and whether
    it may be used) is within ``tol``, else NaN. Its derivative in ``shapes[j]`` is the same construction
    for the terms' derivative, so that every order is checked as the value is."""

    @jax.custom_jvp
    def total(*args):
        shapes, aux = args[:count], args[count:]
        values = terms(shapes, aux)
        fine, coarse, last, ok = masks(shapes, aux, jax.lax.stop_gradient(values))
        value, _, good = _sums(values, fine, coarse, last, ok, tol)
        return jnp.where(good, value, jnp.nan)

    def rule(primals, tangents):
        out = total(*primals)
        tangent = jnp.zeros_like(out)
        for j in range(count):
            if not isinstance(tangents[j], SymbolicZero):  # a NaN partial must not reach another argument's
                tangent = tangent + _checked(_partial(terms, j), masks, count, tol)(*primals) * tangents[j]
        return out, tangent

    total.defjvp(rule, symbolic_zeros=True)
    return total


def _partial(terms, j: int):
    """The terms' derivative in ``shapes[j]``, element by element (each moment is elementwise in its
    parameters)."""
    def partial(shapes, aux):
        along = lambda value: terms((*shapes[:j], value, *shapes[j + 1:]), aux)  # noqa: E731
        return jax.jvp(along, (shapes[j],), (jnp.ones_like(shapes[j]),))[1]

    return partial


class _Continuous:
    """Tanh-sinh over the probability: terms w g(x(u)) at the nodes below 1/2 (u = 1/2 first, then
    outward) and above it (outward), each side kept while its terms are finite."""

    def __init__(self, d, moment: str, dtype):
        # numpy constants, never arrays of the trace that makes them: the rules of every order use them
        self.d, self.moment = d, moment
        s, weights, coarse = _nodes(np.dtype(dtype))
        self.below = s.size
        self.s = s.astype(dtype)
        self.weights = np.concatenate([weights, weights[1:]]).astype(dtype)
        self.coarse = np.concatenate([coarse, coarse[1:]]).astype(dtype)
        # SciPy's default isf is ppf(1 - q): below eps, 1 - q is 1 (or an ulp from it), so those nodes
        # stand for the quantile at another probability; the sum stops before them
        own_isf = "isf" in d.methods or "isf" in d.host
        self.usable = np.concatenate([np.ones(s.size, bool), own_isf | (s[1:] > np.finfo(dtype).eps)])

    def aux(self, shapes) -> tuple:
        return ()

    def terms(self, shapes, aux):
        shapes = [jnp.expand_dims(s, -1) for s in shapes]
        lower = self.d._method("ppf", self.s, shapes, quiet=True)
        upper = self.d._method("isf", self.s[1:], shapes, quiet=True)
        batch = jnp.broadcast_shapes(lower.shape[:-1], upper.shape[:-1])
        x = jnp.concatenate([jnp.broadcast_to(lower, (*batch, lower.shape[-1])),
                             jnp.broadcast_to(upper, (*batch, upper.shape[-1]))], axis=-1)
        if self.moment == "mean":
            g = x
        elif self.moment == "var":
            g = (x - self.d._standard_moment("mean", shapes)) ** 2
        else:
            g = -self.d._method(self.d._densities[1], x, shapes)
        return g * self.weights

    def masks(self, shapes, aux, terms):
        finite = (jnp.isfinite(terms) & self.usable).astype(jnp.int32)
        axis = terms.ndim - 1
        lower = jax.lax.cummin(finite[..., :self.below], axis=axis)
        upper = jax.lax.cummin(finite[..., self.below:], axis=axis) * lower[..., :1]
        fine = jnp.concatenate([lower, upper], axis=-1).astype(bool)
        after = jnp.concatenate([lower[..., 1:], jnp.zeros_like(lower[..., :1]), upper[..., 1:],
                                 jnp.zeros_like(upper[..., :1])], axis=-1).astype(bool)
        return fine, self.coarse, fine & ~after, True


class _Discrete:
    """pmf(k) g(k) at the integers from ppf(TAIL) within the support (TERMS of them at most) whose mass
    from k on is at least TAIL."""

    def __init__(self, d, moment: str, dtype):
        self.d, self.moment, self.dtype = d, moment, dtype

    def aux(self, shapes) -> tuple:
        """The window (its integers, which are in the support; those with mass from k on at least TAIL
        are used), the coarse sum's weights, and whether the window holds the mass, from the parameters'
        values (it is a step function of them)."""
        shapes = [jax.lax.stop_gradient(s) for s in shapes]
        lower, upper = (jnp.asarray(end, self.dtype) for end in self.d.support(*shapes))
        start = self.d._method("ppf", jnp.full(jnp.broadcast_shapes(*(jnp.shape(s) for s in shapes)), TAIL, self.dtype),
                               shapes, quiet=True)
        start = jnp.maximum(jnp.where(jnp.isnan(start), lower, start), lower)
        k = jnp.expand_dims(start, -1) + jnp.arange(TERMS, dtype=self.dtype)
        inside = k <= jnp.expand_dims(upper, -1)
        k = jnp.where(inside, k, jnp.expand_dims(start, -1))
        pmf = jnp.where(inside, self.d._method("pmf", k, [jnp.expand_dims(s, -1) for s in shapes]), 0)
        cumulative = jnp.cumsum(pmf, axis=-1)
        mass = cumulative[..., -1:]
        coarse = inside & (cumulative > COARSE_TAIL) & (mass - cumulative + pmf > COARSE_TAIL)
        ok = jnp.abs(1 - mass[..., 0]) <= MASS_TOLERANCE
        # the mass from k on, summed from the right (mass - cumulative would carry 1 ulp of 1, 1e-16)
        right = jnp.flip(jnp.cumsum(jnp.flip(pmf, -1), axis=-1), -1)
        used = inside & (right >= TAIL)
        return k, used, (coarse & used).astype(self.dtype), ok

    def terms(self, shapes, aux):
        k = aux[0]
        shapes = [jnp.expand_dims(s, -1) for s in shapes]
        pmf = self.d._method("pmf", k, shapes)
        if self.moment == "mean":
            return pmf * k
        if self.moment == "var":
            return pmf * (k - self.d._standard_moment("mean", shapes)) ** 2
        # 0 log 0 = 0, as SciPy's entr; forward mode only differentiates this (the rule's jvp), so the
        # branch not taken adds nothing
        return jnp.where(pmf > 0, -pmf * self.d._method("logpmf", k, shapes), 0)

    def masks(self, shapes, aux, terms):
        _, inside, coarse, ok = aux
        return inside, coarse, jnp.zeros_like(inside), ok


def derivative(d, moment: str, index: int):
    """The host moment's rule in ``shapes[index]`` (the core's ``Rule.derivative``): the quadrature's
    partial derivative, NaN where SciPy's value is not finite or the quadrature's value is not SciPy's.
    Jitted, so that an eager derivative compiles the quadrature once rather than each of its operations."""

    @jax.jit
    def partial_derivative(scipys, *shapes):
        dtype = np.dtype(jnp.result_type(*shapes))
        quadrature = (_Discrete if d._densities[0] == "pmf" else _Continuous)(d, moment, dtype)
        aux = quadrature.aux(shapes)
        tol = _tolerance(dtype)
        stopped = [jax.lax.stop_gradient(s) for s in shapes]
        terms = jax.lax.stop_gradient(quadrature.terms(stopped, aux))
        value, scale, good = _sums(terms, *quadrature.masks(stopped, aux, terms), tol)
        agrees = good & jnp.isfinite(scipys) & (jnp.abs(value - scipys) <= VALUE_TOLERANCE * scale)
        partial = _checked(_partial(quadrature.terms, index), quadrature.masks, len(shapes), tol)(*shapes, *aux)
        # a factor NaN where SciPy's value is not the quadrature's, rather than a where: the derivatives of
        # every order taken through it are NaN there too (a where's would be 0)
        return partial * jnp.where(agrees, 1, jnp.nan)

    def rule(*operands):
        *shapes, values, _ = operands
        return (partial_derivative(values[0], *shapes),)

    return rule
