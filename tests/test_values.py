"""Values against SciPy, driven by the specs: every shape, both dtypes, eager and jit.

jaxsci calls the same SciPy loop SciPy would pick for the same inputs, so results are bit-identical,
NaNs in the same places, once cast to the declared dtype: float32 in gives float32 out, also where
SciPy's only loop is float64 (``yn(int, float32)`` runs ``ld->d``). A spec with a ``native``
implementation is compared within its ``native.tolerance`` on real inputs instead (and bit for bit
again with ``jaxsci.config.native = False``, in tests/test_native.py).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from specdata import (DTYPES, MIXED_SHAPES, UNIFORM_SHAPES, assert_matches_scipy, cases, declared_dtype, native_tolerance,
                      params, rng_for, sample)

CASES = cases()


def _check(case, arrays, *, jit=False, complex_=False):
    expected = case.scipy_call(*arrays)
    function = jax.jit(case.jax_call) if jit else case.jax_call
    got = function(*[jnp.asarray(a) for a in arrays])
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected) == len(case.spec.outputs)
    tolerance = native_tolerance(case, arrays)
    for g, e, dtype in zip(got, expected, declared_dtype(case, arrays)):
        e = np.asarray(e)
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == dtype, (g.dtype, dtype)
        assert_matches_scipy(g, e, dtype, tolerance)


def _shape_cases(case):
    n = len(case.spec.traced_args)
    if n == 0:
        return [()]  # a function of static arguments: its shapes follow from them
    shapes = [(s,) for s in UNIFORM_SHAPES]
    if n > 1:
        shapes += MIXED_SHAPES
    if case.spec.core:  # a column and a row: the loop axes after the core ones must keep their order
        shapes += [((3, 1),), ((1, 4),)]
    return shapes


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", params(CASES))
def test_values_match_scipy(case, dtype):
    case.expected_failure("values", dtype)
    shape_cases = _shape_cases(case)
    if dtype == "float32" or case.spec.kernel:
        # The result dtype does not depend on the shapes, nor broadcasting on the dtype: float64 takes
        # every shape, float32 a scalar and the broadcast of a column against a row. So does a
        # derivative kernel, whose values are jaxsci's own host function on both sides: what is
        # checked is the transport, the same for every function.
        shape_cases = [s for s in shape_cases if s in (((),), ((3, 1), (1, 4)))]
    for shapes in shape_cases:
        _check(case, sample(case, shapes, dtype, rng_for(case.id, dtype, shapes)))


@pytest.mark.parametrize("case", params([c for c in CASES if c.spec.tests.complex_domain]))
@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_values_match_scipy(case, dtype):
    case.expected_failure("complex_values", dtype)
    for shapes in [((),), ((3, 4),), ((3, 1), (1, 4))]:
        _check(case, sample(case, shapes, dtype, rng_for(case.id, "c", dtype), complex_args=True))


# kernels: jit is the evaluation primitive's lowering, the same for every function (their gradient
# tests run under jit)
@pytest.mark.parametrize("case", params([c for c in CASES if not c.spec.kernel]))
def test_values_under_jit(case):
    case.expected_failure("jit")
    for shapes in [((),), ((3, 1), (1, 4))]:
        _check(case, sample(case, shapes, "float64", rng_for(case.id, "jit", shapes)), jit=True)
