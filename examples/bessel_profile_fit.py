"""Fit the parameters of a Bessel-function profile by gradient descent.

A circular membrane (or a fibre mode) has the radial profile A * J0(k r). From noisy samples we
recover A and k by minimising the squared error with jax.grad through jaxsci's jv, jitted, with the
Hessian at the optimum giving the parameters' standard errors.
"""
import jax
import jax.numpy as jnp
import numpy as np

from jaxsci.special import jv

jax.config.update("jax_enable_x64", True)

true_amplitude, true_k = 1.7, 2.405
rng = np.random.default_rng(0)
r = jnp.linspace(0.0, 3.0, 200)
noise = 0.01
data = true_amplitude * jv(0, true_k * r) + noise * rng.standard_normal(r.shape)


def loss(params):
    amplitude, k = params
    return 0.5 * jnp.sum((amplitude * jv(0, k * r) - data) ** 2)


@jax.jit
def step(params, learning_rate):
    return params - learning_rate * jax.grad(loss)(params)


params = jnp.array([1.0, 2.0])
for _ in range(300):
    params = step(params, 2e-3)

hessian = jax.hessian(loss)(params)
standard_errors = jnp.sqrt(jnp.diag(jnp.linalg.inv(hessian)) * noise**2)
print(f"fitted A = {params[0]:.4f} +- {standard_errors[0]:.4f} (true {true_amplitude})")
print(f"fitted k = {params[1]:.4f} +- {standard_errors[1]:.4f} (true {true_k})")
assert abs(params[0] - true_amplitude) < 5 * standard_errors[0] + 1e-3
assert abs(params[1] - true_k) < 5 * standard_errors[1] + 1e-3
