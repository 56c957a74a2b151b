"""Exact parameter derivatives of Jacobi polynomials, d^p/d alpha^p d^q/d beta^q P_n^(alpha, beta)(x).

Method: the three-term recurrence in the degree (DLMF 18.9.1, with P_0 = 1 and P_1 from 18.5.7),

    2k (k + a + b) (2k + a + b - 2) P_k
        = (2k + a + b - 1) ((2k + a + b) (2k + a + b - 2) x + a^2 - b^2) P_(k-1)
          - 2 (k + a - 1) (k + b - 1) (2k + a + b) P_(k-2),

evaluated in truncated bivariate Taylor arithmetic in (a, b): every quantity is the array of its
Taylor coefficients of orders <= p in a and <= q in b, so the coefficient (p, q) of P_n, times
p! q!, is the derivative, exact up to the rounding of the recurrence itself, the forward recurrence
SciPy's own eval_jacobi uses for an integer degree (P_n is its dominant or, on [-1, 1], an equally
sized solution). No differences are taken: every order exists, and a derivative that vanishes
(d^2 P_1 / da^2) comes out zero or at rounding level, where Ridders' differences of SciPy (kernels/numeric.py) can only return
NaN next to a root of P_n, where the roots' derivatives need them. The recurrence's leading factor
is never zero for k >= 2 when a, b > -1 (SciPy's domain), and elsewhere only on a measure-zero set,
where the result is inf or NaN, never a finite wrong number.

A degree that is not an integer is NaN (the float-degree Jacobi function is not this polynomial),
and one above _NMAX too (a cap on the loop); a negative degree is the empty sum, 0, as SciPy's
eval_jacobi(-1, ...) is. A negative order p or q gives 0: the Leibniz rule of the spec's x-rule
multiplies that term by p or q, so it only ever stands for an absent term.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["eval_jacobi_dparam"]

_NMAX = 100000  # the recurrence's length: a cap on the loop, far beyond any quadrature order


def _mul(f, g):
    """The product of two truncated bivariate Taylor series (arrays (p + 1, q + 1, *shape))."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape), dtype=np.result_type(f, g))
    for i in range(f.shape[0]):
        for j in range(f.shape[1]):
            out[i:, j:] += f[i, j] * g[: f.shape[0] - i, : f.shape[1] - j]
    return out


def _div(f, g):
    """f / g in truncated bivariate Taylor arithmetic, coefficient by coefficient."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape), dtype=np.result_type(f, g))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            known = sum(g[k, l] * out[i - k, j - l] for k in range(i + 1) for l in range(j + 1) if (k, l) != (0, 0))
            out[i, j] = (f[i, j] - known) / g[0, 0]
    return out


def eval_jacobi_dparam(n, alpha, beta, x, p=1, q=0):
    """d^p/d alpha^p d^q/d beta^q P_n^(alpha, beta)(x), by the recurrence in Taylor arithmetic."""
    n, alpha, beta, x = np.broadcast_arrays(*(np.asarray(v) for v in (n, alpha, beta, x)))
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if p < 0 or q < 0:
        return np.zeros(x.shape, dtype=x.dtype)
    degree = np.asarray(n, dtype=np.float64)
    valid = (degree == np.floor(degree)) & (degree <= _NMAX)
    degree = np.where(valid, degree, -1).astype(np.int64)
    # a and b as series: a + t (order 1 in the first variable), b + s (in the second)
    a = np.zeros((p + 1, q + 1) + x.shape)
    b = np.zeros((p + 1, q + 1) + x.shape)
    a[0, 0] = alpha
    b[0, 0] = beta
    if p:
        a[1, 0] = 1.0
    if q:
        b[0, 1] = 1.0
    one = np.zeros_like(a)
    one[0, 0] = 1.0

    def c(value):  # a constant (or a function of x only) as a series: its higher coefficients are 0
        return one * value

    result = np.zeros((p + 1, q + 1) + x.shape, dtype=x.dtype)
    result = np.where(degree == 0, one, result)
    previous, current = c(1).astype(x.dtype), a + c(1) + _mul(a + b + c(2), c((x - 1) / 2))
    result = np.where(degree == 1, current, result)
    top = int(degree.max(initial=0))
    for k in range(2, top + 1):
        s = a + b + c(2 * k)  # 2k + a + b
        lead = 2 * k * _mul(a + b + c(k), s - c(2))
        middle = _mul(s - c(1), _mul(_mul(s, s - c(2)), c(x)) + _mul(a, a) - _mul(b, b))
        last = 2 * _mul(_mul(a + c(k - 1), b + c(k - 1)), s)
        with np.errstate(all="ignore"):  # a zero leading factor (outside SciPy's domain) gives inf/NaN
            previous, current = current, _div(_mul(middle, current) - _mul(last, previous), lead)
        result = np.where(degree == k, current, result)
    derivative = math.factorial(p) * math.factorial(q) * result[p, q]
    return np.where(valid, derivative, np.nan)
