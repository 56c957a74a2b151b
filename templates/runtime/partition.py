"""What jaxsci's two callback primitives share (``transport``'s buffer callback, ``pure``'s python
callback): their abstract evaluation and batching, and how their custom call is split across devices.

An elementwise evaluation over several devices is lowered to a custom call that XLA's batch partitioner
splits along every axis of the result: each device's call sees its own shard, the result keeps the
input's sharding, and under ``jax.distributed`` each process evaluates the shards its own devices
hold, with no collective between processes.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np
from jax._src import core, dispatch, ffi, sharding_impls
from jax._src.custom_partitioning_sharding_rule import sdy_sharding_rule_to_mlir, str_to_sdy_sharding_rule
from jax._src.interpreters import batching, mlir
from jax._src.lax import lax as lax_internal


def _missing_pieces() -> list[str]:
    """The pieces of jax's internals this module uses that the installed jax lacks."""
    missing = [name for name in ("reshape", "broadcast_in_dim", "aval_to_ir_type") if not hasattr(mlir, name)]
    return missing + ([] if hasattr(lax_internal, "broadcasting_sharding_rule") else ["broadcasting_sharding_rule"])


def callback_primitive(name: str):
    """A primitive ``name`` binding ``(*operands, callback, result_avals, vmap_method, elementwise=True)``,
    without its lowering. Elementwise: with explicit mesh axes the results carry the operands' broadcast
    sharding, as jax.numpy's elementwise functions do; ``vmap_method`` batches direct calls. Raises
    ``ImportError`` where this jax lacks a piece that the primitives use."""
    missing = _missing_pieces()
    if missing:
        raise ImportError(f"jax._src lacks {', '.join(missing)}")
    primitive = core.Primitive(name)
    primitive.multiple_results = True
    dispatch.simple_impl(primitive)

    @primitive.def_abstract_eval
    def _abstract_eval(*operands, callback, result_avals, vmap_method, elementwise=True):
        shape = result_avals[0].shape if result_avals else ()
        if not elementwise or not operands or any(a.shape != shape for a in result_avals) or any(
                len(o.shape) != len(shape) for o in operands):
            return result_avals
        sharding = lax_internal.broadcasting_sharding_rule(name, *operands)
        return tuple(a.update(sharding=sharding) for a in result_avals)

    batching.primitive_batchers[primitive] = functools.partial(ffi.ffi_batching_rule, primitive)
    return primitive


def elementwise_over_devices(ctx, elementwise: bool) -> bool:
    """Whether the call being lowered (``ctx``) is elementwise and partitioned over several devices."""
    if not elementwise:  # a reduction over an axis (softmax's output has its input's shape, but is not)
        return False
    axis_context = ctx.module_context.axis_context
    if not isinstance(axis_context, sharding_impls.ShardingContext) or axis_context.num_devices < 2:
        return False
    shape = ctx.avals_out[0].shape if ctx.avals_out else ()
    # A call without operands (roots_legendre(n)) is not elementwise: it is computed whole.
    return bool(shape) and bool(ctx.avals_in) and all(a.shape == shape for a in ctx.avals_out) and all(
        len(a.shape) == len(shape) for a in ctx.avals_in)


def _ir_type(ctx, aval):
    # jax 0.7 added the module context as aval_to_ir_type's first argument
    if len(inspect.signature(mlir.aval_to_ir_type).parameters) > 1:
        return mlir.aval_to_ir_type(ctx.module_context, aval)
    return mlir.aval_to_ir_type(aval)


def lower_per_shard(ctx, operands, target: str, index: np.uint64) -> list:
    """The FFI custom call ``target`` (host callback number ``index``), split by XLA into one call per shard.

    XLA partitions a batch-partitionable custom call along its leading num_batch_dims axes, all of them
    shared by every operand and result and followed by at least one more axis: so the operands are
    broadcast to the result's shape (per shard, after partitioning) and every buffer gets a trailing axis
    of size 1. The host sees the same elements either way. ``target`` must have been registered with
    ``ffi.register_ffi_target_as_batch_partitionable``.
    """
    shape = ctx.avals_out[0].shape
    widened = []
    for operand, aval in zip(operands, ctx.avals_in):
        if aval.shape != shape:
            operand = mlir.broadcast_in_dim(ctx, operand, aval.update(shape=shape),
                                            broadcast_dimensions=tuple(range(len(shape))))
        widened.append(mlir.reshape(ctx, operand, aval.update(shape=shape + (1,))))
    avals_in = [a.update(shape=shape + (1,)) for a in ctx.avals_in]
    avals_out = [a.update(shape=shape + (1,)) for a in ctx.avals_out]
    operand_factors = ", ".join(["... k"] * len(avals_in))
    result_factors = ", ".join(["... k"] * len(avals_out))
    rule = sdy_sharding_rule_to_mlir(
        str_to_sdy_sharding_rule(f"{operand_factors} -> {result_factors}"),
        [_ir_type(ctx, a) for a in avals_in], [_ir_type(ctx, a) for a in avals_out])
    attributes = {"mhlo.frontend_attributes": mlir.ir_attribute({"num_batch_dims": str(len(shape))}),
                  "sdy.sharding_rule": rule}
    wide_ctx = ctx.replace(avals_in=avals_in, avals_out=avals_out)
    results = ffi.ffi_lowering(target, extra_attributes=attributes)(wide_ctx, *widened, index=index)
    return [mlir.reshape(ctx, r, aval) for r, aval in zip(results, ctx.avals_out)]
