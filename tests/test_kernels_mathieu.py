"""Host kernels: q-derivatives of the Mathieu functions and c-derivatives of the spheroidal functions.

mpmath has no Mathieu or spheroidal functions. The angular Mathieu kernels (the Fourier coefficients
differentiated as an eigenvector, kernels/mathieu.py) are checked against an mpmath reference of our
own (the same coefficients at 30 digits, differentiated by mpmath.diff) and against Ridders'
differences of SciPy; the spheroidal kernels against the identities they must satisfy.
"""
import mpmath
import numpy as np
import pytest
import scipy.special as sc

from jaxsci._core.kernels import mathieu as M
from jaxsci._core.kernels import spheroidal as S
from jaxsci._core.kernels.numeric import partial_derivative


def _mp_angular(m, q, x_degrees, sine, size=16):
    """(y, yp) of ce_m / se_m at mpmath's precision from the truncated coefficient matrix (DLMF 28.4.5-28.4.8),
    with the sign of the coefficient of the frequency m made positive (a smooth choice near q)."""
    odd = m % 2 == 1
    freq = [2 * k + (1 if odd else (2 if sine else 0)) for k in range(size)]
    t = mpmath.matrix(size, size)
    for k in range(size):
        t[k, k] = freq[k] ** 2
        if k + 1 < size:
            t[k, k + 1] = t[k + 1, k] = q
    if not odd and not sine:
        t[0, 1] = t[1, 0] = mpmath.sqrt(2) * q
    if odd:
        t[0, 0] += -q if sine else q
    values, vectors = mpmath.eigsy(t)
    order = sorted(range(size), key=lambda j: values[j])
    j = order[(m - (2 if sine and not odd else 0)) // 2]
    v = [vectors[k, j] for k in range(size)]
    lead = freq.index(m)
    if v[lead] < 0:
        v = [-c for c in v]
    if not odd and not sine:
        v[0] /= mpmath.sqrt(2)
    th = mpmath.mpf(x_degrees) * mpmath.pi / 180
    if sine:
        return (mpmath.fsum(c * mpmath.sin(f * th) for c, f in zip(v, freq)),
                mpmath.fsum(c * f * mpmath.cos(f * th) for c, f in zip(v, freq)))
    return (mpmath.fsum(c * mpmath.cos(f * th) for c, f in zip(v, freq)),
            mpmath.fsum(-c * f * mpmath.sin(f * th) for c, f in zip(v, freq)))


@pytest.mark.parametrize("sine", [False, True], ids=["cem", "sem"])
def test_angular_against_mpmath(sine):
    first, second = (M.mathieu_sem_dq, M.mathieu_sem_dq2) if sine else (M.mathieu_cem_dq, M.mathieu_cem_dq2)
    scipy = sc.mathieu_sem if sine else sc.mathieu_cem
    for m, q, x in [(1, 1.5, 20.0), (4, -6.0, -130.0)] + ([(0, 4.0, 33.0)] if not sine else [(2, 3.0, 75.0)]):
        y, yp = scipy(m, q, x)
        with mpmath.workdps(30):
            ref = [_mp_angular(m, mpmath.mpf(q), x, sine)]
        sign = 1 if float(ref[0][0]) * y + float(ref[0][1]) * yp > 0 else -1
        for k, kernel, tol in ((1, first, 1e-11), (2, second, 1e-9)):
            got = kernel(m, q, x)
            for out in range(2):
                with mpmath.workdps(30):
                    exact = sign * mpmath.diff(lambda s: _mp_angular(m, s, x, sine)[out], mpmath.mpf(q), k)
                scale = max(abs(float(exact)), 1e-3 * np.hypot(y, yp))
                assert abs(float(got[out]) - float(exact)) <= tol * scale, (m, q, x, k, out, got[out], exact)


@pytest.mark.parametrize("sine", [False, True], ids=["cem", "sem"])
def test_angular_against_ridders(sine):
    """Over m <= 7, -20 <= q <= 40 the eigenvector kernels agree with Ridders' differences of SciPy
    to the differences' own accuracy, and are NaN only at the few q where SciPy's characteristic value is
    another eigenvalue of the class (a_6 near q = 25.25, say)."""
    rng = np.random.default_rng(7)
    m = rng.integers(1 if sine else 0, 8, 400).astype(float)
    q, x = rng.uniform(-20, 40, 400), rng.uniform(-180, 180, 400)
    value = np.hypot(*(sc.mathieu_sem if sine else sc.mathieu_cem)(m, q, x))
    name = "sem" if sine else "cem"
    for suffix, tol in (("", 1e-8), ("2", 5e-7)):
        own = getattr(M, f"mathieu_{name}_dq{suffix}")(m, q, x)
        ridders = getattr(M, f"_ridders_{name}_dq{suffix}")(m, q, x)
        for a, b in zip(own, ridders):
            assert np.isnan(a).mean() < 0.02  # NaN only where SciPy's characteristic value is the wrong one
            ok = np.isnan(b) | np.isnan(a) | (np.abs(a - b) <= tol * np.maximum(np.abs(b), 1e-3 * value))
            assert ok.all(), (suffix, m[~ok], q[~ok], x[~ok])


def test_angular_fallback_and_edges():
    # se_0 is SciPy's 0 for every q; past the truncation (m = 600) SciPy's NaN stays NaN (NaN q never reaches
    # the kernel: the guard keeps it from SciPy, which crashes on it)
    assert M.mathieu_sem_dq(0, 3.0, 20.0) == (0.0, 0.0)
    assert all(np.isnan(M.mathieu_cem_dq(600, 1.0, 30.0)))
    # at q = 0 SciPy's characteristic value is the exact eigenvalue m**2 (a singular shift, moved off)
    for kernel, ridders in ((M.mathieu_cem_dq, M._ridders_cem_dq), (M.mathieu_sem_dq2, M._ridders_sem_dq2)):
        got, ref = kernel(np.arange(1, 5), 0.0, 30.0), ridders(np.arange(1, 5), 0.0, 30.0)
        for a, b in zip(got, ref):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


def test_spheroidal_even_and_nonnegative():
    # cv and the angular functions depend on c**2: their c-derivative vanishes at c = 0; the radial
    # ones are NaN where the stencil would need c < 0 (SciPy computes those with c = 0)
    assert S.obl_cv_dc(1, 2, 0.0) == 0.0 and S.pro_cv_dc(0, 3, 0.0) == 0.0
    assert S.pro_ang1_dc(1, 2, 0.0, 0.3) == (0.0, 0.0)
    assert np.isnan(S.pro_rad1_dc(1, 2, 0.005, 1.5)[0])


@pytest.mark.parametrize("kind", ["obl", "pro"])
def test_cv_against_hellmann_feynman(kind):
    """d cv/dc = -+ 2 c <x^2> (oblate, prolate), the mean over the squared angular function (the
    eigenvalue's derivative, DLMF 30.2.1 with gamma^2 = -+ c^2), by Gauss-Legendre quadrature of SciPy's own
    angular function."""
    nodes, weights = np.polynomial.legendre.leggauss(80)
    kernel, angular = getattr(S, f"{kind}_cv_dc"), getattr(sc, f"{kind}_ang1")
    for m, n, c in [(0, 2, 0.7), (1, 2, 1.6), (1, 4, 2.9), (2, 3, 0.4)]:
        s = angular(m, n, c, nodes)[0]
        mean = np.sum(weights * nodes**2 * s**2) / np.sum(weights * s**2)
        expected = (-2 if kind == "obl" else 2) * c * mean
        assert abs(kernel(m, n, c) - expected) <= 1e-9 * abs(expected), (m, n, c)


@pytest.mark.parametrize("kind", ["obl", "pro"])
def test_angular_spheroidal_against_ridders(kind):
    """The Legendre-coefficient kernels reproduce SciPy's values (else they would fall back) and agree
    with Ridders' differences of SciPy to the differences' own accuracy, over m <= 3, n - m <= 4,
    c <= 10, abs(x) <= 0.9."""
    rng = np.random.default_rng(3)
    m = rng.integers(0, 4, 200).astype(float)
    n, c, x = m + rng.integers(0, 5, 200), rng.uniform(0, 10, 200), rng.uniform(-0.9, 0.9, 200)
    value = np.hypot(*getattr(sc, f"{kind}_ang1")(m, n, c, x))
    own = S._spheroidal_eigen(m, n, c, -1 if kind == "obl" else 1, x)[0]
    assert not np.isnan(own).any()
    for suffix, tol in (("", 1e-8), ("2", 5e-7)):
        got = getattr(S, f"{kind}_ang1_dc{suffix}")(m, n, c, x)
        ridders = getattr(S, f"_ridders_{kind}_ang1_dc{suffix}")(m, n, c, x)
        for a, b in zip(got, ridders):
            ok = np.isnan(b) | (np.abs(a - b) <= tol * np.maximum(np.abs(b), 1e-3 * value))
            assert ok.all(), (suffix, m[~ok], n[~ok], c[~ok], x[~ok])


def test_characteristic_values():
    """a_m', a_m'', b_m', b_m'' by eigenvalue perturbation: the known expansions at q = 0 (DLMF 28.6.1-28.6.14:
    a_0 = -q^2/2, a_1 = 1 + q - q^2/8, a_2 = 4 + 5 q^2/12, b_1 = 1 - q - q^2/8, b_2 = 4 - q^2/12), Ridders'
    differences of SciPy elsewhere, and NaN where SciPy's value is another eigenvalue of the class."""
    np.testing.assert_allclose(M.mathieu_a_dq(np.arange(3), 0.0), [0, 1, 0], atol=1e-13)
    np.testing.assert_allclose(M.mathieu_a_dq2(np.arange(3), 0.0), [-1, -0.25, 5 / 6], rtol=1e-12)
    np.testing.assert_allclose(M.mathieu_b_dq(np.arange(1, 3), 0.0), [-1, 0], atol=1e-13)
    np.testing.assert_allclose(M.mathieu_b_dq2(np.arange(1, 3), 0.0), [-0.25, -1 / 6], rtol=1e-12)
    rng = np.random.default_rng(5)
    m, q = rng.integers(0, 10, 300), rng.uniform(-30, 60, 300)
    for f in ("a", "b"):
        mm = np.maximum(m, 1) if f == "b" else m
        value = np.abs(getattr(sc, f"mathieu_{f}")(mm, q))
        for suffix, tol in (("", 1e-9), ("2", 1e-7)):
            own = getattr(M, f"mathieu_{f}_dq{suffix}")(mm, q)
            ridders = partial_derivative(getattr(sc, f"mathieu_{f}"), 1, 1 if suffix == "" else 2)(mm, q)
            ok = np.isnan(ridders) | np.isnan(own) | (np.abs(own - ridders) <= tol * np.maximum(np.abs(ridders), 1e-3 * value))
            assert ok.all() and np.isnan(own).mean() < 0.01, (f, suffix, mm[~ok], q[~ok])
    # mathieu_b(6, q) is b_8(q) for 31.75 <= q < 31.93 (SciPy 1.17): NaN, for b_6 and se_6 alike
    assert np.isnan(M.mathieu_b_dq(6, 31.8)) and np.isnan(M.mathieu_sem_dq(6, 31.8, 30.0)[0])
    assert not np.isnan(M.mathieu_b_dq(6, 32.0))


def test_radial_nan_where_scipy_takes_another_eigenvalue():
    # mathieu_modsem1(6, q, x) for 31.75 <= q < 31.93 is built on b_8 (SciPy 1.17): Ridders' tableau
    # straddled the jump there and returned wrong numbers; now NaN, and correct beside it
    assert np.isnan(M.mathieu_modsem1_dq(6, 31.8, 0.5)[0])
    q = 30.5
    h = 1e-5
    central = (sc.mathieu_modsem1(6, q + h, 0.5)[0] - sc.mathieu_modsem1(6, q - h, 0.5)[0]) / (2 * h)
    assert abs(M.mathieu_modsem1_dq(6, q, 0.5)[0] - central) <= 1e-6 * abs(central)
