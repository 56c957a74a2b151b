"""Host kernel: the studentized range cdf's derivatives in x, k and df (studentized_range_cdf_d) against mpmath.

mpmath.diff of the double integral is out of reach (minutes per evaluation at 15 digits, and mpmath.diff
needs about 100), so the kernel is checked in three independent parts:
- at k = 3, Owen's T form (one-dimensional: specs/stats/studentized_range.yaml's reference), differentiated
  by mpmath.diff in x and df, tests the chi variable's quadrature and the df series;
- G(w; k) = k int phi(z) (Phi(z) - Phi(z - w))^(k-1) dz, one-dimensional, differentiated by mpmath.diff in
  k and w, tests the normal variable's quadrature and the k and w series (lower and upper forms);
- under -m slow, the double integral with its k-derivative taken under the integral sign, at 15 digits.
"""

import math

import jax
import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import studentized_range as K

jax.config.update("jax_enable_x64", True)


def _owen_derivative(x, df, j, n):
    """d^j/ddf^j d^n/dx^n of the cdf at k = 3, from the spec's reference: 1 - sf with
    sf = 6/pi int_0^(1/sqrt 3) (1 + x^2 (1 + t^2) / (2 df))^(-df/2) / (1 + t^2) dt, differentiated as -sf
    (the cdf's form, 1 - sf, loses the derivatives where sf is below 1e-30), at 30 digits; the integrand,
    as narrow as sqrt(2 df) / x at t = 0, with nodes there."""
    with mpmath.workdps(30):
        def sf(xx, dd):
            # the integrand's peak at t = 0 is about sqrt(2 df + 1) / x wide: edges at powers of 2 from there
            # (tanh-sinh without them loses 3e-9 of the sf at x = 1000, df = 50; 2e-4 at x = 20, df = 1e4)
            width = mpmath.sqrt(2 * dd + 1) / (1 + xx)
            edges = [0, *(width * 2**m for m in range(-4, 12) if width * 2**m < 1 / mpmath.sqrt(3)), 1 / mpmath.sqrt(3)]
            return 6 / mpmath.pi * mpmath.quad(lambda t: (1 + xx**2 * (1 + t**2) / (2 * dd))**(-dd / 2) / (1 + t**2), edges)

        if (j, n) == (0, 0):
            return float(1 - sf(mpmath.mpf(x), mpmath.mpf(df)))
        return -float(mpmath.diff(sf, (mpmath.mpf(x), mpmath.mpf(df)), (n, j)))


def _range_derivative(w, k, i, n, upper=False):
    """d^i/dk^i d^n/dw^n G(w; k), G the cdf of the range of k standard normals, by mpmath at 15 digits; with
    ``upper``, as minus that of 1 - G = k int phi(z) Phi(z)^(k-1) (1 - (1 - Phi(z - w)/Phi(z))^(k-1)) dz, which
    keeps its digits where G is near 1."""
    with mpmath.workdps(15):
        def g(ww, kk):
            return kk * mpmath.quad(lambda z: mpmath.npdf(z) * (mpmath.ncdf(z) - mpmath.ncdf(z - ww))**(kk - 1),
                                    [-40, -3, 0, ww / 2, ww / 2 + 3, ww + 40])

        def tail(ww, kk):
            def integrand(z):
                cdf = mpmath.ncdf(z)
                return -mpmath.npdf(z) * cdf**(kk - 1) * mpmath.expm1((kk - 1) * mpmath.log1p(-mpmath.ncdf(z - ww) / cdf))
            return kk * mpmath.quad(integrand, [-40, -3, 0, ww / 2 - 3, ww / 2, ww / 2 + 3, ww + 40])

        if upper:
            return -float(mpmath.diff(tail, (mpmath.mpf(w), mpmath.mpf(k)), (n, i)))
        return float(mpmath.diff(g, (mpmath.mpf(w), mpmath.mpf(k)), (n, i)))


OWEN_FAST = [(0.4, 3.0, 1, 0), (6.0, 12.0, 1, 1), (1.5, 200.0, 0, 2)]
OWEN_SLOW = [(x, df, j, n) for x in (0.05, 0.9, 3.5, 20.0, 1000.0) for df in (0.5, 3.0, 50.0, 1000.0)
             for j, n in ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (0, 3))] + [(2.5, 0.7, 0, 1), (30.0, 4.0, 2, 0)]


@pytest.mark.parametrize("x, df, j, n", [*OWEN_FAST, *(pytest.param(*p, marks=pytest.mark.slow) for p in OWEN_SLOW)])
def test_k3_against_owens_t_form(x, df, j, n):
    """x and df (first to third order, mixed), at k = 3: relative 2e-10 (measured worst 1e-10; 1e-9 at x = 1000,
    where the sf is down to 1e-100), and 1e-8 in
    df at df >= 300 (measured 4e-9 at df = 1000, x = 0.05: the df-derivatives cancel to O(1/df^2) from terms
    of O(1/df); the kernel gives NaN beyond df = 1000)."""
    got = K.studentized_range_cdf_d(x, 3.0, df, 0, j, n)
    ref = _owen_derivative(x, df, j, n)
    rtol = 1e-8 if j and df >= 300 else 1e-9 if x >= 1000 else 2e-10  # measured 5e-10 at sf ~ 1e-100 (x = 1000, df = 50)
    assert abs(got - ref) <= rtol * abs(ref), (got, ref)


RANGE_FAST = [(1.0, 4.5, 1, 0)]
RANGE_SLOW = [(w, k, i, n) for w, k in ((0.05, 2.5), (0.4, 1.3), (1.0, 4.5), (3.0, 10.0), (6.0, 3.0), (12.0, 50.0),
                                        (2.0, 100.0), (0.5, 50.0), (6.0, 100.0), (9.0, 7.0))
              for i, n in ((1, 0), (2, 0), (0, 2), (3, 0)) if (w, k, i, n) not in RANGE_FAST] + [(3.0, 10.0, 1, 1), (9.0, 7.0, 1, 1)]


@pytest.mark.parametrize("w, k, i, n", [*RANGE_FAST, *(pytest.param(*p, marks=pytest.mark.slow) for p in RANGE_SLOW)])
def test_range_of_normals_in_k_and_w(w, k, i, n):
    """The inner integral's series in (k, w) against mpmath.diff of G's integral, in the form the kernel
    integrates at such w: the upper one (1 - G) where G > 1/2 at order 0 in w, the lower one elsewhere
    (each keeps relative accuracy in its own tail only: the other cancels there). Relative 5e-10; measured
    worst 1.2e-10 (third order in k), 1e-14 or better at first order up to k = 100 (24 panels in z above k = 10)."""
    scale = math.factorial(i) * math.factorial(n)
    lower = K._inner(np.array([[w]]), np.array([[k]]), (i, n), upper=False)
    use_upper = n == 0 and lower[0, 0, 0, 0] > 0.5
    ref = _range_derivative(w, k, i, n, upper=use_upper)
    got = -K._inner(np.array([[w]]), np.array([[k]]), (i, n), upper=True)[i, n, 0, 0] * scale if use_upper else lower[i, n, 0, 0] * scale
    assert abs(got - ref) <= 5e-10 * abs(ref), (got, ref, use_upper)


def _double_integral_dk(x, k, df, order):
    """d^order/dk^order F at 15 digits: the k-derivative of k P^(k-1) taken under the integral sign
    (P^(k-1) (1 + k log P), P^(k-1) log P (2 + k log P)), then mpmath's double quadrature."""
    with mpmath.workdps(15):
        x, k, df = (mpmath.mpf(v) for v in (x, k, df))

        def chi(s):
            return mpmath.exp(df / 2 * mpmath.log(df / 2) - mpmath.loggamma(df / 2) + mpmath.log(2) + (df - 1) * mpmath.log(s)
                              - df * s**2 / 2)

        def factor(p):
            log_p = mpmath.log(p)
            return p**(k - 1) * ((1 + k * log_p) if order == 1 else log_p * (2 + k * log_p))

        def interval(z, w):  # Phi(z) - Phi(z - w), as Phi(w - z) - Phi(-z) above w/2 (no cancellation near 1)
            return mpmath.ncdf(z) - mpmath.ncdf(z - w) if z < w / 2 else mpmath.ncdf(w - z) - mpmath.ncdf(-z)

        def inner(w):
            return mpmath.quad(lambda z: mpmath.npdf(z) * factor(interval(z, w)), [-12, 0, w / 2, w + 12])

        return float(mpmath.quad(lambda s: chi(s) * inner(x * s), [0, 0.5, 1, 2, mpmath.inf]))


@pytest.mark.slow
@pytest.mark.parametrize("x, k, df, order", [(2.0, 4.5, 6.0, 1), (0.7, 2.5, 3.0, 1), (3.0, 4.5, 6.0, 2)])
def test_k_against_the_double_integral(x, k, df, order):
    """The whole kernel in k (about a minute of mpmath each): relative 1e-9 (mpmath's 15 digits)."""
    got = K.studentized_range_cdf_d(x, k, df, order, 0, 0)
    ref = _double_integral_dk(x, k, df, order)
    assert abs(got - ref) <= 1e-9 * abs(ref), (got, ref)


def test_edges_and_bounds():
    """0 below the support, the cdf's limits at x = inf, NaN for invalid parameters, for k beyond 100 and
    for df-derivatives beyond df = 1000 (module docstring), and the input's shape kept."""
    f = K.studentized_range_cdf_d
    assert f(-1.0, 3.0, 5.0, 1, 1, 1) == 0.0 and f(0.0, 3.0, 5.0, 0, 0, 0) == 0.0
    assert f(np.inf, 3.0, 5.0, 0, 0, 0) == 1.0 and f(np.inf, 3.0, 5.0, 1, 0, 0) == 0.0
    for args in ((1.0, 1.0, 5.0), (1.0, 3.0, 0.0), (np.nan, 3.0, 5.0), (1.0, 101.0, 5.0)):
        assert np.isnan(f(*args, 1, 0, 0))
    assert np.isnan(f(0.0, 3.0, 5.0, 0, 0, 1))  # the density at 0 may be infinite
    assert np.isnan(f(1.0, 3.0, 2e3, 0, 1, 0)) and np.isfinite(f(1.0, 3.0, 2e5, 1, 0, 0))
    assert f(np.ones((2, 1)), 3.0, np.array([4.0, 9.0]), 0, 0, 0).shape == (2, 2)


@pytest.mark.slow
def test_every_methods_rule_is_the_kernels():
    """jaxsci.stats.studentized_range's derivatives in k and df (which the stored mpmath references leave
    out in k: specs/stats/studentized_range.yaml, tests.unreferenced) are the kernel's, at first and second
    order, and the implicit rule's for ppf."""
    from jaxsci.stats import studentized_range as S

    x, k, df = 2.3, 4.5, 8.0
    f = K.studentized_range_cdf_d
    density = f(x, k, df, 0, 0, 1)
    cdf = S.cdf(x, k, df)
    checks = [
        (jax.grad(S.cdf, 1)(x, k, df), f(x, k, df, 1, 0, 0)),
        (jax.grad(S.sf, 1)(x, k, df), -f(x, k, df, 1, 0, 0)),
        (jax.grad(S.logcdf, 1)(x, k, df), f(x, k, df, 1, 0, 0) / cdf),
        (jax.grad(S.pdf, 1)(x, k, df), f(x, k, df, 1, 0, 1)),
        (jax.grad(S.logpdf, 2)(x, k, df), f(x, k, df, 0, 1, 1) / density),
        (jax.grad(jax.grad(S.cdf, 1), 2)(x, k, df), f(x, k, df, 1, 1, 0)),
        (jax.grad(jax.grad(S.pdf, 0), 0)(x, k, df), f(x, k, df, 0, 0, 3)),
    ]
    q = float(S.cdf(x, k, df))
    checks.append((jax.grad(S.ppf, 1)(q, k, df), -f(x, k, df, 1, 0, 0) / density))
    for got, expected in checks:
        assert abs(float(got) - float(expected)) <= 1e-8 * abs(float(expected)), (got, expected)
