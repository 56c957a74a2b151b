"""Gradient correctness, driven by the specs: every differentiable argument, against mpmath.

First and second derivatives in float64, forward mode (jvp of jvp) and reverse mode (grad of grad, of
a weighted sum of the outputs), and first derivatives in float32, at sampled points of each spec's
domain and at its special points, compared with ``mpmath.diff`` of the spec's reference at 30 digits
(or, for specs whose ``reference`` is ``finite_differences``, with order-8 central differences of
SciPy's float64 values, and for the second order of the first derivative); complex arguments along the
directions 1 and i. Non-differentiable arguments must raise.

The mpmath derivatives at the default suite's points are stored in tests/data/references/ (made by
``tests/tools/make_references.py``; tests/refdata.py reads them and says when one is stale); the slow
run (``-m slow``) sweeps other points, float32 second derivatives included, calling mpmath itself, and
runs ``jax.test_util.check_grads(order=2)``.
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
from specdata import cases, core_indices, flat_count, flat_outputs, in_default_share, params, rng_for, sample_points

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


def _output_weights(count):
    """Weights of the scalar that reverse mode differentiates: sum_k Re(conj(w_k) f_k). Complex, so the
    real and imaginary parts of a complex output both enter; distinct and irrational, so errors in
    different outputs cannot cancel."""
    return [complex(1 + k * np.sqrt(2) / 7, 0.5 + k / np.pi) for k in range(count)]


def _reverse(f, n_out, second=True):
    """x, others -> (grad, grad of grad) of sum_k Re(conj(w_k) f_k), not jitted: one scalar for every
    output (each element of a core dimension included), where one per output would multiply the
    compiled function's size by their number."""
    weights = jnp.asarray(_output_weights(n_out))

    def scalar(y, others):
        return sum(jnp.real(jnp.conj(w) * o) for w, o in zip(weights, _outputs(f(y, others))))

    def grads(x, others):
        g = lambda y: scalar(y, others)
        return jax.grad(g)(x), jax.grad(jax.grad(g))(x) if second else None

    return grads


def _weighted(values):
    """sum_k Re(conj(w_k) v_k) of mpmath values, as _reverse differentiates."""
    return sum(mpmath.re(mpmath.conj(w) * v) for w, v in zip(_output_weights(len(values)), values))


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
    others = _others(case, arg, point, "float64")
    dtype = "complex128" if isinstance(x0, complex) or isinstance(direction, complex) else "float64"
    jax_first = _jitted_first_derivative(case, arg, direction)
    stencil = jnp.asarray([x0 + k * h * direction for k in _FD_OFFSETS], dtype=dtype)
    firsts = np.array([[complex(v) for v in jax_first(x, others)] for x in stencil])  # (stencil, outputs)
    second = _FD_FIRST @ firsts / h
    return [mpmath.mpmathify(v) for v in first], [mpmath.mpmathify(v) for v in second]


_FIRST_DERIVATIVES = {}


def _jitted_first_derivative(case, arg, direction):
    """x, others -> jaxsci's first derivatives along ``direction``, compiled once per case, argument and
    direction (and dtype, by jit's own cache), not once per point."""
    key = (case.id, arg, direction)
    if key not in _FIRST_DERIVATIVES:
        f = _partial_function(case, arg)
        _FIRST_DERIVATIVES[key] = jax.jit(
            lambda x, others: _outputs(jax.jvp(lambda y: f(y, others), (x,), (jnp.full_like(x, direction),))[1]))
    return _FIRST_DERIVATIVES[key]


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


def _close(got, expected, tol, what, scale=None):
    got = complex(got)
    expected = complex(expected)
    if not np.isfinite(abs(expected)):
        return
    err = abs(got - expected)
    scale = abs(expected) if scale is None else scale
    assert err <= tol.atol + tol.rtol * scale, f"{what}: got {got}, mpmath {expected} (error {err:.3g})"


# the costliest pairs to compile (stdtr's family: its df rules run the incomplete-beta parameter kernels,
# 2-4 s each) run under -m slow; their rules' values are checked by test_hard_points (stdtr d/ddf) too.
# studentized_range_cdf_d is a double quadrature (about 40 ms a point): its order-8 finite differences take
# 3-4 s a pair; tests/test_kernels_studentized_range.py checks its derivatives against mpmath by default
_COSTLY = frozenset({"stdtrit-ddf", "stdtridf-dt", "stdtridf-dp", "stdtr-ddf",
                     *(f"studentized_range_cdf_d-i=1-j=0-n=0-d{arg}" for arg in ("x", "k", "df"))})


@pytest.mark.parametrize("case,arg", [pytest.param(*p.values, id=p.id, marks=pytest.mark.slow if p.id in _COSTLY else ())
                                      for p in params(DIFFERENTIABLE, ids=_ids)])
def test_forward_and_reverse_modes_match_mpmath(case, arg):
    """jvp and jvp-of-jvp against mpmath, real direction, in float64, and jvp in float32; grad and
    grad-of-grad in float64 (of a weighted sum of the outputs, complex ones as their real and imaginary
    parts; for a third of the real pairs by default, _reverse_by_default). One compiled function computes them all: compiling is most of this test's time. float32 runs
    for an eighth of the pairs by default (in_default_share: its casts are the core's, the same for every
    rule); test_sweep_matches_mpmath (-m slow) runs float32 to second order for every pair."""
    case.expected_failure("gradients", "float64")
    dtypes, failure32 = _dtypes(case)
    if not in_default_share(_ids((case, arg)), 8):
        dtypes = dtypes[:1]
    _check(case, arg, dtypes, POINTS_PER_ARG, reverse=_reverse_by_default(case, arg), second_float32=False)
    if failure32 is not None:
        pytest.xfail(f"float64 checked; float32 is an expected failure: {failure32.loc}: {failure32.reason}")


def _reverse_by_default(case, arg) -> bool:
    """Reverse mode is JAX's transpose of the rules' linear jvp, the same core code for every real rule: a
    third of the real pairs run it by default (in_default_share), every complex one (a conjugate part
    transposes differently); test_reverse_mode_matches_mpmath runs the rest under -m slow."""
    complex_pair = case.spec.arg(arg).kind == "complex" or any(o.dtype == "complex" for o in case.spec.outputs)
    return complex_pair or in_default_share(_ids((case, arg)) + "-reverse", 3)


@pytest.mark.slow
@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_reverse_mode_matches_mpmath(case, arg):
    """Reverse mode (grad and grad of grad) for the pairs whose default check runs forward mode only."""
    if _reverse_by_default(case, arg):
        pytest.skip("reverse mode runs in test_forward_and_reverse_modes_match_mpmath by default")
    case.expected_failure("gradients", "float64")
    _check(case, arg, ("float64",), POINTS_PER_ARG, reverse=True, second_float32=False)


def _dtypes(case):
    """The dtypes a spec's gradients are checked in, and its float32 expected failure if any."""
    # a derivative kernel's float32 evaluation is checked where it is used, by its parent's float32
    # derivatives; its own float32 run would repeat that at the suite's cost
    failure32 = case.spec.tests.expected_failure("gradients", "float32")
    float32 = not case.spec.kernel and failure32 is None
    return ("float64", "float32") if float32 else ("float64",), failure32


@pytest.mark.slow
@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_sweep_matches_mpmath(case, arg):
    """The forward-mode check at many more points of the domain, second derivatives in float32 included
    (run with -m slow)."""
    case.expected_failure("gradients", "float64")
    _check(case, arg, _dtypes(case)[0], SWEEP_POINTS, live=True)


def _check(case, arg, dtypes, count, live=False, reverse=False, second_float32=True):
    """Forward mode in each of ``dtypes`` (the second order in float32 only with ``second_float32``) and,
    with ``reverse``, reverse mode in the first, at ``count`` sampled points and the spec's special points."""
    second = _second_order_checked(case, arg)
    f = _partial_function(case, arg)
    forwards = [_along(f, 1.0, second and (n == 0 or second_float32)) for n in range(len(dtypes))]
    derivatives = None
    for point in gradient_points(case, arg, count):
        xs = [real_x0(point[arg], dtype) for dtype in dtypes]
        inputs = [(jnp.asarray(x, dtype=dtype), _others(case, arg, point, dtype)) for x, dtype in zip(xs, dtypes)]
        if derivatives is None:
            backward = _reverse(f, flat_count(case), second) if reverse else None
            derivatives = jax.jit(lambda inputs: ([along(x, o) for along, (x, o) in zip(forwards, inputs)],
                                                  backward(*inputs[0]) if reverse else None))
        directional, grads = derivatives(inputs)
        for n, (dtype, x, (d1, d2)) in enumerate(zip(dtypes, xs, directional)):
            tol = case.spec.tests.gradient_tolerance[dtype]
            second_here = second and (n == 0 or second_float32)
            d1, d2 = _outputs(d1), _outputs(d2) if second_here else None
            ref1, ref2 = _mp_derivatives(case, arg, point, x, REAL, live=live)
            if _outside_scipys_domain(case, point, arg, ref1):
                assert all(np.isnan(np.asarray(d)).all() for d in d1), f"d/d{arg} at {point}: {d1}, where SciPy is NaN"
                assert n or not reverse or np.isnan(np.asarray(grads[0])).all(), f"grad at {point}, where SciPy is NaN"
                continue
            for k in range(len(d1)):
                _close(d1[k], ref1[k], tol, f"d/d{arg} at {point} ({dtype})")
                if second_here:
                    _close(d2[k], ref2[k], _second_order(tol), f"d2/d{arg}2 at {point} ({dtype})")
            if n == 0 and reverse:
                g1, g2 = grads
                _close(g1, _weighted(ref1), tol, f"grad d/d{arg} at {point} (outputs weighted)", scale=_weighted_scale(ref1))
                if second:
                    _close(g2, _weighted(ref2), _second_order(tol), f"grad d2/d{arg}2 at {point} (outputs weighted)",
                           scale=_weighted_scale(ref2))


def _weighted_scale(values):
    """The size a weighted sum's rounding error is relative to: sum_k |w_k| |v_k| (a sum of outputs of
    opposite signs can be much smaller than its terms)."""
    return sum(abs(w) * abs(complex(v)) for w, v in zip(_output_weights(len(values)), values))


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
    x0 = (jnp.asarray(point[arg], dtype="float64"),)
    try:
        check_grads(f, x0, order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)
    except AssertionError:
        # JAX's default step (1e-4) leaves a central difference's truncation error, eps^2 f^(3) / 6, above
        # the tolerance where the derivatives grow fast (legendre_p(8, z, diff_n=1): 1.5e-4 relative in
        # the JVP of the VJP, whose autodiff value is mpmath's to 1e-15); a step of 1e-5 makes it 100 times
        # smaller, but divides SciPy's own rounding and search noise by a 10 times smaller step, so it is
        # the second try, not the only one
        check_grads(f, x0, order=order, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5, eps=1e-5)


FIRST_ORDER_ONLY = [(c, a) for c, a in DIFFERENTIABLE if not _second_order_checked(c, a)]


@pytest.mark.parametrize("case,arg", params(FIRST_ORDER_ONLY, ids=_ids))
def test_a_first_order_only_argument_raises_at_second_order(case, arg):
    """Where the spec says the second derivative is not provided, it raises instead of being wrong."""
    point = sample_points(case, 1, rng_for(case.id, arg, "first-order-only"))[0]
    f, _ = _scalar_function(case, arg, point, "float64")
    scalar = lambda x: jnp.real(_outputs(f(x))[0])
    with pytest.raises(jaxsci.NonDifferentiableError):
        jax.grad(jax.grad(scalar))(jnp.asarray(point[arg], dtype="float64"))


@pytest.mark.parametrize("case,arg", params(NOT_DIFFERENTIABLE, ids=_ids, share=2))
def test_non_differentiable_argument_raises(case, arg):
    """A tangent on a non-differentiable argument raises, naming function, argument and reason (the
    core's guard, the same for every function: half the pairs by default, every pair with -m slow)."""
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
