"""The Legendre family's cases the generic suites do not sample: branch_cut=3 off its cut (the suites'
real domain lies on it), and every position's first and second derivative there against mpmath,
forward and reverse."""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
import scipy.special as sc

from jaxsci.special import assoc_legendre_p, assoc_legendre_p_all


def _mp(n, m, z, order, norm):
    scale = mpmath.sqrt((2 * n + 1) * mpmath.factorial(n - m) / (2 * mpmath.factorial(n + m))) if norm else 1
    # mpmath is slow at positive integer orders (a limit at a pole): DLMF 14.9.13 reaches them from -m
    scale *= mpmath.factorial(n + m) / mpmath.factorial(n - m) if m > 0 else 1
    return complex(scale * mpmath.diff(lambda t: mpmath.legenp(n, -abs(m), t, type=3), z, order))


def _close(got, expected, rtol):
    return abs(complex(got) - expected) <= rtol * max(1.0, abs(expected))


@pytest.mark.parametrize("z", [1.5, 0.3 + 0.4j])
@pytest.mark.parametrize("norm", [False, True])
def test_branch_cut_3_derivatives_match_mpmath(z, norm):
    n, m, diff_n = 3, -2, 1
    real = isinstance(z, float)
    value = jnp.asarray(z, dtype=jnp.float64 if jax.config.jax_enable_x64 else jnp.float32) if real else jnp.asarray(z)
    np.testing.assert_allclose(assoc_legendre_p(n, m, value, branch_cut=3, norm=norm, diff_n=diff_n),
                               sc.assoc_legendre_p(n, m, z, branch_cut=3, norm=norm, diff_n=diff_n), rtol=1e-5)
    rtol = 1e-9 if jax.config.jax_enable_x64 else 2e-3
    for d in range(diff_n + 1):
        f = lambda x: assoc_legendre_p(n, m, x, branch_cut=3, norm=norm, diff_n=diff_n)[d]
        first, second = _mp(n, m, z, d + 1, norm), _mp(n, m, z, d + 2, norm)
        # compiled: the rule's branches are many small operations, slow one by one
        if real:
            assert _close(jax.jit(jax.grad(f))(value), first.real, rtol)
            assert _close(jax.jit(jax.grad(jax.grad(f)))(value), second.real, 100 * rtol)
            assert _close(jax.jit(jax.jacfwd(jax.jacrev(f)))(value), second.real, 100 * rtol)
        else:
            assert _close(jax.jit(jax.jacfwd(f, holomorphic=True))(value), first, rtol)
            assert _close(jax.jit(jax.jacrev(jax.jacfwd(f, holomorphic=True), holomorphic=True))(value), second, 100 * rtol)


def test_branch_cut_3_all_orders_and_degrees_match_mpmath():
    z = 1.25
    value = jnp.asarray(z, dtype=jnp.float64 if jax.config.jax_enable_x64 else jnp.float32)
    hessian = jax.jit(jax.hessian(lambda x: assoc_legendre_p_all(2, 1, x, branch_cut=3, diff_n=0)))(value)
    rtol = 1e-7 if jax.config.jax_enable_x64 else 2e-2
    for j in range(3):
        for i, k in enumerate((0, 1, -1)):
            expected = _mp(j, k, z, 2, False) if abs(k) <= j else 0.0
            assert _close(hessian[0, j, i], expected.real if abs(k) <= j else 0.0, rtol), (j, k)


def test_sph_harm_y_diff_n_parts_are_jaxs_jacobian_and_hessian():
    # SciPy's diff_n=2 tuple (y, dy, ddy) is jax's jacobian and hessian of jaxsci's diff_n=0 in
    # (theta, phi), and jaxsci's own diff_n=2 gives the same numbers
    from jaxsci.special import sph_harm_y

    n, m, theta, phi = 3, -2, 0.7, 0.4
    y, dy, ddy = sc.sph_harm_y(n, m, theta, phi, diff_n=2)
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    angles = jnp.asarray([theta, phi], dtype=dtype)
    f = jax.jit(lambda a: sph_harm_y(n, m, a[0], a[1]))
    rtol = 1e-10 if jax.config.jax_enable_x64 else 1e-4
    np.testing.assert_allclose(f(angles), y, rtol=rtol)
    jacobian, hessian = jax.jit(jax.jacfwd(f))(angles), jax.jit(jax.jacfwd(jax.jacfwd(f)))(angles)
    np.testing.assert_allclose(jacobian, dy, rtol=rtol)
    np.testing.assert_allclose(hessian, ddy, rtol=10 * rtol)
    own = sph_harm_y(n, m, angles[0], angles[1], diff_n=2)
    np.testing.assert_allclose(own[1], jacobian, rtol=rtol)
    np.testing.assert_allclose(own[2], hessian, rtol=rtol)


def test_derivatives_at_and_near_the_endpoints_and_poles_are_scipys():
    # z = +-1 and theta = 0, pi: the rules past the last position are the Gegenbauer forms (legendre_p,
    # assoc_legendre_p)
    # and the ladder in the order (the spherical functions), with no division by 1 - z^2 or
    # sin(theta); the recurrences they replace gave NaN at the points and wrong numbers next to them
    # (a hessian of legendre_p off by 1e9 at z = 1 - 1e-12). Forward and reverse, against SciPy's own
    # derivatives (diff_n = 2).
    from jaxsci.special import (assoc_legendre_p, assoc_legendre_p_all, legendre_p, legendre_p_all, sph_harm_y,
                                sph_legendre_p, sph_legendre_p_all)

    if not jax.config.jax_enable_x64:
        pytest.skip("float64 points next to the endpoints")
    for z in (-1.0, 1 - 1e-12):
        expected = sc.legendre_p(4, z, diff_n=2)
        for second in (jax.hessian(lambda x: legendre_p(4, x)[0]), jax.jacrev(jax.grad(lambda x: legendre_p(4, x)[0]))):
            assert abs(float(second(z)) - expected[2]) <= 1e-12 * abs(expected[2]), z
        stacked = np.asarray(jax.jacfwd(lambda x: legendre_p_all(5, x, diff_n=1)[1])(z))
        np.testing.assert_allclose(stacked, sc.legendre_p_all(5, z, diff_n=2)[2], rtol=1e-12, atol=1e-12)
        # SciPy's assoc_legendre_p(_all) with diff_n=2 at z = +-1 itself is wrong (assoc_legendre_p(5, -2, 1.0,
        # diff_n=2)[2] is -0.25 and P_3''(-1) comes out 15; mpmath's are -2.25 and -15, legendre_p's -15):
        # there the point 1e-12 away is SciPy's value
        near = z * (1 - 1e-12) if abs(z) == 1 else z
        for n, m in ((4, 0), (4, 2), (5, -2), (3, 1)):
            if abs(z) == 1 and m % 2:
                continue  # an odd order's derivative is infinite at z = +-1
            want = sc.assoc_legendre_p(n, m, near, diff_n=2)[2]
            got = float(jax.hessian(lambda x: assoc_legendre_p(n, m, x)[0])(z))
            assert abs(got - want) <= 1e-9 * max(1, abs(want)), (n, m, z, got, want)
        # forward mode: reverse mode contracts every position with the cotangent, and at z = +-1 the
        # odd orders' infinite derivatives make every row NaN (0 * inf)
        every = np.asarray(jax.jacfwd(lambda x: assoc_legendre_p_all(4, 2, x, diff_n=1)[1])(z))
        want = sc.assoc_legendre_p_all(4, 2, near, diff_n=2)[2]
        np.testing.assert_allclose(every[:, [0, 2]], want[:, [0, 2]], rtol=1e-9, atol=1e-9)  # the orders 0 and 2
    for theta in (0.0, np.pi - 1e-9):
        expected = sc.sph_legendre_p(3, 1, theta, diff_n=2)
        assert abs(float(jax.hessian(lambda t: sph_legendre_p(3, 1, t)[0])(theta)) - expected[2]) <= 1e-12, theta
        assert abs(float(jax.grad(lambda t: sph_legendre_p(3, 1, t, diff_n=1)[1])(theta)) - expected[2]) <= 1e-12, theta
        every = np.asarray(jax.hessian(lambda t: sph_legendre_p_all(3, 2, t)[0])(theta))
        np.testing.assert_allclose(every, sc.sph_legendre_p_all(3, 2, theta, diff_n=2)[2], rtol=1e-12, atol=1e-12)
        harmonic = sph_harm_y(3, -2, theta, 0.4, diff_n=2)
        for got, want in zip(harmonic, sc.sph_harm_y(3, -2, theta, 0.4, diff_n=2)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_assoc_legendre_p_dz_large_degrees_and_orders_are_scipys():
    # the kernel behind assoc_legendre_p's rules: SciPy's integer Gegenbauer recurrence (its float-degree
    # path is NaN at degree 290) and the constants in logarithms (norm=True's small factor times the
    # Gegenbauer form's (2M - 1)!! overflows at degree 200, order 100; Gamma ratios at order -200)
    from jaxsci._core.kernels.legendre import assoc_legendre_p_dz

    for n, m in ((300, 10), (200, 100), (300, 200), (300, -200), (150, -3)):
        for norm in (True, False):
            want = sc.assoc_legendre_p(n, m, 0.3, norm=norm, diff_n=2)
            got = [float(assoc_legendre_p_dz(n, m, 0.3, k, norm=norm)) for k in range(3)]
            if not np.isfinite(want).all():  # P_300^200 itself is about 1e600: both overflow
                assert not np.isfinite(got).any(), (n, m, norm, got)
                continue
            np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-300, err_msg=f"{n} {m} {norm}")


def test_negative_degrees_are_scipys_zero_with_zero_derivatives():
    # SciPy returns 0 for n < 0 at every point, and diff_n gives zero derivatives there: a constant
    from jaxsci.special import sph_harm_y, sph_legendre_p

    n, m, theta, phi, z = -3, 1, 0.7, 0.4, 0.3
    assert sc.sph_harm_y(n, m, theta, phi) == 0 and np.all(sc.sph_harm_y(n, m, theta, phi, diff_n=2)[2] == 0)
    hessian = jax.jit(jax.hessian(lambda a: sph_harm_y(n, m, a[0], a[1]).real))(jnp.asarray([theta, phi]))
    np.testing.assert_array_equal(hessian, 0.0)
    np.testing.assert_array_equal(jax.jit(jax.grad(lambda t: sph_legendre_p(n, m, t)[0]))(theta), 0.0)
    np.testing.assert_array_equal(jax.jit(jax.hessian(lambda t: assoc_legendre_p(n, m, t)[0]))(z), 0.0)
