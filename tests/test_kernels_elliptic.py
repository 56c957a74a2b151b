"""Host kernels: the Jacobi epsilon term G(u, m) of ellipj's m-derivatives and its m-derivative vs mpmath."""

import mpmath
import numpy as np

mpmath.mp.dps = 40

from jaxsci._core.kernels import elliptic as E


def _g(u, m):
    """(E(am(u|m) | m) - (1 - m) u) / m at 40 digits."""
    u, m = mpmath.mpf(u), mpmath.mpf(m)
    k = mpmath.ellipk(m)
    ph = mpmath.atan2(mpmath.ellipfun("sn", u, m=m), mpmath.ellipfun("cn", u, m=m)) + 2 * mpmath.pi * mpmath.floor((u + 2 * k) / (4 * k))
    return (mpmath.ellipe(ph, m) - (1 - m) * u) / m


PTS = [(0.3, 0.5), (-2.5, 0.1), (10.0, 0.5), (-30.0, 0.9), (4.0, 0.99), (1.7, 1e-3)]


def test_g_and_dm_against_mpmath():
    u = np.array([p[0] for p in PTS])
    m = np.array([p[1] for p in PTS])
    g, dm = E.ellipj_g(u, m), E.ellipj_g_dm(u, m)
    for (x, y), a, b in zip(PTS, g, dm):
        assert abs(a - _g(x, y)) <= 1e-13 * abs(_g(x, y)), (x, y)
        ref = mpmath.diff(lambda t: _g(x, t), y)
        assert abs(b - ref) <= 1e-9 * abs(ref), (x, y)


def test_limits_at_m_zero():
    u = np.array([-3.0, 0.3, 1.0, 7.5])
    s, c = np.sin(u), np.cos(u)
    np.testing.assert_allclose(E.ellipj_g(u, 0.0), (u + s * c) / 2, rtol=1e-14)
    # continuity of G1 with the quotient just above m = 0
    np.testing.assert_allclose(E.ellipj_g_dm(u, 0.0), E.ellipj_g_dm(u, 1e-5), rtol=1e-4)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = E.ellipj_g_dm(np.array([1.0, 1.0, 1.0, np.nan, np.inf]), np.array([-0.1, 1.0, np.nan, 0.5, 0.5]))
    assert np.isnan(out).all()
    assert np.isnan(E.ellipj_g(1.0, 1.0))
    assert E.ellipj_g(np.ones((2, 1)), np.full(3, 0.3)).shape == (2, 3)
    assert E.ellipj_g_dm(np.float32(1.0), np.float32(0.3)).dtype == np.float64
