"""Host kernels for the degrees-of-freedom derivatives of the non-central chi-square, F and t CDFs,
checked against mpmath.

References: mpmath.diff (dps 30) of the Poisson mixtures that the specs' references sum (chndtr: incomplete
gamma functions; ncfdtr: incomplete beta functions; nctdtr: Lenth's AS 243 series), with enough terms for
the larger non-centralities used here. Error measure: |got - ref| <= rtol * |ref|, rtol = 1e-10 (first
order), 1e-8 (second order). Points: the specs' domains and special points, plus small x / f, large x / f
and large non-centralities (the sum starts below the Poisson mode there).
"""
import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import noncentral as K

mp.mp.dps = 30
RTOL = {1: 1e-10, 2: 1e-8}


def _chn(x, df, nc):
    return mp.fsum(mp.exp(-nc / 2) * (nc / 2) ** j / mp.factorial(j)
                   * mp.gammainc(df / 2 + j, 0, x / 2, regularized=True) for j in range(int(nc) + 80))


def _ncf(dfn, dfd, nc, f):
    y = dfn * f / (dfn * f + dfd)
    return mp.fsum(mp.exp(-nc / 2) * (nc / 2) ** j / mp.factorial(j)
                   * mp.betainc(dfn / 2 + j, dfd / 2, 0, y, regularized=True) for j in range(int(nc) + 80))


def _nct(df, nc, t):
    def G(u, m):
        x = u ** 2 / (u ** 2 + df)
        return mp.ncdf(-m) + mp.fsum(
            mp.exp(-m ** 2 / 2) * (m ** 2 / 2) ** j
            * (mp.betainc(j + 0.5, df / 2, 0, x, regularized=True) / mp.factorial(j)
               + m / mp.sqrt(2) * mp.betainc(j + 1, df / 2, 0, x, regularized=True) / mp.gamma(j + 1.5))
            for j in range(int(m ** 2) + 50)) / 2
    return G(t, nc) if t >= 0 else 1 - G(-t, -nc)


def _ref(fun, point, orders):
    point = tuple(mp.mpf(v) for v in point)
    return float(mp.diff(fun, point, orders))


def _check(got, ref, order):
    err = abs(got - ref)
    assert err <= RTOL[order] * abs(ref), (got, ref, err / max(abs(ref), 1e-300))


# (x, df, nc): spec points, small x, large x (P ~ 1), large nc
CHN_PTS = [(4.0, 1.0, 5.0), (3.0, 5.0, 0.0), (0.1, 0.5, 20.0), (30.0, 0.5, 0.1), (30.0, 15.0, 20.0),
           (180.0, 4.0, 150.0)]
# (dfn, dfd, nc, f)
NCF_PTS = [(3.5, 4.2, 0.0, 0.9), (2.0, 7.0, 4.5, 0.01), (12.0, 1.5, 2.0, 30.0), (0.5, 20.0, 10.0, 5.0),
           pytest.param((5.0, 8.0, 60.0, 6.0), marks=pytest.mark.slow)]
# (df, nc, t)
NCT_PTS = [(3.5, 1.2, 0.5), (3.5, 1.2, 0.0), (0.7, -1.5, 0.0005), (5.0, 1.0, 25.0), (2.5, -0.5, -12.0), (10.0, 2.0, -1.0),
           pytest.param((6.0, 2.5, 5.0), marks=pytest.mark.slow)]  # mpmath's mixture: about 10 s


@pytest.mark.parametrize("point", CHN_PTS)
def test_chndtr_accuracy(point):
    x, df, nc = point
    for kern, order in ((K.chndtr_ddf, 1), (K.chndtr_ddf2, 2)):
        ref = _ref(lambda d: _chn(mp.mpf(x), d, mp.mpf(nc)), (df,), (order,))
        _check(float(kern(x, df, nc)), ref, order)


NCF_KERNELS = {(1, 0): K.ncfdtr_ddfn, (0, 1): K.ncfdtr_ddfd, (2, 0): K.ncfdtr_ddfn2,
               (1, 1): K.ncfdtr_ddfnddfd, (0, 2): K.ncfdtr_ddfd2}


@pytest.mark.parametrize("point", NCF_PTS)
def test_ncfdtr_accuracy(point):
    dfn, dfd, nc, f = point
    for orders, kern in NCF_KERNELS.items():
        ref = _ref(lambda a, b: _ncf(a, b, mp.mpf(nc), mp.mpf(f)), (dfn, dfd), orders)
        _check(float(kern(dfn, dfd, nc, f)), ref, sum(orders))


NCT_KERNELS = {(1, 0, 0): K.nctdtr_ddf, (2, 0, 0): K.nctdtr_ddf2, (1, 1, 0): K.nctdtr_ddfdnc,
               (1, 0, 1): K.nctdtr_ddfdt}


@pytest.mark.parametrize("point", NCT_PTS)
def test_nctdtr_accuracy(point):
    for orders, kern in NCT_KERNELS.items():
        ref = _ref(_nct, point, orders)
        _check(float(kern(*point)), ref, sum(orders))


# ------------------------------------------------------------------------------- shape, dtype, edges
ALL = [(K.chndtr_ddf, (4.0, 1.5, 5.0)), (K.chndtr_ddf2, (4.0, 1.5, 5.0)),
       (K.ncfdtr_ddfn, (3.5, 4.2, 2.0, 0.9)), (K.ncfdtr_ddfd, (3.5, 4.2, 2.0, 0.9)),
       (K.ncfdtr_ddfn2, (3.5, 4.2, 2.0, 0.9)), (K.ncfdtr_ddfnddfd, (3.5, 4.2, 2.0, 0.9)),
       (K.ncfdtr_ddfd2, (3.5, 4.2, 2.0, 0.9)),
       (K.nctdtr_ddf, (3.5, 1.2, -0.5)), (K.nctdtr_ddf2, (3.5, 1.2, -0.5)),
       (K.nctdtr_ddfdnc, (3.5, 1.2, -0.5)), (K.nctdtr_ddfdt, (3.5, 1.2, -0.5))]


@pytest.mark.parametrize("kern,point", ALL, ids=[k.__name__ for k, _ in ALL])
def test_float32_inputs_and_broadcasting(kern, point):
    """float32 inputs are computed in float64 (the kernel's result is float64, exactly the value at the
    float32-rounded point), and arguments broadcast."""
    p32 = [np.float32(v) for v in point]
    got = kern(*p32)
    assert got.dtype == np.float64
    assert got == kern(*[np.float64(v) for v in p32])
    assert abs(got - kern(*point)) <= 1e-5 * abs(kern(*point))
    first = np.array([point[0], point[0] * 1.5, point[0] * 2.0])
    vec = kern(first[:, None], *point[1:])
    assert vec.shape == (3, 1)
    for i, v in enumerate(first):
        assert vec[i, 0] == kern(v, *point[1:])


def test_edges_and_domain():
    # CDF 0 at x = 0 and f = 0, Phi(-nc) at t = 0, 1 at infinity: the derivatives are 0
    assert K.chndtr_ddf(0.0, 2.0, 3.0) == 0 and K.chndtr_ddf2(np.inf, 2.0, 3.0) == 0
    assert K.ncfdtr_ddfn(2.0, 3.0, 1.0, 0.0) == 0 and K.ncfdtr_ddfd2(2.0, 3.0, 1.0, np.inf) == 0
    assert K.nctdtr_ddf(3.0, 1.0, 0.0) == 0 and K.nctdtr_ddf2(3.0, 1.0, 0.0) == 0 and K.nctdtr_ddfdnc(3.0, 1.0, -np.inf) == 0
    # outside the domain: NaN, never an exception
    for bad in [(-1.0, 2.0, 3.0), (1.0, 0.0, 3.0), (1.0, 2.0, -1.0), (np.nan, 2.0, 3.0)]:
        assert np.isnan(K.chndtr_ddf(*bad))
    for bad in [(0.0, 3.0, 1.0, 1.0), (2.0, -3.0, 1.0, 1.0), (2.0, 3.0, -1.0, 1.0), (2.0, 3.0, 1.0, -1.0)]:
        assert np.isnan(K.ncfdtr_ddfnddfd(*bad))
    for bad in [(0.0, 1.0, 1.0), (2.0, np.nan, 1.0), (2.0, 1.0, np.nan)]:
        assert np.isnan(K.nctdtr_ddfdt(*bad))


def test_nc_zero_and_continuity():
    # nc = 0 is the central distribution: chdtr's and fdtr's parameter derivatives
    from jaxsci._core.kernels import incomplete as I
    x, df = 3.0, 5.0
    assert abs(K.chndtr_ddf(x, df, 0.0) - 0.5 * I.gammainc_da(df / 2, x / 2)) <= 1e-15
    # small and zero nc join smoothly
    a, b = K.nctdtr_ddfdnc(3.0, 0.0, 1.0), K.nctdtr_ddfdnc(3.0, 1e-9, 1.0)
    assert abs(a - b) <= 1e-8 * abs(a)


def test_huge_nc_terminates():
    """Very large non-centralities (the sum starts near the Poisson mode, 20 standard deviations below)
    stay finite and fast; beyond the 4000-term cap the result is NaN, not a hang."""
    got = K.chndtr_ddf(np.array([2e3, 2.1e3]), 3.0, 2e3)
    assert np.all(np.isfinite(got)) and np.all(got < 0)
    got = K.ncfdtr_ddfn(4.0, 30.0, 1e3, np.array([100.0, 200.0]))
    assert np.all(np.isfinite(got))


def test_chndtr_deep_upper_tail():
    """Where chndtr is 1 - 5e-39 the derivative keeps its relative accuracy: each term is computed from
    the upper incomplete gamma function Q (the reference sums -1/2 dQ/da directly, with 50 digits)."""
    x, df, nc = 200.0, 2.0, 1.0
    with mp.workdps(50):
        ref = mp.fsum(mp.exp(-mp.mpf(nc) / 2) * (mp.mpf(nc) / 2) ** j / mp.factorial(j) * -0.5
                      * mp.diff(lambda a: mp.gammainc(a, mp.mpf(x) / 2, mp.inf, regularized=True), mp.mpf(df) / 2 + j)
                      for j in range(100))
    _check(float(K.chndtr_ddf(x, df, nc)), float(ref), 1)
