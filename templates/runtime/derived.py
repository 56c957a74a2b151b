"""A function's own derivatives returned with its value, as SciPy's ``diff_n`` returns them.

``sph_harm_y(n, m, theta, phi, diff_n=2)`` is, in SciPy, the tuple (Y, gradient, hessian) in
(theta, phi): each order adds one trailing axis, of length the number of those arguments, after the
value's shape (SciPy's layout, also after the core dimensions of ``sph_harm_y_all``). jaxsci
evaluates the function at order 0 and computes the derivatives in forward mode from the spec's
rules: each order is one ``jvp`` of the orders below it, batched with ``vmap`` over the unit
tangents, so the host is asked for the rule's values once per order, not once per argument. The
results are as exact as the rules (the gradient suite checks them against mpmath), within the spec's
``derivative_outputs.tolerance`` of SciPy's own, and differentiable again like any jaxsci output.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

_COMPILED: dict = {}


def with_derivatives(fn, args: tuple, operands: tuple, dtype, order: int, evaluate):
    """``fn`` at ``args`` (SciPy's positional order, defaults applied) with its derivatives up to
    ``order``: (value, first, ..., order-th). ``operands`` are the traced arguments as ``prepare``
    promoted them; ``evaluate(fn, *args)`` is the order-0 call; the outputs come back in ``dtype``."""
    order_name, names = fn.derivative_outputs
    position = {spec.name: i for i, spec in enumerate(fn.args)}
    traced_names = tuple(spec.name for spec in fn.traced_args)
    statics = tuple((spec.name, args[position[spec.name]]) for spec in fn.static_args if spec.name != order_name)
    # the static values, order 0; the traced places are filled from the operands (and the compiled
    # function below keeps no array of this call alive)
    template = [None if spec.traced else value for spec, value in zip(fn.args, args)]
    template[position[order_name]] = 0

    def compute(*operands):
        full = list(template)
        for name, operand in zip(traced_names, operands):
            full[position[name]] = operand
        picked = tuple(traced_names.index(name) for name in names)

        def value(*xs):
            at = list(full)
            for i, x in zip(picked, xs):
                at[position[traced_names[i]]] = x
            return evaluate(fn, *at)

        outputs = _up_to(value, order)(*(operands[i] for i in picked))
        return tuple(o.astype(dtype) for o in outputs)

    if any(isinstance(o, jax.core.Tracer) for o in operands):
        return compute(*operands)
    # Eagerly, the jvps would dispatch op by op (about a second for a hessian); compiled once per
    # function and static values, a call costs what the jitted call costs.
    key = (fn.qualname, statics, order, jnp.dtype(dtype).name)
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = _COMPILED[key] = jax.jit(compute)
    return compiled(*operands)


def _up_to(value, order: int):
    """A function of the differentiated arguments giving (value, D^1, ..., D^order); D^k has k trailing
    axes, each of length the number of arguments: D^k[..., a1, ..., ak] is the k-th derivative in those."""
    if order == 0:
        return lambda *xs: (value(*xs),)
    lower = _up_to(value, order - 1)

    def with_next(*xs):
        count = len(xs)
        # tangent j is 1 on argument j and 0 on the others, broadcast like the argument (the function is
        # elementwise in them, so one tangent gives the derivative at every element)
        basis = tuple(jnp.stack([jnp.ones_like(x) if i == j else jnp.zeros_like(x) for j in range(count)])
                      for i, x in enumerate(xs))
        primal, tangents = jax.vmap(lambda *t: jax.jvp(lower, xs, t), out_axes=(None, 0))(*basis)
        return (*primal, jnp.moveaxis(tangents[-1], 0, -1))

    return with_next


__all__ = ["with_derivatives"]
