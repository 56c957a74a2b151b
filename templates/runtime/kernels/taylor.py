"""Truncated Taylor arithmetic for the exact-derivative kernels: bivariate (orthopoly.py, discrete_sums.py), and
batch first in any number of variables (geninvgauss.py, genhyperbolic.py).

A series in two variables (s, t) truncated at orders p in s and q in t is the array (p + 1, q + 1, *shape)
of its coefficients; the coefficient (i, j) of a product or quotient needs only those (i', j') with
i' <= i and j' <= j, so the rectangle is closed under these operations. A function of one variable is
the case q = 0. The coefficient (p, q) times p! q! is the derivative d^p/ds^p d^q/dt^q.
"""
from __future__ import annotations

import numpy as np

__all__ = ["mul", "div", "exp", "log", "hermite_e", "batched_mul", "batched_reciprocal", "batched_exp"]


def mul(f, g):
    """The product of two truncated bivariate Taylor series (arrays (p + 1, q + 1, *shape))."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape), dtype=np.result_type(f, g))
    for i in range(f.shape[0]):
        for j in range(f.shape[1]):
            out[i:, j:] += f[i, j] * g[: f.shape[0] - i, : f.shape[1] - j]
    return out


def div(f, g):
    """f / g in truncated bivariate Taylor arithmetic, coefficient by coefficient."""
    out = np.zeros(np.broadcast_shapes(f.shape, g.shape), dtype=np.result_type(f, g))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            known = sum(g[k, l] * out[i - k, j - l] for k in range(i + 1) for l in range(j + 1) if (k, l) != (0, 0))
            out[i, j] = (f[i, j] - known) / g[0, 0]
    return out


def exp(f):
    """exp(f) in truncated bivariate Taylor arithmetic: exp(f_00) times the exponential series of
    x = f - f_00, which stops at x^(p + q) / (p + q)! because x^m has no term of total order below m."""
    x = np.array(f, dtype=np.float64)
    x[0, 0] = 0.0
    term = np.zeros_like(x)
    term[0, 0] = 1.0
    total = term.copy()
    for m in range(1, x.shape[0] + x.shape[1] - 1):
        term = mul(term, x) / m
        total += term
    return total * np.exp(np.asarray(f)[0, 0])


def log(f):
    """log f in truncated Taylor arithmetic, coefficients on the first axis (f[0] > 0): from f' = f (log f)',
    m l_m f_0 = m f_m - sum_(i=1..m-1) i l_i f_(m-i)."""
    out = np.empty_like(f)
    with np.errstate(divide="ignore"):
        out[0] = np.log(f[0])
    for m in range(1, f.shape[0]):
        out[m] = (m * f[m] - sum(i * out[i] * f[m - i] for i in range(1, m))) / (m * f[0])
    return out


def hermite_e(u, count):
    """He_0(u) .. He_(count-1)(u), the probabilists' Hermite polynomials (DLMF 18.9.1): the normal
    distribution's derivatives, Phi^(m+1)(u) = (-1)^m He_m(u) phi(u) (DLMF 18.7.21 and 7.10)."""
    out = [np.ones_like(u), u]
    for m in range(1, count - 1):
        out.append(u * out[m] - m * out[m - 1])
    return out[:count]


def batched_mul(a, b):
    """The truncated product of two Taylor series in any number of variables, laid out batch first: arrays
    (n, I + 1, J + 1, ...) of the coefficients of each of n series (the layout geninvgauss.py and
    genhyperbolic.py integrate over)."""
    out = np.zeros_like(a)
    for index in np.ndindex(*a.shape[1:]):
        for other in np.ndindex(*[k + 1 for k in index]):
            rest = tuple(k - o for k, o in zip(index, other))
            out[(slice(None), *index)] += a[(slice(None), *other)] * b[(slice(None), *rest)]
    return out


def batched_reciprocal(a):
    """1 / a as a truncated Taylor series, batch first (a's constant term nonzero)."""
    out = np.zeros_like(a)
    constant = a[(slice(None), *([0] * (a.ndim - 1)))]
    for index in np.ndindex(*a.shape[1:]):
        if not any(index):
            out[(slice(None), *index)] = 1 / constant
            continue
        total = np.zeros_like(constant)
        for other in np.ndindex(*[k + 1 for k in index]):
            if other == index:
                continue
            rest = tuple(k - o for k, o in zip(index, other))
            total += out[(slice(None), *other)] * a[(slice(None), *rest)]
        out[(slice(None), *index)] = -total / constant
    return out


def batched_exp(a):
    """exp of a truncated Taylor series, batch first, by the recurrence along the first variable that varies (exp' = exp a')."""
    out = np.zeros_like(a)
    zero = (slice(None), *([0] * (a.ndim - 1)))
    out[zero] = np.exp(a[zero])
    for index in sorted(np.ndindex(*a.shape[1:]), key=sum):
        if not any(index):
            continue
        axis = next(n for n, k in enumerate(index) if k)  # d/dv_axis: n e_n = sum_m m a_m e_(n-m) along that axis
        total = np.zeros_like(out[zero])
        for other in np.ndindex(*[k + 1 for k in index]):
            if other[axis] == 0:
                continue
            rest = tuple(k - o for k, o in zip(index, other))
            total += other[axis] * a[(slice(None), *other)] * out[(slice(None), *rest)]
        out[(slice(None), *index)] = total / index[axis]
    return out
