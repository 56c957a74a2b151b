"""Host kernels: parameter derivatives of hyp0f1, hyp1f1, hyp2f1, hyperu, wright_bessel vs mpmath."""

import mpmath
import numpy as np
import pytest

from jaxsci._core.kernels import hypergeometric as H

mpmath.mp.dps = 40
SUFFIX = {"a": "a", "b": "b", "c": "c", "aa": "a2", "bb": "b2", "cc": "c2", "ab": "adb",
          "ac": "adc", "bc": "bdc", "v": "v", "vv": "v2"}


def _tol(key):
    return 1e-10 if len(key) == 1 else 1e-8


def _check(fn, pts, ref, key, floor=1e-300):
    args = [np.array([p[i] for p in pts]) for i in range(len(pts[0]))]
    got = fn(*args)
    for g, p in zip(got, pts):
        r = ref(*p)
        r = complex(r) if isinstance(r, mpmath.mpc) else float(r)
        assert np.isfinite(g), (key, p)
        assert abs(g - r) <= _tol(key) * max(abs(r), floor), (key, p, g, r)


def _pts2f1(seed, n):
    rng = np.random.default_rng(seed)
    pts = list(zip(rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(0.5, 4, n),
                   rng.uniform(-3, 0.9, n)))
    pts += [(1.0, 2.0, 3.0, 0.0), (0.5, 0.5, 1.0, 0.5), (-2.0, 1.5, 2.5, -4.0),
            (1.5, -2.0, 2.5, -4.0), (-3.0, 1.2, 0.7, 0.95), (0.3, 0.4, 1.5, 0.99),
            (0.3, 0.4, 1.5, -50.0), (1.3, -1.0, -2.5, 0.3)]
    cp = list(zip(rng.uniform(-2, 2, 6), rng.uniform(-2, 2, 6), rng.uniform(0.5, 4, 6),
                  rng.uniform(-0.7, 0.7, 6) + 1j * rng.uniform(-0.7, 0.7, 6)))
    cp += [(0.4, -0.6, 1.7, 0.5 + 0.7j), (1.4, 0.6, 2.7, 0.68 - 0.7j)]
    return pts, cp


@pytest.mark.parametrize("key", ["a", "b", "c", "aa", "bb", "cc", "ab", "ac", "bc"])
def test_hyp2f1(key):
    n = (key.count("a"), key.count("b"), key.count("c"))
    fn = getattr(H, "hyp2f1_d" + SUFFIX[key])

    def ref(a, b, c, z):
        return mpmath.diff(lambda A, B, C: mpmath.hyp2f1(A, B, C, z), (a, b, c), n)
    real, cplx = _pts2f1(0, 10)
    _check(fn, real, ref, key)
    _check(fn, cplx, ref, key)


def test_hyp2f1_terminating_and_poles():
    # Jacobi-type polynomials: a = -m, derivatives in b and c are finite sums, any z
    for (a, b, c, z) in [(-3.0, 2.5, 1.5, 0.999), (-4.0, 5.5, 1.2, 1.0), (-2.0, 1.5, 2.5, -9.0),
                         (-5.0, 0.7, 3.0, 2.5)]:
        for key in ("b", "c", "bb", "bc", "cc"):
            n = (0, key.count("b"), key.count("c"))
            r = mpmath.diff(lambda A, B, C: mpmath.hyp2f1(A, B, C, z), (a, b, c), n)
            g = getattr(H, "hyp2f1_d" + SUFFIX[key])(a, b, c, z)
            assert abs(g - float(r)) <= _tol(key) * abs(float(r)), (a, b, c, z, key)
            # symmetric: b terminating
            g2 = getattr(H, "hyp2f1_d" + SUFFIX[{"b": "a", "c": "c", "bb": "aa", "bc": "ac",
                                                 "cc": "cc"}[key]])(b, a, c, z)
            assert abs(g2 - g) <= 1e-13 * abs(g)
    # c a non-positive integer: polynomial before the pole, NaN otherwise
    assert abs(H.hyp2f1_db(-1.0, 1.3, -2.0, 0.3) - 0.15) < 1e-14
    assert np.isnan(H.hyp2f1_da(-1.0, 1.3, -2.0, 0.3))
    assert np.isnan(H.hyp2f1_db(0.5, 1.3, -2.0, 0.3))
    assert np.isnan(H.hyp2f1_da(0.5, 1.3, 2.0, 1.5))          # real branch cut


@pytest.mark.parametrize("key", ["a", "b", "aa", "ab", "bb"])
def test_hyp1f1(key):
    rng = np.random.default_rng(1)
    n = (key.count("a"), key.count("b"))
    fn = getattr(H, "hyp1f1_d" + SUFFIX[key])

    def ref(a, b, x):
        return mpmath.diff(lambda A, B: mpmath.hyp1f1(A, B, x), (a, b), n)
    pts = list(zip(rng.uniform(-3, 3, 20), rng.uniform(0.5, 4, 20), rng.uniform(-8, 8, 20)))
    pts += [(1.0, 2.0, 0.0), (-2.0, 1.5, 3.0), (0.5, 1.5, -2.0), (-2.0, 1.5, -3.0), (-3.0, 0.5, 8.0),
            (2.5, 3.0, 30.0), (-1.5, 2.0, -40.0), (0.3, 1.2, 100.0)]
    _check(fn, pts, ref, key)
    cp = list(zip(rng.uniform(-3, 3, 8), rng.uniform(0.5, 4, 8),
                  rng.uniform(-5, 5, 8) + 1j * rng.uniform(-5, 5, 8)))
    _check(fn, cp, ref, key)


def test_hyp1f1_terminating():
    # generalized Laguerre: M(-n, alpha + 1, x)
    for (a, b, x) in [(-4.0, 1.5, 3.0), (-6.0, 0.5, 10.0), (-3.0, 2.0, -5.0)]:
        r = mpmath.diff(lambda B: mpmath.hyp1f1(a, B, x), b)
        assert abs(H.hyp1f1_db(a, b, x) - float(r)) <= 1e-10 * abs(float(r))
    assert abs(H.hyp1f1_db(-1.0, -2.0, 0.5) - 0.125) < 1e-15    # 1 + x a/b, before the pole
    assert np.isnan(H.hyp1f1_da(0.5, -2.0, 0.5))


def test_double_double_primitives_are_exact():
    """two_sum and two_prod return a rounded result and its exact error; the reciprocal is good to
    about 2^-104 (the double-double series' accuracy rests on these)."""
    from fractions import Fraction

    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, 50) * 10.0 ** rng.integers(-20, 20, 50)
    b = rng.uniform(-1, 1, 50) * 10.0 ** rng.integers(-20, 20, 50)
    for f, exact in ((H._two_sum, lambda x, y: Fraction(x) + Fraction(y)), (H._two_prod, lambda x, y: Fraction(x) * Fraction(y))):
        hi, lo = f(a, b)
        assert all(Fraction(h) + Fraction(l) == exact(x, y) for h, l, x, y in zip(hi, lo, a, b))
    x = H._two_sum(a, 1e-17 * b)
    r = H._dd_recip(x)
    assert all(abs((Fraction(rh) + Fraction(rl)) * (Fraction(xh) + Fraction(xl)) - 1) < Fraction(1, 2 ** 102)
               for rh, rl, xh, xl in zip(*r, *x))


def test_hyp1f1_double_double_where_float64_is_exact_and_where_it_cancels():
    """The double-double series (_hyp1f1_extended) agrees with the float64 one where that does not
    cancel; where it does (a x < 0, |x| between |a| and 4|a|: its terms 1e10 times the result and more)
    the kernel returns the double-double value, right against mpmath."""
    a, b, x = np.array([1.5, -2.0, 3.2]), np.array([2.0, 1.5, 0.7]), np.array([2.0, 3.0, -4.0])
    for key in ("a", "b", "aa", "ab", "bb"):
        np.testing.assert_allclose(H._hyp1f1_extended(a, b, x, key, 1e-11), getattr(H, "hyp1f1_d" + SUFFIX[key])(a, b, x),
                                   rtol=1e-13)
    a, b, x = -30.5, 2.0, 45.0
    (value, derivative), (_, size), _ = H._pfq_series([np.array([a])], [np.array([b])], np.array([x]), [(), (0,)], want_mag=True)
    assert size[0] > 1e10 * abs(derivative[0])  # the float64 series' terms: 1e10 times its result
    got = H.hyp1f1_da(a, b, x)
    expected = float(mpmath.diff(lambda s: mpmath.hyp1f1(s, b, x), a))
    assert abs(got - expected) <= 1e-12 * abs(expected)


@pytest.mark.parametrize("order", [1, 2])
def test_hyp0f1(order):
    rng = np.random.default_rng(2)
    fn = H.hyp0f1_dv if order == 1 else H.hyp0f1_dv2
    key = "v" * order

    def ref(v, z):
        return mpmath.diff(lambda t: mpmath.hyp0f1(t, z), v, order)
    pts = list(zip(rng.uniform(0.5, 5, 20), rng.uniform(-10, 10, 20)))
    pts += [(2.5, -3.0), (1.0, -50.0), (1.0, -400.0), (3.0, 1000.0), (-1.5, 4.0)]
    _check(fn, pts, ref, key)
    cp = list(zip(rng.uniform(0.5, 5, 8), rng.uniform(-5, 5, 8) + 1j * rng.uniform(-5, 5, 8)))
    _check(fn, cp, ref, key)
    assert fn(1.0, 0.0) == 0.0


@pytest.mark.parametrize("key", ["a", "b", "aa", "ab", "bb"])
def test_hyperu(key):
    rng = np.random.default_rng(3)
    n = (key.count("a"), key.count("b"))
    fn = getattr(H, "hyperu_d" + SUFFIX[key])
    mpmath.mp.dps = 30

    def ref(a, b, x):
        return mpmath.diff(lambda A, B: mpmath.hyperu(A, B, x), (a, b), n)
    pts = list(zip(rng.uniform(0.1, 2, 12), rng.uniform(-2, 3, 12), rng.uniform(0.2, 2, 12)))
    pts += [(1.0, 1.0, 1.0), (2.0, 0.5, 0.5), (0.1, 3.0, 0.2), (2.0, -2.0, 0.2), (0.5, 1.0, 1e-3),
            (0.5, 2.5, 20.0), (1.5, 1.5, 100.0)]
    try:
        _check(fn, pts, ref, key)
    finally:
        mpmath.mp.dps = 40


# Points where an earlier fixed double-exponential rule was wrong: a -> 0 (hyperu_da(1e-3, 1, 1) was 1.65,
# truth -0.0015), x << 1 with b - a - 1 < 0 (1.2e-4 off at (1, 0.5, 1e-6)), large b (1.2e-6 off at
# (1, 150, 1)); and a < 0 (the recurrence in a): right or NaN, and the points named below right.
@pytest.mark.parametrize("key", ["a", "b", "aa", "ab", "bb"])
def test_hyperu_right_or_nan_at_hard_points(key):
    n = (key.count("a"), key.count("b"))
    fn = getattr(H, "hyperu_d" + SUFFIX[key])
    hard = [(1e-3, 1.0, 1.0), (1.0, 0.5, 1e-6), (1.0, 150.0, 1.0), (0.01, 1.0, 1.0), (1e-5, 2.0, 3.0),
            (3.0, 40.0, 0.5), (0.2, -3.0, 1e-4), (2.0, 1.0, 1e-8), (-0.5, 1.0, 1.0), (-7.3, 2.5, 3.0),
            (-20.5, 1.5, 100.0), (-7.3, -3.5, 1e-6)]
    tolerance = 1e-10 if len(key) == 1 else 1e-8
    with mpmath.workdps(30):
        for a, b, x in hard:
            got = float(fn(a, b, x))
            want = float(mpmath.diff(lambda A, B: mpmath.hyperu(A, B, x), (a, b), n))
            assert np.isnan(got) or abs(got - want) <= tolerance * abs(want), (key, a, b, x, got, want)
        for a, b, x in [(1e-3, 1.0, 1.0), (1.0, 150.0, 1.0), (2.0, 1.0, 1e-8), (-7.3, 2.5, 3.0)]:
            want = float(mpmath.diff(lambda A, B: mpmath.hyperu(A, B, x), (a, b), n))
            assert abs(fn(a, b, x) - want) <= tolerance * abs(want), (key, a, b, x)


@pytest.mark.parametrize("key", ["a", "b", "aa", "ab", "bb"])
def test_wright_bessel(key):
    rng = np.random.default_rng(4)
    n = (key.count("a"), key.count("b"))
    fn = getattr(H, "wright_bessel_d" + SUFFIX[key])
    mpmath.mp.dps = 30

    def W(a, b, x):
        return mpmath.fsum(mpmath.power(x, k) / mpmath.factorial(k) * mpmath.rgamma(a * k + b)
                           for k in range(120))

    def ref(a, b, x):
        return mpmath.diff(lambda A, B: W(A, B, x), (a, b), n)
    pts = list(zip(rng.uniform(0.1, 2.5, 8), rng.uniform(0.1, 3, 8), rng.uniform(0.1, 8, 8)))
    pts += [(0.0, 1.0, 2.0), (1.0, 1.0, 0.0), (0.5, 0.0, 1.5), (2.0, 0.5, 7.5)]
    try:
        _check(fn, pts, ref, key)
    finally:
        mpmath.mp.dps = 40


ALL = [(H.hyp1f1_da, 3), (H.hyp1f1_dadb, 3), (H.hyp2f1_dc, 4), (H.hyp2f1_dadb, 4),
       (H.hyp0f1_dv, 2), (H.hyp0f1_dv2, 2), (H.hyperu_db, 3), (H.hyperu_da2, 3),
       (H.wright_bessel_da, 3), (H.wright_bessel_db2, 3)]


@pytest.mark.parametrize("fn,nargs", ALL)
def test_edges_and_shapes(fn, nargs):
    good = {2: (1.5, 0.5), 3: (0.5, 1.5, 0.5), 4: (0.5, 0.7, 1.5, 0.3)}[nargs]
    with np.errstate(all="raise"):
        for j in range(nargs):
            args = list(good)
            args[j] = np.nan
            assert np.isnan(fn(*args))
        r = fn(*[np.float32(v) for v in good])
    assert r.shape == () and r.dtype == np.float64 and np.isfinite(r)
    shp = [np.full((2, 1), good[0])] + [np.full((3,), v) for v in good[1:]]
    assert fn(*shp).shape == (2, 3)
    assert fn(*[np.zeros((0,)) + v for v in good]).shape == (0,)
    big = [np.full(20000, v) for v in good]
    np.testing.assert_allclose(fn(*big), np.full(20000, fn(*good)), rtol=0)


def test_complex_output_types():
    r = H.hyp2f1_da(0.5, 0.7, 1.5, np.complex64(0.3 + 0.2j))
    assert r.dtype == np.complex128
    r = H.hyp1f1_db(0.5, 1.5, np.array([0.3 + 0.2j, -2.0]))
    assert r.dtype == np.complex128 and r.shape == (2,)
    assert H.hyp1f1_db(0.5, 1.5, 0.3).dtype == np.float64


def test_out_of_domain():
    assert np.isnan(H.hyperu_da(-250.5, 1.0, 1.0)) and np.isnan(H.hyperu_db(0.5, 1.0, -1.0))
    assert np.isnan(H.wright_bessel_da(-0.5, 1.0, 1.0)) and np.isnan(H.wright_bessel_db(0.5, 1.0, -1.0))
    assert np.isnan(H.hyp0f1_dv(-2.0, 0.5)) and np.isnan(H.hyp1f1_da(0.5, 0.0, 0.5))


def test_sinpi_and_trigamma_by_reflection_near_poles():
    """_sinpi reduces its argument exactly (np.sin(np.pi * y) was 1e-12 off at y = -2.0001, and psi'(y) by
    reflection, pi^2 / sin^2(pi y) - psi'(1 - y), carried that)."""
    y = np.array([-2.0001, -17.5, 3.25, -30.000001])
    want = [float(mpmath.sinpi(mpmath.mpf(v))) for v in y]
    np.testing.assert_allclose(H._sinpi(y), want, rtol=1e-15)
    want = [float(mpmath.psi(1, mpmath.mpf(v))) for v in y]
    np.testing.assert_allclose(H._trigamma_real(y), want, rtol=1e-14)


# a < 0 at small x with b > 1: U ~ Gamma(b - 1)/Gamma(a) x^(1 - b) oscillates in a, and the recurrence from the
# integral at a + m bounds its error above 1e-10 of the result (NaN from it alone); the connection formula
# (DLMF 13.2.42) at complex a and b, differentiated by Cauchy's integral, serves there: integer a (1/Gamma(a) = 0)
# and integer or nearly integer b (sin(pi b) = 0 on the real axis) included.
@pytest.mark.parametrize("key", ["a", "b", "aa", "ab", "bb"])
def test_hyperu_connection_formula_at_small_x(key, monkeypatch):
    n = (key.count("a"), key.count("b"))
    fn = getattr(H, "hyperu_d" + SUFFIX[key])
    tolerance = 1e-10 if len(key) == 1 else 1e-8
    points = [(-33.7, 4.2, 1e-3), (-12.0, 5.5, 0.3), (-6.7, 8.5, 1.5), (-28.44, 4.001, 0.043), (-9.1, 6.0, 0.75),
              (-20.0, 8.0, 0.1)]
    a, b, x = (np.array(c) for c in zip(*points))
    got = fn(a, b, x)
    with monkeypatch.context() as patch:  # the integral and the recurrence alone: NaN at some of these
        patch.setattr(H, "_CONNECTION_X", 0.0)
        assert np.isnan(fn(a, b, x)).any()
    with mpmath.workdps(30):
        for i, (p, q, y) in enumerate(points):
            want = float(mpmath.diff(lambda s, t: mpmath.hyperu(s, t, y), (p, q), n))
            assert abs(got[i] - want) <= tolerance * abs(want), (key, p, q, y, got[i], want)


def test_fixed_point_series_bound_holds_and_overflow_is_nan():
    """The fixed-point series' integer error bound covers its error at 128 bits (against 2048), where the
    series cancels by 1e300 (a = -811.7, x = 612.7, M = -5e-64); a derivative past float64's range is NaN,
    not the float64 series' partial sum (which gave -6.7e272 for 2.6e280 at a = 783, b = -16.2, x = 91)."""
    p, q, y = -811.7427155192016, 192.3335282946413, 612.6834486176772
    coarse, coarse_bound = H._fixed_point_series(p, q, y, 128)
    fine, fine_bound = H._fixed_point_series(p, q, y, 2048)
    for key in coarse:
        assert abs((coarse[key] << 1920) - fine[key]) <= (coarse_bound[key] << 1920) + fine_bound[key], key
    assert coarse_bound[()] > abs(coarse[()])  # at 128 bits the cancellation leaves no digit: NaN, then more bits
    with mpmath.workdps(40):
        want = float(mpmath.diff(lambda s: mpmath.hyp1f1(s, q, y), p))
    assert abs(H.hyp1f1_da(p, q, y) - want) <= 1e-12 * abs(want)
    assert np.isnan(H.hyp1f1_da(297.0944141596501, 23.192011851784017, 371.4344322747763))  # d/da is 5e341
