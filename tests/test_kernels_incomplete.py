"""Host kernels for the parameter derivatives of gammainc and betainc, checked against mpmath.

References: mpmath.diff (extra precision, dps 30) of mpmath.gammainc / mpmath.betainc (regularised).
Error measure: |got - ref| <= rtol * |ref| + atol, rtol = 1e-10 (first order), 1e-8 (second order);
atol is 1e-12 of the neighbouring scale (for second derivatives, the size of the first derivative in the
same parameter, since the second ones cross zero inside the domains), never larger than that.
"""
import warnings

import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import incomplete as K

mp.mp.dps = 30
RTOL = {1: 1e-10, 2: 1e-8}


# ------------------------------------------------------------------------------------------ references
def _P(a, x):
    return mp.gammainc(a, 0, x, regularized=True)


def ref_gamma(a, x, n):
    a, x = mp.mpf(a), mp.mpf(x)
    return float(mp.diff(lambda t: _P(t, x), a, n))


def ref_beta(a, b, x, orders):
    a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
    return float(mp.diff(lambda s, t: mp.betainc(s, t, 0, x, regularized=True), (a, b), orders))


def _check(got, ref, order, scale=0.0):
    atol = 1e-12 * abs(scale)
    err = abs(got - ref)
    assert err <= RTOL[order] * abs(ref) + atol, (got, ref, err / max(abs(ref), 1e-300))


# --------------------------------------------------------------------------------------------- points
_rng = np.random.default_rng(20240611)

# gammainc / gammaincc spec: a in [0.5, 12], x in [0.01, 20], points (2,0), (3,0), (1,1), (300,290)
GAMMA_PTS = [tuple(p) for p in np.column_stack([_rng.uniform(0.5, 12, 18), _rng.uniform(0.01, 20, 18)])]
GAMMA_PTS += [(1.0, 1.0), (300.0, 290.0), (0.5, 0.01), (12.0, 0.01), (0.5, 20.0), (12.0, 20.0),
              # regime edges: series/CF switch at x = a + 1 + 2.5 sqrt(a+1), small a, large a near x ~ a
              (0.5, 4.06), (0.5, 4.07), (5.0, 12.1), (5.0, 12.2), (0.05, 0.3), (0.05, 3.0), (2.0, 50.0),
              (50.0, 10.0), (300.0, 305.0), (300.0, 330.0), (1000.0, 1000.0), (1000.0, 1060.0), (3.0, 1e-8)]


def _beta_pts():
    pts = [tuple(p) for p in np.column_stack([_rng.uniform(0.5, 10, 14), _rng.uniform(0.5, 10, 14),
                                              _rng.uniform(0.01, 0.99, 14)])]
    pts += [(1.0, 1.0, 0.5), (200.0, 300.0, 0.4), (0.5, 0.5, 0.01), (0.5, 0.5, 0.99)]
    # stdtr: I_{df/(df+t^2)}(df/2, 1/2), df in [0.5, 30], t in [-6, 6]; points df = 3.5, t = -20; df = 0.3
    for df, t in [(0.5, 6.0), (30.0, 6.0), (3.5, 20.0), (0.3, 2.5), (30.0, 0.5)]:
        pts.append((df / 2, 0.5, df / (df + t * t)))
    # fdtr: I_{dfn x/(dfn x + dfd)}(dfn/2, dfd/2); point dfn = 300, dfd = 400, x = 1.1
    for dfn, dfd, x in [(300.0, 400.0, 1.1), (0.5, 30.0, 10.0), (20.0, 0.5, 0.05)]:
        pts.append((dfn / 2, dfd / 2, dfn * x / (dfn * x + dfd)))
    # bdtrik: I_{1-p}(n-k, k+1); btdtria: a solved for, b in [0.5, 10]
    pts += [(14.0, 7.0, 0.3), (3.0, 18.0, 0.7), (40.0, 0.5, 0.9), (0.1, 10.0, 0.1)]
    # larger parameters: near the mean, tails, and very unequal
    pts += [(1000.0, 1000.0, 0.5), (1000.0, 10.0, 0.99), (0.5, 1000.0, 0.001), (0.05, 0.05, 0.5)]
    return pts


BETA_PTS = _beta_pts()
BETA_KERNELS = {(1, 0): K.betainc_da, (0, 1): K.betainc_db, (2, 0): K.betainc_da2,
                (1, 1): K.betainc_dadb, (0, 2): K.betainc_db2}


# ------------------------------------------------------------------------------------------ accuracy
def test_gammainc_da_accuracy():
    a = np.array([p[0] for p in GAMMA_PTS])
    x = np.array([p[1] for p in GAMMA_PTS])
    got = K.gammainc_da(a, x)
    for (aa, xx), g in zip(GAMMA_PTS, got):
        _check(g, ref_gamma(aa, xx, 1), 1)


def test_gammainc_da2_accuracy():
    a = np.array([p[0] for p in GAMMA_PTS])
    x = np.array([p[1] for p in GAMMA_PTS])
    got = K.gammainc_da2(a, x)
    first = K.gammainc_da(a, x)
    for (aa, xx), g, f1 in zip(GAMMA_PTS, got, first):
        _check(g, ref_gamma(aa, xx, 2), 2, scale=f1)


@pytest.mark.parametrize("orders", list(BETA_KERNELS))
def test_betainc_accuracy(orders):
    pts = BETA_PTS
    a, b, x = (np.array([p[i] for p in pts]) for i in range(3))
    got = BETA_KERNELS[orders](a, b, x)
    order = sum(orders)
    if order == 2:   # neighbouring scale: the first derivatives
        scale = np.abs(K.betainc_da(a, b, x)) + np.abs(K.betainc_db(a, b, x))
    else:
        scale = np.zeros_like(a)
    for (aa, bb, xx), g, s in zip(pts, got, scale):
        _check(g, ref_beta(aa, bb, xx, orders), order, scale=s)


def test_gammaincc_relation_and_symmetry():
    # d/da of I_x(a, b) equals -d/db of I_(1-x)(b, a): both code paths of the kernel
    a, b, x = 2.3, 4.1, 0.37
    assert np.isclose(K.betainc_da(a, b, x), -K.betainc_db(b, a, 1 - x), rtol=1e-13, atol=0)
    assert np.isclose(K.betainc_dadb(a, b, x), -K.betainc_dadb(b, a, 1 - x), rtol=1e-12, atol=0)
    # gammainc_da continuous across the series / continued-fraction switch
    a = 5.0
    xs = a + 1.0 + 2.5 * np.sqrt(a + 1.0)
    v = K.gammainc_da(a, np.array([xs * (1 - 1e-14), xs * (1 + 1e-14)]))
    assert np.isclose(v[0], v[1], rtol=1e-12, atol=0)


# ------------------------------------------------------------------------------------------ edges
def test_edges_exact_zero():
    assert K.gammainc_da(2.0, 0.0) == 0.0
    assert K.gammainc_da2(3.0, 0.0) == 0.0
    assert K.gammainc_da(2.0, np.inf) == 0.0
    assert K.gammainc_da2(2.0, np.inf) == 0.0
    for f in BETA_KERNELS.values():
        assert f(2.0, 3.0, 0.0) == 0.0
        assert f(3.0, 2.0, 1.0) == 0.0


def test_gammainc_da_at_a_zero():
    # one-sided limit: P(a, x) = 1 - a E1(x) + O(a^2)
    assert np.isclose(K.gammainc_da(0.0, 1.5), -float(mp.e1(1.5)), rtol=1e-14)
    assert np.isnan(K.gammainc_da2(0.0, 1.5))


def test_nan_and_out_of_domain():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bad_g = [(-1.0, 1.0), (1.0, -1.0), (np.nan, 1.0), (1.0, np.nan), (np.inf, 1.0), (-np.inf, 2.0)]
        for f in (K.gammainc_da, K.gammainc_da2):
            out = f(np.array([p[0] for p in bad_g]), np.array([p[1] for p in bad_g]))
            assert np.all(np.isnan(out))
        bad_b = [(0.0, 1.0, 0.5), (1.0, -1.0, 0.5), (1.0, 1.0, -0.1), (1.0, 1.0, 1.1), (np.nan, 1.0, 0.5),
                 (1.0, np.nan, 0.5), (1.0, 1.0, np.nan), (np.inf, 1.0, 0.5), (1.0, np.inf, 0.5)]
        for f in BETA_KERNELS.values():
            out = f(*(np.array([p[i] for p in bad_b]) for i in range(3)))
            assert np.all(np.isnan(out))


def test_iteration_cap_never_hangs():
    # a far beyond the supported range near x ~ a: the capped loops finish (NaN or a value), no hang
    out = K.gammainc_da(np.array([1e15, 1e15]), np.array([1e15, 1e15 + 1e7]))
    assert out.shape == (2,)
    out = K.betainc_da(np.array([1e15]), np.array([1e15]), np.array([0.5]))
    assert out.shape == (1,)


def test_shapes_dtypes():
    a = np.array([[1.5], [2.5]])
    x = np.array([0.3, 2.0, 7.0])
    out = K.gammainc_da(a, x)
    assert out.shape == (2, 3) and out.dtype == np.float64
    assert np.allclose(out[1], K.gammainc_da(2.5, x), rtol=0, atol=0)
    o0 = K.gammainc_da2(2.0, 1.0)
    assert isinstance(o0, np.ndarray) and o0.shape == () and o0.dtype == np.float64
    assert K.betainc_dadb(np.empty((0, 3)), 2.0, 0.5).shape == (0, 3)
    o32 = K.betainc_da(np.float32(2.0), np.float32(3.0), np.float32(0.25))
    assert o32.dtype == np.float64 and np.isclose(o32, K.betainc_da(2.0, 3.0, 0.25), rtol=1e-15)
    b = K.betainc_db(np.full((4, 1), 2.0), np.linspace(1, 4, 5), 0.5)
    assert b.shape == (4, 5)
    # more elements than one block (blocks of 8192), mixed regimes
    n = 20000
    rng = np.random.default_rng(1)
    a, x = rng.uniform(0.5, 12, n), rng.uniform(0.01, 20, n)
    big = K.gammainc_da(a, x)
    assert np.all(np.isfinite(big))
    assert np.array_equal(big[8190:8200], K.gammainc_da(a[8190:8200], x[8190:8200]))


# ------------------------------------------------------------------------------------------ slow sweep
@pytest.mark.slow
def test_wide_sweep_gamma():
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.uniform(0.05, 30, 60), 10 ** rng.uniform(1, 3.5, 30)])
    x = np.concatenate([rng.uniform(0.0, 60, 60), a[60:] * rng.uniform(0.8, 1.2, 30)])
    d1, d2 = K.gammainc_da(a, x), K.gammainc_da2(a, x)
    for aa, xx, g1, g2 in zip(a, x, d1, d2):
        _check(g1, ref_gamma(aa, xx, 1), 1, scale=1e-300)
        _check(g2, ref_gamma(aa, xx, 2), 2, scale=g1)


@pytest.mark.slow
@pytest.mark.parametrize("orders", list(BETA_KERNELS))
def test_wide_sweep_beta(orders):
    rng = np.random.default_rng(11)
    a = np.concatenate([10 ** rng.uniform(-1.3, 1.5, 40), 10 ** rng.uniform(1.5, 3, 15)])
    b = np.concatenate([10 ** rng.uniform(-1.3, 1.5, 40), 10 ** rng.uniform(1.5, 3, 15)])
    x = np.concatenate([rng.uniform(0, 1, 40), np.clip(a[40:] / (a[40:] + b[40:]) + rng.normal(0, 0.03, 15),
                                                       0.01, 0.99)])
    got = BETA_KERNELS[orders](a, b, x)
    scale = np.abs(K.betainc_da(a, b, x)) + np.abs(K.betainc_db(a, b, x))
    for aa, bb, xx, g, s in zip(a, b, x, got, scale):
        _check(g, ref_beta(aa, bb, xx, orders), sum(orders), scale=s if sum(orders) == 2 else 1e-300)


def test_tiny_parameters():
    # a, b -> 0: cancellations handled by psi(a+1) forms, the closed-form d_1 and the choice of side
    with mp.workdps(60):
        for aa, xx in [(1e-3, 2.0), (1e-8, 10.0), (1e-30, 0.1)]:
            A, X = mp.mpf(aa), mp.mpf(xx)
            for n, f in ((1, K.gammainc_da), (2, K.gammainc_da2)):
                r = float(mp.diff(lambda t: _P(t, X), A, n, h=A / 1e8))
                _check(f(aa, xx), r, n)
        for aa, bb, xx in [(1e-8, 3.0, 0.1), (3.0, 1e-8, 0.9), (1e-5, 30.0, 0.01), (0.5, 1e-6, 0.7),
                           (1e-3, 2.0, 0.3)]:
            A, B, X = mp.mpf(aa), mp.mpf(bb), mp.mpf(xx)
            for orders, f in BETA_KERNELS.items():
                r = float(mp.diff(lambda s, t: mp.betainc(s, t, 0, X, regularized=True), (A, B), orders,
                                  h=min(A, B) / 1e8))
                _check(f(aa, bb, xx), r, sum(orders))
