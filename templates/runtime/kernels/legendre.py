"""z-derivatives of every order of SciPy's associated Legendre functions, without division by 1 - z^2.

``assoc_legendre_p_dz(n, m, z, k, branch_cut, norm)`` is d^k/dz^k of SciPy's
``assoc_legendre_p(n, m, z, branch_cut=..., norm=...)``, from the Gegenbauer form of the function
(integer degree and order, M = |m| <= n):

    P_n^M(z) = c (2M - 1)!! h(z)^(M/2) C_(n-M)^(M+1/2)(z),

with h = 1 - z^2 and c = (-1)^M for the Ferrers function (branch_cut=2, DLMF 14.3.1 and 14.6.1 with
P_n^(M) = (2M-1)!! C_(n-M)^(M+1/2), DLMF 18.9.19), h = z^2 - 1 and c = 1 for branch_cut=3 (DLMF 14.6.3);
negative orders by DLMF 14.9.3 and 14.9.13, and norm=True's factor sqrt((2n+1) (n-m)! / (2 (n+m)!)).
The k-th derivative is Leibniz's sum of the derivatives of h^(M/2) (Faa di Bruno for a quadratic h)
times those of the Gegenbauer polynomial (d/dz C_k^(l) = 2 l C_(k-1)^(l+1), DLMF 18.9.19): products
only, so the result keeps its precision next to z = +-1, where the degree recurrence and the
differential equation (both divided by 1 - z^2) lose it all (a second derivative of P_4 off by 1e7
relatively at z = 1 - 1e-12). A term whose falling factorial is zero is left out, so even orders are
finite at z = +-1 itself; odd orders are infinite there, as the function's derivative is.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

__all__ = ["assoc_legendre_p_dz"]


def assoc_legendre_p_dz(n, m, z, k, branch_cut=2, norm=False):
    """d^k/dz^k of SciPy's assoc_legendre_p(n, m, z, branch_cut=branch_cut, norm=norm), elementwise; NaN
    for a degree, order or k that is not an integer, n < 0 or k < 0; 0 for |m| > n (SciPy's zeros)."""
    n, m, z, k = np.broadcast_arrays(*(np.asarray(v) for v in (n, m, z, k)))
    z = z.astype(np.complex128 if np.iscomplexobj(z) else np.float64)
    n, m, k = (np.asarray(v, dtype=np.float64) for v in (n, m, k))
    whole = (n == np.floor(n)) & (m == np.floor(m)) & (k == np.floor(k)) & (n >= 0) & (k >= 0)
    order = np.abs(m)
    present = whole & (order <= n)
    result = np.zeros(z.shape, dtype=z.dtype)
    if present.any():
        with np.errstate(all="ignore"):
            values = _derivative(n[present], m[present], z[present], k[present].astype(np.int64), branch_cut, norm)
        result[present] = values
    return np.where(whole, result, np.nan)


def _derivative(n, m, z, k, branch_cut: int, norm: bool):
    order = np.abs(m)
    half = order / 2
    sign = -1.0 if branch_cut == 2 else 1.0
    h = sign * (z * z - 1)
    slope = 2 * sign * z  # h'; h'' / 2 is sign
    top = int(k.max())
    power = [_power_derivative(j, half, h, slope, sign, z, branch_cut) for j in range(top + 1)]
    gegenbauer = [_gegenbauer_derivative(r, n, order, z) for r in range(top + 1)]
    total = np.zeros(z.shape, dtype=np.result_type(z, np.float64))
    for r in range(top + 1):
        used = r <= k
        term = np.zeros(total.shape, dtype=total.dtype)
        for j in range(top + 1 - r):
            picked = used & (k - r == j)
            if picked.any():
                term = np.where(picked, sc.comb(k, r) * power[j] * gegenbauer[r], term)
        total = total + np.where(used, term, 0)
    return _constant(n, m, order, branch_cut, norm) * total


def _power_derivative(j: int, half, h, slope, sign: float, z, branch_cut: int):
    """d^j/dz^j h^half, for h quadratic: sum over p of j! / (p! (j - 2p)!) (half)_(j-p) h^(half-j+p)
    h'^(j-2p) (h''/2)^p, with (half)_(q) the falling factorial; a term with a zero factorial is 0."""
    total = np.zeros(z.shape, dtype=np.result_type(z, np.float64))
    for p in range(j // 2 + 1):
        falling = np.ones(np.shape(half))
        for i in range(j - p):
            falling = falling * (half - i)
        term = (math.factorial(j) / (math.factorial(p) * math.factorial(j - 2 * p)) * falling
                * _power(z, h, half - (j - p), branch_cut) * slope ** (j - 2 * p) * sign ** p)
        total = total + np.where(falling == 0, 0, term)
    return total


def _power(z, h, exponent, branch_cut: int):
    """h^exponent on SciPy's branch: real (NaN on the cut) for real z; for complex z
    (1 - z)^e (1 + z)^e (branch_cut=2) or (z - 1)^e (z + 1)^e (branch_cut=3)."""
    if not np.iscomplexobj(z):
        return h ** exponent
    if branch_cut == 2:
        return (1 - z) ** exponent * (1 + z) ** exponent
    return (z - 1) ** exponent * (z + 1) ** exponent


def _gegenbauer_derivative(r: int, n, order, z):
    """d^r/dz^r (2M - 1)!! C_(n-M)^(M+1/2)(z) = (2M + 2r - 1)!! C_(n-M-r)^(M+r+1/2)(z) (0 past the degree)."""
    degree = n - order - r
    scale = np.exp(r * math.log(2) + sc.gammaln(order + 0.5 + r) - sc.gammaln(0.5)) * 2.0 ** order
    value = scale * sc.eval_gegenbauer(np.maximum(degree, 0), order + 0.5 + r, z)
    return np.where(degree >= 0, value, 0)


def _constant(n, m, order, branch_cut: int, norm: bool):
    """c, the negative-order factor and norm=True's factor (the (2M-1)!! is in the Gegenbauer term)."""
    constant = np.where((branch_cut == 2) & (order % 2 == 1), -1.0, 1.0)
    ratio = np.exp(sc.gammaln(n - order + 1) - sc.gammaln(n + order + 1))
    negative = np.where((branch_cut == 2) & (order % 2 == 1), -1.0, 1.0) * ratio
    constant = np.where(m < 0, constant * negative, constant)
    if norm:
        constant = constant * np.sqrt((2 * n + 1) * np.exp(sc.gammaln(n - m + 1) - sc.gammaln(n + m + 1)) / 2)
    return constant
