"""Derivatives in d of the one-sided Kolmogorov-Smirnov survival function smirnov(n, d) (host kernels).

Method: the exact finite sum of Birnbaum and Tingey (Ann. Math. Statist. 22 (1951) 592-596, eq. (3);
the sum SciPy's `smirnov` and its private `_smirnovp` evaluate, scipy/special/xsf/cephes/kolmogorov.h):

    smirnov(n, d) = d S(d),   S(d) = sum_{j=0}^{floor(n (1-d))} C(n, j) x_j^(n-j) y_j^(j-1),
    x_j = 1 - d - j/n,  y_j = d + j/n,

differentiated term by term (d/dd x_j = -1, d/dd y_j = 1; Leibniz's rule on x^p y^q):

    S^(r) = sum_j C(n, j) sum_{k=0}^{r} C(r, k) (-1)^(r-k) (p)_(r-k) (q)_k x^(p-r+k) y^(q-k),   p = n - j, q = j - 1,

with (a)_k the falling factorial a (a-1) ... (a-k+1), and smirnov^(r) = r S^(r-1) + d S^(r) (r = 1, 2, 3).
The j = 0 term, d x_0^n y_0^(-1) = (1 - d)^n, is differentiated as it stands, (-1)^r (n)_r (1 - d)^(n-r): in
S^(r) it carries y_0^(-1-r) = d^(-1-r), which the factor d cancels only after rounding (at d = 0.003 the
third derivative lost every digit to it); the sums over j >= 1 have y_j >= 1/n.  Each monomial is
exp(log C(n, j) + a log x + b log y) (xlogy, so 0^0 = 1), so nothing overflows for large n.  A term enters only where x_j > 0 (computed as
(n - j - n d) / n): at a knot d = 1 - j/n the function is C^(n-j-1) and this gives the derivative from
the right, the side on which the term is absent.

Accuracy (float64, against the same sums in mpmath at 30 digits, d in [0.003, 0.3]): relative error
below 1e-12 for n <= 1000 and below 5e-11 for n <= 3000, first and second derivatives; third derivatives below
4e-11 for n <= 1000 and 2e-10 for n <= 3000 (away from the knots d = 1 - j/n, where they are one-sided); the sum has
floor(n (1 - d)) + 1 terms (a loop over terms, vectorised over the elements), so n is capped at
N_MAX = 10000 (NaN above), and d must lie in the open interval (0, 1) (NaN elsewhere).
"""

import numpy as np
from scipy import special as _sp

__all__ = ["smirnov_dd", "smirnov_dd2", "smirnov_dd3"]

N_MAX = 10000


def _smirnov(n, d, order):
    with np.errstate(all="ignore"):
        n = np.asarray(n)
        d = np.asarray(d)
        shape = np.broadcast_shapes(n.shape, d.shape)
        nf = np.broadcast_to(np.trunc(n.astype(np.float64, copy=False)), shape).ravel()
        df = np.broadcast_to(d.astype(np.float64, copy=False), shape).ravel()
        res = np.full(nf.shape, np.nan)
        good = (nf >= 1) & (nf <= N_MAX) & (df > 0) & (df < 1)
        if np.any(good):
            res[good] = _sums(nf[good], df[good], order)
        return res.reshape(shape)


def _falling(a, k):
    out = 1.0
    for i in range(k):
        out = out * (a - i)
    return out


def _sums(n, d, order):
    """smirnov^(order) = order S^(order-1) + d S^(order), S^(r) summed term by term (module docstring)."""
    jmax = np.floor(n * (1.0 - d))
    s = [np.zeros_like(d) for _ in range(order + 1)]
    direct = np.zeros_like(d)
    lgn = _sp.gammaln(n + 1.0)
    nd = n * d
    for j in range(int(np.max(jmax)) + 1):  # at most N_MAX + 1 terms
        x = (n - j - nd) / n
        live = (j <= jmax) & (x > 0)
        if not np.any(live):
            continue
        x = np.where(live, x, 1.0)
        y = np.where(live, d + j / n, 1.0)
        lc = np.where(live, lgn - _sp.gammaln(j + 1.0) - _sp.gammaln(n - j + 1.0), -np.inf)
        p = n - j
        q = j - 1.0

        def mono(a, b, c):
            """c x^a y^b C(n, j), zero where c is zero (or the term is not live)."""
            return np.where(c == 0, 0.0, c * np.exp(lc + _sp.xlogy(a, x) + _sp.xlogy(b, y)))

        if j == 0:  # d x_0^n / y_0 = (1 - d)^n: differentiated as such, without S's 1/d^(r+1) that cancels
            direct = mono(p - order, 0.0, (-1.0) ** order * _falling(p, order))
            continue
        for r in (order - 1, order):
            s[r] += sum(mono(p - r + k, q - k, _sp.comb(r, k) * (-1.0) ** (r - k) * _falling(p, r - k) * _falling(q, k))
                        for k in range(r + 1))
    return direct + order * s[order - 1] + d * s[order]


def smirnov_dd(n, d):
    """d/dd scipy.special.smirnov(n, d) (minus the density of D_n^+), 0 < d < 1, 1 <= n <= 10000.

    The Birnbaum-Tingey sum differentiated term by term; see the module docstring.  NaN elsewhere.
    """
    return _smirnov(n, d, 1)


def smirnov_dd2(n, d):
    """d2/dd2 scipy.special.smirnov(n, d), 0 < d < 1, 1 <= n <= 10000 (NaN elsewhere); see smirnov_dd."""
    return _smirnov(n, d, 2)


def smirnov_dd3(n, d):
    """d3/dd3 scipy.special.smirnov(n, d) (minus the density's second derivative), 0 < d < 1,
    1 <= n <= 10000 (NaN elsewhere); see smirnov_dd."""
    return _smirnov(n, d, 3)
