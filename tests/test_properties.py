"""Property tests: hypothesis draws shapes, dtypes and values (NaN, ±inf and points outside the test
domain included) for every spec, and jaxsci must equal SciPy on the same inputs under jit and vmap:
the same NaN pattern and bit-equal values in the declared dtype (jaxsci runs the very SciPy loop SciPy
picks for those inputs, see tests/test_values.py); or, for a spec with a ``native`` implementation on
real inputs, the same NaNs and infinities and values within its ``native.tolerance``.

Values are drawn from the spec's domain widened to three times its width on each side, so a draw
may leave the function's domain (SciPy's NaN) without reaching arguments where some SciPy routines
iterate for minutes. The default run draws a few examples per spec; `pytest -m slow` draws more.

A spec with a ``guard`` (SciPy crashes or hangs outside it) also gets wild orders for its integer
arguments, and its reference is SciPy called only where the guard admits the inputs, NaN elsewhere
(``Case.guarded_scipy_call``): jaxsci must give exactly that, NaN outside the guard included.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scipy.special import SpecialFunctionError

from jaxsci import CallbackWarning
from specdata import assert_matches_scipy, cases, declared_dtype, native_tolerance, params

# Derivative kernels are jaxsci's own host functions, the same code on both sides of this comparison;
# their values, transforms and gradients are checked by the other generic suites.
CASES = [c for c in cases() if c.spec.traced_args and not c.spec.kernel]
SHAPES = [(), (4,), (3, 1), (1, 4), (2, 1, 4)]
SPECIAL = [np.nan, np.inf, -np.inf, 0.0]
# Orders far outside any test domain, drawn for the integer arguments of guarded specs only: SciPy's
# Zhang-Jin codes hang at 2**31 - 1 and crash beyond it, and allocate per unit of order.
WILD_INTEGERS = [-(2**31), -1000, -1, 199, 250, 10**4, 10**6, 2**31 - 1, 2**31, 2**40]


@st.composite
def inputs(draw, case):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    arrays = []
    for arg in case.spec.traced_args:
        shape = draw(st.sampled_from(SHAPES))
        size = int(np.prod(shape))
        lo, hi = case.spec.tests.domain[arg.name]
        if arg.kind == "integer":
            integers = st.integers(int(lo), int(hi))
            if case.spec.guard is not None:
                integers = st.one_of(integers, integers, st.sampled_from(WILD_INTEGERS))
            values = draw(st.lists(integers, min_size=size, max_size=size))
            arrays.append(np.asarray(values, dtype=np.int64).reshape(shape))
            continue
        width = hi - lo
        # Subnormals included: XLA's threads flush them to zero, and the core must undo that for SciPy.
        finite = st.floats(lo - 3 * width, hi + 3 * width, allow_nan=False)
        tiny = st.floats(-1e-300, 1e-300, allow_nan=False)
        values = draw(st.lists(st.one_of(finite, finite, finite, tiny, st.sampled_from(SPECIAL)),
                               min_size=size, max_size=size))
        arrays.append(np.asarray(values, dtype=dtype).reshape(shape))
    return arrays


def _jit_and_vmap(case):
    """The outputs at the inputs under jit, and under vmap over a new leading axis of size 2 on every
    argument (the same values twice), each row separately. The vmapped call runs eagerly: its batched
    evaluation goes to the host without compiling, and vmap under jit is tests/test_transforms.py's."""
    plain = jax.jit(case.jax_call)

    def f(*arrays):
        batched = _outputs(jax.vmap(case.jax_call)(*[np.stack([a, a]) for a in arrays]))
        return _outputs(plain(*arrays)), tuple(o[0] for o in batched), tuple(o[1] for o in batched)
    return f


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)


def _check(case, arrays, transform):
    """Every tuple of outputs ``transform`` returns at ``arrays`` equals SciPy's outputs there."""
    try:
        expected = case.guarded_scipy_call(*arrays)
    except Exception as exc:  # noqa: BLE001 - SciPy raising (pbdv's "memory allocation error") is SciPy's answer
        _check_where_scipy_raises(case, arrays, transform, exc)
        return
    _compare(case, arrays, _outputs(expected), transform(*[jnp.asarray(a) for a in arrays]))


def _compare(case, arrays, expected, results):
    tolerance = native_tolerance(case, arrays)
    for got in results:
        for g, e, dtype in zip(got, expected, declared_dtype(case, arrays)):
            e = np.asarray(e).astype(dtype)
            assert g.shape == e.shape and g.dtype == dtype, (g.shape, e.shape, g.dtype, dtype)
            np.testing.assert_array_equal(np.isnan(np.asarray(g)), np.isnan(e), err_msg="NaN pattern")
            assert_matches_scipy(g, e, dtype, tolerance, inputs=arrays)


def _pointwise(case, arrays):
    """SciPy's outputs at each point alone (NaN where it raises there), and what it raised at the points."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    flat = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    columns, raised = [], []
    for index in range(int(np.prod(shape))):
        try:
            values = _outputs(case.guarded_scipy_call(*[f[index:index + 1] for f in flat]))
            columns.append([np.asarray(v, dtype=np.float64).reshape(-1)[0] for v in values])
        except Exception as exc:  # noqa: BLE001 - SciPy's answer at this point
            raised.append(type(exc).__name__)
            columns.append(None)
    count = len(case.spec.outputs)
    expected = tuple(np.array([np.nan if c is None else c[k] for c in columns]).reshape(shape) for k in range(count))
    return expected, raised


def _check_where_scipy_raises(case, arrays, transform, exc):
    """SciPy raised for the whole array (its vectorised functions do, when one point fails): jaxsci's
    outputs are SciPy's at each point alone, NaN where SciPy raises there, with a warning naming what it
    raised; an eager call raises SciPy's own SpecialFunctionError, as SciPy does."""
    jnp_arrays = [jnp.asarray(a) for a in arrays]
    if case.spec.core:  # outputs with core dimensions (roots_jacobi's nodes): the call is one, and all NaN
        with pytest.warns(CallbackWarning, match=type(exc).__name__):
            results = transform(*jnp_arrays)
        assert all(np.isnan(np.asarray(g)).all() for got in results for g in got)
        return
    expected, raised = _pointwise(case, arrays)
    if isinstance(exc, SpecialFunctionError):
        with pytest.warns(CallbackWarning, match="|".join(raised) or type(exc).__name__):
            jitted = _outputs(jax.jit(case.jax_call)(*jnp_arrays))
        _compare(case, arrays, expected, [jitted])
        with pytest.raises(type(exc)):
            jax.vmap(case.jax_call)(*[np.stack([a, a]) for a in arrays])
        return
    if raised:  # jaxsci never lets an exception out of a callback: NaN there and a warning naming the cause
        with pytest.warns(CallbackWarning, match="|".join(raised)):
            results = transform(*jnp_arrays)
    else:
        results = transform(*jnp_arrays)
    _compare(case, arrays, expected, results)


def _property(examples):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("case", params(CASES, share=3))
def test_random_inputs_match_scipy_under_jit_and_vmap(case):
    """A few generated inputs through jit of vmap: a third of the specs by default (in_default_share), every
    spec with -m slow, where test_many_random_inputs_match_scipy also tries 60 inputs each."""
    case.expected_failure("properties")

    @_property(3)
    @given(arrays=inputs(case))
    def check(arrays):
        _check(case, arrays, _jit_and_vmap(case))

    check()


@pytest.mark.slow
@pytest.mark.parametrize("case", params(CASES))
def test_many_random_inputs_match_scipy(case):
    case.expected_failure("properties")

    @_property(60)
    @given(arrays=inputs(case))
    def check(arrays):
        _check(case, arrays, lambda *a: (_outputs(jax.jit(case.jax_call)(*a)),))

    check()
