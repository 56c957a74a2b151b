"""``jaxsci.export``: ``jax.export.export`` with a clear error for jaxsci's host callbacks."""
from __future__ import annotations

import functools

import jax
import jax.export  # noqa: F401 - jax 0.6 does not import its export module with jax itself

from .errors import ExportError

_TRANSPORTS = {"buffer": "run SciPy on the host through XLA's buffer callback",
               "pure": "run SciPy on the host through jax.pure_callback",
               "device": "run their CUDA kernels through XLA's GPU buffer callback"}


def _why(transport: str) -> str:
    return (
        f"jaxsci functions {_TRANSPORTS[transport]}, and jax.export cannot "
        "serialize a host callback: the exported StableHLO would have to carry Python code. Export the part "
        "of the program without jaxsci functions and pass their values in as inputs, or use jax.jit without "
        "jax.export, which compiles and runs them in this process."
    )


def explain(functions, transport: str) -> str:
    """The ExportError message for ``functions``, naming the ``transport`` in use ("buffer", "pure" or "device")."""
    names = ", ".join(sorted({f"jaxsci.{name}" for name in functions}))
    return f"{names}: {_why(transport)}"


def export(fun, **options):
    """Like ``jax.export.export(fun, **options)``; a function that calls jaxsci raises ``ExportError``.

    ``jax.export.export`` itself raises the same ``ExportError``, on every platform: both of jaxsci's
    callbacks refuse to lower for export. Where jaxsci calls ``jax.pure_callback`` itself (a jax whose
    internals it cannot build its primitives from), JAX raises ``NotImplementedError: serialization of
    host_callbacks is not yet implemented``, which this wrapper turns into ``ExportError``.
    """
    exporter = jax.export.export(fun, **options)

    @functools.wraps(exporter)
    def exported(*args, **kwargs):
        try:
            return exporter(*args, **kwargs)
        except ExportError:
            raise
        except NotImplementedError as exc:
            if "host_callback" not in str(exc):
                raise
            raise ExportError(_why("pure")) from exc  # JAX refuses pure_callback's lowering

    return exported
