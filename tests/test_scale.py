"""The buffer callback and its fallback, the thread pool for large inputs, and per-shard evaluation."""
import os
import re
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
from jaxsci._core import host, pure, transport
from jaxsci import CallbackWarning
from jaxsci.special import hyp2f1, jv, lambertw, roots_legendre

CPU_BUFFER_TARGET = "xla_buffer_python_cpu_callback"


@pytest.fixture(params=["buffer", "pure"])
def callback(request, monkeypatch):
    """Run a test once per callback primitive."""
    monkeypatch.setattr(jaxsci.config, "callback", request.param)
    jax.clear_caches()
    yield request.param
    jax.clear_caches()


def _lowered_text(f, *args) -> str:
    """``f`` lowered for a CPU device, whatever JAX's default device is (the buffer callback is the CPU's)."""
    cpu = jax.local_devices(backend="cpu")[0]
    return jax.jit(f).lower(*(jax.device_put(a, cpu) for a in args)).as_text()


def test_the_buffer_callback_is_the_default_on_cpu_and_pure_callback_is_selectable(monkeypatch):
    assert transport.buffer_callback_available()  # on the jax this suite runs with (.ci/run: newest and oldest)
    assert jaxsci.config.callback == "auto"
    z = jnp.linspace(0.5, 2.0, 3)
    assert CPU_BUFFER_TARGET in _lowered_text(lambda z: jv(1.0, z), z)
    monkeypatch.setattr(jaxsci.config, "callback", "pure")
    text = _lowered_text(lambda z: jv(1.0, z), z)
    assert CPU_BUFFER_TARGET not in text and "callback" in text


def test_without_the_buffer_callback_the_core_falls_back_to_pure_callback(monkeypatch):
    monkeypatch.setattr(transport, "_BUFFER_CALLBACK", None)
    z = jnp.linspace(0.5, 2.0, 3)
    assert CPU_BUFFER_TARGET not in _lowered_text(lambda z: jv(1.0, z), z)
    np.testing.assert_array_equal(jax.jit(lambda z: jv(1.0, z))(z), sc.jv(1.0, np.asarray(z)))


@pytest.mark.parametrize("failure", ["build", "lowering"])
def test_a_buffer_callback_that_does_not_work_warns_once_and_falls_back(monkeypatch, failure):
    from jax._src import core

    def broken():
        if failure == "build":
            raise ImportError("jax._src lacks ffi_lowering")
        primitive = core.Primitive("jaxsci_broken_callback")  # no CPU lowering: it fails when lowered
        primitive.multiple_results = True
        primitive.def_abstract_eval(lambda *operands, callback, result_avals, vmap_method: result_avals)
        return primitive

    monkeypatch.setattr(transport, "_buffer_callback_primitive", broken)
    monkeypatch.setattr(transport, "_BUFFER_CALLBACK", transport._UNCHECKED)
    jax.clear_caches()
    z = jnp.linspace(0.5, 2.0, 3)
    try:
        with pytest.warns(jaxsci.TransportWarning, match=rf"does not work with jax {re.escape(jax.__version__)} .*"
                                                         rf"{'cannot be built: ImportError' if failure == 'build' else 'fails to lower'}"):
            np.testing.assert_array_equal(jax.jit(lambda z: jv(1.0, z))(z), sc.jv(1.0, np.asarray(z)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once only
            assert CPU_BUFFER_TARGET not in _lowered_text(lambda z: jv(2.0, z), z)
    finally:
        jax.clear_caches()


@pytest.mark.usefixtures("host_path")
def test_a_pure_callback_primitive_that_cannot_be_built_warns_once_and_calls_jax_pure_callback(monkeypatch):
    def broken():
        raise ImportError("jax._src lacks ffi_lowering")

    monkeypatch.setattr(pure, "_pure_callback_primitive", broken)
    monkeypatch.setattr(pure, "_PRIMITIVE", pure._UNBUILT)
    monkeypatch.setattr(jaxsci.config, "callback", "pure")
    jax.clear_caches()
    z = jnp.linspace(0.5, 2.0, 3)
    try:
        with pytest.warns(jaxsci.TransportWarning, match="pure_callback primitive cannot be built .*ImportError"):
            np.testing.assert_array_equal(jax.jit(lambda z: jv(1.0, z))(z), sc.jv(1.0, np.asarray(z)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once only
            np.testing.assert_array_equal(jax.jit(lambda z: jv(2.0, z))(z), sc.jv(2.0, np.asarray(z)))
        # JAX's own refusal to export its pure_callback becomes jaxsci's ExportError
        with pytest.raises(jaxsci.ExportError, match="through jax.pure_callback, and jax.export cannot serialize"):
            jaxsci.export(jax.jit(lambda z: jv(1.0, z)))(jax.ShapeDtypeStruct((3,), jnp.float64))
    finally:
        jax.clear_caches()


def test_an_unused_result_makes_no_callback(monkeypatch):
    calls = []
    original = host.run_calls
    monkeypatch.setattr(host, "run_calls", lambda c, a, o: (calls.append(c), original(c, a, o))[1])
    out = jax.jit(lambda z: (jv(1.0, z), z + 1)[1])(jnp.ones(3))
    out.block_until_ready()
    assert calls == []


@pytest.mark.usefixtures("host_path")
def test_both_callbacks_give_scipys_values_under_every_transform(callback):
    v, z = np.array([[0.5], [1.0], [2.5]]), np.linspace(0.5, 3.0, 4)[None, :]
    expected = sc.jv(v, z)
    for f in (jv, jax.jit(jv), jax.vmap(jv), jax.vmap(jax.vmap(jv))):
        np.testing.assert_array_equal(f(jnp.broadcast_to(v, (3, 4)), jnp.broadcast_to(z, (3, 4))), expected)
    np.testing.assert_array_equal(jax.jit(jv)(v, z), expected)
    np.testing.assert_array_equal(jax.vmap(jv, in_axes=(0, None))(v[:, 0], z[0]), expected)
    a, b, c, x = 0.5, np.array([[1.0], [2.0]]), 3.0, np.linspace(-0.5, 0.5, 4)
    np.testing.assert_array_equal(jax.jit(hyp2f1)(a, b, c, x), sc.hyp2f1(a, b, c, x))
    w = jnp.asarray([0.5, 2.0, -0.2])
    np.testing.assert_array_equal(jax.jit(lambda w: lambertw(w, 1))(w), sc.lambertw(np.asarray(w), 1))
    nodes, weights = jax.jit(roots_legendre, static_argnums=0)(5)
    expected_nodes, expected_weights = sc.roots_legendre(5)
    np.testing.assert_array_equal(nodes, expected_nodes)
    np.testing.assert_array_equal(weights, expected_weights)
    d = sc.jv(0, z[0]) - sc.jv(1, z[0]) / z[0]  # J_1'(z), DLMF 10.6.2
    np.testing.assert_allclose(jax.vmap(jax.grad(lambda z: jv(1.0, z)))(jnp.asarray(z[0])), d, rtol=1e-13)
    second = jax.vmap(jax.hessian(lambda z: jv(1.0, z)))(jnp.asarray(z[0]))
    # Bessel's equation: z^2 J'' + z J' + (z^2 - 1) J = 0 (DLMF 10.2.1)
    j = sc.jv(1, z[0])
    np.testing.assert_allclose(second, -(z[0] * d + (z[0] ** 2 - 1) * j) / z[0] ** 2, rtol=1e-12)


def test_both_callbacks_turn_an_exception_into_nan_and_a_warning(callback):
    boom = jaxsci._core.register(jaxsci._core.Function(
        qualname=f"test.boom_{callback}", scipy="math.sqrt",
        args=(jaxsci._core.Arg("x", "real", differentiable=False, why="test"),),
        outputs=(jaxsci._core.Output("out"),), vmap_method="expand_dims",
    ))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = jax.jit(lambda x: jaxsci._core.call(boom, x))(jnp.ones((2, 3)))
        out.block_until_ready()
    assert out.shape == (2, 3) and bool(jnp.all(jnp.isnan(out)))
    assert any(f"test.boom_{callback}: SciPy raised TypeError" in str(w.message)
               for w in caught if issubclass(w.category, CallbackWarning))


@pytest.mark.parametrize("platform", ["cpu", "cuda"])
def test_jaxsci_export_explains_itself_with_either_callback(callback, platform):
    argument = jax.ShapeDtypeStruct((3,), jnp.float64)
    # the message names the transport actually in use on the platform: the buffer callback is the CPU's;
    # on CUDA, jv's device kernel where it passed the gate and CuPy is installed (templates/runtime/device.py)
    from jaxsci._core import device

    on_device = platform == "cuda" and device.offloads((("special.jv", (), (0, 1), ("float64",), None, ()),), "cuda")
    used = ("XLA's GPU buffer callback" if on_device else
            "XLA's buffer callback" if callback == "buffer" and platform == "cpu" else "jax.pure_callback")
    with pytest.raises(jaxsci.ExportError, match=f"through {re.escape(used)}, and jax.export cannot serialize a host callback"):
        jaxsci.export(jax.jit(lambda z: jv(1.0, z)), platforms=[platform])(argument)


# --- the thread pool ---------------------------------------------------------------------------

@pytest.fixture
def small_chunks(monkeypatch):
    """Split even small inputs, so the tests exercise the pool without large arrays."""
    monkeypatch.setattr(jaxsci.config, "num_threads", 4)
    monkeypatch.setattr(jaxsci.config, "parallel_min_size", 5)


@pytest.mark.usefixtures("host_path")
def test_inputs_split_across_threads_give_scipys_values_bit_for_bit(small_chunks, monkeypatch):
    threads = set()
    original = host._evaluate_into

    def recording(function, statics, arguments, outputs, **options):
        import threading

        threads.add(threading.current_thread().name)
        return original(function, statics, arguments, outputs, **options)

    monkeypatch.setattr(host, "_evaluate_into", recording)
    v = np.linspace(0, 3, 7)[:, None]
    z = np.linspace(0.1, 20, 40)[None, :]
    np.testing.assert_array_equal(jax.jit(jv)(v, z), sc.jv(v, z))  # split along the longer axis, z's
    np.testing.assert_array_equal(jax.jit(jv)(z.T, v.T), sc.jv(z.T, v.T))  # and along axis 0
    b = np.linspace(0.5, 2, 33)
    np.testing.assert_array_equal(jax.jit(hyp2f1)(0.5, b, 3.0, 0.25), sc.hyp2f1(0.5, b, 3.0, 0.25))
    # a function of static arguments only is not elementwise, and is never split
    for ours, theirs in zip(roots_legendre(12), sc.roots_legendre(12)):
        np.testing.assert_array_equal(ours, theirs)
    assert len(threads) > 1 and any(name.startswith("jaxsci") for name in threads)


@pytest.mark.usefixtures("host_path")
def test_a_failure_in_one_thread_is_nan_only_where_it_fails(small_chunks, monkeypatch):
    """A piece that raises in a pool thread is caught there, and the call is evaluated again in halves
    (host._evaluate_isolating): NaN only at the failing point, with a warning naming the failure."""
    original_into, original_whole = host._evaluate_into, host._evaluate_whole

    def failing_at_20(original):
        def evaluate(function, statics, arguments, outputs, **options):
            if (np.asarray(arguments[-1]) == 20.0).any():
                raise ArithmeticError("injected")
            return original(function, statics, arguments, outputs, **options)
        return evaluate

    monkeypatch.setattr(host, "_evaluate_into", failing_at_20(original_into))
    monkeypatch.setattr(host, "_evaluate_whole", failing_at_20(original_whole))
    z = np.linspace(0.1, 20, 40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = np.asarray(jax.jit(lambda z: jv(1.0, z))(jnp.asarray(z)))
    np.testing.assert_allclose(out[:-1], sc.jv(1.0, z[:-1]), rtol=1e-14)
    assert np.isnan(out[-1])
    assert any("ArithmeticError: injected" in str(w.message) for w in caught)


def test_pieces_follow_the_longest_axis_and_the_minimum_size(monkeypatch):
    monkeypatch.setattr(jaxsci.config, "parallel_min_size", 10)
    assert host._chunks((), 4) is None
    assert host._chunks((19,), 4) is None  # two pieces would be smaller than the minimum
    assert host._chunks((20,), 4) == (0, [(0, 10), (10, 20)])
    assert host._chunks((3, 100), 4) == (1, [(0, 25), (25, 50), (50, 75), (75, 100)])
    assert host._chunks((100, 2), 1) is None


def test_kernels_run_in_blocks_with_the_values_of_one_call(monkeypatch):
    # jaxsci's numpy kernels hold temporaries for every element they are given: the host gives them
    # blocks of host._BLOCK elements (here 4), along the longest axis, in each thread's piece
    from jaxsci._core.kernels.bessel import jv_dv

    sizes = []
    original = host._evaluate_whole

    def recording(function, statics, arguments, outputs):
        sizes.append(outputs[0].size)
        return original(function, statics, arguments, outputs)

    monkeypatch.setattr(host, "_BLOCK", 4)
    monkeypatch.setattr(host, "_evaluate_whole", recording)
    v, z = np.broadcast_arrays(np.linspace(0.5, 3, 3)[:, None], np.linspace(0.5, 20, 7)[None, :])
    ours = jax.jit(jax.grad(lambda v: jv(v, z).sum()))(v)
    operands = [np.asarray(a, ours.dtype) for a in (v, z)]
    np.testing.assert_array_equal(ours, jv_dv(*operands).astype(ours.dtype))
    assert sizes == [3] * 7  # jv_dv's blocks; jv itself, a ufunc, writes in place
    assert host._blocks([v, z], [np.empty((3, 7))]) == (1, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)])
    assert host._blocks([z], [np.empty((1, 4))]) is None  # no larger than one block
    # a function that is not elementwise (a reduction with SciPy's own code) is given its whole input
    sizes.clear()
    monkeypatch.setattr(jaxsci.config, "native", False)
    jax.clear_caches()
    try:
        a = np.linspace(-2, 2, 12).reshape(3, 4)
        np.testing.assert_allclose(jax.jit(lambda a: jaxsci.special.logsumexp(a, axis=1))(a), sc.logsumexp(a, axis=1), rtol=1e-6)
        assert sizes == [3]
    finally:
        jax.clear_caches()


def test_concurrent_callbacks_share_the_configured_threads(monkeypatch):
    monkeypatch.setattr(jaxsci.config, "num_threads", 4)
    pool = host._Threads()
    assert pool.enter() == 4
    assert pool.enter() == 2  # a second callback running at once: the threads are shared
    assert pool.enter() == 1
    pool.leave(), pool.leave()
    assert pool.enter() == 2
    pool.leave(), pool.leave()


def test_the_configuration_is_validated_and_read_from_the_environment():
    with pytest.raises(ValueError, match="callback must be one of"):
        jaxsci.config.callback = "fast"
    with pytest.raises(ValueError, match="num_threads must be a positive int"):
        jaxsci.config.num_threads = 0
    with pytest.raises(AttributeError, match="no setting 'threads'"):
        jaxsci.config.threads = 2
    env = dict(os.environ, JAXSCI_CALLBACK="pure", JAXSCI_NUM_THREADS="3", JAXSCI_NATIVE="off")
    out = subprocess.run([sys.executable, "-c", "import jaxsci; print(jaxsci.config)"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert "callback='pure', num_threads=3" in out.stdout and "native=False" in out.stdout, out.stderr
    env["JAXSCI_NUM_THREADS"] = "many"
    out = subprocess.run([sys.executable, "-c", "import jaxsci"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0 and "JAXSCI_NUM_THREADS='many'" in out.stderr


# --- sharded inputs ------------------------------------------------------------------------------

_SHARDED = """
import os, sys, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import jax, jax.numpy as jnp, numpy as np, scipy.special as sc
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
jax.config.update("jax_enable_x64", True)
from jaxsci.special import jv, hyp2f1, roots_legendre
from jaxsci._core import host

seen = []
original = host.run_calls
host.run_calls = lambda c, a, o: (seen.append(o[0].shape), original(c, a, o))[1]
N, REPEATS = {n}, {repeats}
for axis_type in (AxisType.Explicit, AxisType.Auto):
    mesh = jax.make_mesh((4,), ("d",), axis_types=(axis_type,))
    x = jax.device_put(jnp.linspace(0.1, 30.0, N), NamedSharding(mesh, P("d")))
    xn = np.asarray(x)
    f = jax.jit(lambda x: jv(1.5, x))
    for _ in range(REPEATS):
        seen.clear()
        y = f(x)
        y.block_until_ready()
        assert y.sharding.spec == P("d"), y.sharding
        assert seen and set(seen) == {{(N // 4, 1)}}, seen  # every device evaluated its own shard only
        np.testing.assert_array_equal(np.asarray(y), sc.jv(1.5, xn))
    # inside the user's own shard_map, each shard's callback runs on its own shard as well
    seen.clear()
    m = jax.jit(jax.shard_map(lambda x: jv(1.5, x), mesh=mesh, in_specs=P("d"), out_specs=P("d")))(x)
    np.testing.assert_array_equal(np.asarray(m), sc.jv(1.5, xn))
    assert set(seen) == {{(N // 4,)}}, seen
    g = jax.jit(jax.vmap(jax.grad(lambda x: jv(1.5, x))))(x)
    assert g.sharding.spec == P("d"), g.sharding
    np.testing.assert_allclose(np.asarray(g), sc.jvp(1.5, xn), rtol=1e-9, atol=1e-300)
    # two mesh axes, several arguments, a broadcast one among them
    mesh2 = jax.make_mesh((2, 2), ("a", "b"), axis_types=(axis_type, axis_type))
    b = jax.device_put(jnp.linspace(0.5, 2.0, 8)[:, None] * jnp.ones((8, 6)), NamedSharding(mesh2, P("a", "b")))
    z = jnp.linspace(-0.5, 0.5, 6)
    seen.clear()
    h = jax.jit(lambda b, z: hyp2f1(0.5, b, 3.0, z))(b, z)
    h.block_until_ready()  # dispatch is asynchronous: until then the callbacks may not have run (or appended)
    assert h.sharding.spec == P("a", "b"), h.sharding
    assert set(seen) == {{(4, 3, 1)}}, seen
    np.testing.assert_array_equal(np.asarray(h), sc.hyp2f1(0.5, np.asarray(b), 3.0, np.asarray(z)))
# a function of static arguments only is computed whole, whatever sharding its result is given
mesh = jax.make_mesh((4,), ("d",))
nodes = jax.jit(lambda: roots_legendre(8)[0], out_shardings=NamedSharding(mesh, P("d")))()
np.testing.assert_array_equal(np.asarray(nodes), sc.roots_legendre(8)[0])
print("ok")
"""


def _run_sharded(n: int, repeats: int, timeout: int):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(_SHARDED.format(n=n, repeats=repeats))],
                            capture_output=True, text=True, timeout=timeout, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-4000:]
    assert "rematerialization" not in result.stderr, result.stderr[-4000:]


def test_sharded_inputs_are_evaluated_where_each_shard_lives():
    _run_sharded(n=4096, repeats=3, timeout=300)


def test_the_pure_callback_is_split_per_shard_on_every_platform():
    """With pure_callback (the GPU's transport, forced here), an elementwise call under jit over a mesh
    is lowered to one call per shard, never pinned to one device: for the CPU, and for CUDA (lowered here
    for it). tests/test_distributed.py runs the CPU's, in two processes."""
    from test_core import run_python

    out = run_python("""
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        import jaxsci
        from jaxsci.special import jv
        jaxsci.config.callback = "pure"
        jaxsci.config.device_kernels = False  # jv's CUDA kernel would take the CUDA lowering (test_device)
        x = jax.device_put(jnp.linspace(1.0, 2.0, 8), NamedSharding(jax.make_mesh((4,), ("d",)), P("d")))
        for platform, target in (("cpu", "xla_ffi_python_cpu_callback"), ("cuda", "xla_ffi_python_gpu_callback")):
            text = jax.jit(lambda z: jv(1.0, z)).trace(x).lower(lowering_platforms=(platform,)).as_text()
            calls = [line for line in text.splitlines() if "stablehlo.custom_call" in line]
            assert len(calls) == 1 and f"@{target}(" in calls[0] and 'num_batch_dims = "1"' in calls[0], calls
        print("ok")
    """, {"XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"})
    assert out.strip() == "ok"


@pytest.mark.slow
def test_sharded_stress_never_hangs():
    """20 sharded calls at N = 10^6 with each mesh axis type; a hang fails on the hard timeout."""
    _run_sharded(n=1_000_000, repeats=20, timeout=600)
