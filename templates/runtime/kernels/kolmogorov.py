"""Derivatives in d of the one-sided Kolmogorov-Smirnov survival function smirnov(n, d) (host kernels).

Method: the exact finite sum of Birnbaum and Tingey (Ann. Math. Statist. 22 (1951) 592-596, eq. (3);
the sum SciPy's `smirnov` and its private `_smirnovp` evaluate, scipy/special/xsf/cephes/kolmogorov.h):

    smirnov(n, d) = d S(d),   S(d) = sum_{j=0}^{floor(n (1-d))} C(n, j) x_j^(n-j) y_j^(j-1),
    x_j = 1 - d - j/n,  y_j = d + j/n,

differentiated term by term (d/dd x_j = -1, d/dd y_j = 1):

    S'  = sum C(n, j) [-p x^(p-1) y^q + q x^p y^(q-1)],                         p = n - j, q = j - 1
    S'' = sum C(n, j) [p (p-1) x^(p-2) y^q - 2 p q x^(p-1) y^(q-1) + q (q-1) x^p y^(q-2)],

and smirnov' = S + d S', smirnov'' = 2 S' + d S''.  Each monomial is exp(log C(n, j) + a log x + b log y)
(xlogy, so 0^0 = 1), so nothing overflows for large n.  A term enters only where x_j > 0 (computed as
(n - j - n d) / n): at a knot d = 1 - j/n the function is C^(n-j-1) and this gives the derivative from
the right, the side on which the term is absent.

Accuracy (float64, against the same sums in mpmath at 30 digits, d in [0.003, 0.3]): relative error
below 1e-12 for n <= 1000 and below 5e-11 for n <= 3000, first and second derivatives; the sum has
floor(n (1 - d)) + 1 terms (a loop over terms, vectorised over the elements), so n is capped at
N_MAX = 10000 (NaN above), and d must lie in the open interval (0, 1) (NaN elsewhere).
"""

import numpy as np
from scipy import special as _sp

__all__ = ["smirnov_dd", "smirnov_dd2"]

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


def _sums(n, d, order):
    jmax = np.floor(n * (1.0 - d))
    s = [np.zeros_like(d) for _ in range(3)]
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

        s[0] += mono(p, q, 1.0)
        s[1] += mono(p - 1, q, -p) + mono(p, q - 1, q)
        if order >= 2:
            s[2] += mono(p - 2, q, p * (p - 1)) + mono(p - 1, q - 1, -2 * p * q) + mono(p, q - 2, q * (q - 1))
    if order == 1:
        return s[0] + d * s[1]
    return 2.0 * s[1] + d * s[2]


def smirnov_dd(n, d):
    """d/dd scipy.special.smirnov(n, d) (minus the density of D_n^+), 0 < d < 1, 1 <= n <= 10000.

    The Birnbaum-Tingey sum differentiated term by term; see the module docstring.  NaN elsewhere.
    """
    return _smirnov(n, d, 1)


def smirnov_dd2(n, d):
    """d2/dd2 scipy.special.smirnov(n, d), 0 < d < 1, 1 <= n <= 10000 (NaN elsewhere); see smirnov_dd."""
    return _smirnov(n, d, 2)
