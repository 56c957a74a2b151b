"""``device``: the kernels that evaluate a function on an accelerator instead of the host.

A spec names at most one CUDA kernel, of one of two kinds, and at most one XLA implementation:

- ``cupy: cupyx.scipy.special.NAME``: a CuPy ufunc (an optional dependency, ``jaxsci[gpu]``);
- ``xsf: {header: gamma.h, expression: "xsf::gammainc(a, x)"}``: SciPy's own C++ (the xsf headers that
  CuPy ships), compiled by NVRTC into an elementwise kernel;
- ``jax: jax.lax.NAME``: a jax function, compiled by XLA for any accelerator (a TPU too).

``tolerance`` is how close to SciPy the kernel must be over the spec's test domain: the accuracy gate
(``benchmarks/gpu.py gate`` on a GPU) measures every kernel, in the test domain and at edge inputs (NaN,
infinities, zeros, subnormals, past the domain), and writes ``specs/gpu_gate.json``; a kernel serves
only the dtypes in which it was measured within its tolerance and with SciPy's NaN and infinity
pattern at every edge input (the rest keep the host path, with the reason in coverage.md). Device kernels serve elementwise functions of real arguments alone.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import model
from .errors import SpecError

GATE = "gpu_gate.json"  # under specs/: what the accuracy gate measured on a GPU
CUDA_KINDS = ("cupy", "xsf")
KINDS = (*CUDA_KINDS, "jax")
_DOTTED = {"cupy": re.compile(r"^cupyx?(\.[A-Za-z_][A-Za-z0-9_]*)+$"), "jax": re.compile(r"^jax(\.[A-Za-z_][A-Za-z0-9_]*)+$")}
_HEADER = re.compile(r"^[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*\.h$")
_CALL = re.compile(r"^[A-Za-z_][A-Za-z0-9_:]*\((.*)\)$")


@dataclass(frozen=True)
class Kernel:
    kind: str  # cupy | xsf | jax
    target: str  # dotted name (cupy, jax) or the C++ expression over the argument names (xsf)
    header: str | None  # xsf: the header under cupy/xsf/
    loc: model.Location


@dataclass(frozen=True)
class Device:
    kernels: tuple  # Kernel, ...: at most one CUDA kind and one jax
    tolerance: dict  # dtype -> Tolerance, against SciPy over the test domain
    loc: model.Location


def load(top, path: str, args: tuple, outputs: tuple, mapping, tolerances) -> Device | None:
    """The ``device`` key. ``mapping`` and ``tolerances`` are the loader's own readers."""
    if not top.has("device"):
        top.taken.add("device")
        return None
    m = mapping(top.get("device", dict), path, "device", top.value_line("device"))
    names = [a.name for a in args]
    kernels = []
    for kind in KINDS:
        if not m.has(kind):
            m.taken.add(kind)
            continue
        line = m.value_line(kind)
        if kind in _DOTTED:
            target = m.get(kind, str).strip()
            if not _DOTTED[kind].match(target):
                raise SpecError(path, line, f"device.{kind} must be a dotted name like "
                                            f"{'cupyx.scipy.special.gammainc' if kind == 'cupy' else 'jax.lax.igamma_grad_a'}, got {target!r}")
            kernels.append(Kernel(kind, target, None, model.Location(path, line)))
            continue
        sub = mapping(m.get(kind, dict), path, f"device.{kind}", line)
        header = sub.get("header", str, required=True).strip()
        expression = " ".join(sub.get("expression", str, required=True).split())
        sub.done()
        if not _HEADER.match(header):
            raise SpecError(path, sub.value_line("header"), f"device.{kind}.header must be a header under cupy/xsf/, "
                                                           f"like gamma.h or cephes/jv.h, got {header!r}")
        call = _CALL.match(expression)
        used = [a.strip() for a in call.group(1).split(",")] if call else []
        if not call or sorted(used) != sorted(names):
            raise SpecError(path, sub.value_line("expression"), f"device.{kind}.expression must call one function on "
                            f"each argument once ({', '.join(names)}), like xsf::NAME({', '.join(names)}); got {expression!r}")
        kernels.append(Kernel(kind, expression, header, model.Location(path, line)))
    if not kernels:
        raise SpecError(path, m.line, f"device names no kernel: give one of {', '.join(KINDS)}")
    if sum(k.kind in CUDA_KINDS for k in kernels) > 1:
        raise SpecError(path, m.line, f"device names more than one CUDA kernel ({', '.join(k.kind for k in kernels if k.kind in CUDA_KINDS)}): keep one")
    tolerance = tolerances(m, "tolerance", path, "device.tolerance", None)
    loc = m.loc()
    m.done()
    if any(a.kind not in ("real", "complex") for a in args):
        bad = ", ".join(f"{a.name} ({a.kind})" for a in args if a.kind not in ("real", "complex"))
        raise SpecError(path, loc.line, f"device: kernels serve functions of real arguments only (complex "
                                        f"arguments keep the host for complex inputs); {bad} is not")
    if len(outputs) != 1 or outputs[0].shape is not None or outputs[0].dtype != "promoted":
        raise SpecError(path, loc.line, "device: kernels serve elementwise functions with one output of the arguments' dtype")
    if top.has("guard") or top.has("reduction"):
        raise SpecError(path, loc.line, "device: not supported together with guard (SciPy's own values are unsafe "
                                        "outside it) or reduction")
    return Device(kernels=tuple(kernels), tolerance=tolerance, loc=loc)


def load_gate(specs_dir: Path) -> dict:
    """``specs/gpu_gate.json``: where the accuracy gate ran and, per (function, kind), what it measured."""
    path = specs_dir / GATE
    if not path.exists():
        return {"measured_on": None, "kernels": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data["kernels"] if "kernels" in data else None, dict):
        raise SpecError(f"specs/{GATE}", None, "must be the accuracy gate's output: {\"measured_on\": ..., \"kernels\": {...}}")
    return data


def verdict(spec: model.Spec, kernel: Kernel, gate: dict) -> tuple:
    """(dtypes, text): the dtypes in which the gate measured ``kernel`` within the spec's tolerance, and
    what it measured. A kernel serves each dtype it passed in (an XLA kernel computes in the operands'
    dtype, so it may pass in float64 alone)."""
    found = gate["kernels"].get(f"{spec.module}.{spec.name}", {}).get(kernel.kind)
    if found is None:
        return (), "not measured on a GPU yet"
    if "error" in found:
        return (), f"failed on the GPU: {found['error']}"
    texts, used = [], []
    for dtype in model.TEST_DTYPES:
        measured = found.get(dtype)
        if measured is None:
            texts.append(f"{dtype}: not measured")
            continue
        tol = spec.device.tolerance[dtype]
        edges = measured["edges"] if "edges" in measured else None
        if measured["pattern_mismatches"]:
            texts.append(f"{dtype}: {measured['pattern_mismatches']} NaN/inf mismatches")
        elif edges is None:
            texts.append(f"{dtype}: max rel {measured['max_rel']:.1e} in the test domain; edge inputs not measured yet")
        elif edges["mismatches"]:
            texts.append(f"{dtype}: max rel {measured['max_rel']:.1e}; differs from SciPy at {edges['mismatches']} "
                         f"of {edges['points']} edge inputs")
        elif measured["max_excess"] <= 1.0:
            used.append(dtype)
            texts.append(f"{dtype}: max rel {measured['max_rel']:.1e}")
        else:
            texts.append(f"{dtype}: max rel {measured['max_rel']:.1e} > rtol {tol.rtol:.0e}")
    return tuple(used), "; ".join(texts)
