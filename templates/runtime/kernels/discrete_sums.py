"""Exact parameter derivatives of discrete distributions whose cdf is a finite sum of the pmf: the
beta-binomial and beta-negative-binomial cdfs in a and b (every mixed order d^p/da^p d^q/db^q), and the
Zipfian pmf and cdf in a (every order), for jaxsci.stats.betabinom, betanbinom and zipfian.

Beta mixtures. Both pmfs are ratios of gamma functions whose arguments are a, b or a + b plus integers,

    betabinom:  log f(j) = const + [lnG(j + a) - lnG(a)] + [lnG(n - j + b) - lnG(b)] - [lnG(n + a + b) - lnG(a + b)],
    betanbinom: log f(j) = const + [lnG(n + a) - lnG(a)] + [lnG(j + b) - lnG(b)] - [lnG(n + j + a + b) - lnG(a + b)]

(SciPy's _logpmf over betaln; JKK 6.7.2 and 6.2.3), and each bracket is a finite sum of logarithms,
lnG(x + l + t) - lnG(x + t) = sum_(i<l) log(x + i + t) (DLMF 5.5.1), whose Taylor coefficients in t are
(-1)^(m-1) / m * sum_(i<l) (x + i)^-m, m >= 1: sums of positive terms, cumulative in l, so no difference
of polygammas is formed (and where a bracket in a meets one in a + b over the same i, the two are paired
term by term, (x + i)^-m - (x + c + i)^-m by expm1 and log1p). With a = a0 + s and b = b0 + t (a + b
shifts by s + t, whose m-th power the binomial theorem spreads over the mixed coefficients) log f(j) is
a truncated bivariate series; its exponential (taylor.exp) is the pmf's, and summing those series over
j gives the cdf's derivatives exactly up to rounding at every order. The value log f(j) is SciPy's own
formula below N + a + b = 170, where Cephes' betaln multiplies gamma functions; above, where betaln
subtracts lgamma values (1e-11 at 1e5), the same brackets as rising factorials, each the difference of
Stirling's series written without cancellation (_log_rising), paired so that they stay small in both
tails and for large a or b; in the middle of a wide distribution the log binomial coefficient still
cancels to the result (3e-11 at N = 1e5, as SciPy's logpmf).

The sums cancel: every derivative of the total mass is 0, so far in the upper tail the lower sum's terms
nearly cancel. The cdf takes the lower sum or minus the upper sum (the cdf is 1 - sf), whichever adds
less in absolute value (as wallenius.py does). The beta-negative-binomial support is unbounded, but its
upper tail is a finite sum too: X <= k exactly when n + k Bernoulli(P) trials bring at least n successes
(X counts the failures before the n-th success), so, mixed over P ~ Beta(a, b), its sf at k is the
beta-binomial cdf at n - 1 with n + k trials, n terms per point. Where even the smaller sum's terms add
to more than _CANCELLATION times the result (near a zero of a higher derivative), the digits left are
too few to vouch for and the result is NaN (about 1e-9 relative survives at that bound, the terms being
good to a few ulps each).

Zipf. H(m, a) = sum_(j<=m) j^-a gives pmf(k) = k^-a / H(n, a) and cdf(k) = H(k, a) / H(n, a); in a,
j^-(a + s) = j^-a exp(-s log j) has the coefficients j^-a (-log j)^m / m!. The logs are centred on the
distribution's mean log, mu = sum j^-a log j / H(n, a) (a common factor exp(-s mu) that the ratios
cancel), which makes H(n, a)'s first coefficient zero and the others its central moments. The cdf's
first derivative is then -sum_(j<=k) (log j - mu) j^-a / H(n, a), all of one sign while log k <= mu, and
equal to minus the sf's, sum_(j>k) (log j - mu) j^-a / H(n, a), all of one sign beyond: the kernel takes
the lower sum up to k = exp(mu) and the upper one above (each summed directly, never as a difference of
totals). The sums run over j in blocks of _BLOCK (numpy's pairwise sum inside a block, math.fsum across
blocks) up to _ZIPF_DIRECT, once per distinct (a, n) for all the points that share them, and beyond by
Euler-Maclaurin's formula in Taylor arithmetic in a (_euler_maclaurin), so any n up to SciPy's 2**53 costs
the same (measured: 1e-15 of mpmath's Hurwitz-zeta form at n = 1e8 to 1e15).

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

_BETA_NMAX = 10**6  # betabinom's n, betanbinom's n + k: the terms summed (per point for betanbinom's sf), a cap
_ZIPF_DIRECT = 2**20  # zipfian's sums are direct up to here, Euler-Maclaurin's beyond (any n up to 2**53)
_BLOCK = 2**20  # the zipfian sums' block length (memory: a few blocks of (order + 1) floats)
# below this N + a + b (n + k + a + b) the beta mixtures' log pmf is SciPy's own formula: Cephes' lbeta takes
# gamma function products there (MAXGAM, 171.6), to a few ulps, and above it differences of lgamma, which
# lose 1e-11 at 1e5 where the pairing as rising factorials keeps the tails and large a, b to 1e-15
_GAMMA_PRODUCTS = 170.0
_CANCELLATION = 1e5  # NaN where the terms' absolute sum exceeds this times the result


def _prefix_sums(terms, block=1024):
    """[0, t_0, t_0 + t_1, ...]: cumulative sums in blocks (numpy's cumsum inside a block of ``block``
    terms, the blocks' pairwise totals accumulated), whose rounding grows with block + len / block terms
    rather than with len (np.cumsum alone: 1e-11 relative at 10^5 terms of 1 / i)."""
    terms = np.asarray(terms, dtype=np.float64)
    blocks = np.zeros(-(-terms.size // block) * block)
    blocks[:terms.size] = terms
    blocks = blocks.reshape(-1, block)
    offsets = np.concatenate([[0.0], np.cumsum(np.sum(blocks, axis=1))[:-1]])
    return np.concatenate([[0.0], (np.cumsum(blocks, axis=1) + offsets[:, None]).ravel()[:terms.size]])


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
        xs, ys = _prefix_sums(base**-m), _prefix_sums((base + shift) ** -m)
        paired = _prefix_sums(-(base**-m) * np.expm1(-m * np.log1p(shift / base)))
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


# Stirling's series' coefficients B_2k / (2k (2k - 1)), k = 1..8 (DLMF 5.11.1)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
_STIRLING_FROM = 10.0  # x at which Stirling's series (8 terms) is exact to rounding


def _log_rising(x, y):
    """log Gamma(x + y) / Gamma(x) for x > 0, y >= 0, to a few ulps of its magnitude: the difference of
    Stirling's series (DLMF 5.11.1) written without cancelling terms,
    y log x + (x + y - 1/2) log1p(y / x) - y + sum_k c_k ((x + y)^(1 - 2k) - x^(1 - 2k)),
    after moving x up to _STIRLING_FROM by the recurrence Gamma(z + 1) = z Gamma(z), each step a
    log1p(y / (x + i)). gammaln(x + y) - gammaln(x) loses 1e-11 at x = 1e5, SciPy's poch 1e-12 at 1e3."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    steps = np.clip(np.ceil(_STIRLING_FROM - x), 0, None)
    low = np.zeros(x.shape)
    for i in range(int(steps.max(initial=0))):
        low += np.where(i < steps, np.log1p(y / (x + i)), 0.0)
    z = x + steps
    with np.errstate(all="ignore"):
        series = sum(c * ((z + y) ** (1 - 2 * k) - z ** (1 - 2 * k)) for k, c in enumerate(_STIRLING, start=1))
        high = y * np.log(z) + (z + y - 0.5) * np.log1p(y / z) - y + series
    return np.where(y == 0, 0.0, high - low)


def _betabinom_log_pmf(j, trials, a, b):
    """SciPy's betabinom._logpmf, log C(N, j) + betaln(j + a, N - j + b) - betaln(a, b), N = trials; from
    _GAMMA_PRODUCTS on, with the gamma functions paired as rising factorials (R(x, y) = log Gamma(x + y) / Gamma(x)):
    R(N - j + 1, j) - log j! + R(a, j) + [R(b, N - j) - R(a + b, N)], the bracket written
    R(b, a) - R(N - j + b, a + j) where a < N (its terms grow with a, the bracket's with N)."""

    def paired(j, a, b):
        in_trials = _log_rising(b, trials - j) - _log_rising(a + b, trials)
        in_a = _log_rising(b, a) - _log_rising(trials - j + b, a + j)
        return (_log_rising(trials - j + 1.0, j) - special.gammaln(j + 1.0) + _log_rising(a, j)
                + np.where(a < trials, in_a, in_trials))

    # f(j; N, a, b) = f(N - j; N, b, a): the pairing above is for j <= N / 2 (its terms grow with j)
    paired = np.where(2 * j <= trials, paired(j, a, b), paired(trials - j, b, a))
    scipy_form = (-np.log(trials + 1.0) - special.betaln(trials - j + 1.0, j + 1.0)
                  + special.betaln(j + a, trials - j + b) - special.betaln(a, b))
    return np.where(trials + a + b < _GAMMA_PRODUCTS, scipy_form, paired)


def _betanbinom_log_pmf(j, n, a, b):
    """SciPy's betanbinom._logpmf, -log(n + j) - betaln(n, j + 1) + betaln(a + n, b + j) - betaln(a, b); from
    _GAMMA_PRODUCTS on, with the gamma functions paired as rising factorials (R(x, y) = log Gamma(x + y) / Gamma(x)):
    R(j + 1, n - 1) - log Gamma(n) + R(a, n) + [R(b, j) - R(a + b, n + j)], the bracket written
    R(b, a) - R(b + j, a + n) where a < n + j (its terms grow with a, the bracket's with n + j)."""
    in_count = _log_rising(b, j) - _log_rising(a + b, n + j)
    in_a = _log_rising(b, a) - _log_rising(b + j, a + n)
    paired = (_log_rising(j + 1.0, n - 1.0) - special.gammaln(n) + _log_rising(a, float(n))
              + np.where(a < n + j, in_a, in_count))
    scipy_form = (-np.log(n + j) - special.betaln(n, j + 1.0) + special.betaln(a + n, b + j) - special.betaln(a, b))
    return np.where(n + j + a + b < _GAMMA_PRODUCTS, scipy_form, paired)


def _betabinom_lower_sums(trials, last, a, b, p, q):
    """For each number of trials N (an int array): the sum over j = 0..last of the beta-binomial pmf's
    derivative d^p/da^p d^q/db^q at (j; N, a, b), and the sum of the terms' absolute values; in blocks
    of about _BLOCK terms."""
    j = np.arange(last + 1)
    values, weights = np.empty(trials.shape), np.empty(trials.shape)
    step = max(1, _BLOCK // (last + 1))
    for start in range(0, trials.size, step):
        grid_trials, grid_j = np.broadcast_arrays(trials[start:start + step, None], j[None, :])
        grid_trials, grid_j = grid_trials.ravel(), grid_j.ravel()
        terms = _beta_mixture_pmf_series(_betabinom_log_pmf(grid_j, grid_trials, a, b), a, b, grid_j,
                                         grid_trials - grid_j, grid_trials, p, q).reshape(-1, last + 1)
        values[start:start + step] = np.sum(terms, axis=1)
        weights[start:start + step] = np.sum(np.abs(terms), axis=1)
    return values, weights


def betabinom_cdf_dparam(k, n, a, b, p=1, q=0):
    """d^p/da^p d^q/db^q of the beta-binomial cdf at k (its pmf summed up to floor(k))."""
    k, n, a, b = _as_float_arrays(k, n, a, b)
    if p < 0 or q < 0:
        return np.zeros(k.shape)
    valid = (n >= 0) & (n == np.floor(n)) & (a > 0) & (b > 0) & (n <= _BETA_NMAX) & ~np.isnan(k)

    def compute(row, points):
        size, a_, b_ = int(row[0]), row[1], row[2]
        j = np.arange(size + 1)
        trials = np.full(j.shape, size)
        terms = _beta_mixture_pmf_series(_betabinom_log_pmf(j, trials, a_, b_), a_, b_, j, size - j, trials, p, q)
        below, weight_below = _prefix_sums(terms)[1:], _prefix_sums(np.abs(terms))[1:]
        above, weight_above = np.zeros_like(terms), np.zeros_like(terms)
        above[:-1] = _prefix_sums(terms[::-1])[::-1][1:-1]
        weight_above[:-1] = _prefix_sums(np.abs(terms[::-1]))[::-1][1:-1]
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
    """d^p/da^p d^q/db^q of the beta-negative-binomial cdf at k (its pmf summed up to floor(k), or one
    minus its sf, a beta-binomial cdf, whichever sum adds less)."""
    k, n, a, b = _as_float_arrays(k, n, a, b)
    if p < 0 or q < 0:
        return np.zeros(k.shape)
    # n = 0 is SciPy's _argcheck's, but its pmf is NaN there (log(n + k) at k = 0): so is the kernel
    last = np.where(np.isnan(k), 0.0, np.floor(k))
    valid = ((n > 0) & (n == np.floor(n)) & (a > 0) & (b > 0) & ~np.isnan(k)
             & (n + np.maximum(last, 0) <= _BETA_NMAX))

    def compute(row, points):
        size, a_, b_ = int(row[0]), row[1], row[2]
        position = np.maximum(np.floor(points), 0).astype(np.int64)  # below the support: 0, set below
        j = np.arange(int(position.max()) + 1)
        terms = _beta_mixture_pmf_series(_betanbinom_log_pmf(j, size, a_, b_), a_, b_, np.full(j.shape, size), j, size + j, p, q)
        below, weight_below = _prefix_sums(terms)[position + 1], _prefix_sums(np.abs(terms))[position + 1]
        # the upper tail as a finite sum: X <= k exactly when n + k Bernoulli(P) trials, P ~ Beta(a, b),
        # bring at least n successes (X counts the failures before the n-th), so the sf at k is the
        # beta-binomial cdf at n - 1 with n + k trials, n terms (the negative binomial's tail as a
        # binomial one, JKK chapter 5, mixed over P)
        above, weight_above = _betabinom_lower_sums(position + size, size - 1, a_, b_, p, q)
        upper = (1.0 - above) if p + q == 0 else -above  # the cdf is 1 - sf
        result = np.where(weight_below <= weight_above, _checked(below, weight_below), _checked(upper, weight_above))
        return np.where(np.floor(points) < 0, 0.0, result)

    return _per_parameters(k, np.stack([n, a, b], axis=-1), valid, compute)


def _incomplete_exponential_moments(z, order):
    """I_m(z) = int_0^1 t^m e^(z t) dt for m = 0..order (an array (order + 1, *z.shape)): the power series
    sum_k z^k / (k! (m + k + 1)) where |z| < 1, else I_0 = expm1(z) / z and I_m = (e^z - m I_(m-1)) / z
    (integration by parts; each step multiplies the rounding by m / |z| <= order)."""
    z = np.asarray(z, dtype=np.float64)
    small = np.abs(z) < 1
    out = np.zeros((order + 1,) + z.shape)
    zs = np.where(small, z, 0.0)
    for m in range(order + 1):
        term, total = np.ones(z.shape), np.zeros(z.shape)
        for k in range(40):  # |z| < 1: 40 terms are below 1e-48
            total += term / (m + k + 1)
            term = term * zs / (k + 1)
        out[m] = total
    with np.errstate(all="ignore"):
        zl = np.where(small, 1.0, z)
        recurrence = np.expm1(zl) / zl
        out[0] = np.where(small, out[0], recurrence)
        for m in range(1, order + 1):
            recurrence = (np.exp(zl) - m * recurrence) / zl
            out[m] = np.where(small, out[m], recurrence)
    return out


# B_2k / (2k)!, k = 1..3: Euler-Maclaurin's corrections (DLMF 2.10.1), enough from _ZIPF_DIRECT on
_EULER_MACLAURIN = (1 / 12, -1 / 720, 1 / 30240)


def _euler_maclaurin(a, low, high, centre, order):
    """sum_(j=low..high) j^-a (centre - log j)^m / m!, m = 0..order (an array (order + 1, P)), for
    low >= _ZIPF_DIRECT: the Taylor coefficients in s of sum j^-(a + s) e^(s centre) by Euler-Maclaurin's
    formula (DLMF 2.10.1) in Taylor arithmetic: the integral e^(s centre) (high^u - low^u) / u, u = 1 - a - s,
    written low^u L I(u L) with L = log(high / low) and I(z) = (e^z - 1) / z = int_0^1 e^(z t) dt, whose
    derivatives are _incomplete_exponential_moments; the endpoint terms; and three corrections
    B_2k / (2k)! (f^(2k-1)(high) - f^(2k-1)(low)), f^(p)(x) = (-1)^p (a + s)_p x^-(a + s + p) e^(s centre),
    the remainder below 1e-40 of the sum at low >= 2^20. Empty ranges (low > high) give 0."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    empty = low > high
    high = np.maximum(high, low)
    m = np.arange(order + 1)[:, None]
    factorials = np.array([math.factorial(i) for i in range(order + 1)], dtype=np.float64)[:, None]

    def derivative(x, p):
        """The p-th derivative in x of x^-(a + s) e^(s centre) at x, as a series in s (order + 1, 1, P)."""
        log_x = np.log(x)
        base = np.exp(-(a + p) * log_x) * (centre - log_x) ** m / factorials
        rising = np.zeros((order + 1, 1, 1))  # (-1)^p (a + s)(a + s + 1)...(a + s + p - 1), a polynomial in s
        rising[0, 0, 0] = 1.0
        for i in range(p):
            factor = np.zeros((order + 1, 1, 1))
            factor[0, 0, 0] = -(a + i)
            if order:
                factor[1, 0, 0] = -1.0
            rising = taylor.mul(rising, factor)
        return taylor.mul(base[:, None, :], rising)

    span = np.log(high) - np.log(low)
    moments = _incomplete_exponential_moments((1.0 - a) * span, order)
    shrink = moments * (-span) ** m / factorials  # I(u0 L - s L) in s
    log_low = np.log(low)
    start = np.exp((1.0 - a) * log_low) * (centre - log_low) ** m / factorials  # low^u e^(s centre)
    total = span * taylor.mul(start[:, None, :], shrink[:, None, :])
    total += (derivative(low, 0) + derivative(high, 0)) / 2
    for k, weight in enumerate(_EULER_MACLAURIN, start=1):
        total += weight * (derivative(high, 2 * k - 1) - derivative(low, 2 * k - 1))
    return np.where(empty, 0.0, total[:, 0, :])


def _zipf_direct(a, n, centre, order, positions):
    """sum_(j<=n) j^-a (centre - log j)^m / m! summed directly in blocks of _BLOCK (numpy's pairwise sum
    inside a block, math.fsum across blocks): the totals (order + 1,), and at each position k <= n the
    lower (j <= k) and upper (k < j <= n) sums (arrays (order + 1, K)), each summed directly."""
    m = np.arange(order + 1)[:, None]
    factorials = np.array([math.factorial(i) for i in range(order + 1)], dtype=np.float64)[:, None]
    totals, which = [], (positions - 1) // _BLOCK
    lower = np.zeros((order + 1, positions.size))
    upper = np.zeros((order + 1, positions.size))
    for index, start in enumerate(range(1, n + 1, _BLOCK)):
        log_j = np.log(np.arange(start, min(start + _BLOCK, n + 1), dtype=np.float64))
        terms = np.exp(-a * log_j) * (centre - log_j) ** m / factorials
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
    return np.array([math.fsum(totals[:, i]) for i in range(order + 1)]), lower, upper


def _zipf_sums(a, n, order, positions):
    """Centred harmonic sums for one (a, n): mu = sum j^-a log j / H(n, a), the totals
    B_m = sum_(j<=n) j^-a (mu - log j)^m / m! (m = 0..order), and at each position k the lower sums
    (j <= k) and upper sums (j > k) of the same terms (arrays (order + 1, K)): directly up to
    _ZIPF_DIRECT, by Euler-Maclaurin beyond, each range summed as itself (never a difference of totals)."""
    direct = min(n, _ZIPF_DIRECT)
    uncentred, _, _ = _zipf_direct(a, direct, 0.0, 1, np.zeros(0, dtype=np.int64))
    if n > direct:  # with centre 0 the coefficients are sum j^-a and -sum j^-a log j
        uncentred = uncentred + _euler_maclaurin(a, [direct + 1.0], [float(n)], 0.0, 1)[:, 0]
    mu = -uncentred[1] / uncentred[0]
    near = positions <= direct
    whole, lower, upper = np.zeros(order + 1), np.zeros((order + 1, positions.size)), np.zeros((order + 1, positions.size))
    whole_direct, lower[:, near], upper[:, near] = _zipf_direct(a, direct, mu, order, positions[near])
    whole = whole_direct
    if n > direct:
        tail = _euler_maclaurin(a, [direct + 1.0], [float(n)], mu, order)[:, 0]
        whole = whole_direct + tail
        upper[:, near] += tail[:, None]
        far = positions[~near].astype(np.float64)
        lower[:, ~near] = whole_direct[:, None] + _euler_maclaurin(a, np.full(far.shape, direct + 1.0), far, mu, order)
        upper[:, ~near] = _euler_maclaurin(a, far + 1, np.full(far.shape, float(n)), mu, order)
    return mu, whole, lower, upper


def _series(rows):
    """Coefficients (order + 1, K) as univariate Taylor series (order + 1, 1, K) for taylor.div."""
    return rows[:, None, :]


def _zipfian(k, a, n, r, cumulative):
    k, a, n = _as_float_arrays(k, a, n)
    if r < 0:
        return np.zeros(k.shape)
    valid = (a >= 0) & (n >= 1) & (n == np.floor(n)) & (n <= 2.0**53) & ~np.isnan(k)
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
