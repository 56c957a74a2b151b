"""Native JAX implementations against jaxsci's SciPy path: speed and accuracy, per function.

    PYTHONPATH=generated:. python benchmarks/native_dispatch.py [--only erf,i0e] [--sizes 100,10000,1000000]
                                                              [--quick] [--markdown FILE]

For every scipy.special function that jax.scipy.special also has, with the same positional signature
(CANDIDATES below), this prints

- speed: the median time of ``jax.jit(jax.scipy.special.<name>)`` over the median time of
  ``jax.jit(jaxsci.special.<name>)`` on jaxsci's SciPy path (``jaxsci.config.native = False`` and
  ``jax.clear_caches()`` before anything is traced), from interleaved repetitions (native, SciPy, native, ...)
  in this one process, so that load on the machine slows both alike; float64 and float32, N = 10^2,
  10^4 and 10^6 elements. A ratio below 1 means the native implementation is faster. A size is
  "skipped" where the native implementation was already 3 times slower at the size before and one
  call would take more than 10 s.
- accuracy: the native implementation against SciPy itself (what jaxsci's SciPy path returns, bit for
  bit), in each dtype, over the spec's test domain (``tests.domain``) and over "wide" values: the
  domain widened by three times its width on each side, as the property tests draw them. ``rel`` is the
  largest |native - scipy| / |scipy| where SciPy's value is a finite nonzero normal number; ``abs`` the
  largest |native - scipy| where it is finite; ``nan`` counts the points where exactly one of them is
  NaN, or one is infinite and the other is not the same infinity. The wide values are evaluated in a
  child process: "no result in 60 s" means the native function did not return (jax's exp1 and expi
  do not at x = 1e-300).

The spec of a function chosen native (the ``native`` key, specs/README.md) records the tolerance and
the numbers measured here. This is a measurement, not a test: nothing here passes or fails.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special as sc

jax.config.update("jax_enable_x64", True)

import jaxsci  # noqa: E402 - after enabling x64
import jaxsci.special  # noqa: E402
from generator.loader import load_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# jaxsci name -> jax.scipy.special name, where both take the same positional arguments. Left out:
# wofz (complex only), bessel_jn (another signature), and functions jaxsci has no spec for
# (bernoulli, sph_harm_y, lpmn, multigammaln). comb and factorial are timed with their default
# static arguments (jax has no ``exact=True`` comb and no ``extend`` for factorial).
CANDIDATES = {
    "beta": "beta", "betainc": "betainc", "betaln": "betaln", "boxcox": "boxcox", "boxcox1p": "boxcox1p",
    "comb": "comb", "dawsn": "dawsn", "digamma": "digamma", "psi": "digamma", "entr": "entr", "erf": "erf",
    "erfc": "erfc", "erfcx": "erfcx", "erfinv": "erfinv", "exp1": "exp1", "expi": "expi", "expit": "expit",
    "expn": "expn", "factorial": "factorial", "fresnel": "fresnel", "gamma": "gamma", "gammainc": "gammainc",
    "gammaincc": "gammaincc", "gammaln": "gammaln", "gammasgn": "gammasgn", "hyp1f1": "hyp1f1",
    "hyp2f1": "hyp2f1", "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e", "kl_div": "kl_div",
    "log_ndtr": "log_ndtr", "loggamma": "loggamma", "logit": "logit", "ndtr": "ndtr", "ndtri": "ndtri",
    "owens_t": "owens_t", "poch": "poch", "polygamma": "polygamma", "rel_entr": "rel_entr", "sici": "sici",
    "spence": "spence", "xlog1py": "xlog1py", "xlogy": "xlogy", "zeta": "zeta",
}
SIZES = (100, 10_000, 1_000_000)
DTYPES = ("float64", "float32")
ACCURACY_POINTS = 20_000


def _spec(name: str):
    return load_spec(ROOT / "specs" / "special" / f"{name}.yaml", ROOT)


def _sample(spec, n: int, dtype: str, rng, *, wide: bool = False) -> list:
    arrays = []
    for arg in spec.traced_args:
        lo, hi = spec.tests.domain[arg.name]
        if arg.kind == "integer":
            arrays.append(rng.integers(int(lo), int(hi) + 1, size=n).astype(np.int64))
            continue
        if wide:
            width = hi - lo
            values = rng.uniform(lo - 3 * width, hi + 3 * width, size=n)
            special = rng.random(n) < 0.02  # NaN, infinities, zero and tiny numbers, as the property tests draw
            values[special] = rng.choice([np.nan, np.inf, -np.inf, 0.0, 1e-300, -1e-300], size=int(special.sum()))
        else:
            values = rng.uniform(lo, hi, size=n)
        arrays.append(values.astype(dtype))
    return arrays


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)




def _errors(native, expected, dtype: str) -> tuple[float, float, int]:
    rel, absolute, mismatches = 0.0, 0.0, 0
    tiny = np.finfo(dtype).tiny
    for got, want in zip(native, expected):
        got = np.asarray(got, dtype=np.float64)
        want = np.asarray(want).astype(dtype).astype(np.float64)
        nan_got, nan_want = np.isnan(got), np.isnan(want)
        inf_diff = (np.isinf(got) | np.isinf(want)) & ~(nan_got | nan_want) & (got != want)
        mismatches += int(np.sum(nan_got != nan_want) + np.sum(inf_diff))
        finite = np.isfinite(got) & np.isfinite(want)
        if finite.any():
            diff = np.abs(got[finite] - want[finite])
            absolute = max(absolute, float(diff.max()))
            normal = np.abs(want[finite]) >= tiny
            if normal.any():
                rel = max(rel, float((diff[normal] / np.abs(want[finite][normal])).max()))
    return rel, absolute, mismatches


def accuracy(name: str, jax_name: str, dtype: str, *, wide: bool) -> tuple[float, float, int]:
    spec = _spec(name)
    rng = np.random.default_rng(zlib.crc32(f"{name}/{dtype}/{wide}".encode()))
    args = _sample(spec, ACCURACY_POINTS, dtype, rng, wide=wide)
    native = jax.jit(getattr(jax.scipy.special, jax_name))
    got = _outputs(native(*[jnp.asarray(a) for a in args]))
    with np.errstate(all="ignore"):
        expected = _outputs(getattr(sc, spec.scipy.rsplit(".", 1)[1])(*args))
    return _errors(got, expected, dtype)


def wide_accuracy(name: str, jax_name: str, timeout: float = 60) -> dict:
    """``accuracy(..., wide=True)`` for both dtypes, in a child process: some native functions never
    return for some inputs (jax's exp1 and expi at x = 1e-300), and a JAX computation cannot be
    interrupted. dtype -> (rel, abs, mismatches), or None after ``timeout`` seconds."""
    command = [sys.executable, __file__, "--wide-accuracy-child", name]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        return {dtype: None for dtype in DTYPES}
    if done.returncode != 0:
        raise RuntimeError(f"{name}: the accuracy child failed: {done.stderr[-2000:]}")
    return {dtype: tuple(values) for dtype, values in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def compare(first, second, budget: float) -> tuple[float, float]:
    """Median seconds of each, interleaved, after a warm-up call each."""
    first(), second()
    t = time.perf_counter()
    first(), second()
    once = time.perf_counter() - t
    # at least 5 repetitions, or 3 where one pair of calls takes more than a second (jax's exp1 and expi
    # take about a minute for 10^6 elements)
    repeats = int(min(101, max(5 if once < 1 else 3, budget / max(once, 1e-6))))
    a, b = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        first()
        a.append(time.perf_counter() - t)
        t = time.perf_counter()
        second()
        b.append(time.perf_counter() - t)
    return statistics.median(a), statistics.median(b)


def speed(name: str, jax_name: str, dtype: str, n: int, budget: float) -> tuple[float, float]:
    spec = _spec(name)
    rng = np.random.default_rng(n)
    args = [jnp.asarray(a) for a in _sample(spec, n, dtype, rng)]
    assert jaxsci.config.native is False  # main() forces the SciPy path for every jaxsci function
    scipy_path = jax.jit(getattr(jaxsci.special, name))
    native = jax.jit(getattr(jax.scipy.special, jax_name))
    return compare(lambda: jax.block_until_ready(native(*args)), lambda: jax.block_until_ready(scipy_path(*args)), budget)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated jaxsci names (default: every candidate)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--quick", action="store_true", help="a third of the timing budget")
    parser.add_argument("--markdown", help="also write the table as markdown to this file")
    parser.add_argument("--wide-accuracy-child", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.wide_accuracy_child:
        name = options.wide_accuracy_child
        print(json.dumps({dtype: accuracy(name, CANDIDATES[name], dtype, wide=True) for dtype in DTYPES}))
        return
    names = options.only.split(",") if options.only else list(CANDIDATES)
    sizes = [int(s) for s in options.sizes.split(",")]
    budget = 0.15 if options.quick else 0.5
    # The baseline is jaxsci's SciPy path, also for functions whose spec is native; set once (and the
    # caches cleared) rather than per measurement, which would recompile the native functions each time.
    jaxsci.config.native = False
    jax.clear_caches()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, {len(os.sched_getaffinity(0))} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}; jaxsci.config.callback={jaxsci.config.callback!r}")
    header = ("function", "dtype", *[f"N={n}" for n in sizes], "rel (domain)", "abs (domain)", "nan",
              "rel (wide)", "abs (wide)", "nan")
    print(" | ".join(header))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in names:
        jax_name = CANDIDATES[name]
        wide_errors = wide_accuracy(name, jax_name)
        for dtype in DTYPES:
            ratios, previous = [], None
            for n in sizes:
                if previous is not None and previous[0] / previous[1] > 3 and previous[0] * n / previous[2] > 10:
                    # already 3x slower, and a single native call would take more than 10 s (exp1, expi)
                    ratios.append("skipped")
                    continue
                t_native, t_scipy = speed(name, jax_name, dtype, n, budget)
                previous = (t_native, t_scipy, n)
                ratios.append(f"{t_native / t_scipy:.2f}")
            dom = accuracy(name, jax_name, dtype, wide=False)
            wide = wide_errors[dtype]
            wide_cells = ("no result", "in 60 s", "-") if wide is None else (f"{wide[0]:.1e}", f"{wide[1]:.1e}", str(wide[2]))
            row = (name, dtype, *ratios, f"{dom[0]:.1e}", f"{dom[1]:.1e}", str(dom[2]), *wide_cells)
            print(" | ".join(row), flush=True)
            lines.append("| " + " | ".join(row) + " |")
    if options.markdown:
        Path(options.markdown).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
