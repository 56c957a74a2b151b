"""The device-host boundary: every evaluation of the core crosses it here, in one callback (or, for an
eager call outside any trace, in a direct call of the same host function: ``_eager_device``).

On CPU the core calls SciPy through XLA's buffer callback (the custom call behind
``jax.experimental.buffer_callback``): XLA hands the callback its operand and result buffers, which
numpy reads and SciPy fills in place, with no ``device_put`` of operands or copy of results (about 10x
less overhead per call than ``pure_callback``). jaxsci binds that custom call through a primitive of
its own, ``jaxsci_host_callback``, for one reason: under ``jit`` over several devices, its lowering
marks the call elementwise (a Shardy sharding rule, and XLA's batch partitioner), so each device
evaluates its own shard where it lives and the result keeps the input's sharding. Under
``jax.distributed`` the same holds per process: each host evaluates the shards it owns.

Elsewhere (GPU buffers live on the device; other backends have no buffer callbacks), and where this
jax lacks the pieces, the core uses ``pure_callback``, which moves data device -> host -> device,
through a primitive of jaxsci's own that evaluates per shard as well (``pure``).
The choice is made per lowering platform with ``lax.platform_dependent``, so one traced function
serves CPU and GPU. ``jaxsci.config.callback = "pure"`` (or ``JAXSCI_CALLBACK=pure``) forces
``pure_callback`` everywhere.

Both are pure: no side effects, removed by dead-code elimination when unused. Evaluations of traced
arguments reach them only when ``evaluate``'s primitive is lowered, after its own batching rule (the
``expand_dims`` layout) has run, so their ``vmap_method`` batching serves direct calls alone.
"""
from __future__ import annotations

import functools
import threading
import warnings

import jax
import numpy as np
from jax import lax
from jax._src import core

from . import debugflags, device
from .errors import ExportError, TransportWarning
from .errstate import eager_call
from .export import explain
from .host import HostCalls, evaluate_calls, evaluate_calls_in_place
from .pure import pure_callback

_CPU_TARGET = "xla_buffer_python_cpu_callback"
# the platforms the primitive lowers on: the CPU with host functions, CUDA with device ones (device.py)
_TARGETS = {"cpu": _CPU_TARGET, "cuda": device.GPU_TARGET}


def _buffer_callback_primitive():
    """The buffer-callback primitive, built from jax's private pieces; raises where this jax lacks one."""
    from jax._src import ffi
    from jax._src.interpreters import mlir

    from . import partition

    primitive = partition.callback_primitive("jaxsci_host_callback")

    def _lowering(ctx, *operands, callback, result_avals, vmap_method, elementwise=True):
        if getattr(ctx.module_context.lowering_parameters, "for_export", False):
            calls = callback.args[0]
            raise ExportError(explain((call[0] for call in calls), "device" if isinstance(calls, device.DeviceCalls) else "buffer"))
        platforms = tuple(ctx.module_context.platforms)
        if len(platforms) != 1 or platforms[0] not in _TARGETS:
            raise NotImplementedError("jaxsci's buffer callback lowers for one platform at a time: the CPU (host "
                                      "functions) or CUDA (device kernels)")
        target = _TARGETS[platforms[0]]
        count = len(operands)

        def host(execution_context, *buffers):
            callback(execution_context, buffers[count:], *buffers[:count])
            return ()

        ctx.module_context.add_host_callback(host)
        index = np.uint64(len(ctx.module_context.host_callbacks) - 1)
        if not partition.elementwise_over_devices(ctx, elementwise):
            return ffi.ffi_lowering(target)(ctx, *operands, index=index)
        return partition.lower_per_shard(ctx, operands, target, index)

    # for every platform: a lowering for several (jax.export's platforms=["cpu", "cuda"]) lowers each
    # branch of lax.platform_dependent for all of them, and must meet the ExportError above
    mlir.register_lowering(primitive, _lowering)
    for target in set(_TARGETS.values()):
        ffi.register_ffi_target_as_batch_partitionable(target)
    return primitive


def _probe(primitive) -> str | None:
    """Why ``primitive`` does not work here (built, lowered, compiled and run on two numbers), or None."""
    def add_one(context, out_buffers, *in_buffers):
        np.asarray(out_buffers[0])[...] = np.asarray(in_buffers[0]) + 1

    aval = jax.core.ShapedArray((2,), np.dtype(np.float32))
    try:
        cpu = jax.local_devices(backend="cpu")[0]
        # lowered and compiled explicitly, for the CPU, and run eagerly: the probe runs while a caller
        # is being traced, where a plain jit call would be staged into the caller's trace
        with jax.ensure_compile_time_eval():
            compiled = jax.jit(lambda x: primitive.bind(x, callback=add_one, result_avals=(aval,), vmap_method="expand_dims")[0]
                               ).lower(jax.ShapeDtypeStruct((2,), np.float32, sharding=jax.sharding.SingleDeviceSharding(cpu))
                                       ).compile()
            out = compiled(np.zeros(2, np.float32))
        if np.asarray(out).tolist() != [1.0, 1.0]:
            return f"a test call returned {np.asarray(out).tolist()} instead of [1.0, 1.0]"
    except Exception as exc:  # noqa: BLE001 - any failure means: use pure_callback
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return None


_UNCHECKED = object()
_BUFFER_CALLBACK = _UNCHECKED  # the primitive once built and probed, or None where it does not work
_BUFFER_CALLBACK_LOCK = threading.Lock()


def buffer_callback_primitive():
    """The buffer-callback primitive, or None; built and probed at the first traced call that could use it.

    Where it cannot be built or fails to lower, compile or run, jaxsci warns once (``TransportWarning``,
    naming the jax version and the reason) and uses ``jax.pure_callback`` instead.
    """
    global _BUFFER_CALLBACK
    if _BUFFER_CALLBACK is _UNCHECKED:
        with _BUFFER_CALLBACK_LOCK:
            if _BUFFER_CALLBACK is _UNCHECKED:
                try:
                    primitive, reason = _buffer_callback_primitive(), None
                except Exception as exc:  # noqa: BLE001 - any incompatibility in jax's internals
                    primitive, reason = None, f"it cannot be built: {type(exc).__name__}: {exc}"
                if primitive is not None:
                    reason = _probe(primitive)
                    reason = reason and f"it fails to lower, compile or run: {reason}"
                if reason:
                    warnings.warn(f"jaxsci: the buffer-callback core does not work with jax {jax.__version__} "
                                  f"(jaxlib {_jaxlib_version()}): {reason}. "
                                  "jaxsci uses jax.pure_callback instead, which is about 10x slower per call.",
                                  TransportWarning, stacklevel=2)
                    primitive = None
                _BUFFER_CALLBACK = primitive
    return _BUFFER_CALLBACK


def _jaxlib_version() -> str:
    try:
        import jaxlib

        return jaxlib.__version__
    except Exception:  # noqa: BLE001
        return "unknown"


@functools.lru_cache(maxsize=4096)
def _pure_function(host_calls: tuple):
    """One callable per distinct plan, so JAX's compilation caches recognise repeated calls."""
    return functools.partial(evaluate_calls, HostCalls(host_calls))


@functools.lru_cache(maxsize=4096)
def _in_place_function(host_calls: tuple):
    return functools.partial(evaluate_calls_in_place, HostCalls(host_calls))


@functools.lru_cache(maxsize=4096)
def _device_function(device_calls: tuple):
    return functools.partial(device.run_on_device, device_calls)


def buffer_callback_available() -> bool:
    return buffer_callback_primitive() is not None


def _eager_device(operands):
    """Where an eager call's results go, or None for a call the callback must make.

    A call outside any trace whose operands are concrete and on one device (or no device: numpy
    arrays, Python numbers) is evaluated on the host directly, as the callback would evaluate it: binding
    the callback would compile an XLA computation for each function and shape first (tens of
    milliseconds, a thousand times the evaluation of a few numbers). Operands on several devices keep the
    callback, which evaluates each shard where it lives; operands on different devices get JAX's error.
    Returns ``(device,)``, with ``device`` None for the default device.
    """
    if not operands or not core.trace_ctx.is_top_level():
        return None
    devices = set()
    for operand in operands:
        if isinstance(operand, core.Tracer):
            return None
        if isinstance(operand, jax.Array):
            if len(operand.sharding.device_set) != 1 or not operand.is_fully_addressable:
                return None
            if operand.committed:
                devices |= operand.sharding.device_set
    if len(devices) > 1:
        return None
    return (next(iter(devices)) if devices else None,)


def host_callback(host_calls: tuple, result_types: tuple, operands: tuple, vmap_method: str, transport: str,
                  elementwise: bool = True) -> tuple:
    """Evaluate ``host_calls`` (see ``host.run_calls``) on ``operands``; returns one array per result type.

    ``transport`` is ``config.callback`` as it was when the caller was traced. ``elementwise=False``
    (a reduction over an axis) keeps XLA from splitting the call across devices by shape alone.
    """
    eager = _eager_device(operands)
    if eager is not None and not (eager[0] is not None and device.offloads(host_calls, eager[0].platform)):
        arrays = tuple(np.asarray(o) for o in operands)
        with eager_call():  # SciPy's SpecialFunctionError reaches the caller, as from SciPy itself
            outputs = _pure_function(host_calls)(*arrays)
        debugflags.check(host_calls, arrays, outputs)  # jax_debug_nans/infs, here and in jit's op-by-op re-run
        return tuple(jax.device_put(o, eager[0]) for o in outputs)

    def host(calls, types, *ops):
        avals = tuple(jax.core.ShapedArray(t.shape, t.dtype) for t in types)
        return pure_callback(_pure_function(calls), avals, ops, vmap_method, elementwise)

    def bind(calls, types, *ops):
        """The primitive with a host function (CPU) or a device function (CUDA: ``device.run_on_device``)."""
        function = _in_place_function(calls) if isinstance(calls, HostCalls) else _device_function(calls)
        avals = tuple(jax.core.ShapedArray(t.shape, t.dtype) for t in types)
        return tuple(primitive.bind(*ops, callback=function, result_avals=avals, vmap_method=vmap_method,
                                    elementwise=elementwise))

    # a forced "pure" transport concerns the host; the device path needs the primitive all the same
    wanted = transport != "pure" or device.offloads(host_calls, "cuda", cuda_only=True)
    primitive = buffer_callback_primitive() if wanted else None
    branches = device.accelerated_branches(host_calls, result_types, host, bind if primitive is not None else None)
    if primitive is not None and transport != "pure":
        branches["cpu"] = functools.partial(bind, HostCalls(host_calls), result_types)
    if not branches:
        return host(host_calls, result_types, *operands)
    return tuple(lax.platform_dependent(*operands, **branches, default=functools.partial(host, host_calls, result_types)))
