"""The generic checks for reductions over ``axis`` (specs with a ``reduction`` key), driven by the specs.

The elementwise suites sample each argument with its own broadcasting shape and compare scalar mpmath
derivatives point by point; a reduction mixes the elements of each slice, so here values are compared
with SciPy over shapes, axes and keepdims, and first and second derivatives, forward and reverse, with
the Jacobian and Hessian of the spec's mpmath ``reference`` (an expression of one slice, its traced
arguments being lists of mpmath numbers), differentiated by ``mpmath.diff`` element by element on small
arrays. Both paths are checked: the native JAX function (where the spec has one) and SciPy's callback.
"""
from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest

import jaxsci
import mpref
import refdata
from specdata import assert_matches_scipy, params, reduction_cases, rng_for

CASES = reduction_cases()
SHAPES = [(), (4,), (3, 4), (3, 1), (1, 4), (2, 1, 4)]
PATHS = ["native", "scipy"]


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


@pytest.fixture(params=PATHS)
def path(request):
    """Runs the test on the native path and on SciPy's (``jaxsci.config.native = False``).

    ``config.native`` is read when a function is traced; every function these tests trace is made in
    the test (a lambda, a partial, a transformation), so no trace of the other path is reused, and the
    compiled primitives both paths share stay cached (``jax.clear_caches`` here cost most of this file's
    time)."""
    saved = jaxsci.config.native
    jaxsci.config.native = request.param == "native"
    yield request.param
    jaxsci.config.native = saved


def _axes(ndim: int) -> list:
    """None, every single axis (positive and negative) and, from rank 2, a tuple of two."""
    out = [None] + list(range(ndim)) + ([-1] if ndim else [])
    if ndim >= 2:
        out += [(0, ndim - 1), (-1, 0)]
    return out


def _statics(case, axis, keepdims=None) -> dict:
    reduction = case.spec.reduction
    out = {reduction.axis: axis}
    if reduction.keepdims is not None:
        out[reduction.keepdims] = case.statics[reduction.keepdims] if keepdims is None else keepdims
    out.update({k: v for k, v in case.statics.items() if k != reduction.keepdims})
    return out


def _arrays(case, shape, dtype, rng, *, complex_=False, omit=False) -> dict:
    """Traced arguments from the spec's domain: the first of ``shape``, the others of a shape that
    broadcasts against it (its trailing axes); weights get random signs when a sign is returned."""
    out = {}
    for k, arg in enumerate(case.spec.traced_args):
        if arg.optional and omit:
            continue
        own = shape if k == 0 else shape[-1:]
        lo, hi = case.spec.tests.domain[arg.name]
        values = rng.uniform(lo, hi, size=own)
        if k and case.statics.get("return_sign"):
            values = values * rng.choice([-1.0, 1.0], size=own)
        if complex_:
            (rlo, rhi), (ilo, ihi) = case.spec.tests.complex_domain[arg.name]
            values = rng.uniform(rlo, rhi, size=own) + 1j * rng.uniform(ilo, ihi, size=own)
            values = values.astype(np.complex64 if dtype == "float32" else np.complex128)
        out[arg.name] = np.asarray(values).astype(values.dtype if complex_ else dtype)
    return out


def _both(case, arrays: dict, statics: dict):
    ours = case.function()(**arrays, **statics)
    theirs = case.scipy()(**arrays, **statics)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    return ours, theirs


def _tolerance(case, arrays, dtype, path):
    native = case.spec.native
    if path == "scipy" or native is None or any(np.iscomplexobj(a) for a in arrays.values()):
        return None
    return native.tolerance[dtype]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", params(CASES))
def test_values_match_scipy_over_shapes_and_axes(case, dtype, shape, path):
    rng = rng_for("reduction-values", case.id, dtype, shape)
    for omit in (False, True):
        arrays = _arrays(case, shape, dtype, rng, omit=omit)
        for axis in _axes(len(shape)):
            statics = _statics(case, axis)
            ours, theirs = _both(case, arrays, statics)
            assert len(ours) == len(theirs)
            for got, expected in zip(ours, theirs):
                expected = np.asarray(expected)
                assert got.shape == expected.shape, (shape, axis, statics)
                public = np.dtype(dtype) if expected.dtype.kind == "f" else expected.dtype
                assert got.dtype == public, (got.dtype, public)
                assert_matches_scipy(got, expected, public, _tolerance(case, arrays, dtype, path))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", params([c for c in CASES if c.spec.tests.complex_domain]))
def test_complex_values_match_scipy(case, dtype):
    rng = rng_for("reduction-complex", case.id, dtype)
    for shape in [(4,), (3, 4), (2, 1, 4)]:
        arrays = _arrays(case, shape, dtype, rng, complex_=True)
        for axis in _axes(len(shape)):
            ours, theirs = _both(case, arrays, _statics(case, axis))
            for got, expected in zip(ours, theirs):
                expected = np.asarray(expected)
                assert got.shape == expected.shape and got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("case", params(CASES))
def test_jit(case, path):
    arrays = _arrays(case, (3, 4), "float64", rng_for("reduction-jit", case.id))
    for axis in (None, 1, (0, 1)):
        statics = _statics(case, axis)
        eager = case.function()(**arrays, **statics)
        jitted = jax.jit(functools.partial(case.function(), **statics))(**arrays)
        for got, expected in zip(jax.tree.leaves(jitted), jax.tree.leaves(eager)):
            np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("in_axis", [0, 1])
@pytest.mark.parametrize("case", params(CASES))
def test_vmap_is_one_batched_call(case, in_axis, path):
    """The batch axis is never reduced: each batch element equals the unbatched call, for axis None,
    an int, a negative int and a tuple, with keepdims both ways; the SciPy path is one callback."""
    rng = rng_for("reduction-vmap", case.id, in_axis)
    arrays = _arrays(case, (3, 2, 4), "float64", rng)
    first = case.spec.traced_args[0].name
    for axis in (None, 0, -1, (0, 1)):  # keepdims both ways: the cases
        statics = _statics(case, axis)
        rest = {k: v for k, v in arrays.items() if k != first}

        def f(x, rest=rest, statics=statics):
            return case.function()(**{first: x}, **rest, **statics)

        batched = jax.vmap(f, in_axes=in_axis)(arrays[first])
        slices = [f(np.take(arrays[first], i, axis=in_axis)) for i in range(arrays[first].shape[in_axis])]
        for k, got in enumerate(jax.tree.leaves(batched)):
            expected = np.stack([np.asarray(jax.tree.leaves(s)[k]) for s in slices])
            np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-300)
        if path == "scipy":
            jaxpr = str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axis))(arrays[first]))
            assert jaxpr.count("jaxsci_reduce") == 1, jaxpr


@pytest.mark.parametrize("case", params(CASES))
def test_both_paths_keep_jaxscis_errors_and_dtypes(case, path):
    first = case.spec.traced_args[0].name
    with pytest.raises(TypeError, match=f"jaxsci.{case.spec.qualname}: argument '{first}' must be a number or an array, got str"):
        case.function()(**{first: "text"})
    x = np.linspace(-1, 1, 8).reshape(2, 4)
    for dtype in (np.float16, np.int32):
        out = case.function()(**{first: x.astype(dtype)}, **_statics(case, 1))
        # float16 is computed in float32 and returned in float16; integers promote as for every function,
        # except in logsumexp, whose dtypes are SciPy's (integers are float64 there: test_parity.py)
        want = (np.dtype(jax.dtypes.canonicalize_dtype(np.float64)) if case.spec.name == "logsumexp" and dtype is np.int32
                else jaxsci.special.expit(x.astype(dtype)).dtype)
        assert all(o.dtype == want for o in jax.tree.leaves(out))


def test_axis_errors_name_the_argument():
    from jaxsci.special import logsumexp, softmax

    x = np.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError, match="logsumexp: argument 'axis': axis 2 is out of bounds for array of dimension 2"):
        logsumexp(x, axis=2)
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        softmax(x, axis=-3)
    with pytest.raises(ValueError, match="argument 'axis': duplicate value in 'axis'"):
        logsumexp(x, axis=(1, -1))
    with pytest.raises(TypeError, match="argument 'axis' must be None, an int or a tuple of ints, got 1.0"):
        softmax(x, axis=1.0)
    with pytest.raises(TypeError, match="argument 'axis' must be a static Python value"):
        jax.jit(lambda a, k: logsumexp(x, axis=k))(x, 1)
    with pytest.raises(ValueError, match="argument shapes do not broadcast"):
        logsumexp(x, b=np.ones(4))


# ---- derivatives against mpmath ---------------------------------------------------------------------
GRAD_SHAPE = (2, 3)
GRAD_AXES = [None, 0, 1, (0, 1)]  # the slow sweep; the fast test takes axis 1 (mpmath costs ~4 s an axis)


def _reference_outputs(case, statics, arrays: dict, axes: tuple):
    """The reference's outputs over the whole array (mpmath numbers), each slice along ``axes`` passed
    to the spec's expression as flat lists, in the layout of the keepdims result."""
    ref = mpref.reference_function(refdata.reference_text(case), refdata.reference_scope(case) | statics,
                                   [a.name for a in case.spec.traced_args])
    names = [a.name for a in case.spec.traced_args]
    shape = np.broadcast_shapes(*(np.shape(v) for v in arrays.values()))
    kept = [d for d in range(len(shape)) if d not in axes]
    reduced_shape = dict(case.spec.reduction.shapes)[case.spec.outputs[0].name] == "reduced"
    out = np.empty(shape, dtype=object)
    for index in itertools.product(*(range(shape[d]) for d in kept)):
        where = [slice(None)] * len(shape)
        for d, i in zip(kept, index):
            where[d] = i
        lists = [list(np.broadcast_to(arrays.get(n, np.ones(shape, dtype=object)), shape)[tuple(where)].ravel()) for n in names]
        value = ref(*lists)
        if reduced_shape:
            out[tuple(where)] = value
        else:
            out[tuple(where)] = np.asarray(value, dtype=object).reshape(out[tuple(where)].shape)
    if reduced_shape:
        first = [slice(None) if d in kept else slice(0, 1) for d in range(len(shape))]
        return out[tuple(first)]
    return out


_MP_CACHE: dict = {}  # the native and SciPy paths are checked against the same references


def _mp_derivatives(case, statics, arrays: dict, arg: str, axes: tuple, weights, directions):
    """The gradient of sum(weights * output) in ``arg``, and its second derivatives along the pairs
    of ``directions`` (v, v) and (v, w), by mpmath.diff at 30 digits (a full Hessian costs 10x more)."""
    key = (case.id, arg, tuple(sorted(statics.items(), key=str)), tuple(arrays), np.asarray(weights).tobytes())
    if key not in _MP_CACHE:
        _MP_CACHE[key] = _mp_derivatives_uncached(case, statics, arrays, arg, axes, weights, directions)
    return _MP_CACHE[key]


def _mp_derivatives_uncached(case, statics, arrays: dict, arg: str, axes: tuple, weights, directions):
    mpmath.mp.dps = 30
    base = {k: np.vectorize(mpmath.mpf, otypes=[object])(v) for k, v in arrays.items()}
    flat = base[arg].ravel()
    v, w = (np.vectorize(mpmath.mpf, otypes=[object])(d).ravel() for d in directions)

    def scalar(xs):
        changed = dict(base)
        changed[arg] = np.asarray(xs, dtype=object).reshape(base[arg].shape)
        values = _reference_outputs(case, statics, changed, axes)
        return mpmath.fsum(np.asarray(values).ravel() * np.asarray(weights, dtype=object).ravel())

    n = flat.size
    grad = [mpmath.diff(lambda s, j=j: scalar([x + s * (i == j) for i, x in enumerate(flat)]), 0) for j in range(n)]
    vv = mpmath.diff(lambda s: scalar(flat + s * v), 0, 2)
    vw = mpmath.diff(lambda s, u: scalar(flat + s * v + u * w), (0, 0), (1, 1))
    return np.array([float(g) for g in grad]).reshape(base[arg].shape), float(vv), float(vw)


DERIVATIVE_CASES = [(c, a.name, omit) for c in CASES for a in c.spec.differentiable_args
                    for omit in ((False, True) if any(x.optional for x in c.spec.args) and not a.optional else (False,))]


def _derivative_ids(t) -> str:
    return f"{t[0].id}-{t[1]}{'-omitted' if t[2] else ''}"


@pytest.mark.parametrize("case,arg,omit", params(DERIVATIVE_CASES, ids=_derivative_ids))
def test_derivatives_match_mpmath(case, arg, omit, path):
    _check_derivatives(case, arg, omit, [1])


@pytest.mark.slow
@pytest.mark.parametrize("case,arg,omit", params(DERIVATIVE_CASES, ids=_derivative_ids))
def test_derivatives_match_mpmath_over_axes(case, arg, omit, path):
    _check_derivatives(case, arg, omit, GRAD_AXES)


def _check_derivatives(case, arg, omit, axes_list):
    """First derivatives (grad, jacfwd) and second (hessian, forward over reverse, along random
    directions, and its symmetry) of a weighted sum of the first output, against mpmath's; the sign output of a real input is piecewise constant, so
    its derivative is zero (exactly: its rule is im() of a real number)."""
    from generator.render import SECOND_ORDER_FACTOR

    # the spec's tolerance, which generated/coverage.md states, as the elementwise gradient suite uses it
    first_rtol = case.spec.tests.gradient_tolerance["float64"].rtol
    second_rtol = first_rtol * SECOND_ORDER_FACTOR
    rng = rng_for("reduction-grad", case.id, arg, omit)
    arrays = _arrays(case, GRAD_SHAPE, "float64", rng, omit=omit)
    for axis in axes_list:
        statics = _statics(case, axis)
        axes = tuple(range(2)) if axis is None else tuple(np.atleast_1d(axis) % 2)
        out0 = case.function()(**arrays, **statics)
        out0 = out0 if isinstance(out0, tuple) else (out0,)
        weights = rng.uniform(0.5, 1.5, size=np.shape(out0[0]))

        def f(x, statics=statics, weights=weights):
            outs = case.function()(**{**arrays, arg: x}, **statics)
            outs = outs if isinstance(outs, tuple) else (outs,)
            return jnp.sum(weights * outs[0])

        directions = rng.normal(size=(2,) + np.shape(arrays[arg]))
        grad, vv, vw = _mp_derivatives(case, statics, arrays, arg, axes, weights, directions)
        x = jnp.asarray(arrays[arg])
        # jitted: one compiled program each costs less than compiling every operation of the eager trace
        for got in (jax.jit(jax.grad(f))(x), jax.jit(jax.jacfwd(f))(x)):
            np.testing.assert_allclose(got, grad, rtol=first_rtol, atol=1e-13, err_msg=f"axis={axis}")
        v, w = (jnp.asarray(d) for d in directions)
        for hessian in (jax.jit(jax.hessian(f))(x), jax.jit(jax.jacfwd(jax.grad(f)))(x)):
            hv, hw = (jnp.tensordot(hessian, d, axes=d.ndim) for d in (v, w))
            got = [float(jnp.sum(hv * v)), float(jnp.sum(hv * w)), float(jnp.sum(hw * v))]
            np.testing.assert_allclose(got, [vv, vw, vw], rtol=second_rtol, atol=1e-11, err_msg=f"axis={axis}")
        if len(out0) > 1:  # return_sign: the sign of a real sum
            def sign(x, statics=statics):
                return case.function()(**{**arrays, arg: x}, **statics)[1]

            assert not np.any(np.asarray(jax.jacrev(sign)(x))) and not np.any(np.asarray(jax.jacfwd(sign)(x)))


def test_sharded_inputs_are_reduced_whole():
    """Under jit over two devices, an input sharded along the reduced axis is reduced whole: the
    callback is not split by shape as an elementwise one is (softmax's output has its input's shape)."""
    from test_core import run_python

    out = run_python("""
        import jax, numpy as np, scipy.special as sc
        jax.config.update("jax_enable_x64", True)
        import jaxsci
        from jaxsci.special import log_softmax, logsumexp, softmax
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        jaxsci.config.native = False
        mesh = Mesh(np.array(jax.devices()), ("d",))
        x = np.random.default_rng(0).normal(size=(4, 6))
        for spec in (P(None, "d"), P("d", None)):
            xs = jax.device_put(x, NamedSharding(mesh, spec))
            for f, kw in ((softmax, dict(axis=1)), (log_softmax, dict(axis=0)), (logsumexp, dict(axis=1, keepdims=True)),
                          (logsumexp, dict(axis=None))):
                got = jax.jit(lambda v: f(v, **kw))(xs)
                np.testing.assert_array_equal(got, getattr(sc, f.__name__)(x, **kw))
        print("ok")
    """, {"XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"})
    assert out.strip() == "ok"


@pytest.mark.parametrize("case,arg,omit", params(DERIVATIVE_CASES, ids=_derivative_ids))
def test_complex_tangents_match_scipys_differences(case, arg, omit):
    """Complex inputs (always SciPy's path): the tangent along a complex direction, forward and reverse,
    against central differences of SciPy's own values (order 4, step 1e-4: truncation ~1e-15); with
    return_sign, log|S| is real and not holomorphic, which the rule's re(), im() and conj() express."""
    rng = rng_for("reduction-complex-grad", case.id, arg, omit)
    arrays = _arrays(case, (2, 3), "float64", rng, complex_=True, omit=omit)
    direction = rng.normal(size=np.shape(arrays[arg])) + 1j * rng.normal(size=np.shape(arrays[arg]))
    for axis in (1, None):
        statics = _statics(case, axis)

        def ours(x, statics=statics):
            out = case.function()(**{**arrays, arg: x}, **statics)
            return out if isinstance(out, tuple) else (out,)

        def theirs(x, statics=statics):
            out = case.scipy()(**{**arrays, arg: x}, **statics)
            return out if isinstance(out, tuple) else (out,)

        h = 1e-4
        x = arrays[arg]
        expected = [(8 * (p1 - m1) - (p2 - m2)) / (12 * h) for p1, m1, p2, m2 in
                    zip(theirs(x + h * direction), theirs(x - h * direction), theirs(x + 2 * h * direction), theirs(x - 2 * h * direction))]
        _, tangents = jax.jvp(ours, (jnp.asarray(x),), (jnp.asarray(direction),))
        for got, want in zip(tangents, expected):
            np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-9, err_msg=f"axis={axis}")
        # reverse mode: JAX transposes with the pairing re(sum(a * b)), unconjugated (the transpose of conj
        # is conj, of re is the embedding): <cotangent, J direction> = <J^T cotangent, direction>
        outs, pullback = jax.vjp(ours, jnp.asarray(x))
        cotangents = tuple(jnp.asarray(rng.normal(size=o.shape) + (1j * rng.normal(size=o.shape) if jnp.iscomplexobj(o) else 0))
                           for o in outs)
        (back,) = pullback(cotangents)
        left = sum(np.real(np.sum(np.asarray(c) * np.asarray(t))) for c, t in zip(cotangents, tangents))
        right = np.real(np.sum(np.asarray(back) * direction))
        np.testing.assert_allclose(left, right, rtol=1e-12)


@pytest.mark.parametrize("case", params(CASES))
def test_float32_gradients_and_vmapped_gradients(case, path):
    """float32 gradients agree with float64's to float32 accuracy, and vmap of grad is grad of each slice."""
    rng = rng_for("reduction-grad32", case.id)
    arrays = _arrays(case, (3, 2, 4), "float64", rng)
    first = case.spec.traced_args[0].name
    statics = _statics(case, -1)

    def f(x):
        out = case.function()(**{**arrays, first: x}, **statics)
        return jnp.sum(jnp.cos(out if not isinstance(out, tuple) else out[0]))

    g64 = jax.grad(f)(jnp.asarray(arrays[first]))
    g32 = jax.grad(f)(jnp.asarray(arrays[first], dtype=jnp.float32))
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(g32, g64, rtol=2e-4, atol=2e-5)
    batched = jax.vmap(jax.grad(f), in_axes=1)(jnp.asarray(arrays[first]))
    for i in range(arrays[first].shape[1]):
        rest = {k: v for k, v in arrays.items() if k != first}

        def g(x, rest=rest):
            out = case.function()(**{first: x}, **rest, **statics)
            return jnp.sum(jnp.cos(out if not isinstance(out, tuple) else out[0]))

        np.testing.assert_allclose(batched[i], jax.grad(g)(jnp.asarray(arrays[first][:, i])), rtol=1e-13, atol=1e-15)
