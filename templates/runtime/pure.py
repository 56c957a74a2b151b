"""The ``pure_callback`` transport: ``jax.pure_callback``'s host round trip, bound through a primitive of
jaxsci's own, ``jaxsci_pure_callback``, which lowers as ``jax.pure_callback`` does except in two cases.

- Under ``jit`` over several devices, ``jax.pure_callback`` pins the call to one device (a MAXIMAL
  sharding): every operand is gathered to device 0, which evaluates the whole array. Under
  ``jax.distributed`` that device belongs to one process, and the gather crosses hosts. An elementwise
  evaluation is lowered instead to the custom call behind ``pure_callback`` (JAX's python-callback FFI
  target), split into one call per shard as the buffer callback is (``partition``): each device
  evaluates its own shard, and each process only the shards it owns.
- ``jax.export`` raises jaxsci's ``ExportError``, with its explanation, on every platform (JAX's own
  refusal is a ``NotImplementedError`` about host callbacks).

Where this jax lacks the pieces, jaxsci warns once (``TransportWarning``) and calls ``jax.pure_callback``.
"""
from __future__ import annotations

import threading
import warnings

import jax
import numpy as np

from .errors import ExportError, TransportWarning
from .export import explain

# The FFI targets of jax.pure_callback's lowering (jax._src.callback.emit_python_callback), by platform
_TARGETS = {"cpu": "xla_ffi_python_cpu_callback", "cuda": "xla_ffi_python_gpu_callback",
            "rocm": "xla_ffi_python_gpu_callback"}


def _result_types(result_avals) -> tuple:
    return tuple(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in result_avals)


def _pure_callback_primitive():
    """The primitive, built from jax's private pieces; raises where this jax lacks one."""
    from jax._src import ffi
    from jax._src.interpreters import mlir

    from . import partition

    primitive = partition.callback_primitive("jaxsci_pure_callback")

    def _lowering(ctx, *operands, callback, result_avals, vmap_method, elementwise=True):
        if getattr(ctx.module_context.lowering_parameters, "for_export", False):
            raise ExportError(explain((call[0] for call in callback.args[0]), "pure"))
        platforms = ctx.module_context.platforms
        if len(platforms) == 1 and platforms[0] in _TARGETS and partition.elementwise_over_devices(ctx, elementwise):
            # The host function gets each shard's operands (numpy arrays) and returns its outputs,
            # shaped as the shard: evaluate_calls allocates them with the operands' broadcast shape.
            ctx.module_context.add_host_callback(callback)
            index = np.uint64(len(ctx.module_context.host_callbacks) - 1)
            return partition.lower_per_shard(ctx, operands, _TARGETS[platforms[0]], index)
        types = _result_types(result_avals)
        return mlir.lower_fun(lambda *ops: jax.pure_callback(callback, types, *ops, vmap_method=vmap_method),
                              multiple_results=True)(ctx, *operands)

    mlir.register_lowering(primitive, _lowering)
    for target in set(_TARGETS.values()):
        ffi.register_ffi_target_as_batch_partitionable(target)
    return primitive


_UNBUILT = object()
_PRIMITIVE = _UNBUILT  # the primitive once built, or None where this jax cannot build it
_LOCK = threading.Lock()


def _primitive():
    global _PRIMITIVE
    if _PRIMITIVE is _UNBUILT:
        with _LOCK:
            if _PRIMITIVE is _UNBUILT:
                try:
                    _PRIMITIVE = _pure_callback_primitive()
                except Exception as exc:  # noqa: BLE001 - any incompatibility in jax's internals
                    warnings.warn(f"jaxsci: its pure_callback primitive cannot be built with jax {jax.__version__}: "
                                  f"{type(exc).__name__}: {exc}. jaxsci calls jax.pure_callback instead, which "
                                  "evaluates a sharded array on one device.", TransportWarning, stacklevel=3)
                    _PRIMITIVE = None
    return _PRIMITIVE


def pure_callback(callback, result_avals: tuple, operands: tuple, vmap_method: str, elementwise: bool) -> tuple:
    """``callback(*operands)`` on the host, as ``jax.pure_callback`` would call it; one array per result aval.

    ``callback`` is ``functools.partial(host.evaluate_calls, calls)``. ``elementwise=False`` (a reduction
    over an axis) keeps it from being split across devices by shape alone.
    """
    primitive = _primitive()
    if primitive is None:
        return tuple(jax.pure_callback(callback, _result_types(result_avals), *operands, vmap_method=vmap_method))
    return tuple(primitive.bind(*operands, callback=callback, result_avals=result_avals, vmap_method=vmap_method,
                                elementwise=elementwise))
