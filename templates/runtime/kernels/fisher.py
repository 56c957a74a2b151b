"""Exact derivatives in the odds of Fisher's noncentral hypergeometric distribution: d^r/d odds^r of its pmf
and of its cdf (the pmf summed up to k), for jaxsci.stats.nchypergeom_fisher (whose values are SciPy's,
BiasedUrn's).

The distribution is a ratio of finite sums (Johnson, Kemp and Kotz 2005, 6.11; Fog 2008): with
t_j = C(n, j) C(M - n, N - j) odds^j over the support max(0, N - (M - n)) <= j <= min(n, N),

    P(k) = t_k / S,   S = sum_j t_j.

The terms are computed relative to the largest, t_c, by the ratios of neighbours

    t_(j+1) / t_j = (n - j) / (j + 1) * (N - j) / (M - n - N + j + 1) * odds,

multiplied outward from c (products of exact integer ratios, each a few ulps, no log-gamma differences;
the ratio decreases in j, the distribution being log-concave, so c is where it falls below 1). At odds
o (1 + e) every term is t_j (1 + e)^j, and dividing numerator and denominator by (1 + e)^c leaves the
powers (1 + e)^(j - c), whose Taylor coefficients in e are the binomial coefficients C(j - c, m) of a
possibly negative integer (the binomial series, DLMF 4.6.7). The sums of t_j C(j - c, m) are the series of S, t_k's
the numerator's, and the pmf's (the cdf's) series is their quotient in truncated Taylor arithmetic
(kernels/taylor.py); its coefficient of order r times r! / o^r is the r-th derivative in the odds. The
centring on the mode keeps S's coefficients of the size of the distribution's central moments, so the
quotient does not cancel beyond what the derivative's own conditioning asks (its zeros in k).

The cdf sums up to floor(k) where that sum is at most 1/2, and is otherwise 1 minus the sum above floor(k)
(its derivatives minus that sum's), so both tails keep their relative accuracy (the upper tail's
derivatives would otherwise be differences of nearly equal sums, every derivative of the total being 0).
The prefix sums are blocked (discrete_sums._prefix_sums).

The logarithms' derivatives (the rules of the host logpmf, logcdf and logsf, in place of the chain rule
through SciPy's values: BiasedUrn's pmf is good to about M * 1e-15 relative, and SciPy's sf is 1 - cdf, 0
from about 1e-16 on) are the logarithms of the same series, log f: m l_m f_0 = m f_m - sum i l_i f_(m-i).
log P(k) = log t_k + (k - c) log(1 + e) - log S needs no value of the pmf, so its derivatives hold where the
pmf underflows; log cdf is log(sum up to k) - log S, or log(1 - sum above k / S) in the upper half (log sf
the mirror image). Where the sum on a point's own side underflows (below about 1e-320 of the largest term)
its logarithm is finite but not computed: NaN. Measured against mpmath: within 8e-14 at orders 1 and 2, and
2e-12 at order 3 in the far tails (cdf 1e-15), where the logarithm of a tail sum forms the tail's cumulants
from moments about the distant mode.

Cost: the mode c by bisection on the ratio, then the terms multiplied outward from it in blocks until
they underflow to 0 (beyond, the pmf is below the smallest double beside its largest value, as SciPy's
own is, and the cdf constant): about 77 standard deviations of terms, whatever the support's length, once
per distinct (M, n, N, odds), shared by all the points that have them (discrete_sums._per_parameters),
(r + 1) floats a term. Where more than _WINDOW_MAX terms would be needed the kernel gives NaN rather than a
long sum (a standard deviation above about 5e4: M beyond about 5e10 at n = N = M / 2, far beyond SciPy's
BiasedUrn, on C ints, which raises from M = 2**31 on). Invalid parameters (SciPy's _argcheck; M above 2**53, where the integers are not exact)
give NaN; outside the support, and at a non-integer point of the pmf (SciPy's pmf is 0 there), the pmf and
its derivatives are 0; the cdf is constant outside [lower, upper) (0 below, 1 from the upper end on), so
its derivatives are 0 there. r = 0 gives the value itself; negative orders 0.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from . import taylor
from .discrete_sums import _as_float_arrays, _per_parameters, _prefix_sums

__all__ = ["nchypergeom_fisher_cdf_dodds", "nchypergeom_fisher_dodds", "nchypergeom_fisher_logcdf_dodds",
           "nchypergeom_fisher_logpmf_dodds", "nchypergeom_fisher_logsf_dodds"]

_WINDOW_MAX = 2**22  # terms summed per distinct parameter set (those that do not underflow), at most


def _valid(M, n, N, odds):
    """SciPy's _argcheck of nchypergeom_fisher (_nchypergeom_gen's), with the integers exact in float64."""
    integer = (M == np.floor(M)) & (n == np.floor(n)) & (N == np.floor(N)) & (M <= 2.0**53)
    return integer & (M >= 0) & (n >= 0) & (N >= 0) & (N <= M) & (n <= M) & (odds > 0) & np.isfinite(odds)


def _ratios(j, M, n, N, odds, up):
    """t_(j+1) / t_j (up) or t_j / t_(j+1) (down) for support points j below the upper end (float arrays)."""
    with np.errstate(divide="ignore", over="ignore"):
        if up:
            return (n - j) / (j + 1) * ((N - j) / (M - n - N + j + 1)) * odds
        return (j + 1) / (n - j) * ((M - n - N + j + 1) / (N - j)) / odds


def _mode(M, n, N, odds, lower, upper):
    """The first support point c with t_(c+1) < t_c (upper if none): the ratio decreases in j (the
    distribution is log-concave), so bisection finds it."""
    low, high = lower, upper  # the answer lies in [low, high]
    while low < high:
        middle = math.floor((low + high) / 2)
        if _ratios(np.float64(middle), M, n, N, odds, up=True) < 1.0:
            high = middle
        else:
            low = middle + 1
    return low


def _one_side(start, stop, step, M, n, N, odds):
    """The terms t_j / t_start for j = start + step, start + 2 step, ... up to stop (inclusive) or until they
    underflow to 0, multiplied outward in blocks of doubling length."""
    parts, last, block, j = [], 1.0, 1024, start
    while j != stop and last > 0.0 and sum(p.size for p in parts) <= _WINDOW_MAX:
        count = min(block, abs(stop - j))
        steps = j + step * np.arange(count, dtype=np.float64)  # the ratios between steps[i] and its next
        ratios = _ratios(steps, M, n, N, odds, up=True) if step > 0 else _ratios(steps - 1, M, n, N, odds, up=False)
        part = last * np.cumprod(ratios)
        parts.append(part)
        last, block, j = part[-1], 2 * block, j + step * count
    terms = np.concatenate(parts) if parts else np.zeros(0)
    return terms[terms > 0.0]  # the ratios fall monotonically: only the underflowed end goes


def _terms(M, n, N, odds):
    """The terms relative to the largest, t_j / t_c, over the window of support points where they do not
    underflow, their offsets j - c, and the window's first point; None where the window is longer than
    _WINDOW_MAX points."""
    lower, upper = max(0.0, N - (M - n)), min(n, N)
    centre = _mode(M, n, N, odds, lower, upper)
    right = _one_side(centre, upper, 1, M, n, N, odds)
    if right.size >= _WINDOW_MAX:
        return None
    left = _one_side(centre, lower, -1, M, n, N, odds)[::-1]
    if left.size + right.size + 1 > _WINDOW_MAX:
        return None
    terms = np.concatenate([left, [1.0], right])
    offsets = np.arange(-left.size, right.size + 1, dtype=np.float64)
    return terms, offsets, centre - left.size


def _series(M, n, N, odds, r):
    """t_j (1 + e)^(j - c) / t_c as Taylor coefficients in e of orders 0..r: an array (r + 1, window), the
    window's first point and the mode c (None, None, None where _terms gives up)."""
    found = _terms(M, n, N, odds)
    if found is None:
        return None, None, None
    terms, offsets, first = found
    rows = [terms]
    binomial = np.ones_like(offsets)
    for m in range(1, r + 1):  # C(d, m) = C(d, m - 1) (d - m + 1) / m
        binomial = binomial * (offsets - (m - 1)) / m
        rows.append(terms * binomial)
    return np.array(rows), first, first - offsets[0]


def _to_derivative(coefficients, odds, r):
    """The coefficient of e^r of f(o (1 + e)) times r! / o^r: d^r f / d odds^r (divided step by step, so that
    o^r does not overflow where the result would not)."""
    out = coefficients * float(math.factorial(r))
    for _ in range(r):
        out = out / odds
    return out


def _quotient(numerators, whole):
    """numerators / whole in truncated Taylor arithmetic: series (r + 1, P) and (r + 1,) -> (r + 1, P)."""
    return taylor.div(numerators[:, None], whole[:, None, None])[:, 0]


def _log_binomial(a, b):
    return special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)


def _pmf(row, points, r, logarithm):
    M, n, N, odds = row
    series, first, centre = _series(M, n, N, odds, r)
    if series is None:
        return np.full(points.shape, np.nan)
    whole = np.sum(series, axis=1)
    position = points - first
    in_window = (position >= 0) & (position < series.shape[1]) & (points == np.floor(points))
    at = np.where(in_window, position, 0).astype(np.int64)
    if not logarithm:
        return np.where(in_window, _to_derivative(_quotient(series[:, at], whole)[r], odds, r), 0.0)
    # log P = log t_k + (k - c) log(1 + e) - log S, with log(1 + e) = sum (-1)^(m + 1) e^m / m: no value of the
    # pmf enters the derivatives, which hold over the whole support, beyond the terms' underflow too
    lower, upper = max(0.0, N - (M - n)), min(n, N)
    in_support = (points >= lower) & (points <= upper) & (points == np.floor(points))
    if r == 0:
        with np.errstate(divide="ignore"):
            log_term = np.where(in_window, np.log(series[0, at]), 0.0)
        # beyond the window (where t_k / t_c underflows) by log-gamma differences, good to about M * 1e-16
        k = np.where(in_support, points, centre)
        far = (_log_binomial(n, k) + _log_binomial(M - n, N - k) - _log_binomial(n, centre)
               - _log_binomial(M - n, N - centre) + (k - centre) * math.log(odds))
        others = np.where(np.arange(series.shape[1]) == centre - first, 0.0, series[0])
        value = np.where(in_window, log_term, far) - math.log1p(np.sum(others))  # log S = log(1 + the others)
        return np.where(in_support, value, -np.inf)
    power = (points - centre) * (-1.0) ** (r + 1) / r
    value = _to_derivative(power - taylor.log(whole[:, None])[r], odds, r)
    return np.where(in_support, value, 0.0)


def _tail(row, points, r, survival, logarithm):
    """The cdf's (survival False) or the sf's (True) r-th derivative, or their logarithms': each the sum on its
    own side of the point where that is the smaller, else 1 minus the other (its derivatives minus the other's)."""
    M, n, N, odds = row
    series, first, _ = _series(M, n, N, odds, r)
    if series is None:
        return np.full(points.shape, np.nan)
    size = series.shape[1]
    position = np.floor(points) - first
    at = np.clip(position, 0, size - 1).astype(np.int64)
    # the sums up to each point and beyond it, row by row, kept at the points only
    below = np.array([_prefix_sums(s)[1:][at] for s in series])
    above = np.array([_prefix_sums(s[::-1])[::-1][1:][at] for s in series])
    if survival:
        below, above = above, below  # the sf is the sum beyond the point
    whole = np.sum(series, axis=1)
    own_side = below[0] <= above[0]
    complement = -_quotient(above, whole)  # cdf = 1 - sf
    complement[0] += 1.0
    if logarithm:  # log(own / S) = log own - log S, each a positive sum; log(1 - other / S) where that is >= 1/2
        with np.errstate(divide="ignore", invalid="ignore"):
            own = taylor.log(below) - taylor.log(whole[:, None])
            complement = taylor.log(complement)
            complement[0] = np.log1p(-_quotient(above, whole)[0])  # log(1 - small), to its relative accuracy
    else:
        own = _quotient(below, whole)
    value = _to_derivative(np.where(own_side, own[r], complement[r]), odds, r)
    # below the window the cdf is 0 (up to underflow: every term there is 0 beside the largest), from its end
    # on 1 (the support's upper end, or the terms beyond underflow), and the sf 1 - cdf: constant in the odds
    outside = (position < 0) | (position >= size - 1)
    cdf = np.where(position < 0, 0.0, 1.0)
    constant = (1.0 - cdf) if survival else cdf
    if not logarithm:
        return np.where(outside, constant if r == 0 else 0.0, value)
    # the logarithm of a sum on the point's own side that underflowed (a cdf or sf below about 1e-320) is
    # finite, with finite derivatives, but not computed here: NaN; elsewhere as the values (log 0 = -inf and
    # log 1 = 0 outside the window, constant)
    lower, upper = max(0.0, N - (M - n)), min(n, N)
    point = np.floor(points)
    underflowed = ((position >= size - 1) & (point < upper)) if survival else ((position < 0) & (point >= lower))
    with np.errstate(divide="ignore"):
        result = np.where(outside, np.log(constant) if r == 0 else 0.0, value)
    return np.where(underflowed, np.nan, result)


def _derivative(k, M, n, N, odds, r, method, logarithm=False):
    k, M, n, N, odds = _as_float_arrays(k, M, n, N, odds)
    if r < 0:
        return np.zeros(k.shape)
    valid = _valid(M, n, N, odds) & ~np.isnan(k)

    def compute(row, points):
        if method == "pmf":
            return _pmf(row, points, r, logarithm)
        return _tail(row, points, r, method == "sf", logarithm)

    return _per_parameters(k, np.stack([M, n, N, odds], axis=-1), valid, compute)


def nchypergeom_fisher_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Fisher's noncentral hypergeometric pmf at k, by its finite sums in Taylor arithmetic."""
    return _derivative(k, M, n, N, odds, r, method="pmf")


def nchypergeom_fisher_cdf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Fisher's noncentral hypergeometric cdf at k (the pmf summed up to floor(k))."""
    return _derivative(k, M, n, N, odds, r, method="cdf")


def nchypergeom_fisher_logpmf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of the logarithm of Fisher's noncentral hypergeometric pmf at k."""
    return _derivative(k, M, n, N, odds, r, method="pmf", logarithm=True)


def nchypergeom_fisher_logcdf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of the logarithm of Fisher's noncentral hypergeometric cdf at k."""
    return _derivative(k, M, n, N, odds, r, method="cdf", logarithm=True)


def nchypergeom_fisher_logsf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of the logarithm of Fisher's noncentral hypergeometric sf at k (the pmf summed beyond
    floor(k)): exact in the upper tail too, where SciPy's sf, 1 - cdf, is 0 from about 1e-16 on."""
    return _derivative(k, M, n, N, odds, r, method="sf", logarithm=True)
