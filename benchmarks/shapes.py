"""Functions beyond elementwise, against SciPy called directly, measured in one process.

    PYTHONPATH=generated:. python benchmarks/shapes.py [--repeats 15]

Rows (issue 10's benchmark rows):
- a function of static arguments only, computed in one host callback: ``roots_legendre(1000)``;
- core dimensions, SciPy vectorised: ``lqn(10, z)`` on 10^4 points (SciPy's lqn takes an array z and
  returns (11, *z.shape); SciPy has no ``*_all`` Legendre function jaxsci wraps yet, and this is the same
  layout);
- core dimensions, SciPy scalar-only (``host_loop``): ``riccati_jn(10, x)`` on 10^4 points, against
  SciPy called in a Python loop, the only way SciPy computes it for many points;
- a reduction: ``logsumexp`` over axis 1 of a (100, 100) array on SciPy's path (native off).
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
