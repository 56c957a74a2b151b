"""Exact derivatives in the odds of Wallenius' noncentral hypergeometric distribution: d^r/d odds^r of its
pmf and of its cdf (the pmf summed up to k), for jaxsci.stats.nchypergeom_wallenius.

Method: the distribution's own definition (Wallenius 1963; Fog 2008, section 2): N objects are drawn one
at a time from n of type I and M - n of type II, each remaining type I object weighing ``odds`` and each
type II one 1. After m draws of which x were of type I, the next is of type I with probability
odds (n - x) / (odds (n - x) + (M - n) - (m - x)), so the probabilities P_m(x) of x after m draws obey

    P_(m+1)(x + 1) += P_m(x) f,   P_(m+1)(x) += P_m(x) (1 - f),   f = odds r / (odds r + w),

r = n - x and w = (M - n) - (m - x) the objects left of each type, from P_0(0) = 1; P_N is the pmf. The
recursion is run in truncated Taylor arithmetic in the odds (every quantity the array of its Taylor
coefficients of orders <= r): with odds = o + t and c = o r + w, f = 1 - (w / c) / (1 + r t / c), whose
coefficients are f_0 = o r / c and f_j = -(w / c) (-r / c)^j (a geometric series), 1 - f's the same with
the sign of w / c kept. The coefficient of order r of P_N(k), times r!, is the derivative, exact up to the
recursion's rounding: its probabilities are sums of non-negative terms, each of relative accuracy about
N ulps, and its derivatives sums of products of those with the exact coefficients above (no differences
taken, no quadrature). It is the recursive method of Fog's BiasedUrn (the library SciPy's pmf calls)
for small N, carried to the derivatives.

The recursion costs N (N + 1) / 2 steps per distinct (M, n, N, odds), computed once for all the points
that share them; N above _NMAX gives NaN rather than a long loop. Invalid parameters (SciPy's _argcheck)
give NaN; a point outside the support 0 (the pmf and its derivatives vanish there; the cdf is constant).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["nchypergeom_wallenius_dodds", "nchypergeom_wallenius_cdf_dodds"]

_NMAX = 5000  # the number of draws the recursion runs to at most (N (N + 1) / 2 steps): a cap on the loop


def _valid(M, n, N, odds):
    """SciPy's _argcheck of nchypergeom_wallenius."""
    integer = (M == np.floor(M)) & (n == np.floor(n)) & (N == np.floor(N))
    return integer & (M >= 0) & (n >= 0) & (N >= 0) & (N <= M) & (n <= M) & (odds > 0) & (N <= _NMAX)


def _series(M, n, N, odds, order):
    """The Taylor coefficients (orders 0..order) in the odds of P_N(x), x = 0..N, for one valid parameter
    set: an array (order + 1, N + 1)."""
    M, n, N = int(M), int(n), int(N)
    table = np.zeros((order + 1, N + 1))
    table[0, 0] = 1.0
    x = np.arange(N + 1)
    powers = np.arange(1, order + 1)[:, None]
    for m in range(N):
        live = x <= m
        r = np.where(live, n - x, 0).astype(np.float64)
        w = np.where(live, (M - n) - (m - x), 0).astype(np.float64)
        c = odds * r + w
        with np.errstate(divide="ignore", invalid="ignore"):  # c = 0 only where nothing is left to draw
            ratio = np.where(c > 0, -r / c, 0.0)
            share = np.where(c > 0, w / c, 0.0)
        geometric = share * ratio ** powers  # the coefficients of orders >= 1 of 1 - f; f's are their negatives
        keep = np.concatenate([share[None], geometric])  # 1 - f
        move = np.concatenate([(1 - share)[None], -geometric])  # f
        step = np.zeros_like(table)
        for i in range(order + 1):  # truncated products P_m * (1 - f) and P_m * f, the latter one x further
            for j in range(order + 1 - i):
                step[i + j] += table[i] * keep[j]
                step[i + j, 1:] += table[i, :-1] * move[j, :-1]
        table = step
    return table


def _derivative(k, M, n, N, odds, r, cumulative):
    k, M, n, N, odds = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (k, M, n, N, odds)))
    out = np.full(k.shape, np.nan)
    if r < 0:
        return np.zeros(k.shape)
    valid = _valid(M, n, N, odds) & ~np.isnan(k)
    lower = np.maximum(N - (M - n), 0)
    upper = np.minimum(n, N)
    parameters = np.stack([M[valid], n[valid], N[valid], odds[valid]], axis=-1)
    # one recursion per distinct parameter set, as SciPy's _poisson_binom caches its tables
    unique, which = np.unique(parameters, axis=0, return_inverse=True) if parameters.size else (parameters, [])
    points = k[valid]
    results = np.empty(points.shape)
    for index, (m_, n_, big_n, o) in enumerate(unique):
        series = _series(m_, n_, big_n, o, r)[r] * math.factorial(r)
        if cumulative:
            # the sum up to k, or minus the sum above k (the cdf is 1 - sf), whichever adds less in absolute
            # value: in the upper tail the derivatives below k nearly cancel (their total is d1/d odds = 0)
            below, above = np.cumsum(series), np.zeros_like(series)
            above[:-1] = -np.cumsum(series[::-1])[::-1][1:]
            weight = np.cumsum(np.abs(series))
            series = np.where(weight <= weight[-1] - weight, below, above)
        at = np.flatnonzero(np.asarray(which).reshape(-1) == index)
        point = points[at]
        position = np.floor(point) if cumulative else point
        inside = (position >= 0) & (position <= big_n) & (position == np.floor(position))
        results[at] = np.where(inside, series[np.clip(position, 0, big_n).astype(np.int64)], 0.0)
    out[valid] = results
    # outside the support (and at its upper end, where the cdf is 1): constant in the odds
    outside = valid & ((np.floor(k) < lower) | (np.floor(k) >= upper if cumulative else k > upper))
    out[outside] = 0.0
    return out


def nchypergeom_wallenius_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Wallenius' pmf at k, by the draw-by-draw recursion in Taylor arithmetic."""
    return _derivative(k, M, n, N, odds, r, cumulative=False)


def nchypergeom_wallenius_cdf_dodds(k, M, n, N, odds, r=1):
    """d^r/d odds^r of Wallenius' cdf at k (the pmf summed over the support up to floor(k))."""
    return _derivative(k, M, n, N, odds, r, cumulative=True)
