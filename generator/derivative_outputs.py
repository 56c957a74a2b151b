"""``derivative_outputs``: a function that returns its own derivatives with its value, as SciPy's
``sph_harm_y(n, m, theta, phi, *, diff_n=0)`` does: for diff_n = 2, the tuple (value, gradient,
hessian) in (theta, phi), each derivative order one more trailing axis of length 2 after the value's
shape.

jaxsci evaluates the function at order 0 and computes the derivatives in forward mode from the spec's
own rules (templates/runtime/derived.py): they are as exact as the rules (which the gradient suite
checks against mpmath), differentiable again, and within ``tolerance`` of SciPy's own derivatives.
"""
from __future__ import annotations

from . import model
from .errors import SpecError


def load(top, path: str, args: tuple, outputs: tuple, tests: model.TestPlan, mapping, tolerances) -> model.DerivativeOutputs | None:
    """The ``derivative_outputs`` key: ``{order: <static_int>, args: [<real argument>, ...], tolerance: {...}}``.
    ``mapping`` and ``tolerances`` are the loader's own readers (generator/loader.py), passed in to
    keep one grammar."""
    if not top.has("derivative_outputs"):
        top.taken.add("derivative_outputs")  # a known key, for the loader's "did you mean"
        return None
    m = mapping(top.get("derivative_outputs", dict), path, "derivative_outputs", top.value_line("derivative_outputs"))
    by_name = {a.name: a for a in args}
    order = m.get("order", str, required=True)
    order_line = m.value_line("order")
    arg = by_name.get(order)
    if arg is None or arg.kind != "static_int":
        raise SpecError(path, order_line, f"derivative_outputs.order must name a static_int argument (SciPy's diff_n), got {order!r}")
    if arg.default != 0:
        raise SpecError(path, order_line, f"derivative_outputs.order: argument {order!r} must default to 0 (the value alone)")
    if arg.choices is None or any(not isinstance(c, int) or c < 0 for c in arg.choices):
        raise SpecError(path, order_line, f"derivative_outputs.order: argument {order!r} needs `choices`, the orders SciPy "
                                          "computes (non-negative integers: 0, 1, 2)")
    if order in tests.statics:
        raise SpecError(path, order_line, f"derivative_outputs.order: tests.statics must not list {order!r}: the generic "
                                          "suites check the value (order 0), tests/test_derivative_outputs.py the "
                                          "derivatives at every other choice")
    names = m.get("args", list, required=True)
    names_line = m.value_line("args")
    if not names:
        raise SpecError(path, names_line, "derivative_outputs.args must name at least one argument")
    seen = set()
    for name in names:
        a = by_name.get(name) if isinstance(name, str) else None
        if a is None or a.kind != "real" or not a.differentiable:
            raise SpecError(path, names_line, f"derivative_outputs.args: {name!r} is not a differentiable real argument "
                                              f"of the function ({', '.join(x.name for x in args if x.kind == 'real' and x.differentiable) or 'none'})")
        if name in seen:
            raise SpecError(path, names_line, f"derivative_outputs.args names {name!r} twice")
        seen.add(name)
    tolerance = tolerances(m, "tolerance", path, "derivative_outputs.tolerance", None)
    loc = m.loc()
    m.done()
    if len(outputs) != 1 or outputs[0].shape is not None or outputs[0].dtype not in ("promoted", "real", "complex"):
        raise SpecError(path, loc.line, "derivative_outputs: the function must have one output of traced arguments "
                                        "(the derivatives follow it in the returned tuple)")
    if any(a.optional for a in args):
        raise SpecError(path, loc.line, "derivative_outputs: not supported for a function with optional arguments")
    if top.has("reduction"):
        raise SpecError(path, loc.line, "derivative_outputs: not supported for a reduction")
    return model.DerivativeOutputs(order=order, args=tuple(names), tolerance=tolerance, loc=loc)
