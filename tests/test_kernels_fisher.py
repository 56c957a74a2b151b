"""The odds derivatives of Fisher's noncentral hypergeometric pmf and cdf (templates/runtime/kernels/fisher.py:
the finite sums in Taylor arithmetic, centred on the mode) against mpmath, at hard points.

Reference: mpmath.diff (dps 60 + 10 r) of the exact sums t_j = C(n, j) C(M - n, N - j) odds^j (JKK 6.11),
the cdf as the sum up to k over the total, or where that exceeds 1/2 minus the sum above k (its derivatives
are those of 1 - sf), so that mpmath's differences never meet 1 - tiny. Error measure:
|got - ref| <= 1e-13 |ref| (measured at most 2.5e-15 here; the kernel takes no differences of large sums).
"""
import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import fisher as K


def _pmf_or_cdf(terms, at, cumulative):
    """terms[at] / sum(terms), or the sum up to ``at`` over the total where that is at most 1/2, else minus
    the sum beyond it over the total (1 - sf less the constant 1, which no derivative of order >= 1 sees)."""
    total = mp.fsum(terms)
    if not cumulative:
        return terms[at] / total
    below = mp.fsum(terms[: at + 1]) / total
    return below if below <= 0.5 else -mp.fsum(terms[at + 1:]) / total


def _reference(k, M, n, N, odds, r, cumulative):
    lower, upper = max(0, N - (M - n)), min(n, N)
    weights = [mp.binomial(n, j) * mp.binomial(M - n, N - j) for j in range(lower, upper + 1)]

    def value(o):
        return _pmf_or_cdf([w * o ** (lower + i) for i, w in enumerate(weights)], k - lower, cumulative)

    with mp.workdps(60 + 10 * r):
        return float(mp.diff(value, mp.mpf(odds), r))


# (k, M, n, N, odds): the middle and both support ends, odds 1e-6 and 1e6 (the mass at one end, the other
# end's derivatives of order 1e-190), a support starting above 0 (N > M - n), the cdf's tails where it (its
# complement) is about 1e-15 (k = 90 and 203 at M = 1000), and the upper half (minus the upper sum)
POINTS = [(6, 30, 15, 12, 0.4), (0, 30, 15, 12, 2.0), (12, 30, 15, 12, 2.0), (10, 20, 15, 14, 3.0),
          (0, 200, 60, 90, 1e-6), (2, 200, 60, 90, 1e-6), (59, 200, 60, 90, 1e6), (60, 200, 60, 90, 1e6),
          (30, 200, 60, 90, 1e6), (90, 1000, 400, 300, 1.7), (203, 1000, 400, 300, 1.7), (150, 1000, 400, 300, 1.7)]


@pytest.mark.parametrize("cumulative", [False, True], ids=["pmf", "cdf"])
@pytest.mark.parametrize("r", [1, 2, 3])
def test_odds_derivatives_match_mpmath(r, cumulative):
    function = K.nchypergeom_fisher_cdf_dodds if cumulative else K.nchypergeom_fisher_dodds
    for point in POINTS:
        k, M, n, N, odds = point
        if cumulative and k >= min(n, N):
            continue  # the cdf is 1 there (below)
        got = function(*point, r)
        want = _reference(*point, r, cumulative)
        assert want != 0 and abs(got - want) <= 1e-13 * abs(want), (point, r, got, want)


def test_one_call_for_many_parameter_sets_equals_one_call_each():
    """The kernel sums once per distinct parameter set and hands each point its own."""
    k = np.array([3.0, 5.0, 3.0, 4.0, 2.0])
    M, n, N, odds = 30.0, np.array([15.0, 12.0, 15.0, 12.0, 15.0]), 12.0, np.array([2.0, 0.5, 2.0, 0.5, 0.7])
    for function in (K.nchypergeom_fisher_dodds, K.nchypergeom_fisher_cdf_dodds):
        together = function(k, M, n, N, odds, 2)
        alone = [function(k[i], M, n[i], N, odds[i], 2) for i in range(k.size)]
        assert np.array_equal(together, np.array(alone, dtype=np.float64)), function


def test_one_point_support_outside_invalid_parameters_and_the_cap():
    """A support of one point (n = M: every draw is of type I) has a constant pmf 1 and cdf: derivatives 0,
    as outside the support, at a non-integer point of the pmf and from the cdf's upper end on; NaN for SciPy's
    invalid parameters, a NaN point, M above 2**53, and more than 2**22 terms above underflow (the cap on the sums:
    a standard deviation of 2.5e5 at M = 1e12)."""
    pmf, cdf = K.nchypergeom_fisher_dodds, K.nchypergeom_fisher_cdf_dodds
    assert pmf(4, 10, 10, 4, 2.0, 0) == 1 and pmf(4, 10, 10, 4, 2.0, 1) == 0 and pmf(4, 10, 10, 4, 2.0, 2) == 0
    assert pmf(0, 10, 0, 4, 3.0, 0) == 1 and cdf(0, 10, 0, 4, 3.0, 1) == 0
    assert np.all(pmf(np.array([-1.0, 13.0, 2.5]), 30, 15, 12, 2.0) == 0)
    assert np.all(cdf(np.array([-1.0, 12.0, 12.5, 40.0]), 30, 15, 12, 2.0) == 0)
    assert pmf(0, 20, 15, 14, 3.0) == 0  # below the support's lower end 9
    assert np.array_equal(cdf(np.array([8.0, 14.0, 12.7]), 20, 15, 14, 3.0, 0), [0.0, 1.0, cdf(12, 20, 15, 14, 3.0, 0)])
    invalid = [(3, 10, 4.5, 3, 1.0), (3, 10, 4, 11, 1.0), (3, 10, 4, 3, 0.0), (3, 10, 4, 3, np.inf),
               (np.nan, 10, 4, 3, 1.0), (5, 2.0**54, 4, 3, 1.0), (2.5 * 10**11, 10**12, 5 * 10**11, 5 * 10**11, 1.0)]
    for args in invalid:
        assert np.isnan(pmf(*args)) and np.isnan(cdf(*args)), args


def _windowed_reference(k, M, n, N, odds, r, cumulative, first, last):
    """mpmath.diff of the sums over first..last only (the terms beyond are below 1e-400 of the largest), the
    terms t_j / t_first by the exact neighbour ratios at 50 + 10 r digits."""
    def value(o):
        terms = [mp.mpf(1)]
        for j in range(first, last):
            terms.append(terms[-1] * mp.mpf(n - j) * (N - j) * o / ((j + 1) * mp.mpf(M - n - N + j + 1)))
        return _pmf_or_cdf(terms, k - first, cumulative)

    with mp.workdps(50 + 10 * r):
        return float(mp.diff(value, mp.mpf(odds), r))


@pytest.mark.slow
@pytest.mark.parametrize("cumulative", [False, True], ids=["pmf", "cdf"])
def test_a_population_of_2e9_matches_mpmath(cumulative):
    """M = 2e9 (SciPy's BiasedUrn takes M below 2**31), n = 1e5, N = 1e9, odds 0.3: the mode 23078, standard
    deviation 133; k = 22026 and 24140 are the tails where the cdf and its complement are about 1e-15. The
    kernel sums only the terms above underflow (about 77 standard deviations); the reference sums the mode
    +- 10620 (80 standard deviations each way). Measured: at most 9e-15 relative at orders 1-3 (about 15 s of mpmath)."""
    function = K.nchypergeom_fisher_cdf_dodds if cumulative else K.nchypergeom_fisher_dodds
    M, n, N, odds = 2 * 10**9, 10**5, 10**9, 0.3
    for k in (22026, 24140):
        for r in (1, 2, 3):
            want = _windowed_reference(k, M, n, N, odds, r, cumulative, 23078 - 10620, 23078 + 10620)
            got = function(k, M, n, N, odds, r)
            assert abs(got - want) <= 1e-13 * abs(want), (k, r, got, want)


def _log_reference(k, M, n, N, odds, r, method):
    """mpmath.diff of log pmf, log cdf or log sf, the latter two as log(own sum / total) where that is at most
    1/2, else log1p(-other sum / total), so that no difference meets 1 - tiny."""
    lower, upper = max(0, N - (M - n)), min(n, N)
    weights = [mp.binomial(n, j) * mp.binomial(M - n, N - j) for j in range(lower, upper + 1)]

    def value(o):
        terms = [w * o ** (lower + i) for i, w in enumerate(weights)]
        total = mp.fsum(terms)
        if method == "logpmf":
            return mp.log(terms[k - lower] / total)
        below, above = mp.fsum(terms[: k - lower + 1]) / total, mp.fsum(terms[k - lower + 1:]) / total
        own, other = (below, above) if method == "logcdf" else (above, below)
        return mp.log(own) if own <= other else mp.log1p(-other)

    with mp.workdps(60 + 10 * r):
        return float(mp.diff(value, mp.mpf(odds), r))


# measured (these POINTS and more): at most 8e-14 at orders 1 and 2; at order 3 2e-12 in the far tails
# (1e-15), where the log of a tail sum forms its cumulants from moments about the distant mode
LOG_RTOL = {1: 1e-13, 2: 1e-13, 3: 1e-11}


@pytest.mark.parametrize("method", ["logpmf", "logcdf", "logsf"])
def test_log_odds_derivatives_match_mpmath(method):
    function = getattr(K, f"nchypergeom_fisher_{method}_dodds")
    for point in POINTS:
        k, M, n, N, odds = point
        if method != "logpmf" and k >= min(n, N):
            continue  # log sf is -inf there, log cdf 0: constant
        for r in (1, 2, 3):
            want = _log_reference(*point, r, method)
            if want == 0:  # below the doubles' range (the cdf's complement at odds 1e-6 is about 1e-200)
                continue
            got = function(*point, r)
            assert abs(got - want) <= LOG_RTOL[r] * abs(want), (method, point, r, got, want)


def test_logsf_derivative_in_the_upper_tail():
    """jaxsci.stats.nchypergeom_fisher.logsf's odds derivatives come from the logsf kernel, not from SciPy's
    sf (1 - cdf): at sf 1e-12 (k = 195) and 1e-15 (k = 203) the chain rule through it was 6e-4 off and inf."""
    import jax
    import jax.numpy as jnp

    import jaxsci.stats

    logsf = jaxsci.stats.nchypergeom_fisher.logsf
    for k in (195, 203):
        first = jax.grad(lambda o: logsf(float(k), 1000.0, 400.0, 300.0, o))(jnp.float64(1.7))
        second = jax.grad(jax.grad(lambda o: logsf(float(k), 1000.0, 400.0, 300.0, o)))(jnp.float64(1.7))
        for r, got in ((1, first), (2, second)):
            want = _log_reference(k, 1000, 400, 300, 1.7, r, "logsf")
            assert abs(got - want) <= 1e-13 * abs(want), (k, r, got, want)


def test_log_kernels_outside_the_support_below_underflow_and_invalid():
    """The logarithms outside the support are constants (log 0 = -inf, log 1 = 0: derivatives 0); log pmf's
    derivatives hold beyond the terms' underflow ((k - c) log(1 + e) - log S needs no pmf value: at k = 59,
    odds 1e-6, the pmf is e^-828 and d log pmf / d odds = 59 / odds - E[X] / odds); log sf where the sf itself
    is below the doubles' range (e^-750 and less) is NaN, never 0; invalid parameters NaN."""
    logpmf, logcdf, logsf = K.nchypergeom_fisher_logpmf_dodds, K.nchypergeom_fisher_logcdf_dodds, K.nchypergeom_fisher_logsf_dodds
    k = np.array([-1.0, 59.0, 60.0, 61.0])
    assert np.array_equal(logpmf(k, 200, 60, 90, 1e-6, 0)[[0, 3]], [-np.inf, -np.inf])
    assert np.array_equal(logpmf(k, 200, 60, 90, 1e-6, 1)[[0, 3]], [0.0, 0.0])
    assert abs(logpmf(59, 200, 60, 90, 1e-6, 1) - _log_reference(59, 200, 60, 90, 1e-6, 1, "logpmf")) <= 1e-14 * 6e7
    assert abs(logpmf(59, 200, 60, 90, 1e-6, 0) - _log_reference(59, 200, 60, 90, 1e-6, 0, "logpmf")) <= 1e-13 * 830
    assert np.array_equal(logsf(k, 200, 60, 90, 1e-6, 0)[[0, 2, 3]], [0.0, -np.inf, -np.inf])
    assert np.isnan(logsf(55, 200, 60, 90, 1e-6, 1)) and np.isnan(logsf(59, 200, 60, 90, 1e-6, 0))
    assert np.array_equal(logcdf(k, 200, 60, 90, 1e-6, 0), [-np.inf, 0.0, 0.0, 0.0])
    assert np.array_equal(logcdf(k, 200, 60, 90, 1e-6, 2), [0.0, 0.0, 0.0, 0.0])
    for function in (logpmf, logcdf, logsf):
        assert np.isnan(function(3, 10, 4.5, 3, 1.0)) and np.isnan(function(3, 10, 4, 3, -1.0)), function
