"""Host kernels: derivatives in d of smirnov(n, d) vs mpmath and SciPy's private _smirnovp."""

import mpmath
import numpy as np
import pytest
from scipy.special import _ufuncs

from jaxsci._core.kernels import kolmogorov as K


def _sums(n, d, order):
    """smirnov(n, d) differentiated `order` times: the Birnbaum-Tingey sum at 30 digits."""
    with mpmath.workdps(30):
        d = mpmath.mpf(d)
        s = [mpmath.mpf(0)] * 3
        for j in range(int(mpmath.floor(n * (1 - d))) + 1):
            x, y, c, p, q = 1 - d - mpmath.mpf(j) / n, d + mpmath.mpf(j) / n, mpmath.binomial(n, j), n - j, j - 1
            s[0] += c * x**p * y**q
            s[1] += c * (-p * x**(p - 1) * y**q + q * x**p * y**(q - 1))
            s[2] += c * (p * (p - 1) * x**(p - 2) * y**q - 2 * p * q * x**(p - 1) * y**(q - 1) + q * (q - 1) * x**p * y**(q - 2))
        return float(s[0] + d * s[1]) if order == 1 else float(2 * s[1] + d * s[2])


@pytest.mark.parametrize("order", [1, 2])
def test_against_mpmath(order):
    f = K.smirnov_dd if order == 1 else K.smirnov_dd2
    pts = [(n, d) for n in (2, 7, 30, 300, 2000) for d in (0.004, 0.03, 0.21, 0.55)]
    got = f(np.array([p[0] for p in pts]), np.array([p[1] for p in pts]))
    for (n, d), g in zip(pts, got):
        ref = _sums(n, d, order)
        assert abs(g - ref) <= 1e-10 * abs(ref) + 1e-300, (n, d, g, ref)


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
