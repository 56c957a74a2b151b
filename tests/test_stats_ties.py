"""Derivatives exactly at a formula's branch point: where a clamp ties with its bound (a formula's
``where(x > 1, f(maximum(x, 1)), g(minimum(x, 1)))`` at x = 1) and where a probability equals 0 or 1. jax.numpy's
maximum, minimum and clip give each operand half the derivative at a tie, which made these silently wrong
(cauchy's d logpdf/dx at x = 1 was -0.5, laplace's ppf' at q = 1/2 was 1, bernoulli's d pmf/dp at p = 1 was 1/2)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsci._core import distributions
from jaxsci.stats import bernoulli, cauchy, laplace

jax.config.update("jax_enable_x64", True)


def test_the_cores_maximum_and_minimum_give_the_first_operand_the_derivative_at_a_tie_and_propagate_nan():
    assert jax.grad(lambda x: distributions.maximum(x, 1.0))(1.0) == 1.0
    assert jax.grad(lambda x: distributions.minimum(x, 1.0))(1.0) == 1.0
    assert jax.grad(lambda x: distributions.maximum(x, 1.0))(0.5) == 0.0
    assert jax.grad(lambda x: distributions.minimum(x, 1.0))(0.5) == 1.0
    for f in (distributions.maximum, distributions.minimum):
        assert np.isnan(f(jnp.nan, 1.0)) and np.isnan(f(1.0, jnp.nan))


@pytest.mark.parametrize("fn, at, exact", [
    (lambda x: cauchy.logpdf(x), 1.0, -1.0),            # -2x / (1 + x^2)
    (lambda x: cauchy.logpdf(x), -1.0, 1.0),
    (lambda q: laplace.ppf(q), 0.5, 2.0),               # 1 / pdf(0)
    (lambda p: bernoulli.pmf(1.0, p), 1.0, 1.0),        # pmf(1) = p
    (lambda p: bernoulli.pmf(0.0, p), 0.0, -1.0),       # pmf(0) = 1 - p
    (lambda p: bernoulli.cdf(0.0, p), 1.0, -1.0),
], ids=["cauchy-logpdf-1", "cauchy-logpdf-minus-1", "laplace-ppf-half", "bernoulli-pmf-p1", "bernoulli-pmf-p0",
        "bernoulli-cdf-p1"])
def test_a_derivative_at_a_branch_point_is_whole(fn, at, exact):
    assert float(jax.grad(fn)(at)) == pytest.approx(exact, rel=1e-12)
    assert float(jax.jvp(fn, (at,), (1.0,))[1]) == pytest.approx(exact, rel=1e-12)
