"""On a GPU: the accuracy gate of every device kernel, the device path's benchmarks, and the test suite
with the GPU as JAX's default device; one prepared script (``all``, under 8 minutes on an H100/H200).

    export PYTHONPATH=$PWD/generated:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false
    python benchmarks/gpu.py gate    # every kernel against SciPy over its spec's test domain -> specs/gpu_gate.json
    python -m generator              # the kernel table and coverage.md take the gate's verdicts
    python benchmarks/gpu.py bench   # device path vs host path, CuPy and jax.scipy -> benchmarks/RESULTS_gpu.md
    python benchmarks/gpu.py all     # gate, generator, bench, then the whole suite (pytest -n 12)

The gate compares each kernel's values with what the host path returns (SciPy, or jaxsci's host
kernel for a derivative kernel) at 20 000 points drawn from the spec's ``tests.domain`` plus its
``tests.points``, and at every combination of edge values (NaN, infinities, zeros, a subnormal, the
domain's ends and beyond), in float64 and float32: a kernel passes in a dtype where every finite value
is within ``atol + rtol * |scipy|`` of the spec's ``device.tolerance`` and the NaN and infinity
patterns agree, at the edges too.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GATE_POINTS = 20_000


def _specs():
    sys.path.insert(0, str(ROOT))
    from generator.loader import collect_specs

    specs, errors = collect_specs(ROOT / "specs", ROOT)
    if errors:
        raise SystemExit("\n".join(map(str, errors)))
    return [s for s in specs if s.device is not None]


def _points(spec, dtype, rng) -> list:
    columns = []
    for arg in spec.traced_args:
        lo, hi = spec.tests.domain[arg.name]
        values = rng.uniform(lo, hi, GATE_POINTS)
        extra = [p[arg.name] for p in spec.tests.points]
        columns.append(np.concatenate([values, np.asarray(extra, float)]).astype(dtype))
    return columns


def _edge_points(spec, dtype) -> list:
    """Every combination of edge values of the arguments: NaN, the infinities, signed zeros, a subnormal,
    the test domain's ends, a point past each end and -1 (SciPy's conventions live there: gammainc(0, x)
    is 1, a float32 subnormal must not be flushed to zero)."""
    tiny = np.finfo(dtype).smallest_subnormal * 8
    per_arg = []
    for arg in spec.traced_args:
        lo, hi = spec.tests.domain[arg.name]
        per_arg.append([np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, lo, hi, lo - (hi - lo), 2 * hi, -1.0])
    grid = np.meshgrid(*[np.asarray(values, np.float64) for values in per_arg], indexing="ij")
    return [g.ravel().astype(dtype) for g in grid]


def _differs(got, want, tolerance) -> np.ndarray:
    """Where the kernel's value is NaN or infinite and SciPy's is not (or the reverse), or further than the
    tolerance from it."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    pattern = (np.isnan(got) != np.isnan(want)) | ((np.isinf(got) | np.isinf(want)) & (got != want))
    finite = np.isfinite(got) & np.isfinite(want)
    with np.errstate(invalid="ignore"):
        beyond = finite & (np.abs(got - want) > tolerance.atol + tolerance.rtol * np.abs(want))
    return pattern | beyond


def _compare(got, want, tolerance) -> dict:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same_nan = np.isnan(got) == np.isnan(want)
    infinite = np.isinf(got) | np.isinf(want)
    pattern = int((~same_nan).sum() + (got[infinite] != want[infinite]).sum())
    finite = np.isfinite(got) & np.isfinite(want)
    error = np.abs(got[finite] - want[finite])
    scale = np.abs(want[finite])
    excess = error / (tolerance.atol + tolerance.rtol * scale) if error.size else np.zeros(0)
    rel = error[scale > 0] / scale[scale > 0]
    return {"points": int(got.size), "max_rel": float(rel.max()) if rel.size else 0.0,
            "p999_rel": float(np.quantile(rel, 0.999)) if rel.size else 0.0,
            "max_excess": float("inf") if pattern else (float(excess.max()) if excess.size else 0.0),
            "pattern_mismatches": pattern, "beyond_tolerance": int((excess > 1).sum())}


def _gate_one(qualname: str, kind: str, target: str, header) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsci._core.registry import lookup

    module, name = qualname.split(".")
    spec = next(s for s in _SPECS if s.module == module and s.name == name)
    rng = np.random.default_rng(20261126)
    result = {}
    try:
        host = lookup(qualname).scipy_callable()
        for dtype in ("float64", "float32"):
            args = _points(spec, np.dtype(dtype), rng)
            with np.errstate(all="ignore"):
                want = np.asarray(host(*args)).astype(dtype)
            start = time.perf_counter()
            got = _evaluate(qualname, kind, target, header, args, dtype)
            result[dtype] = {**_compare(got, want, spec.device.tolerance[dtype]), "seconds": round(time.perf_counter() - start, 2)}
            edges = _edge_points(spec, np.dtype(dtype))
            with np.errstate(all="ignore"):
                edge_want = np.asarray(host(*edges)).astype(dtype)
            edge_got = _evaluate(qualname, kind, target, header, edges, dtype)
            edge = _compare(edge_got, edge_want, spec.device.tolerance[dtype])
            differs = np.flatnonzero(_differs(edge_got, edge_want, spec.device.tolerance[dtype]))
            # a few of them as text (JSON has no NaN or infinity), so the next session can see why on a CPU
            examples = [{**{arg.name: repr(float(column[i])) for arg, column in zip(spec.traced_args, edges)},
                         "kernel": repr(float(edge_got[i])), "scipy": repr(float(edge_want[i]))} for i in differs[:4]]
            result[dtype]["edges"] = {"points": edge["points"], "mismatches": edge["pattern_mismatches"] + edge["beyond_tolerance"],
                                      "max_excess": edge["max_excess"], **({"examples": examples} if examples else {})}
    except Exception as exc:  # noqa: BLE001 - a kernel that fails to build or run fails the gate
        result = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
    return {"qualname": qualname, "kind": kind, **result}


def _evaluate(qualname, kind, target, header, args, dtype) -> np.ndarray:
    """The kernel's values at ``args`` (numpy), as the device path computes them."""
    import jax

    from jaxsci._core import device
    from jaxsci._core.registry import _resolve

    if kind == "jax":
        return np.asarray(jax.jit(_resolve(target))(*(jax.numpy.asarray(a) for a in args)).astype(dtype))
    import cupy

    out = cupy.empty(np.broadcast_shapes(*(a.shape for a in args)), dtype)
    device._build(qualname, kind, target, header)([cupy.asarray(a) for a in args], out)
    return cupy.asnumpy(out)


_SPECS: list = []


def _gate_job(job: tuple) -> dict:
    return _gate_one(*job)


def _init_worker():
    global _SPECS
    _SPECS = _specs()


def _hardware() -> str:
    import jax

    try:
        import cupy

        name = f"{cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, CuPy {cupy.__version__}"
    except Exception:  # noqa: BLE001 - no CUDA here: the XLA kernels are gated on JAX's default device
        name = f"{jax.devices()[0].device_kind} (no CuPy)"
    return f"{name}, jax {jax.__version__}, SciPy {__import__('scipy').__version__} ({time.strftime('%Y-%m-%d')})"


def _write_gate(kernels: dict, measured_on: str) -> None:
    gate_data = {"measured_on": measured_on, "kernels": dict(sorted(kernels.items()))}
    (ROOT / "specs" / "gpu_gate.json").write_text(json.dumps(gate_data, indent=1, sort_keys=True) + "\n")


def gate(timeout: float = 180.0, only: str | None = None) -> None:
    """Every kernel in a pool of spawned workers (each starts CUDA and compiles on its own). A kernel can
    hang on the GPU at some input (a loop bound computed from a NaN, say), and a hung kernel would hang
    the caller's program too: what has not finished after ``timeout`` seconds fails the gate as hung, and
    its worker is killed. specs/gpu_gate.json is rewritten after every kernel, so a run cut short keeps
    what it measured."""
    specs = _specs()
    jobs = [(f"{s.module}.{s.name}", k.kind, k.target, k.header) for s in specs for k in s.device.kernels
            if only is None or only in f"{s.module}.{s.name}"]
    measured_on = _hardware()
    started = time.perf_counter()
    kernels: dict = {}
    pending = {(q, kind) for q, kind, _, _ in jobs}
    pool = multiprocessing.get_context("spawn").Pool(min(12, os.cpu_count() or 4), initializer=_init_worker)
    try:
        rows = pool.imap_unordered(_gate_job, jobs)
        for _ in jobs:
            row = rows.next(timeout=max(0.0, timeout - (time.perf_counter() - started)))
            qualname, kind = row.pop("qualname"), row.pop("kind")
            pending.discard((qualname, kind))
            kernels.setdefault(qualname, {})[kind] = row
            _write_gate(kernels, f"{measured_on}, in progress")
            print(f"  {qualname} ({kind}) {time.perf_counter() - started:.0f} s", flush=True)
    except multiprocessing.TimeoutError:
        for qualname, kind in sorted(pending):
            kernels.setdefault(qualname, {})[kind] = {
                "error": f"did not finish within the gate's {timeout:.0f} s on the GPU (a kernel that hangs at some "
                         "input, or one far slower than the others)"}
        print(f"gate: {len(pending)} kernels did not finish within {timeout:.0f} s: {sorted(pending)}", flush=True)
    finally:
        pool.terminate()  # kills a worker stuck in a kernel
    _write_gate(kernels, measured_on)
    passed = sum(all(v.get(d, {}).get("max_excess", 1e9) <= 1 for d in ("float64", "float32")) and "error" not in v
                 for by_kind in kernels.values() for v in by_kind.values())
    print(f"gate: {passed} of {len(jobs)} kernels within tolerance in {time.perf_counter() - started:.0f} s", flush=True)
    for qualname, by_kind in sorted(kernels.items()):
        for kind, v in by_kind.items():
            if "error" in v or any(v[d]["max_excess"] > 1 for d in ("float64", "float32")):
                print(f"  not used: {qualname} ({kind}): {v.get('error') or {d: (v[d]['max_rel'], v[d]['pattern_mismatches']) for d in ('float64', 'float32')}}")


# ---- benchmarks ------------------------------------------------------------------------------------
def _median_ms(fn, reps: int) -> float:
    fn()
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def bench() -> None:
    import cupy
    import cupyx.scipy.special as cs
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jss

    jax.config.update("jax_enable_x64", True)
    import jaxsci
    from jaxsci.special import gammainc, jv

    rng = np.random.default_rng(0)
    rows = []

    def both(label, fn, args, reps, baseline=None):
        """The device path and the host path (device_kernels off) of one jitted function, in this run; the
        arrays are arguments, not constants captured by the function (as the baselines' are)."""
        times = {}
        for device_kernels in (True, False):
            jaxsci.config.device_kernels = device_kernels
            jax.clear_caches()
            jitted = jax.jit(fn)
            times[device_kernels] = _median_ms(lambda: jax.block_until_ready(jitted(*args)), reps)
        jaxsci.config.device_kernels = True
        jax.clear_caches()
        rows.append((label, times[True], times[False], baseline))
        print(f"{label}: device {times[True]:.3f} ms, host {times[False]:.3f} ms"
              + (f", {baseline[0]} {baseline[1]:.3f} ms" if baseline else ""), flush=True)

    n = 1_000_000
    a64 = jnp.asarray(rng.uniform(0.5, 12, n))
    x64 = jnp.asarray(rng.uniform(0.01, 20, n))
    ac, xc = cupy.asarray(np.asarray(a64)), cupy.asarray(np.asarray(x64))
    cupy_ms = _median_ms(lambda: (cs.gammainc(ac, xc), cupy.cuda.get_current_stream().synchronize()), 20)
    jss_fn = jax.jit(jss.gammainc)
    jss_ms = _median_ms(lambda: jss_fn(a64, x64).block_until_ready(), 20)
    both("gammainc, 10^6 float64", gammainc, (a64, x64), 20, ("CuPy direct", cupy_ms))
    rows.append(("gammainc, 10^6 float64: jax.scipy.special", jss_ms, None, None))
    _callback_floor(rows, a64, x64, cupy, cs)
    v64 = jnp.asarray(rng.uniform(0, 20, n))
    both("jv, 10^6 float64", jv, (v64, x64), 10)
    grad_ref = jax.jit(jax.vmap(jax.grad(jss.gammainc)))
    grad_ms = _median_ms(lambda: grad_ref(a64, x64).block_until_ready(), 10)
    both("vmap(grad(gammainc)) in a, 10^6 float64", jax.vmap(jax.grad(gammainc)), (a64, x64), 5,
         ("jax.scipy.special's gradient", grad_ms))
    one_a, one_x = jnp.asarray([2.5]), jnp.asarray([1.5])
    floor_fn = jax.jit(lambda t: t + 1)
    floor_ms = _median_ms(lambda: floor_fn(one_x).block_until_ready(), 200)
    both("gammainc, N = 1 (one jitted call)", gammainc, (one_a, one_x), 200, ("jit(x + 1)", floor_ms))
    both("jv, N = 1 (one jitted call)", jv, (one_a, one_x), 200, ("jit(x + 1)", floor_ms))
    _write_results(rows, cupy)


def _callback_floor(rows, a, x, cupy, cs) -> None:
    """Where the device path's time goes at 10^6: CuPy's kernel called from a bare ``buffer_callback`` on
    XLA's stream (the probe of ../shared/gpu, none of jaxsci's plan), and a callback that does nothing
    (the floor of any callback). Diagnostics: a failure here is printed, not raised."""
    import jax
    from jax.experimental.buffer_callback import buffer_callback

    from jaxsci._core import device

    def bare(context, out, a, x):
        with device._stream(cupy, int(context.stream)):
            cs.gammainc(cupy.asarray(a), cupy.asarray(x), out=cupy.asarray(out))

    def empty(context, out, a, x):
        pass

    for label, callback in (("gammainc, 10^6 float64: bare buffer_callback -> CuPy", bare),
                            ("10^6 float64: buffer_callback that does nothing", empty)):
        try:
            jitted = jax.jit(lambda a, x, callback=callback: buffer_callback(
                callback, jax.ShapeDtypeStruct(a.shape, a.dtype))(a, x))
            ms = _median_ms(lambda: jitted(a, x).block_until_ready(), 20)
            rows.append((label, ms, None, None))
            print(f"{label}: {ms:.3f} ms", flush=True)
        except Exception as exc:  # noqa: BLE001
            print(f"{label}: failed: {type(exc).__name__}: {exc}", flush=True)


def _write_results(rows, cupy) -> None:
    import jax

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    lines = [
        "# The device path on a GPU",
        "",
        f"`python benchmarks/gpu.py bench` on {name} (jax {jax.__version__}, CuPy {cupy.__version__}, "
        f"SciPy {__import__('scipy').__version__}, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}).",
        "Median of repeated jitted calls, blocking on the result. \"host\" is the same function with",
        "`jaxsci.config.device_kernels = False` (SciPy on the host, through `pure_callback`), measured in the same run.",
        "",
        "| call | device path (ms) | host path (ms) | host / device | baseline | baseline (ms) | device / baseline |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, device_ms, host_ms, baseline in rows:
        host_cells = f"{host_ms:.3f} | {host_ms / device_ms:.1f}x" if host_ms is not None else "– | –"
        base_cells = f"{baseline[0]} | {baseline[1]:.3f} | {device_ms / baseline[1]:.2f}" if baseline else "– | – | –"
        lines.append(f"| {label} | {device_ms:.3f} | {host_cells} | {base_cells} |")
    (ROOT / "benchmarks" / "RESULTS_gpu.md").write_text("\n".join(lines) + "\n")


def _append_results(summary: list, failed: list, seconds: float) -> None:
    """The gate's and the suite's outcome, after the benchmarks in RESULTS_gpu.md."""
    gate_data = json.loads((ROOT / "specs" / "gpu_gate.json").read_text())
    specs = {f"{s.module}.{s.name}": s for s in _specs()}
    lines = ["", "## Accuracy gate", "",
             f"`python benchmarks/gpu.py gate` on {gate_data['measured_on']}: each kernel against SciPy (or its host "
             "kernel) at 20 000 points of its spec's test domain; a kernel serves the dtypes it passed in.", "",
             "| kernel | float64 | float32 |", "|---|---|---|"]
    for qualname, by_kind in sorted(gate_data["kernels"].items()):
        for kind, measured in sorted(by_kind.items()):
            if "error" in measured:
                lines.append(f"| {qualname} ({kind}) | failed: {measured['error'][:80]} | |")
                continue
            cells = []
            for dtype in ("float64", "float32"):
                m, tol = measured[dtype], specs[qualname].device.tolerance[dtype]
                ok = m["pattern_mismatches"] == 0 and m["max_excess"] <= 1
                cells.append(f"{'pass' if ok else 'FAIL'}: max rel {m['max_rel']:.1e} (rtol {tol.rtol:.0e})")
            lines.append(f"| {qualname} ({kind}) | {cells[0]} | {cells[1]} |")
    lines += ["", "## The test suite with the GPU as JAX's default device", "",
              f"`python -m pytest` on the GPU machine after the gate: {summary[0].strip('= ') if summary else 'no summary'} "
              f"({seconds:.0f} s).", ""]
    lines += [f"- {line}" for line in failed]
    with open(ROOT / "benchmarks" / "RESULTS_gpu.md", "a") as results:
        results.write("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("gate", "bench", "all"))
    parser.add_argument("--gate-timeout", type=float, default=180.0,
                        help="seconds the gate may take; a kernel not done by then fails as hung (gate, all)")
    parser.add_argument("--only", default=None, help="gate only the kernels whose qualname contains this (gate)")
    parser.add_argument("--workers", type=int, default=12, help="pytest-xdist workers for the suite (all)")
    parser.add_argument("--suite-timeout", type=int, default=300, help="seconds the suite may take (all)")
    parser.add_argument("--budget", type=int, default=None,
                        help="seconds `all` may take in total: the suite gets what the gate, generator and bench left, "
                             "less 30 s to write the results (all)")
    arguments = parser.parse_args()
    what = arguments.what
    if what == "gate":
        gate(arguments.gate_timeout, arguments.only)
    elif what == "bench":
        bench()
    else:
        run = lambda *cmd: subprocess.run([sys.executable, *cmd], cwd=ROOT, check=False).returncode  # noqa: E731
        started = time.perf_counter()
        codes = {"gate": run(__file__, "gate", "--gate-timeout", str(arguments.gate_timeout)), "generator": run("-m", "generator"), "bench": run(__file__, "bench")}
        print(f"gate, generator and bench: {codes} in {time.perf_counter() - started:.0f} s", flush=True)
        suite_started = time.perf_counter()
        suite_timeout = arguments.suite_timeout
        if arguments.budget is not None:
            suite_timeout = max(30, min(suite_timeout, int(arguments.budget - (suite_started - started) - 30)))
        print(f"the suite may take {suite_timeout} s", flush=True)
        try:
            suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-n", str(arguments.workers),
                                    "-p", "no:cacheprovider"], cwd=ROOT, check=False, capture_output=True, text=True,
                                   timeout=suite_timeout)
            stdout, codes["suite"] = suite.stdout, suite.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = (exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or "")
            stdout += f"\nthe suite did not finish within {suite_timeout} s\n"
            codes["suite"] = 124
        print(stdout[-20000:], flush=True)
        summary = [line for line in stdout.splitlines() if " passed" in line or " failed" in line or "did not finish" in line][-1:]
        failed = [line for line in stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        _append_results(summary, failed, time.perf_counter() - suite_started)
        print(f"all: {codes} in {time.perf_counter() - started:.0f} s", flush=True)
        raise SystemExit(max(codes.values()))


if __name__ == "__main__":
    main()
