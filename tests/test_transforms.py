"""vmap over each argument (mixed ranks, nested), and use inside lax.scan, driven by the specs.

SciPy's results do not depend on how the inputs are batched: the batched values equal the unbatched
ones bit for bit. A native implementation is compiled by XLA for each shape, and its last bits may
differ between shapes; there both must agree within twice the spec's native tolerance (each is within
it of SciPy).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from specdata import assert_matches_scipy, batch_axes_first, native_tolerance, params, rng_for, sample, traced_cases

CASES = traced_cases()


def _assert_same(got, expected, case=None, arrays=()):
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    tolerance = native_tolerance(case, arrays) if case is not None else None
    if tolerance is not None:
        tolerance = type(tolerance)(rtol=2 * tolerance.rtol, atol=2 * tolerance.atol)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        assert_matches_scipy(np.asarray(g), np.asarray(e), e.dtype, tolerance)


@pytest.mark.parametrize("case", params(CASES))
def test_vmap_over_each_argument(case):
    case.expected_failure("vmap")
    traced = case.spec.traced_args
    for i in range(len(traced)):
        # the batched argument has rank 2 (batch 5 x 3), the others rank 0 and 1: mixed ranks
        shapes = [(5, 3) if j == i else ((3,) if j % 2 else ()) for j in range(len(traced))]
        arrays = [jnp.asarray(a) for a in sample(case, shapes, "float64", rng_for(case.id, "vmap", i))]
        in_axes = tuple(0 if j == i else None for j in range(len(traced)))
        got = jax.vmap(case.jax_call, in_axes=in_axes)(*arrays)
        expected = batch_axes_first(case, case.jax_call(*arrays), 1)
        _assert_same(got, expected, case, arrays)
        got_jit = jax.jit(jax.vmap(case.jax_call, in_axes=in_axes))(*arrays)
        _assert_same(got_jit, expected, case, arrays)


@pytest.mark.parametrize("case", params([c for c in CASES if not c.spec.kernel]))  # as for test_inside_scan
def test_nested_vmap(case):
    case.expected_failure("vmap")
    traced = case.spec.traced_args
    if len(traced) == 1:
        (x,) = [jnp.asarray(a) for a in sample(case, [(2, 3)], "float64", rng_for(case.id, "nested"))]
        got = jax.vmap(jax.vmap(case.jax_call))(x)
        _assert_same(got, batch_axes_first(case, case.jax_call(x), 2), case, [x])
        return
    # outer vmap over the last argument, inner over the first: an outer-product grid
    arrays = sample(case, [(3,)] * len(traced), "float64", rng_for(case.id, "nested"))
    arrays = [jnp.asarray(a) for a in arrays]
    first, last = 0, len(traced) - 1

    def inner(*args):
        axes = tuple(0 if j == first else None for j in range(len(traced)))
        return jax.vmap(case.jax_call, in_axes=axes)(*args)

    outer_axes = tuple(0 if j == last else None for j in range(len(traced)))
    got = jax.vmap(inner, in_axes=outer_axes)(*arrays)
    # got[i_last, i_first, ...] = f(first[i_first], middle..., last[i_last]): the unbatched middle
    # arguments keep their own axis, last
    middle = (None,) if len(traced) > 2 else ()
    grid = [a[(None, slice(None)) + middle] if j == first else (a[(slice(None), None) + middle] if j == last else a)
            for j, a in enumerate(arrays)]
    _assert_same(got, batch_axes_first(case, case.jax_call(*grid), 2), case, arrays)


# A derivative kernel goes through scan exactly as its parent does (the same evaluation primitive,
# differing only in the host function), so the scan test runs on the specs of scipy's functions.
@pytest.mark.parametrize("case", params([c for c in CASES if not c.spec.kernel]))
def test_inside_scan(case):
    case.expected_failure("scan")
    arrays = [jnp.asarray(a) for a in sample(case, [(4,)], "float64", rng_for(case.id, "scan"))]

    def body(carry, xs):
        out = case.jax_call(*xs)
        out = out if isinstance(out, tuple) else (out,)
        return carry + sum(jnp.sum(jnp.real(o)) for o in out), out

    total, stacked = jax.lax.scan(body, jnp.zeros(()), tuple(arrays))
    _assert_same(stacked if len(stacked) > 1 else stacked[0], batch_axes_first(case, case.jax_call(*arrays), 1), case, arrays)
