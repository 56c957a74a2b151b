"""Derivatives of the multivariate gamma function's logarithm, multigammaln(a, d).

log Gamma_d(a) = d (d - 1) / 4 log(pi) + sum_{j=1}^{d} log Gamma(a - (j - 1) / 2) (DLMF 35.3.1 and
35.3.4), so its m-th derivative in a is the sum of polygamma(m, a - (j - 1) / 2) (DLMF 5.15.1), here
summed term by term over the static dimension d with SciPy's polygamma.
"""
import numpy as np
from scipy import special as sc

__all__ = ["multipolygamma"]


def multipolygamma(m, a, d):
    """sum_{j=1}^{d} polygamma(m, a - (j - 1) / 2): the (m + 1)-th derivative of multigammaln(a, d) in a.

    NaN where a <= (d - 1) / 2, outside multigammaln's domain (SciPy raises there), or where m is not
    a non-negative integer."""
    m = np.asarray(m)
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(all="ignore"):
        total = np.zeros(np.broadcast_shapes(m.shape, a.shape))
        for j in range(1, int(d) + 1):
            total = total + sc.polygamma(m, a - (j - 1) / 2)
        bad = (a <= 0.5 * (d - 1)) | (m < 0) | (m != np.floor(m))
        return np.where(bad, np.nan, total)
