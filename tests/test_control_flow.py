"""Every derivative order up to 2 through every control-flow primitive, with either callback.

``lax.scan`` partially evaluates its primal body to hoist loop invariants, and JAX's partial
evaluation drops a ``custom_jvp`` rule whose inputs are partly unknown; the evaluation is therefore a
primitive with its own JVP rule. Each function below iterates a step that calls jaxsci three times,
through a control-flow primitive, and must match the same computation written as a Python loop.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jaxsci
from jaxsci import NonDifferentiableError
from jaxsci.special import airy, bdtr, chndtrix, jv, spherical_jn

jax.config.update("jax_enable_x64", True)

STEPS = 3
X = 0.8

# one step of each iteration: the carry stays near X, where every function is smooth
FUNCTIONS = {
    "jv": lambda c: 0.5 + 0.4 * c + 0.3 * jv(1.5, 2 * c),
    # several outputs, all of them used
    "airy": lambda c: 0.6 + 0.2 * c + 0.1 * sum(w * o for w, o in zip((1.0, -0.5, 0.3, 0.2), airy(c))),
    # an implicit rule: a second round trip evaluates the density at the quantile
    "chndtrix": lambda c: 0.4 + 0.1 * chndtrix(0.3 + 0.2 * c, 3.0, 1.5),
    # a static argument selects the rules
    "spherical_jn": lambda c: 0.5 + 0.4 * c + 0.5 * spherical_jn(2, 2 * c, derivative=True),
}


def unrolled(step, x):
    for _ in range(STEPS):
        x = step(x)
    return x


def scan(step, x):
    return lax.scan(lambda c, _: (step(c), None), x, None, length=STEPS)[0]


def scan_remat(step, x):
    return lax.scan(jax.checkpoint(lambda c, _: (step(c), None)), x, None, length=STEPS)[0]


def fori_static(step, x):  # static bounds: a scan
    return lax.fori_loop(0, STEPS, lambda i, c: step(c), x)


def fori_dynamic(step, x):  # a traced trip count: a while loop
    return jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: step(c), x))(x, STEPS)


def while_loop(step, x):
    return lax.while_loop(lambda s: s[0] < STEPS, lambda s: (s[0] + 1, step(s[1])), (0, x))[1]


def cond(step, x):
    for _ in range(STEPS):
        x = lax.cond(x > -10.0, step, lambda c: 2 * c, x)
    return x


def remat(step, x):
    return unrolled(jax.checkpoint(step), x)


SCALES = jnp.asarray([1.0, 1.05])


def vmap_scan(step, x):
    return jnp.sum(jax.vmap(lambda y: scan(step, y))(x * SCALES))


def vmap_unrolled(step, x):
    return jnp.sum(jax.vmap(lambda y: unrolled(step, y))(x * SCALES))


def _jvp_of_jvp(f):
    first = lambda x: jax.jvp(f, (x,), (1.0,))[1]
    return lambda x: jax.jvp(first, (x,), (1.0,))[1]


ORDERS = {"value": lambda f: f, "grad": jax.grad, "grad(grad)": lambda f: jax.grad(jax.grad(f)),
          "jacfwd(grad)": lambda f: jax.jacfwd(jax.grad(f)), "hessian": jax.hessian, "jvp(jvp)": _jvp_of_jvp,
          "jacfwd": jax.jacfwd, "jacfwd(jacfwd)": lambda f: jax.jacfwd(jax.jacfwd(f))}
REVERSE = ("value", "grad", "grad(grad)", "jacfwd(grad)", "hessian", "jvp(jvp)")
FORWARD = ("value", "jacfwd", "jacfwd(jacfwd)", "jvp(jvp)")  # JAX cannot reverse a while loop

# flow, its Python-loop reference, the orders it supports
FLOWS = {
    "scan": (scan, unrolled, REVERSE),
    "scan_remat": (scan_remat, unrolled, REVERSE),
    "fori_static": (fori_static, unrolled, REVERSE),
    "fori_dynamic": (fori_dynamic, unrolled, FORWARD),
    "while_loop": (while_loop, unrolled, FORWARD),
    "cond": (cond, unrolled, REVERSE),
    "remat": (remat, unrolled, REVERSE),
    "vmap_scan": (vmap_scan, vmap_unrolled, REVERSE),
}


@pytest.fixture(params=["buffer", "pure"])
def callback(request, monkeypatch):
    monkeypatch.setattr(jaxsci.config, "callback", request.param)
    jax.clear_caches()
    yield request.param
    jax.clear_caches()


def _at_x(flow, name, orders):
    # jit: one compilation for every order, far faster than running them op by op or one by one
    function = lambda x: flow(FUNCTIONS[name], x)
    return [float(v) for v in jax.jit(lambda x: [ORDERS[order](function)(x) for order in orders])(X)]


@functools.lru_cache(maxsize=None)
def _expected(reference, name, orders):
    """The Python loop's values, shared by every flow and both callbacks."""
    return _at_x(reference, name, orders)


# pure_callback differs from the buffer callback only below the primitive, so for it jv alone runs
# by default. jv goes through every flow; the functions with more outputs, a static argument or a
# second round trip go through the flows that transform the primitive differently (scan's partial
# evaluation, with and without remat, a while loop's forward mode, vmap of a scan) by default: the
# others (fori_loop with static bounds is a scan; cond and remat of an unrolled loop) run them with -m slow.
_EVERY_FUNCTION = ("scan", "scan_remat", "while_loop", "vmap_scan")


def _default(callback, name, flow):
    return name == "jv" or (callback == "buffer" and flow in _EVERY_FUNCTION)


CASES = [pytest.param(callback, name, flow, id=f"{callback}-{name}-{flow}",
                      marks=[] if _default(callback, name, flow) else [pytest.mark.slow])
         for callback in ("buffer", "pure") for name in FUNCTIONS for flow in FLOWS]


@pytest.mark.parametrize("callback,name,flow", CASES, indirect=["callback"])
def test_every_order_matches_the_python_loop(callback, name, flow):
    controlled, reference, orders = FLOWS[flow]
    for order, got, expected in zip(orders, _at_x(controlled, name, orders), _expected(reference, name, orders)):
        assert np.isfinite(expected) and expected != 0, (order, expected)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14, err_msg=f"{name} through {flow}: {order}")


@pytest.mark.parametrize("flow", ["scan", "fori_static", "vmap_scan", "scan_remat"])
def test_a_tangent_on_a_non_differentiable_argument_still_raises(flow, callback):
    controlled = FLOWS[flow][0]

    def f(k):  # SciPy floors bdtr's k: a tangent on it raises
        return controlled(lambda c: 0.5 + 0.3 * bdtr(k, 8, 0.2 + 0.1 * c), X)

    for transform in (jax.grad, jax.hessian, lambda f: jax.jacfwd(jax.grad(f))):
        with pytest.raises(NonDifferentiableError, match="argument 'k'"):
            transform(f)(2.5)
    # a constant order is fine at every order
    assert np.isfinite(jax.hessian(lambda z: controlled(lambda c: 0.5 + 0.3 * jv(1.5, 2 * c * z), X))(1.0))
