"""Lambert W in a closed-form solution, then differentiated.

The current through a diode with series resistance R solves I = Is * (exp((V - I R) / Vt) - 1),
whose closed form is I = Vt / R * W(Is R / Vt * exp((V + Is R) / Vt)) - Is. jax.grad of that
closed form gives the small-signal conductance dI/dV, checked here against implicit
differentiation of the defining equation, F(I, V) = 0: dI/dV = -F_V / F_I.
"""
import jax
import jax.numpy as jnp

from jaxsci.special import lambertw

jax.config.update("jax_enable_x64", True)

Is, R, Vt = 1e-12, 10.0, 0.02585


def current(V):
    argument = Is * R / Vt * jnp.exp((V + Is * R) / Vt)
    return jnp.real(Vt / R * lambertw(argument)) - Is


def residual(I, V):
    return Is * (jnp.exp((V - I * R) / Vt) - 1) - I


voltages = jnp.linspace(0.3, 0.9, 7)
currents = jax.vmap(current)(voltages)
conductance = jax.vmap(jax.grad(current))(voltages)
implicit = jax.vmap(lambda I, V: -jax.grad(residual, 1)(I, V) / jax.grad(residual, 0)(I, V))(currents, voltages)
for V, I, g, g_ref in zip(voltages, currents, conductance, implicit):
    print(f"V = {V:.2f} V   I = {I:.6e} A   dI/dV = {g:.6e} S   (implicit: {g_ref:.6e} S)")
assert jnp.allclose(jax.vmap(residual)(currents, voltages), 0, atol=1e-12)
assert jnp.allclose(conductance, implicit, rtol=1e-9)
