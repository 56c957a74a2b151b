"""The parameter derivatives of the beta-binomial and beta-negative-binomial cdfs (in a and b, mixed ones
included) and of the Zipfian pmf and cdf (in a), templates/runtime/kernels/discrete_sums.py: finite sums
in Taylor arithmetic, against mpmath.

Reference: mpmath.diff (dps 40) of the pmf's finite sums (JKK 6.7.2 and 6.2.3; H(m, a) = sum j^-a), exact.
Error measure: |got - ref| <= rtol |ref|. Measured worst (1 <= order <= 3, the points below): betabinom
4e-14 (the upper tail included: there the kernel takes minus the upper sum), zipfian 4e-15 (pmf 1.5e-15),
betanbinom 3e-15, its upper tail included (minus the sf, a finite beta-binomial sum, where the lower sum
cancels). At a, b or N near 1e4 to 1e5, 3e-13 (SciPy's betaln there: 1e-11).
"""
import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import discrete_sums as K


def _betabinom_pmf(j, n, a, b):
    return mp.binomial(n, j) * mp.beta(j + a, n - j + b) / mp.beta(a, b)


def _betanbinom_pmf(j, n, a, b):
    return mp.binomial(n + j - 1, j) * mp.beta(a + n, b + j) / mp.beta(a, b)


def _cdf_reference(pmf, k, n, a, b, p, q, upper=None):
    """d^p/da^p d^q/db^q of the pmf summed over 0..k, or minus that of the sum over k + 1..upper (the
    cdf is 1 - sf: where the cdf is 1 - 1e-63, 40 digits do not resolve the lower sum's change)."""
    with mp.workdps(40):
        if upper is not None:
            return -float(mp.diff(lambda s, t: mp.fsum(pmf(j, n, s, t) for j in range(k + 1, upper + 1)),
                                  (mp.mpf(a), mp.mpf(b)), (p, q)))
        return float(mp.diff(lambda s, t: mp.fsum(pmf(j, n, s, t) for j in range(k + 1)), (mp.mpf(a), mp.mpf(b)), (p, q)))


# the third-order mixed derivative (mpmath differentiates the sums 2 x 3 ways) costs seconds: under -m slow
ORDERS = [(1, 0), (0, 1), (2, 0), (1, 1), (0, 2), pytest.param(2, 1, marks=pytest.mark.slow)]


# (k, n, a, b): the lower tail, the middle, the upper tail (cdf near 1: minus the upper sum), a heavy
# upper end (b < 1), small a and b
@pytest.mark.parametrize("p, q", ORDERS)
def test_betabinom_cdf_matches_mpmath(p, q):
    for point in [(3, 10, 2.0, 3.0), (0, 10, 0.5, 4.0), (9, 10, 2.0, 3.0), (55, 60, 20.0, 2.0), (2, 60, 0.7, 0.7)]:
        got, want = K.betabinom_cdf_dparam(*point, p, q), _cdf_reference(_betabinom_pmf, *point, p, q)
        assert abs(got - want) <= 5e-14 * abs(want), (point, p, q, got, want)


@pytest.mark.parametrize("p, q", ORDERS)
def test_betanbinom_cdf_matches_mpmath(p, q):
    """Below the median, above it, and in the upper tail (k = 100, sf 1e-7; k = 200, sf 3e-5), where the
    lower sum's terms cancel by 1e5 and more and the kernel takes minus the sf's finite sum (a beta-binomial
    cdf) instead."""
    for point in [(3, 5, 2.0, 3.0), (0, 5, 0.5, 4.0), (30, 5, 2.0, 3.0), (10, 1, 0.3, 7.5), (100, 3, 5.0, 0.5),
                  (200, 4, 3.0, 2.0)]:
        got, want = K.betanbinom_cdf_dparam(*point, p, q), _cdf_reference(_betanbinom_pmf, *point, p, q)
        assert abs(got - want) <= 1e-12 * abs(want), (point, p, q, got, want)


def test_betanbinom_far_upper_tail():
    """k = 10^5 with a heavy tail (a = 0.7: sf 3e-4) and a light one (a = 6: sf 1e-26): against mpmath's
    sf as 1 minus the pmf summed to k would be 10^5 terms per evaluation, so the reference is mpmath's
    beta-binomial cdf at n - 1 with n + k trials (the identity the kernel uses, in mpmath's beta
    functions), checked against the direct sum at k = 100 and 200 above."""
    for n, a, b in [(3, 0.7, 2.0), (2, 6.0, 0.5)]:
        k = 10**5
        for p, q in [(1, 0), (0, 1), (1, 1)]:
            got = K.betanbinom_cdf_dparam(k, n, a, b, p, q)
            with mp.workdps(40):
                want = -float(mp.diff(lambda s, t: mp.fsum(_betabinom_pmf(j, n + k, s, t) for j in range(n)),
                                      (mp.mpf(a), mp.mpf(b)), (p, q)))
            assert abs(got - want) <= 1e-13 * abs(want), (n, a, b, p, q, got, want)


def test_large_shape_parameters_keep_their_accuracy():
    """a >> b: d/da log f(0) of betanbinom at n = 1 is 1/a - 1/(a + b) = b / (a (a + b)), which the kernel
    pairs term by term ((x + i)^-m - (x + b + i)^-m by expm1 and log1p) rather than subtracting sums that
    agree to 7 digits; and the pmf itself pairs its gamma functions as rising factorials (Stirling's series'
    difference) where SciPy's betaln subtracts lgamma values (1e-11 near 1e5). betabinom at a = b = 1e4
    and at a = 1e4, b = 3e4 in its upper tail (pmf 1e-63) likewise. Measured: 6e-11 before, 3e-13 now."""
    for function, pmf, point, upper in [(K.betanbinom_cdf_dparam, _betanbinom_pmf, (0, 1, 1e4, 1e-3), None),
                                        (K.betabinom_cdf_dparam, _betabinom_pmf, (50, 100, 1e4, 1e4), None),
                                        (K.betabinom_cdf_dparam, _betabinom_pmf, (99, 100, 1e4, 3e4), 100)]:
        for p, q in [(1, 0), (2, 0), (1, 1)]:
            got, want = function(*point, p, q), _cdf_reference(pmf, *point, p, q, upper)
            assert abs(got - want) <= 2e-12 * abs(want), (point, p, q, got, want)


def test_log_pmfs_match_mpmath_at_large_arguments():
    """The log pmfs the sums start from, where SciPy's betaln loses 1e-11 (N = 1e5): within a few ulps
    of their magnitude or of 1 (the pmf's relative error: log f(0) = -3e-6 at a = 3e5) in both tails, with either pairing (a < N, a > N), and SciPy's own formula below
    N + a + b = 170 (Cephes' gamma products). In the middle of a wide distribution the log binomial
    coefficient (7e4 at N = 1e5, j = N / 2) still cancels down to the result (-11.8): 3e-11 there, as
    SciPy's logpmf (1.5e-11)."""
    for trials, a, b, points in [(100_000, 0.7, 2.0, [0, 1, 2, 99_998, 100_000]),
                                 (100_000, 2e5, 30.0, [0, 1, 99_999, 100_000]),
                                 (300, 3.0, 0.01, [0, 1, 150, 299, 300]), (60, 0.7, 0.7, [0, 2, 30, 60])]:
        got = K._betabinom_log_pmf(np.array(points), np.full(len(points), trials), a, b)
        with mp.workdps(40):
            want = [float(mp.log(_betabinom_pmf(x, trials, mp.mpf(a), mp.mpf(b)))) for x in points]
        assert np.allclose(got, want, rtol=1e-14, atol=1e-14), (trials, a, b, got, want)
    points = np.array([0, 3, 1000, 10**5])
    for n, a, b in [(3, 0.7, 2.0), (2, 3e5, 0.5), (1, 1e4, 1e-3)]:
        got = K._betanbinom_log_pmf(points, n, a, b)
        with mp.workdps(40):
            want = [float(mp.log(_betanbinom_pmf(int(x), n, mp.mpf(a), mp.mpf(b)))) for x in points]
        assert np.allclose(got, want, rtol=1e-14, atol=1e-14), (n, a, b, got, want)


def _harmonic(m, a):
    return mp.fsum(mp.mpf(j) ** -a for j in range(1, m + 1))


@pytest.mark.parametrize("r", [1, 2, 3])
@pytest.mark.parametrize("cumulative", [False, True], ids=["pmf", "cdf"])
def test_zipfian_matches_mpmath(r, cumulative):
    """The lower tail, both sides of exp(mean log) (the cdf's lower and upper sums), the last point below n,
    a = 0 (uniform) and a = 1."""
    for k, a, n in [(3, 0.0, 10), (9, 2.5, 10), (5, 0.5, 10), (150, 0.8, 200), (199, 1.2, 200), (12, 1.0, 200)]:
        with mp.workdps(40):
            if cumulative:
                want = float(mp.diff(lambda s: _harmonic(k, s) / _harmonic(n, s), mp.mpf(a), r))
            else:
                want = float(mp.diff(lambda s: mp.mpf(k) ** -s / _harmonic(n, s), mp.mpf(a), r))
        got = (K.zipfian_cdf_da if cumulative else K.zipfian_pmf_da)(k, a, n, r)
        assert abs(got - want) <= 1e-14 * abs(want), (k, a, n, r, got, want)


def test_zipfian_large_n_sums_in_blocks():
    """n = 3 * 2^20 + 5: direct blocks to 2^20, Euler-Maclaurin beyond: the sums agree with one direct sum over all j (float64,
    math.fsum), which is how the pmf's derivative -pmf (log k - mu) reads."""
    n, a, k = 3 * 2**20 + 5, 1.1, np.array([1, 2**20 + 7, 3 * 2**20])
    j = np.arange(1, n + 1, dtype=np.float64)
    power = j**-a
    mu = np.sum(power * np.log(j)) / np.sum(power)
    want = -(k**-a) / np.sum(power) * (np.log(k) - mu)
    got = K.zipfian_pmf_da(k, a, n, 1)
    assert np.allclose(got, want, rtol=1e-12, atol=0), (got, want)


def test_zipfian_euler_maclaurin_matches_mpmath():
    """n beyond 2^20: the sums' tails by Euler-Maclaurin, against mpmath's H(n, a) = zeta(a) - zeta(a, n + 1)
    (the Hurwitz-zeta identity, analytic in a), both sides of exp(mean log), a < 1 and a > 1."""
    def harmonic(m, s):
        return mp.zeta(s) - mp.zeta(s, m + 1)

    for k, a, n in [(5000, 1.1, 10**7), (10**9, 0.5, 10**12), (2, 2.5, 10**15), (7, 0.999, 10**9)]:
        for r in (1, 2):
            with mp.workdps(40):
                cdf = float(mp.diff(lambda s: harmonic(k, s) / harmonic(n, s), mp.mpf(a), r))
                pmf = float(mp.diff(lambda s: mp.mpf(k) ** -s / harmonic(n, s), mp.mpf(a), r))
            assert abs(K.zipfian_cdf_da(k, a, n, r) - cdf) <= 1e-13 * abs(cdf), (k, a, n, r)
            assert abs(K.zipfian_pmf_da(k, a, n, r) - pmf) <= 1e-13 * abs(pmf), (k, a, n, r)


def test_outside_the_support_invalid_parameters_and_the_caps():
    """0 outside the support (and at the cdf's upper end, where it is 1) and at a non-integer pmf point;
    NaN for SciPy's invalid parameters, a NaN point, betanbinom's n = 0 (SciPy's pmf is NaN there) and the
    cap on betabinom's and betanbinom's sums and n above 2^53; order 0 is the function itself."""
    bb, bnb = K.betabinom_cdf_dparam, K.betanbinom_cdf_dparam
    assert np.all(bb(np.array([-1.0, 10.0, 10.5, 40.0]), 10, 2.0, 3.0, 1, 1) == 0)
    assert np.all(bnb(np.array([-1.0, -0.5]), 4, 2.0, 3.0, 0, 1) == 0)
    for args in [(3, 10.5, 2.0, 3.0), (3, 10, 0.0, 3.0), (3, 10, 2.0, -1.0), (np.nan, 10, 2.0, 3.0), (3, 10**6 + 1, 2.0, 3.0)]:
        assert np.isnan(bb(*args)), args
    for args in [(3, 0, 2.0, 3.0), (3, 2.5, 2.0, 3.0), (3, 4, 0.0, 3.0), (np.nan, 4, 2.0, 3.0), (10**6, 4, 2.0, 3.0)]:
        assert np.isnan(bnb(*args)), args
    pmf, cdf = K.zipfian_pmf_da, K.zipfian_cdf_da
    assert np.all(pmf(np.array([0.0, 11.0, 2.5]), 1.5, 10) == 0)
    assert np.all(cdf(np.array([0.0, 0.5, 10.0, 12.0]), 1.5, 10, 2) == 0)
    for args in [(3, -0.5, 10), (3, 1.5, 0), (3, 1.5, 10.5), (np.nan, 1.5, 10), (3, 1.5, 2.0**54)]:
        assert np.isnan(pmf(*args)) and np.isnan(cdf(*args)), args
    assert np.isclose(bb(4, 10, 2.0, 3.0, 0, 0), sum(float(_betabinom_pmf(j, 10, 2, 3)) for j in range(5)), rtol=1e-14)
    assert np.isclose(cdf(4.5, 1.5, 10, 0), float(_harmonic(4, 1.5) / _harmonic(10, 1.5)), rtol=1e-14)
    assert bb(4, 10, 2.0, 3.0, -1, 0) == 0 and pmf(4, 1.5, 10, -1) == 0
