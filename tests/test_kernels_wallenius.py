"""The odds derivatives of Wallenius' noncentral hypergeometric pmf and cdf (templates/runtime/kernels/
wallenius.py: the draw-by-draw recursion in Taylor arithmetic) against mpmath.

Reference: mpmath.diff (dps 30) of Fog's integral as a finite sum of beta functions (specs/stats/
nchypergeom_wallenius.yaml's reference), exact. Error measure: |got - ref| <= 1e-12 |ref|; the recursion has
no differences or quadrature, so the derivatives keep the probabilities' relative accuracy, the upper tail of
the cdf included (its derivative is minus the upper sum's there, where the lower sum's terms cancel).
"""
import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import wallenius as K


def _pmf(k, M, n, N, odds):
    D = odds * (n - k) + (M - n) - (N - k)
    with mp.workdps(mp.mp.dps + min(k, N - k) + 20):
        if k <= N - k:
            total = D * mp.fsum((-1) ** i * mp.binomial(k, i) * mp.beta(D + i * odds, N - k + 1) for i in range(k + 1))
        else:
            total = D / odds * mp.fsum((-1) ** j * mp.binomial(N - k, j) * mp.beta((D + j) / odds, k + 1)
                                       for j in range(N - k + 1))
        return mp.binomial(n, k) * mp.binomial(M - n, N - k) * total


def _reference(k, M, n, N, odds, r, cumulative):
    with mp.workdps(30):
        lower = max(0, N - (M - n))
        if cumulative:
            return float(mp.diff(lambda o: mp.fsum(_pmf(j, M, n, N, o) for j in range(lower, k + 1)), mp.mpf(odds), r))
        return float(mp.diff(lambda o: _pmf(k, M, n, N, o), mp.mpf(odds), r))


# (k, M, n, N, odds): the lower tail, the middle, the upper tail (cdf near 1), odds below and above 1, and a
# support starting above 0 (N > M - n)
POINTS = [(1, 30, 15, 12, 2.0), (6, 30, 15, 12, 0.4), (11, 30, 15, 12, 2.0), (12, 20, 15, 14, 3.0), (9, 20, 15, 14, 0.25)]


@pytest.mark.parametrize("cumulative", [False, True], ids=["pmf", "cdf"])
@pytest.mark.parametrize("r", [1, 2, 3])
def test_odds_derivatives_match_mpmath(r, cumulative):
    function = K.nchypergeom_wallenius_cdf_dodds if cumulative else K.nchypergeom_wallenius_dodds
    for point in POINTS:
        got = function(*point, r)
        want = _reference(*point, r, cumulative)
        assert abs(got - want) <= 1e-12 * abs(want), (point, r, got, want)


def test_outside_the_support_invalid_parameters_and_the_cap():
    """0 outside the support (the pmf is 0 there, the cdf constant) and at the cdf's upper end (1); NaN
    for SciPy's invalid parameters, a NaN point, and N above the loop's cap."""
    pmf, cdf = K.nchypergeom_wallenius_dodds, K.nchypergeom_wallenius_cdf_dodds
    assert np.all(pmf(np.array([-1.0, 13.0, 2.5]), 30, 15, 12, 2.0) == 0)
    assert np.all(cdf(np.array([-1.0, 12.0, 12.5, 40.0]), 30, 15, 12, 2.0) == 0)
    assert pmf(0, 20, 15, 14, 3.0) == 0  # below the support's lower end 9
    invalid = [(3, 10, 4.5, 3, 1.0), (3, 10, 4, 11, 1.0), (3, 10, 4, 3, 0.0), (np.nan, 10, 4, 3, 1.0),
               (3, 10**4, 4, 6000, 1.0)]
    for args in invalid:
        assert np.isnan(pmf(*args)) and np.isnan(cdf(*args)), args
