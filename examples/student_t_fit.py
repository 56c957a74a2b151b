"""Fit a Student-t (df, loc, scale) by maximum likelihood with jax.grad, and differentiate a quantile in df.

The data are drawn with jaxsci.stats.t.rvs. The negative log-likelihood -sum t.logpdf(x, df, loc, scale)
is minimised by scipy.optimize.minimize (BFGS) over (log df, loc, log scale), with the gradient from
jax.value_and_grad; the fit is compared with scipy.stats.t.fit on the same data. Then the fitted
distribution's 99% quantile, t.ppf(0.99, df, loc, scale), is differentiated in df: jaxsci gives
d ppf / d df by the implicit-function rule (-(dF/ddf) / f at the quantile), checked here against a
central difference of SciPy's own ppf.
"""
import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize
import scipy.stats

from jaxsci.stats import t

jax.config.update("jax_enable_x64", True)

TRUE_DF, TRUE_LOC, TRUE_SCALE = 4.0, 1.5, 0.7
data = t.rvs(jax.random.key(0), TRUE_DF, loc=TRUE_LOC, scale=TRUE_SCALE, size=2000)


def unpack(theta):
    """(log df, loc, log scale) -> (df, loc, scale): unconstrained for the optimiser."""
    return jnp.exp(theta[0]), theta[1], jnp.exp(theta[2])


@jax.jit
def negative_log_likelihood(theta):
    df, loc, scale = unpack(theta)
    return -jnp.sum(t.logpdf(data, df, loc=loc, scale=scale))


value_and_grad = jax.jit(jax.value_and_grad(negative_log_likelihood))
start = np.array([np.log(10.0), float(jnp.median(data)), 0.0])
result = scipy.optimize.minimize(lambda th: tuple(np.asarray(v) for v in value_and_grad(th)), start, jac=True,
                                 method="BFGS", options={"gtol": 1e-8})
df, loc, scale = (float(v) for v in unpack(result.x))

x = np.asarray(data)
scipy_df, scipy_loc, scipy_scale = scipy.stats.t.fit(x)
scipy_nll = -scipy.stats.t.logpdf(x, scipy_df, scipy_loc, scipy_scale).sum()
print(f"jaxsci + BFGS:   df = {df:.5f}, loc = {loc:.5f}, scale = {scale:.5f}, -log L = {result.fun:.6f} "
      f"({result.nit} iterations, largest gradient {np.abs(result.jac).max():.1e})")
print(f"scipy.stats.fit: df = {scipy_df:.5f}, loc = {scipy_loc:.5f}, scale = {scipy_scale:.5f}, -log L = {scipy_nll:.6f}")

# The likelihood's maximum: ours is at least as high as SciPy's (Nelder-Mead stops a little short of it),
# and the two fits agree to the precision SciPy's optimiser reaches.
# BFGS may stop with "precision loss" at the optimum, where the likelihood is flat to rounding: the gradient says
assert np.abs(result.jac).max() < 1e-4, (result.message, result.jac)
assert result.fun <= scipy_nll + 1e-6, (result.fun, scipy_nll)
np.testing.assert_allclose([df, loc, scale], [scipy_df, scipy_loc, scipy_scale], rtol=2e-3)
assert abs(df - TRUE_DF) < 1.0 and abs(loc - TRUE_LOC) < 0.1 and abs(scale - TRUE_SCALE) < 0.1

# A ppf-based quantity differentiated in a shape parameter: the 99% quantile's sensitivity to df.
quantile = t.ppf(0.99, df, loc=loc, scale=scale)
d_quantile_d_df = jax.jit(jax.grad(t.ppf, argnums=1))(0.99, df, loc, scale)
step = 1e-5 * df
central = (scipy.stats.t.ppf(0.99, df + step, loc, scale) - scipy.stats.t.ppf(0.99, df - step, loc, scale)) / (2 * step)
print(f"99% quantile {float(quantile):.6f}; d/d df = {float(d_quantile_d_df):.8f} "
      f"(central difference of SciPy's ppf: {central:.8f})")
np.testing.assert_allclose(float(quantile), scipy.stats.t.ppf(0.99, df, loc, scale), rtol=1e-12)
np.testing.assert_allclose(float(d_quantile_d_df), central, rtol=1e-6)
