"""vmap over each argument (mixed ranks, nested), and use inside lax.scan, driven by the specs.

SciPy's results do not depend on how the inputs are batched: the batched values equal SciPy's on the
whole arrays bit for bit (the very comparison tests/test_values.py makes unbatched). A native
implementation is compared within the spec's native tolerance instead.

Each transformed function runs under jit, compiled once: compiling is most of what these tests cost,
and the batching rules are the same whether the batched primitive is compiled alone (op by op) or
inside a jitted function.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from specdata import assert_matches_scipy, batch_axes_first, declared_dtype, native_tolerance, params, rng_for, sample, traced_cases

CASES = traced_cases()


def _assert_scipys(got, case, arrays, batched):
    """``got`` (one output or a tuple) equals SciPy at ``arrays``, in the declared dtypes, with the
    ``batched`` loop axes a transformation batched first (before any core dimensions)."""
    got = got if isinstance(got, tuple) else (got,)
    numpy_arrays = [np.asarray(a) for a in arrays]
    expected = case.guarded_scipy_call(*numpy_arrays)
    expected = expected if isinstance(expected, tuple) else (expected,)
    expected = tuple(np.asarray(e) for e in batch_axes_first(case, expected, batched))
    tolerance = native_tolerance(case, numpy_arrays)
    assert len(got) == len(expected)
    for g, e, dtype in zip(got, expected, declared_dtype(case, numpy_arrays)):
        e = np.asarray(e)
        assert g.shape == e.shape and g.dtype == dtype, (g.shape, e.shape, g.dtype, dtype)
        assert_matches_scipy(np.asarray(g), e, dtype, tolerance, inputs=numpy_arrays)


# a derivative kernel is one more callback batched by the core's rule, as its parent is: a quarter of the
# kernels by default (in_default_share), every one with -m slow
@pytest.mark.parametrize("case", [p for c in CASES for p in params([c], share=4 if c.spec.kernel else None)])
def test_vmap_over_each_argument(case):
    case.expected_failure("vmap")
    traced = case.spec.traced_args
    # the batched argument has rank 2 (batch 5 x 3), the others rank 0 and 1: mixed ranks
    inputs = [[jnp.asarray(a) for a in sample(case, [(5, 3) if j == i else ((3,) if j % 2 else ()) for j in range(len(traced))],
                                              "float64", rng_for(case.id, "vmap", i))] for i in range(len(traced))]
    # one compiled function vmaps over each argument in turn
    batched = jax.jit(lambda inputs: [jax.vmap(case.jax_call, in_axes=tuple(0 if j == i else None for j in range(len(traced))))(*arrays)
                                      for i, arrays in enumerate(inputs)])
    for got, arrays in zip(batched(inputs), inputs):
        _assert_scipys(got, case, arrays, batched=1)


@pytest.mark.parametrize("case", params([c for c in CASES if not c.spec.kernel], share=3))  # as for test_inside_scan
def test_nested_vmap(case):
    """vmap of vmap: the core's batching rule applied twice (a third of the specs by default, every one
    with -m slow: in_default_share)."""
    case.expected_failure("vmap")
    traced = case.spec.traced_args
    if len(traced) == 1:
        (x,) = [jnp.asarray(a) for a in sample(case, [(2, 3)], "float64", rng_for(case.id, "nested"))]
        _assert_scipys(jax.jit(jax.vmap(jax.vmap(case.jax_call)))(x), case, [x], batched=2)
        return
    # outer vmap over the last argument, inner over the first: an outer-product grid
    arrays = sample(case, [(3,)] * len(traced), "float64", rng_for(case.id, "nested"))
    arrays = [jnp.asarray(a) for a in arrays]
    first, last = 0, len(traced) - 1

    def inner(*args):
        axes = tuple(0 if j == first else None for j in range(len(traced)))
        return jax.vmap(case.jax_call, in_axes=axes)(*args)

    outer_axes = tuple(0 if j == last else None for j in range(len(traced)))
    got = jax.jit(jax.vmap(inner, in_axes=outer_axes))(*arrays)
    # got[i_last, i_first, ...] = f(first[i_first], middle..., last[i_last]): the unbatched middle
    # arguments keep their own axis, last
    middle = (None,) if len(traced) > 2 else ()
    grid = [a[(None, slice(None)) + middle] if j == first else (a[(slice(None), None) + middle] if j == last else a)
            for j, a in enumerate(arrays)]
    _assert_scipys(got, case, grid, batched=2)


# Under scan, every function is the same evaluation primitive, differing in its host function and in
# the structure of its call: what can differ between specs is the structure. The default run scans one
# spec of each structure (the first, by name, with several outputs, a complex output, a static argument,
# an optional argument, an integer argument, a guard, core dimensions, a native implementation, three
# or more arguments; and jv); `pytest -m slow` scans every spec of scipy's functions. A derivative kernel
# goes through scan exactly as its parent does, so kernels are not scanned.
_STRUCTURES = (
    lambda s: s.name == "jv",
    lambda s: len(s.outputs) > 1,
    lambda s: any(o.dtype == "complex" for o in s.outputs),
    lambda s: bool(s.static_args),
    lambda s: any(a.optional for a in s.args),
    lambda s: any(a.kind == "integer" for a in s.traced_args),
    lambda s: s.guard is not None,
    lambda s: bool(s.core),
    lambda s: s.native is not None,
    lambda s: len(s.traced_args) >= 3,
)
_SCANNED = [c for c in CASES if not c.spec.kernel]
# (a tree of a few specs, such as the README walkthrough's, may lack a structure)
_REPRESENTATIVES = {next((c.id for c in _SCANNED if has(c.spec)), None) for has in _STRUCTURES}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[] if c.id in _REPRESENTATIVES else [pytest.mark.slow])
                                  for c in _SCANNED])
def test_inside_scan(case):
    case.expected_failure("scan")
    arrays = [jnp.asarray(a) for a in sample(case, [(4,)], "float64", rng_for(case.id, "scan"))]

    def body(carry, xs):
        out = case.jax_call(*xs)
        out = out if isinstance(out, tuple) else (out,)
        return carry + sum(jnp.sum(jnp.real(o)) for o in out), out

    total, stacked = jax.jit(lambda xs: jax.lax.scan(body, jnp.zeros(()), xs))(tuple(arrays))
    _assert_scipys(stacked if len(stacked) > 1 else stacked[0], case, arrays, batched=1)
