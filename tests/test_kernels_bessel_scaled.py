"""The scaled Bessel argument derivatives (templates/runtime/kernels/bessel_scaled.py): Hankel's expansion
with its Cauchy bound against the rule of DLMF 10.29.1, where the rule does not yet cancel much, and
the kernels' handling of signs, infinities and invalid orders. Their values against mpmath are the
gradient suite's (specs/kernels/ive_dz*.yaml, kve_dz*.yaml) and the hard points' (out to x = 1e15)."""
import numpy as np
import pytest
import scipy.special as sc

from jaxsci._core.kernels import bessel_scaled

GRID = [(v, x) for v in (0.0, 1.0, 2.5, 4.3) for x in (12.0, 20.0, 30.0, 45.0, 60.0)]


@pytest.mark.parametrize("kind", "ik")
@pytest.mark.parametrize("p", [0, 1])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_expansion_within_its_bound_of_the_rule(kind, p, k):
    """Where the rule is accurate to about (2x)^k 1e-14 (x <= 60), the expansion must be within its
    own bound of it: the bound is what the kernel trusts at x = 1e15."""
    v = np.array([g[0] for g in GRID])
    x = np.array([g[1] for g in GRID])
    order = np.full(x.shape, k)
    expansion, bound = bessel_scaled._asymptotic(kind, v, x, order, p)
    rule, rule_error = bessel_scaled._rule(kind, v, x, order, p)
    assert np.all(np.isfinite(rule))
    usable = np.isfinite(bound)
    assert usable.sum() >= len(GRID) - 4  # the expansion applies from x = 8 on the real axis
    gap = np.abs(expansion - rule)[usable]
    assert np.all(gap <= bound[usable] + 10 * rule_error[usable] + 1e-15 * np.abs(rule[usable])), \
        (gap / np.abs(rule[usable]), bound[usable] / np.abs(rule[usable]))
    # and the bound is small enough to be used at the larger x
    tight = usable & (x >= 45) & (v < 3)
    assert np.all(bound[tight] <= 1e-14 * np.fmax(np.abs(rule[tight]), 1e-2 * np.abs(
        bessel_scaled._rule(kind, v[tight], x[tight], order[tight], 0)[0])))


def test_complex_argument_matches_the_rule():
    """kve_dz off the real axis (|ph z| up to 2.2, where the bound takes chi(l)): both methods agree."""
    z = np.array([30 + 40j, -30 + 40j, 50j, 45 - 20j])
    v = np.array([1.3, 1.3, 2.2, 0.0])
    for k in (1, 2):
        got = bessel_scaled.kve_dz(v, z, k)
        rule, _ = bessel_scaled._rule("k", v, z, np.full(z.shape, k), 0)
        np.testing.assert_allclose(got, rule, rtol=1e-11)


def test_negative_argument_and_invalid_orders():
    x = np.array([3.0, 45.0, 1e8])
    for n in (0, 1, 2):
        for k in (0, 1, 2):
            np.testing.assert_allclose(bessel_scaled.ive_dz(n, -x, k), (-1) ** (n + k) * bessel_scaled.ive_dz(n, x, k),
                                       rtol=1e-15)
    assert np.isnan(bessel_scaled.ive_dz(0.5, -3.0, 1))  # ive of an order that is not an integer at x < 0
    assert np.all(np.isnan(bessel_scaled.kve_dz(1.0, -x, 1)))  # as SciPy's kve
    assert np.isnan(bessel_scaled.ive_dz(0.0, 3.0, -1)) and np.isnan(bessel_scaled.kve_dz(0.0, 3.0, 1.5))
    assert bessel_scaled.ive_dz(1.0, np.inf, 1) == 0 and bessel_scaled.kve_dzdv(1.0, np.inf, 2) == 0
    np.testing.assert_allclose(bessel_scaled.ive_dz(2.0, x, 0), sc.ive(2.0, x), rtol=1e-15)


def test_order_derivative_at_order_zero():
    """K_v is even in v: d/dv d/dz kve at v = 0 is 0, which the kernel gives (not NaN); I_v is even up to
    the e^(-2x) K_v part, the kernel's result is within 1e-12 of the z-derivative's size of it."""
    x = np.array([5.0, 30.0, 100.0])
    assert np.all(np.abs(bessel_scaled.kve_dzdv(0.0, x, 1)) <= 1e-14 * np.abs(bessel_scaled.kve_dz(0.0, x, 1)))
    # d/dv I_v at v = 0 is -K_0 (DLMF 10.27.2 differentiated): d/dv d/dx ive = -d/dx (K_0 e^-x) = (K_0 + K_1) e^-x
    expected = (sc.k0e(x) + sc.k1e(x)) * np.exp(-2 * x)
    got = bessel_scaled.ive_dzdv(0.0, x, 1)
    assert np.all(np.abs(got - expected) <= 1e-12 * np.abs(bessel_scaled.ive_dz(0.0, x, 1)))


def test_ive_takes_the_real_axis_rule_for_a_real_argument():
    """ive's z rule has a conjugate part (exp(-|Re z|)); a real z takes its `real` rule, the kernel,
    whose value the derivative is (the mixed v, z derivative takes ive_dv's, checked by the gradient
    suite through ive_dv's z rule)."""
    import jax
    import jax.numpy as jnp

    import jaxsci.special

    v, z = 2.5, 1e8
    first = jax.grad(jaxsci.special.ive, 1)(jnp.float64(v), jnp.float64(z))
    assert first == bessel_scaled.ive_dz(v, z, 1)
    # a complex z keeps the two Wirtinger parts (the kernel is for real z)
    along = jax.jvp(lambda t: jaxsci.special.ive(v, t), (jnp.complex128(3 + 4j),), (jnp.complex128(1),))[1]
    # along 1: e^(-Re z) (I_v'(z) - I_v(z)), with I_v' = (I_(v-1) + I_(v+1)) / 2 (DLMF 10.29.1)
    expected = (sc.ive(v - 1, 3 + 4j) + sc.ive(v + 1, 3 + 4j)) / 2 - sc.ive(v, 3 + 4j)
    np.testing.assert_allclose(along, expected, rtol=1e-13)
