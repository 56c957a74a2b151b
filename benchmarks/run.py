"""Side-by-side timings of jaxsci against its baselines; writes benchmarks/RESULTS.md.

    python benchmarks/run.py [--quick] [--output FILE]

The sharded comparison runs in a child process with 4 forced CPU devices (XLA_FLAGS must be set
before jax starts); everything else runs in this process.

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

import jaxsci  # noqa: E402 - after enabling x64
from jaxsci.special import gammaln, hyp2f1, jv  # noqa: E402

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
    out.extend(_callback_backends(rng, quick))
    out.extend(_threads(rng, quick))
    return out


def _traced_under(settings: dict, f, *args):
    """Call ``f`` once under ``settings`` so that its executable for these shapes is compiled with them
    (the callback choice is read when tracing); later calls with the same shapes reuse it."""
    saved = {name: getattr(jaxsci.config, name) for name in settings}
    for name, value in settings.items():
        setattr(jaxsci.config, name, value)
    try:
        _block(f(*args))
    finally:
        for name, value in saved.items():
            setattr(jaxsci.config, name, value)


def _callback_backends(rng, quick: bool):
    """The buffer callback against jaxsci's own pure_callback backend and a bare docs-style wrapper."""
    out = []
    buffer, pure, bare = jax.jit(jv), jax.jit(lambda v, z: jv(v, z)), jax.jit(docs_style(sc.jv))
    for n in (1, 100):
        v, z = jnp.full(n, 1.5), jnp.asarray(rng.uniform(0.1, 30, n))
        _traced_under({"callback": "auto"}, buffer, v, z)
        _traced_under({"callback": "pure"}, pure, v, z)
        repeats = 100 if quick else 300
        out.append(("jit(jv), buffer callback vs jaxsci's pure_callback backend", n,
                    *compare(lambda: _block(buffer(v, z)), lambda: _block(pure(v, z)), repeats)))
        out.append(("jit(jv), pure_callback backend vs docs-style pure_callback", n,
                    *compare(lambda: _block(pure(v, z)), lambda: _block(bare(v, z)), repeats)))
    return out


def _threads(rng, quick: bool):
    """The thread pool: jit(jv) at 3*10^5 with every core against one thread and against SciPy."""
    out = []
    n = 300_000
    v, z = np.full(n, 1.5), rng.uniform(0.1, 30, n)
    jv_, jz = jnp.asarray(v), jnp.asarray(z)
    threads = jaxsci.config.num_threads
    pooled = jax.jit(jv)
    repeats = 5 if quick else 15
    out.append((f"jit(jv), {threads} threads vs SciPy (one thread)", n,
                *compare(lambda: _block(pooled(jv_, jz)), lambda: sc.jv(v, z), repeats)))

    def one_thread():
        jaxsci.config.num_threads = 1  # read at every callback, no retrace
        try:
            return _block(pooled(jv_, jz))
        finally:
            jaxsci.config.num_threads = threads

    out.append((f"jit(jv), {threads} threads vs 1 thread", n,
                *compare(lambda: _block(pooled(jv_, jz)), one_thread, repeats)))
    return out


SHARDED_CHILD = """
import json, os, statistics, sys, time
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
jax.config.update("jax_enable_x64", True)
import jaxsci
from jaxsci.special import jv

n, repeats = int(sys.argv[1]), int(sys.argv[2])
z = np.random.default_rng(0).uniform(0.1, 30, n)
results = {}
for axis_type in (AxisType.Explicit, AxisType.Auto):
    mesh = jax.make_mesh((4,), ("d",), axis_types=(axis_type,))
    sharded = jax.device_put(z, NamedSharding(mesh, P("d")))
    single = jax.device_put(z, jax.devices()[0])
    f = jax.jit(lambda x: jv(1.5, x))
    def timed(x, threads):
        jaxsci.config.num_threads = threads
        t = time.perf_counter()
        f(x).block_until_ready()
        return time.perf_counter() - t
    cores = len(os.sched_getaffinity(0))
    for x in (sharded, single):
        timed(x, cores)
    a, b, c = [], [], []
    for _ in range(repeats):
        a.append(timed(sharded, cores)); b.append(timed(single, 1)); c.append(timed(single, cores))
    results[axis_type.name] = [statistics.median(a), statistics.median(b), statistics.median(c)]
print(json.dumps(results))
"""


def sharded_rows(quick: bool):
    """4 forced CPU devices: a sharded jit(jv) against the same call on one device."""
    n = 1_000_000
    repeats = 3 if quick else 9
    child = subprocess.run([sys.executable, "-c", SHARDED_CHILD, str(n), str(repeats)], capture_output=True,
                           text=True, timeout=1800)
    if child.returncode != 0:
        raise RuntimeError(f"the sharded benchmark failed:\n{child.stderr[-3000:]}")
    import json

    out = []
    cores = len(os.sched_getaffinity(0))
    for axis_type, (sharded, single_one_thread, single_pooled) in json.loads(child.stdout).items():
        out.append((f"4 forced CPU devices, jv sharded ({axis_type} axes) vs one device, 1 thread", n, sharded, single_one_thread))
        out.append((f"4 forced CPU devices, jv sharded ({axis_type} axes) vs one device, {cores} threads", n, sharded, single_pooled))
    return out


GPU_NOTE = [
    "## GPU",
    "",
    "No GPU is measured by this run unless JAX's default device is one. The runs on a lent H100",
    "([RESULTS_h100_host_cpu.md](RESULTS_h100_host_cpu.md), [RESULTS_h100_gpu.md](RESULTS_h100_gpu.md)) predate",
    "the buffer callback: on GPU jaxsci uses pure_callback, whose device->host->device copies made jit(jv)",
    "at N=1 cost 576 µs there against 171 µs on that machine's CPU backend.",
]

TARGETS = (
    # (issue 4's target, how the rows that measure it start, N or None for every N, the bound)
    ("per call at N=1 ≤ 0.3× a docs-style pure_callback", "jit(", 1, 0.3, ") vs docs-style pure_callback"),
    ("jit(jv) on 3·10⁵ float64 ≤ 0.75× single-threaded SciPy", "jit(jv), ", 300_000, 0.75, "threads vs SciPy"),
    ("vmap(grad(jv)) ≤ 2.2× the primal", "vmap(grad(jv)) vs the primal", None, 2.2, ""),
    ("4 forced devices: sharded ≤ 0.75× single-device", "4 forced CPU devices", None, 0.75, "1 thread"),
)


def targets(results) -> list[str]:
    """Issue 4's targets against the rows above, as measured in this run."""
    lines = ["## Targets", "", "| target | rows | ratios | met |", "|---|---|---|---|"]
    for target, prefix, n, bound, contains in TARGETS:
        ratios = [(what, ours / base) for what, size, ours, base in results
                  if what.startswith(prefix) and contains in what and (n is None or size == n)]
        if not ratios:
            lines.append(f"| {target} | not measured in this run | | |")
            continue
        worst = max(r for _, r in ratios)
        listed = "; ".join(f"{what}: {r:.2f}" for what, r in ratios)
        lines.append(f"| {target} | {len(ratios)} | {listed} | {'yes' if worst <= bound else 'no'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    parser.add_argument("--output", default="RESULTS.md", help="file name under benchmarks/ for the table")
    options = parser.parse_args()
    load_before = os.getloadavg()[0]
    results = rows(options.quick) + sharded_rows(options.quick)
    load_after = os.getloadavg()[0]
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        "# Benchmark results",
        "",
        f"Machine: {cpu}, {len(os.sched_getaffinity(0))} cores, {jax.devices()[0].platform}; jax {jax.__version__}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}; {datetime.date.today()}.",
        f"Command: `{' '.join([Path(sys.executable).name, 'benchmarks/run.py', *sys.argv[1:]])}` "
        f"(commit {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=HERE).stdout.strip()}).",
        f"Load average before and after: {load_before:.1f}, {load_after:.1f} (the multi-core rows need the "
        f"machine's cores free: a load above about 1 means other work shared them).",
        "Medians of interleaved repetitions; ratio = jaxsci / baseline (below 1: jaxsci is faster).",
        "",
        "| comparison | N | jaxsci | baseline | ratio |",
        "|---|---|---|---|---|",
    ]
    for what, n, ours, base in results:
        lines.append(f"| {what} | {n} | {ours * 1e6:.1f} µs | {base * 1e6:.1f} µs | {ours / base:.2f} |")
    lines += ["", *targets(results), "", *GPU_NOTE]
    text = "\n".join(lines) + "\n"
    (HERE / options.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
