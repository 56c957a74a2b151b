"""Host kernels: the von Mises cdf's derivatives in kappa vs mpmath's Fourier series."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import vonmises as K


def _derivative(x, kappa, order):
    """d^order/dkappa^order of the cdf's Fourier series 1/2 + x/(2 pi) + sum_n I_n/I_0 sin(n x)/n / pi
    (Mardia and Jupp 3.5.37), by mpmath at 30 digits; one-sided at kappa = 0."""
    with mpmath.workdps(30):
        terms = int(30 + 15 * np.sqrt(kappa))

        def cdf(k):
            return (0.5 + mpmath.mpf(x) / (2 * mpmath.pi)
                    + mpmath.fsum(mpmath.besseli(n, k) * mpmath.sin(n * mpmath.mpf(x)) / n for n in range(1, terms))
                    / (mpmath.pi * mpmath.besseli(0, k)))

        return float(mpmath.diff(cdf, mpmath.mpf(kappa), order, direction=1 if kappa == 0 else 0))


@pytest.mark.parametrize("order, kappas", [pytest.param(order, kappas, marks=() if kappas[-1] < 10 else pytest.mark.slow)
                                           for order in (1, 2) for kappas in ((0.0, 0.7, 3.99), (0.01, 30.0, 100.0))])
def test_against_mpmath(order, kappas):
    """kappa from 0 to 100 (both sides of SciPy's switch to its normal approximation at 50; mpmath's sums
    of up to 200 Bessel terms under -m slow), x across a period and beyond it (the derivatives are
    periodic); relative 1e-11, absolute 1e-15 where the derivative is below the series' terms (module
    docstring)."""
    f = {1: K.vonmises_cdf_dkappa, 2: K.vonmises_cdf_dkappa2}[order]
    xs = (-3.0, 0.4, 7.5) if kappas[-1] < 10 else (-3.0, -0.7, 0.05, 0.4, 2.2, 7.5)
    pts = [(x, kappa) for kappa in kappas for x in xs]
    got = f(np.array([p[0] for p in pts]), np.array([p[1] for p in pts]))
    for (x, kappa), g in zip(pts, got):
        ref = _derivative(x, kappa, order)
        assert abs(g - ref) <= 1e-11 * abs(ref) + 1e-15, (x, kappa, g, ref)


def test_edges_and_shapes():
    with np.errstate(all="raise"):
        out = K.vonmises_cdf_dkappa(np.array([0.5, 0.5, 0.5, np.inf, np.nan]), np.array([-1.0, np.nan, K.KAPPA_MAX * 2, 1.0, 1.0]))
    assert np.isnan(out).all()
    # kappa = 0: the uniform distribution's cdf moves as sin(x) / (2 pi) (A_1 = kappa / 2 + ...)
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(K.vonmises_cdf_dkappa(x, 0.0), np.sin(x) / (2 * np.pi), rtol=1e-14, atol=1e-17)
    # periodic in x
    np.testing.assert_allclose(K.vonmises_cdf_dkappa2(x + 2 * np.pi, 2.5), K.vonmises_cdf_dkappa2(x, 2.5), rtol=1e-12, atol=1e-17)
    assert K.vonmises_cdf_dkappa(np.float32(0.2), np.int32(3)).dtype == np.float64
    assert K.vonmises_cdf_dkappa(np.ones((2, 1)), np.full(3, 0.3)).shape == (2, 3)
    assert K.vonmises_cdf_dkappa2(np.ones((0, 3)), 0.5).shape == (0, 3)
