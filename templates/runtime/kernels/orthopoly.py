"""Exact parameter derivatives of orthogonal polynomials: d^p/d alpha^p d^q/d beta^q P_n^(alpha, beta)(x)
(Jacobi) and d^p/d alpha^p L_n^(alpha)(x) (generalized Laguerre).

Method: the three-term recurrences in the degree (DLMF 18.9.1 and 18.9.13),

    2k (k + a + b) (2k + a + b - 2) P_k
        = (2k + a + b - 1) ((2k + a + b) (2k + a + b - 2) x + a^2 - b^2) P_(k-1)
          - 2 (k + a - 1) (k + b - 1) (2k + a + b) P_(k-2),
    k L_k = (2k + a - 1 - x) L_(k-1) - (k + a - 1) L_(k-2),

from P_0 = L_0 = 1 and P_1, L_1 (DLMF 18.5.7, 18.5.12), evaluated in truncated Taylor arithmetic in
the parameters: every quantity is the array of its Taylor coefficients of orders <= p in a (and <= q
in b), so the coefficient (p, q) of P_n, times p! q!, is the derivative, exact up to the rounding of
the recurrence itself, the forward recurrence SciPy's own eval_jacobi and eval_genlaguerre use for an
integer degree. No differences are taken: every order exists, and a derivative that vanishes
(d^2 P_1 / da^2) comes out zero or at rounding level, where Ridders' differences of SciPy
(kernels/numeric.py) can only return NaN next to a root of the polynomial, where the roots'
derivatives need them. The Jacobi recurrence's leading factor is never zero for k >= 2 when
a, b > -1 (SciPy's domain), and elsewhere only on a measure-zero set, where the result is inf or
NaN, never a finite wrong number.

A degree that is not an integer is NaN (the float-degree functions are not these polynomials), and
one above _NMAX too (a cap on the loop); a negative degree is the empty sum, 0, as SciPy's
eval_jacobi(-1, ...) is. A negative order p or q gives 0: the Leibniz rule of the Jacobi kernel's
x-rule multiplies that term by p or q, so it only ever stands for an absent term.
"""
from __future__ import annotations

import math

import numpy as np

from . import numeric
from .taylor import div as _div, mul as _mul

__all__ = ["eval_genlaguerre_dalpha", "eval_genlaguerre_dalpha2", "eval_genlaguerre_dparam", "eval_jacobi_dalpha",
           "eval_jacobi_dalpha2", "eval_jacobi_dalphadbeta", "eval_jacobi_dbeta", "eval_jacobi_dbeta2", "eval_jacobi_dparam"]

_NMAX = 100000  # the recurrence's length: a cap on the loop, far beyond any quadrature order


def _degrees(n):
    """The degrees as int64 (-1 where invalid: the empty sum) and where they are valid."""
    degree = np.asarray(n, dtype=np.float64)
    valid = (degree == np.floor(degree)) & (degree <= _NMAX)
    return np.where(valid, degree, -1).astype(np.int64), valid


def _variables(values, orders, shape):
    """Each parameter as a series (value + t_j in its own variable j), and the constant series maker."""
    one = np.zeros(tuple(order + 1 for order in orders) + shape)
    one[(0,) * len(orders)] = 1.0
    variables = []
    for j, (value, order) in enumerate(zip(values, orders)):
        series = one * value
        if order:
            series[tuple(1 if i == j else 0 for i in range(len(orders)))] = 1.0
        variables.append(series)
    return variables, (lambda value: one * value)


def _recurrence(degree, first, step, orders):
    """The series of the degree-n polynomial per element: P_0 = 1, P_1 = ``first``, then ``step(k, P_(k-1),
    P_(k-2))`` up to the largest degree; each element keeps its own degree's (0 for a negative one)."""
    previous = np.zeros(first.shape, dtype=first.dtype)
    previous[(0,) * len(orders)] = 1.0
    result = np.where(degree == 0, previous, np.zeros_like(previous))
    current = first
    result = np.where(degree == 1, current, result)
    for k in range(2, int(degree.max(initial=0)) + 1):
        with np.errstate(all="ignore"):  # a zero leading factor (outside SciPy's domain) gives inf/NaN
            previous, current = current, step(k, current, previous)
        result = np.where(degree == k, current, result)
    return result


def eval_jacobi_dparam(n, alpha, beta, x, p=1, q=0):
    """d^p/d alpha^p d^q/d beta^q P_n^(alpha, beta)(x), by the recurrence in Taylor arithmetic."""
    n, alpha, beta, x = np.broadcast_arrays(*(np.asarray(v) for v in (n, alpha, beta, x)))
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if p < 0 or q < 0:
        return np.zeros(x.shape, dtype=x.dtype)
    degree, valid = _degrees(n)
    (a, b), c = _variables((alpha.astype(np.float64), beta.astype(np.float64)), (p, q), x.shape)

    def step(k, current, previous):
        s = a + b + c(2 * k)  # 2k + a + b
        lead = 2 * k * _mul(a + b + c(k), s - c(2))
        middle = _mul(s - c(1), _mul(_mul(s, s - c(2)), c(x)) + _mul(a, a) - _mul(b, b))
        last = 2 * _mul(_mul(a + c(k - 1), b + c(k - 1)), s)
        return _div(_mul(middle, current) - _mul(last, previous), lead)

    first = (a + c(1) + _mul(a + b + c(2), c((x - 1) / 2))).astype(x.dtype)
    result = _recurrence(degree, first, step, (p, q))
    return np.where(valid, math.factorial(p) * math.factorial(q) * result[p, q], np.nan)


def eval_genlaguerre_dparam(n, alpha, x, p=1):
    """d^p/d alpha^p L_n^(alpha)(x), by the recurrence in Taylor arithmetic."""
    n, alpha, x = np.broadcast_arrays(*(np.asarray(v) for v in (n, alpha, x)))
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    if p < 0:
        return np.zeros(x.shape, dtype=x.dtype)
    degree, valid = _degrees(n)
    # a second variable of order 0: the bivariate arithmetic of the Jacobi kernel, with q = 0
    (a, _), c = _variables((alpha.astype(np.float64), 0.0), (p, 0), x.shape)

    def step(k, current, previous):  # the divisor k is a number: no series division
        return (_mul(a + c(2 * k - 1 - x), current) - _mul(a + c(k - 1), previous)) / k

    result = _recurrence(degree, (c(1 - x) + a).astype(x.dtype), step, (p, 0))
    return np.where(valid, math.factorial(p) * result[p, 0], np.nan)


def _exact_at_integer_degrees(exact, differences, name: str):
    """The parameter derivative of SciPy's eval_jacobi or eval_genlaguerre for any degree: ``exact`` (the
    recurrence above) where the degree is an integer, SciPy's polynomial; ``differences`` (Ridders'
    extrapolated differences of SciPy, kernels/numeric.py) where it is not, SciPy's hypergeometric
    function of a float degree. The differences' second derivatives reach about 1e-6 only, at larger
    degrees (assoc_laguerre's d^2/dk^2 at n = 12), where the recurrence is exact to rounding."""

    def kernel(*args):  # n first, then the parameters and x, as the kernel spec lists them
        arrays = np.broadcast_arrays(*(np.asarray(v) for v in args))
        _, integer = _degrees(arrays[0])
        result = np.array(exact(*arrays))
        if not integer.all():
            other = ~integer
            result = result.astype(np.result_type(result, *(a for a in arrays[1:] if np.iscomplexobj(a))))
            result[other] = differences(*(a[other] for a in arrays))
        return result

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"{name}: exact at integer degrees (Taylor recurrence), Ridders' differences of SciPy elsewhere."
    return kernel


eval_jacobi_dalpha = _exact_at_integer_degrees(lambda n, a, b, x: eval_jacobi_dparam(n, a, b, x, 1, 0),
                                               numeric.eval_jacobi_dalpha, "eval_jacobi_dalpha")
eval_jacobi_dbeta = _exact_at_integer_degrees(lambda n, a, b, x: eval_jacobi_dparam(n, a, b, x, 0, 1),
                                              numeric.eval_jacobi_dbeta, "eval_jacobi_dbeta")
eval_jacobi_dalpha2 = _exact_at_integer_degrees(lambda n, a, b, x: eval_jacobi_dparam(n, a, b, x, 2, 0),
                                                numeric.eval_jacobi_dalpha2, "eval_jacobi_dalpha2")
eval_jacobi_dbeta2 = _exact_at_integer_degrees(lambda n, a, b, x: eval_jacobi_dparam(n, a, b, x, 0, 2),
                                               numeric.eval_jacobi_dbeta2, "eval_jacobi_dbeta2")
eval_jacobi_dalphadbeta = _exact_at_integer_degrees(lambda n, a, b, x: eval_jacobi_dparam(n, a, b, x, 1, 1),
                                                    numeric.eval_jacobi_dalphadbeta, "eval_jacobi_dalphadbeta")
eval_genlaguerre_dalpha = _exact_at_integer_degrees(lambda n, a, x: eval_genlaguerre_dparam(n, a, x, 1),
                                                    numeric.eval_genlaguerre_dalpha, "eval_genlaguerre_dalpha")
eval_genlaguerre_dalpha2 = _exact_at_integer_degrees(lambda n, a, x: eval_genlaguerre_dparam(n, a, x, 2),
                                                     numeric.eval_genlaguerre_dalpha2, "eval_genlaguerre_dalpha2")
