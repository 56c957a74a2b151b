"""Side-by-side timings of jaxsci against its baselines; writes benchmarks/RESULTS.md.

    python benchmarks/run.py [--quick]

Every comparison is timed in this one process, as the median of interleaved repetitions (A, B, A,
B, ...), so a busy machine slows both sides alike; the table reports the ratio jaxsci / baseline.
This is not a test: nothing here passes or fails.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy
import scipy.special as sc

jax.config.update("jax_enable_x64", True)

from jaxsci.special import gammaln, hyp2f1, jv  # noqa: E402 - after enabling x64

HERE = Path(__file__).resolve().parent


def _block(result):
    return jax.block_until_ready(result)


def compare(candidate, baseline, repeats: int) -> tuple[float, float]:
    """Median seconds of each, interleaved, after one warm-up call each."""
    candidate(), baseline()
    a, b = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        candidate()
        a.append(time.perf_counter() - t)
        t = time.perf_counter()
        baseline()
        b.append(time.perf_counter() - t)
    return statistics.median(a), statistics.median(b)


def docs_style(fn, *args_dtype):
    """The JAX documentation's pure_callback wrapper: one callback, numpy in, numpy out."""
    def wrapped(*args):
        shape = jnp.broadcast_shapes(*(jnp.shape(a) for a in args))
        result = jax.ShapeDtypeStruct(shape, jnp.float64)
        return jax.pure_callback(lambda *a: np.asarray(fn(*a), np.float64), result, *args,
                                 vmap_method="broadcast_all")
    return wrapped


@jax.custom_jvp
def docs_jv(v, z):
    return docs_style(sc.jv)(v, z)


@docs_jv.defjvp
def _docs_jv_jvp(primals, tangents):
    # The docs' recipe: J_v' = (J_{v-1} - J_{v+1}) / 2, two more callbacks.
    v, z = primals
    _, dz = tangents
    return docs_jv(v, z), 0.5 * (docs_jv(v - 1, z) - docs_jv(v + 1, z)) * dz


def rows(quick: bool):
    sizes = [1, 100, 10_000] if quick else [1, 100, 10_000, 1_000_000]
    out = []
    rng = np.random.default_rng(0)
    functions = {
        "jv": (jv, sc.jv, lambda n: (np.full(n, 1.5), rng.uniform(0.1, 30, n))),
        "gammaln": (gammaln, sc.gammaln, lambda n: (rng.uniform(0.1, 30, n),)),
        "hyp2f1": (hyp2f1, sc.hyp2f1, lambda n: (np.full(n, 0.5), np.full(n, 1.5), np.full(n, 2.5), rng.uniform(-0.9, 0.9, n))),
    }
    for name, (ours, theirs, make) in functions.items():
        bare = jax.jit(docs_style(theirs))
        jitted = jax.jit(ours)
        for n in sizes:
            args = make(n)
            jargs = [jnp.asarray(a) for a in args]
            repeats = 5 if n >= 1_000_000 else (30 if quick else 100)
            t_ours, t_scipy = compare(lambda: _block(jitted(*jargs)), lambda: theirs(*args), repeats)
            _, t_bare = compare(lambda: _block(jitted(*jargs)), lambda: _block(bare(*jargs)), repeats)
            out.append((f"jit({name}) vs SciPy on numpy", n, t_ours, t_scipy))
            out.append((f"jit({name}) vs docs-style pure_callback", n, t_ours, t_bare))
    n = 1000
    v, z = jnp.full(n, 1.5), jnp.asarray(rng.uniform(0.1, 30, n))
    batched = jax.jit(jv)
    vmapped = jax.jit(jax.vmap(jv))
    sequential = jax.jit(jax.vmap(lambda a, b: jax.pure_callback(
        lambda x, y: np.asarray(sc.jv(x, y)), jax.ShapeDtypeStruct((), jnp.float64), a, b, vmap_method="sequential")))
    out.append(("vmap(jv) vs the batched call", n, *compare(lambda: _block(vmapped(v, z)), lambda: _block(batched(v, z)), 30)))
    out.append(("vmap(jv) vs vmap_method='sequential'", n, *compare(lambda: _block(vmapped(v, z)), lambda: _block(sequential(v, z)), 5)))
    grad = jax.jit(jax.vmap(jax.grad(jv, argnums=1)))
    docs_grad = jax.jit(jax.vmap(jax.grad(docs_jv, argnums=1)))
    hess = jax.jit(jax.vmap(jax.hessian(jv, argnums=1)))
    out.append(("vmap(grad(jv)) vs the primal", n, *compare(lambda: _block(grad(v, z)), lambda: _block(batched(v, z)), 30)))
    out.append(("vmap(grad(jv)) vs the docs' custom_jvp recipe", n, *compare(lambda: _block(grad(v, z)), lambda: _block(docs_grad(v, z)), 30)))
    out.append(("vmap(hessian(jv)) vs the primal", n, *compare(lambda: _block(hess(v, z)), lambda: _block(batched(v, z)), 30)))
    x = jnp.asarray(rng.uniform(0.1, 30, 10_000))
    ours, native = jax.jit(gammaln), jax.jit(jax.scipy.special.gammaln)
    out.append(("jit(gammaln) vs native jax.scipy.special.gammaln", 10_000, *compare(lambda: _block(ours(x)), lambda: _block(native(x)), 30)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    parser.add_argument("--output", default="RESULTS.md", help="file name under benchmarks/ for the table")
    options = parser.parse_args()
    results = rows(options.quick)
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        "# Benchmark results",
        "",
        f"Machine: {cpu}, {os.cpu_count()} cores, {jax.devices()[0].platform}; jax {jax.__version__}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}; {datetime.date.today()}.",
        f"Command: `{' '.join([Path(sys.executable).name, 'benchmarks/run.py', *sys.argv[1:]])}` "
        f"(commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=HERE).stdout.strip()}).",
        "Medians of interleaved repetitions; ratio = jaxsci / baseline (below 1: jaxsci is faster).",
        "",
        "| comparison | N | jaxsci | baseline | ratio |",
        "|---|---|---|---|---|",
    ]
    for what, n, ours, base in results:
        lines.append(f"| {what} | {n} | {ours * 1e6:.1f} µs | {base * 1e6:.1f} µs | {ours / base:.2f} |")
    text = "\n".join(lines) + "\n"
    (HERE / options.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
