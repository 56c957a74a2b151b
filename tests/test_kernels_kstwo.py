"""Host kernel kstwo_pdf_dx: derivatives in x of kstwo's density vs the exact cdf in mpmath, at hard points
(the ends of the support, the knots x = j / (2n), the switch to 1 - 2 smirnov at n x^2 = 8)."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import kstwo as K


def _durbin_cdf(n, x):
    """P(D_n <= x) by Durbin's matrix (Marsaglia, Tsang and Wang 2003, eq. (2)) in mpmath; 0 below 1/(2n)."""
    t = n * x
    if t < mpmath.mpf(1) / 2:
        return mpmath.mpf(0)
    k = int(mpmath.ceil(t))
    h, m = k - t, 2 * k - 1
    f = mpmath.factorial
    H = mpmath.matrix(m, m)
    for i in range(m):
        for j in range(m):
            if i == m - 1 and j == 0:
                H[i, j] = (1 - 2 * h**m + max(0, 2 * h - 1)**m) / f(m)
            elif j == 0:
                H[i, j] = (1 - h**(i + 1)) / f(i + 1)
            elif i == m - 1:
                H[i, j] = (1 - h**(m - j)) / f(m - j)
            elif i - j + 1 >= 0:
                H[i, j] = 1 / f(i - j + 1)
    return f(n) / mpmath.mpf(n)**n * (H**n)[k - 1, k - 1]


def _minus_two_smirnov(n, x):
    """P(D_n <= x) - 1 = -2 smirnov(n, x) for x >= 1/2 (the Birnbaum-Tingey sum; without the 1, so that
    its tiny derivatives near x = 1 keep their digits)."""
    terms = int(mpmath.floor(n * (1 - x))) + 1
    return -2 * x * mpmath.fsum(mpmath.binomial(n, j) * (1 - x - mpmath.mpf(j) / n)**(n - j) * (x + mpmath.mpf(j) / n)**(j - 1)
                                for j in range(terms))


def _reference(n, x, r):
    """d^r/dx^r of the density and an absolute tolerance for it: mpmath.diff of the exact cdf, r + 1 times, at 60 digits. Within 1e-9 of
    a knot it is one-sided, on the side the double x lies on (the exact double, as the
    kernel takes it), or at a knot itself the kernel's; on the 1 - 2 smirnov piece, from the right within
    an ulp of a knot (module docstring of kstwo.py)."""
    with mpmath.workdps(60):
        exact = Fraction(x) * n
        smirnov = exact > 1 and x < 1 and (x >= 0.5 or exact * Fraction(x) >= K.SMIRNOV_FROM)
        cdf = (lambda s: _minus_two_smirnov(n, s)) if smirnov else (lambda s: _durbin_cdf(n, s))
        offset = float(2 * exact - round(2 * exact))
        direction = 0
        if smirnov and abs(offset) < 1e-9:  # 1 - 2 smirnov: from the right of a knot within rounding of x
            direction = 1
        elif offset:
            direction = (1 if offset > 0 else -1) if abs(offset) < 1e-9 else 0
        elif exact == Fraction(1, 2):  # the start of the support
            direction = 1
        else:
            direction = -1
        if not direction:
            return float(mpmath.diff(cdf, mpmath.mpf(x), r + 1)), 1e-300
    # near a knot, the derivative on one side of the knot itself (at x's distance from it, about 1e-16,
    # the derivatives differ by about 1e-16 relatively): a central difference of step 1e-42 at 1e-40
    # from the knot, at 150 digits (mpmath's own one-sided differences straddled the knot), which moves
    # a derivative that is 0 at the knot by about 1e-40
    with mpmath.workdps(150):
        point = mpmath.mpf(round(2 * exact)) / (2 * n) + direction * mpmath.mpf("1e-40")
        return float(mpmath.diff(cdf, point, r + 1, h=mpmath.mpf("1e-42"))), 1e-35


def _check(points, rtol):
    for n, x in points:
        for r in (0, 1, 2):
            got, (ref, atol) = float(K.kstwo_pdf_dx(x, n, r)), _reference(n, x, r)
            print(f"n={n} x={x!r} r={r} relative error {abs(got - ref) / abs(ref) if ref else abs(got):.1e}")
            assert abs(got - ref) <= rtol * abs(ref) + atol, (n, x, r, got, ref)


SMALL_N = [(1, 0.5), (1, 0.7), (1, 1.0), (2, 0.25), (2, 0.3), (2, 0.5), (2, 0.8), (2, 1.0),
           (3, 0.4), (3, 0.5), (3, 2 / 3), (3, 0.6), (5, 0.31),
           (10, 0.05), (10, 0.1), (10, 0.13), (10, 0.2), (10, 0.25), (10, 0.3), (10, 0.45), (10, 0.5),
           (10, 0.55), (10, 0.9), (10, 0.93), (10, 0.9999), (10, 1.0)]


def test_against_mpmath_small_n():
    """Every piece and most kinds of knot (t = 1/2, 1, 2, 5/2, n - 1, n) at n <= 10."""
    _check(SMALL_N, 1e-12)


@pytest.mark.slow
def test_against_mpmath_large_n():
    """n = 40 across the switch at n x^2 = 8 (Durbin below, 1 - 2 smirnov above); n = 100, 1000 and
    N_MAX = 5000 at the ends of the support, knots and small k (mpmath's matrix powers of size 2k - 1)."""
    points = [(40, 0.43), (40, 0.45),
              (100, 0.015), (100, 0.0305), (100, 0.105), (100, 0.5), (100, 0.6), (100, 0.9),
              (1000, 0.0015), (1000, 0.002), (1000, 0.003), (1000, 0.0105), (1000, 0.6), (1000, 0.999),
              (5000, 0.0003), (5000, 0.0011), (5000, 0.002), (5000, 0.6), (5000, 0.9999)]
    _check(points, 1e-12)


@pytest.mark.slow
def test_largest_matrices_against_smirnov():
    """Durbin's matrix at its largest, just below n x^2 = 8 (n = 1000, k = 89: 177 rows; n = N_MAX = 5000,
    k = 200: 399 rows; beyond what mpmath's matrices do in a test), against 1 - 2 smirnov's derivatives
    there (the crossing term that tells them apart is about exp(-6 n x^2) ~ 1e-20 of them). SciPy's own
    density is no reference there: for n > 140 it differentiates Pelz and Good's asymptotic series
    numerically, 1e-4 off at n = 1000, x = 0.0885."""
    for n, x in ((1000, 0.0885), (5000, 0.0399)):
        assert 7.8 < n * x * x < K.SMIRNOV_FROM
        for r in (0, 1, 2):
            np.testing.assert_allclose(K.kstwo_pdf_dx(x, n, r), -2.0 * K._smirnov(n, x, r + 1), rtol=1e-11)


def test_edges_and_shapes():
    out = K.kstwo_pdf_dx(np.array([0.5, 0.5, 0.5, 0.5, np.nan]), np.array([0, 2.5, K.N_MAX + 1, np.nan, 3]), 1)
    assert np.isnan(out).all()
    # outside the support [1/(2n), 1] every derivative of the density is 0
    np.testing.assert_array_equal(K.kstwo_pdf_dx(np.array([-np.inf, -1.0, 0.04, 1.5, np.inf]), 10, 2), 0.0)
    # n = 1: the density is 2 on [1/2, 1]; n = 2: 16 x - 4 on [1/4, 1/2] (Ruben-Gambino's cdf (4 x - 1)^2 / 2)
    np.testing.assert_array_equal(K.kstwo_pdf_dx(np.linspace(0.5, 1, 5), 1, 0), 2.0)
    np.testing.assert_allclose(K.kstwo_pdf_dx(0.3, 2, np.int64(0)), 16 * 0.3 - 4, rtol=1e-15)
    assert K.kstwo_pdf_dx(np.ones((2, 1)) * 0.3, np.array([3, 4, 5]), 1).shape == (2, 3)
    assert K.kstwo_pdf_dx(np.ones((0, 3)), 4, 1).shape == (0, 3)
    assert math.isfinite(float(K.kstwo_pdf_dx(0.0011, K.N_MAX, 0))) and K.kstwo_pdf_dx(0.0011, K.N_MAX, 0) > 0
