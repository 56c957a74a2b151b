"""Derivatives in x of the density of D_n, the two-sided Kolmogorov-Smirnov statistic (scipy.stats.kstwo).

SciPy's density (scipy/stats/_ksstats.py, kolmognp) is, over most of the support, a numerical
derivative of its cdf, with no derivative of its own. The cdf P(D_n <= x) is an exact finite
computation: a polynomial in x between the knots x = j / (2 n). Its derivatives of order r + 1 (the
density's of order r) are computed exactly, up to rounding, on four pieces:

- n x <= 1 (Ruben and Gambino 1982; SciPy's kolmogn): P = n!/n^n (2 n x - 1)^n for n x >= 1/2, so
  P^(m) = n!/n^n (2 n)^m (n)_m (2 n x - 1)^(n - m); 0 below the support (n x < 1/2).
- n x > n - 1, x <= 1 (Ruben and Gambino): P = 1 - 2 (1 - x)^n, P^(m) = -2 (-1)^m (n)_m (1 - x)^(n - m);
  0 above 1. (n = 1 and n = 2 lie wholly in these two pieces.)
- x >= 1/2, or n x^2 >= 8 (SMIRNOV_FROM): 1 - P = 2 smirnov(n, x) - P(D_n^+ >= x and D_n^- >= x), the last
  term 0 for x >= 1/2 (SciPy's _ksstats.py, header) and, for x < 1/2, about 2 exp(-8 n x^2) against
  2 smirnov ~ 2 exp(-2 n x^2) (Kolmogorov's series): at n x^2 >= 8 below exp(-48) ~ 1e-21 of it, and
  its r-th derivative, about (16 n x)^r / (4 n x)^r = 4^r times larger relatively, still below 1e-18
  (measured against Durbin's matrix in mpmath: see tests/test_kernels_kstwo.py). So
  P^(m) = -2 smirnov^(m), by the exact Birnbaum-Tingey sum differentiated term by term
  (kolmogorov.py's _smirnov; n <= 10000 there).
- otherwise (1 < n x < n - 1, x < 1/2, n x^2 < 8): Durbin's matrix (Durbin 1973; Marsaglia, Tsang and
  Wang 2003, eq. (2)): with n x = k - h, k = ceil(n x), 0 <= h < 1 and H the (2k - 1)-square matrix
  whose entries are polynomials in h, P = n!/n^n (H^n)_kk. H is built in truncated Taylor arithmetic
  in h (taylor.py's layout, one variable: an array (order + 1, m, m) of coefficients), raised to the
  n-th power by repeated squaring with a rescaling after each product (the entries grow like
  n^n / n!), and d/dx = -n d/dh. Every entry of H is nonnegative and every entry of dH/dh is <= 0,
  so the value and the first derivative are sums of terms of one sign (relative accuracy near
  machine precision); the second and third carry some cancellation where they pass through 0.
  The matrix has m = 2k - 1 <= 2 sqrt(8 n) + 1 rows; m^3 (order + 1)(order + 2) / 2 log2(n) flops a
  point: n is capped at N_MAX (m <= 401), NaN above.

The piece is chosen, and h computed, from n x in exact arithmetic (fractions.Fraction), so a double
just off a knot gets the derivative of the side it lies on. At a knot x = j / (2 n) itself (a double
only where 2n has no odd factor but 1, or j = 2n) the cdf is only piecewise smooth and the derivative
returned is the one from the left on the Durbin and lower Ruben-Gambino pieces (h in [0, 1), the
max(0, 2 h - 1) term taken at h = 1/2), from the left at x = 1, and from the right on the Birnbaum-Tingey
sum, which chooses its terms by the rounded n (1 - x) (kolmogorov.py): a double within an ulp or so
below a knot d = 1 - j / n (such as 2/3 at n = 3) gets the derivative from the right there too.

Accuracy (float64 against the Durbin matrix in mpmath at 30 digits, tests/test_kernels_kstwo.py and
the kernel spec's references): relative error below 1e-12 for r = 0, 1, 2 away from zeros of the
derivative (absolute error there about 1e-15 of the density's scale).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import special as _sp

from .kolmogorov import _falling, _smirnov

__all__ = ["kstwo_pdf_dx"]

N_MAX = 5000
SMIRNOV_FROM = 8.0  # n x^2 at and above which 1 - P = 2 smirnov(n, x) to below 1e-18 relatively


def _factorial_over_power(n):
    """n!/n^n as (mantissa, exponent): the product of the i/n with its exponent of 2 kept apart (exact
    rescaling), relative error about sqrt(n) ulp. exp(lgamma(n + 1) - n log n) would carry the rounding
    of lgamma(n + 1) ~ n log n, an absolute 7e-12 in the exponent at n = 5000."""
    mantissa, exponent = 1.0, 0
    for i in range(1, n + 1):
        mantissa *= i / n
        if mantissa < 2.0**-500:
            mantissa, shift = math.frexp(mantissa)
            exponent += shift
    return mantissa, exponent


def _times_power_of_two(value, exponent):
    """value 2^exponent, to 0 or inf where it leaves the doubles."""
    return float(np.ldexp(value, exponent))


def _lower_ruben_gambino(n, base, m):
    """P^(m) = n!/n^n (2n)^m (n)_m base^(n - m), base = 2 n x - 1 in [0, 1]."""
    if m > n:
        return 0.0
    if base == 0.0 and n > m:
        return 0.0
    mantissa, exponent = _factorial_over_power(n)
    log_power = (n - m) * math.log(base) if n > m else 0.0  # base^(n - m) = 2^shift exp(rest)
    shift = math.floor(log_power / math.log(2.0))
    rest = log_power - shift * math.log(2.0)
    return _times_power_of_two(mantissa * (2.0 * n)**m * _falling(n, m) * math.exp(rest), exponent + shift)


def _upper_ruben_gambino(n, x, m):
    """P^(m) = -2 (-1)^m (n)_m (1 - x)^(n - m), x in [1 - 1/n, 1]."""
    if m > n:
        return 0.0
    return -2.0 * (-1.0) ** m * _falling(n, m) * float(np.exp(_sp.xlogy(n - m, 1.0 - x)))


def _taylor_matmul(a, b):
    """The product of two matrices of truncated Taylor series (arrays (order + 1, m, m))."""
    out = np.zeros_like(a)
    for s in range(a.shape[0]):
        for i in range(s + 1):
            out[s] += a[i] @ b[s - i]
    return out


def _durbin_matrix(h, m, order):
    """Marsaglia, Tsang and Wang's H (m = 2k - 1) in Taylor arithmetic in h: coefficient s of h -> h + e."""
    def power_series(base, p, slope=1.0):
        """(base + slope e)^p's coefficients 0..order (base >= 0; 0^0 = 1)."""
        return np.array([_sp.comb(p, s) * slope**s * (base ** (p - s) if p - s > 0 else 1.0 if p == s else 0.0)
                         for s in range(order + 1)])

    # 1/p!, 0 past p = 170 (below the smallest double): a path through such an entry weighs below
    # 2^p / p! ~ 1e-250 of the sum (H^n)_kk, whose other steps are the band's 1/0!, 1/1!, 1/2!
    inverse_factorials = np.exp(-_sp.gammaln(np.arange(m + 1) + 1.0))
    H = np.zeros((order + 1, m, m))
    i, j = np.indices((m, m))
    band = i - j + 1 >= 0
    H[0][band] = inverse_factorials[(i - j + 1)[band]]
    for row in range(m):  # first column: (1 - h^(i+1)) / (i+1)!
        coefficient = -power_series(h, row + 1)
        coefficient[0] += 1.0
        H[:, row, 0] = coefficient * inverse_factorials[row + 1]
    for column in range(m):  # last row: (1 - h^(m-j)) / (m-j)!
        coefficient = -power_series(h, m - column)
        coefficient[0] += 1.0
        H[:, m - 1, column] = coefficient * inverse_factorials[m - column]
    corner = -2.0 * power_series(h, m)  # (1 - 2 h^m + max(0, 2h - 1)^m) / m!
    corner[0] += 1.0
    if 2.0 * h - 1.0 >= 0.0:  # h = 1/2 on this side: the derivative from the left in x
        corner += power_series(2.0 * h - 1.0, m, slope=2.0)
    H[:, m - 1, 0] = corner * inverse_factorials[m]
    return H


def _durbin(n, k, h, order):
    """P^(order)(x) by Durbin's matrix in Taylor arithmetic (module docstring), n x = k - h."""
    m = 2 * k - 1
    H = _durbin_matrix(h, m, order)
    # binary powering; each product is divided by the power of 2 nearest its largest value (exactly),
    # the exponents of 2 summed apart: the entries of H^n grow like n^n / n!
    scale = 0
    result = None
    result_scale = 0
    power = n
    while True:
        if power & 1:
            if result is None:
                result, result_scale = H.copy(), scale
            else:
                result = _taylor_matmul(result, H)
                shift = math.frexp(np.max(np.abs(result[0])))[1]
                result = np.ldexp(result, -shift)
                result_scale += scale + shift
        power >>= 1
        if not power:
            break
        H = _taylor_matmul(H, H)
        shift = math.frexp(np.max(np.abs(H[0])))[1]
        H = np.ldexp(H, -shift)
        scale = 2 * scale + shift
    coefficient = result[order, k - 1, k - 1]
    # d^order/dx^order = order! (-n)^order times the coefficient of e^order (h = k - n x)
    mantissa, exponent = _factorial_over_power(n)
    return _times_power_of_two(coefficient * mantissa * math.factorial(order) * (-float(n))**order,
                               result_scale + exponent)


def _cdf_derivative(n, x, m):
    """d^m/dx^m P(D_n <= x), m >= 1, at one point (n a positive integer <= N_MAX, x finite).

    The piece is chosen by t = n x computed exactly (a Fraction): rounded, n x can land on a knot from
    the other side (10 * 0.2 is 2.0, though the double 0.2 is above 1/5), where a derivative jumps.
    """
    t = Fraction(x) * n
    if t < Fraction(1, 2) or x > 1.0:
        return 0.0
    if t <= 1:
        return _lower_ruben_gambino(n, float(2 * t - 1), m)
    if t > n - 1:
        return _upper_ruben_gambino(n, x, m)
    if x >= 0.5 or t * Fraction(x) >= SMIRNOV_FROM:
        return -2.0 * float(_smirnov(n, x, m))
    k = math.ceil(t)
    return _durbin(n, k, float(k - t), m)


def kstwo_pdf_dx(x, n, r=1):
    """d^r/dx^r of scipy.stats.kstwo's density at x (standard form) for n samples, 1 <= n <= N_MAX.

    The cdf's derivative of order r + 1, exact up to rounding (module docstring); NaN for n not a
    positive integer, n > N_MAX or x NaN; 0 outside [1/(2n), 1].
    """
    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n)
    shape = np.broadcast_shapes(x.shape, n.shape)
    xf = np.broadcast_to(x, shape).ravel()
    nf = np.broadcast_to(n.astype(np.float64, copy=False), shape).ravel()
    out = np.full(xf.shape, np.nan)
    with np.errstate(all="ignore"):
        for index, (xi, ni) in enumerate(zip(xf, nf)):
            if not (ni >= 1 and ni <= N_MAX and ni == math.floor(ni)) or math.isnan(xi):
                continue
            if math.isinf(xi):
                out[index] = 0.0
                continue
            out[index] = _cdf_derivative(int(ni), float(xi), r + 1)
    return out.reshape(shape)
