"""Gauss rules differentiated in their parameters, checked against identities independent of the rules:
a Gauss rule integrates polynomials of degree < 2n exactly, so its moments are closed forms in the
parameters, and their derivatives (by JAX, of the closed form) must equal the rule's (by jaxsci)."""
import jax
import jax.numpy as jnp
import mpmath
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


# SciPy's mu=True: each rule's third output, mu, is the integral of its weight function (the sum of
# the weights); every roots_* function with the parameters it takes (None: the parameterless rules)
_RULES_WITH_MU = [
    ("roots_legendre", ()), ("roots_chebyt", ()), ("roots_chebyu", ()), ("roots_chebyc", ()), ("roots_chebys", ()),
    ("roots_jacobi", (0.7, -0.3)), ("roots_sh_jacobi", (2.5, 1.5)), ("roots_gegenbauer", (0.8,)),
    ("roots_genlaguerre", (1.3,)), ("roots_laguerre", ()), ("roots_hermite", ()), ("roots_hermitenorm", ()),
    ("roots_sh_legendre", ()), ("roots_sh_chebyt", ()), ("roots_sh_chebyu", ()),
]


@pytest.mark.parametrize("n", [1, 7, 40, 160])  # 160: SciPy's asymptotic Hermite rule (n > 150)
@pytest.mark.parametrize("name,params", _RULES_WITH_MU, ids=[name for name, _ in _RULES_WITH_MU])
def test_mu_true_returns_scipys_nodes_weights_and_mu(name, params, n):
    import scipy.special as sc

    import jaxsci.special as js

    x, w, mu = getattr(js, name)(n, *params, mu=True)
    expected = getattr(sc, name)(n, *params, mu=True)
    np.testing.assert_array_equal(np.asarray(x), expected[0])
    np.testing.assert_array_equal(np.asarray(w), expected[1])
    assert np.shape(mu) == ()
    # SciPy scales its weights to sum to its closed-form mu, so the sum differs from it by rounding only
    np.testing.assert_allclose(float(mu), expected[2], rtol=4 * n * np.finfo(float).eps)
    two = getattr(js, name)(n, *params)
    assert len(two) == 2 and np.array_equal(np.asarray(two[1]), np.asarray(w))


@pytest.mark.parametrize("alias,name,params", [
    ("p_roots", "roots_legendre", ()), ("j_roots", "roots_jacobi", (0.5, 0.5)), ("la_roots", "roots_genlaguerre", (0.5,)),
    ("h_roots", "roots_hermite", ()), ("cg_roots", "roots_gegenbauer", (1.5,)), ("js_roots", "roots_sh_jacobi", (2.0, 1.0)),
])
def test_mu_true_through_the_aliases_by_position(alias, name, params):
    import scipy.special as sc

    import jaxsci.special as js

    assert getattr(js, alias) is getattr(js, name)
    mu = getattr(js, alias)(5, *params, True)[2]
    np.testing.assert_allclose(float(mu), getattr(sc, alias)(5, *params, True)[2], rtol=1e-14)


def test_mu_under_jit_and_vmap_and_for_batched_parameters():
    import scipy.special as sc

    alphas = jnp.asarray([0.2, 1.5, -0.4])
    mus = jax.jit(jax.vmap(lambda a: roots_gegenbauer(4, a, mu=True)[2]))(alphas)
    np.testing.assert_allclose(mus, [sc.roots_gegenbauer(4, float(a), True)[2] for a in alphas], rtol=1e-14)
    alpha, beta = jnp.asarray([0.2, 1.5, 3.0]), jnp.asarray([[0.1], [-0.6]])
    x, w, mu = roots_jacobi(6, alpha, beta, mu=True)
    assert x.shape == w.shape == (6, 2, 3) and mu.shape == (2, 3)
    for i, b in enumerate([0.1, -0.6]):
        for j, a in enumerate([0.2, 1.5, 3.0]):
            np.testing.assert_allclose(mu[i, j], sc.roots_jacobi(6, a, b, True)[2], rtol=1e-14)


def test_mu_is_nan_where_the_parameters_are_invalid_in_a_traced_batch():
    import jaxsci

    with pytest.warns(jaxsci.CallbackWarning, match="alpha must be greater than -1"):
        mu = jax.vmap(lambda a: roots_genlaguerre(3, a, mu=True)[2])(jnp.asarray([0.5, -2.0]))
    assert np.isfinite(float(mu[0])) and np.isnan(float(mu[1]))


def _mp(value):
    return float(mpmath.mpf(value))


# mu in closed form (the weight function's integral: Beta and Gamma integrals, DLMF 5.12.1 and 5.2.1),
# differentiated by mpmath; each closed form is first checked to be SciPy's mu
_MU_CLOSED_FORMS = [
    ("roots_jacobi", (0.7, -0.3), lambda a, b: 2 ** (a + b + 1) * mpmath.beta(a + 1, b + 1)),
    ("roots_sh_jacobi", (2.5, 1.5), lambda p, q: mpmath.beta(q, p - q + 1)),
    ("roots_gegenbauer", (0.8,), lambda a: mpmath.beta(0.5, a + 0.5)),
    ("roots_genlaguerre", (1.3,), lambda a: mpmath.gamma(a + 1)),
]


@pytest.mark.parametrize("name,params,closed", _MU_CLOSED_FORMS, ids=[name for name, _, _ in _MU_CLOSED_FORMS])
def test_mu_derivatives_in_each_parameter_match_mpmath(name, params, closed):
    import scipy.special as sc

    import jaxsci.special as js

    rule = getattr(js, name)
    np.testing.assert_allclose(_mp(closed(*params)), getattr(sc, name)(9, *params, True)[2], rtol=1e-13)
    for k in range(len(params)):
        def mu_in(t, k=k):
            return rule(9, *params[:k], t, *params[k + 1:], mu=True)[2]

        def closed_in(t, k=k):
            return closed(*params[:k], t, *params[k + 1:])

        with mpmath.workdps(30):
            first, second = (_mp(mpmath.diff(closed_in, mpmath.mpf(params[k]), order)) for order in (1, 2))
        np.testing.assert_allclose(jax.grad(mu_in)(params[k]), first, rtol=1e-10)
        np.testing.assert_allclose(jax.grad(jax.grad(mu_in))(params[k]), second, rtol=1e-8)
