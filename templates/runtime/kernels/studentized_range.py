"""Derivatives of the studentized range cdf in x (q), k and df, of every order: the rules of
jaxsci.stats.studentized_range's host methods (SciPy's density and cdf are nquad quadratures with no
derivatives of their own).

The defining double integral (Lund and Lund 1983, Algorithm AS 190):

    F(x; k, df) = int_0^inf g(s; df) G(x s; k) ds,   G(w; k) = k int phi(z) P(z, w)^(k - 1) dz,

with P(z, w) = Phi(z) - Phi(z - w) (G is the cdf of the range of k standard normals) and g the density of
S = sqrt(chi2(df) / df), log g(s) = (df/2) log(df/2) - lgamma(df/2) + log 2 + (df - 1) log s - df s^2 / 2.
Every derivative is taken under both integral signs, in truncated Taylor arithmetic (taylor.py):

- in k and w = x s: P^(k - 1 + dk) = exp((k - 1 + dk) log P(z, w + dw)), with d^m P / dw^m = He_(m-1)(z - w)
  phi(z - w) (DLMF 18.5.9 with phi's derivatives), times (k + dk); a dx^n coefficient is the dw^n one times s^n;
- in df: the log-density's Taylor series in d(df): d/d(df) log(g s) = (R(df/2) - (e^(2v) - 1 - 2v)) / 2 with
  v = log s and R(a) = log a - psi(a), and d^m/d(df)^m = R^(m-1)(df/2) / 2^m for m >= 2; R and its derivatives
  by their asymptotic series for a >= 10 (DLMF 5.11.2 differentiated; the direct difference loses the
  digits that cancel), by polygamma below.

Where the cdf (order 0 in x) exceeds 1/2 the upper tail 1 - G(w) = k int phi(z) Phi(z)^(k-1) (1 - (P/Phi(z))^(k-1)) dz
(k int phi Phi^(k-1) dz = 1 for every k) is integrated instead, as -Phi(z)^(k-1+dk) expm1((k-1+dk) log(P/Phi(z))),
so that the upper tail keeps its relative accuracy at every order in k and df (the lower form's k-derivative
there is a difference of two terms near +-1/k).

Quadrature: in v = log s, composite 16-point Gauss-Legendre rules: 10 panels between g's peak (v = 0) and
where G(x e^v) turns (x e^v near 1), 4 beyond each; 6 panels 8/rate wide below (the integrand falls at least
as e^(rate v) there, rate = df in the upper form, df + k - 1 in the lower), and 6 doubling in width above,
to where the integrand is e^-80 below its largest value. In z, on [-10, 10] (8 panels; 24 for k > 10,
where the lower tail's integrand, phi(z)^k near w/2, is 1/sqrt(k) wide) and on [w/2 - 10, w/2 + 10]
clipped to z > 10 (8 panels: the upper tail's integrand, phi(z) Phi(z - w), peaks at z = w/2).

Measured against mpmath (tests/test_kernels_studentized_range.py): at k = 3 (Owen's T form, x in [0.05, 1000],
df in [0.5, 1000], orders to 3 in x and 2 in df) relative 1e-10 or better, but 4e-9 in df at df = 1000 and
x = 0.05, and 5e-10 where the sf is 1e-100 (x = 1000, df = 50); G(w; k) in k and w (to third order, k to 100) 1e-10 or better. NaN for k > 100, for df > 1000 in
df-derivatives (they cancel to O(1/df^2) from terms of O(1/df): 6e-8 at df = 5000), at x = 0 for n >= 1
(the density may be infinite there), and for invalid or NaN input.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import legendre as _legendre
from scipy import special as _sc

from . import taylor

__all__ = ["studentized_range_cdf_d"]

_NODES, _WEIGHTS = _legendre.leggauss(16)
_V_PANELS = 10
_V_TAIL_PANELS = 6
_Z_PANELS = 8
_DROP = 80.0
_K_MAX = 100.0
# panels on [-10, 10] by the largest k: for k > 10 the lower tail's integrand, phi(z)^k near z = w/2, is 1/sqrt(k) wide
_Z_CORE_PANELS = {10.0: 8, _K_MAX: 24}
_DF_MAX_IN_DF = 1.0e3
_CHUNK = 4  # points per vectorised block (each block holds about 1e5 nodes per series coefficient)
# Bernoulli numbers B_2 .. B_20 (DLMF 24.2.1) for R(a) = log a - psi(a) ~ 1/(2a) + sum B_2n / (2n a^2n)
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330]


def _log_minus_digamma(a, order):
    """d^order/da^order of R(a) = log a - psi(a) (a > 0): the asymptotic series (DLMF 5.11.2) for a >= 10,
    differentiated term by term (its last term is below 1e-18 of R there), else log/polygamma directly."""
    a = np.asarray(a, dtype=np.float64)
    big = np.maximum(a, 10.0)

    def power_derivative(p):  # d^order/da^order a^-p
        return (-1) ** order * math.prod(p + m for m in range(order)) * big ** (-p - order)

    series = 0.5 * power_derivative(1)
    for n, b in enumerate(_BERNOULLI, start=1):
        series = series + b / (2 * n) * power_derivative(2 * n)
    if order == 0:
        direct = np.log(a) - _sc.digamma(a)
    else:
        direct = (-1) ** (order - 1) * math.factorial(order - 1) / a**order - _sc.polygamma(order, a)
    return np.where(a >= 10, series, direct)


def _normal_interval(z, u, h, tail_z, tail_u):
    """P = Phi(z) - Phi(u), u = z - w <= z, h = w / 2 (given: z - u loses w's digits, all of them for w below
    1e-16 |z|), to relative accuracy, from tail_z = Phi(-|z|) and tail_u = Phi(-|u|):
    a difference of the two upper tails where u > 0, of the lower ones where z <= 0 (no cancellation but
    where w is small: 1e-14 relative at w = 1/10), and where w < 1/10 its Taylor series in h = w / 2 about
    c = (z + u) / 2, 2 phi(c) sum He_2m(c) h^(2m+1) / (2m+1)! (|c| <= 11 here: the 9th term is below 1e-18 of the sum)."""
    out = np.where(u > 0, tail_u - tail_z, np.where(z <= 0, tail_z, 1 - tail_z) - tail_u)
    small = h < 0.05
    if small.any():
        h = h[small]
        c = z[small] - h
        total = np.zeros_like(c)
        previous, current = np.ones_like(c), c  # He_(2m), He_(2m+1) by the recurrence
        power = h
        for m in range(9):
            total = total + previous * power / math.factorial(2 * m + 1)
            # advance two steps: He_(2m+2) = c He_(2m+1) - (2m+1) He_(2m)
            following = c * current - (2 * m + 1) * previous
            current, previous = c * following - (2 * m + 2) * current, following
            power = power * h * h
        out[small] = 2 * np.exp(-c * c / 2) / math.sqrt(2 * math.pi) * total
    return out


def _panels(low, high, count, graded=False):
    """Composite Gauss-Legendre nodes and weights on [low, high] (arrays of one shape), appended as one axis;
    ``graded``: panel widths doubling from ``low`` (which may exceed ``high``: the panels then run down)."""
    fractions = (2.0 ** np.arange(count + 1) - 1) / (2.0**count - 1) if graded else np.linspace(0.0, 1.0, count + 1)
    edges = low[..., None] + (high - low)[..., None] * fractions
    half = (edges[..., 1:] - edges[..., :-1]) / 2
    nodes = ((edges[..., 1:] + edges[..., :-1]) / 2)[..., None] + half[..., None] * _NODES
    weights = np.abs(half)[..., None] * _WEIGHTS * np.ones_like(nodes)
    return nodes.reshape(*low.shape, -1), weights.reshape(*low.shape, -1)


def _inner(w, k, orders, upper):
    """Taylor coefficients (I + 1, N + 1, *w.shape) in (dk, dw) of G(w; k) (or of 1 - G with ``upper``)."""
    i_max, n_max = orders
    # the first interval's nodes are the same for every w: its functions of z once, broadcast
    core_panels = next(count for bound, count in _Z_CORE_PANELS.items() if k.max() <= bound)
    first_z, first_weight = _panels(np.array(-10.0), np.array(10.0), core_panels)
    second_z, second_weight = _panels(np.maximum(10.0, w / 2 - 10), np.maximum(10.0, w / 2 + 10), _Z_PANELS)
    shape = second_z.shape[:-1] + (first_z.shape[-1] + second_z.shape[-1],)

    def joined(function):
        return np.concatenate([np.broadcast_to(function(first_z), (*shape[:-1], first_z.shape[-1])),
                               function(second_z)], axis=-1)

    z = joined(lambda t: t)
    weight = joined(lambda t: np.exp(-t * t / 2) / math.sqrt(2 * math.pi)) * np.concatenate(
        [np.broadcast_to(first_weight, (*shape[:-1], first_weight.shape[-1])), second_weight], axis=-1)
    tail_z = joined(lambda t: _sc.ndtr(-np.abs(t)))
    log_cdf_z = joined(_sc.log_ndtr) if upper else None
    w, k = w[..., None], k[..., None]
    u = z - w
    tail_u = _sc.ndtr(-np.abs(u))
    interval = _normal_interval(z, u, np.broadcast_to(w / 2, z.shape), tail_z, tail_u)  # P(z, w)
    usable = interval > 1e-300
    interval = np.where(usable, interval, 1.0)
    # P(z, w + dw): d^m P/dw^m = He_(m-1)(u) phi(u)
    p = np.zeros((n_max + 1, *z.shape))
    p[0] = interval
    hermite = taylor.hermite_e(u, max(n_max, 1))
    density_u = np.exp(-u * u / 2) / math.sqrt(2 * math.pi)
    for m in range(1, n_max + 1):
        p[m] = hermite[m - 1] * density_u / math.factorial(m)
    log_p = taylor.log(p)
    k_series = np.zeros((i_max + 1, n_max + 1, *k.shape))
    k_series[0, 0] = k
    if i_max:
        k_series[1, 0] = 1.0
    with_k = np.zeros((i_max + 1, n_max + 1, *z.shape))
    if not upper:
        exponent = np.zeros_like(with_k)
        exponent[0] = (k - 1) * log_p
        if i_max:
            exponent[1] = log_p
        integrand = taylor.mul(taylor.exp(exponent), k_series)
    else:
        ratio = np.where(u <= 0, tail_u, 1 - tail_u) / np.where(z <= 0, tail_z, 1 - tail_z)  # 1 - P/Phi(z)
        log_relative = np.array(log_p)  # log(P / Phi(z)) + d(log P)/dw terms
        log_relative[0] = np.where(ratio < 0.5, np.log1p(-np.minimum(ratio, 0.5)), log_p[0] - log_cdf_z)
        y = np.zeros_like(with_k)
        y[0] = (k - 1) * log_relative
        if i_max:
            y[1] = log_relative
        expm1_y = taylor.exp(y)
        expm1_y[0, 0] = np.expm1(y[0, 0])
        power_cdf = np.zeros_like(with_k)
        power_cdf[0, 0] = (k - 1) * log_cdf_z
        if i_max:
            power_cdf[1, 0] = log_cdf_z
        integrand = -taylor.mul(taylor.mul(taylor.exp(power_cdf), expm1_y), k_series)
    integrand = np.where(usable, integrand, 0.0)
    return (integrand * weight).sum(axis=-1)


def _exponent_window(a, c):
    """Where a v - c e^(2v) / 2 (concave, largest at v* = log(a / c) / 2) is within _DROP of its largest
    value: (v* + t_low, v* + t_high) with a (t - (e^(2t) - 1) / 2) = -_DROP, by bisection."""
    centre = np.log(a / c) / 2

    def solve(direction):
        low, high = np.zeros_like(a), np.full_like(a, direction * (2 + 2 * _DROP / a))
        for _ in range(80):
            middle = (low + high) / 2
            past = a * (middle - np.expm1(2 * middle) / 2) < -_DROP
            high, low = np.where(past, middle, high), np.where(past, low, middle)
        return high

    return centre + solve(-1.0), centre + solve(1.0)


def _log_chi_series(v, df, j_max):
    """Taylor coefficients (J + 1, *v.shape) in d(df) of log(g(e^v) e^v), the log-density of log S."""
    half = df / 2
    out = np.zeros((j_max + 1, *v.shape))
    out[0] = half * np.log(half) - _sc.gammaln(half) + math.log(2) + df * v - df * np.exp(2 * v) / 2
    if j_max >= 1:
        two_v = 2 * v
        # e^(2v) - 1 - 2v without cancellation near v = 0: its Taylor series there
        small = np.zeros_like(v)
        term = two_v * two_v / 2
        for m in range(3, 30):
            small = small + term
            term = term * two_v / m
        excess = np.where(np.abs(two_v) < 0.5, small, np.expm1(two_v) - two_v)
        out[1] = (_log_minus_digamma(half, 0) - excess) / 2
    for m in range(2, j_max + 1):
        out[m] = _log_minus_digamma(half, m - 1) / 2**m / math.factorial(m)
    return out


def _series(x, k, df, orders, upper):
    """Taylor coefficients (I + 1, J + 1, N + 1, n) in (dk, d(df), dx) of F, or of 1 - F with ``upper``."""
    i_max, j_max, n_max = orders
    low, high = _exponent_window(df, df)
    for a, c in ((df + k - 1, df), (df, df + x * x / 2)):  # the lower tail's and the upper tail's peaks
        other_low, other_high = _exponent_window(a, c)
        low, high = np.minimum(low, other_low), np.maximum(high, other_high)
    # the integrand changes fastest between g's peak (v = 0) and where G(x e^v) turns (x e^v near 1): dense
    # panels there, wide ones in the tails (exponential in v on the left, super-exponential on the right)
    core_low = np.clip(np.minimum(0.0, -np.log(x)) - 4, low, high)
    core_high = np.clip(np.maximum(0.0, -np.log(x)) + 4, core_low, high)
    # (above the core the integrand falls super-exponentially, as exp(-df e^(2v) / 2): panels doubling in
    # width outward, the outer ones holding nothing that counts)
    # below core_low the integrand falls at least as e^(rate v) (g s as s^df, times G(x s) as s^(k-1) in the
    # lower form, or 1 - G <= 1 in the upper one): panels 8 / rate wide (16 nodes integrate e^(4t) on [-1, 1]
    # to 1e-16), over 48 / rate (e^-48 beyond)
    rate = df if upper else df + k - 1
    left_low = np.minimum(core_low, np.maximum(low, core_low - 48 / rate))
    pieces = [_panels(left_low, core_low, _V_TAIL_PANELS), _panels(core_low, core_high, _V_PANELS),
              _panels(core_high, high, _V_TAIL_PANELS, graded=True)]
    v = np.concatenate([piece[0] for piece in pieces], axis=-1)
    weight = np.concatenate([piece[1] for piece in pieces], axis=-1)
    s = np.exp(v)
    chi = taylor.exp(_log_chi_series(v, df[:, None], j_max)[:, None])[:, 0]  # (J + 1, n, nv)
    inner = _inner(x[:, None] * s, np.broadcast_to(k[:, None], s.shape), (i_max, n_max), upper)  # (I + 1, N + 1, n, nv)
    inner = inner * s ** np.arange(n_max + 1)[None, :, None, None]
    return np.einsum("ab,jab,iqab->ijqa", weight, chi, inner)


def studentized_range_cdf_d(x, k, df, i=1, j=0, n=0):
    """d^(i + j + n) F(x; k, df) / dk^i ddf^j dx^n of the studentized range cdf, by the double integral above."""
    x, k, df = (np.asarray(a, dtype=np.float64) for a in np.broadcast_arrays(x, k, df))
    shape = x.shape
    x, k, df = x.ravel(), k.ravel(), df.ravel()
    out = np.full(x.shape, np.nan)
    valid = (k > 1) & (k <= _K_MAX) & (df > 0) & np.isfinite(df) & ~np.isnan(x)
    if j:
        valid &= df <= _DF_MAX_IN_DF
    below = valid & ((x < 0) | ((x == 0) & (n == 0)))
    out[below] = 0.0  # F = 0 for x <= 0, in every parameter (at x = 0 the density may be infinite: NaN)
    at_infinity = valid & (x == np.inf)
    out[at_infinity] = 1.0 if (i, j, n) == (0, 0, 0) else 0.0
    inside = valid & (x > 0) & (x < np.inf)
    orders = (i, j, n)
    scale = math.factorial(i) * math.factorial(j) * math.factorial(n)
    for start in range(0, int(inside.sum()), _CHUNK):
        where = np.flatnonzero(inside)[start:start + _CHUNK]
        xs, ks, dfs = x[where], k[where], df[where]
        with np.errstate(all="ignore"):
            lower = _series(xs, ks, dfs, orders, upper=False)
            value = lower[i, j, n]
            if n == 0:
                upper = lower[0, 0, 0] > 0.5
                if upper.any():
                    tail = _series(xs[upper], ks[upper], dfs[upper], orders, upper=True)
                    value[upper] = 1 - tail[0, 0, 0] if (i, j) == (0, 0) else -tail[i, j, 0]
        out[where] = value * scale
    return out.reshape(shape)
