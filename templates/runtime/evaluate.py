"""One host round trip for any set of evaluations, differentiable to any order.

``evaluate(plan, *operands)`` runs every call of the plan in a single host callback (``transport``).
It is a primitive of jaxsci's own, ``jaxsci_evaluate``, rather than a ``custom_jvp`` around the
callback: JAX's partial evaluation inlines a ``custom_jvp`` whose inputs are partly unknown and drops
its rule (it assumes the result only builds a linear function), and ``lax.scan`` partially evaluates
its primal body that way to hoist loop invariants. The primal scan of a ``grad`` then held the bare
callback, and differentiating it again (``hessian``, ``jacfwd(grad)``) failed. A primitive keeps its
JVP rule through every transformation. That rule asks each call's rules which further evaluations
the derivatives need, merges them with the plan (equal evaluations are made once), and evaluates
everything in one new ``evaluate``, whose own JVP gives the next order in the same way.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import lax
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from . import coredims
from .config import config
from .errors import NonDifferentiableError
from .promote import operand_dtype, output_dtype
from .registry import lookup
from .transport import host_callback

_VMAP_ORDER = ("expand_dims", "broadcast_all")


class Call(NamedTuple):
    function: str
    statics: tuple  # ((name, value), ...) for the static arguments, in order
    operands: tuple  # operand indices of the traced arguments, in order
    # ((operand index, constant), ...): evaluated only where each operand equals its constant, zero
    # elsewhere (a derivative's special-point evaluation; Need.where)
    where: tuple = ()


class Plan(NamedTuple):
    calls: tuple
    keys: tuple  # one hashable key per operand: what the operand is, for de-duplication


def _vmap_method(calls) -> str:
    # All calls share one callback, so it batches in the most general way any of them requires.
    return max((lookup(c.function).vmap_method for c in calls), key=_VMAP_ORDER.index)


def _call_dtypes(call: Call, operands) -> tuple:
    promoted = operand_dtype([operands[i] for i in call.operands])
    return tuple(output_dtype(out.dtype, promoted) for out in lookup(call.function).outputs)


def evaluate(plan: Plan, *operands, transport: str | None = None):
    """The outputs of every call of ``plan``: one tuple of arrays per call."""
    # The transport is chosen when the function is traced, as config documents, not when it is
    # lowered; derivatives keep the one their primal was traced with.
    flat = _evaluate_p.bind(*operands, plan=plan, transport=transport or config.callback)
    grouped, start = [], 0
    for call in plan.calls:
        count = len(lookup(call.function).outputs)
        grouped.append(tuple(flat[start:start + count]))
        start += count
    return tuple(grouped)


def _host_evaluate(*operands, plan: Plan, transport: str):
    """What ``jaxsci_evaluate`` stands for: the host callback, in a flat list of results."""
    shape = jnp.broadcast_shapes(*(jnp.shape(o) for o in operands))
    dtypes = [_call_dtypes(call, operands) for call in plan.calls]
    # outputs with core dimensions have them after the loop shape (coredims); None: elementwise
    cores = [coredims.output_shapes(lookup(c.function), c.statics) for c in plan.calls]
    result_types = tuple(jax.ShapeDtypeStruct(shape + (core[k] if core else ()), dt)
                         for call_dtypes, core in zip(dtypes, cores) for k, dt in enumerate(call_dtypes))
    host_calls = tuple((c.function, c.statics, c.operands, d, core, c.where) for c, d, core in zip(plan.calls, dtypes, cores))
    return host_callback(host_calls, result_types, operands, _vmap_method(plan.calls), transport)


def _result_avals(*avals, plan: Plan, transport: str) -> tuple:
    # Traced from the callback itself, so the results carry exactly the shardings (and shard_map's
    # varying axes) the transport gives them. Not cached: tracing costs less than the custom_jvp
    # this replaces, and the registry may change between calls (tests register functions).
    from jax._src import api_util
    from jax._src.interpreters import partial_eval as pe

    fun = functools.partial(_host_evaluate, plan=plan, transport=transport)
    return tuple(pe.abstract_eval_fun(fun, *avals, debug_info=api_util.debug_info("jaxsci", fun, avals, {})))


def _evaluate_batched(operands, dims, *, plan: Plan, transport: str):
    # Elementwise: the batch axis goes first and every operand keeps one rank (the transport's
    # elementwise lowering wants equal ranks), then the primitive is bound again, so a batched
    # evaluation stays differentiable.
    # a rule's constant operand (hyp2f1(3/2, ...) in stdtr's df-rule) reaches the batching rule as a
    # literal, not an array, whichever way the plan holds it
    operands = [o if hasattr(o, "ndim") else jnp.asarray(o) for o in operands]
    rank = 1 + max(o.ndim - (d is not None) for o, d in zip(operands, dims))
    aligned = []
    for o, d in zip(operands, dims):
        if d is None:  # unbatched
            o = lax.expand_dims(o, tuple(range(rank - o.ndim)))
        else:
            o = jnp.moveaxis(o, d, 0)
            o = lax.expand_dims(o, tuple(range(1, 1 + rank - o.ndim)))
        aligned.append(o)
    outs = _evaluate_p.bind(*aligned, plan=plan, transport=transport)
    return outs, [0] * len(outs)


_evaluate_p = Primitive("jaxsci_evaluate")
_evaluate_p.multiple_results = True
_evaluate_p.def_impl(_host_evaluate)
_evaluate_p.def_abstract_eval(_result_avals)
mlir.register_lowering(_evaluate_p, mlir.lower_fun(_host_evaluate, multiple_results=True))
batching.primitive_batchers[_evaluate_p] = _evaluate_batched


def evaluate_constant(function: str, statics: tuple, dtypes: tuple, shapes: tuple):
    """One callback for a function without traced arguments; nothing to differentiate."""
    host_calls = ((function, statics, (), dtypes, shapes, ()),)
    result_types = tuple(jax.ShapeDtypeStruct(s, dt) for s, dt in zip(shapes, dtypes))
    return host_callback(host_calls, result_types, (), lookup(function).vmap_method, config.callback)


class _PlanBuilder:
    """Grows a plan, reusing operands and calls that are already in it."""

    def __init__(self, plan: Plan, operands):
        self.operands = list(operands)
        self.keys = list(plan.keys)
        self.calls = list(plan.calls)
        self._operand_index = {k: i for i, k in enumerate(self.keys)}
        self._call_index = {c: i for i, c in enumerate(self.calls)}

    def operand(self, key, value) -> int:
        if key not in self._operand_index:
            self._operand_index[key] = len(self.operands)
            self.operands.append(value)
            self.keys.append(key)
        return self._operand_index[key]

    def call(self, call: Call) -> int:
        if call not in self._call_index:
            self._call_index[call] = len(self.calls)
            self.calls.append(call)
        return self._call_index[call]

    def plan(self) -> Plan:
        return Plan(tuple(self.calls), tuple(self.keys))


def _is_zero(tangent) -> bool:
    return type(tangent) is ad.Zero


def _add_need(builder: _PlanBuilder, need, own_operand, derived_key) -> int:
    """Add one evaluation to the plan; ``own_operand(i)`` and ``derived_key(key)`` place its operands."""
    indices = []
    for item in need.args:
        if isinstance(item, int):
            indices.append(own_operand(item))
        else:
            key, value = item
            indices.append(builder.operand(derived_key(key), value))
    where = tuple((own_operand(i), constant) for i, constant in need.where)
    return builder.call(Call(need.function, need.statics, tuple(indices), where))


def _unwrap(outputs):
    return outputs if len(outputs) > 1 else outputs[0]


class _ActiveRule(NamedTuple):
    call_index: int
    traced_index: int
    rule: object
    needs: list  # the results of the rule's evaluations so far, in its order


def _evaluate_jvp_rule(primals, tangents, *, plan: Plan, transport: str):
    # JAX calls this only when some tangent is nonzero; zero tangents arrive as ``ad.Zero``, so a
    # tangent that reaches a non-differentiable argument raises instead of being dropped.
    builder = _PlanBuilder(plan, primals)
    active, first_calls = [], []
    for ci, call in enumerate(plan.calls):
        function = lookup(call.function)
        rules = function.rules_for(call.statics)
        call_keys = tuple(plan.keys[i] for i in call.operands)
        call_values = tuple(primals[i] for i in call.operands)
        for ti, (arg, oi) in enumerate(zip(function.traced_args, call.operands)):
            if _is_zero(tangents[oi]):
                continue
            if not arg.differentiable:
                reason = arg.why or f"{arg.kind} arguments are not differentiable"
                raise NonDifferentiableError(function.public_name, arg.name, reason)
            rule = rules.get(ti)
            if rule is not None:
                rule = rule.at(call_values[ti])
            if rule is None:  # the generator guarantees a rule for every differentiable argument of a full call
                omitted = [k for k, v in call.statics if v is None]
                reason = (f"its derivative rule needs the optional argument(s) {', '.join(map(repr, omitted))}, which "
                          "this call leaves out" if omitted else "no derivative rule was generated for it")
                raise NonDifferentiableError(function.public_name, arg.name, reason)
            first_calls.append([
                _add_need(builder, need, lambda i, call=call: call.operands[i], lambda key, ck=call_keys: (key, ck))
                for need in rule.needs[0](*call_values, None, (), **rule.keywords(call.statics))
            ])
            active.append(_ActiveRule(ci, ti, rule, []))
    results = evaluate(builder.plan(), *builder.operands, transport=transport)
    primal_out = results[: len(plan.calls)]
    for entry, calls in zip(active, first_calls):
        entry.needs.extend(_unwrap(results[i]) for i in calls)
    _evaluate_later_needs(plan, primals, primal_out, active, transport)
    tangent_out = [[None] * len(call_outs) for call_outs in primal_out]
    for ci, ti, rule, needs in active:
        call = plan.calls[ci]
        values = primal_out[ci]
        args = tuple(primals[i] for i in call.operands)
        tangent = tangents[call.operands[ti]]
        keywords = rule.keywords(call.statics)
        parts = rule.derivative(*args, values, needs, **keywords)
        conj_parts = rule.conjugate(*args, values, needs, **keywords) if rule.conjugate is not None else None
        if call.where:
            selected = _selected(call, primals)
            parts = _zero_outside(selected, parts)
            conj_parts = _zero_outside(selected, conj_parts)
        rank = lookup(call.function).core_rank
        if rank:  # the tangent has the loop shape; the outputs have core axes after it
            tangent = coredims.loop_dims(tangent, rank)
        for k, value in enumerate(values):
            term = parts[k] * tangent
            if conj_parts is not None:
                term = term + conj_parts[k] * jnp.conj(tangent)
            term = _to_dtype(term, value)
            tangent_out[ci][k] = term if tangent_out[ci][k] is None else tangent_out[ci][k] + term
    # The tangents are linear in the input tangents (products with primal values, conj, real, casts),
    # so JAX transposes them for reverse mode; an output no tangent reaches gets a symbolic zero.
    flat_out = [v for call_outs in primal_out for v in call_outs]
    flat_tangents = [ad.Zero(jax.typeof(v).to_tangent_aval()) if t is None else t
                     for call_outs, call_tangents in zip(primal_out, tangent_out)
                     for v, t in zip(call_outs, call_tangents)]
    return flat_out, flat_tangents


def _selected(call: Call, primals):
    """Where a where-call was evaluated by the host (``host._evaluate_where``)."""
    return functools.reduce(jnp.logical_and, [primals[i] == constant for i, constant in call.where])


def _zero_outside(selected, parts):
    """A where-call's partial derivatives, zero where the host did not evaluate it.

    Its outputs there are zeros, not values, so a rule's coefficients may be anything (a division
    by the value); they must be zero, not only multiplied by a zero, for reverse mode's transpose.
    """
    if parts is None:
        return None
    return tuple(jnp.where(selected, part, jnp.zeros_like(part)) for part in parts)


def _evaluate_later_needs(plan: Plan, primals, primal_out, active, transport: str) -> None:
    """Evaluations whose arguments use the primal's values (or earlier evaluations): one more round trip
    per stage, e.g. an inverse function's implicit rule needs a density at the quantile it returned."""
    stage = 1
    while any(len(entry.rule.needs) > stage for entry in active):
        builder = _PlanBuilder(Plan((), ()), ())
        pending = []
        for entry in active:
            if len(entry.rule.needs) <= stage:
                continue
            call = plan.calls[entry.call_index]
            call_keys = tuple(plan.keys[i] for i in call.operands)
            args = tuple(primals[i] for i in call.operands)

            def own_operand(i, call=call):
                return builder.operand(("operand", plan.keys[call.operands[i]]), primals[call.operands[i]])

            def derived_key(key, call=call, call_keys=call_keys):
                # A key may name the call's values, so it holds for this call only.
                return (key, call_keys, call.function, call.statics)

            needs = entry.rule.needs[stage](*args, primal_out[entry.call_index], tuple(entry.needs),
                                            **entry.rule.keywords(call.statics))
            pending.append((entry, [_add_need(builder, need, own_operand, derived_key) for need in needs]))
        if builder.calls:  # stages are contiguous, so a later stage always has calls; kept safe anyway
            results = evaluate(builder.plan(), *builder.operands, transport=transport)
            for entry, calls in pending:
                entry.needs.extend(_unwrap(results[i]) for i in calls)
        stage += 1


def _to_dtype(term, like):
    """Cast a tangent to its primal's dtype and shape.

    A real output of real inputs can meet complex intermediate terms (e.g. ``1j * sign(im(z))``),
    whose imaginary parts vanish identically there; the real part is the derivative.
    """
    if jnp.iscomplexobj(term) and not jnp.iscomplexobj(like):
        term = jnp.real(term)
    return jnp.broadcast_to(term.astype(like.dtype), like.shape)


ad.primitive_jvps[_evaluate_p] = _evaluate_jvp_rule


def rule_tangents(function, statics: tuple, primals: tuple, values: tuple, tangents: tuple) -> list:
    """The tangents of ``values`` (``function``'s outputs at ``primals``, computed by any means) by the
    spec's own rules, as the primitive's JVP computes them: a native implementation's derivatives are
    then the callback path's, not the ones its library defines (jax's expit loses d/dx to rounding for
    x > 30). ``tangents`` holds None for arguments without one. The rules' evaluations go through the
    primitive (one host round trip per stage, none for a rule that needs none), so they differentiate
    again at every order."""
    rules = function.rules_for(statics)
    totals = [None] * len(values)
    for ti, (arg, tangent) in enumerate(zip(function.traced_args, tangents)):
        if tangent is None:
            continue
        rule = checked_rule(function, rules, ti, arg).at(primals[ti])
        keywords = rule.keywords(statics)
        needs = []
        for stage, listing in enumerate(rule.needs):
            wanted = listing(*primals, values if stage else None, tuple(needs), **keywords)
            if not wanted:
                continue
            builder = _PlanBuilder(Plan((), ()), ())
            calls = [_add_need(builder, need, lambda i: builder.operand(("arg", i), primals[i]), lambda key: key)
                     for need in wanted]
            results = evaluate(builder.plan(), *builder.operands)
            needs.extend(_unwrap(results[i]) for i in calls)
        parts = rule.derivative(*primals, values, needs, **keywords)
        conj_parts = rule.conjugate(*primals, values, needs, **keywords) if rule.conjugate is not None else None
        for k, value in enumerate(values):
            term = parts[k] * tangent
            if conj_parts is not None:
                term = term + conj_parts[k] * jnp.conj(tangent)
            term = _to_dtype(term, value)
            totals[k] = term if totals[k] is None else totals[k] + term
    return totals


def checked_rule(function, rules: dict, index: int, arg):
    """The rule for a tangent on traced argument ``index``, or ``NonDifferentiableError`` saying why none."""
    if not arg.differentiable:
        raise NonDifferentiableError(function.public_name, arg.name, arg.why or f"{arg.kind} arguments are not differentiable")
    rule = rules.get(index)
    if rule is None:
        raise NonDifferentiableError(function.public_name, arg.name, "no derivative rule was generated for this call")
    return rule
