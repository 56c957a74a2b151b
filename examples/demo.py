"""jaxsci in one screen: jv values, gradients, a hessian and a vmapped call, next to SciPy and mpmath."""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import scipy.special as sc

from jaxsci.special import jv, kv, spherical_jn

jax.config.update("jax_enable_x64", True)
mpmath.mp.dps = 30


def row(label, ours, reference):
    ours, reference = complex(ours), complex(reference)
    error = abs(ours - reference) / max(abs(reference), 1e-300)
    fmt = lambda x: f"{x.real:+.15f}" if x.imag == 0 else f"{x.real:+.10f}{x.imag:+.10f}j"
    print(f"  {label:<34} jaxsci {fmt(ours):>28}   reference {fmt(reference):>28}   rel.err {error:.1e}")


print("values (reference: scipy.special)")
for v, z in [(0, 1.0), (1, 2.0), (2.5, 10.0), (1, 3.0 + 2.0j)]:
    row(f"jv({v}, {z})", jv(v, z), sc.jv(v, z))

print("first derivatives d/dz (reference: mpmath.diff at 30 digits)")
for v, z in [(1, 2.0), (0, 0.0), (1, 0.0), (3.5, 7.0)]:
    row(f"grad jv({v}, z) at z={z}", jax.grad(jv, argnums=1)(float(v), z), mpmath.diff(lambda t: mpmath.besselj(v, t), z))
row("jvp kv(1.5, z) at z=2", jax.jvp(lambda z: kv(1.5, z), (2.0,), (1.0,))[1], mpmath.diff(lambda t: mpmath.besselk(1.5, t), 2))

print("second derivatives (hessian)")
for v, z in [(1, 2.0), (0, 0.0)]:
    row(f"hessian jv({v}, z) at z={z}", jax.hessian(lambda t: jv(float(v), t))(z), mpmath.diff(lambda t: mpmath.besselj(v, t), z, 2))

print("float32, as in JAX's callback docs")
row("grad jv(1, z) at z=2 (float32)", jax.grad(lambda z: jv(1, z))(jnp.float32(2.0)), mpmath.diff(lambda t: mpmath.besselj(1, t), 2))

print("vmap: orders 0..4 at z = 3, one callback for the whole batch")
orders = jnp.arange(5.0)
batched = jax.jit(jax.vmap(jv, in_axes=(0, None)))(orders, 3.0)
print("  jaxsci ", np.asarray(batched))
print("  scipy  ", sc.jv(np.arange(5.0), 3.0))

print("a static keyword, as in SciPy: spherical_jn(2, z, derivative=True) at z=1.5")
row("spherical_jn(2, 1.5, derivative=True)", spherical_jn(2, 1.5, derivative=True), sc.spherical_jn(2, 1.5, derivative=True))
row("grad of spherical_jn(2, z)", jax.grad(lambda z: spherical_jn(2, z))(1.5), sc.spherical_jn(2, 1.5, derivative=True))

print("derivatives in the order, first and second (jaxsci's order kernels)")
row("grad jv(v, 2) in v at v=1", jax.grad(jv)(1.0, 2.0), mpmath.diff(lambda t: mpmath.besselj(t, 2), 1))
row("hessian jv(v, 2) in v at v=1.5", jax.hessian(jv)(1.5, 2.0), mpmath.diff(lambda t: mpmath.besselj(t, 2), 1.5, 2))

print("an order SciPy truncates (yn) is piecewise constant, so differentiating in it raises:")
from jaxsci import NonDifferentiableError  # noqa: E402
from jaxsci.special import yn  # noqa: E402

try:
    jax.grad(yn)(2.7, 1.5)
    raise AssertionError("grad of yn in its truncated order did not raise")
except NonDifferentiableError as error:
    print(" ", type(error).__name__ + ":", str(error).split(". ")[0])
