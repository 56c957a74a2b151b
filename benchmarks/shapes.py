"""Functions beyond elementwise, against SciPy called directly, measured in one process.

    PYTHONPATH=generated:. python benchmarks/shapes.py [--repeats 15]

Rows (issue 10's benchmark rows):
- a function of static arguments only, computed in one host callback: ``roots_legendre(1000)``;
- core dimensions, SciPy vectorised: ``lqn(10, z)`` on 10^4 points (SciPy's lqn takes an array z and
  returns (11, *z.shape));
- an ``_all`` function: ``legendre_p_all(10, z, diff_n=1)`` on 10^4 points, (2, 11, *z.shape);
- core dimensions, SciPy scalar-only (``host_loop``): ``riccati_jn(10, x)`` on 10^4 points, against
  SciPy called in a Python loop, the only way SciPy computes it for many points;
- derivatives returned with the value: ``sph_harm_y(6, 2, theta, phi, diff_n=2)`` on 10^4 points, jitted
  and eagerly;
- a reduction: ``logsumexp`` over axis 1 of a (100, 100) array on SciPy's path (native off);
- an eager call (no jit) of a shape not called before: ``jv(v, z)`` on about 100 points, against SciPy
  (sampling the inputs included on both sides).
Each row is the median time of ``jax.jit`` of jaxsci's function (compiled first) over the median time of
SciPy's own computation of the same values, from interleaved repetitions, so that load on the machine
slows both alike: a ratio near 1 means the callback costs nothing beyond SciPy. Also printed: under
``vmap`` over a batch of 8 inputs, the time of the batched call over 8 unbatched calls (below 1: the
batch is one callback, not a loop). A measurement, not a test.
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special as sc

jax.config.update("jax_enable_x64", True)

import jaxsci  # noqa: E402 - after enabling x64
import jaxsci.special as js  # noqa: E402


def _median(fn, repeats: int) -> list:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return times


def _interleaved(ours, theirs, repeats: int) -> float:
    ours(), theirs()  # warm up (compiles ours)
    a, b = [], []
    for _ in range(repeats):
        a += _median(ours, 1)
        b += _median(theirs, 1)
    return statistics.median(a) / statistics.median(b)


def rows(repeats: int):
    rng = np.random.default_rng(0)

    roots = jax.jit(lambda: js.roots_legendre(1000))
    yield "roots_legendre(1000)", _interleaved(roots, lambda: sc.roots_legendre(1000), repeats)

    z = rng.uniform(-0.9, 0.9, 10_000)
    zj = jnp.asarray(z)
    lqn = jax.jit(lambda z: js.lqn(10, z))
    yield "lqn(10, z), 1e4 points", _interleaved(lambda: lqn(zj), lambda: sc.lqn(10, z), repeats)

    legendre_all = jax.jit(lambda z: js.legendre_p_all(10, z, diff_n=1))
    yield ("legendre_p_all(10, z, diff_n=1), 1e4 points",
           _interleaved(lambda: legendre_all(zj), lambda: sc.legendre_p_all(10, z, diff_n=1), repeats))

    # derivatives returned with the value (derivative_outputs): SciPy computes them in its recurrences,
    # jaxsci in forward mode from its rules (the rules' own host evaluations, one jvp per order)
    theta, phi = rng.uniform(0.1, 3.0, 10_000), rng.uniform(-3, 6, 10_000)
    thetaj, phij = jnp.asarray(theta), jnp.asarray(phi)
    harmonics = jax.jit(lambda t, p: js.sph_harm_y(6, 2, t, p, diff_n=2))
    yield ("sph_harm_y(6, 2, theta, phi, diff_n=2), 1e4 points",
           _interleaved(lambda: harmonics(thetaj, phij), lambda: sc.sph_harm_y(6, 2, theta, phi, diff_n=2), repeats))
    yield ("the same, eagerly (no jit; compiled once per static values)",
           _interleaved(lambda: js.sph_harm_y(6, 2, thetaj, phij, diff_n=2), lambda: sc.sph_harm_y(6, 2, theta, phi, diff_n=2), repeats))

    x = rng.uniform(0.2, 20, 10_000)
    xj = jnp.asarray(x)
    riccati = jax.jit(lambda x: js.riccati_jn(10, x))
    yield ("riccati_jn(10, x), 1e4 points (SciPy in a Python loop)",
           _interleaved(lambda: riccati(xj), lambda: [sc.riccati_jn(10, v) for v in x], max(3, repeats // 5)))

    a = rng.uniform(-50, 50, (100, 100))
    aj = jnp.asarray(a)
    jaxsci.config.native = False
    jax.clear_caches()
    logsumexp = jax.jit(lambda a: js.logsumexp(a, axis=1)).lower(aj).compile()
    jaxsci.config.native = True
    yield "logsumexp(a, axis=1), (100, 100), SciPy path", _interleaved(lambda: logsumexp(aj), lambda: sc.logsumexp(a, axis=1), repeats)

    # eager: each repetition a shape not called before, as a user's first call is; numpy inputs, so
    # that JAX's own eager operations on new shapes are not what is measured
    sizes = iter(range(100, 10_000))

    def new_shape():
        k = next(sizes)
        return rng.uniform(0, 5, k), rng.uniform(0.1, 20, k)

    def first_eager_call(call):
        def run():
            v, z = new_shape()
            return call(v, z)
        return run

    yield ("jv(v, z) eagerly, about 100 points, each call a new shape",
           _interleaved(first_eager_call(js.jv), first_eager_call(sc.jv), repeats))

    # vmap: one batched callback against 8 separate ones
    batch = jnp.asarray(rng.uniform(0.2, 20, (8, 1000)))
    batched = jax.jit(jax.vmap(lambda x: js.riccati_jn(10, x)))
    single = jax.jit(lambda x: js.riccati_jn(10, x))
    yield ("vmap(riccati_jn(10, .)) over 8 x 1000 points / 8 jaxsci calls of 1000",
           _interleaved(lambda: batched(batch), lambda: [single(row) for row in batch], max(3, repeats // 5)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    options = parser.parse_args()
    print("| row (each: jaxsci / SciPy, except the vmap row) | time ratio |\n|---|---|")
    for name, ratio in rows(options.repeats):
        print(f"| {name} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
