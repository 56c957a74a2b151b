"""Parity with SciPy and with JAX's conventions (issue 26): what code written for SciPy or jax.scipy
relies on. Expectations come from SciPy's documented behaviour and from JAX's type-promotion rules."""
from __future__ import annotations

import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci
import jaxsci.special as js

X32 = jnp.ones((), jnp.float32)  # 0-d: broadcasts with any result


# ---- weak types (JAX's promotion: a Python scalar's result does not widen a float32 array) -------------
@pytest.mark.parametrize("call", [
    pytest.param(lambda: js.gamma(2.0), id="gamma-host"),
    pytest.param(lambda: js.erfc(2.0), id="erfc-native"),
    pytest.param(lambda: js.jv(1, 2.0), id="jv-two-scalars"),
    pytest.param(lambda: js.eval_legendre(3, 0.5), id="eval_legendre-integer-order"),
    pytest.param(lambda: jax.jit(js.gamma)(2.0), id="gamma-jit"),
    pytest.param(lambda: js.sph_harm_y(2, 1, 0.3, 0.4, diff_n=1)[1], id="sph_harm_y-diff_n"),
    pytest.param(lambda: js.roots_jacobi(3, 0.5, 0.5)[1], id="roots_jacobi"),
])
def test_python_scalar_results_are_weak_like_jax_scipy(call):
    result = call()
    assert result.weak_type
    expected = jnp.complex64 if jnp.iscomplexobj(result) else jnp.float32
    assert (result * X32).dtype == expected
    # as jax.scipy does for its own functions
    assert (jsp.gammaln(2.0) * X32).dtype == jnp.float32


@pytest.mark.parametrize("argument", [np.float64(2.0), jnp.float64(2.0), np.array([2.0])], ids=["numpy-scalar", "jax-array", "numpy-array"])
def test_typed_inputs_give_strong_results(argument):
    result = js.gamma(argument)
    assert not result.weak_type
    assert (result * X32).dtype == jnp.float64


def test_weak_scalar_with_a_float32_array_stays_float32():
    assert js.jv(1.0, jnp.float32(2.0)).dtype == jnp.float32
    assert not js.jv(1.0, jnp.float32(2.0)).weak_type


# ---- nothing runs SciPy at import time -----------------------------------------------------------
def test_derivative_kernels_import_without_calling_scipy():
    """The numeric kernels once probed ellip_harm at import ("floating point number truncated to an
    integer"); under -W error a derivative loading them failed."""
    code = ("import warnings; warnings.simplefilter('error')\n"
            "import jax, jaxsci.special as js\n"
            "import jaxsci._core.kernels.numeric\n"
            "print(float(jax.grad(lambda a: js.roots_jacobi(5, a, 0.5)[1].sum())(0.3)))\n")
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=300,
                            env={"JAX_PLATFORMS": "cpu", "PATH": ""})
    assert result.returncode == 0, result.stderr[-2000:]
    assert np.isfinite(float(result.stdout.split()[-1]))


# ---- SciPy's argument errors ---------------------------------------------------------------------
@pytest.mark.parametrize("name, args, message", [
    ("roots_jacobi", (3, -1.5, 0.5), "alpha and beta must be greater than -1."),
    ("roots_jacobi", (3, 0.5, -1.0), "alpha and beta must be greater than -1."),
    ("roots_gegenbauer", (3, -0.7), "alpha must be greater than -0.5."),
    ("roots_genlaguerre", (3, -1.5), "alpha must be greater than -1."),
    ("roots_sh_jacobi", (3, 1.0, 2.0), "(p - q) must be greater than -1, and q must be greater than 0."),
    ("roots_legendre", (0,), "n must be a positive integer."),
    ("jn_zeros", (2, 0), "nt > 0"),
    ("y0_zeros", (0,), "Arguments must be scalar positive integer."),
    ("bernoulli", (-1,), "n must be a non-negative integer."),
])
def test_invalid_concrete_arguments_raise_scipys_value_error(name, args, message):
    with pytest.raises(ValueError) as scipy_error:
        getattr(sc, name)(*args)
    assert message in str(scipy_error.value)
    with pytest.raises(ValueError) as ours:
        getattr(js, name)(*args)
    assert message in str(ours.value)


def test_invalid_traced_arguments_warn_and_raise_under_errstate():
    rule = jax.jit(lambda a: js.roots_jacobi(3, a, 0.5)[0])
    with pytest.warns(jaxsci.CallbackWarning, match="alpha and beta must be greater than -1"):
        nodes = rule(-1.5)
    assert np.isnan(np.asarray(nodes)).all()
    with pytest.raises(jaxsci.CallbackError, match="alpha and beta must be greater than -1"):
        with jaxsci.errstate("raise"):
            jax.block_until_ready(rule(-1.5))


def test_a_batch_keeps_its_valid_elements():
    with pytest.warns(jaxsci.CallbackWarning):
        nodes = jax.vmap(lambda a: js.roots_jacobi(3, a, 0.5)[0])(jnp.array([0.5, -1.5]))
    np.testing.assert_allclose(nodes[0], sc.roots_jacobi(3, 0.5, 0.5)[0], rtol=1e-13)
    assert np.isnan(np.asarray(nodes[1])).all()


def test_boundary_values_are_nan_without_an_error_as_in_scipy():
    """SciPy checks alpha < -1/2, so alpha = -1/2 gives its NaN, not an error."""
    assert np.isnan(sc.roots_gegenbauer(3, -0.5)[0][0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(np.asarray(js.roots_gegenbauer(3, -0.5)[0][0]))


@pytest.mark.parametrize("name, args", [
    ("roots_jacobi", (3.0, 0.5, 0.5)),
    ("roots_legendre", (np.float64(4.0),)),
    ("jn_zeros", (1.0, 3)),
    ("jn_zeros", (1, 3.0)),
    ("y1p_zeros", (2.0,)),
])
def test_whole_number_floats_are_accepted_as_scipy_accepts_them(name, args):
    expected = getattr(sc, name)(*args)
    got = getattr(js, name)(*args)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-13)


def test_other_floats_for_an_integer_are_a_value_error_as_in_scipy():
    with pytest.raises(ValueError):
        sc.jn_zeros(1.5, 3)
    with pytest.raises(ValueError, match="must be an integer"):
        js.jn_zeros(1.5, 3)
    with pytest.raises(ValueError, match="must be an integer"):
        js.roots_jacobi(3.5, 0.5, 0.5)


# ---- flags and dtypes SciPy accepts or refuses -----------------------------------------------------
@pytest.mark.parametrize("name", ["y0_zeros", "y1p_zeros"])
def test_an_int_flag_is_read_as_scipy_reads_it(name):
    expected = getattr(sc, name)(3, complex=1)
    got = getattr(js, name)(3, complex=1)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-12)


def test_an_int_flag_other_than_0_or_1_is_refused():
    with pytest.raises(TypeError, match="True or False"):
        js.y0_zeros(3, complex=2)


@pytest.mark.parametrize("dtype", [np.longdouble, np.clongdouble])
def test_long_double_is_a_clear_error(dtype):
    if np.dtype(dtype).itemsize <= np.dtype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64).itemsize:
        pytest.skip("long double is double on this platform")
    sc.diric(np.array([1.0], np.longdouble), 3)  # SciPy computes it
    with pytest.raises(TypeError, match="long double.*astype"):
        js.diric(np.array([1.0], dtype), 3)


def test_results_read_through_numpy_are_read_only_and_copies_are_writable():
    """Documented in the README: JAX arrays are immutable, so SciPy's tests that write into iv's result
    need np.array's copy."""
    view = np.asarray(js.iv(1.0, jnp.array([1.0, 2.0])))
    with pytest.raises(ValueError):
        view[0] = 0.0
    copy = np.array(js.iv(1.0, jnp.array([1.0, 2.0])))
    copy[0] = 0.0
    np.testing.assert_allclose(copy[1], sc.iv(1.0, 2.0), rtol=1e-14)


# ---- logsumexp's result dtypes: SciPy promotes a and b as numpy does, integers as float64 ---------
DTYPES = ["int8", "int64", "bool", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("b_dtype", [None, "int8", "int64", "float32", "float64", "complex64"])
@pytest.mark.parametrize("a_dtype", DTYPES)
def test_logsumexp_dtypes_are_scipys(a_dtype, b_dtype):
    a = np.asarray([1, 2]).astype(a_dtype)
    b = None if b_dtype is None else np.asarray([1, 2]).astype(b_dtype)
    expected = sc.logsumexp(a, b=b, return_sign=True)
    got = js.logsumexp(a, b=b, return_sign=True)
    assert [g.dtype for g in got] == [np.asarray(e).dtype for e in expected]
    np.testing.assert_allclose(np.asarray(got[0]), expected[0], rtol=1e-3)


def test_logsumexp_cancelling_weights_give_scipys_sign():
    """SciPy's gh-18295: b that cancels the sum exactly gives log 0 = -inf with sign 0."""
    value, sign = js.logsumexp(np.array([1.0, 1.0]), b=np.array([1.0, -1.0]), return_sign=True)
    assert (float(value), float(sign)) == tuple(map(float, sc.logsumexp(np.array([1.0, 1.0]), b=np.array([1.0, -1.0]), return_sign=True)))
