"""Order derivatives of jv, yv, iv, kv (templates/runtime/kernels/bessel.py) against mpmath.

Reference: mpmath.diff of mpmath.besselj/bessely/besseli/besselk in the order at mp.dps = 30.
Error measure: |got - ref| / max(|ref|, 1e-3 * S) where S = max(|f|, |df/dv|, |d2f/dv2|) at the same
point (an absolute floor from the local scale, for points near a zero of the derivative).
"""
import warnings

import mpmath as mp
import numpy as np
import pytest

from jaxsci._core.kernels import bessel

MP = {"j": mp.besselj, "y": mp.bessely, "i": mp.besseli, "k": mp.besselk}
TOL1, TOL2 = 1e-10, 1e-8


def _ref(which, v, z):
    f = MP[which]
    with mp.workdps(30):
        zz = mp.mpc(z) if isinstance(z, complex) else mp.mpf(z)
        if isinstance(z, float) and z < 0:  # real negative z (integer v): derivative of cos(v pi) f_v(|z|)
            g = lambda n: mp.cospi(n) * f(n, -zz)  # noqa: E731
        else:
            g = lambda n: f(n, zz)  # noqa: E731
        vv = mp.mpf(v)
        r = [g(vv), mp.diff(g, vv), mp.diff(g, vv, 2)]
    r = [complex(x) for x in r]
    return r if isinstance(z, complex) else [x.real for x in r]


def _points(which, n, seed, cplx):
    rng = np.random.default_rng(seed)
    v = rng.uniform(-4, 6, n)
    if cplx:
        z = rng.uniform(-10, 10, n) + 1j * rng.uniform(-5, 5, n)
        extra = [(0.5, 3j), (-2.5, -4 + 0j), (2.0, -7 + 0j), (3.0, 0.05 + 0.02j), (-3.0, 1 - 1j),
                 (6.0, -10 + 5j), (-4.0, 10 - 5j), (1.0, 2j), (2.5, 30 + 2j), (0.0, -20 - 3j)]
    else:
        z = rng.uniform(0.1, 20 if which == "k" else 25, n)
        extra = [(0.0, 1.0), (1.0, 2.0), (2.5, 0.5), (-2.0, 1.5), (-3.0, 0.1), (6.0, 0.1), (-4.0, 0.1),
                 (-2.5, 4.0), (2.0 + 1e-9, 3.0), (-1.0 - 1e-7, 13.0), (3.0, 60.0), (0.5, 120.0)]
        if which in "ji":
            extra += [(2.0, -3.0), (-3.0, -14.0)]
    pts = [(float(a), complex(b) if cplx else float(b)) for a, b in zip(v, z)]
    return pts + [(a, complex(b) if cplx else float(b)) for a, b in extra]


def _check(which, pts):
    v = np.array([p[0] for p in pts])
    z = np.array([p[1] for p in pts])
    d1 = getattr(bessel, which + "v_dv")(v, z)
    d2 = getattr(bessel, which + "v_dv2")(v, z)
    worst = [0.0, 0.0]
    for i, (vi, zi) in enumerate(pts):
        r = _ref(which, vi, zi)
        scale = max(abs(x) for x in r)
        for m, d, tol in ((1, d1, TOL1), (2, d2, TOL2)):
            err = abs(d[i] - r[m]) / max(abs(r[m]), 1e-3 * scale, 1e-300)
            worst[m - 1] = max(worst[m - 1], err)
            assert err <= tol, (which, m, vi, zi, d[i], r[m], err)
    return worst


@pytest.mark.parametrize("which", "jyik")
def test_real_vs_mpmath(which):
    _check(which, _points(which, 16, 11, False))


@pytest.mark.parametrize("which", "jyik")
def test_complex_vs_mpmath(which):
    _check(which, _points(which, 12, 12, True))


@pytest.mark.slow
@pytest.mark.parametrize("which", "jyik")
@pytest.mark.parametrize("cplx", [False, True])
def test_sweep_vs_mpmath(which, cplx):
    w = _check(which, _points(which, 300, 13, cplx))
    print(which, cplx, w)


@pytest.mark.parametrize("which", "jyik")
def test_integer_order_closed_forms(which):
    # DLMF 10.15.4 / 10.38.4 (order 0): dJ/dv = pi/2 Y_0, dY/dv = -pi/2 J_0, dI/dv = -K_0, dK/dv = 0
    import scipy.special as sc
    x = np.array([0.3, 2.0, 7.5, 19.0])
    got = getattr(bessel, which + "v_dv")(0.0, x)
    want = {"j": np.pi / 2 * sc.y0(x), "y": -np.pi / 2 * sc.j0(x), "i": -sc.k0(x), "k": 0 * x}[which]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


ALL = [getattr(bessel, w + "_dv" + s) for w in ("jv", "yv", "iv", "kv", "ive", "kve") for s in ("", "2")]


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
def test_edges(f):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(np.array([np.nan, 1.0, np.inf, 1.0, 2.5]), np.array([1.0, np.nan, 1.0, -np.inf, -1.0]))
        assert out.dtype == np.float64 and out.shape == (5,)
        assert np.isnan(out[:2]).all() and np.isnan(out[2])
        if f.__name__[0] in "jyk":
            assert np.isnan(out[4])  # non-integer order at z < 0: SciPy's real function is NaN there
        # broadcasting, 0-d, empty, float32, complex64
        assert f(np.array([[0.5], [1.5]]), np.array([1.0, 2.0, 3.0])).shape == (2, 3)
        r0 = f(1.5, 2.0)
        assert isinstance(r0, np.ndarray) and r0.shape == () and r0.dtype == np.float64
        assert f(np.zeros((0, 3)), 1.0).shape == (0, 3)
        r32 = f(np.float32(1.5), np.float32(2.0))
        assert r32.dtype == np.float64
        np.testing.assert_allclose(r32, f(1.5, 2.0), rtol=1e-6)
        rc = f(np.float32(1.5), np.complex64(2 + 1j))
        assert rc.dtype == np.complex128
        assert np.isnan(f(1.5, complex(np.nan, 1.0)))
        assert np.isfinite(f(1.5, 2 + 0j))
        np.testing.assert_allclose(f(1.5, 2 + 0j).real, f(1.5, 2.0), rtol=1e-10)
        assert np.isnan(f(1500.0, 2000.0))  # |v| > 1000: outside the supported range, NaN


@pytest.mark.parametrize("which", ["i", "k"])
def test_scaled_kernels_are_the_unscaled_times_the_factor(which):
    """ive_dv and kve_dv fold exp(-+z) into Debye's exponent: where iv_dv and kv_dv are finite, the same
    numbers; where they over- or underflow (z = 800), finite (the hard points hold the references)."""
    v = np.array([0.5, 3.0, 30.0, 100.0, -2.5, 60.0, 2.0])
    z = np.array([30.0, 200.0, 200.0, 300.0, 40.0, 700.0, 1.5 + 2j])
    sign = -1.0 if which == "i" else 1.0
    factor = np.exp(sign * np.abs(z.real) if which == "i" else z)
    for order in ("", "2"):
        plain = getattr(bessel, which + "v_dv" + order)(v, z)
        scaled = getattr(bessel, which + "ve_dv" + order)(v, z)
        assert np.isfinite(scaled).all()
        finite = np.isfinite(plain)   # K_60(700) is 1e-305: its kernel declines there (subnormal)
        assert finite.sum() >= len(v) - 1
        np.testing.assert_allclose(scaled[finite], (plain * factor)[finite], rtol=1e-11)
        assert np.isfinite(getattr(bessel, which + "ve_dv" + order)(np.array([0.5, 100.0]), np.array([800.0, 2000.0]))).all()


def test_zero_argument_limits():
    assert bessel.jv_dv(2.0, 0.0) == 0.0 and bessel.iv_dv2(1.5, 0.0) == 0.0
    assert bessel.jv_dv(0.0, 0.0) == -np.inf and bessel.jv_dv2(0.0, 0.0) == np.inf
    assert bessel.kv_dv(1.0, 0.0) == np.inf and bessel.kv_dv(-1.0, 0.0) == -np.inf
    assert bessel.kv_dv(0.0, 0.0) == 0.0


# Where H1 (Im z > 0) or H2 (Im z < 0) decays, J +- iY cancels to nothing: the order derivative of
# hankel1e(2.5, 20j) was 0 (truth 0.2472-0.2116j), hankel1(2.5, 10j)'s off by 2.1e-6. The reference goes
# through K (DLMF 10.27.8), since mpmath's hankel1 is J + iY and cancels the same way at 30 digits.
HANKEL_POINTS = [(2.5, 20j), (2.5, 10j), (2.5, 40j), (0.7, 60j), (2.0, 800j), (0.3, 3 + 5j), (1.5, -4 + 30j),
                 (-3.5, 2 + 15j), (2.5, 0.5 + 0j), (1.0, 2 + 0j), (2.5, 1 + 1j), (45.0, 1 + 30j)]


def _hankel_ref(kind, scaled, v, z):
    sign = 1 if kind == 1 else -1
    with mp.workdps(30):
        w = -sign * 1j * mp.mpc(z)

        def h(t):
            value = sign * 2 / (mp.pi * 1j) * mp.exp(-sign * 0.5j * mp.pi * t) * mp.besselk(t, w)
            return value * mp.exp(w) if scaled else value
        return [complex(mp.diff(h, mp.mpf(v), m)) for m in (1, 2)]


@pytest.mark.parametrize("kind", [1, 2])
@pytest.mark.parametrize("scaled", [False, True], ids=["plain", "scaled"])
def test_hankel_order_derivatives_where_hankel_decays(kind, scaled):
    base = f"hankel{kind}{'e' if scaled else ''}"
    # H2 decays in the lower half plane: the mirrored points
    z = np.array([p[1] if kind == 1 else np.conj(p[1]) for p in HANKEL_POINTS])
    v = np.array([p[0] for p in HANKEL_POINTS])
    d1, d2 = getattr(bessel, base + "_dv")(v, z), getattr(bessel, base + "_dv2")(v, z)
    for i in range(len(v)):
        r1, r2 = _hankel_ref(kind, scaled, v[i], complex(z[i]))
        for got, want, tol in ((d1[i], r1, TOL1), (d2[i], r2, TOL2)):
            assert abs(got - want) <= tol * abs(want) + 1e-300, (base, v[i], z[i], got, want)


def test_hankel_order_derivative_through_the_public_function():
    import jax
    from jaxsci.special import hankel1e

    d = jax.grad(lambda v: hankel1e(v, 20j).real)(2.5) + 1j * jax.grad(lambda v: hankel1e(v, 20j).imag)(2.5)
    want = _hankel_ref(1, True, 2.5, 20j)[0]
    assert abs(complex(d) - want) <= 1e-10 * abs(want)


# Beyond |v| = 50 complex z goes to Olver's uniform expansions (kernels/bessel_uniform.py); on the real
# axis the real-z kernels use other methods (Debye's expansions, Schlaefli's integrals, the K integral),
# and at |v| = 50 the complex kernels still use the contour integrals: two independent checks.
LARGE = [(60.0, 0.3), (100.5, 0.95), (200.0, 1.05), (500.0, 2.0), (-120.5, 0.5), (1000.0, 1.3), (-600.25, 3.0),
         (300.0, 0.7)]


@pytest.mark.parametrize("which", ["jv", "yv", "iv", "kv", "ive", "kve"])
def test_large_order_complex_matches_the_real_axis_kernels(which):
    v = np.array([p[0] for p in LARGE])
    x = np.array([abs(p[0]) * p[1] for p in LARGE])
    if which in ("iv", "kv"):   # within the range of doubles
        v, x = v[np.abs(v) <= 300], x[np.abs(v) <= 300]
    for order in ("", "2"):
        f = getattr(bessel, which + "_dv" + order)
        real, cplx = f(v, x), f(v, x + 0j)
        assert np.isfinite(cplx).all(), (which, order, cplx)
        both = np.isfinite(real)
        assert both.sum() >= len(v) - 2
        np.testing.assert_allclose(cplx[both].real, real[both], rtol=1e-9 if order == "" else 1e-7)
        assert np.all(np.abs(cplx.imag) <= 1e-10 * np.abs(cplx))   # the rotations' rounding, at real z


@pytest.mark.parametrize("which", ["jv", "yv", "iv", "kv", "hankel1", "hankel2"])
def test_uniform_expansion_matches_the_contour_integrals_at_order_50(which):
    from jaxsci._core.kernels import bessel_uniform

    z = np.array([12 + 5j, 49 + 3j, 50 - 1j, 30 + 40j, -20 + 45j, 70 - 20j, -60 - 8j, 5 - 51j])
    v = np.array([50.0, 50.0, -50.0, 50.0, 50.0, -50.0, 50.0, 50.0])
    name = {"jv": "j", "yv": "y", "iv": "i", "kv": "k", "hankel1": "h1", "hankel2": "h2"}[which]
    _, u1, u2 = bessel_uniform.evaluate(name, v, z, np.zeros(z.shape))
    for got, tuned, tol in ((u1, getattr(bessel, which + "_dv")(v, z), 1e-9),
                            (u2, getattr(bessel, which + "_dv2")(v, z), 1e-7)):
        assert np.isfinite(got).all() and np.isfinite(tuned).all()
        np.testing.assert_allclose(got, tuned, rtol=tol)
