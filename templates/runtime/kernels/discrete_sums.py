"""Exact parameter derivatives of discrete distributions whose cdf is a finite sum of the pmf: the
beta-binomial and beta-negative-binomial cdfs in a and b (every mixed order d^p/da^p d^q/db^q), and the
Zipfian pmf and cdf in a (every order), for jaxsci.stats.betabinom, betanbinom and zipfian.

Beta mixtures. Both pmfs are ratios of gamma functions whose arguments are a, b or a + b plus integers,

    betabinom:  log f(j) = const + [lnG(j + a) - lnG(a)] + [lnG(n - j + b) - lnG(b)] - [lnG(n + a + b) - lnG(a + b)],
    betanbinom: log f(j) = const + [lnG(n + a) - lnG(a)] + [lnG(j + b) - lnG(b)] - [lnG(n + j + a + b) - lnG(a + b)]

(SciPy's _logpmf over betaln; JKK 6.7.2 and 6.2.3), and each bracket is a finite sum of logarithms,
lnG(x + l + t) - lnG(x + t) = sum_(i<l) log(x + i + t) (DLMF 5.5.1), whose Taylor coefficients in t are
(-1)^(m-1) / m * sum_(i<l) (x + i)^-m, m >= 1: sums of positive terms, cumulative in l, so no difference
of polygammas is formed. With a = a0 + s and b = b0 + t (a + b shifts by s + t, whose m-th power the
binomial theorem spreads over the mixed coefficients) log f(j) is a truncated bivariate series; its
exponential (taylor.exp) is the pmf's, its value f(j) SciPy's own formula over betaln, and summing those
series over j gives the cdf's derivatives exactly up to rounding at every order.

The sums cancel: every derivative of the total mass is 0, so far in the upper tail the lower sum's terms
nearly cancel. The beta-binomial cdf takes the lower sum or minus the upper sum (the cdf is 1 - sf),
whichever adds less in absolute value (as wallenius.py does); the beta-negative-binomial support is
unbounded, so its cdf has only the lower sum. Either way, where the terms' absolute sum exceeds
_CANCELLATION times the result, the digits left are too few to vouch for and the result is NaN
(about 1e-9 relative is what survives at that bound, the terms being good to a few ulps each).

Zipf. H(m, a) = sum_(j<=m) j^-a gives pmf(k) = k^-a / H(n, a) and cdf(k) = H(k, a) / H(n, a); in a,
j^-(a + s) = j^-a exp(-s log j) has the coefficients j^-a (-log j)^m / m!. The logs are centred on the
distribution's mean log, mu = sum j^-a log j / H(n, a) (a common factor exp(-s mu) that the ratios
cancel), which makes H(n, a)'s first coefficient zero and the others its central moments. The cdf's
first derivative is then -sum_(j<=k) (log j - mu) j^-a / H(n, a), all of one sign while log k <= mu, and
equal to minus the sf's, sum_(j>k) (log j - mu) j^-a / H(n, a), all of one sign beyond: the kernel takes
the lower sum up to k = exp(mu) and the upper one above (each summed directly, never as a difference of
totals). The sums run over j in blocks of _BLOCK (numpy's pairwise sum inside a block, math.fsum across
blocks), once per distinct (a, n) for all the points that share them; n above _ZIPF_NMAX gives NaN (a
cap on the work: 10^7 terms take about a second per order).

Invalid parameters (SciPy's _argcheck) give NaN; a point outside the support 0 (the pmf vanishes there,
the cdf is constant); a non-integer point of the pmf 0 (SciPy's pmf is 0 there); negative orders 0.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from . import taylor

__all__ = ["betabinom_cdf_da", "betabinom_cdf_db", "betabinom_cdf_dparam", "betanbinom_cdf_da", "betanbinom_cdf_db",
           "betanbinom_cdf_dparam", "zipfian_cdf_da", "zipfian_pmf_da"]

_BETA_NMAX = 10**6  # betabinom's n, betanbinom's n + k: the number of terms summed, a cap on the work
_ZIPF_NMAX = 10**7  # zipfian's n: the harmonic sums' length, a cap on the work
_BLOCK = 2**20  # the zipfian sums' block length (memory: a few blocks of (order + 1) floats)
_CANCELLATION = 1e5  # NaN where the terms' absolute sum exceeds this times the result


def _power_sums(x, shift, x_counts, y_counts, order):
    """For m = 1..order (rows; row 0 unused) and each element: the sums Y = sum_(i<y_count) (y + i)^-m,
    y = x + shift, and the differences D = sum_(i<x_count) (x + i)^-m - Y, with the common range paired,
    (x + i)^-m - (y + i)^-m = -(x + i)^-m expm1(-m log1p(shift / (x + i))), so that D keeps its relative
    accuracy where x is much larger than shift (1/a - 1/(a + b) = b / (a (a + b)) at a >> b). Both are the
    Taylor coefficients of log-gamma differences lnG(x + l + t) - lnG(x + t), times (-1)^(m-1) m, by
    cumulative sums (arrays (order + 1, J))."""
    length = int(max(x_counts.max(), y_counts.max()))
    base = x + np.arange(length, dtype=np.float64)
    common = np.minimum(x_counts, y_counts)
    differences, sums = np.zeros((order + 1, x_counts.size)), np.zeros((order + 1, x_counts.size))
    for m in range(1, order + 1):
        def prefix(terms):
            return np.concatenate([[0.0], np.cumsum(terms)])

        xs, ys = prefix(base**-m), prefix((base + shift) ** -m)
        paired = prefix(-(base**-m) * np.expm1(-m * np.log1p(shift / base)))
        sums[m] = ys[y_counts]
        differences[m] = paired[common] + (xs[x_counts] - xs[common]) - (ys[y_counts] - ys[common])
    return differences, sums


def _beta_mixture_pmf_series(log_pmf, a, b, a_counts, b_counts, ab_counts, p, q):
    """The pmf's Taylor series in (a, b) at each term j: an array (p + 1, q + 1, J), from its logarithm
    log_pmf[j] and the lengths of the three brackets lnG(x + l) - lnG(x) (x = a, b, a + b) per j."""
    total = p + q
    differences_a, sums_ab = _power_sums(a, b, a_counts, ab_counts, total)
    differences_b, _ = _power_sums(b, a, b_counts, ab_counts, total)
    series = np.zeros((p + 1, q + 1, log_pmf.size))
    series[0, 0] = log_pmf
    for i in range(p + 1):
        for l in range(q + 1):
            m = i + l
            sign = (-1) ** (m - 1) / m if m else 0.0
            if m == 0:
                continue
            if l == 0:  # the a bracket and the (a + b) bracket's s^m
                series[i, l] = sign * differences_a[m]
            elif i == 0:  # the b bracket and the (a + b) bracket's t^m
                series[i, l] = sign * differences_b[m]
            else:  # log(1 + (s + t)/(a + b + i)) contributes binomial(m, i) s^i t^l of (s + t)^m
                series[i, l] = -sign * math.comb(m, i) * sums_ab[m]
    return taylor.exp(series)[p, q] * (math.factorial(p) * math.factorial(q))


def _checked(value, weight):
    """value, or NaN where its terms' absolute sum ``weight`` exceeds _CANCELLATION times it."""
    with np.errstate(invalid="ignore"):
        return np.where(weight <= _CANCELLATION * np.abs(value), value, np.nan)


def _per_parameters(points, parameters, valid, compute):
    """compute(unique parameter row, points sharing it) for each distinct row of ``parameters`` (the valid
    elements): one set of sums per distinct parameter set, as SciPy's rv_discrete sums per call."""
    results = np.full(points.shape, np.nan)
    if not valid.any():
        return results
    unique, which = np.unique(parameters[valid], axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    inside = results[valid]
    for index, row in enumerate(unique):
        at = np.flatnonzero(which == index)
        inside[at] = compute(row, points[valid][at])
    results[valid] = inside
    return results


def _as_float_arrays(*values):
    return np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in values))


def betabinom_cdf_dparam(k, n, a, b, p=1, q=0):
    """d^p/da^p d^q/db^q of the beta-binomial cdf at k (its pmf summed up to floor(k))."""
    k, n, a, b = _as_float_arrays(k, n, a, b)
    if p < 0 or q < 0:
        return np.zeros(k.shape)
    valid = (n >= 0) & (n == np.floor(n)) & (a > 0) & (b > 0) & (n <= _BETA_NMAX) & ~np.isnan(k)

    def compute(row, points):
        size, a_, b_ = int(row[0]), row[1], row[2]
        j = np.arange(size + 1)
        log_pmf = (-np.log(size + 1.0) - special.betaln(size - j + 1.0, j + 1.0)
                   + special.betaln(j + a_, size - j + b_) - special.betaln(a_, b_))
        terms = _beta_mixture_pmf_series(log_pmf, a_, b_, j, size - j, np.full(j.shape, size), p, q)
        below, weight_below = np.cumsum(terms), np.cumsum(np.abs(terms))
        above, weight_above = np.zeros_like(terms), np.zeros_like(terms)
        above[:-1] = np.cumsum(terms[::-1])[::-1][1:]
        weight_above[:-1] = np.cumsum(np.abs(terms[::-1]))[::-1][1:]
        # the cdf is 1 - sf: its derivatives are minus the sf's
        upper = (1.0 - above) if p + q == 0 else -above
        lower_first = weight_below <= weight_above
        table = np.where(lower_first, _checked(below, weight_below), _checked(upper, weight_above))
        position = np.floor(points)
        result = table[np.clip(position, 0, size).astype(np.int64)]
        # below the support the cdf is 0, at and above its end 1: constant in a and b
        constant = 0.0 if p + q else np.where(position < 0, 0.0, 1.0)
        return np.where((position < 0) | (position >= size), constant, result)

    return _per_parameters(k, np.stack([n, a, b], axis=-1), valid, compute)


def betanbinom_cdf_dparam(k, n, a, b, p=1, q=0):
    """d^p/da^p d^q/db^q of the beta-negative-binomial cdf at k (its pmf summed up to floor(k)); NaN
    where the sum cancels beyond _CANCELLATION (far in the upper tail)."""
    k, n, a, b = _as_float_arrays(k, n, a, b)
    if p < 0 or q < 0:
        return np.zeros(k.shape)
    # n = 0 is SciPy's _argcheck's, but its pmf is NaN there (log(n + k) at k = 0): so is the kernel
    last = np.where(np.isnan(k), 0.0, np.floor(k))
    valid = ((n > 0) & (n == np.floor(n)) & (a > 0) & (b > 0) & ~np.isnan(k)
             & (n + np.maximum(last, 0) <= _BETA_NMAX))

    def compute(row, points):
        size, a_, b_ = int(row[0]), row[1], row[2]
        position = np.floor(points)
        top = int(max(position.max(), 0))
        j = np.arange(top + 1)
        log_pmf = (-np.log(size + j) - special.betaln(size, j + 1.0)
                   + special.betaln(a_ + size, b_ + j) - special.betaln(a_, b_))
        terms = _beta_mixture_pmf_series(log_pmf, a_, b_, np.full(j.shape, size), j, size + j, p, q)
        table = _checked(np.cumsum(terms), np.cumsum(np.abs(terms)))
        result = table[np.clip(position, 0, top).astype(np.int64)]
        return np.where(position < 0, 0.0, result)

    return _per_parameters(k, np.stack([n, a, b], axis=-1), valid, compute)


def _zipf_sums(a, n, order, positions):
    """Centred harmonic sums for one (a, n): mu = sum j^-a log j / H(n, a), the totals
    B_m = sum_(j<=n) j^-a (mu - log j)^m / m! (m = 0..order), and at each position k the lower sums
    (j <= k) and upper sums (j > k) of the same terms, each summed directly (arrays (order + 1, K))."""
    starts = range(1, n + 1, _BLOCK)

    def block(start):
        j = np.arange(start, min(start + _BLOCK, n + 1), dtype=np.float64)
        return j, np.log(j)

    first, logs = [], []
    for start in starts:
        j, log_j = block(start)
        power = np.exp(-a * log_j)
        first.append(np.sum(power))
        logs.append(np.sum(power * log_j))
    mu = math.fsum(logs) / math.fsum(first)
    m = np.arange(order + 1)[:, None]
    factorials = np.array([math.factorial(i) for i in range(order + 1)], dtype=np.float64)[:, None]
    totals, lower_parts, upper_parts, which = [], [], [], (positions - 1) // _BLOCK
    lower = np.zeros((order + 1, positions.size))
    upper = np.zeros((order + 1, positions.size))
    for index, start in enumerate(starts):
        j, log_j = block(start)
        terms = np.exp(-a * log_j) * (mu - log_j) ** m / factorials
        totals.append(np.sum(terms, axis=1))
        here = np.flatnonzero(which == index)
        if here.size:
            offset = (positions[here] - start).astype(np.int64)
            lower[:, here] = np.cumsum(terms, axis=1)[:, offset]
            upper[:, here] = np.concatenate([np.cumsum(terms[:, ::-1], axis=1)[:, ::-1][:, 1:],
                                             np.zeros((order + 1, 1))], axis=1)[:, offset]
    totals = np.array(totals)  # (blocks, order + 1)
    for index in range(len(totals)):
        here = which == index
        lower[:, here] += np.array([math.fsum(totals[:index, i]) for i in range(order + 1)])[:, None]
        upper[:, here] += np.array([math.fsum(totals[index + 1:, i]) for i in range(order + 1)])[:, None]
    whole = np.array([math.fsum(totals[:, i]) for i in range(order + 1)])
    return mu, whole, lower, upper


def _series(rows):
    """Coefficients (order + 1, K) as univariate Taylor series (order + 1, 1, K) for taylor.div."""
    return rows[:, None, :]


def _zipfian(k, a, n, r, cumulative):
    k, a, n = _as_float_arrays(k, a, n)
    if r < 0:
        return np.zeros(k.shape)
    valid = (a >= 0) & (n >= 1) & (n == np.floor(n)) & (n <= _ZIPF_NMAX) & ~np.isnan(k)
    factorial = math.factorial(r)

    def compute(row, points):
        a_, size = row[0], int(row[1])
        position = np.floor(points) if cumulative else points
        inside = (position >= 1) & (position <= size) & (position == np.floor(position))
        if cumulative:
            inside &= position < size  # the cdf is 1 from n on
        at = np.where(inside, position, 1).astype(np.int64)
        mu, whole, lower, upper = _zipf_sums(a_, size, r, at)
        denominator = np.broadcast_to(whole[:, None, None], (r + 1, 1, at.size))
        if cumulative:
            lower_side = np.log(at) <= mu  # where the lower sum's terms (mu - log j) are all of one sign
            below = taylor.div(_series(lower), denominator)[r, 0]
            above = taylor.div(_series(upper), denominator)[r, 0]
            value = np.where(lower_side, below, (1.0 - above) if r == 0 else -above)
        else:
            m = np.arange(r + 1)[:, None]
            factorials = np.array([math.factorial(i) for i in range(r + 1)], dtype=np.float64)[:, None]
            log_k = np.log(at)
            numerator = np.exp(-a_ * log_k) * (mu - log_k) ** m / factorials
            value = taylor.div(_series(numerator), denominator)[r, 0]
        constant = 0.0 if (r or not cumulative) else np.where(position < 1, 0.0, 1.0)
        return np.where(inside, value * factorial, constant)

    return _per_parameters(k, np.stack([a, n], axis=-1), valid, compute)


def zipfian_pmf_da(k, a, n, r=1):
    """d^r/da^r of the Zipfian pmf k^-a / H(n, a) at k."""
    return _zipfian(k, a, n, r, cumulative=False)


def zipfian_cdf_da(k, a, n, r=1):
    """d^r/da^r of the Zipfian cdf H(floor(k), a) / H(n, a) at k."""
    return _zipfian(k, a, n, r, cumulative=True)


def betabinom_cdf_da(k, n, a, b, p=1, q=0):
    """betabinom_cdf_dparam with the orders (1, 0) by default: d/da, the rule of jaxsci.stats.betabinom's cdf."""
    return betabinom_cdf_dparam(k, n, a, b, p, q)


def betabinom_cdf_db(k, n, a, b, p=0, q=1):
    """betabinom_cdf_dparam with the orders (0, 1) by default: d/db, the rule of jaxsci.stats.betabinom's cdf."""
    return betabinom_cdf_dparam(k, n, a, b, p, q)


def betanbinom_cdf_da(k, n, a, b, p=1, q=0):
    """betanbinom_cdf_dparam with the orders (1, 0) by default: d/da, the rule of jaxsci.stats.betanbinom's cdf."""
    return betanbinom_cdf_dparam(k, n, a, b, p, q)


def betanbinom_cdf_db(k, n, a, b, p=0, q=1):
    """betanbinom_cdf_dparam with the orders (0, 1) by default: d/db, the rule of jaxsci.stats.betanbinom's cdf."""
    return betanbinom_cdf_dparam(k, n, a, b, p, q)
