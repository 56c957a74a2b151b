"""Gradient correctness, driven by the specs: every differentiable argument, against mpmath.

First and second derivatives, forward mode (jvp of jvp) and reverse mode (grad of grad), at sampled
points of each spec's domain and at its special points, compared with ``mpmath.diff`` of the spec's
reference at 30 digits (or, for specs whose ``reference`` is ``finite_differences``, with order-8
central differences of SciPy's float64 values); complex arguments along the directions 1 and i. Then
``jax.test_util.check_grads(order=2)``, and non-differentiable arguments must raise.
"""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
from jax.test_util import check_grads

import jaxsci
from specdata import cases, params, reference, rng_for, sample_points

CASES = cases()
DIFFERENTIABLE = [(c, a.name) for c in CASES for a in c.spec.differentiable_args]
NOT_DIFFERENTIABLE = [(c, a.name) for c in CASES for a in c.spec.traced_args
                      if a.kind in ("real", "complex") and not a.differentiable]
POINTS_PER_ARG = 3


def _ids(item):
    return f"{item[0].id}-d{item[1]}"


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)


def _scalar_function(case, arg, point, dtype):
    """f(x) = the function with ``arg`` = x and the other arguments fixed at ``point``."""
    names = [a.name for a in case.spec.traced_args]

    def f(x):
        args = []
        for a in case.spec.traced_args:
            if a.name == arg:
                args.append(x)
            elif a.kind == "integer":
                args.append(jnp.asarray(point[a.name], dtype=jnp.int64))
            else:
                args.append(jnp.asarray(point[a.name], dtype=dtype))
        return case.jax_call(*args)

    return f, names


# Central-difference stencils of order 8 (Fornberg 1988), for specs whose reference is SciPy itself.
_FD_OFFSETS = np.arange(-4, 5)
_FD_FIRST = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
_FD_SECOND = np.array([-1 / 560, 8 / 315, -1 / 5, 8 / 5, -205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560])
FD_STEP = 1e-2


def _fd_derivatives(case, arg, point, x0, direction):
    """First and second derivatives of SciPy's own float64 values along ``direction``, by differences."""
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
    second = _FD_SECOND @ values / h**2
    return [mpmath.mpmathify(v) for v in first], [mpmath.mpmathify(v) for v in second]


def _mp_derivatives(case, arg, point, x0, direction):
    if case.spec.finite_differences:
        x0, direction = complex(x0), complex(direction)
        if x0.imag == 0 and direction.imag == 0:
            x0, direction = x0.real, direction.real  # stay on SciPy's real loop
        return _fd_derivatives(case, arg, point, x0, direction)
    ref = reference(case)
    names = [a.name for a in case.spec.traced_args]

    def along(t):
        values = [(mpmath.mpmathify(x0) + t * direction) if n == arg else mpmath.mpmathify(point[n]) for n in names]
        return _outputs(ref(*values))

    n_out = len(case.spec.outputs)
    first = [mpmath.diff(lambda t, k=k: along(t)[k], 0, 1) for k in range(n_out)]
    second = [mpmath.diff(lambda t, k=k: along(t)[k], 0, 2) for k in range(n_out)]
    return first, second


def _close(got, expected, tol, what):
    got = complex(got)
    expected = complex(expected)
    if not np.isfinite(abs(expected)):
        return
    err = abs(got - expected)
    assert err <= tol.atol + tol.rtol * abs(expected), f"{what}: got {got}, mpmath {expected} (error {err:.3g})"


def _points(case, arg):
    return sample_points(case, POINTS_PER_ARG, rng_for(case.id, arg, "grad"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_forward_mode_matches_mpmath(case, arg, dtype):
    """jvp and jvp-of-jvp against mpmath, real direction."""
    case.expected_failure("gradients", dtype)
    mpmath.mp.dps = 30
    tol = case.spec.tests.gradient_tolerance[dtype]
    for point in _points(case, arg):
        f, _ = _scalar_function(case, arg, point, dtype)
        x0 = jnp.asarray(point[arg], dtype=dtype)
        first = lambda x: jax.jvp(f, (x,), (jnp.ones_like(x),))[1]
        d1 = _outputs(first(x0))
        d2 = _outputs(jax.jvp(first, (x0,), (jnp.ones_like(x0),))[1])
        ref1, ref2 = _mp_derivatives(case, arg, point, float(x0), 1)
        for k in range(len(d1)):
            _close(d1[k], ref1[k], tol, f"d/d{arg} at {point} ({dtype})")
            _close(d2[k], ref2[k], _second_order(tol), f"d2/d{arg}2 at {point} ({dtype})")


@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_reverse_mode_matches_mpmath(case, arg):
    """grad and grad-of-grad against mpmath; a complex output as its real and imaginary parts."""
    case.expected_failure("gradients")
    mpmath.mp.dps = 30
    tol = case.spec.tests.gradient_tolerance["float64"]
    for point in _points(case, arg):
        f, _ = _scalar_function(case, arg, point, "float64")
        x0 = jnp.asarray(point[arg], dtype="float64")
        ref1, ref2 = _mp_derivatives(case, arg, point, float(x0), 1)
        for k in range(len(case.spec.outputs)):
            for part, mp_part in ((jnp.real, mpmath.re), (jnp.imag, mpmath.im)):
                fk = lambda x, k=k, part=part: part(_outputs(f(x))[k])
                _close(jax.grad(fk)(x0), mp_part(ref1[k]), tol, f"grad {part.__name__} d/d{arg} at {point}")
                _close(jax.grad(jax.grad(fk))(x0), mp_part(ref2[k]), _second_order(tol),
                       f"grad {part.__name__} d2/d{arg}2 at {point}")


COMPLEX_DIFFERENTIABLE = [(c, a) for c, a in DIFFERENTIABLE if a in c.spec.tests.complex_domain]


@pytest.mark.parametrize("case,arg", params(COMPLEX_DIFFERENTIABLE, ids=_ids))
def test_complex_directions_match_mpmath(case, arg):
    """At complex points, jvp along 1 and i (holomorphic or not) against mpmath's directional derivatives."""
    case.expected_failure("complex_gradients")
    mpmath.mp.dps = 30
    tol = case.spec.tests.gradient_tolerance["float64"]
    rng = rng_for(case.id, arg, "complex")
    (rlo, rhi), (ilo, ihi) = case.spec.tests.complex_domain[arg]
    for point in sample_points(case, POINTS_PER_ARG, rng)[:POINTS_PER_ARG]:
        point[arg] = complex(round(rng.uniform(rlo, rhi), 6), round(rng.uniform(ilo, ihi), 6))
        f, _ = _scalar_function(case, arg, point, "float64")
        x0 = jnp.asarray(point[arg], dtype="complex128")
        for direction in (1.0, 1j):
            t = jnp.asarray(direction, dtype="complex128")
            first = lambda x: jax.jvp(f, (x,), (t,))[1]
            d1 = _outputs(first(x0))
            d2 = _outputs(jax.jvp(first, (x0,), (t,))[1])
            ref1, ref2 = _mp_derivatives(case, arg, point, point[arg], mpmath.mpc(direction))
            for k in range(len(d1)):
                _close(d1[k], ref1[k], tol, f"d/d{arg} along {direction} at {point}")
                _close(d2[k], ref2[k], _second_order(tol), f"d2/d{arg}2 along {direction} at {point}")


@pytest.mark.parametrize("case,arg", params(DIFFERENTIABLE, ids=_ids))
def test_check_grads_second_order(case, arg):
    """JAX's own consistency check: fwd and rev, to second order, against finite differences."""
    case.expected_failure("check_grads")
    point = sample_points(case, 1, rng_for(case.id, arg, "check_grads"))[0]
    f, _ = _scalar_function(case, arg, point, "float64")
    check_grads(f, (jnp.asarray(point[arg], dtype="float64"),), order=2, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


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
    # a second derivative from a first-order recurrence loses about one digit more than the first
    return type(tol)(rtol=tol.rtol * 10, atol=tol.atol * 10)
