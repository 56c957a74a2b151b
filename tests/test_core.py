"""The callback core: promotion, trace-time errors, failures inside the callback, devices."""
import subprocess
import sys
import textwrap
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci
from jaxsci import _core
from jaxsci import CallbackWarning
from jaxsci.special import jv


def run_python(code: str, env_extra: dict | None = None) -> str:
    import os

    env = dict(os.environ, **(env_extra or {}))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.parametrize(
    "v, z, dtype",
    [
        (1, 2.0, "float64"),  # Python scalars: the default float (x64 is on in this session)
        (1, jnp.float32(2.0), "float32"),  # weak Python int does not widen float32
        (jnp.float32(1), 2.0, "float32"),
        (np.int32(1), np.int32(2), "float32"),  # integers promote as jnp.sin would promote them
        (1, jnp.float16(2.0), "float16"),
        (1, jnp.bfloat16(2.0), "bfloat16"),
        (1.0, jnp.complex64(2.0 + 1j), "complex64"),
        (jnp.float32(1), jnp.complex128(2.0), "complex128"),
    ],
)
def test_promotion_follows_jax(v, z, dtype):
    assert jv(v, z).dtype == jnp.dtype(dtype)


def test_narrow_floats_are_computed_in_float32():
    z = jnp.asarray([0.5, 1.5, 2.5], dtype=jnp.float16)
    expected = sc.jv(1, np.asarray(z, dtype=np.float32)).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(jv(1, z)), expected)


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("1", 2.0), TypeError, "argument 'v' must be a number or an array, got str"),
        ((1.0, None), TypeError, "argument 'z' must be a number or an array, got NoneType"),
        ((1.0 + 1j, 2.0), TypeError, "argument 'v' does not accept complex values"),
        ((jnp.ones(3), jnp.ones(4)), ValueError, "argument shapes do not broadcast: v (3,), z (4,)"),
        ((np.array(["a"]), 1.0), TypeError, "argument 'v' must be numeric"),
        (([1.0, "a"], 1.0), TypeError, "argument 'v' must be numeric"),
    ],
)
def test_bad_inputs_raise_at_trace_time(args, error, message):
    with pytest.raises(error) as info:
        jv(*args)
    assert "jaxsci.special.jv" in str(info.value) and message in str(info.value)


@pytest.mark.parametrize(
    "args, error, message",
    [
        ((1.0 + 1j, 2.0), TypeError, "argument 'v' does not accept complex values"),
        ((jnp.ones(3), jnp.ones(4)), ValueError, "argument shapes do not broadcast: v (3,), z (4,)"),
    ],
)
def test_bad_inputs_raise_while_tracing_under_jit(args, error, message):
    with pytest.raises(error, match="jaxsci.special.jv") as info:
        jax.jit(jv)(*args)
    assert message in str(info.value)


def test_booleans_promote_like_jax():
    v = jnp.ones(3, dtype=bool)
    assert jv(v, 1.0).dtype == (jnp.zeros(3, dtype=bool) + 1.0).dtype


def _boom_function(qualname="test.boom", scipy="math.factorial"):
    # math.factorial raises TypeError on every float array: a stand-in for a failing SciPy call
    return _core.register(_core.Function(
        qualname=qualname, scipy=scipy,
        args=(_core.Arg("x", "real", differentiable=False, why="test"),),
        outputs=(_core.Output("out"),), vmap_method="expand_dims",
    ))


def _log_raising_at_negatives(x):
    """log, raising for the whole array where any point is negative (as SciPy's vectorised methods do)."""
    if np.any(np.asarray(x) < 0):
        raise ValueError("a negative point")
    return np.log(x)


@pytest.mark.parametrize("jit", [False, True])
def test_a_call_that_raises_at_one_point_is_nan_only_there(jit):
    """SciPy's vectorised methods raise for a whole array when one point fails (ncf.isf's overflow at a
    tiny probability): the core evaluates such a call again in halves, down to the failing points."""
    fn = _boom_function("test.log_at_points", f"{__name__}._log_raising_at_negatives")
    call = (lambda x: _core.call(fn, x))
    x = jnp.array([[1.0, -1.0, 4.0], [2.0, 3.0, -5.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = np.asarray((jax.jit(call) if jit else call)(x))
    expected = np.log(np.where(np.asarray(x) > 0, x, np.nan))
    np.testing.assert_array_equal(out, expected)
    messages = [str(w.message) for w in caught if issubclass(w.category, CallbackWarning)]
    assert messages and all("jaxsci.test.log_at_points: SciPy raised ValueError" in m for m in messages), messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every point fine: no warning, though the whole array raised first
        np.testing.assert_allclose(np.asarray(call(jnp.array([1.0, 2.0]))), np.log([1.0, 2.0]), rtol=1e-15)


def test_a_call_that_raises_everywhere_stops_isolating_points(monkeypatch):
    """A call failing at every point (a wrong static argument, say) isolates at most _MOST_ISOLATED points
    before the rest is NaN: O(log n) calls more than the first, not one per point."""
    from jaxsci._core import host

    calls = []

    def failing(x):
        calls.append(np.size(x))
        raise ValueError("fails everywhere")

    monkeypatch.setattr(host, "_MOST_ISOLATED", 4)
    outputs = [np.empty(4096)]
    host._evaluate_isolating(failing, {}, [np.ones(4096)], outputs)
    assert np.isnan(outputs[0]).all()
    assert len(calls) < 4 * 2 * 13 and calls.count(1) == 4, (len(calls), calls.count(1))


@pytest.mark.parametrize("jit", [False, True])
def test_exception_inside_callback_gives_nan_and_a_warning(jit):
    fn = _boom_function()
    call = (lambda x: _core.call(fn, x))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = (jax.jit(call) if jit else call)(jnp.ones(3))
        out.block_until_ready()
    assert out.shape == (3,) and bool(jnp.all(jnp.isnan(out)))
    messages = [str(w.message) for w in caught if issubclass(w.category, CallbackWarning)]
    assert any("jaxsci.test.boom: SciPy raised TypeError" in m for m in messages), messages
    # the warning points at the user's call (this file), not at jaxsci's host code
    assert {w.filename for w in caught if issubclass(w.category, CallbackWarning)} == {__file__}


def test_errstate_raise_reports_failures_after_the_callbacks_not_inside_them():
    fn = _boom_function()
    jitted = jax.jit(lambda x: _core.call(fn, x))
    with pytest.raises(jaxsci.CallbackError, match=r"1 SciPy call\(s\) failed .*jaxsci.test.boom: SciPy raised TypeError"):
        with jaxsci.errstate("raise"):
            out = jitted(jnp.ones(3)).block_until_ready()
    assert bool(jnp.all(jnp.isnan(out)))  # the computation itself completed, with NaN
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "ignore": neither a warning nor an error
        with jaxsci.errstate("ignore"):
            assert bool(jnp.all(jnp.isnan(jitted(jnp.ones(2)).block_until_ready())))
        with jaxsci.errstate("raise"):  # nothing failed: nothing raised
            jv(1.0, jnp.ones(2)).block_until_ready()
    with warnings.catch_warnings(record=True) as caught:  # after the blocks: warnings again
        warnings.simplefilter("always")
        jitted(jnp.ones(2)).block_until_ready()
    assert any(issubclass(w.category, jaxsci.CallbackWarning) for w in caught)
    with pytest.raises(ValueError, match="mode must be one of"):
        with jaxsci.errstate("loud"):
            pass


def test_errstate_checks_its_mode_when_constructed():
    with pytest.raises(ValueError, match="mode must be one of 'warn', 'ignore', 'raise', got 'bogus'"):
        jaxsci.errstate("bogus")
    state = jaxsci.errstate("ignore")
    with state:
        with pytest.raises(RuntimeError, match="already active"):
            state.__enter__()
    with state:  # again, after it exits
        pass


def test_errstate_is_scoped_to_its_thread():
    import threading

    fn = _boom_function()
    jitted = jax.jit(lambda x: _core.call(fn, x))
    inside, done = threading.Barrier(2), threading.Event()
    results = {}

    def quiet_thread():
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with jaxsci.errstate("raise"):
                    inside.wait()  # the main thread's callbacks run while this block is active
                    jitted(jnp.ones(3)).block_until_ready()
                    done.wait()
        except jaxsci.CallbackError as exc:
            results["raised"] = exc.failures
        results["warned"] = [w for w in caught if issubclass(w.category, CallbackWarning)]

    thread = threading.Thread(target=quiet_thread)
    thread.start()
    inside.wait()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jitted(jnp.ones(2)).block_until_ready()  # this thread has no block: it warns
    done.set()
    thread.join()
    assert any(issubclass(w.category, CallbackWarning) for w in caught)
    assert len(results["raised"]) == 1 and results["warned"] == []  # the other thread's own failure only


def test_scipy_domain_errors_are_nan_like_scipy():
    # SciPy returns NaN (no exception) outside the real domain; so do we, and no warning is needed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jv(0.5, jnp.asarray([-1.0, 1.0]))
    np.testing.assert_array_equal(np.asarray(out), sc.jv(0.5, np.asarray([-1.0, 1.0])))


def test_nan_and_infinities_propagate_like_scipy():
    z = np.array([np.nan, np.inf, -np.inf, 0.0])
    np.testing.assert_array_equal(np.asarray(jv(1.0, jnp.asarray(z))), sc.jv(1.0, z))


def test_empty_and_zero_d_arrays():
    assert jv(1.0, jnp.zeros((0, 3))).shape == (0, 3)
    assert jv(jnp.ones(()), jnp.ones(())).shape == ()


def _count_callbacks(monkeypatch) -> list:
    """Record the functions each host callback evaluates, whichever callback primitive carries it."""
    from jaxsci._core import host

    calls = []
    original = host.run_calls

    def counting(plan, arrays, outputs):
        calls.append(tuple(c[0] for c in plan))
        return original(plan, arrays, outputs)

    monkeypatch.setattr(host, "run_calls", counting)
    jax.clear_caches()
    return calls


def test_one_host_round_trip_per_derivative_order(monkeypatch):
    calls = _count_callbacks(monkeypatch)
    jax.grad(lambda z: jv(1.0, z))(2.0)
    # one callback: jv(v, z) and the neighbour jv(v - 1, z), plus jv(v + 1, 0) for the z = 0 branch
    assert len(calls) == 1 and calls[0] == ("special.jv",) * 3
    calls.clear()
    jax.hessian(lambda z: jv(1.0, z))(2.0)
    assert len(calls) == 1


def test_a_special_point_evaluation_is_made_only_where_its_point_holds(monkeypatch):
    """d/dz jv at z = 0 is (jv(v - 1, 0) - jv(v + 1, 0)) / 2: SciPy sees jv(v + 1, .) at the zeros only."""
    from jaxsci._core import registry

    seen = []
    real_jv = sc.jv

    def counting_jv(v, z, **kwargs):
        seen.append((np.shape(v), np.asarray(v).copy()))
        return real_jv(v, z, **kwargs)

    original = registry.Function.scipy_callable
    monkeypatch.setattr(registry.Function, "scipy_callable",
                        lambda self: counting_jv if self.qualname == "special.jv" else original(self))
    v = jnp.asarray([0.5, 1.5, 2.5, 3.5, 4.5])
    z = jnp.asarray([0.0, 1.0, 2.0, 0.0, 3.0])
    got = jax.vmap(jax.grad(jv, argnums=1))(v, z)
    assert np.allclose(got, sc.jvp(np.asarray(v), np.asarray(z)), rtol=1e-12)
    sizes = sorted(int(np.prod(shape)) for shape, _ in seen)
    # the primal and jv(v - 1, z) over all five elements; jv(v + 1, 0) at the two zeros only
    assert sizes == [2, 5, 5], sizes
    assert any(np.array_equal(values, [1.5, 4.5]) for _, values in seen)


def test_an_evaluation_at_the_functions_own_value_takes_a_second_round_trip(monkeypatch):
    """chndtrix's implicit rule needs the density at x = chndtrix(p, df, nc): ive(df/2 - 1, sqrt(nc x))."""

    from jaxsci.special import chndtrix

    calls = _count_callbacks(monkeypatch)
    p, df, nc = 0.3, 3.0, 2.0
    dp, dnc = jax.grad(chndtrix, argnums=(0, 2))(p, df, nc)
    # the primal first, then both rules' densities in one more callback (ive(df/2 - 1, .) shared), with
    # chndtr at the value for the rules' nan_where (is SciPy's value a root?)
    assert calls == [("special.chndtrix",), ("special.chndtr", "special.ive", "special.ive")]
    h = 1e-5
    assert np.isclose(dp, (sc.chndtrix(p + h, df, nc) - sc.chndtrix(p - h, df, nc)) / (2 * h), rtol=1e-7)
    assert np.isclose(dnc, (sc.chndtrix(p, df, nc + h) - sc.chndtrix(p, df, nc - h)) / (2 * h), rtol=1e-7)


def test_an_optional_argument_left_out_is_left_out_of_scipys_call():
    from jaxsci.special import zeta

    x = jnp.array([-1.5, 0.5, 2.0, 3.5])
    # Riemann zeta, continued to x < 1, where the Hurwitz branch zeta(x, 1) is NaN
    np.testing.assert_array_equal(zeta(x), sc.zeta(np.asarray(x)))
    np.testing.assert_array_equal(jax.jit(zeta)(x), sc.zeta(np.asarray(x)))
    np.testing.assert_array_equal(jax.vmap(zeta)(x), sc.zeta(np.asarray(x)))
    assert np.isnan(sc.zeta(-1.5, 1.0)) and np.isfinite(zeta(-1.5))
    np.testing.assert_allclose(zeta(x[2:], 0.5), sc.zeta(np.asarray(x[2:]), 0.5), rtol=1e-15)
    # d/dq zeta(x, q) = -x zeta(x + 1, q) (DLMF 25.11.17); d/dx by the kernel zeta_dx, for calls that give q
    np.testing.assert_allclose(jax.grad(zeta, argnums=1)(3.0, 0.5), -3.0 * sc.zeta(4.0, 0.5), rtol=1e-14)
    np.testing.assert_allclose(jax.grad(zeta)(3.0, 0.5), 5.27873512618208, rtol=1e-12)  # mpmath.zeta(3, 0.5, 1)
    # without q, Riemann's zeta'(x) (the spec's when_omitted rule, zetac's kernel), also below x = 1
    for x0, ref1, ref2 in ((3.0, -0.19812624288563685, 0.23974691730538718), (-1.5, -0.07630925532055089, -0.12415334379228004)):
        np.testing.assert_allclose(jax.grad(zeta)(x0), ref1, rtol=1e-12)  # mpmath.zeta(x0, 1, 1)
        np.testing.assert_allclose(jax.grad(jax.grad(zeta))(x0), ref2, rtol=1e-10)  # mpmath.zeta(x0, 1, 2)


def test_results_stay_on_the_inputs_device():
    out = run_python("""
        import jax, jax.numpy as jnp
        from jaxsci.special import jv
        devices = jax.devices()
        assert len(devices) == 4, devices
        z = jax.device_put(jnp.linspace(1.0, 2.0, 8), devices[2])
        for f in (jv, jax.jit(jv), jax.vmap(jv, in_axes=(None, 0))):
            y = f(1.0, z)
            assert y.devices() == {devices[2]}, (f, y.devices())
        g = jax.grad(lambda z: jv(1.0, z).sum())(z)
        assert g.devices() == {devices[2]}
        print("ok")
    """, {"XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"})
    assert out.strip() == "ok"


def test_x64_disabled_seed_numbers_and_promotion():
    """The seed's numbers, in float32 with x64 off (the JAX default)."""
    out = run_python("""
        import jax, jax.numpy as jnp, numpy as np
        from jaxsci.special import jv
        assert not jax.config.jax_enable_x64
        g = jax.grad(lambda z: jv(1, z))(2.0)
        h = jax.hessian(lambda z: jv(1, z))(2.0)
        assert g.dtype == h.dtype == jnp.float32
        np.testing.assert_allclose(g, -0.06447162, rtol=1e-6)
        np.testing.assert_allclose(h, -0.4003078, rtol=1e-6)
        assert jv(1, np.float64(2.0)).dtype == jnp.float32   # float64 input is canonicalised, as in JAX
        assert jv(1, np.complex128(2.0)).dtype == jnp.complex64
        print("ok")
    """, {"JAX_ENABLE_X64": "0"})
    assert out.strip() == "ok"


def test_integers_out_of_range_with_x64_off_raise_instead_of_wrapping():
    out = run_python("""
        import jax, numpy as np, pytest, scipy.special as sc
        from jaxsci.special import eval_legendre
        for order in (np.int64(2**32 + 3), np.array([3, -2**40], dtype=np.int64), np.uint64(2**33)):
            # eagerly, and under jit where the value is concrete (an argument of jit itself is converted
            # by JAX before jaxsci sees it: jax.jit wraps np.int64 to int32 silently)
            for call in (eval_legendre, lambda n, x: jax.jit(lambda x: eval_legendre(n, x))(x)):
                with pytest.raises(OverflowError, match="argument 'n' has the value .* does not fit in u?int32 .*would wrap to"):
                    call(order, 0.5)
        with pytest.raises(OverflowError):  # a Python int: JAX's own error
            eval_legendre(2**40, 0.5)
        np.testing.assert_allclose(eval_legendre(np.int64(3), 0.5), sc.eval_legendre(3, 0.5), rtol=1e-6)  # in range: fine
        print("ok")
    """, {"JAX_ENABLE_X64": "0"})
    assert out.strip() == "ok"


def test_x64_can_be_toggled_between_calls():
    out = run_python("""
        import jax, jax.numpy as jnp
        from jaxsci.special import jv
        a = jv(1.0, 2.0)
        jax.config.update("jax_enable_x64", True)
        b = jv(1.0, 2.0)
        jax.config.update("jax_enable_x64", False)
        c = jax.jit(jax.grad(lambda z: jv(1.0, z)))(2.0)
        assert (a.dtype, b.dtype, c.dtype) == (jnp.float32, jnp.float64, jnp.float32), (a.dtype, b.dtype, c.dtype)
        print("ok")
    """, {"JAX_ENABLE_X64": "0"})
    assert out.strip() == "ok"


@pytest.mark.usefixtures("host_path")
def test_every_transform_on_jv():
    """The first thing a user does, in every transformation the README promises."""
    z = jnp.linspace(0.5, 3.0, 4)
    d = sc.jv(0, np.asarray(z)) - sc.jv(1, np.asarray(z)) / np.asarray(z)  # J_1'(z), DLMF 10.6.2
    f = lambda z: jv(1.0, z)
    np.testing.assert_allclose(jax.jit(f)(z), sc.jv(1, np.asarray(z)), rtol=0, atol=0)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(z), d, rtol=1e-13)
    np.testing.assert_allclose(jax.jvp(f, (z,), (jnp.ones_like(z),))[1], d, rtol=1e-13)
    primal, pullback = jax.vjp(f, z)
    np.testing.assert_allclose(pullback(jnp.ones_like(z))[0], d, rtol=1e-13)
    np.testing.assert_allclose(jnp.diag(jax.jacfwd(f)(z)), d, rtol=1e-13)
    np.testing.assert_allclose(jnp.diag(jax.jacrev(f)(z)), d, rtol=1e-13)
    hess = jax.hessian(lambda z: f(z).sum())(z)
    assert hess.shape == (4, 4) and float(jnp.abs(hess - jnp.diag(jnp.diag(hess))).max()) == 0.0
    total, _ = jax.lax.scan(lambda c, x: (c + jax.grad(f)(x), None), 0.0, z)
    np.testing.assert_allclose(total, d.sum(), rtol=1e-13)


@pytest.mark.parametrize("name", ["yn", "kn", "spherical_jn", "spherical_yn", "spherical_in", "spherical_kn"])
def test_float_orders_are_truncated_like_scipy_in_values_and_derivatives(name):
    import jaxsci.special as special

    fn = getattr(special, name)
    kwargs = {"derivative": True} if name.startswith("spherical") else {}
    x = jnp.asarray(1.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy warns that it truncates
        expected_value = getattr(sc, name)(2.5, 1.3, **kwargs)
    assert float(fn(2.5, x, **kwargs)) == expected_value == float(fn(2, x, **kwargs))
    for derivative in (jax.grad, lambda f: jax.grad(jax.grad(f))):
        truncated = derivative(lambda x: fn(2.5, x, **kwargs))(x)
        integer = derivative(lambda x: fn(2, x, **kwargs))(x)
        assert float(truncated) == float(integer)


TRUNCATED_ORDERS = [("yn", {}), ("kn", {}), ("expn", {}), ("spherical_jn", {"derivative": True})]


@pytest.mark.parametrize("name, kwargs", TRUNCATED_ORDERS)
def test_a_tangent_on_a_truncated_order_raises_like_a_floored_argument(name, kwargs):
    """One policy for every argument SciPy floors or truncates: a tangent on it raises, at any order
    (never jnp.trunc's silent zero), as for bdtr's k; the other arguments stay differentiable."""
    import jaxsci.special as special

    fn = getattr(special, name)
    x = jnp.asarray(1.3)
    for transform in (jax.grad, jax.jacfwd, lambda f: jax.grad(jax.grad(f)), jax.hessian):
        with pytest.raises(jaxsci.NonDifferentiableError, match="truncates a float value"):
            transform(lambda n: fn(n, x, **kwargs))(2.7)
    assert np.isfinite(float(jax.grad(lambda x: fn(2.7, x, **kwargs))(x)))
    with pytest.raises(jaxsci.NonDifferentiableError, match="piecewise constant in k"):
        jax.grad(lambda k: special.bdtr(k, 5, 0.3))(2.7)


def test_round_raises_like_a_floored_argument():
    """round is piecewise constant in its only argument: grad(round)(2.3) was a silent 0."""
    from jaxsci.special import round as round_

    for transform in (jax.grad, jax.jacfwd, jax.hessian):
        with pytest.raises(jaxsci.NonDifferentiableError, match="piecewise constant in x"):
            transform(round_)(2.3)
    assert float(jax.grad(lambda x: round_(jax.lax.stop_gradient(x)) + x)(2.3)) == 1.0


@pytest.mark.parametrize("name, rest", [("eval_legendre", (0.3,)), ("eval_chebyt", (0.3,)), ("eval_jacobi", (0.2, 0.4, 0.3))])
def test_a_float_degree_says_why_it_is_not_differentiated(name, rest):
    """A float degree goes to SciPy's float loop, smooth in n: the error says so instead of calling
    the degree an integer."""
    import jaxsci.special as special

    with pytest.raises(jaxsci.NonDifferentiableError, match="float degree goes to SciPy's float loop") as info:
        jax.grad(getattr(special, name))(2.5, *rest)
    assert "integer arguments are not differentiable" not in str(info.value)


def test_jax_export_of_a_jaxsci_function_explains_why_it_cannot_work():
    from jaxsci.special import jv

    argument = jax.ShapeDtypeStruct((3,), jnp.float32)
    # plain jax.export: jaxsci's callback refuses to lower for export, naming the function, on the
    # default device and for every platform (lowered here for the others: the buffer callback on CPU,
    # the pure_callback elsewhere, both when lowered for several)
    for platforms in (None, ["cpu"], ["cuda"], ["rocm"], ["cpu", "cuda"]):
        with pytest.raises(jaxsci.ExportError, match="jaxsci.special.jv: .*cannot serialize a host callback"):
            jax.export.export(jax.jit(lambda z: jv(1.0, z)), platforms=platforms)(argument)
    with pytest.raises(jaxsci.ExportError, match="cannot serialize a host callback.*pass their values in as inputs"):
        jaxsci.export(jax.jit(lambda z: jv(1.0, z)))(argument)
    # without jaxsci calls, jaxsci.export is jax.export.export
    exported = jaxsci.export(jax.jit(lambda z: jnp.sin(z) * 2))(argument)
    np.testing.assert_allclose(exported.call(jnp.ones(3, jnp.float32)), 2 * np.sin(1.0), rtol=1e-6)


@pytest.mark.usefixtures("host_path")
def test_subnormals_are_not_flushed_inside_the_callback():
    # XLA's CPU threads flush subnormals to zero; SciPy must see and return them as it does outside JAX.
    from jaxsci.special import exp10, lambertw

    x = np.float32(-38.0)
    assert sc.exp10(x) != 0 and sc.exp10(x) < np.finfo(np.float32).tiny
    assert jax.jit(exp10)(x) == sc.exp10(x)
    tiny = 3.3277453e-302
    assert jax.jit(lambertw)(tiny, 1) == sc.lambertw(tiny, 1)


@pytest.mark.parametrize("transport", ["auto", "pure"])
@pytest.mark.parametrize("jit", [False, True])
def test_no_host_function_can_write_into_an_operand(transport, jit, monkeypatch):
    # The misuse the generator now rejects (a spec with an extra argument): SciPy's expit(x, y) takes
    # y as its out= and writes into it. The host only ever sees read-only views of the operands, so the
    # write raises, the result is NaN with a warning, and the JAX array y is unchanged.
    fn = _core.register(_core.Function(
        qualname="test.logistic_xy", scipy="scipy.special.expit",
        args=(_core.Arg("x", "real", differentiable=False, why="test"), _core.Arg("y", "real", differentiable=False, why="test")),
        outputs=(_core.Output("out"),), vmap_method="expand_dims",
    ))
    monkeypatch.setattr(jaxsci.config, "callback", transport)
    jax.clear_caches()
    try:
        x, y = jnp.asarray([0.5, 1.0, 2.0]), jnp.asarray([10.0, 20.0, 30.0])
        call = (lambda x, y: _core.call(fn, x, y))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = (jax.jit(call) if jit else call)(x, y).block_until_ready()
        assert np.asarray(y).tolist() == [10.0, 20.0, 30.0] and bool(jnp.all(jnp.isnan(out)))
        messages = [str(w.message) for w in caught if issubclass(w.category, CallbackWarning)]
        assert any("read-only" in m for m in messages), messages
    finally:
        jax.clear_caches()


@pytest.mark.parametrize("name", [pytest.param("stdtr", marks=pytest.mark.slow), "agm"])  # stdtr: 15 s of eager hessians
def test_a_rules_constant_operands_batch_under_vmap(name):
    """stdtr's df-rule and agm's rules evaluate hyp2f1(3/2, ...) with constant parameters: under vmap
    those operands reach the batching rule as Python numbers."""
    import jaxsci.special as js

    f = getattr(js, name)
    a, b = jnp.asarray([1.0, 2.0, 3.5]), jnp.asarray([0.5, 1.0, 2.0])
    for transform in (jax.grad, jax.hessian):
        batched = jax.vmap(transform(f))(a, b)
        single = jax.jit(transform(f))  # compiled once: stdtr's df-rule is long to run op by op
        one_by_one = [single(x, y) for x, y in zip(a, b)]
        np.testing.assert_allclose(batched, one_by_one, rtol=1e-13)


@pytest.mark.usefixtures("host_path")
def test_an_eager_call_compiles_nothing_and_gives_what_the_jitted_call_gives():
    """Outside any trace, concrete operands go to the host directly: a call of a new function and shape
    compiles no XLA computation (binding the callback did, tens of milliseconds each). Under jit the
    same call is compiled and evaluated by the callback, with the same values."""
    from jax._src import monitoring

    compiles = []

    def listener(name, secs, **kwargs):
        if name.endswith("backend_compile_duration"):
            compiles.append(name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        v, z = np.full(19, 1.5), np.linspace(1.0, 2.0, 19)
        eager = jv(v, z)
        assert compiles == []
        assert isinstance(eager, jax.Array) and eager.shape == (19,) and eager.dtype == np.float64
        jitted = jax.jit(jv)(v, z)
        assert compiles, "jit compiles"
    finally:
        monitoring.unregister_event_duration_listener(listener)
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))
    np.testing.assert_array_equal(np.asarray(eager), sc.jv(v, z))
