"""Inverses at SciPy's bounds: where CDFLIB's search finds no root it returns a bound of its search
interval (0, a subnormal number, 1e-100, 1e10, 1e100, -1e100), so the value is constant in every
argument nearby and its derivatives are 0; the implicit rule there would differentiate an equation
that does not hold (ncfdtridfn(0.99, 5, 2, 1.5) in p gave 3.7e99). Each spec's ``constant_where``
says where; here, on random points of a wide box, the derivative is 0 exactly where SciPy's value is
at a bound and finite elsewhere, and the points of issue 23 are 0. Where a search stops short of a root
in a far tail (no bound, just not a root), the spec's ``nan_where`` makes the derivative NaN.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci.special as special


def _p(rng, n):
    return np.concatenate([rng.uniform(0.001, 0.999, n - n // 4), 1 - 10 ** rng.uniform(-8, -3, n // 4)])


def _log(rng, n, lo, hi):
    return 10 ** rng.uniform(np.log10(lo), np.log10(hi), n)


# name: (a sampler of its arguments, the index of p (its derivative exists wherever a root does),
#        SciPy's value at a bound)
BOXES = {
    "bdtrik": (lambda r, n: (_p(r, n), _log(r, n, 0.5, 100), r.uniform(0.01, 0.99, n)), 0, lambda k: k == 0),
    "chndtridf": (lambda r, n: (_log(r, n, 0.1, 100), _p(r, n), r.uniform(0, 20, n)), 1, lambda d: d < 1e-300),
    "chndtrinc": (lambda r, n: (_log(r, n, 0.1, 100), _log(r, n, 0.1, 100), _p(r, n)), 2, lambda d: d < 1e-300),
    "fdtridfd": (lambda r, n: (_log(r, n, 0.1, 100), _p(r, n), _log(r, n, 0.01, 100)), 1,
                 lambda d: (d == 1e-100) | (d == 1e100)),
    "stdtridf": (lambda r, n: (_p(r, n), r.uniform(-10, 10, n)), 0, lambda d: (d == -1e100) | (d == 1e10)),
    "ncfdtridfd": (lambda r, n: (_log(r, n, 0.5, 50), _p(r, n), r.uniform(0, 20, n), _log(r, n, 0.1, 10)), 1,
                   lambda d: (d == 1e-100) | (d == 1e100)),
    "ncfdtridfn": (lambda r, n: (_p(r, n), _log(r, n, 0.5, 50), r.uniform(0, 20, n), _log(r, n, 0.1, 10)), 0,
                   lambda d: (d == 1e-100) | (d == 1e100)),
    "nctdtridf": (lambda r, n: (_p(r, n), r.uniform(-3, 3, n), r.uniform(-6, 6, n)), 0,
                  lambda d: (d == -1e100) | (d == 1e100)),
    "nbdtrik": (lambda r, n: (_p(r, n), _log(r, n, 0.5, 100), r.uniform(0.01, 0.99, n)), 0, lambda k: k == 0),
    "pdtrik": (lambda r, n: (_p(r, n), _log(r, n, 0.01, 100)), 0, lambda k: k == 0),
    "ncfdtrinc": (lambda r, n: (_log(r, n, 0.5, 50), _log(r, n, 0.5, 50), _p(r, n), _log(r, n, 0.1, 10)), 2,
                  lambda d: d < 1e-300),
}

ISSUE_POINTS = [("ncfdtridfn", (0.99, 5.0, 2.0, 1.5)), ("nctdtridf", (0.999, 1.0, 0.5)),
                ("chndtridf", (10.0, 0.9, 6.0)), ("bdtrik", (0.001, 10.0, 0.2))]


@pytest.mark.parametrize("name, point", ISSUE_POINTS, ids=[p[0] for p in ISSUE_POINTS])
def test_the_issues_points_are_constant(name, point):
    f = getattr(special, name)
    gradient = jax.grad(f, argnums=tuple(range(len(point))))(*point)
    assert all(float(g) == 0.0 for g in gradient), gradient
    hessian = jax.hessian(f)(*point)
    assert float(hessian) == 0.0


def _derivative_at_bounds(name, n, seed):
    sampler, index, at_bound = BOXES[name]
    args = sampler(np.random.default_rng(seed), n)
    with np.errstate(all="ignore"):
        value = getattr(sc, name)(*args)
    f = getattr(special, name)
    derivative = np.asarray(jax.vmap(jax.grad(f, argnums=index))(*[jnp.asarray(a) for a in args]))
    bound = at_bound(value) & np.isfinite(value)
    assert bound.any() and (~bound & np.isfinite(value)).any(), "the box should hold both kinds of point"
    assert np.all(derivative[bound] == 0), np.asarray(args)[:, bound & (derivative != 0)][:, :3]
    inside = ~bound & np.isfinite(value)
    # a root inside the interval: the implicit rule's derivative, finite or NaN (the kernels' honest NaN)
    assert np.all(derivative[inside] != 0), np.asarray(args)[:, inside & (derivative == 0)][:, :3]


@pytest.mark.parametrize("name", sorted(BOXES))
def test_derivative_is_zero_exactly_where_scipy_is_at_a_bound(name):
    _derivative_at_bounds(name, 60, 1)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BOXES))
def test_derivative_is_zero_exactly_where_scipy_is_at_a_bound_sweep(name):
    _derivative_at_bounds(name, 2000, 2)


def _tail_p(rng, n):
    """Probabilities down to 1e-300, where CDFLIB's searches stop at points that are not roots."""
    return np.where(rng.uniform(size=n) < 0.5, 10 ** rng.uniform(-300, -1, n), rng.uniform(0.1, 0.99, n))


# name: (a sampler of its arguments, the index of the probability, SciPy's forward function at the
#        value (the spec's implicit equation))
SEARCHES = {
    "nctdtrinc": (lambda r, n: (_log(r, n, 0.1, 1e3), _tail_p(r, n), r.uniform(-50, 50, n)), 1,
                  lambda v, a: sc.nctdtr(a[0], v, a[2])),
    "nctdtrit": (lambda r, n: (_log(r, n, 0.1, 1e4), r.uniform(-50, 50, n), _tail_p(r, n)), 2,
                 lambda v, a: sc.nctdtr(a[0], a[1], v)),
    "nctdtridf": (lambda r, n: (_tail_p(r, n), r.uniform(-5, 5, n), r.uniform(-20, 20, n)), 0,
                  lambda v, a: sc.nctdtr(v, a[1], a[2])),
    "chndtrix": (lambda r, n: (_tail_p(r, n), _log(r, n, 0.01, 1e3), _log(r, n, 1e-3, 1e3)), 0,
                 lambda v, a: sc.chndtr(v, a[1], a[2])),
    "chndtrinc": (lambda r, n: (_log(r, n, 0.01, 1e3), _log(r, n, 0.1, 1e3), _tail_p(r, n)), 2,
                  lambda v, a: sc.chndtr(a[0], a[1], v)),
    "ncfdtri": (lambda r, n: (_log(r, n, 0.5, 100), _log(r, n, 0.5, 100), _log(r, n, 0.01, 50), _tail_p(r, n)), 3,
                lambda v, a: sc.ncfdtr(a[0], a[1], a[2], v)),
    "ncfdtrinc": (lambda r, n: (_log(r, n, 0.5, 100), _log(r, n, 0.5, 100), _tail_p(r, n), _log(r, n, 0.01, 50)), 2,
                  lambda v, a: sc.ncfdtr(a[0], a[1], v, a[3])),
    "stdtrit": (lambda r, n: (_log(r, n, 0.05, 1e4), _tail_p(r, n)), 1, lambda v, a: sc.stdtr(a[0], v)),
    "stdtridf": (lambda r, n: (_tail_p(r, n), r.uniform(-50, 50, n)), 0, lambda v, a: sc.stdtr(v, a[1])),
    "fdtri": (lambda r, n: (_log(r, n, 0.05, 1e3), _log(r, n, 0.05, 1e3), _tail_p(r, n)), 2,
              lambda v, a: sc.fdtr(a[0], a[1], v)),
    "fdtridfd": (lambda r, n: (_log(r, n, 0.05, 1e3), _tail_p(r, n), _log(r, n, 1e-3, 1e3)), 1,
                 lambda v, a: sc.fdtr(a[0], v, a[2])),
    "bdtrik": (lambda r, n: (_tail_p(r, n), np.floor(_log(r, n, 1, 1e3)), r.uniform(0.001, 0.999, n)), 0,
               lambda v, a: sc.betainc(a[1] - v, v + 1, 1 - a[2])),
    "nbdtrik": (lambda r, n: (_tail_p(r, n), _log(r, n, 0.5, 1e3), r.uniform(0.001, 0.999, n)), 0,
                lambda v, a: sc.betainc(a[1], v + 1, a[2])),
}


def _derivative_where_no_root(name, n, seed):
    sampler, index, forward = SEARCHES[name]
    args = sampler(np.random.default_rng(seed), n)
    with np.errstate(all="ignore"):
        value = getattr(sc, name)(*args)
        y = args[index]
        failed = np.isfinite(value) & ~(np.abs(forward(value, args) - y) <= 1e-3 * np.minimum(y, 1 - y))
    derivative = np.asarray(jax.vmap(jax.grad(getattr(special, name), argnums=index))(*[jnp.asarray(a) for a in args]))
    assert failed.any(), "the box should hold failed searches"
    # NaN, or 0 where the spec says SciPy's value sits at a constant bound: never a finite derivative
    # of an equation that does not hold
    live = failed & np.isfinite(derivative) & (derivative != 0)
    assert not live.any(), np.asarray(args)[:, live][:, :3]


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if i % 3 == 0 else pytest.mark.slow)
                                  for i, n in enumerate(sorted(SEARCHES))])
def test_derivative_is_nan_where_scipys_search_failed(name):
    _derivative_where_no_root(name, 60, 3)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_derivative_is_nan_where_scipys_search_failed_sweep(name):
    _derivative_where_no_root(name, 2000, 4)
