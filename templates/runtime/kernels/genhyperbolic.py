"""Derivatives of the generalized hyperbolic cdf in p, a, b and x, of every order: the rules of
jaxsci.stats.genhyperbolic's host cdf in p, where no closed form exists.

SciPy's genhyperbolic (delta = 1, mu = 0) is the normal variance-mean mixture X = b V + sqrt(V) Z, Z standard
normal and V generalized inverse Gaussian with lambda = p, chi = 1, psi = a^2 - b^2 (Barndorff-Nielsen 1977;
the stats spec's mpmath reference uses the same mixture). In u = log V,

    F(x) = N / D,  N = int Phi(z(u)) exp(E(u)) du,  D = int exp(E(u)) du,
    E(u) = p u - e^-u / 2 - (a^2 - b^2) e^u / 2,  z(u) = x e^(-u/2) - b e^(u/2),

D being 2 K_p(sqrt(psi)) psi^(-p/2) (DLMF 10.32.10). Both integrals are evaluated at (p + dp, a + da, b + db,
x + dx) in truncated Taylor arithmetic: E is a polynomial in p, a and b, z is linear in b and x, and Phi's
Taylor coefficients are phi(z) (-1)^(m-1) He_(m-1)(z) / m! (DLMF 7.10 with 18.7.21's Hermite polynomials),
kept relative to Phi(z) so that nothing underflows where Phi(z) does. F is their quotient; where F > 1/2,
Phi(-z) gives the upper integral and F = 1 - N_upper / D, so that the upper tail keeps relative accuracy.

Each integral runs over where its log-integrand is within e^-80 of its largest value on a grid of u (step
1/8 over 120 around the mixing density's mode), with composite 16-point Gauss-Legendre rules on 32 panels.
Measured against mpmath (the stats spec's reference, differentiated; tests/test_kernels_genhyperbolic.py):
relative errors below 1e-11 at every order tried. Invalid parameters give NaN (SciPy's _argcheck: a > 0,
|b| < a, or |b| <= a where p < 0); x = -inf or inf gives the constant cdf's derivatives, 0.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import legendre as _legendre
from scipy.special import log_ndtr

from .taylor import batched_exp, batched_mul, batched_reciprocal, hermite_e

__all__ = ["genhyperbolic_cdf_d"]

_NODES, _WEIGHTS = _legendre.leggauss(16)
_PANELS = 32
_DROP = 80.0  # the log-integrand's range below its largest value that is integrated (e^-80 ~ 2e-35)
_GRID_STEP = 1 / 8
_GRID_HALF_WIDTH = 60.0  # the grid spans the mode +- this in u = log V


def _mode(p, psi):
    """The mixing density's mode in u = log V: p + e^-u / 2 - psi e^u / 2 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(psi > 0, (p + np.sqrt(p * p + psi)) / np.where(psi > 0, psi, 1.0), -0.5 / np.minimum(p, -1e-300))
        # p + sqrt(p^2 + psi) cancels for p << 0: 1 / (sqrt(p^2 + psi) - p) is the same root
        root = np.where((psi > 0) & (p < 0), 1 / (np.sqrt(p * p + psi) - p), root)
    return np.log(root)


def _exponent(u, p, psi):
    return p * u - np.exp(-u) / 2 - psi * np.exp(u) / 2


def _z(u, x, b):
    return x * np.exp(-u / 2) - b * np.exp(u / 2)


def _log_integrand(u, x, p, b, psi, sign):
    """log(Phi(sign z)) + E, or E alone where sign is 0 (the normaliser)."""
    value = _exponent(u, p, psi)
    if sign:
        value = value + log_ndtr(sign * _z(u, x, b))
    return np.where(np.isnan(value), -np.inf, value)


def _range(x, p, b, psi, sign):
    """(lower end, upper end, the largest value) of where the log-integrand is within _DROP of its largest value."""
    center = _mode(p, psi)
    offsets = np.arange(-_GRID_HALF_WIDTH, _GRID_HALF_WIDTH + _GRID_STEP / 2, _GRID_STEP)
    u = center[:, None] + offsets[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        values = _log_integrand(u, x[:, None], p[:, None], b[:, None], psi[:, None], sign)
    top = values.max(axis=1)
    inside = values >= (top - _DROP)[:, None]
    first = np.argmax(inside, axis=1)
    last = inside.shape[1] - 1 - np.argmax(inside[:, ::-1], axis=1)
    rows = np.arange(len(x))
    return u[rows, np.maximum(first - 1, 0)], u[rows, np.minimum(last + 1, u.shape[1] - 1)], top


def _integral(x, p, a, b, sign, orders):
    """Taylor coefficients in (dp, da, db, dx), shape (n, *orders + 1), of int Phi(sign z) exp(E - shift) du
    (sign 0: of int exp(E - shift) du), and the shift."""
    psi = (a + b) * (a - b)
    low, high, shift = _range(x, p, b, psi, sign)
    edges = low[:, None] + (high - low)[:, None] * np.linspace(0.0, 1.0, _PANELS + 1)[None, :]
    half = (edges[:, 1:] - edges[:, :-1]) / 2
    u = (((edges[:, 1:] + edges[:, :-1]) / 2)[..., None] + half[..., None] * _NODES).reshape(len(x), -1)
    weights = (half[..., None] * _WEIGHTS).reshape(len(x), -1)
    n, nodes = u.shape
    flat = lambda v: np.broadcast_to(v[:, None], (n, nodes)).ravel()  # noqa: E731
    u, weights = u.ravel(), weights.ravel()
    xs, ps, as_, bs = flat(x), flat(p), flat(a), flat(b)
    grow = np.exp(u)
    exponent = np.zeros((n * nodes, *(k + 1 for k in orders)))
    i, j, l, k = orders
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        exponent[:, 0, 0, 0, 0] = _exponent(u, ps, (as_ + bs) * (as_ - bs)) - flat(shift)
        if i >= 1:
            exponent[:, 1, 0, 0, 0] = u
        if j >= 1:
            exponent[:, 0, 1, 0, 0] = -as_ * grow
        if j >= 2:
            exponent[:, 0, 2, 0, 0] = -grow / 2
        if l >= 1:
            exponent[:, 0, 0, 1, 0] = bs * grow
        if l >= 2:
            exponent[:, 0, 0, 2, 0] = grow / 2
        if sign:
            z = sign * _z(u, xs, bs)
            log_phi = log_ndtr(z)
            exponent[:, 0, 0, 0, 0] += log_phi
            series = _phi_series(z, log_phi, sign, np.exp(u / 2), orders)
            terms = batched_mul(batched_exp(exponent), series)
        else:
            terms = batched_exp(exponent)
    terms = np.where(np.isfinite(terms), terms, 0.0)  # nodes far out, where the integrand is 0 to e^-80
    weighted = terms * weights.reshape(-1, *([1] * len(orders)))
    return weighted.reshape(n, nodes, *weighted.shape[1:]).sum(axis=1), shift


def _phi_series(z, log_phi, sign, half_grow, orders):
    """Phi(z0 + h) / Phi(z0) as a Taylor series in (db, dx), where h = sign (-e^(u/2) db + e^(-u/2) dx)."""
    total = sum(orders[2:])
    shape = (len(z), *(k + 1 for k in orders))
    step = np.zeros(shape)  # h: linear in db and dx
    if orders[2] >= 1:
        step[:, 0, 0, 1, 0] = -sign * half_grow
    if orders[3] >= 1:
        step[:, 0, 0, 0, 1] = sign / half_grow
    series = np.zeros(shape)
    series[:, 0, 0, 0, 0] = 1.0
    mills = np.exp(-z * z / 2 - 0.5 * math.log(2 * math.pi) - log_phi)  # phi(z) / Phi(z)
    hermite = hermite_e(z, max(total, 1))
    power = series.copy()
    for m in range(1, total + 1):
        power = batched_mul(power, step)
        coefficient = mills * (-1) ** (m - 1) * hermite[m - 1] / math.factorial(m)
        series = series + coefficient.reshape(-1, 1, 1, 1, 1) * power
    return series


def _cdf_series(x, p, a, b, orders):
    whole, whole_shift = _integral(x, p, a, b, 0, orders)
    lower, lower_shift = _integral(x, p, a, b, 1, orders)
    upper_tail = lower[:, 0, 0, 0, 0] * np.exp(lower_shift - whole_shift) > 0.5 * whole[:, 0, 0, 0, 0]
    cdf = batched_mul(lower, batched_reciprocal(whole)) * np.exp(lower_shift - whole_shift).reshape(-1, 1, 1, 1, 1)
    if upper_tail.any():
        picked = np.flatnonzero(upper_tail)
        upper, upper_shift = _integral(x[picked], p[picked], a[picked], b[picked], -1, orders)
        ratio = batched_mul(upper, batched_reciprocal(whole[picked])) * np.exp(upper_shift - whole_shift[picked]).reshape(-1, 1, 1, 1, 1)
        ratio = -ratio  # d(1 - U/D) = -d(U/D)
        ratio[:, 0, 0, 0, 0] += 1
        cdf[picked] = ratio
    return cdf


def genhyperbolic_cdf_d(x, p, a, b, i=1, j=0, l=0, k=0):  # noqa: E741 - l: the order in b, after i, j
    """d^(i + j + l + k) F / dp^i da^j db^l dx^k of SciPy's genhyperbolic cdf (standard form)."""
    x, p, a, b = (np.asarray(v, dtype=np.float64) for v in np.broadcast_arrays(x, p, a, b))
    shape = x.shape
    x, p, a, b = x.ravel(), p.ravel(), a.ravel(), b.ravel()
    out = np.full(x.shape, np.nan)
    valid = (np.isfinite(p) & np.isfinite(a) & np.isfinite(b) & (a > 0)
             & (((np.abs(b) < a) & (p >= 0)) | ((np.abs(b) <= a) & (p < 0))) & ~np.isnan(x))
    infinite = valid & np.isinf(x)
    out[infinite] = np.where(i + j + l + k == 0, (x[infinite] > 0).astype(float), 0.0)
    inside = valid & ~infinite
    if inside.any():
        orders = (i, j, l, k)
        value = _cdf_series(x[inside], p[inside], a[inside], b[inside], orders)[(slice(None), *orders)]
        out[inside] = value * math.prod(math.factorial(m) for m in orders)
    return out.reshape(shape)
