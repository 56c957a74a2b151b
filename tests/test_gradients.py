"""Gradient correctness, driven by the specs: every differentiable argument, against mpmath.

First and second derivatives, forward mode (jvp of jvp) and reverse mode (grad of grad), at sampled
points of each spec's domain and at its special points, compared with ``mpmath.diff`` of the spec's
reference at 30 digits (or, for specs whose ``reference`` is ``finite_differences``, with order-8
central differences of SciPy's float64 values, and for the second order of the first derivative); complex arguments along the directions 1 and i. Then
``jax.test_util.check_grads(order=2)``, and non-differentiable arguments must raise.

The mpmath derivatives at the default suite's points are stored in tests/data/references/ (made by
``tests/tools/make_references.py``; tests/refdata.py reads them and says when one is stale); the slow
sweep (``-m slow``) samples other points and calls mpmath itself.
"""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxsci
import mpref
from generator.render import SECOND_ORDER_FACTOR
import refdata
from refdata import COMPLEX_DIRECTIONS, POINTS_PER_ARG, REAL, complex_points, gradient_points, real_x0
from specdata import cases, core_indices, flat_count, flat_outputs, params, rng_for, sample_points

CASES = cases()
DIFFERENTIABLE = [(c, a.name) for c in CASES for a in c.spec.differentiable_args]
NOT_DIFFERENTIABLE = [(c, a.name) for c in CASES for a in c.spec.traced_args
                      if a.kind in ("real", "complex") and not a.differentiable]
# Sampled points per argument, besides each spec's special points: POINTS_PER_ARG (refdata) in the
# default suite, whose references are stored; `pytest -m slow` sweeps more points
# (test_sweep_matches_mpmath, mpmath computed live) and runs check_grads.
SWEEP_POINTS = 8


def _ids(item):
    return f"{item[0].id}-d{item[1]}"


def _outputs(value):
    # outputs with core dimensions are compared element by element, as the references are stored
    return flat_outputs(value)


def _scalar_function(case, arg, point, dtype):
    """f(x) = the function with ``arg`` = x and the other arguments fixed at ``point``."""
    f = _partial_function(case, arg)
    others = _others(case, arg, point, dtype)
    return (lambda x: f(x, others)), [a.name for a in case.spec.traced_args]


def _partial_function(case, arg):
    """f(x, others): the function with ``arg`` = x; the other traced arguments are traced too, so
    one compilation serves every point."""
    traced = case.spec.traced_args

    def f(x, others):
        rest = iter(others)
        return case.jax_call(*[x if a.name == arg else next(rest) for a in traced])

    return f


def _others(case, arg, point, dtype):
    return tuple(jnp.asarray(point[a.name], dtype=jnp.int64 if a.kind == "integer" else dtype)
                 for a in case.spec.traced_args if a.name != arg)


def _along(f, direction, second=True):
    """x, others -> (first, second) derivatives of f along ``direction``, not jitted."""
    def first(x, others):
        return jax.jvp(lambda y: f(y, others), (x,), (jnp.full_like(x, direction),))[1]

    def both(x, others):
        if not second:
            return first(x, others), None
        return first(x, others), jax.jvp(lambda y: first(y, others), (x,), (jnp.full_like(x, direction),))[1]

    return both


def _second_order_checked(case, arg) -> bool:
    """False for an argument the spec checks to first order only (tests.first_order_only)."""
    return arg not in dict(case.spec.tests.first_order_only)


def _outside_scipys_domain(case, point, arg, reference_first) -> bool:
    """No real derivative in ``arg`` exists here, so jaxsci's must be NaN and there is nothing to
    compare: SciPy's value is NaN at this real point, or it is NaN beside it along ``arg`` while mpmath's
    derivative is not real (struve(v, -2) is real only at integer v; mpmath continues it to complex
    values). A real mpmath derivative at a domain edge (gammainc at x = 0) is still compared."""
    def nan_at(shift):
        args = [np.asarray(point[a.name] + (shift if a.name == arg else 0),
                           dtype=np.int64 if a.kind == "integer" else np.float64) for a in case.spec.traced_args]
        return any(np.isnan(np.asarray(v, dtype=complex)).any() for v in _outputs(case.scipy_call(*args)))

    if nan_at(0.0):
        return True
    real_function = all(o.dtype != "complex" for o in case.spec.outputs)
    not_real = any(abs(mpmath.im(r)) > 1e-12 * abs(r) for r in reference_first)
    h = 1e-3 * max(1.0, abs(point[arg]))
    return real_function and not_real and (nan_at(-h) or nan_at(h))


def _reverse(f, x0, others, n_out, second=True):
    """x, others -> [(grad, grad of grad) of each real and imaginary output part], not jitted."""
    shapes = jax.eval_shape(lambda y: _outputs(f(y, others)), x0)
    parts = [(k, part) for k in range(n_out)
             for part in ((jnp.real, jnp.imag) if jnp.iscomplexobj(shapes[k]) else (jnp.real,))]

    def all_grads(x, others):
        out = []
        for k, part in parts:
            fk = lambda y, k=k, part=part: part(_outputs(f(y, others))[k])
            out.append((jax.grad(fk)(x), jax.grad(jax.grad(fk))(x) if second else None))
        return out

    return parts, all_grads


# Central-difference stencils of order 8 (Fornberg 1988), for specs whose reference is SciPy itself.
_FD_OFFSETS = np.arange(-4, 5)
_FD_FIRST = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
_FD_SECOND = np.array([-1 / 560, 8 / 315, -1 / 5, 8 / 5, -205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560])
FD_STEP = 1e-2


def _fd_derivatives(case, arg, point, x0, direction):
    """Derivatives along ``direction`` by order-8 differences: the first of SciPy's own float64 values,
    the second of jaxsci's float64 first derivative (checked against the first in the same test).

    Second differences of SciPy's values would divide its rounding (or, for inverses found by a search,
    its search error) by h**2, which leaves no digits for functions like ncfdtrinc; differences of the
    first derivative divide by h only.
    """
    h = FD_STEP * max(1.0, abs(x0))
    names = [a.name for a in case.spec.traced_args]
    values = []
    for k in _FD_OFFSETS:
        args = [np.asarray(x0 + k * h * direction) if n == arg else np.asarray(point[n]) for n in names]
        args = [a.astype(np.complex128 if np.iscomplexobj(a) else (np.int64 if a.dtype.kind in "iu" else np.float64))
                for a in args]
        values.append([complex(v) for v in _outputs(case.scipy_call(*args))])
    values = np.array(values)  # (stencil, outputs)
    first = _FD_FIRST @ values / h
    f, others = _partial_function(case, arg), _others(case, arg, point, "float64")
    dtype = "complex128" if isinstance(x0, complex) or isinstance(direction, complex) else "float64"

    @jax.jit
    def jax_first(x):
        return _outputs(jax.jvp(lambda y: f(y, others), (x,), (jnp.full_like(x, direction),))[1])

    stencil = jnp.asarray([x0 + k * h * direction for k in _FD_OFFSETS], dtype=dtype)
    firsts = np.array([[complex(v) for v in jax_first(x)] for x in stencil])  # (stencil, outputs)
    second = _FD_FIRST @ firsts / h
    return [mpmath.mpmathify(v) for v in first], [mpmath.mpmathify(v) for v in second]


def _mp_derivatives(case, arg, point, x0, direction, live=False):
    """The reference first and second derivatives along ``direction`` (REAL, or one of COMPLEX_DIRECTIONS)
    at ``point`` with ``arg`` = ``x0``, one per output: finite differences of SciPy for specs without an
    mpmath reference; else mpmath's, stored (refdata) or, with ``live``, computed here."""
    if case.spec.finite_differences:
        x0, direction = complex(x0), complex(direction)
        if x0.imag == 0 and direction.imag == 0:
            x0, direction = x0.real, direction.real  # stay on SciPy's real loop
        return _fd_derivatives(case, arg, point, x0, direction)
    if not live:
        return refdata.stored_derivatives(case, arg, point, x0, direction)
    return mpref.directional_derivatives(refdata.reference_text(case), refdata.reference_scope(case),
                                         [a.name for a in case.spec.traced_args], arg, point, x0,
                                         refdata.direction_value(direction), flat_count(case),
                                         core_indices(case) if case.spec.core else ())


def _close(got, expected, tol, what):
    got = complex(got)
    expected = complex(expected)
    if not np.isfinite(abs(expected)):
        return
    err = abs(got - expected)
    assert err <= tol.atol + tol.rtol * abs(expected), f"{what}: got {got}, mpmath {expected} (error {err:.3g})"


@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_forward_and_reverse_modes_match_mpmath(case, arg):
    """jvp and jvp-of-jvp against mpmath, real direction, in float64 and float32; grad and grad-of-grad
    in float64 (a complex output as its real and imaginary parts). One compiled function computes them
    all: compiling is most of this test's time."""
    case.expected_failure("gradients", "float64")
    # a derivative kernel's float32 evaluation is checked where it is used, by its parent's float32
    # second derivatives; its own float32 run would repeat that at the suite's cost
    failure32 = case.spec.tests.expected_failure("gradients", "float32")
    float32 = not case.spec.kernel and failure32 is None
    _check(case, arg, ("float64", "float32") if float32 else ("float64",), POINTS_PER_ARG, reverse=True)
    if failure32 is not None:
        pytest.xfail(f"float64 checked; float32 is an expected failure: {failure32.loc}: {failure32.reason}")


@pytest.mark.slow
@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_sweep_matches_mpmath(case, arg):
    """The forward-mode check at many more points of the domain (run with -m slow)."""
    case.expected_failure("gradients", "float64")
    _check(case, arg, ("float64",), SWEEP_POINTS, live=True)


def _check(case, arg, dtypes, count, live=False, reverse=False):
    """Forward mode in each of ``dtypes`` and, with ``reverse``, reverse mode in the first, at ``count``
    sampled points and the spec's special points."""
    second = _second_order_checked(case, arg)
    f = _partial_function(case, arg)
    forward = _along(f, 1.0, second)
    derivatives = parts = None
    for point in gradient_points(case, arg, count):
        xs = [real_x0(point[arg], dtype) for dtype in dtypes]
        inputs = [(jnp.asarray(x, dtype=dtype), _others(case, arg, point, dtype)) for x, dtype in zip(xs, dtypes)]
        if derivatives is None:
            parts, backward = _reverse(f, *inputs[0], flat_count(case), second) if reverse else ([], None)
            derivatives = jax.jit(lambda inputs: ([forward(x, o) for x, o in inputs],
                                                  backward(*inputs[0]) if reverse else []))
        directional, grads = derivatives(inputs)
        for n, (dtype, x, (d1, d2)) in enumerate(zip(dtypes, xs, directional)):
            tol = case.spec.tests.gradient_tolerance[dtype]
            d1, d2 = _outputs(d1), _outputs(d2) if second else None
            ref1, ref2 = _mp_derivatives(case, arg, point, x, REAL, live=live)
            if _outside_scipys_domain(case, point, arg, ref1):
                assert all(np.isnan(np.asarray(d)).all() for d in d1), f"d/d{arg} at {point}: {d1}, where SciPy is NaN"
                assert n or all(np.isnan(np.asarray(g1)).all() for g1, _ in grads), f"grad at {point}, where SciPy is NaN"
                continue
            for k in range(len(d1)):
                _close(d1[k], ref1[k], tol, f"d/d{arg} at {point} ({dtype})")
                if second:
                    _close(d2[k], ref2[k], _second_order(tol), f"d2/d{arg}2 at {point} ({dtype})")
            for (k, part), (g1, g2) in zip(parts if n == 0 else (), grads):
                mp_part = mpmath.re if part is jnp.real else mpmath.im
                _close(g1, mp_part(ref1[k]), tol, f"grad {part.__name__} d/d{arg} at {point}")
                if second:
                    _close(g2, mp_part(ref2[k]), _second_order(tol), f"grad {part.__name__} d2/d{arg}2 at {point}")


COMPLEX_DIFFERENTIABLE = [(c, a) for c, a in DIFFERENTIABLE if a in c.spec.tests.complex_domain]


@pytest.mark.parametrize("case,arg", params(COMPLEX_DIFFERENTIABLE, ids=_ids))
def test_complex_directions_match_mpmath(case, arg):
    """At complex points, jvp along 1 and i (holomorphic or not) against mpmath's directional derivatives."""
    case.expected_failure("complex_gradients")
    tol = case.spec.tests.gradient_tolerance["float64"]
    f = _partial_function(case, arg)
    second = _second_order_checked(case, arg)
    # every direction in one compiled function
    along = jax.jit(lambda x, others: [_along(f, direction, second)(x, others) for direction in COMPLEX_DIRECTIONS])
    for point in complex_points(case, arg):
        x0 = jnp.asarray(point[arg], dtype="complex128")
        others = _others(case, arg, point, "float64")
        for direction, (d1, d2) in zip(COMPLEX_DIRECTIONS, along(x0, others)):
            d1, d2 = _outputs(d1), _outputs(d2) if second else None
            ref1, ref2 = _mp_derivatives(case, arg, point, point[arg], direction)
            for k in range(len(d1)):
                _close(d1[k], ref1[k], tol, f"d/d{arg} along {direction} at {point}")
                if second:
                    _close(d2[k], ref2[k], _second_order(tol), f"d2/d{arg}2 along {direction} at {point}")


@pytest.mark.slow
@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_check_grads_second_order(case, arg):
    """JAX's own consistency check: fwd and rev, to second order, against finite differences."""
    case.expected_failure("check_grads")
    point = sample_points(case, 1, rng_for(case.id, arg, "check_grads"))[0]
    f, _ = _scalar_function(case, arg, point, "float64")
    order = 2 if _second_order_checked(case, arg) else 1  # tests.first_order_only: the second raises, by design
    check_grads(f, (jnp.asarray(point[arg], dtype="float64"),), order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


FIRST_ORDER_ONLY = [(c, a) for c, a in DIFFERENTIABLE if not _second_order_checked(c, a)]


@pytest.mark.parametrize("case,arg", params(FIRST_ORDER_ONLY, ids=_ids))
def test_a_first_order_only_argument_raises_at_second_order(case, arg):
    """Where the spec says the second derivative is not provided, it raises instead of being wrong."""
    point = sample_points(case, 1, rng_for(case.id, arg, "first-order-only"))[0]
    f, _ = _scalar_function(case, arg, point, "float64")
    scalar = lambda x: jnp.real(_outputs(f(x))[0])
    with pytest.raises(jaxsci.NonDifferentiableError):
        jax.grad(jax.grad(scalar))(jnp.asarray(point[arg], dtype="float64"))


@pytest.mark.parametrize("case,arg", params(NOT_DIFFERENTIABLE, ids=_ids))
def test_non_differentiable_argument_raises(case, arg):
    """A tangent on a non-differentiable argument raises, naming function, argument and reason."""
    point = sample_points(case, 1, rng_for(case.id, arg, "nondiff"))[0]
    f, _ = _scalar_function(case, arg, point, "float64")
    scalar = lambda x: jnp.real(_outputs(f(x))[0])
    x0 = jnp.asarray(point[arg], dtype="float64")
    why = case.spec.arg(arg).why
    for transform in (
        lambda: jax.grad(scalar)(x0),
        lambda: jax.jvp(scalar, (x0,), (jnp.ones_like(x0),)),
        lambda: jax.jacfwd(scalar)(x0),
        lambda: jax.jacrev(scalar)(x0),
        lambda: jax.jit(jax.grad(scalar))(x0),
    ):
        with pytest.raises(jaxsci.NonDifferentiableError) as info:
            transform()
        message = str(info.value)
        assert f"jaxsci.{case.spec.qualname}" in message and repr(arg) in message and why in message


def _second_order(tol):
    # the bar: first derivatives to 1e-9, second to 1e-7 (a second derivative through an
    # implicit rule combines two kernels' second-order errors); the coverage table states the same
    return type(tol)(rtol=tol.rtol * SECOND_ORDER_FACTOR, atol=tol.atol * 10)
