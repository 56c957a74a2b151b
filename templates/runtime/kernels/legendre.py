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
    """d^k/dz^k of SciPy's assoc_legendre_p(n, m, z, branch_cut=branch_cut, norm=norm), elementwise; 0 for
    |m| > n at an integer degree n >= 0 (SciPy's zeros). A degree that is not an integer is the Ferrers
    function of that degree (SciPy's lpmv) on 0 < z <= 1, real z and branch_cut=2 only. NaN elsewhere,
    and for an order or k that is not an integer or k < 0."""
    n, m, z, k = np.broadcast_arrays(*(np.asarray(v) for v in (n, m, z, k)))
    z = z.astype(np.complex128 if np.iscomplexobj(z) else np.float64)
    n, m, k = (np.asarray(v, dtype=np.float64) for v in (n, m, k))
    valid = (m == np.floor(m)) & (k == np.floor(k)) & (k >= 0)
    integer = valid & (n == np.floor(n)) & (n >= 0)
    order = np.abs(m)
    present = integer & (order <= n)
    # SciPy's hyp2f1 is accurate for (1 - z)/2 < 1/2 (its direct series); nearer 1 it is not
    # (hyp2f1(-2.476, 11.476, 5, 0.952) is -4.71, mpmath's -6.07)
    fractional = valid & (n != np.floor(n)) & (branch_cut == 2) & (not np.iscomplexobj(z)) & (z > 0) & (z <= 1)
    result = np.zeros(z.shape, dtype=z.dtype)
    with np.errstate(all="ignore"):
        for where, factor in ((present, _gegenbauer_derivative), (fractional, _hypergeometric_derivative)):
            if where.any():
                result[where] = _derivative(n[where], m[where], z[where], k[where].astype(np.int64), branch_cut, norm, factor)
    return np.where(integer | fractional, result, np.nan)


def _derivative(n, m, z, k, branch_cut: int, norm: bool, factor):
    """Leibniz's sum of the derivatives of h^(|m|/2) and of the polynomial or hypergeometric ``factor``."""
    order = np.abs(m)
    half = order / 2
    sign = -1.0 if branch_cut == 2 else 1.0
    h = sign * (z * z - 1)
    slope = 2 * sign * z  # h'; h'' / 2 is sign
    top = int(k.max())
    power = np.stack([_power_derivative(j, half, h, slope, sign, z, branch_cut) for j in range(top + 1)])
    sign_c, log_c = _constant(n, m, order, branch_cut, norm)
    # the constant enters each factor in logarithms: norm=True's tiny factor times the Gegenbauer
    # form's huge (2M + 2r - 1)!! overflows in floating point (degree 200, order 100) though their
    # product is moderate
    factors = [factor(r, n, order, z, log_c) for r in range(top + 1)]
    total = np.zeros(z.shape, dtype=np.result_type(z, np.float64))
    for r in range(top + 1):  # each element's own k: the terms r <= k, with h^(M/2)'s derivative k - r
        remaining = np.take_along_axis(power, np.clip(k - r, 0, top)[None], axis=0)[0]
        total = total + np.where(r <= k, sc.comb(k, r) * remaining * factors[r], 0)
    return sign_c * total


def _hypergeometric_derivative(r: int, n, order, z, log_c):
    """For a degree v that is not an integer: P_v^M(x) = (-1)^M Gamma(v+M+1) / (2^M M! Gamma(v-M+1))
    (1 - x^2)^(M/2) F(M - v, M + v + 1; M + 1; (1 - x)/2) (DLMF 14.3.1 at an integer order M), so the
    factor after c h^(M/2) is this F times Gamma(v+M+1) / (2^M M! Gamma(v-M+1)), and
    d/dx F(a, b; c; (1 - x)/2) = -(a b / (2 c)) F(a + 1, b + 1; c + 1; (1 - x)/2) (DLMF 15.5.1)."""
    a, b, c = order - n, order + n + 1, order + 1
    scale = (sc.poch(n - order + 1, 2 * order) / (2.0 ** order * sc.factorial(order))
             * (-0.5) ** r * sc.poch(a, r) * sc.poch(b, r) / sc.poch(c, r))
    return scale * np.exp(log_c) * sc.hyp2f1(a + r, b + r, c + r, (1 - z) / 2)


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


def _gegenbauer_derivative(r: int, n, order, z, log_c):
    """d^r/dz^r (2M - 1)!! C_(n-M)^(M+1/2)(z) = (2M + 2r - 1)!! C_(n-M-r)^(M+r+1/2)(z) (0 past the degree)."""
    degree = n - order - r
    scale = np.exp((r + order) * math.log(2) + sc.gammaln(order + 0.5 + r) - sc.gammaln(0.5) + log_c)
    # an integer degree: SciPy's polynomial recurrence (a float one takes its hypergeometric path, NaN at degree 290)
    value = scale * sc.eval_gegenbauer(np.maximum(degree, 0).astype(np.int64), order + 0.5 + r, z)
    return np.where(degree >= 0, value, 0)


def _constant(n, m, order, branch_cut: int, norm: bool):
    """(sign, log of the magnitude) of c, the negative-order factor and norm=True's factor (the rest is in
    the factor after h^(M/2))."""
    odd = (branch_cut == 2) & (order % 2 == 1)
    sign = np.where(odd, -1.0, 1.0)
    log = np.zeros(np.shape(n))
    # Gamma(n-M+1) / Gamma(n+M+1) in logarithms (it overflows at degree 300, order -200), with its sign at
    # a float degree
    ratio_sign = sc.gammasgn(n - order + 1) * sc.gammasgn(n + order + 1)
    sign = np.where(m < 0, sign * np.where(odd, -1.0, 1.0) * ratio_sign, sign)
    log = np.where(m < 0, log + sc.gammaln(n - order + 1) - sc.gammaln(n + order + 1), log)
    if norm:
        log = log + 0.5 * (np.log((2 * n + 1) / 2) + sc.gammaln(n - m + 1) - sc.gammaln(n + m + 1))
    return sign, log
