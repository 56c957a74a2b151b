"""Student-t confidence intervals for many small samples at once, inside jit and vmap.

Each row of `samples` is one experiment of n measurements. The two-sided interval for its mean at
confidence c is mean ± t_{(1 + c)/2, n - 1} * s / sqrt(n), where t is the Student-t quantile, jaxsci's
stdtrit(df, p). jax.grad of the interval width with respect to c uses stdtrit's implicit-function rule
(d t / d p = 1 / density at t); it is checked against scipy.stats.t.pdf.
"""
import jax
import jax.numpy as jnp
import numpy as np
import scipy.stats

from jaxsci.special import stdtrit

jax.config.update("jax_enable_x64", True)


def interval(sample, confidence):
    n = sample.shape[0]
    half_width = stdtrit(n - 1.0, (1 + confidence) / 2) * jnp.std(sample, ddof=1) / jnp.sqrt(n)
    return jnp.mean(sample) - half_width, jnp.mean(sample) + half_width


def width(sample, confidence):
    low, high = interval(sample, confidence)
    return high - low


@jax.jit
def intervals_and_sensitivity(samples, confidence):
    lows, highs = jax.vmap(interval, in_axes=(0, None))(samples, confidence)
    d_width = jax.vmap(jax.grad(width, argnums=1), in_axes=(0, None))(samples, confidence)
    return lows, highs, d_width


rng = np.random.default_rng(0)
samples = jnp.asarray(rng.normal(loc=3.0, scale=2.0, size=(5, 8)))
lows, highs, d_width = intervals_and_sensitivity(samples, 0.95)

s = np.asarray(samples)
n, scale = s.shape[1], s.std(axis=1, ddof=1) / np.sqrt(s.shape[1])
ref_low, ref_high = scipy.stats.t.interval(0.95, n - 1, loc=s.mean(axis=1), scale=scale)
t = scipy.stats.t.ppf(0.975, n - 1)
ref_d_width = 2 * scale * 0.5 / scipy.stats.t.pdf(t, n - 1)  # d t/dp = 1/pdf(t), and dp/dc = 1/2
for row in range(s.shape[0]):
    print(f"sample {row}: [{lows[row]:.4f}, {highs[row]:.4f}]   d width / d confidence = {d_width[row]:.4f}")
np.testing.assert_allclose(lows, ref_low, rtol=1e-12)
np.testing.assert_allclose(highs, ref_high, rtol=1e-12)
np.testing.assert_allclose(d_width, ref_d_width, rtol=1e-10)
