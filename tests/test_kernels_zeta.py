"""Host kernels: derivatives in x of the Hurwitz and Riemann zeta functions vs mpmath."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import zeta as Z

mpmath.mp.dps = 40


def _rel(got, ref, floor=1e-300):
    ref = complex(ref) if isinstance(ref, mpmath.mpc) else float(ref)
    return abs(got - ref) / max(abs(ref), floor)


def _hurwitz_points(n, seed):
    rng = np.random.default_rng(seed)
    pts = list(zip(rng.uniform(1.1, 20, n), rng.uniform(0.2, 10, n)))
    pts += [(2.0, 1.0), (3.5, 0.25), (1.0001, 0.3), (1.1, 0.2), (20.0, 10.0), (60.0, 0.5),
            (1.5, 1e3), (7.0, 1e5)]
    return pts


@pytest.mark.parametrize("order,tol", [(1, 1e-10), (2, 1e-8)])
def test_hurwitz(order, tol):
    f = Z.zeta_dx if order == 1 else Z.zeta_dx2
    for x, q in _hurwitz_points(30, 1):
        ref = mpmath.zeta(x, q, order)
        assert _rel(float(f(x, q)), ref) < tol, (x, q)


@pytest.mark.parametrize("order,tol", [(1, 1e-10), (2, 1e-8)])
def test_riemann(order, tol):
    f = Z.riemann_zeta_dx if order == 1 else Z.riemann_zeta_dx2
    g = Z.zetac_dx if order == 1 else Z.zetac_dx2
    rng = np.random.default_rng(2)
    xs = list(rng.uniform(1.1, 40, 15)) + list(rng.uniform(-60, 1, 15))
    xs += [-1.0, -1.5, -2.0, -4.0, -2.0001, 0.0, 0.5, 0.999, 1.001, -0.5, -100.0, -150.0, 2.0]
    xarr = np.array(xs)
    got = f(xarr)
    np.testing.assert_array_equal(got, g(xarr))
    for x, v in zip(xs, got):
        ref = mpmath.zeta(x, 1, order)
        assert _rel(v, ref) < tol, x


def test_hurwitz_q1_matches_riemann():
    x = np.linspace(1.1, 30, 50)
    np.testing.assert_allclose(Z.zeta_dx(x, 1.0), Z.riemann_zeta_dx(x), rtol=1e-13)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = Z.zeta_dx(np.array([0.5, np.nan, 2.0, 2.0, 1.0]), np.array([1.0, 1.0, -1.0, np.nan, 1.0]))
    assert np.isnan(out[:4]).all() and out[4] == -np.inf
    assert np.isnan(Z.zeta_dx2(1.0, 1.0))
    assert np.isnan(Z.riemann_zeta_dx(np.nan)) and np.isnan(Z.riemann_zeta_dx2(1.0))
    r = Z.zeta_dx(np.float32(2.0), np.float32(1.0))
    assert r.shape == () and r.dtype == np.float64
    assert Z.zeta_dx(np.ones((2, 1)) * 2, np.ones(3)).shape == (2, 3)
    assert Z.riemann_zeta_dx2(np.zeros((0, 3))).shape == (0, 3)
    big = np.linspace(-50, 40, 20000)
    big = big[big != 1]
    assert np.isfinite(Z.riemann_zeta_dx(big)).all()


@pytest.mark.slow
def test_hurwitz_wide():
    for x, q in _hurwitz_points(300, 3):
        for order, tol in ((1, 1e-10), (2, 1e-8)):
            f = Z.zeta_dx if order == 1 else Z.zeta_dx2
            assert _rel(float(f(x, q)), mpmath.zeta(x, q, order)) < tol
