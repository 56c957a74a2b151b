"""Test-session setup.

float64 is tested alongside float32, so x64 is on for the whole session (behaviour with x64 off is
tested in subprocesses, tests/test_core.py).

Compiling is most of the suite's time: thousands of small jitted functions, each run a few times.
XLA's CPU compiler takes half as long for them with its older elementwise emitters and without LLVM's
optimisation passes (``--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0``),
which change how fast compiled code runs, not what it computes; jaxsci's values are SciPy's, computed
on the host either way. The flags are added to XLA_FLAGS for the test session only, after a subprocess
shows that this jaxlib knows them (XLA aborts the process on an unknown flag); the decision is made
once, by the first pytest process, and inherited by xdist's workers. ``JAXSCI_TEST_XLA_FLAGS``, set
beforehand, is used as XLA_FLAGS instead (empty: XLA's defaults).
"""
import os
import subprocess

import pytest
import sys

_FAST_COMPILE = ("--xla_cpu_use_fusion_emitters=false", "--xla_backend_optimization_level=0")


def _test_xla_flags() -> str:
    flags = os.environ.get("XLA_FLAGS", "")
    names = {f.split("=")[0] for f in flags.split()}
    candidate = " ".join([flags] + [f for f in _FAST_COMPILE if f.split("=")[0] not in names]).strip()
    probe = subprocess.run([sys.executable, "-c", "import jax; jax.jit(lambda x: x + 1)(1.0)"],
                           env={**os.environ, "XLA_FLAGS": candidate}, capture_output=True, timeout=120)
    return candidate if probe.returncode == 0 else flags


if "JAXSCI_TEST_XLA_FLAGS" not in os.environ:
    os.environ["JAXSCI_TEST_XLA_FLAGS"] = _test_xla_flags()
os.environ["XLA_FLAGS"] = os.environ["JAXSCI_TEST_XLA_FLAGS"]

import jax  # noqa: E402 - after XLA_FLAGS, which XLA reads when its backend starts

jax.config.update("jax_enable_x64", True)


@pytest.fixture
def host_path():
    """SciPy on the host for every call, also where JAX's default device is a GPU with device kernels
    (templates/runtime/device.py): for tests of what the host path alone does (bit-for-bit values,
    SciPy's error switches, the thread pool, eager calls that compile nothing)."""
    import jax

    import jaxsci

    saved = jaxsci.config.device_kernels
    jaxsci.config.device_kernels = False
    jax.clear_caches()
    yield
    jaxsci.config.device_kernels = saved
    jax.clear_caches()
