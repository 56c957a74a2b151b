"""How a host callback's custom call is split across devices: one call per shard, where the shard lives.

Both transports (``transport``'s buffer callback, ``pure``'s python callback) lower an elementwise
evaluation over several devices to a custom call that XLA's batch partitioner splits along every axis
of the result: each device's call sees its own shard, the result keeps the input's sharding, and under
``jax.distributed`` each process evaluates the shards its own devices hold, with no collective between
processes.
"""
from __future__ import annotations

import numpy as np
from jax._src import ffi, sharding_impls
from jax._src.custom_partitioning_sharding_rule import sdy_sharding_rule_to_mlir, str_to_sdy_sharding_rule
from jax._src.interpreters import mlir


def missing_pieces() -> list[str]:
    """The pieces of jax's internals this module uses that the installed jax lacks."""
    return [name for name in ("reshape", "broadcast_in_dim", "aval_to_ir_type") if not hasattr(mlir, name)]


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
        [mlir.aval_to_ir_type(ctx.module_context, a) for a in avals_in],
        [mlir.aval_to_ir_type(ctx.module_context, a) for a in avals_out])
    attributes = {"mhlo.frontend_attributes": mlir.ir_attribute({"num_batch_dims": str(len(shape))}),
                  "sdy.sharding_rule": rule}
    wide_ctx = ctx.replace(avals_in=avals_in, avals_out=avals_out)
    results = ffi.ffi_lowering(target, extra_attributes=attributes)(wide_ctx, *widened, index=index)
    return [mlir.reshape(ctx, r, aval) for r, aval in zip(results, ctx.avals_out)]
