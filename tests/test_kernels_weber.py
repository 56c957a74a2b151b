"""Host kernels: derivatives in a of pbwa's W(a, x) and W'(a, x) vs mpmath's pcfw."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import weber as W

mpmath.mp.dps = 25


@pytest.mark.parametrize("order", [1, 2])
def test_against_mpmath(order):
    pts = [(1.5, -2.0), (-3.0, 3.5)] if order == 1 else [(2.9, 3.9)]  # mpmath's pcfw is slow: few points
    f = W.pbwa_da if order == 1 else W.pbwa_da2
    w, wp = f(*np.array(pts).T)
    for (a, x), g, gp in zip(pts, w, wp):
        ref = mpmath.diff(lambda t: mpmath.pcfw(t, x), a, order)
        refp = mpmath.diff(lambda t, s: mpmath.pcfw(t, s), (a, x), (order, 1))
        assert abs(g - ref) <= 1e-9 * abs(ref), (a, x)
        assert abs(gp - refp) <= 1e-9 * abs(refp), (a, x)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        w, wp = W.pbwa_da(np.array([5.5, 1.0, np.nan]), np.array([1.0, -6.0, 1.0]))
    assert np.isnan(w).all() and np.isnan(wp).all()
    w, wp = W.pbwa_da2(np.ones((2, 1)), np.full(3, 0.5))
    assert w.shape == wp.shape == (2, 3) and w.dtype == np.float64
    # vectorised and one-by-one evaluations agree bit for bit
    a, x = np.linspace(-4, 3, 7), np.linspace(-4, 4, 7)
    one = np.array([W.pbwa_da(ai, xi)[0] for ai, xi in zip(a, x)])
    np.testing.assert_array_equal(one, W.pbwa_da(a, x)[0])
