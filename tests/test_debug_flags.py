"""JAX's jax_debug_nans and jax_debug_infs on jaxsci's paths: eager, jit with the buffer callback, jit
with pure_callback, and derivatives (templates/runtime/debugflags.py)."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxsci
import jaxsci.special as js

CPU = jax.devices("cpu")[0]
FLAGS = {"nan": jax.debug_nans, "inf": jax.debug_infs}
# the custom call each transport lowers to on CPU
TARGETS = {"buffer": "xla_buffer_python_cpu_callback", "pure": "xla_ffi_python_cpu_callback"}


def on_cpu(*values):
    return [jax.device_put(jnp.asarray(v, jnp.float32), CPU) for v in values]


@pytest.fixture(params=["eager", "buffer", "pure"])
def path(request, monkeypatch):
    """How the function runs: eagerly (transport's direct call), or jitted through either callback.

    ``callback`` is read when a function is traced, so each jitted path starts from cleared caches.
    """
    if request.param != "eager":
        monkeypatch.setattr(jaxsci.config, "callback", "pure" if request.param == "pure" else "auto")
    jax.clear_caches()
    yield request.param
    jax.clear_caches()


def run(path, function, *args):
    """``function(*args)`` on ``path``; under jit, first checks that the compiled code uses that callback."""
    if path == "eager":
        return function(*args)
    jitted = jax.jit(function)
    assert TARGETS[path] in jitted.lower(*args).as_text()
    return jitted(*args)


def raises_naming(kind, name):
    return pytest.raises(FloatingPointError, match=re.escape(f"invalid value ({kind}) encountered in jaxsci.special.{name}"))


@pytest.mark.parametrize("kind, point", [("inf", 1.0), ("nan", 2.0)])
def test_a_made_value_raises_under_its_flag(path, kind, point):
    # ndtri(1) = inf, ndtri(2) = nan, from finite arguments (JAX's testNdtriDebugInfs for the inf)
    (x,) = on_cpu(point)
    with FLAGS[kind](True), raises_naming(kind, "ndtri"):
        run(path, js.ndtri, x)


@pytest.mark.parametrize("kind, point", [("inf", 1.0), ("nan", 2.0)])
def test_nothing_changes_without_the_flag(path, kind, point):
    (x,) = on_cpu(point)
    other = "nan" if kind == "inf" else "inf"
    with FLAGS[other](True):  # the other flag alone does not look at this value
        value = run(path, js.ndtri, x)
    assert np.isinf(value) if kind == "inf" else np.isnan(value)
    assert np.array_equal(run(path, js.ndtri, x), value, equal_nan=True)


def test_finite_results_pass_with_both_flags(path):
    v, z = on_cpu([0.5, 1.0, 3.0], [1.0, 2.0, 10.0])
    with jax.debug_nans(True), jax.debug_infs(True):
        value = run(path, js.jv, v, z)
    np.testing.assert_allclose(value, js.jv(v, z), rtol=1e-6)


def test_a_value_the_arguments_carried_passes_eagerly():
    # jv(nan, z) is SciPy's nan carried along, not made: only elements whose arguments were clean count.
    # (The arguments are JAX arrays made before the flag: JAX itself raises when it converts a NaN
    # given as a Python or numpy number, as jnp.log(np.nan) does.)
    v, z = on_cpu([np.nan, 1.0], [1.0, 2.0])
    (x,) = on_cpu([np.nan, 2.0])
    with jax.debug_nans(True):
        value = np.asarray(js.jv(v, z))  # (indexing the JAX array would be JAX's own NaN check)
        with raises_naming("nan", "ndtri"):
            js.ndtri(x)  # the second element is made
    assert np.isnan(value[0]) and np.isfinite(value[1])


def test_under_jit_a_carried_nan_gets_jaxs_own_error():
    # JAX checks a jit's outputs, not where they came from: its op-by-op re-run finds no operation that
    # made the NaN and says so, as for any NaN argument of a jitted function
    v, z = on_cpu([np.nan, 1.0], [1.0, 2.0])
    with jax.debug_nans(True), pytest.raises(FloatingPointError, match="de-optimized function did not produce"):
        jax.jit(js.jv)(v, z)


def test_an_intermediate_value_inside_jit_passes_as_in_jax(path):
    # jit checks its outputs only, and JAX's own log(-x) passes there too; eagerly, both raise
    (x,) = on_cpu(2.0)
    ours = lambda x: jnp.where(x > 5, js.ndtri(x), 0.0)  # noqa: E731
    jaxs = lambda x: jnp.where(x > 5, jnp.log(-x), 0.0)  # noqa: E731
    with jax.debug_nans(True):
        if path == "eager":
            with pytest.raises(FloatingPointError, match="encountered in log"):
                jaxs(x)
            with raises_naming("nan", "ndtri"):
                ours(x)
        else:
            assert float(jax.jit(jaxs)(x)) == 0.0 and float(run(path, ours, x)) == 0.0


def test_a_derivative_that_is_inf_raises(path):
    # d ellipe/dm = -pi/8 hyp2f1(1/2, 3/2; 2; m) (DLMF 19.4.1 with 15.4.20): inf at m = 1
    (m,) = on_cpu([0.5, 1.0])
    with jax.debug_infs(True), raises_naming("inf", "hyp2f1"):
        run(path, jax.vmap(jax.grad(js.ellipe)), m)
    assert np.isneginf(run(path, jax.vmap(jax.grad(js.ellipe)), m)[1])


def test_a_derivative_that_is_nan_raises(path):
    (x,) = on_cpu(2.0)
    with jax.debug_nans(True), raises_naming("nan", "ndtri"):
        run(path, jax.grad(js.ndtri), x)
