"""Host kernels: derivatives of besselpoly(a, lmb, nu) in lmb and nu vs mpmath."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import besselpoly as B

mpmath.mp.dps = 30


def _f(a, lmb, nu):
    return a**nu / (mpmath.gamma(nu + 1) * (nu + lmb + 1)) * mpmath.hyp1f2((nu + lmb + 1) / 2, nu + 1, (nu + lmb + 3) / 2, -a**2)


@pytest.mark.parametrize("fn,orders", [(B.besselpoly_dlmb, (0, 1, 0)), (B.besselpoly_dnu, (0, 0, 1)),
                                       (B.besselpoly_dlmb2, (0, 2, 0)), (B.besselpoly_dlmbdnu, (0, 1, 1)),
                                       (B.besselpoly_dnu2, (0, 0, 2))])
def test_against_mpmath(fn, orders):
    pts = [(0.05, 0.0, 0.0), (1.0, 1.0, 1.0), (2.7, 0.4, 3.3), (4.0, 3.0, 0.5), (3.1, 2.2, 4.0)]
    got = fn(*np.array(pts).T)
    for p, g in zip(pts, got):
        ref = mpmath.diff(_f, p, orders)
        assert abs(g - ref) <= 1e-10 * abs(ref), (p, g, ref)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = B.besselpoly_dnu(np.array([-1.0, 1.0, 1.0, np.nan]), np.array([1.0, 1.0, -2.0, 1.0]), np.array([1.0, -1.5, 0.5, 1.0]))
    assert np.isnan(out).all()
    assert B.besselpoly_dlmb(0.0, 1.0, 0.0) == -0.25          # -1/(lmb+1)^2: only the k = 0 term at a = 0
    assert B.besselpoly_dnu(0.0, 1.0, 0.5) == 0.0 and B.besselpoly_dnu(0.0, 1.0, 0.0) == -np.inf
    assert np.isnan(B.besselpoly_dlmb(60.0, 1.0, 1.0))        # the alternating series cancels: NaN, not noise
    assert B.besselpoly_dnu2(np.ones((2, 1)), np.ones(3), 1.0).shape == (2, 3)
