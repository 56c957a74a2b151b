"""Host kernel genhyperbolic_cdf_d: the generalized hyperbolic cdf's derivatives in p, a, b and x against mpmath
at the hard points (deep tails, |b| = a), its values against SciPy's, and its edges. The gradient suite checks
it at its spec's test domain (specs/kernels/genhyperbolic_cdf_d.yaml)."""

import mpmath
import numpy as np
import pytest
import scipy.stats

from jaxsci._core.kernels.genhyperbolic import genhyperbolic_cdf_d


def _cdf(x, p, a, b, upper):
    """The mixture E[Phi(+-(x - b V) / sqrt V)] over V ~ GIG(p, 1, a^2 - b^2), by mpmath's quad in u = log V
    (V inverse gamma where a = |b|); independent of the kernel's quadrature and of the spec reference's
    trapezoidal rule."""
    sign = -1 if upper else 1
    psi = a * a - b * b
    mode = mpmath.log((p + mpmath.sqrt(p * p + psi)) / psi) if psi > 0 else mpmath.log(-1 / (2 * p))
    norm = 2 * mpmath.besselk(p, mpmath.sqrt(psi)) / psi ** (p / 2) if psi > 0 else mpmath.gamma(-p) * 2 ** (-p)
    f = lambda u: mpmath.exp(p * u - (mpmath.exp(-u) + psi * mpmath.exp(u)) / 2) * mpmath.ncdf(sign * (x - b * mpmath.exp(u)) * mpmath.exp(-u / 2))  # noqa: E731
    return mpmath.quad(f, [mode - 40, mode - 10, mode - 3, mode, mode + 3, mode + 10, mode + 40, mode + 120]) / norm


@pytest.mark.slow  # mpmath's quad under diff: about 10 s a point; the gradient suite's stored references run by default
@pytest.mark.parametrize("x, p, a, b", [(-30.0, 1.0, 2.0, -1.0), (6.0, 0.5, 1.5, -0.5), (10.0, -1.5, 2.0, 2.0),
                                        (-1.0, -1.5, 2.0, 2.0)])
def test_tails_and_the_boundary_against_mpmath(x, p, a, b):
    """F = 3e-11 (x = -30), 1 - F = 3e-6 (x = 6, from the upper integral) and |b| = a with p < 0, where
    SciPy's own cdf returns 1: d/dp and d2/dp2 (a one-sided difference in b at |b| = a is not taken)."""
    upper = x > 0
    with mpmath.workdps(30):
        for order in (1, 2):
            ref = mpmath.diff(lambda t: _cdf(x, t, a, b, upper), p, order) * (-1 if upper else 1)
            got = genhyperbolic_cdf_d(x, p, a, b, i=order)
            assert abs(got - float(ref)) <= 1e-11 * abs(ref), (order, got, ref)
        if b != a:
            ref = mpmath.diff(lambda s, t: _cdf(x, s, a, t, upper), (p, b), (1, 1)) * (-1 if upper else 1)
            got = genhyperbolic_cdf_d(x, p, a, b, i=1, l=1)
            assert abs(got - float(ref)) <= 1e-10 * abs(ref), (got, ref)


def test_values_are_scipys_and_edges():
    x = np.array([-3.0, -0.2, 0.3, 2.5, 8.0])
    np.testing.assert_allclose(genhyperbolic_cdf_d(x, 0.5, 1.5, -0.5, i=0), scipy.stats.genhyperbolic.cdf(x, 0.5, 1.5, -0.5),
                               rtol=1e-10)
    # SciPy's _argcheck: a > 0, |b| < a (|b| <= a where p < 0); NaN input
    bad = genhyperbolic_cdf_d(0.3, np.array([0.5, 0.5, 0.5, np.nan, 0.5]), np.array([1.5, -1.0, 1.5, 1.5, 1.5]),
                              np.array([1.5, 0.0, 2.0, 0.0, np.nan]))
    assert np.isnan(bad).all()
    # the cdf is constant at x = +-inf: its derivatives are 0 there; its value 0 and 1
    assert (genhyperbolic_cdf_d(np.array([-np.inf, np.inf]), 0.5, 1.5, -0.5, i=1) == 0).all()
    np.testing.assert_array_equal(genhyperbolic_cdf_d(np.array([-np.inf, np.inf]), 0.5, 1.5, -0.5, i=0), [0.0, 1.0])
    assert genhyperbolic_cdf_d(np.zeros((2, 3)), 0.5, 1.5, -0.5).shape == (2, 3)
