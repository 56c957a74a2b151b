"""Parity with SciPy and with JAX's conventions (issue 26): what code written for SciPy or jax.scipy
relies on. Expectations come from SciPy's documented behaviour and from JAX's type-promotion rules."""
from __future__ import annotations

import re
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


# ---- the factorial family: SciPy's checks, empty arrays, exact integers and extend='complex' ----------
MULTIFACTORIALS = [
    pytest.param(js.factorial, sc.factorial, (), id="factorial"),
    pytest.param(js.factorial2, sc.factorial2, (), id="factorial2", marks=pytest.mark.slow),
    pytest.param(js.factorialk, sc.factorialk, (3,), id="factorialk-3", marks=pytest.mark.slow),
    pytest.param(js.factorialk, sc.factorialk, (1.5,), id="factorialk-1.5", marks=pytest.mark.slow),
    pytest.param(js.factorialk, sc.factorialk, (-2,), id="factorialk-negative", marks=pytest.mark.slow),
    pytest.param(js.factorialk, sc.factorialk, (1.5 - 2j,), id="factorialk-complex"),
]
# real n with the poles (negative integers), infinities and NaN; complex n with the poles on the real axis
REAL_N = np.concatenate([np.linspace(-7.75, 25.5, 23), np.arange(-6.0, 4.0), [np.inf, -np.inf, np.nan]])
COMPLEX_N = np.concatenate([np.linspace(-6.5, 12, 9) + 1j * np.linspace(-3, 3, 9), np.arange(-6, 2) + 0j])


@pytest.mark.parametrize("ours, scipys, k", MULTIFACTORIALS)
def test_complex_extension_is_scipys(ours, scipys, k):
    """SciPy continues n!, n!! and n!(k) through the gamma function with extend='complex': NaN at the
    poles, complex results for complex n or k (or a negative k), float for real ones."""
    for n in (REAL_N, COMPLEX_N):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = scipys(n, *k, extend="complex")
        got = ours(n, *k, extend="complex")
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(got), expected, rtol=3e-14, atol=0, equal_nan=True)
    scalar = ours(2.5, *k, extend="complex")
    assert scalar.shape == () and scalar.weak_type
    np.testing.assert_allclose(complex(scalar), complex(scipys(2.5, *k, extend="complex")), rtol=3e-14)


def _multifactorial_mpmath(k):
    """n!(k) = k^((n - 1)/k) Gamma(n/k + 1) / Gamma(1/k + 1), SciPy's continuation (its factorialk notes)."""
    import mpmath

    k = mpmath.mpmathify(k)
    return lambda n: mpmath.power(k, (n - 1) / k) * mpmath.gamma(n / k + 1) / mpmath.gamma(1 / k + 1)


@pytest.mark.parametrize("k", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(1.5, marks=pytest.mark.slow), 1.5 - 2j])
def test_complex_extension_derivatives_match_mpmath(k):
    """First and second derivatives in n, real (forward and reverse mode) and complex (holomorphic), near
    the poles too, against mpmath's; NaN at a pole."""
    import mpmath

    mpmath.mp.dps = 30
    f = (lambda n: js.factorial(n, extend="complex")) if k == 1 else (lambda n: js.factorialk(n, k, extend="complex"))
    reference = _multifactorial_mpmath(k)
    # f is elementwise: a tangent of ones gives every element's derivative, and so does the gradient of the sum
    d1 = lambda y: jax.jvp(f, (y,), (jnp.ones_like(y),))[1]
    d2 = lambda y: jax.jvp(d1, (y,), (jnp.ones_like(y),))[1]
    real, cplx = np.array([3.7, -0.5, -1.999]), np.array([1.5 + 0.5j, -2.2 - 1.3j])
    pole = -2 * k  # n/k = -2
    for n in (real, cplx):
        expected = [[complex(mpmath.diff(reference, mpmath.mpmathify(x), order)) for x in n] for order in (1, 2)]
        derivatives = jax.jit(lambda y: (d1(y), d2(y)))(jnp.asarray(n))
        for got, want in zip(derivatives, expected):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
        if n is real and not isinstance(k, complex):
            grad = lambda y: jax.grad(lambda z: f(z).sum())(y)
            reverse = jax.jit(lambda y: (grad(y), jax.grad(lambda z: grad(z).sum())(y)))(jnp.asarray(n))
            for got, want in zip(reverse, expected):
                np.testing.assert_allclose(np.asarray(got), np.real(want), rtol=1e-12)
    assert np.isnan(complex(d1(jnp.asarray(pole, dtype=complex if isinstance(k, complex) else float))))


@pytest.mark.slow  # a composition of jax.numpy and gamma: the derivative test above runs it under jit
def test_complex_extension_under_jit_and_vmap():
    n = jnp.linspace(-3.5, 6.5, 7)
    expected = sc.factorialk(np.asarray(n), 3, extend="complex")
    f = lambda x: js.factorialk(x, 3, extend="complex")
    np.testing.assert_allclose(np.asarray(jax.jit(f)(n)), expected, rtol=3e-14)
    np.testing.assert_allclose(np.asarray(jax.vmap(f)(n)), expected, rtol=3e-14)


@pytest.mark.parametrize("call", [
    pytest.param(lambda f: f.factorial(1, extend=0), id="extend-0"),
    pytest.param(lambda f: f.factorial2(1, extend="string"), id="extend-string"),
    pytest.param(lambda f: f.factorialk(1, 3, exact=True, extend=1.1), id="extend-float-exact"),
    pytest.param(lambda f: f.factorial(3, exact=True, extend="complex"), id="exact-and-complex"),
    pytest.param(lambda f: f.factorial(np.array([np.nan]), exact=True), id="nan-array-exact"),
    pytest.param(lambda f: f.factorial(1.5, exact=True), id="float-exact"),
    pytest.param(lambda f: f.factorial(np.array([np.inf]), exact=True), id="inf-array-exact"),
    pytest.param(lambda f: f.factorial(2 + 2j), id="complex-n-zero"),
    pytest.param(lambda f: f.factorial2(7.0), id="float-n-factorial2"),
    pytest.param(lambda f: f.factorialk(7.0, 3), id="whole-float-n-factorialk"),
    pytest.param(lambda f: f.factorialk(np.array([7.0]), 3), id="float-array-factorialk"),
    pytest.param(lambda f: f.factorialk(7, 3.0), id="float-k"),
    pytest.param(lambda f: f.factorialk(7, 3 + 0j), id="complex-k"),
    pytest.param(lambda f: f.factorialk(7, 0), id="k-0"),
    pytest.param(lambda f: f.factorialk(7, 0, extend="complex"), id="k-0-complex"),
    pytest.param(lambda f: f.factorialk(7, "a"), id="k-string"),
    pytest.param(lambda f: f.factorial(np.array([25, 30], dtype=object), exact=True), id="object-array-exact"),
    pytest.param(lambda f: f.factorial(np.array([25, 30], dtype=object)), id="object-array"),
    pytest.param(lambda f: f.factorial(np.array([True])), id="bool-array"),
    pytest.param(lambda f: f.factorial2(np.datetime64("nat")), id="datetime"),
])
def test_factorial_family_raises_scipys_value_errors(call):
    with pytest.raises(ValueError) as scipys:
        call(sc)
    expected = str(scipys.value).splitlines()[0]
    with pytest.raises(ValueError, match=re.escape(expected)):
        call(js)


def test_factorialk_takes_floats_with_extend_complex():
    """Whole-number floats are a ValueError with extend='zero' (above), values with 'complex': SciPy's
    continuation, which differs from the multifactorial at n != 1 (mod k)."""
    for n in (7.0, 8.0, np.array([7.0, 7.5])):
        np.testing.assert_allclose(np.asarray(js.factorialk(n, 3, extend="complex")),
                                   sc.factorialk(n, 3, extend="complex"), rtol=3e-14)


def test_exact_results_and_dtypes_are_scipys():
    """exact=True is SciPy's own computation: int64 arrays where they fit, Python ints in an object
    array beyond, a Python int for a scalar; a clear TypeError under jit."""
    for ours, scipys, k in ((js.factorial, sc.factorial, ()), (js.factorial2, sc.factorial2, ()),
                            (js.factorialk, sc.factorialk, (3,))):
        for n in (np.array([3, 5]), np.array([3, 40]), jnp.array([3, 5]), np.array([], dtype=np.int64), 25, np.array(6)):
            got, expected = ours(n, *k, exact=True), scipys(np.asarray(n) if isinstance(n, jax.Array) else n, *k, exact=True)
            assert type(got) is type(expected) and np.asarray(got).dtype == np.asarray(expected).dtype
            assert np.asarray(got).tolist() == np.asarray(expected).tolist()
    assert isinstance(js.factorial(30, exact=True), int) and js.factorial(30, exact=True) == sc.factorial(30, exact=True)
    with pytest.raises(TypeError, match="exact=True needs concrete inputs"):
        jax.jit(lambda n: js.factorial2(n, exact=True))(np.array([3, 5]))


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128"])
def test_empty_input_is_returned_unchanged_as_in_scipy(dtype):
    extend = "complex" if dtype == "complex128" else "zero"
    n = np.zeros((0, 2), dtype)
    expected = sc.factorial(n, extend=extend)
    got = js.factorial(n, extend=extend)
    assert got.shape == expected.shape and got.dtype == expected.dtype


def test_none_and_nan_scalars_are_nan_as_in_scipy():
    assert np.isnan(float(js.factorial(None))) and np.isnan(float(js.factorialk(None, 3)))
    assert np.isnan(js.factorial(np.nan, exact=True)) and np.isnan(sc.factorial(np.nan, exact=True))


def test_a_list_for_an_integer_argument_is_read_as_numpy_reads_it():
    """jnp.result_type reads a list as a structured dtype's fields: factorial2([5]) once failed there."""
    np.testing.assert_array_equal(np.asarray(js.factorial2([5, 6])), sc.factorial2([5, 6]))
    np.testing.assert_allclose(np.asarray(js.eval_legendre([2, 3], 0.5)), sc.eval_legendre([2, 3], 0.5), rtol=1e-15)


# ---- small ones: lambertw's tol as an array, softplus's out=, sph_harm_y's p -------------------------
def test_lambertw_takes_tol_as_an_array_as_scipys_ufunc_does():
    z, tol = np.array([1.0, 2.0, 0.5]), np.array([1e-8, 1e-3, 1e-12])
    np.testing.assert_array_equal(np.asarray(js.lambertw(z, 0, tol)), sc.lambertw(z, 0, tol))
    # integers anywhere give SciPy's complex128 (x64 on), scalars and one-element lists alike
    for args in ((0, 0, 0), ([0], 0, 0), (0, [0], 0), (0, 0, [0])):
        assert js.lambertw(*args).dtype == sc.lambertw(*args).dtype == np.complex128
    with pytest.raises(jaxsci.NonDifferentiableError, match="tol"):
        jax.grad(lambda t: js.lambertw(1.0, 0, t).real)(1e-8)


def test_softplus_out_is_a_clear_error_since_jax_arrays_are_immutable():
    out = np.empty(3)
    sc.softplus(np.ones(3), out=out)  # SciPy writes into out
    with pytest.raises(TypeError, match="out= is not supported: JAX arrays are immutable"):
        js.softplus(np.ones(3), out=out)
    with pytest.raises(TypeError, match="where= are not supported"):
        js.softplus(np.ones(3), where=np.array([True, False, True]))


@pytest.mark.slow  # as SciPy's own test_p is: two diff_n=2 programs of the _all functions to compile
def test_sph_harm_y_all_is_the_legendre_part_times_the_phase_at_every_order():
    """SciPy documents Y_n^m(theta, phi) = P_n^m(cos theta) exp(i m phi) with P sph_legendre_p's normalised
    function, and its diff_n tuples as the derivatives in (theta, phi): so the gradient in phi is i m Y,
    the mixed derivative i m dP/dtheta exp(i m phi), and so on; with m_max > n_max (entries |m| > n are 0).
    jaxsci's derivatives are computed in forward mode from its rules: within rounding of the largest value
    (near zeros of a derivative SciPy's own relative comparison would see only rounding noise)."""
    n_max, m_max = 4, 6
    theta, phi = np.meshgrid(np.linspace(0, np.pi, 7), np.linspace(0, 2 * np.pi, 5))
    y, y_grad, y_hess = (np.asarray(a) for a in js.sph_harm_y_all(n_max, m_max, theta, phi, diff_n=2))
    p, p_grad, p_hess = (np.asarray(a) for a in js.sph_legendre_p_all(n_max, m_max, theta, diff_n=2))
    m = np.concatenate([np.arange(m_max + 1), np.arange(-m_max, 0)])[None, :, None, None]
    phase = np.exp(1j * m * phi)
    close = lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13 * np.max(np.abs(b)))
    close(y, p * phase)
    close(y_grad[..., 0], p_grad * phase)
    close(y_grad[..., 1], 1j * m * p * phase)
    close(y_hess[..., 0, 0], p_hess * phase)
    close(y_hess[..., 0, 1], 1j * m * p_grad * phase)
    close(y_hess[..., 1, 0], y_hess[..., 0, 1])  # symmetric to rounding (SciPy's exactly: it copies one)
    close(y_hess[..., 1, 1], -m * m * p * phase)
    beyond = np.abs(m[0, :, 0, 0])[None, :] > np.arange(n_max + 1)[:, None]
    assert not np.any(y[beyond]) and not np.any(y_hess[beyond])


# ---- integer inputs promote as jax.scipy.special's do (JAX's promote_args_inexact), not as SciPy's ----
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", pytest.param("int64", marks=pytest.mark.slow), "bool"])
def test_integer_inputs_promote_as_jax_scipy_does(dtype):
    """JAX makes int8 to int32 (and bool) float32 even with x64 on; SciPy's loops give float64 for them.
    jaxsci follows JAX, as it does for floats; values are SciPy's in that dtype."""
    x = np.array([1, 3], dtype)
    for ours, theirs, args in ((js.gamma, jsp.gamma, (x,)), (js.erf, jsp.erf, (x,)), (js.xlogy, jsp.xlogy, (x, x)),
                               (js.betainc, jsp.betainc, (x, x, np.array([0, 1], dtype)))):
        got, expected = ours(*args), theirs(*args)
        assert got.dtype == expected.dtype, (ours.__name__, got.dtype, expected.dtype)
        np.testing.assert_allclose(np.asarray(got), getattr(sc, ours.__name__)(*args), rtol=2e-7 if got.dtype == np.float32 else 1e-15)
