"""``shift(OUTPUT, INDEX, OFFSET)``: a core-dimension function's own output at a neighbouring position.

``legendre_p(n, z, diff_n=2)`` stacks P, P' and P'' along its core index ``d``: the z-derivative of
position d is position d + 1, ``shift(legendre_p(n, z, diff_n=diff_n), d, 1)``, and past the last
position a rule says what it is instead (``Piecewise((shift(...), d < diff_n), (<ODE>, True))``).
The generator checks, at every tested static value and core position, that a shift the rule can
reach there (its enclosing Piecewise conditions may hold) names a position inside the dimension; the
runtime (``_core.coredims.shift``) fills the positions outside it with zeros, which no rule uses.
(Not NaN: a branch ``jnp.where`` does not take is still differentiated in reverse mode, where
``0 * nan`` would turn the cotangents into NaN.)

The call is parsed by sympy like every formula (``Shift`` is an unevaluated sympy function); what it
takes is checked here, as ``FormulaError``s that the deriver reports at the formula's ``path:line``.
"""
from __future__ import annotations

import itertools

import sympy
from sympy.core.function import AppliedUndef

from . import coredims, model
from .formulas import FormulaError, index_symbols


class Shift(sympy.Function):
    """``Shift(value, index, offset, axis)``: ``value`` at position ``index + offset`` along its core
    axis ``axis`` (counted from the end, as the core holds the core dimensions last)."""

    nargs = 4


class Shifter:
    """The ``shift`` of a rule's namespace, for the functions with core dimensions."""

    def __init__(self, spec: model.Spec, labels: frozenset):
        self.spec, self.labels = spec, labels
        self.indices = index_symbols(spec)

    def __call__(self, value=None, index=None, offset=None, *extra):
        name = self.spec.name
        if extra or value is None or index is None or offset is None:
            raise FormulaError("shift takes three arguments: shift(<an output of "
                               f"{name}>, <one of its indices {', '.join(self.indices)}>, <a nonzero integer>)")
        if not (isinstance(value, AppliedUndef) and value.func.__name__ in self.labels):
            raise FormulaError(f"shift({value}, ...): the first argument must be an output of {name} itself "
                               f"({', '.join(sorted(self.labels))}), called with its arguments")
        if index not in self.indices.values():
            raise FormulaError(f"shift(..., {index}, ...): {index} is not an index of {name} "
                               f"(its indices: {', '.join(self.indices)})")
        offset = sympy.sympify(offset)
        if not (offset.is_Integer and offset != 0):
            raise FormulaError(f"shift(..., {offset}): the offset must be a nonzero integer number")
        position = [d.index for d in self.spec.core].index(index.name)
        return Shift(value, index, offset, sympy.Integer(position - len(self.spec.core)))


def namespace(spec: model.Spec, catalog) -> dict:
    """``{"shift": ...}`` for a function with core dimensions; empty otherwise."""
    if not spec.core:
        return {}
    labels = frozenset(catalog.function(spec, k).__name__ for k in range(len(spec.outputs)))
    return {"shift": Shifter(spec, labels)}


def check_range(spec: model.Spec, expr, what: str) -> None:
    """Every shift must name a position inside its dimension wherever the rule can reach it: at each
    tested static value and core position, a shift whose enclosing Piecewise conditions may hold
    there (a condition on a traced argument may) must stay inside the core shape. So the runtime's
    fill outside it is never a value of the rule, and a missing branch is an error here."""
    reachable = list(_reachable(expr, sympy.true))
    if not reachable:
        return
    symbols = coredims.size_symbols(spec.args)
    statics = spec.tests.statics
    choices = [[*statics.get(n, ())] or ([spec.arg(n).default] if spec.arg(n).has_default else []) for n in symbols]
    if not all(choices):
        return  # the loader reports the missing statics
    indices = index_symbols(spec)
    for values in itertools.product(*choices):
        at = {symbols[n]: sympy.sympify(v) for n, v in zip(symbols, values)}
        sizes = [int(coredims.size_expr(d.size, spec.args).xreplace(at)) for d in spec.core]
        for position in itertools.product(*map(range, sizes)):
            here = {**at, **{indices[d.index]: sympy.Integer(p) for d, p in zip(spec.core, position)}}
            for node, condition in reachable:
                if condition.xreplace(here) is sympy.false:
                    continue
                moved = evaluate_position(node, position)
                if all(0 <= p < s for p, s in zip(moved, sizes)):
                    continue
                where = ", ".join(f"{k}={v}" for k, v in {**dict(zip(symbols, values)),
                                                           **{d.index: p for d, p in zip(spec.core, position)}}.items())
                raise FormulaError(f"{what}: shift by {node.args[2]} along {node.args[1]} is out of range at {where} "
                                   f"(core shape {tuple(sizes)}); give that position its own Piecewise branch")


def _reachable(expr, condition):
    """(Shift, the condition under which the rule evaluates it), through the branches of Piecewise."""
    if isinstance(expr, Shift):
        yield expr, condition
        return
    if isinstance(expr, sympy.Piecewise):
        earlier = sympy.true
        for value, branch in expr.args:
            yield from _reachable(value, sympy.And(condition, earlier, branch))
            earlier = sympy.And(earlier, sympy.Not(branch))
        return
    for arg in expr.args:
        yield from _reachable(arg, condition)


def evaluate_position(node, position: tuple):
    """The position ``node`` (a Shift) reads, for the position ``position`` of the caller; None outside
    the core shape is left to the caller (it knows the sizes)."""
    _, _, offset, axis = node.args
    moved = list(position)
    moved[len(moved) + int(axis)] += int(offset)
    return tuple(moved)
