"""The derivatives a function returns with its value (the spec's ``derivative_outputs``: SciPy's
``diff_n``), for every such spec and every order it supports above 0.

The generic suites check these functions at order 0 (the value, and its gradients against mpmath);
here: the tuple's shapes and dtypes against SciPy's and its values within the spec's tolerance, the
value part bit for bit; jit and vmap over each argument; and the derivatives of the returned
derivatives, forward and reverse, against the next order and, past SciPy's last order, against
mpmath's third derivatives.
"""
import itertools

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest

from specdata import (SPECS, Case, assert_matches_scipy, core_indices, declared_dtype, params, reference, rng_for, sample,
                      spec_cases)

SHAPES = [((),), ((3, 1), (1, 4)), ((2, 1, 4),), ((), (3, 4))]


def _cases():
    out = []
    for spec in SPECS:
        if spec.derivative_outputs is None:
            continue
        order_name = spec.derivative_outputs.order
        for case in spec_cases(spec):
            for order in spec.arg(order_name).choices:
                if order > 0:
                    out.append(Case(spec, {**case.statics, order_name: order}))
    return out


CASES = _cases()


def _params(cases):
    """The last combination of each spec's tests.statics by default, the others in the slow sweep."""
    last = {}
    for case in cases:
        last[(case.spec.name, _order(case))] = case
    return [pytest.param(c, id=c.id, marks=() if last[(c.spec.name, _order(c))] is c else pytest.mark.slow) for c in cases]


def _order(case) -> int:
    return case.statics[case.spec.derivative_outputs.order]


def _top(case) -> int:
    """The highest order the function returns."""
    return max(case.spec.arg(case.spec.derivative_outputs.order).choices)


def _at_order(case, order):
    return Case(case.spec, {**case.statics, case.spec.derivative_outputs.order: order})


def _scipy_float64(case, arrays):
    """SciPy's tuple on the inputs widened to float64: jaxsci's derivatives are computed from float64
    SciPy values cast to the dtype, and SciPy's float32 loop is single precision throughout."""
    return case.scipy_call(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays])


def test_every_spec_with_derivative_outputs_is_checked():
    specs = {s.name for s in SPECS if s.derivative_outputs is not None}
    assert specs >= {"sph_harm_y", "sph_harm_y_all"}
    assert {c.spec.name for c in CASES} == specs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(CASES))
def test_values_match_scipy(case, dtype):
    order = _order(case)
    tolerance = case.spec.derivative_outputs.tolerance[dtype]
    for shapes in SHAPES if dtype == "float64" else SHAPES[1:2]:
        arrays = sample(case, shapes, dtype, rng_for("derivative_outputs", case.id, dtype, shapes))
        got = case.jax_call(*map(jnp.asarray, arrays))
        expected = _scipy_float64(case, arrays)
        assert isinstance(got, tuple) and len(got) == len(expected) == order + 1
        (value_dtype,) = declared_dtype(case, arrays)
        for k, (g, e) in enumerate(zip(got, expected)):
            assert g.shape == np.shape(e), (k, g.shape, np.shape(e))
            assert g.dtype == value_dtype, (k, g.dtype, value_dtype)
            assert_matches_scipy(g, e, value_dtype, tolerance)
        # the value is the order-0 call: SciPy's own number, bit for bit
        assert_matches_scipy(got[0], _at_order(case, 0).scipy_call(*arrays), value_dtype)


@pytest.mark.parametrize("case", _params([c for c in CASES if _order(c) == _top(c)]))
def test_jit_and_vmap_over_each_argument(case):
    """At the highest order, which computes every lower one on the way."""
    arrays = [jnp.asarray(a) for a in sample(case, ((4,),), "float64", rng_for("derivative_outputs/vmap", case.id))]
    eager = case.jax_call(*arrays)
    jitted = jax.jit(case.jax_call)(*arrays)
    for e, j in zip(eager, jitted):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-14, atol=1e-14)
    batched = [jnp.stack([a, a[::-1] * 0 + a[::-1]]) for a in arrays]  # two rows: the sample and its reverse
    for i in range(len(arrays)):
        operands = [batched[k] if k == i else arrays[k] for k in range(len(arrays))]
        got = jax.vmap(case.jax_call, in_axes=[0 if k == i else None for k in range(len(arrays))])(*operands)
        for row in range(2):
            expected = case.jax_call(*[o[row] if k == i else o for k, o in enumerate(operands)])
            for g, e in zip(got, expected):
                np.testing.assert_allclose(np.asarray(g[row]), np.asarray(e), rtol=1e-13, atol=1e-13)


def _point(case):
    point = dict(case.spec.tests.points[0])
    return [point[a.name] for a in case.spec.traced_args]


def _derivative_function(case, order, part):
    """The ``part``-th returned array at ``order`` as a function of the differentiated arguments, the
    others fixed at the case's first special point."""
    names = case.spec.derivative_outputs.args
    traced = [a.name for a in case.spec.traced_args]
    point = _point(case)

    def f(*xs):
        values = list(point)
        for name, x in zip(names, xs):
            values[traced.index(name)] = x
        return _at_order(case, order).jax_call(*values)[part]

    return f, [jnp.float64(point[traced.index(n)]) for n in names]


def _real_parts(f):
    return lambda *xs: jnp.stack([jnp.real(f(*xs)), jnp.imag(f(*xs))])


@pytest.mark.parametrize("case", _params([c for c in CASES if _order(c) < _top(c)]))
def test_derivatives_of_derivatives_are_the_next_order(case):
    """d/dx_b of the returned order-k array is the order-(k+1) array at [..., b]: forward and reverse."""
    order = _order(case)
    f, xs = _derivative_function(case, order, order)
    following, _ = _derivative_function(case, order + 1, order + 1)
    expected = np.asarray(following(*xs))
    argnums = tuple(range(len(xs)))
    forward = np.stack([np.asarray(d) for d in jax.jit(jax.jacfwd(f, argnums=argnums))(*xs)], axis=-1)
    np.testing.assert_allclose(forward, expected, rtol=1e-12, atol=1e-12)
    reverse = jax.jit(jax.jacrev(_real_parts(f), argnums=argnums))(*xs)
    reverse = np.stack([np.asarray(d[0]) + 1j * np.asarray(d[1]) for d in reverse], axis=-1)
    np.testing.assert_allclose(reverse, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", _params([c for c in CASES if _order(c) == _top(c)]))
def test_derivatives_past_the_last_order_match_mpmath(case):
    """The returned top order differentiated once more (forward and reverse) is the next partial
    derivative of the spec's mpmath reference."""
    order = _order(case)
    f, xs = _derivative_function(case, order, order)
    argnums = tuple(range(len(xs)))
    forward = np.stack([np.asarray(d) for d in jax.jit(jax.jacfwd(f, argnums=argnums))(*xs)], axis=-1)
    reverse = jax.jit(jax.jacrev(_real_parts(f), argnums=argnums))(*xs)
    reverse = np.stack([np.asarray(d[0]) + 1j * np.asarray(d[1]) for d in reverse], axis=-1)
    names = list(case.spec.derivative_outputs.args)
    traced = [a.name for a in case.spec.traced_args]
    point = _point(case)
    base = _at_order(case, 0)
    positions = core_indices(base) if base.spec.core else [None]
    ref = reference(base)
    mpmath.mp.dps = 30
    expected = np.zeros(forward.shape, dtype=complex)
    for axes in itertools.product(range(len(names)), repeat=order + 1):
        counts = tuple(axes.count(k) for k in range(len(names)))

        def along(*xs):
            values = list(point)
            for name, x in zip(names, xs):
                values[traced.index(name)] = x
            return ref(*values)

        for p, position in enumerate(positions):
            element = (lambda *xs: along(*xs)[p]) if position is not None else along
            d = mpmath.diff(element, [mpmath.mpf(float(x)) for x in xs], counts)
            index = (np.unravel_index(p, forward.shape[:forward.ndim - order - 1]) if position is not None else ()) + axes
            expected[index] = complex(d)
    np.testing.assert_allclose(forward, expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(reverse, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("spec", params([s for s in SPECS if s.derivative_outputs is not None], ids=lambda s: s.name))
def test_an_unsupported_order_is_a_clear_error(spec):
    case = spec_cases(spec)[0]
    order_name = spec.derivative_outputs.order
    bad = max(spec.arg(order_name).choices) + 1
    arrays = sample(case, ((),), "float64", rng_for("derivative_outputs/error", spec.name))
    with pytest.raises(ValueError, match=order_name):
        Case(spec, {**case.statics, order_name: bad}).jax_call(*arrays)
