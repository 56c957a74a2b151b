"""Host kernels: the Gauss hypergeometric cdf's shape derivatives vs mpmath's quadrature."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import gausshyper as K

FIRST = {1: K.gausshyper_cdf_da, 2: K.gausshyper_cdf_db, 3: K.gausshyper_cdf_dc, 4: K.gausshyper_cdf_dz}
# SciPy's test parameters at both tails' sides, a small a and b with z near -1, a large z, a peaked one
CASES = [(0.3, 13.7637716041307, 3.118963664868143, 2.514598035018302, 5.1811649903971615),
         (0.8, 13.7637716041307, 3.118963664868143, 2.514598035018302, 5.1811649903971615),
         (0.02, 0.5, 2.0, -1.5, -0.9), (0.98, 0.7, 0.6, 3.0, 10.0), (0.5, 20.0, 20.0, 1.0, 1.0)]


def _cdf(x, a, b, c, z):
    g = lambda t: t**(a - 1) * (1 - t)**(b - 1) * (1 + z * t)**(-c)  # noqa: E731
    lower, upper = mpmath.quad(g, [0, x]), mpmath.quad(g, [x, 1])
    return lower / (lower + upper)


def _derivative(point, i, j=0):
    """d/d theta_i (and d theta_j) of the cdf by mpmath at 30 digits, theta = (a, b, c, z) numbered 1 to 4."""
    with mpmath.workdps(30):
        x, *theta = (mpmath.mpf(v) for v in point)

        def f(*moved):
            values = list(theta)
            for k, v in zip((i, j) if j and j != i else (i,), moved):
                values[k - 1] = v
            return _cdf(x, *values)

        if not j:
            return float(mpmath.diff(f, theta[i - 1]))
        if i == j:
            return float(mpmath.diff(f, theta[i - 1], 2))
        return float(mpmath.diff(f, (theta[i - 1], theta[j - 1]), (1, 1)))


@pytest.mark.parametrize("order", [pytest.param(1), pytest.param(2, marks=pytest.mark.slow)])
def test_against_mpmath(order):
    """Every first derivative (by default: SciPy's test parameters) and a spread of second ones (-m slow:
    mpmath's nested quadratures take minutes); relative 1e-11."""
    cases = CASES if order == 2 else CASES[:2]
    for point in cases:
        pairs = [(i, 0) for i in range(1, 5)] if order == 1 else [(1, 1), (1, 3), (2, 4), (3, 4), (4, 4)]
        for i, j in pairs:
            got = FIRST[i](*point) if not j else K.gausshyper_cdf_d2(*point, i, j)
            ref = _derivative(point, i, j)
            assert abs(got - ref) <= 1e-11 * abs(ref) + 1e-300, (point, i, j, got, ref)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = K.gausshyper_cdf_da(np.array([0.0, 1.0, 0.5, 0.5, 0.5, 0.5, np.nan]), np.array([1, 1, -1, 1, 1, 1, 1.0]),
                                  np.array([1, 1, 1, 0, 1, 1, 1.0]), np.array([1, 1, 1, 1, np.nan, 1, 1.0]),
                                  np.array([1, 1, 1, 1, 1, -1, 1.0]))
    assert np.isnan(out).all()
    assert np.isnan(K.gausshyper_cdf_d2(0.5, 1.0, 2.0, 1.0, 1.0, 0, 1))
    # c = z = 0 is the beta distribution, and I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b: at a = b = 1,
    # d/da = x log x and d/db = -(1 - x) log(1 - x)
    np.testing.assert_allclose(K.gausshyper_cdf_da(0.3, 1.0, 1.0, 0.0, 0.0), 0.3 * np.log(0.3), rtol=1e-14)
    np.testing.assert_allclose(K.gausshyper_cdf_db(0.3, 1.0, 1.0, 0.0, 0.0), -0.7 * np.log(0.7), rtol=1e-14)
    assert K.gausshyper_cdf_db(np.float32(0.2), 2, 3, 1, 1).dtype == np.float64
    assert K.gausshyper_cdf_dc(np.full((2, 1), 0.4), 2.0, 3.0, np.ones(3), 1.0).shape == (2, 3)
    got = K.gausshyper_cdf_d2(np.full(3, 0.4), 2.0, 3.0, 1.0, 1.0, np.array([1, 2, 3]), 4)
    np.testing.assert_allclose(got, [K.gausshyper_cdf_d2(0.4, 2.0, 3.0, 1.0, 1.0, i, 4) for i in (1, 2, 3)], rtol=1e-15)
