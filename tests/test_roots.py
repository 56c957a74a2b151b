"""Gauss rules differentiated in their parameters, checked against identities independent of the rules:
a Gauss rule integrates polynomials of degree < 2n exactly, so its moments are closed forms in the
parameters, and their derivatives (by JAX, of the closed form) must equal the rule's (by jaxsci)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.special import gammaln

from jaxsci.special import roots_gegenbauer, roots_genlaguerre, roots_jacobi, roots_sh_jacobi


def _jacobi_moment(k, a, b):
    """int_-1^1 (1 - x)^a (1 + x)^b x^k dx for k = 0, 1, 2 (Beta integrals)."""
    mass = jnp.exp((a + b + 1) * jnp.log(2.0) + gammaln(a + 1) + gammaln(b + 1) - gammaln(a + b + 2))
    mean = (b - a) / (a + b + 2)
    second = ((b - a) ** 2 + a + b + 2) / ((a + b + 2) * (a + b + 3))
    return mass * (1.0, mean, second)[k]


@pytest.mark.parametrize("n,k", [(1, 1), (8, 2)])
def test_jacobi_moments_and_their_derivatives_to_second_order(n, k):
    def by_rule(t):
        x, w = roots_jacobi(n, t[0], t[1])
        return jnp.sum(w * x**k)

    moment = lambda t: _jacobi_moment(k, t[0], t[1])  # noqa: E731
    t = jnp.asarray([0.7, -0.3])
    np.testing.assert_allclose(by_rule(t), moment(t), rtol=1e-12)
    np.testing.assert_allclose(jax.grad(by_rule)(t), jax.grad(moment)(t), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jax.hessian(by_rule)(t), jax.hessian(moment)(t), rtol=1e-8, atol=1e-11)


def test_laguerre_nodes_sum_to_n_times_n_plus_alpha():
    # the trace of the Jacobi matrix: the derivative is n, the second derivative 0
    d = jax.grad(lambda a: jnp.sum(roots_genlaguerre(6, a)[0]))
    assert abs(float(d(1.3)) - 6) < 1e-10 and abs(float(jax.grad(d)(1.3))) < 1e-9


@pytest.mark.parametrize("rule,closed,at", [
    # Laguerre mass Gamma(alpha + 1); Gegenbauer mass B(1/2, alpha + 1/2); shifted Jacobi mass B(q1, p1 - q1 + 1)
    (lambda a: jnp.sum(roots_genlaguerre(4, a)[1]), lambda a: jnp.exp(gammaln(a + 1)), 0.8),
    (lambda a: jnp.sum(roots_gegenbauer(5, a)[1]), lambda a: jnp.exp(gammaln(0.5) + gammaln(a + 0.5) - gammaln(a + 1)), 1.2),
    (lambda p: jnp.sum(roots_sh_jacobi(3, p, 0.7)[1]), lambda p: jnp.exp(gammaln(0.7) + gammaln(p - 0.7 + 1) - gammaln(p + 1)), 2.5),
], ids=["genlaguerre", "gegenbauer", "sh_jacobi"])
def test_the_other_rules_masses_follow_their_parameters(rule, closed, at):
    np.testing.assert_allclose(jax.grad(rule)(at), jax.grad(closed)(at), rtol=1e-10)
    np.testing.assert_allclose(jax.grad(jax.grad(rule))(at), jax.grad(jax.grad(closed))(at), rtol=1e-9)


def test_an_invalid_parameter_is_nan_alone_in_its_batch():
    import scipy.special as sc

    x, w = jax.vmap(lambda a: roots_jacobi(3, a, 0.5))(jnp.asarray([0.5, -2.0, jnp.nan, 1.5]))
    assert np.isnan(np.asarray(x[1:3])).all() and np.isnan(np.asarray(w[1:3])).all()
    for row, a in [(0, 0.5), (3, 1.5)]:
        np.testing.assert_array_equal(np.asarray(x[row]), sc.roots_jacobi(3, a, 0.5)[0])
        np.testing.assert_array_equal(np.asarray(w[row]), sc.roots_jacobi(3, a, 0.5)[1])
