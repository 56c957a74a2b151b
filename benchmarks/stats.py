"""jaxsci.stats against jax.scipy.stats and against SciPy: time ratios measured in one process.

    PYTHONPATH=generated:. python benchmarks/stats.py [--size 100000] [--repeats 9] [--only gamma,t]
                                                     [--dtype float64] [--skip-scipy]

1. Against jax.scipy.stats, on the distributions both have (with SciPy's signatures): the density and its
   log, and cdf where jax.scipy.stats has one. Each is ``jax.jit`` of the method with the shape
   parameters, loc and scale as arguments, compiled ahead of time, on N points drawn by SciPy (the
   parameters are SciPy's test parameters, scipy.stats._distr_params). The ratio is the fastest time of
   jaxsci over the fastest time of jax.scipy.stats, from interleaved repetitions (jax, jaxsci, jax, ...),
   the call least disturbed by other work on the machine: above 1, jaxsci is slower. The issue's target: at most
   2 for what JAX computes natively. "callback" marks a jaxsci method that calls SciPy on the host.
2. Against SciPy, for every distribution: cdf and ppf at N points, jitted jaxsci over SciPy's own method
   on numpy arrays, fastest times from interleaved repetitions as above (below 1, jaxsci is faster).

Also printed: the largest relative difference of jaxsci's values from jax.scipy.stats' (resp. SciPy's)
where the reference is finite and nonzero. A measurement, not a test.
"""
from __future__ import annotations

import argparse
import inspect
import time

import jax
import jax.numpy as jnp
import jax.scipy.stats as jstats
import numpy as np
import scipy.stats
from scipy.stats._distr_params import distcont, distdiscrete

jax.config.update("jax_enable_x64", True)

import jaxsci.stats  # noqa: E402 - after enabling x64

PARAMS = dict(distcont + distdiscrete)
LOC, SCALE = 0.5, 2.0


def _scales(discrete: bool) -> dict:
    return {"loc": 1.0} if discrete else {"loc": LOC, "scale": SCALE}


def _compiled(method, shapes, scales, x):
    def f(x, shapes, scales):
        return method(x, *shapes, **scales)

    return jax.jit(f).lower(x, shapes, scales).compile()


def _ratio(ours, theirs, repeats: int) -> float:
    """min(ours) / min(theirs) over interleaved calls of the two thunks: the fastest call of each is the
    one least disturbed by other work on the machine (its median varied by 10x between runs here)."""
    for run in (ours, theirs):
        jax.block_until_ready(run())  # warm up
    times = {"ours": [], "theirs": []}
    for _ in range(repeats):
        for name, run in (("theirs", theirs), ("ours", ours)):
            start = time.perf_counter()
            jax.block_until_ready(run())
            times[name].append(time.perf_counter() - start)
    return min(times["ours"]) / min(times["theirs"])


def _max_rel(ours, theirs) -> float:
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    use = np.isfinite(theirs) & (theirs != 0)
    return float(np.max(np.abs(ours[use] - theirs[use]) / np.abs(theirs[use]), initial=0.0))


def _points(name: str, size: int, dtype: str) -> np.ndarray:
    dist = getattr(scipy.stats, name)
    discrete = isinstance(dist, scipy.stats.rv_discrete)
    x = dist.rvs(*PARAMS[name], **_scales(discrete), size=size, random_state=np.random.default_rng(size))
    return np.asarray(x, dtype)


def versus_jax(names, size: int, repeats: int, dtype: str) -> None:
    print(f"\n## jaxsci / jax.scipy.stats, jitted, N = {size}, {dtype} (above 1: jaxsci slower)\n")
    print(f"{'distribution':14s} {'method':8s} {'ratio':>7s} {'max rel':>9s}  jaxsci's method")
    for name in names:
        module = getattr(jaxsci.stats, name)
        if not hasattr(jstats, name):
            continue
        theirs_module = getattr(jstats, name)
        discrete = isinstance(getattr(scipy.stats, name), scipy.stats.rv_discrete)
        x = jnp.asarray(_points(name, size, dtype))
        shapes = tuple(jnp.asarray(s, dtype) for s in PARAMS[name])
        scales = {k: jnp.asarray(v, dtype) for k, v in _scales(discrete).items()}
        density = ("pmf", "logpmf") if discrete else ("pdf", "logpdf")
        for method in (*density, "cdf"):
            if not hasattr(theirs_module, method):
                continue
            # both called alike: without loc and scale where jax.scipy.stats' method has none (bernoulli.cdf)
            accepted = inspect.signature(getattr(theirs_module, method)).parameters
            both = {k: v for k, v in scales.items() if k in accepted}
            ours = _compiled(getattr(module, method), shapes, both, x)
            theirs = _compiled(getattr(theirs_module, method), shapes, both, x)
            ratio = _ratio(lambda: ours(x, shapes, both), lambda: theirs(x, shapes, both), repeats)
            how = "callback" if "callback" in ours.as_text() else "native"
            rel = _max_rel(ours(x, shapes, both), theirs(x, shapes, both))
            print(f"{name:14s} {method:8s} {ratio:7.2f} {rel:9.1e}  {how}")


def versus_scipy(names, size: int, repeats: int, dtype: str) -> None:
    print(f"\n## jaxsci (jitted) / SciPy, N = {size}, {dtype} (below 1: jaxsci faster)\n")
    print(f"{'distribution':14s} {'cdf':>6s} {'ppf':>6s} {'cdf rel':>9s} {'ppf rel':>9s}  jaxsci's cdf, ppf")
    rng = np.random.default_rng(1)
    q = rng.uniform(0, 1, size).astype(dtype)
    for name in names:
        module, dist = getattr(jaxsci.stats, name), getattr(scipy.stats, name)
        discrete = isinstance(dist, scipy.stats.rv_discrete)
        scales_np = _scales(discrete)
        x = _points(name, size, dtype)
        shapes = tuple(jnp.asarray(s, dtype) for s in PARAMS[name])
        scales = {k: jnp.asarray(v, dtype) for k, v in scales_np.items()}
        cells, rels, hows = [], [], []
        for method, points in (("cdf", x), ("ppf", q)):
            points_jax = jnp.asarray(points)
            ours = _compiled(getattr(module, method), shapes, scales, points_jax)
            reference = getattr(dist, method)
            cells.append(_ratio(lambda: ours(points_jax, shapes, scales),
                                       lambda: reference(points, *PARAMS[name], **scales_np), repeats))
            rels.append(_max_rel(ours(points_jax, shapes, scales), reference(points, *PARAMS[name], **scales_np)))
            hows.append("callback" if "callback" in ours.as_text() else "native")
        print(f"{name:14s} {cells[0]:6.2f} {cells[1]:6.2f} {rels[0]:9.1e} {rels[1]:9.1e}  {', '.join(hows)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only", default="")
    parser.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    parser.add_argument("--skip-scipy", action="store_true")
    options = parser.parse_args()
    names = options.only.split(",") if options.only else sorted(jaxsci.stats.__all__)
    print(f"jax {jax.__version__}, scipy {scipy.__version__}, backend {jax.default_backend()}")
    versus_jax(names, options.size, options.repeats, options.dtype)
    if not options.skip_scipy:
        versus_scipy(names, options.size, options.repeats, options.dtype)


if __name__ == "__main__":
    main()
