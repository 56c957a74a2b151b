"""The accelerator path: the calls of a plan that have device kernels are evaluated where the data lives.

On CUDA, the calls whose CUDA kernel (a CuPy ufunc, or SciPy's xsf C++ compiled by NVRTC) passed the
accuracy gate run in one XLA GPU buffer callback (``xla_buffer_python_gpu_callback``, through the
core's own primitive): XLA hands the callback its device buffers and its stream, CuPy wraps them
zero-copy and launches the kernels on that stream, and nothing waits for the host. Calls with an XLA
kernel (``jax``: ``jax.lax.igamma_grad_a``) are compiled into the computation on any accelerator. The
plan's other calls go to SciPy on the host (``pure_callback``), as everywhere before.

Where each call goes is decided when the plan is traced (``placement``): the kernel table
(``jaxsci/_device_table.py``, generated from the specs' ``device`` keys and the gate's measurements)
and ``config.device_kernels`` decide it, for the accelerators this process has (``accelerators``), and
CuPy must be importable for the CUDA kernels. The
lowering for other platforms is untouched: ``lax.platform_dependent`` picks the CUDA branch only where
the computation is lowered for CUDA, so one traced function serves CPU and GPU. Like the CPU buffer
callback, the GPU one is batch-partitionable: under ``jit`` over several GPUs each evaluates its own
shard.
"""
from __future__ import annotations

import functools
import importlib
import threading

import jax
import jax.numpy as jnp
import numpy as np

from .config import config
from .errstate import report
from .registry import lookup

GPU_TARGET = "xla_buffer_python_gpu_callback"
CUDA_KINDS = ("cupy", "xsf")
# where an XLA kernel may run in place of the host; CPUs keep SciPy, whose values the kernels approximate
ACCELERATORS = ("cuda", "rocm", "tpu")
HOST, NATIVE, CUDA = "host", "jax", "cuda"


def kernel_table() -> dict:
    """``{(qualname, kind): (target, header, dtypes the gate passed it in)}``, from the generated package."""
    root = __name__.split(".")[0]
    return importlib.import_module(f"{root}._device_table").KERNELS


@functools.lru_cache(maxsize=1)
def accelerators() -> tuple:
    """The accelerator platforms this process has devices of. Plans get an accelerator branch only for
    these: on a machine with CPUs alone, tracing stays what it was (no branch that nothing would run)."""
    found = []
    for platform in ACCELERATORS:
        try:
            if jax.devices(platform):
                found.append(platform)
        except Exception:  # noqa: BLE001 - no such backend in this process (jax raises RuntimeError)
            continue
    return tuple(found)


@functools.lru_cache(maxsize=1)
def cupy_importable() -> bool:
    """Whether CuPy can be imported (``jaxsci[gpu]``); its kernels are compiled only when first run."""
    try:
        importlib.import_module("cupy")
    except Exception:  # noqa: BLE001 - any failure to import means: no CUDA kernels
        return False
    return True


def _elementwise_real(call) -> bool:
    """An elementwise call of real operands with one real dtype, and no static arguments (a special-point
    ``where`` is allowed: ``_branch`` masks it as the host does)."""
    _, statics, indices, dtypes, shapes, _ = call
    return (not statics and shapes is None and bool(indices) and len(set(map(np.dtype, dtypes))) == 1
            and np.dtype(dtypes[0]) in (np.float32, np.float64))


def _usable(call, kinds) -> tuple | None:
    """The first of ``kinds`` for which the call's function has a kernel that passed the gate in its dtype."""
    table = kernel_table()
    dtype = np.dtype(call[3][0]).name
    for kind in kinds:
        entry = table.get((call[0], kind))
        if entry is not None and dtype in entry[2]:
            return (kind, *entry[:2])
    return None


def placement(host_calls: tuple, platform: str) -> tuple:
    """Where each call of the plan runs when lowered for ``platform``: ``(HOST | NATIVE | CUDA, kernel)``.

    ``kernel`` is ``(kind, target, header)`` for a kernel, None for the host.
    """
    if not config.device_kernels or platform not in accelerators():
        return tuple((HOST, None) for _ in host_calls)
    cuda = platform == "cuda" and cupy_importable()
    placed = []
    for call in host_calls:
        kernel = _usable(call, (*(CUDA_KINDS if cuda else ()), "jax")) if _elementwise_real(call) else None
        placed.append((HOST, None) if kernel is None else (NATIVE if kernel[0] == "jax" else CUDA, kernel))
    return tuple(placed)


def offloads(host_calls: tuple, platform: str, *, cuda_only: bool = False) -> bool:
    """Whether some call of the plan runs on ``platform``'s accelerator (in a CUDA kernel, with ``cuda_only``)."""
    return any(where == CUDA or (where == NATIVE and not cuda_only) for where, _ in placement(host_calls, platform))


def accelerated_branches(host_calls: tuple, result_types: tuple, host, bind) -> dict:
    """``{platform: branch}`` for each accelerator on which some of the plan's calls have kernels.

    ``host(calls, result_types, *operands)`` evaluates calls on the host; ``bind(device_calls,
    result_types, *operands)`` binds the buffer-callback primitive with a device function, or is None
    where that primitive does not work with this jax (then the CUDA kernels are not used).
    """
    branches, by_placement = {}, {}
    for platform in accelerators():
        placed = placement(host_calls, platform)
        if bind is None:
            placed = tuple((HOST, None) if where == CUDA else (where, kernel) for where, kernel in placed)
        if all(where == HOST for where, _ in placed):
            continue
        # one branch object per distinct placement: lax.platform_dependent traces each object once
        if placed not in by_placement:
            by_placement[placed] = functools.partial(_branch, host_calls, result_types, placed, host, bind)
        branches[platform] = by_placement[placed]
    return branches


def _branch(host_calls, result_types, placed, host, bind, *operands):
    """One platform's evaluation of the plan: XLA kernels inline, CUDA kernels in one buffer callback,
    the rest in one host callback; the flat outputs in the plan's order."""
    slots, start = [], 0
    for call in host_calls:
        slots.append(range(start, start + len(call[3])))
        start += len(call[3])
    outputs = [None] * start
    for call, (where, kernel), slot in zip(host_calls, placed, slots):
        if where == NATIVE:
            shape, dtype = result_types[slot[0]].shape, result_types[slot[0]].dtype
            function = _resolve(kernel[1])
            value = function(*(jnp.asarray(operands[i]).astype(dtype) for i in call[2]))
            outputs[slot[0]] = jnp.broadcast_to(value.astype(dtype), shape)
    for where in (CUDA, HOST):
        picked = [(call, kernel, slot) for call, (w, kernel), slot in zip(host_calls, placed, slots) if w == where]
        if not picked:
            continue
        types = tuple(result_types[k] for _, _, slot in picked for k in slot)
        if where == CUDA:
            device_calls = DeviceCalls((call[0], *kernel, call[2], len(call[3])) for call, kernel, _ in picked)
            results = bind(device_calls, types, *operands)
        else:
            results = host(tuple(call for call, _, _ in picked), types, *operands)
        flat = iter(results)
        for _, _, slot in picked:
            for k in slot:
                outputs[k] = next(flat)
    for call, (where, _), slot in zip(host_calls, placed, slots):
        if where != HOST and call[5]:
            # a special-point evaluation (``Call.where``): the host computes it only where each operand
            # equals its constant and leaves zeros elsewhere; a kernel computes it everywhere, so mask
            selected = functools.reduce(jnp.logical_and, [operands[i] == constant for i, constant in call[5]])
            for k in slot:
                outputs[k] = jnp.where(selected, outputs[k], jnp.zeros_like(outputs[k]))
    return tuple(outputs)


def _resolve(dotted: str):
    from .registry import _resolve as resolve

    return resolve(dotted)


class DeviceCalls(tuple):
    """``((qualname, kind, target, header, operand indices, output count), ...)``: what one GPU callback runs."""


# ---- run time, inside the GPU buffer callback -------------------------------------------------------
_KERNELS: dict = {}
_KERNELS_LOCK = threading.Lock()


def _cupy():
    return importlib.import_module("cupy")


def xsf_preamble(header: str) -> str:
    """The source every xsf kernel starts with: CuPy's complex type (xsf's config.h builds on it), then the header."""
    return f"#include <cupy/complex.cuh>\n#include <cupy/xsf/{header}>\n"


def _build(qualname: str, kind: str, target: str, header: str | None):
    """A callable ``kernel(arguments, output)`` that writes the function of the CuPy ``arguments`` into ``output``.

    Both kinds compute in float64, as SciPy does, and round once into the output's dtype.
    """
    cupy = _cupy()
    if kind == "cupy":
        ufunc = _resolve(target)

        def run_ufunc(arguments, output):
            if output.dtype == cupy.float64 and all(a.dtype == cupy.float64 for a in arguments):
                ufunc(*arguments, out=output)
            else:
                output[...] = ufunc(*(a.astype(cupy.float64, copy=False) for a in arguments))

        return run_ufunc
    names = [a.name for a in lookup(qualname).traced_args]
    kernel = cupy.ElementwiseKernel(
        ", ".join(f"float64 {name}" for name in names), "O out", f"out = (O)({target})",
        f"jaxsci_{qualname.replace('.', '_')}", preamble=xsf_preamble(header))

    def run_xsf(arguments, output):
        kernel(*(a.astype(cupy.float64, copy=False) for a in arguments), output)

    return run_xsf


def _kernel(qualname: str, kind: str, target: str, header: str | None):
    key = (qualname, kind)
    built = _KERNELS.get(key)
    if built is None:
        with _KERNELS_LOCK:
            built = _KERNELS.get(key)
            if built is None:
                built = _KERNELS[key] = _build(qualname, kind, target, header)
    return built


def _device_id(cupy, buffers) -> int | None:
    """The GPU that holds the buffers (XLA runs one callback per device under a multi-GPU ``jit``)."""
    for buffer in buffers:
        pointer = buffer.__cuda_array_interface__["data"][0]
        if pointer:
            return cupy.cuda.runtime.pointerGetAttributes(pointer).device
    return None


class _XlaStream:
    """XLA's stream, offered to CuPy through the CUDA stream protocol (``Stream.from_external``)."""

    def __init__(self, pointer: int):
        self._pointer = pointer

    def __cuda_stream__(self):
        return (0, self._pointer)


def _stream(cupy, pointer: int):
    # CuPy 14 deprecates ExternalStream (a DeprecationWarning raised inside the callback, which a
    # warnings filter set to "error" turns into an exception) in favour of the stream protocol
    from_external = getattr(cupy.cuda.Stream, "from_external", None)
    if from_external is not None:
        return from_external(_XlaStream(pointer))
    return cupy.cuda.ExternalStream(pointer)


def run_on_device(calls: DeviceCalls, context, out_buffers, *in_buffers) -> None:
    """The GPU buffer callback: each call's kernel on XLA's buffers and stream. Never raises: a call that
    fails writes NaN into its outputs and is reported as a host call's failure is (``errstate``)."""
    qualname = calls[0][0] if calls else "?"
    try:
        cupy = _cupy()
        device = _device_id(cupy, [*out_buffers, *in_buffers])
        with cupy.cuda.Device(device if device is not None else cupy.cuda.runtime.getDevice()):
            outputs = [cupy.asarray(b) for b in out_buffers]
            try:
                with _stream(cupy, int(context.stream)):
                    _run_calls(calls, [cupy.asarray(b) for b in in_buffers], outputs)
            except Exception as exc:  # noqa: BLE001 - CuPy failed around the kernels (XLA's stream, the operands)
                report(qualname, exc)
                for output in outputs:  # NaN, never the stale memory XLA allocated for the results
                    output.fill(np.nan)
                cupy.cuda.runtime.deviceSynchronize()  # written before XLA reads the results
    except Exception as exc:  # noqa: BLE001 - CuPy cannot be reached at all
        report(qualname, exc)


def _run_calls(calls: DeviceCalls, arrays: list, outputs: list) -> None:
    start = 0
    for qualname, kind, target, header, indices, count in calls:
        mine = outputs[start:start + count]
        start += count
        try:
            _kernel(qualname, kind, target, header)([arrays[i] for i in indices], mine[0])
        except Exception as exc:  # noqa: BLE001 - nothing may escape a callback
            report(qualname, exc)
            for output in mine:
                output.fill(np.nan)
