"""Host memory of a large call: peak RSS growth at 10^7 float32 elements, against SciPy's own call.

    PYTHONPATH=generated:. python benchmarks/memory.py [--size 10000000] [--repeats 3]

Each row runs in a fresh subprocess (CPU only, x64 off): it compiles the function first (for a
``ShapeDtypeStruct``, so that compiling leaves no array behind), then creates the inputs (``v`` in
[0, 5], ``z`` in [0.1, 25], float32), resets the process's peak RSS (``/proc/self/clear_refs``, so that
transients of compiling or of creating the inputs do not hide the call's own growth), makes one call,
and reports ``ru_maxrss`` after it minus ``ru_maxrss`` before it. One float32 array of 10^7 elements is
40 MB. Rows:

- ``scipy.special.jv(v, z)``: SciPy's own call, which allocates its float32 result (the unit of the
  ratios);
- ``jit(jv)``: the buffer callback, which writes into XLA's output buffer;
- ``jit(jv)`` with ``jaxsci.config.callback = "pure"``: ``pure_callback`` allocates on the host and
  JAX copies into its own buffer;
- ``jv(v, z)`` eagerly (no jit);
- ``jit(vmap(grad(jv, argnums=1)))``: d/dz by DLMF 10.6.2, one callback for the primal and
  jv(v - 1, z) (the z = 0 point evaluated only where z is 0), then the derivative formula in XLA;
- ``jit(vmap(grad(jv)))``: d/dv, jaxsci's order kernel ``jv_dv`` (numpy, float64 internally);
- the same d/dv, ``kernels.jv_dv`` called on the host directly (what the callback's kernel costs alone).

A measurement, not a test; medians (and ranges) over ``--repeats`` processes per row.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

_ROWS = {
    "scipy": "scipy.special.jv(v, z)",
    "jit": "jit(jv)",
    "jit_pure": "jit(jv), jaxsci.config.callback = \"pure\"",
    "eager": "jv(v, z) eagerly",
    "grad_z": "jit(vmap(grad(jv, argnums=1)))",
    "grad_v": "jit(vmap(grad(jv)))",
    "kernel_v": "jaxsci's kernel jv_dv(v, z), called directly",
}


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def _release_free_memory() -> None:
    """Return the allocator's free pages to the system, so that the call's growth is not hidden by reuse."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc


def _reset_peak() -> None:
    _release_free_memory()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets the peak RSS to the current RSS (Linux >= 4.0)
    except OSError:
        pass  # elsewhere the growth is measured from the earlier peak, an underestimate


def _measure(row: str, size: int) -> int:
    """One row in this process: the peak RSS growth of one call, in bytes."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np
    import scipy.special as sc

    import jaxsci
    import jaxsci.special as js

    spec = jax.ShapeDtypeStruct((size,), jnp.float32)
    call = None
    if row == "scipy" or row == "kernel_v":
        from jaxsci._core.kernels.bessel import jv_dv

        call = sc.jv if row == "scipy" else jv_dv
    elif row == "eager":
        js.jv(np.ones(4, np.float32), np.ones(4, np.float32))  # imports and first-call work, not the size

        def call(v, z):
            return js.jv(v, z).block_until_ready()
    else:
        if row == "jit_pure":
            jaxsci.config.callback = "pure"
        function = {"jit": js.jv, "jit_pure": js.jv,
                    "grad_z": jax.vmap(jax.grad(js.jv, argnums=1)), "grad_v": jax.vmap(jax.grad(js.jv))}[row]
        compiled = jax.jit(function).lower(spec, spec).compile()

        def call(v, z):
            return compiled(v, z).block_until_ready()

    rng = np.random.default_rng(0)
    v, z = np.empty(size, np.float32), np.empty(size, np.float32)
    rng.random(dtype=np.float32, out=v)  # in place: no float64 temporaries
    rng.random(dtype=np.float32, out=z)
    v *= 5
    z *= 24.9
    z += 0.1
    if row not in ("scipy", "kernel_v"):
        v, z = jnp.asarray(v), jnp.asarray(z)  # on CPU, JAX's buffers; the numpy arrays are freed
    _reset_peak()
    before = _peak_bytes()
    result = call(v, z)
    after = _peak_bytes()
    del result
    return after - before


def _in_subprocess(row: str, size: int) -> int:
    environment = dict(os.environ, JAX_PLATFORMS="cpu")
    completed = subprocess.run([sys.executable, __file__, "--row", row, "--size", str(size)],
                               capture_output=True, text=True, env=environment, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"row {row} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])["growth"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--row", choices=sorted(_ROWS), help="measure one row in this process (internal)")
    parser.add_argument("--rows", default=",".join(_ROWS), help="comma-separated rows to measure")
    options = parser.parse_args()
    if options.row:
        print(json.dumps({"growth": _measure(options.row, options.size)}))
        return
    array = options.size * 4
    print(f"{options.size:.0e} float32 elements, one array = {array / 1e6:.0f} MB; "
          f"{options.repeats} fresh processes per row\n")
    print("| call | peak RSS growth, MB (median; range) | arrays | / SciPy's |\n|---|---|---|---|")
    scipy_growth = None
    for row in options.rows.split(","):
        growths = [_in_subprocess(row, options.size) for _ in range(options.repeats)]
        median = statistics.median(growths)
        if row == "scipy":
            scipy_growth = median
        ratio = f"{median / scipy_growth:.2f}" if scipy_growth else "-"
        print(f"| {_ROWS[row]} | {median / 1e6:.0f} ({min(growths) / 1e6:.0f}-{max(growths) / 1e6:.0f}) "
              f"| {median / array:.1f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
