"""Exact derivatives in the odds of Fisher's noncentral hypergeometric distribution: d^r/d odds^r of its pmf
and of its cdf (the pmf summed up to k), for jaxsci.stats.nchypergeom_fisher (whose values are SciPy's,
BiasedUrn's).

The distribution is a ratio of finite sums (Johnson, Kemp and Kotz 2005, 6.11; Fog 2008, eq. 11): with
t_j = C(n, j) C(M - n, N - j) odds^j over the support max(0, N - (M - n)) <= j <= min(n, N),

    P(k) = t_k / S,   S = sum_j t_j.

The terms are computed relative to the largest, t_c, by the ratios of neighbours

    t_(j+1) / t_j = (n - j) / (j + 1) * (N - j) / (M - n - N + j + 1) * odds,

multiplied outward from c (products of exact integer ratios, each a few ulps, no log-gamma differences;
the ratio decreases in j, the distribution being log-concave, so c is where it falls below 1). At odds
o (1 + e) every term is t_j (1 + e)^j, and dividing numerator and denominator by (1 + e)^c leaves the
powers (1 + e)^(j - c), whose Taylor coefficients in e are the binomial coefficients C(j - c, m) of a
possibly negative integer (DLMF 1.2.2 with 4.6.7). The sums of t_j C(j - c, m) are the series of S, t_k's
the numerator's, and the pmf's (the cdf's) series is their quotient in truncated Taylor arithmetic
(kernels/taylor.py); its coefficient of order r times r! / o^r is the r-th derivative in the odds. The
centring on the mode keeps S's coefficients of the size of the distribution's central moments, so the
quotient does not cancel beyond what the derivative's own conditioning asks (its zeros in k).

The cdf sums up to floor(k) where that sum is at most 1/2, and is otherwise 1 minus the sum above floor(k)
(its derivatives minus that sum's), so both tails keep their relative accuracy (the upper tail's
derivatives would otherwise be differences of nearly equal sums, every derivative of the total being 0).
The prefix sums are blocked (discrete_sums._prefix_sums).

Cost: one pass over the support per distinct (M, n, N, odds), shared by all the points that have them
(discrete_sums._per_parameters), (r + 1) floats a support point. Above _SUPPORT_MAX points the kernel gives
NaN rather than a long sum (SciPy's own cdf adds its pmf one BiasedUrn call at a time there, about a second
per 10^6 points). Invalid parameters (SciPy's _argcheck) give NaN; outside the support, and at a
non-integer point of the pmf (SciPy's pmf is 0 there), the pmf and its derivatives are 0; the cdf is
constant outside [lower, upper) (0 below, 1 from the upper end on), so its derivatives are 0 there. r = 0
gives the value itself; negative orders 0.
"""
from __future__ import annotations

import math

import numpy as np

from . import taylor
from .discrete_sums import _as_float_arrays, _per_parameters, _prefix_sums

__all__ = ["nchypergeom_fisher_cdf_dodds", "nchypergeom_fisher_dodds"]

_SUPPORT_MAX = 2**21  # support points summed per distinct parameter set, at most (the cdf: 0.8 s at r = 3)


def _valid(M, n, N, odds):
    """SciPy's _argcheck of nchypergeom_fisher (_nchypergeom_gen's), and the cap on the support."""
    integer = (M == np.floor(M)) & (n == np.floor(n)) & (N == np.floor(N))
    ok = integer & (M >= 0) & (n >= 0) & (N >= 0) & (N <= M) & (n <= M) & (odds > 0) & np.isfinite(odds)
    with np.errstate(invalid="ignore"):
        return ok & (np.minimum(n, N) - np.maximum(0.0, N - (M - n)) < _SUPPORT_MAX)


def _terms(M, n, N, odds):
    """The support's terms relative to the largest, t_j / t_c, and the offsets j - c (float arrays)."""
    lower, upper = max(0.0, N - (M - n)), min(n, N)
    j = np.arange(upper - lower + 1, dtype=np.float64) + lower
    below_end = j[:-1]
    with np.errstate(divide="ignore", over="ignore"):
        up = (n - below_end) / (below_end + 1) * ((N - below_end) / (M - n - N + below_end + 1)) * odds
        down = (below_end + 1) / (n - below_end) * ((M - n - N + below_end + 1) / (N - below_end)) / odds
    centre = int(np.count_nonzero(up >= 1.0))  # the ratios decrease: the terms rise up to here, then fall
    terms = np.ones(j.size)
    terms[centre + 1:] = np.cumprod(up[centre:])
    terms[:centre] = np.cumprod(down[:centre][::-1])[::-1]
    return terms, j - j[centre], lower


def _series(M, n, N, odds, r):
    """t_j (1 + e)^(j - c) / t_c as Taylor coefficients in e of orders 0..r: an array (r + 1, support)."""
    terms, offsets, lower = _terms(M, n, N, odds)
    rows = [terms]
    binomial = np.ones_like(offsets)
    for m in range(1, r + 1):  # C(d, m) = C(d, m - 1) (d - m + 1) / m
        binomial = binomial * (offsets - (m - 1)) / m
        rows.append(terms * binomial)
    return np.array(rows), lower


def _to_derivative(coefficients, odds, r):
    """The coefficient of e^r of f(o (1 + e)) times r! / o^r: d^r f / d odds^r (divided step by step, so that
    o^r does not overflow where the result would not)."""
    out = coefficients * float(math.factorial(r))
    for _ in range(r):
        out = out / odds
    return out


def _quotient(numerators, whole, r):
    """The coefficient r of numerators / whole (series (r + 1, P) and (r + 1,)) in truncated Taylor arithmetic."""
    return taylor.div(numerators[:, None], whole[:, None, None])[r, 0]


def _pmf(row, points, r):
    M, n, N, odds = row
    series, lower = _series(M, n, N, odds, r)
    whole = np.sum(series, axis=1)
    position = points - lower
    inside = (position >= 0) & (position < series.shape[1]) & (points == np.floor(points))
    at = np.where(inside, position, 0).astype(np.int64)
    return np.where(inside, _to_derivative(_quotient(series[:, at], whole, r), odds, r), 0.0)


def _cdf(row, points, r):
    M, n, N, odds = row
    series, lower = _series(M, n, N, odds, r)
    size = series.shape[1]
    below = np.array([_prefix_sums(s)[1:] for s in series])  # the sums up to each support point
    above = np.zeros_like(series)  # the sums beyond it
    above[:, :-1] = np.array([_prefix_sums(s[::-1])[::-1][1:-1] for s in series])
    whole = np.sum(series, axis=1)
    position = np.floor(points) - lower
    at = np.clip(position, 0, size - 1).astype(np.int64)
    lower_sum = _quotient(below[:, at], whole, r)
    upper_sum = _quotient(above[:, at], whole, r)
    complement = (1.0 - upper_sum) if r == 0 else -upper_sum  # the cdf is 1 - sf
    value = np.where(below[0, at] <= above[0, at], lower_sum, complement)
    value = _to_derivative(value, odds, r)
    # below the support the cdf is 0, from its upper end on 1: constant in the odds
    constant = 0.0 if r else np.where(position < 0, 0.0, 1.0)
    return np.where((position < 0) | (position >= size - 1), constant, value)


def _derivative(k, M, n, N, odds, r, cumulative):
    k, M, n, N, odds = _as_float_arrays(k, M, n, N, odds)
    if r < 0:
        return np.zeros(k.shape)
    valid = _valid(M, n, N, odds) & ~np.isnan(k)
    compute = _cdf if cumulative else _pmf
    return _per_parameters(k, np.stack([M, n, N, odds], axis=-1), valid, lambda row, points: compute(row, points, r))


def nchypergeom_fisher_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Fisher's noncentral hypergeometric pmf at k, by its finite sums in Taylor arithmetic."""
    return _derivative(k, M, n, N, odds, r, cumulative=False)


def nchypergeom_fisher_cdf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Fisher's noncentral hypergeometric cdf at k (the pmf summed up to floor(k))."""
    return _derivative(k, M, n, N, odds, r, cumulative=True)
