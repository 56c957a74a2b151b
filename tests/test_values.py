"""Values against SciPy, driven by the specs: every shape, both dtypes, eager and jit.

Each float64 shape case runs once: eagerly, or, for a scalar and for a column against a row, under jit
(one compilation per case either way, and both paths are checked for every function).

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

from specdata import (DTYPES, MIXED_SHAPES, UNIFORM_SHAPES, assert_matches_scipy, assert_same_object, cases, declared_dtype,
                      native_tolerance, params, rng_for, sample)

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
        if dtype is None:
            assert_same_object(g, e)
            continue
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


# a derivative kernel's values are its own host function's through the core's casts and broadcasting, as
# its parent's are SciPy's: a third of the kernels by default (in_default_share), every one with -m slow
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [p for c in CASES for p in params([c], share=3 if c.spec.kernel else None)])
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
        jit = dtype == "float64" and not case.spec.kernel and shapes in _JIT_SHAPES and not _returns_an_object(case)
        _check(case, sample(case, shapes, dtype, rng_for(case.id, dtype, shapes)), jit=jit)


# the shape cases of test_values_match_scipy's float64 run that go through jit (the only one of a
# function of static arguments, a scalar, a column against a row); a derivative kernel's jit is the
# evaluation primitive's lowering, the same for every function, and its gradient tests run under jit
_JIT_SHAPES = ((), ((),), ((3, 1), (1, 4)))


def _returns_an_object(case):
    """An orthopoly1d is a Python object, which a jitted function cannot return (its evaluation under
    jit is tests/test_special_objects.py's)."""
    return any(o.dtype == "orthopoly1d" for o in case.spec.outputs)


@pytest.mark.parametrize("case", params([c for c in CASES if c.spec.tests.complex_domain]))
@pytest.mark.parametrize("dtype", DTYPES)
def test_complex_values_match_scipy(case, dtype):
    case.expected_failure("complex_values", dtype)
    for shapes in [((),), ((3, 4),), ((3, 1), (1, 4))]:
        _check(case, sample(case, shapes, dtype, rng_for(case.id, "c", dtype), complex_args=True))
