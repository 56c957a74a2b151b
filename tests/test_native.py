"""Native dispatch: a spec's ``native`` JAX implementation serves real inputs, SciPy everything else.

The core tests use a function record made here (jax.scipy.special.xlogy over scipy.special.xlogy, with
a non-differentiable argument), so they hold whichever specs are native; the spec-driven tests check
every spec that names a native implementation. Values on the native path are compared with SciPy
within the spec's tolerance by tests/test_values.py and tests/test_properties.py, and its derivatives
with mpmath by tests/test_gradients.py.
"""
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci
from jaxsci import _core
from specdata import SPECS, assert_matches_scipy, cases, has_native, native_tolerance, params, rng_for, sample

NATIVE_CASES = [c for c in cases() if has_native(c.spec)]  # test_a_native_function_this_jax_lacks_...: the others


@pytest.fixture(autouse=True)
def native_setting():
    """Each test starts with the default (native on) and leaves it so, with no stale traces."""
    saved = jaxsci.config.native
    jaxsci.config.native = True
    jax.clear_caches()
    yield
    jaxsci.config.native = saved
    jax.clear_caches()


def _demo_rule_needs(x, y, values, needs):
    return ()


def _demo_rule(x, y, values, needs):
    return (jnp.log(y),)


def _xlogy(qualname: str, native: str):
    return _core.register(_core.Function(
        qualname=qualname,
        scipy="scipy.special.xlogy",
        args=(_core.Arg("x", "complex", differentiable=True), _core.Arg("y", "complex", why="a reason given in the spec")),
        outputs=(_core.Output("out", "promoted"),),
        vmap_method="expand_dims",
        rules={(): {0: _core.Rule((_demo_rule_needs,), _demo_rule)}},
        native=native,
    ))


DEMO = _xlogy("test.native_xlogy", "jax.scipy.special.xlogy")


def demo(x, y):
    return _core.call(DEMO, x, y)


def _uses_callback(f, *args) -> bool:
    # jaxsci's evaluation primitive: it lowers to the host callback
    return "jaxsci_evaluate" in str(jax.make_jaxpr(f)(*args))


X = np.array([-1.5, 0.0, 0.5, 2.0])
Y = np.array([0.25, 3.0, 1.5, 7.0])


def test_native_path_by_default_scipy_path_when_forced():
    assert not _uses_callback(demo, X, Y)
    np.testing.assert_allclose(np.asarray(demo(X, Y)), sc.xlogy(X, Y), rtol=1e-15)
    jaxsci.config.native = False
    jax.clear_caches()
    assert _uses_callback(demo, X, Y)
    assert _uses_callback(jax.jit(demo), X, Y)
    np.testing.assert_array_equal(np.asarray(jax.jit(demo)(X, Y)), sc.xlogy(X, Y))


MISSING = _xlogy("test.native_missing_xlogy", "jax.scipy.special.xlogy_of_a_later_jax")


def test_a_native_function_this_jax_lacks_is_computed_by_scipy():
    """native.jax_since: jax.scipy.special.dawsn is jax 0.10.2's; with jax 0.6 to 0.10.1 SciPy computes dawsn."""
    missing = lambda x, y: _core.call(MISSING, x, y)
    assert MISSING.native_callable() is None and DEMO.native_callable() is not None
    assert _uses_callback(missing, X, Y)
    np.testing.assert_array_equal(np.asarray(jax.jit(missing)(X, Y)), sc.xlogy(X, Y))
    np.testing.assert_array_equal(np.asarray(jax.grad(lambda x: missing(x, 2.0))(1.5)), np.log(2.0))


def test_complex_inputs_go_to_scipy():
    z = X + 0.5j
    assert _uses_callback(demo, z, Y)
    np.testing.assert_array_equal(np.asarray(demo(z, Y)), sc.xlogy(z, Y))


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("1", 2.0), TypeError, "argument 'x' must be a number or an array, got str"),
        ((1.0, None), TypeError, "argument 'y' must be a number or an array, got NoneType"),
        ((np.array(["a"]), 1.0), TypeError, "argument 'x' must be numeric"),
        ((jnp.ones(3), jnp.ones(4)), ValueError, "argument shapes do not broadcast: x (3,), y (4,)"),
    ],
)
def test_native_path_keeps_jaxscis_errors(args, error, message):
    # under jit, JAX itself rejects a string or None before jaxsci sees it
    for f in (demo, jax.jit(demo)) if error is ValueError else (demo,):
        with pytest.raises(error) as info:
            f(*args)
        assert "jaxsci.test.native_xlogy" in str(info.value) and message in str(info.value)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_narrow_floats_are_computed_in_float32_and_returned_in_their_dtype(dtype):
    x, y = jnp.asarray(X, dtype=dtype), jnp.asarray(Y, dtype=dtype)
    got = demo(x, y)
    assert got.dtype == dtype
    expected = jax.scipy.special.xlogy(x.astype(jnp.float32), y.astype(jnp.float32)).astype(dtype)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_promotion_on_the_native_path_follows_jax():
    assert demo(1, 2).dtype == jnp.float64  # integers promote to the default float (x64 is on)
    assert demo(np.int32(1), np.int32(2)).dtype == jnp.float32  # as jnp.sin promotes int32
    assert demo(jnp.float32(1), 2.0).dtype == jnp.float32  # a weak Python float does not widen float32
    assert demo(jnp.float32(1), jnp.float64(2)).dtype == jnp.float64
    np.testing.assert_allclose(np.asarray(demo(True, 3)), sc.xlogy(1.0, 3.0))


def test_transforms_on_the_native_path():
    x, y = jnp.asarray(X), jnp.asarray(Y)
    np.testing.assert_allclose(jax.vmap(demo)(x, y), demo(x, y), rtol=0)
    np.testing.assert_allclose(jax.vmap(demo, in_axes=(0, None))(x, y[1]), demo(x, y[1]), rtol=0)
    g = jax.vmap(jax.grad(demo))(x, y)
    np.testing.assert_allclose(g, np.log(Y), rtol=1e-15)
    h = jax.jit(jax.vmap(jax.hessian(demo)))(x, y)
    np.testing.assert_array_equal(h, np.zeros(4))
    _, tangent = jax.jvp(lambda t: demo(t, y), (x,), (jnp.ones(4),))
    np.testing.assert_allclose(tangent, np.log(Y), rtol=1e-15)


def test_a_tangent_on_a_non_differentiable_argument_still_raises():
    for transform in (
        lambda: jax.grad(demo, argnums=1)(0.5, 2.0),
        lambda: jax.jit(jax.grad(demo, argnums=1))(0.5, 2.0),
        lambda: jax.jvp(lambda y: demo(0.5, y), (2.0,), (1.0,)),
        lambda: jax.jacrev(demo, argnums=1)(jnp.asarray(X), jnp.asarray(Y)),
        lambda: jax.jacfwd(jax.grad(demo, argnums=0), argnums=1)(0.5, 2.0),  # the mixed second derivative
        lambda: jax.grad(jax.grad(demo, argnums=0), argnums=1)(0.5, 2.0),
    ):
        with pytest.raises(jaxsci.NonDifferentiableError) as info:
            transform()
        message = str(info.value)
        assert "jaxsci.test.native_xlogy" in message and "'y'" in message and "a reason given in the spec" in message
    # stop_gradient is the documented way out
    assert jax.grad(lambda y: demo(0.5, jax.lax.stop_gradient(y)))(2.0) == 0


# ---- every spec that names a native implementation ------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", params(NATIVE_CASES))
@pytest.mark.usefixtures("host_path")
def test_forcing_scipy_gives_scipys_bits(case, dtype):
    arrays = [jnp.asarray(a) for a in sample(case, [(50,)], dtype, rng_for(case.id, "native", dtype))]
    f = jax.jit(case.jax_call)
    assert not _uses_callback(f, *arrays)
    tolerance = native_tolerance(case, arrays)
    assert tolerance is case.spec.native.tolerance[dtype]
    expected = case.scipy_call(*[np.asarray(a) for a in arrays])
    assert_matches_scipy(f(*arrays), expected, dtype, tolerance)
    jaxsci.config.native = False
    jax.clear_caches()
    assert _uses_callback(f, *arrays)
    assert native_tolerance(case, arrays) is None
    assert_matches_scipy(f(*arrays), expected, dtype)  # bit for bit


@pytest.mark.parametrize("case", params(NATIVE_CASES))
def test_native_path_keeps_jaxscis_errors_for_each_spec(case):
    first = case.spec.traced_args[0]
    args = ["text" if a is first else 1.0 for a in case.spec.traced_args]
    with pytest.raises(TypeError, match=f"jaxsci.{case.spec.qualname}: argument '{first.name}' must be a number or an array, got str"):
        case.jax_call(*args)


@pytest.mark.parametrize("spec", params([s for s in SPECS if s.native is not None], ids=lambda s: s.name))
def test_docstring_says_native_and_how_to_force_scipy(spec):
    doc = " ".join(getattr(getattr(jaxsci, spec.module), spec.name).__doc__.split())
    assert f"JAX's native ``{spec.native.function}``" in doc
    assert "``jaxsci.config.native = False``" in doc and "``JAXSCI_NATIVE=0``" in doc


def test_environment_variable_forces_scipy():
    code = """
import jax, jaxsci
from jaxsci import _core
assert jaxsci.config.native is False
for module in ("special", "kernels"):
    package = getattr(jaxsci, module)
    for name in package.__all__:
        getattr(package, name)  # function modules load lazily: load them all
print(sorted(f.qualname for f in _core.registry.REGISTRY.values() if f.native))
"""
    env = dict(os.environ, JAXSCI_NATIVE="0")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    natives = sorted(f"{s.module}.{s.name}" for s in SPECS if s.native is not None)
    assert result.stdout.strip() == repr(natives)


# ---- derivatives: the native path against the SciPy path, at zeros and boundaries ------------------
# Points where a native library's own derivative rules went wrong or are at risk: zeros, signed zeros,
# the tiniest normal numbers, the ends of the domain, and the tails where a value rounds to its limit
# (jax's expit: 1 - expit(x) is 0 for x > 36, so its rule gave d/dx = 0 there). Not where the spec's
# rule itself cancels, on both paths alike: dawsn's 1 - 2 x F(x) beyond |x| ~ 20 and i0e's
# i1e - i0e beyond x ~ 1e4 (their values there are the next fix, not this comparison's subject).
NATIVE_DERIVATIVE_GRIDS = {
    "dawsn": [0.0, -0.0, 1e-300, 1e-8, 0.5, 5.0, -10.0, 20.0],
    "erfc": [0.0, 1e-300, 1e-8, 1.0, 5.0, 9.0, 20.0, 26.5, 27.0, 30.0, -5.0, -30.0, 1e200],
    "erfinv": [0.0, 1e-300, 1e-8, 0.5, 0.9, 0.999, 1 - 1e-10, 1 - 1e-16, 1.0, -1.0, -1 + 1e-16],
    "expit": [0.0, 1e-300, 1.0, 30.0, 36.0, 37.0, 50.0, 700.0, 710.0, 800.0, -36.0, -37.0, -700.0, -800.0],
    "gammasgn": [0.0, 0.5, -0.5, -1.5, 3.0, 1e-300, -1e-300, 171.0, 172.0, -170.5, -200.5],
    "i0e": [0.0, -0.0, 1e-300, 1e-8, 1.0, -2.5, 25.0, 500.0, 1e4],
    "i1e": [0.0, -0.0, 1e-300, 1e-8, 1.0, -2.5, 25.0, 500.0, 1e4],
}


def _first_and_second_derivatives(f, xs, native: bool):
    jaxsci.config.native = native
    jax.clear_caches()
    return (np.asarray(jax.vmap(jax.grad(f))(xs)), np.asarray(jax.vmap(jax.grad(jax.grad(f)))(xs)))


def test_every_native_spec_has_a_derivative_grid():
    natives = {s.name for s in SPECS if s.native is not None and s.reduction is None}
    assert natives == set(NATIVE_DERIVATIVE_GRIDS)


@pytest.mark.parametrize("name", sorted(NATIVE_DERIVATIVE_GRIDS))
def test_native_derivatives_are_the_scipy_paths(name):
    """The same rules on both paths: the derivatives differ only as much as the values' last digits do,
    amplified by the rule's cancellation (1 - 2 x dawsn(x) at x = 30, the pole of erfinv'), and a zero
    or a NaN on one path is one on the other."""
    f = getattr(jaxsci.special, name)
    xs = jnp.asarray(NATIVE_DERIVATIVE_GRIDS[name], dtype=jnp.float64)
    native = _first_and_second_derivatives(f, xs, True)
    scipy_path = _first_and_second_derivatives(f, xs, False)
    for order, (got, want) in enumerate(zip(native, scipy_path), start=1):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=0, err_msg=f"{name}: derivative of order {order}")


def test_logsumexp_derivative_in_b_where_b_is_zero():
    """jax's logsumexp masks the elements whose weight is 0, so its d/db_i was 0 there; it is
    exp(a_i - logsumexp(a, b)) (a mixture weight that starts at 0 must be able to move)."""
    logsumexp = jaxsci.special.logsumexp
    a = np.array([[0.5, -1.0, 2.0, -np.inf], [3.0, 0.0, -2.0, 1.0]])
    b = np.array([[0.0, 1.0, 2.0, 1.0], [0.0, 0.0, 0.5, 0.0]])
    result = np.log(np.sum(b * np.exp(a), axis=1, keepdims=True))
    expected = np.exp(a - result)
    for native in (True, False):
        jaxsci.config.native = native
        jax.clear_caches()
        def total(b, return_sign=False):
            out = logsumexp(jnp.asarray(a), axis=1, b=b, return_sign=return_sign)
            return jnp.sum(out[0] if return_sign else out)
        np.testing.assert_allclose(jax.grad(total)(jnp.asarray(b)), expected, rtol=1e-14, atol=0)
        np.testing.assert_allclose(jax.grad(total)(jnp.asarray(b), True), expected, rtol=1e-14, atol=0)
        # d2/db_i db_j = -exp(a_i - r) exp(a_j - r) on each row
        hessian = jax.hessian(lambda b: logsumexp(jnp.asarray(a[1]), b=b))(jnp.asarray(b[1]))
        np.testing.assert_allclose(hessian, -np.outer(expected[1], expected[1]), rtol=1e-14, atol=1e-300)
        # log_softmax through the same mechanism
        x = jnp.asarray([0.5, -np.inf, 2.0])
        jacobian = jax.jacfwd(jaxsci.special.log_softmax)(x)
        softmax = np.exp(np.asarray(x) - np.log(np.sum(np.exp(np.asarray(x)))))
        np.testing.assert_allclose(jacobian, np.eye(3) - softmax[None, :], rtol=1e-14, atol=1e-300)
