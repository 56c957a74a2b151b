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

At a knot x = j / (2 n) the function is only piecewise smooth and the derivative returned is the one
from the left on the Durbin and lower Ruben-Gambino pieces (h in [0, 1), the max(0, 2 h - 1) term taken
at h = 1/2), from the right on the upper Ruben-Gambino piece and the Birnbaum-Tingey sum (whose knots
d = 1 - j / n are taken from the right, kolmogorov.py).

Accuracy (float64 against the Durbin matrix in mpmath at 30 digits, tests/test_kernels_kstwo.py and
the kernel spec's references): relative error below 1e-12 for r = 0, 1, 2 away from zeros of the
derivative (absolute error there about 1e-15 of the density's scale).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special as _sp

from .kolmogorov import _falling, _smirnov

__all__ = ["kstwo_pdf_dx"]

N_MAX = 5000
SMIRNOV_FROM = 8.0  # n x^2 at and above which 1 - P = 2 smirnov(n, x) to below 1e-18 relatively


def _lower_ruben_gambino(n, x, m):
    """P^(m) = n!/n^n (2n)^m (n)_m (2 n x - 1)^(n - m), n x in [1/2, 1]; in logs (n!/n^n underflows)."""
    if m > n:
        return 0.0
    base = 2.0 * n * x - 1.0
    log_value = (math.lgamma(n + 1.0) - n * math.log(n) + m * math.log(2.0 * n) + math.log(_falling(n, m))
                 + float(_sp.xlogy(n - m, base)))
    return math.exp(log_value)


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


def _durbin(n, x, order):
    """P^(order)(x) by Durbin's matrix in Taylor arithmetic (module docstring)."""
    k = math.ceil(n * x)
    h = k - n * x
    m = 2 * k - 1
    H = _durbin_matrix(h, m, order)
    log_scale = 0.0
    result = None
    result_log = 0.0
    power = n
    while True:  # binary powering, each product rescaled by its largest value
        if power & 1:
            if result is None:
                result, result_log = H.copy(), log_scale
            else:
                result = _taylor_matmul(result, H)
                top = np.max(np.abs(result[0]))
                result /= top
                result_log += log_scale + math.log(top)
        power >>= 1
        if not power:
            break
        H = _taylor_matmul(H, H)
        top = np.max(np.abs(H[0]))
        H /= top
        log_scale = 2.0 * log_scale + math.log(top)
    coefficient = result[order, k - 1, k - 1]
    if coefficient == 0.0:
        return 0.0
    # d^order/dx^order = order! (-n)^order times the coefficient of e^order (h = k - n x)
    log_value = (result_log + math.lgamma(n + 1.0) - n * math.log(n) + math.log(abs(coefficient))
                 + math.lgamma(order + 1.0) + order * math.log(n))
    return math.copysign(math.exp(log_value), coefficient * (-1.0) ** order)


def _cdf_derivative(n, x, m):
    """d^m/dx^m P(D_n <= x), m >= 1, at one point (n a positive integer <= N_MAX, x finite)."""
    t = n * x
    if t < 0.5 or x > 1.0:
        return 0.0
    if t <= 1.0:
        return _lower_ruben_gambino(n, x, m)
    if t > n - 1:
        return _upper_ruben_gambino(n, x, m)
    if x >= 0.5 or t * x >= SMIRNOV_FROM:
        return -2.0 * float(_smirnov(n, x, m))
    return _durbin(n, x, m)


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
