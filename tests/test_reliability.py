"""Calls from many Python threads at once, and memory over many calls."""
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

from jaxsci.special import jv, sici


# the host path's own behaviour (SciPy's error switches and threads), also on a GPU
pytestmark = pytest.mark.usefixtures("host_path")

def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_threads_calling_at_once_get_correct_results():
    z = np.linspace(0.5, 20.0, 257)
    grad_jv = jax.jit(jax.vmap(jax.grad(jv, argnums=1), in_axes=(None, 0)))
    jit_sici = jax.jit(sici)
    expected_jv = sc.jv(1.5, z)
    expected_grad = sc.jvp(1.5, z)
    expected_sici = sc.sici(z)
    start, failures = threading.Barrier(8), []

    def work(seed):
        start.wait()
        try:
            for _ in range(20):
                shift = seed * 1e-3
                np.testing.assert_array_equal(jv(1.5, jnp.asarray(z)), expected_jv)
                np.testing.assert_allclose(grad_jv(1.5, jnp.asarray(z)), expected_grad, rtol=1e-12, atol=1e-15)
                for got, want in zip(jit_sici(jnp.asarray(z + shift)), sc.sici(z + shift)):
                    np.testing.assert_array_equal(got, want)
                for got, want in zip(jit_sici(jnp.asarray(z)), expected_sici):
                    np.testing.assert_array_equal(got, want)
        except Exception as exc:  # noqa: BLE001 - collected and reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not failures, failures[0]


def _memory_growth(calls: int) -> int:
    f = jax.jit(lambda z: jax.grad(lambda w: jv(1.0, w))(z))
    x = jnp.asarray(2.0)
    for _ in range(200):  # compile and warm the caches first
        f(x).block_until_ready()
    before = _rss_bytes()
    for i in range(calls):
        f(x + i * 1e-6).block_until_ready()
    return _rss_bytes() - before


def test_memory_is_flat_over_many_calls():
    # 2000 calls: a leak of one 8-byte array per call would not show, one of a callback's buffers would.
    assert _memory_growth(2000) < 16 * 2**20


@pytest.mark.slow
def test_soak_memory_is_flat_over_100k_calls():
    assert _memory_growth(100_000) < 32 * 2**20
