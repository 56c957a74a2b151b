"""Two processes under ``jax.distributed``: each evaluates the shards its own devices hold.

The processes are started here (CPU devices, gloo collectives, two devices each, one global mesh of
four), with a hard deadline: a process that fails or hangs fails the test, and both are killed, so a
hang never blocks the suite. Once with the default (buffer) callback, once with ``JAXSCI_CALLBACK=pure``,
the transport a GPU uses and the one a process would fall back to where the buffer callback fails.
"""
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import jaxsci

DEADLINE_SECONDS = 120

_PROCESS = textwrap.dedent("""
    import os, sys, traceback, warnings
    process_id, port, transport = int(sys.argv[1]), sys.argv[2], sys.argv[3]

    def exit_at_once(*exception):
        # jax.distributed's shutdown at exit would wait for the other process, perhaps stuck in a collective
        traceback.print_exception(*exception)
        sys.stderr.flush()
        os._exit(1)

    sys.excepthook = exit_at_once
    import jax
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.config.update("jax_enable_x64", True)
    jax.distributed.initialize(coordinator_address=f"localhost:{port}", num_processes=2, process_id=process_id)
    import numpy as np, scipy.special as sc
    from jax.sharding import NamedSharding, PartitionSpec as P
    import jaxsci
    from jaxsci import TransportWarning
    from jaxsci._core import host
    from jaxsci.special import jv, logsumexp

    warnings.simplefilter("error", TransportWarning)  # the buffer callback must work in every process
    assert jaxsci.config.callback == transport, jaxsci.config
    assert jax.process_count() == 2 and len(jax.devices()) == 4 and len(jax.local_devices()) == 2

    reached = []  # every operand array that reaches SciPy in this process
    original = host.run_calls
    host.run_calls = lambda calls, arrays, outputs: (reached.append([np.array(a) for a in arrays]),
                                                     original(calls, arrays, outputs))[1]

    N = 16
    data = np.linspace(0.5, 20.0, N)
    sharding = NamedSharding(jax.make_mesh((4,), ("d",)), P("d"))
    x = jax.make_array_from_callback((N,), sharding, lambda index: data[index])
    own = np.sort(np.concatenate([data[shard.index] for shard in x.addressable_shards]))
    assert own.size == N // 2, own

    def check_own_half_only():
        # one callback per local device, each given one shard; the other process's half never arrives
        assert len(reached) == 2 and all(a.size == N // 4 for arrays in reached for a in arrays), reached
        seen = np.concatenate([a.ravel() for arrays in reached for a in arrays])
        np.testing.assert_array_equal(np.intersect1d(seen, data), own)
        reached.clear()

    values = jax.jit(lambda t: jv(2.5, t))
    text = values.lower(x).as_text()
    # the buffer callback by default; JAXSCI_CALLBACK=pure: the custom call behind jax.pure_callback
    assert ("xla_buffer_python_cpu_callback" in text) == (transport == "auto"), text
    assert ("xla_ffi_python_cpu_callback" in text) == (transport == "pure"), text
    y = values(x)
    assert y.sharding == x.sharding, y.sharding
    for shard in y.addressable_shards:
        np.testing.assert_array_equal(np.asarray(shard.data), sc.jv(2.5, data[shard.index]))
    check_own_half_only()

    g = jax.jit(jax.grad(lambda t: jv(2.5, t).sum()))(x)
    assert g.sharding == x.sharding, g.sharding
    for shard in g.addressable_shards:
        np.testing.assert_allclose(np.asarray(shard.data), sc.jvp(2.5, data[shard.index]), rtol=1e-13)
    # GSPMD (the partitioner jax 0.6 uses by default, not Shardy) replicates the derivative's callback
    if jax.config.jax_use_shardy_partitioner:
        check_own_half_only()

    # a reduction over the sharded axis needs the whole axis: SciPy's, computed whole, in step in both processes
    jaxsci.config.native = False
    total = jax.jit(lambda t: logsumexp(t))(x)
    total.block_until_ready()
    np.testing.assert_allclose(np.asarray(total.addressable_data(0)), sc.logsumexp(data), rtol=1e-15)
    print(f"process {process_id}: ok", flush=True)
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _run_two_processes(transport: str) -> list[str]:
    """Start both processes and wait for them: their outputs, or a failure naming what went wrong."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAXSCI_CALLBACK=transport,
               XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2".strip(),
               # this jaxsci, however the suite found it (installed, or PYTHONPATH=generated)
               PYTHONPATH=os.pathsep.join(filter(None, [str(Path(jaxsci.__file__).parents[1]),
                                                        os.environ.get("PYTHONPATH")])))
    port = str(_free_port())
    processes = [subprocess.Popen([sys.executable, "-c", _PROCESS, str(i), port, transport], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for i in range(2)]
    deadline = time.monotonic() + DEADLINE_SECONDS
    failure = None
    try:
        while None in (codes := [p.poll() for p in processes]):
            if any(code not in (None, 0) for code in codes):
                failure = "a process failed; the other was stopped"
                break
            if time.monotonic() > deadline:
                failure = f"the processes did not finish in {DEADLINE_SECONDS} s (a hang)"
                break
            time.sleep(0.1)
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
    outputs = [p.communicate()[0] for p in processes]
    report = "\n".join(f"--- process {i} (exit {p.returncode}):\n{out[-4000:]}"
                       for i, (p, out) in enumerate(zip(processes, outputs)))
    assert failure is None and all(p.returncode == 0 for p in processes), f"{failure or 'a process failed'}\n{report}"
    return outputs


@pytest.mark.parametrize("transport", ["auto", "pure"])
def test_each_process_evaluates_only_its_own_shards(transport):
    outputs = _run_two_processes(transport)
    for i, out in enumerate(outputs):
        assert f"process {i}: ok" in out, out[-4000:]
