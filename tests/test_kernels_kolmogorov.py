"""Host kernels: derivatives in d of smirnov(n, d) vs mpmath and SciPy's private _smirnovp."""

import mpmath
import numpy as np
import pytest
from scipy.special import _ufuncs

from jaxsci._core.kernels import kolmogorov as K


def _derivative(n, d, order):
    """smirnov(n, d) differentiated `order` times: the Birnbaum-Tingey sum differentiated by mpmath at 30
    digits (away from the knots d = 1 - j/n, where the kernels are one-sided)."""
    with mpmath.workdps(30):
        terms = int(mpmath.floor(n * (1 - mpmath.mpf(d)))) + 1
        return float(mpmath.diff(lambda t: t * mpmath.fsum(mpmath.binomial(n, j) * (1 - t - mpmath.mpf(j) / n)**(n - j)
                                                           * (t + mpmath.mpf(j) / n)**(j - 1) for j in range(terms)),
                                 mpmath.mpf(d), order))


@pytest.mark.parametrize("order, ns", [pytest.param(order, ns, marks=() if ns[0] < 1000 else pytest.mark.slow)
                                       for order in (1, 2, 3) for ns in ((2, 7, 30, 300), (2000,))])
def test_against_mpmath(order, ns):
    """Including small d, where the j = 0 term's 1/d^(order+1) in the term-by-term sum would cancel; n = 2000
    (mpmath's sums of 2000 terms, seconds each) under -m slow."""
    f = {1: K.smirnov_dd, 2: K.smirnov_dd2, 3: K.smirnov_dd3}[order]
    pts = [(n, d) for n in ns for d in (0.0031, 0.03, 0.21, 0.55)]
    got = f(np.array([p[0] for p in pts]), np.array([p[1] for p in pts]))
    for (n, d), g in zip(pts, got):
        ref = _derivative(n, d, order)
        assert abs(g - ref) <= 1e-10 * abs(ref) + 1e-9, (n, d, g, ref)


def test_matches_scipy_smirnovp():
    n = np.arange(1, 60)[:, None]
    d = np.linspace(0.011, 0.989, 37)
    knot = np.abs(n * (1 - d) - np.round(n * (1 - d))) < 1e-9  # one-sided there: SciPy and the kernel differ
    got, ref = K.smirnov_dd(n, d), _ufuncs._smirnovp(n, d)
    np.testing.assert_allclose(got[~knot], ref[~knot], rtol=1e-11, atol=1e-300)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = K.smirnov_dd2(np.array([0, 5, 5, 5, 5, K.N_MAX + 1]), np.array([0.5, 0.0, 1.0, np.nan, -0.1, 0.5]))
    assert np.isnan(out).all()
    # n = 1: smirnov = 1 - d
    np.testing.assert_allclose(K.smirnov_dd(1, np.linspace(0.01, 0.99, 9)), -1.0, rtol=1e-13)
    assert K.smirnov_dd(np.int32(3), np.float32(0.2)).dtype == np.float64
    assert K.smirnov_dd(np.ones((2, 1), int) * 4, np.full(3, 0.3)).shape == (2, 3)
    assert K.smirnov_dd2(np.ones((0, 3), int), 0.5).shape == (0, 3)
