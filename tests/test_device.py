"""The accelerator path (templates/runtime/device.py): the spec grammar, the kernel table, where each call
of a plan goes, the CUDA lowering (checked on any machine by JAX's cross-platform lowering), the NVRTC
compile of every xsf kernel (where NVRTC is installed), and, on a GPU, the device values."""
from __future__ import annotations

import importlib.util
import re
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxsci
from generator import ROOT
from generator import device as device_spec
from generator.errors import SpecError
from generator.loader import parse_spec
from generator.render import device_rows
from jaxsci._core import device
from jaxsci.special import gammainc, jv

import specdata

SPECS = [s for s in specdata.SPECS if s.device is not None]  # loaded once per test process

BASE = textwrap.dedent("""\
    name: demo
    scipy: scipy.special.gammainc
    summary: demo.
    args:
      - {name: a, kind: real}
      - {name: x, kind: real}
    derivatives:
      a: {formula: "gammainc_da(a, x)", source: kernel}
      x: {formula: "exp((a - 1) * log(x) - x - gammaln(a))", source: DLMF 8.2.4}
    reference:
      mpmath: gammainc(a, 0, x, regularized=True)
    tests:
      domain: {a: [0.5, 12], x: [0.01, 20]}
    """)
TOLERANCE = "  tolerance:\n    float64: {rtol: 1.0e-12, atol: 0.0}\n    float32: {rtol: 2.0e-7, atol: 0.0}\n"


def _parse(device_block: str):
    return parse_spec(BASE + device_block, "specs/special/demo.yaml", module="special", stem="demo")


@pytest.mark.parametrize("block, message", [
    ("device:\n" + TOLERANCE, "names no kernel"),
    ("device:\n  cupy: numpy.sin\n" + TOLERANCE, "device.cupy must be a dotted name"),
    ("device:\n  cupy: cupyx.scipy.special.gammainc\n  xsf: {header: gamma.h, expression: 'xsf::gammainc(a, x)'}\n"
     + TOLERANCE, "more than one CUDA kernel"),
    ("device:\n  xsf: {header: gamma.h, expression: 'xsf::gammainc(a)'}\n" + TOLERANCE, "each argument once"),
    ("device:\n  xsf: {header: ../gamma.h, expression: 'xsf::gammainc(a, x)'}\n" + TOLERANCE, "a header under cupy/xsf/"),
    ("device:\n  cupy: cupyx.scipy.special.gammainc\n", "missing required key 'tolerance'"),
    ("device:\n  cupy: cupyx.scipy.special.gammainc\n  speed: fast\n" + TOLERANCE, "unknown key 'speed' in device"),
])
def test_a_malformed_device_key_is_an_error_naming_the_line(block, message):
    with pytest.raises(SpecError, match=re.escape(message)) as info:
        _parse(block)
    assert "specs/special/demo.yaml:" in str(info.value)


def test_a_device_key_is_parsed():
    spec = _parse("device:\n  xsf: {header: gamma.h, expression: 'xsf::gammainc(a,  x)'}\n  jax: jax.lax.igamma\n" + TOLERANCE)
    assert [(k.kind, k.target, k.header) for k in spec.device.kernels] == [
        ("xsf", "xsf::gammainc(a, x)", "gamma.h"), ("jax", "jax.lax.igamma", None)]
    assert spec.device.tolerance["float64"].rtol == 1e-12


def _gate(kernels: dict) -> dict:
    measured = {"points": 10, "max_rel": 1e-15, "p999_rel": 1e-16, "pattern_mismatches": 0,
                "edges": {"points": 121, "mismatches": 0, "max_excess": 0.0}}
    return {"measured_on": "test", "kernels": {
        q: {kind: {d: {**measured, "max_excess": excess} for d, excess in by_dtype.items()}
            for kind, by_dtype in by_kind.items()} for q, by_kind in kernels.items()}}


def test_a_kernel_is_used_only_where_it_agrees_with_scipy_at_the_edges():
    spec = _parse("device:\n  cupy: cupyx.scipy.special.gammainc\n" + TOLERANCE)
    measured = {"points": 10, "max_rel": 1e-15, "p999_rel": 1e-16, "pattern_mismatches": 0, "max_excess": 0.1}
    def gate(edges):
        entry = {d: {**measured, **({"edges": edges} if edges is not None else {})} for d in ("float64", "float32")}
        return {"measured_on": "test", "kernels": {"special.demo": {"cupy": entry}}}
    kernel = spec.device.kernels[0]
    assert device_spec.verdict(spec, kernel, gate(None))[0] == ()
    assert "edge inputs not measured" in device_spec.verdict(spec, kernel, gate(None))[1]
    used, text = device_spec.verdict(spec, kernel, gate({"points": 121, "mismatches": 3, "max_excess": 9.0}))
    assert used == () and "3 of 121 edge inputs" in text
    assert set(device_spec.verdict(spec, kernel, gate({"points": 121, "mismatches": 0, "max_excess": 0.5}))[0]) == {
        "float64", "float32"}


def test_the_gate_decides_which_dtypes_a_kernel_serves():
    spec = _parse("device:\n  cupy: cupyx.scipy.special.gammainc\n  jax: jax.scipy.special.gammainc\n" + TOLERANCE)
    gate = _gate({"special.demo": {"cupy": {"float64": 0.5, "float32": 0.9}, "jax": {"float64": 0.1, "float32": 40.0}}})
    rows = {r["kind"]: r for r in device_rows([spec], gate)}
    assert set(rows["cupy"]["used"]) == {"float64", "float32"}
    assert rows["jax"]["used"] == ("float64",) and "> rtol" in rows["jax"]["measured"]
    assert device_rows([spec], {"measured_on": None, "kernels": {}})[0]["used"] == ()
    failed = {"measured_on": "x", "kernels": {"special.demo": {"cupy": {"error": "CompileException: ..."}}}}
    assert "failed on the GPU" in device_spec.verdict(spec, spec.device.kernels[0], failed)[1]


def test_the_generated_kernel_table_lists_every_kernel_of_every_spec():
    table = device.kernel_table()
    expected = {(f"{s.module}.{s.name}", k.kind) for s in SPECS for k in s.device.kernels}
    assert set(table) == expected
    gate = device_spec.load_gate(ROOT / "specs")
    for row in device_rows(SPECS, gate):
        assert table[(row["qualname"], row["kind"])] == (row["target"], row["header"], row["used"])


@pytest.fixture
def every_kernel_passed(monkeypatch):
    """As on a GPU whose gate passed every kernel in both dtypes, with CuPy installed."""
    table = {key: (target, header, ("float64", "float32")) for key, (target, header, _) in device.kernel_table().items()}
    monkeypatch.setattr(device, "kernel_table", lambda: table)
    monkeypatch.setattr(device, "cupy_importable", lambda: True)
    monkeypatch.setattr(device, "accelerators", lambda: device.ACCELERATORS)
    jax.clear_caches()
    yield table
    jax.clear_caches()


def _call(qualname, dtype="float64", where=()):
    return (qualname, (), (0, 1), (dtype,), None, where)


def test_a_machine_without_accelerators_traces_no_accelerator_branch():
    import jax._src.xla_bridge  # noqa: F401

    if any(d.platform != "cpu" for d in jax.devices()):
        pytest.skip("this machine has an accelerator")
    assert device.accelerators() == ()
    assert device.placement((_call("special.gammainc"),), "cuda") == ((device.HOST, None),)
    assert device.accelerated_branches((_call("special.gammainc"),), (), None, None) == {}


def test_placement_follows_the_table_the_platform_and_the_settings(every_kernel_passed, monkeypatch):
    assert device.placement((_call("special.gammainc"),), "cuda")[0][0] == device.CUDA
    assert device.placement((_call("special.gammainc"),), "tpu")[0] == (device.NATIVE, ("jax", "jax.scipy.special.gammainc", None))
    assert device.placement((_call("special.gammainc"),), "cpu")[0][0] == device.HOST
    assert device.placement((_call("kernels.gammainc_da"),), "cuda")[0][0] == device.NATIVE
    assert device.placement((_call("special.jv", where=((1, 0.0),)),), "cuda")[0][0] == device.CUDA
    assert device.placement((_call("special.hyp2f1"),), "cuda")[0][0] == device.HOST  # no kernel
    assert device.placement((_call("special.gammainc", "complex128"),), "cuda")[0][0] == device.HOST
    with_statics = ("special.gammainc", (("k", 1),), (0, 1), ("float64",), None, ())
    assert device.placement((with_statics,), "cuda")[0][0] == device.HOST
    monkeypatch.setattr(device, "cupy_importable", lambda: False)  # no CuPy: XLA kernels only
    assert device.placement((_call("special.gammainc"), _call("special.jv")), "cuda") == (
        (device.NATIVE, ("jax", "jax.scipy.special.gammainc", None)), (device.HOST, None))
    monkeypatch.setattr(jaxsci.config, "device_kernels", False)
    assert device.placement((_call("special.gammainc"),), "cuda")[0][0] == device.HOST


def test_a_kernel_serves_only_the_dtypes_it_passed_in(every_kernel_passed, monkeypatch):
    target, header, _ = every_kernel_passed[("special.gammainc", "cupy")]
    every_kernel_passed[("special.gammainc", "cupy")] = (target, header, ("float64",))
    assert device.placement((_call("special.gammainc", "float32"),), "cuda")[0] == (
        device.NATIVE, ("jax", "jax.scipy.special.gammainc", None))
    assert device.placement((_call("special.gammainc", "float64"),), "cuda")[0][0] == device.CUDA


def _targets(fn, *args) -> list:
    text = jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",)).as_text()
    return re.findall(r"custom_call @(\w+)", text)


X = jnp.linspace(0.5, 3.0, 6)


# gammainc's x-derivative is the host kernel gamma_density (accurate at large a, with no device kernel
# yet): its gradient in x is not among these
@pytest.mark.parametrize("fn", [
    lambda a, x: gammainc(a, x),
    lambda a, x: jv(a, x),
    lambda a, x: jax.vmap(jax.grad(jv, 1))(a, x),
    lambda a, x: jax.hessian(lambda t: jv(2.5, t).sum())(x),
], ids=["gammainc", "jv", "grad-z-jv", "hessian-jv"])
def test_plans_with_device_kernels_lower_to_the_gpu_buffer_callback_and_nothing_else(every_kernel_passed, fn):
    targets = _targets(fn, X, X)
    assert targets and set(targets) == {device.GPU_TARGET}, targets


def test_a_parameter_gradient_uses_the_xla_kernel_and_the_cuda_kernel(every_kernel_passed):
    """gammainc's value runs in the GPU callback; its derivative kernel gammainc_da runs inline as XLA's
    igamma_grad_a (expanded into lgamma and digamma series), so the callback returns the value alone."""
    text = jax.jit(jax.vmap(jax.grad(gammainc))).trace(X, X).lower(lowering_platforms=("cuda",)).as_text()
    calls = [line for line in text.splitlines() if "stablehlo.custom_call" in line]
    assert len(calls) == 1 and f"@{device.GPU_TARGET}(" in calls[0], calls
    assert calls[0].rstrip().endswith("-> tensor<6xf64>"), calls[0]  # one result: gammainc, not gammainc_da
    assert "chlo.digamma" in text


def test_a_sharded_call_is_split_per_shard_on_several_gpus():
    """Lowered for CUDA over a mesh of four devices, the device kernels' custom call is batch-partitionable
    as the CPU's is (transport's per-shard lowering): each GPU evaluates its own shard."""
    from test_core import run_python

    out = run_python("""
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        from jaxsci._core import device
        from jaxsci.special import gammainc
        table = {key: (target, header, ("float64", "float32")) for key, (target, header, _) in device.kernel_table().items()}
        device.kernel_table = lambda: table
        device.cupy_importable = lambda: True
        device.accelerators = lambda: device.ACCELERATORS
        x = jax.device_put(jnp.linspace(1.0, 2.0, 8), NamedSharding(jax.make_mesh((4,), ("d",)), P("d")))
        text = jax.jit(lambda z: gammainc(2.0, z)).trace(x).lower(lowering_platforms=("cuda",)).as_text()
        calls = [line for line in text.splitlines() if "stablehlo.custom_call" in line]
        assert len(calls) == 1 and "@xla_buffer_python_gpu_callback(" in calls[0] and 'num_batch_dims = "1"' in calls[0], calls
        print("ok")
    """, {"XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"})
    assert out.strip() == "ok"


def test_without_device_kernels_the_cpu_lowering_is_unchanged(every_kernel_passed, monkeypatch):
    with_kernels = jax.jit(gammainc).trace(X, X).lower(lowering_platforms=("cpu",)).as_text()
    assert device.GPU_TARGET not in with_kernels
    monkeypatch.setattr(jaxsci.config, "device_kernels", False)
    jax.clear_caches()
    assert device.accelerated_branches(((_call("special.gammainc")),), (), None, None) == {}


def test_cpu_values_are_scipys_with_device_kernels_enabled(every_kernel_passed):
    import scipy.special as sc

    a, x = np.array([0.5, 2.0, 7.5]), np.array([0.1, 1.0, 20.0])
    with jax.default_device(jax.devices("cpu")[0]):
        np.testing.assert_array_equal(np.asarray(jax.jit(gammainc)(a, x)), sc.gammainc(a, x))
        np.testing.assert_array_equal(np.asarray(gammainc(a, x)), sc.gammainc(a, x))


def test_a_platform_branch_runs_xla_kernels_inline_and_the_rest_on_the_host():
    """The branch an accelerator gets (device._branch), run here on the CPU: XLA kernels inline, host
    calls in one callback, outputs in the plan's order, a special-point call masked to its points."""
    import scipy.special as sc

    from jaxsci._core import transport

    a, x = jnp.array([0.5, 2.0, 7.5, 3.0]), jnp.array([0.1, 1.0, 20.0, 0.0])
    calls = (("special.gammainc", (), (0, 1), ("float64",), None, ()),
             ("special.gammaln", (), (0,), ("float64",), None, ()),
             ("kernels.gammainc_da", (), (0, 1), ("float64",), None, ()),
             ("special.gammaincc", (), (0, 1), ("float64",), None, ((1, 0.0),)))
    types = tuple(jax.ShapeDtypeStruct((4,), jnp.float64) for _ in calls)
    placed = ((device.NATIVE, ("jax", "jax.scipy.special.gammainc", None)), (device.HOST, None),
              (device.NATIVE, ("jax", "jax.lax.igamma_grad_a", None)),
              (device.NATIVE, ("jax", "jax.scipy.special.gammaincc", None)))
    seen = []

    def host(host_calls, result_types, *operands):
        seen.append(tuple(c[0] for c in host_calls))
        return tuple(jax.pure_callback(transport._pure_function(host_calls), result_types, *operands,
                                       vmap_method="expand_dims"))

    values, logs, da, special = jax.jit(lambda *ops: device._branch(calls, types, placed, host, None, *ops))(a, x)
    assert seen == [("special.gammaln",)]
    np.testing.assert_allclose(values, sc.gammainc(a, x), rtol=1e-12)
    np.testing.assert_array_equal(logs, sc.gammaln(a))
    from jaxsci.kernels import gammainc_da

    np.testing.assert_allclose(da, np.asarray(gammainc_da(a, x)), rtol=1e-9, atol=1e-300)
    np.testing.assert_array_equal(special, np.where(np.asarray(x) == 0.0, sc.gammaincc(a, 0.0), 0.0))


# ---- the GPU callback itself, with numpy standing in for CuPy ----------------------------------------
class _Buffer:
    """What XLA hands the callback: a device buffer exposing the CUDA array interface."""

    def __init__(self, array):
        self.array = array

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.array.shape, "typestr": self.array.dtype.str, "data": (self.array.ctypes.data, False),
                "version": 2}


class _FakeCupy:
    """The parts of CuPy the callback uses, over numpy arrays; records the device and stream it was given."""

    float64 = np.float64

    def __init__(self, stream_fails=False):
        import contextlib
        import types

        self.seen = []
        self.synchronized = 0

        @contextlib.contextmanager
        def on_device(index):
            self.seen.append(("device", index))
            yield

        def from_external(stream):
            if stream_fails:
                raise RuntimeError("no stream")
            self.seen.append(("stream", stream.__cuda_stream__()))
            return contextlib.nullcontext()

        def synchronize():
            self.synchronized += 1

        self.cuda = types.SimpleNamespace(
            Device=on_device, Stream=types.SimpleNamespace(from_external=from_external),
            runtime=types.SimpleNamespace(pointerGetAttributes=lambda pointer: types.SimpleNamespace(device=3),
                                          getDevice=lambda: 0, deviceSynchronize=synchronize))

    @staticmethod
    def asarray(buffer):
        return buffer.array


@pytest.fixture
def fake_cupy(monkeypatch):
    """CuPy's kernels replaced by SciPy's ufuncs on numpy arrays (same signature, ``out=`` included)."""
    import scipy.special as sc

    cupy = _FakeCupy()
    monkeypatch.setattr(device, "_cupy", lambda: cupy)
    monkeypatch.setattr(device, "_resolve", lambda target: getattr(sc, target.rsplit(".", 1)[1]))
    monkeypatch.setattr(device, "_KERNELS", {})
    return cupy


def _device_run(calls, inputs, outputs, stream=0xC0FFEE):
    import types

    device.run_on_device(device.DeviceCalls(calls), types.SimpleNamespace(stream=stream),
                         [_Buffer(o) for o in outputs], *(_Buffer(i) for i in inputs))


def test_the_gpu_callback_runs_each_kernel_on_xlas_buffers_device_and_stream(fake_cupy):
    import scipy.special as sc

    a, x = np.array([0.5, 2.0, 7.5]), np.array([0.1, 1.0, 20.0])
    values, density, single = np.empty(3), np.empty(3), np.empty(3, np.float32)
    _device_run((("special.gammainc", "cupy", "cupyx.scipy.special.gammainc", None, (0, 1), 1),
                 ("special.gammaln", "cupy", "cupyx.scipy.special.gammaln", None, (0,), 1),
                 ("special.gammaincc", "cupy", "cupyx.scipy.special.gammaincc", None, (0, 1), 1)),
                [a, x], [values, density, single])
    np.testing.assert_array_equal(values, sc.gammainc(a, x))
    np.testing.assert_array_equal(density, sc.gammaln(a))
    np.testing.assert_array_equal(single, sc.gammaincc(a, x).astype(np.float32))  # float64, rounded once
    assert fake_cupy.seen == [("device", 3), ("stream", (0, 0xC0FFEE))]


def test_a_failing_kernel_gives_nan_and_a_warning_and_spares_the_others(fake_cupy):
    a = np.array([0.5, 2.0])
    broken, fine = np.zeros(2), np.zeros(2)
    with pytest.warns(jaxsci.CallbackWarning, match="no_such_function"):
        _device_run((("special.no_such_function", "cupy", "cupyx.scipy.special.no_such_function", None, (0,), 1),
                     ("special.gammaln", "cupy", "cupyx.scipy.special.gammaln", None, (0,), 1)), [a], [broken, fine])
    assert np.isnan(broken).all()
    np.testing.assert_array_equal(fine, __import__("scipy.special").special.gammaln(a))


def test_a_stream_cupy_cannot_take_gives_nan_never_stale_memory(monkeypatch, fake_cupy):
    failing = _FakeCupy(stream_fails=True)
    monkeypatch.setattr(device, "_cupy", lambda: failing)
    stale = np.full(2, 123.0)
    with pytest.warns(jaxsci.CallbackWarning, match="no stream"):
        _device_run((("special.gammaln", "cupy", "cupyx.scipy.special.gammaln", None, (0,), 1),), [np.ones(2)], [stale])
    assert np.isnan(stale).all() and failing.synchronized == 1


# ---- NVRTC: every xsf kernel's source compiles, where NVRTC can be loaded (no GPU needed) ------------
def _nvrtc():
    if importlib.util.find_spec("cupy") is None:
        pytest.skip("CuPy is not installed (pip install 'jaxsci[gpu]'): the xsf kernels are compiled by NVRTC through it")
    try:
        from cupy.cuda import nvrtc

        nvrtc.getVersion()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"NVRTC cannot be loaded here ({type(exc).__name__}: {exc}); install nvidia-cuda-nvrtc")
    return nvrtc


XSF = [(f"{s.module}.{s.name}", k, s) for s in SPECS for k in s.device.kernels if k.kind == "xsf"]


@pytest.mark.parametrize("qualname, kernel, spec", XSF, ids=[q for q, _, _ in XSF])
def test_every_xsf_kernel_compiles_with_nvrtc(qualname, kernel, spec):
    import os

    nvrtc = _nvrtc()
    import cupy

    include = os.path.join(os.path.dirname(cupy.__file__), "_core", "include")
    names = [a.name for a in spec.traced_args]
    source = (device.xsf_preamble(kernel.header)
              + f"extern \"C\" __global__ void k({', '.join(f'const double* {n}_' for n in names)}, double* out, int n) {{\n"
              + "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {\n"
              + "".join(f"    double {n} = {n}_[i];\n" for n in names)
              + f"    out[i] = {kernel.target};\n  }}\n}}\n")
    program = nvrtc.createProgram(source, "kernel.cu", [], [])
    # CuPy's own NVRTC options for elementwise kernels (cupy/cuda/compiler.py)
    options = [f"-I{include}", f"-I{include}/cupy/_cccl/libcudacxx", f"-I{include}/cupy/_cccl/cub",
               f"-I{include}/cupy/_cccl/thrust", "--device-as-default-execution-space", "-arch=sm_90"]
    try:
        nvrtc.compileProgram(program, options)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"{qualname}: {exc}\n{nvrtc.getProgramLog(program)[:3000]}")
    assert nvrtc.getCUBIN(program)


# ---- on a GPU ------------------------------------------------------------------------------------
def _gpu():
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("no GPU is JAX's default device here: the device values are checked by `python benchmarks/gpu.py all` on one")
    if not device.cupy_importable():
        pytest.skip("CuPy is not installed (pip install 'jaxsci[gpu]')")


USED = [(f"{s.module}.{s.name}", s, k) for s in SPECS if s.module == "special" for k in s.device.kernels]


@pytest.mark.parametrize("qualname, spec, kernel", USED, ids=[f"{q}-{k.kind}" for q, _, k in USED])
def test_device_values_match_scipy_on_a_gpu(qualname, spec, kernel, monkeypatch):
    _gpu()
    used = device.kernel_table()[(qualname, kernel.kind)][2]
    if not used:
        pytest.skip(f"{qualname}'s {kernel.kind} kernel did not pass the gate (coverage.md says why)")
    import scipy.special as sc

    function = getattr(jaxsci.special, spec.name)
    monkeypatch.setattr(jaxsci.config, "native", False)  # a spec's native implementation would answer instead
    jax.clear_caches()
    rng = np.random.default_rng(7)
    args = [rng.uniform(*spec.tests.domain[a.name], 512) for a in spec.traced_args]
    for dtype in used:
        typed = [a.astype(dtype) for a in args]
        got = np.asarray(jax.jit(function)(*(jnp.asarray(t) for t in typed)))
        want = np.asarray(getattr(sc, spec.name)(*typed)).astype(dtype)
        tol = spec.device.tolerance[dtype]
        finite = np.isfinite(want)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.all(np.abs(got[finite] - want[finite]) <= tol.atol + tol.rtol * np.abs(want[finite]))
