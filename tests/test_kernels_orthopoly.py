"""Host kernel: exact parameter derivatives of Jacobi polynomials (Taylor arithmetic through DLMF 18.9.1) vs mpmath."""

import mpmath
import numpy as np
import pytest
import scipy.special as sc

from jaxsci._core.kernels import orthopoly as J

mpmath.mp.dps = 30

POINTS = [(0, 0.3, 1.7, 0.4), (1, -0.5, 2.5, -0.9), (2, 2.0, -0.6, 0.99), (5, 1.5, 0.5, 1.0), (12, 0.1, 0.2, -1.0),
          (7, 2.5, 3.0, 1.15)]


@pytest.mark.parametrize("p,q", [(1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (3, 1)])
def test_against_mpmath(p, q):
    n, a, b, x = np.array(POINTS).T
    got = J.eval_jacobi_dparam(n.astype(int), a, b, x, p, q)
    for point, g in zip(POINTS, got):
        n0, a0, b0, x0 = point
        ref = mpmath.diff(lambda s, t: mpmath.jacobi(n0, s, t, x0), (a0, b0), (p, q))
        assert abs(g - ref) <= 1e-12 * max(1, abs(ref)), (point, g, ref)


def test_order_zero_is_scipys_polynomial_and_exact_zeros_stay_zero():
    n, a, b, x = np.array(POINTS).T
    np.testing.assert_allclose(J.eval_jacobi_dparam(n.astype(int), a, b, x, 0, 0), sc.eval_jacobi(n, a, b, x), rtol=1e-12)
    # P_1 is linear in alpha and beta: its second derivatives are 0 exactly, also at its root, where
    # Ridders' differences of SciPy return NaN (no scale to measure their error against)
    root = sc.roots_jacobi(1, 0.7, 1.9)[0][0]
    assert J.eval_jacobi_dparam(1, 0.7, 1.9, root, 2, 0) == 0 == J.eval_jacobi_dparam(1, 0.7, 1.9, root, 1, 1)


def test_edges_and_shapes():
    assert np.isnan(J.eval_jacobi_dparam(2.5, 0.5, 0.5, 0.3))          # a float degree is not this polynomial
    assert J.eval_jacobi_dparam(-1, 0.5, 0.5, 0.3) == 0 == J.eval_jacobi_dparam(-2, 0.5, 0.5, 0.3, 0, 2)
    assert J.eval_jacobi_dparam(3, 0.5, 0.5, 0.3, -1, 0) == 0           # an absent Leibniz term
    assert J.eval_jacobi_dparam(np.arange(3), 0.5, np.ones((2, 1)), 0.3 + 0.2j).shape == (2, 3)


def test_high_degree_at_the_roots_stays_accurate():
    # the roots' derivatives need d P_n / d alpha at the roots: the recurrence keeps it to rounding
    nodes = sc.roots_jacobi(60, 1.5, -0.5)[0][[0, 20, 59]]
    got = J.eval_jacobi_dparam(60, 1.5, -0.5, nodes, 1, 0)
    for x0, g in zip(nodes, got):
        ref = mpmath.diff(lambda s: mpmath.jacobi(60, s, -0.5, x0), 1.5)
        assert abs(g - ref) <= 1e-11 * abs(ref), (x0, g, ref)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_genlaguerre_against_mpmath_at_its_roots(p):
    # at the roots, where roots_genlaguerre's rules evaluate it, up to a degree SciPy's rules reach
    for n, a in [(1, 0.5), (5, -0.6), (20, 2.5), (60, 0.0)]:
        nodes = sc.roots_genlaguerre(n, a)[0][[0, n // 2, -1]]
        got = J.eval_genlaguerre_dparam(n, a, nodes, p)
        for x0, g in zip(nodes, got):
            ref = mpmath.diff(lambda s: mpmath.laguerre(n, s, mpmath.mpf(x0) + mpmath.mpf(2) ** -90), a, p)
            assert abs(g - ref) <= 1e-11 * max(1e-300, abs(ref)), (n, a, x0, g, ref)


def test_genlaguerre_edges():
    assert J.eval_genlaguerre_dparam(1, 0.7, 2.0, 2) == 0                # L_1 = 1 + alpha - x is linear in alpha
    assert J.eval_genlaguerre_dparam(-1, 0.7, 2.0) == 0 and np.isnan(J.eval_genlaguerre_dparam(1.5, 0.7, 2.0))
    assert J.eval_genlaguerre_dparam(np.arange(3), 0.5, np.ones((2, 1)) + 1j).shape == (2, 3)


@pytest.mark.parametrize("name, p, q", [("eval_jacobi_dalpha", 1, 0), ("eval_jacobi_dbeta", 0, 1), ("eval_jacobi_dalpha2", 2, 0),
                                        ("eval_jacobi_dbeta2", 0, 2), ("eval_jacobi_dalphadbeta", 1, 1)])
def test_jacobi_parameter_kernels_exact_at_integer_degrees_differences_elsewhere(name, p, q):
    # the kernels the specs' rules call: the recurrence where the degree is an integer (exact, also at
    # degree 12, where second differences of SciPy lose digits), Ridders' differences of SciPy's float-degree
    # function elsewhere; one call mixes both
    from jaxsci._core.kernels import numeric

    n = np.array([12, 12.5, 3, 0.25])
    a, b, x = 0.4, 1.3, np.array([0.35, 0.35, 0.2, -0.6])
    got = getattr(J, name)(n, a, b, x)
    assert got.shape == (4,)
    np.testing.assert_array_equal(got[[0, 2]], J.eval_jacobi_dparam(n[[0, 2]], a, b, x[[0, 2]], p, q))
    np.testing.assert_array_equal(got[[1, 3]], getattr(numeric, name)(n[[1, 3]], a, b, x[[1, 3]]))
    for n0, x0, g in zip(n, x, got):
        ref = mpmath.diff(lambda s, t: mpmath.jacobi(n0, s, t, x0), (a, b), (p, q))
        assert abs(g - ref) <= 1e-7 * max(1, abs(ref)), (n0, x0, g, ref)


@pytest.mark.parametrize("name, p", [("eval_genlaguerre_dalpha", 1), ("eval_genlaguerre_dalpha2", 2)])
def test_genlaguerre_parameter_kernels_exact_at_integer_degrees(name, p):
    n = np.array([12, 11.5, 0, -1])
    got = getattr(J, name)(n, 2.3, 7.0)
    for n0, g in zip(n[:3], got):
        ref = mpmath.diff(lambda s: mpmath.laguerre(n0, s, 7.0), 2.3, p)
        tolerance = 1e-12 if n0 == int(n0) else 1e-7  # the recurrence, or differences of SciPy
        assert abs(g - ref) <= tolerance * max(1, abs(ref)), (n0, g, ref)
    assert got[3] == 0  # a negative degree: the empty sum, as SciPy's eval_genlaguerre(-1, ...) is
    assert sc.eval_genlaguerre(-1, 2.3, 7.0) == 0
