"""Reductions (logsumexp, softmax, log_softmax): jax.scipy.special's native functions against
jaxsci's SciPy path, speed and accuracy, measured in one process.

    PYTHONPATH=generated:. python benchmarks/reductions.py [--sizes 10000,1000000] [--repeats 15]

For each function, dtype and size N (a (N/100, 100) array reduced over axis 1; logsumexp also with
weights b), this prints the median time of ``jax.jit`` of the native function over the median time of
jaxsci's SciPy path (``jaxsci.config.native = False``, traced after ``jax.clear_caches()``), from
interleaved repetitions (native, SciPy, native, ...), so that load on the machine slows both alike: a
ratio below 1 means native is faster. It also prints the reverse-mode gradient's ratio, and the largest
relative and absolute differences of the native values from SciPy's (inputs uniform in [-50, 50]).
The spec's ``native.tolerance`` and ``why`` record these numbers. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import functools
import statistics
import time

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
import scipy.special as sc

jax.config.update("jax_enable_x64", True)

import jaxsci  # noqa: E402 - after enabling x64
import jaxsci.special as js  # noqa: E402

FUNCTIONS = {  # name -> (keywords, whether b is given)
    "logsumexp": ({"axis": 1}, False),
    "logsumexp(b)": ({"axis": 1}, True),
    "softmax": ({"axis": 1}, False),
    "log_softmax": ({"axis": 1}, False),
}


def _compiled(name: str, native: bool, keywords: dict, weighted: bool, grad: bool, x, b):
    """Compiled ahead of time, so that clearing the caches for the other path cannot retrace it."""
    jaxsci.config.native = native
    jax.clear_caches()
    # native: jax.scipy.special's function itself, what the spec's native key dispatches to (whether or
    # not the spec chose it); otherwise jaxsci's SciPy path
    function = getattr(jax.scipy.special if native else js, name.split("(")[0])

    def f(x, b):
        out = function(x, b=b, **keywords) if weighted else function(x, **keywords)
        return jnp.sum(out) if grad else out

    return jax.jit(jax.grad(f) if grad else f).lower(x, b).compile()


def _time(fn, x, b) -> float:
    start = time.perf_counter()
    jax.block_until_ready(fn(x, b))
    return time.perf_counter() - start


def measure(name: str, dtype: str, size: int, repeats: int, grad: bool) -> float:
    keywords, weighted = FUNCTIONS[name]
    rng = np.random.default_rng(size)
    x = jnp.asarray(rng.uniform(-50, 50, size=(size // 100, 100)).astype(dtype))
    b = jnp.asarray(rng.uniform(0.1, 2, size=(size // 100, 100)).astype(dtype))
    native = _compiled(name, True, keywords, weighted, grad, x, b)
    scipy_path = _compiled(name, False, keywords, weighted, grad, x, b)
    assert "callback" not in native.as_text() and "callback" in scipy_path.as_text()
    native(x, b), scipy_path(x, b)  # warm up
    times = {"native": [], "scipy": []}
    for _ in range(repeats):
        times["native"].append(_time(native, x, b))
        times["scipy"].append(_time(scipy_path, x, b))
    return statistics.median(times["native"]) / statistics.median(times["scipy"])


def errors(name: str, dtype: str) -> tuple:
    keywords, weighted = FUNCTIONS[name]
    rng = np.random.default_rng(7)
    x = rng.uniform(-50, 50, size=(1000, 100)).astype(dtype)
    b = rng.uniform(0.1, 2, size=(1000, 100)).astype(dtype)
    extra = {"b": b} if weighted else {}
    got = np.asarray(getattr(jax.scipy.special, name.split("(")[0])(x, **extra, **keywords), dtype=np.float64)
    want = np.asarray(getattr(sc, name.split("(")[0])(x, **extra, **keywords), dtype=np.float64)
    diff = np.abs(got - want)
    nonzero = want != 0
    return float(np.max(diff[nonzero] / np.abs(want[nonzero]))), float(np.max(diff))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--repeats", type=int, default=15)
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    print(f"jax {jax.__version__}, backend {jax.default_backend()}; native/SciPy time (below 1: native faster)")
    for name in FUNCTIONS:
        for dtype in ("float64", "float32"):
            cells = []
            for size in sizes:
                value = measure(name, dtype, size, options.repeats, grad=False)
                gradient = measure(name, dtype, size, max(5, options.repeats // 3), grad=True)
                cells.append(f"N={size:.0e}: {value:.2f} (grad {gradient:.2f})")
            rel, absolute = errors(name, dtype)
            print(f"{name:13s} {dtype}: " + "; ".join(cells) + f"; max rel {rel:.1e}, abs {absolute:.1e}")
    jaxsci.config.native = True


if __name__ == "__main__":
    main()
