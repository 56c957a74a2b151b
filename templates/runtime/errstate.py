"""``jaxsci.errstate``: what a user hears when SciPy fails inside a callback.

Nothing may be raised inside a host callback (JAX leaves that undefined), so a failure always gives
NaN outputs. The mode chooses what else happens:

- ``"warn"`` (the default): a ``CallbackWarning`` naming the function and the cause, when the callback runs;
- ``"ignore"``: nothing more;
- ``"raise"``: the failure is recorded, and the ``errstate`` block raises ``CallbackError`` listing every
  failure when it exits. Under ``jit`` this is safe because nothing is raised inside the callback: the
  error is raised afterwards, in the caller's thread. Callbacks run asynchronously, so the block waits
  for them (``jax.effects_barrier()``) before it exits; results computed in the block should be used or
  blocked on (``block_until_ready``) inside it.

    with jaxsci.errstate("raise"):
        y = jax.jit(f)(x).block_until_ready()   # raises CallbackError if SciPy raised inside f

The mode is process-wide (callbacks run on XLA's threads, not the caller's), and read when a callback runs.
"""
from __future__ import annotations

import contextlib
import threading
import warnings

_MODES = ("warn", "ignore", "raise")
_lock = threading.Lock()
_stack: list[tuple[str, list]] = []  # (mode, failures recorded while it is innermost)


class CallbackWarning(RuntimeWarning):
    """SciPy failed inside a callback; the affected outputs are NaN."""


class CallbackError(RuntimeError):
    """SciPy failed inside one or more callbacks run in a ``jaxsci.errstate("raise")`` block."""

    def __init__(self, failures):
        self.failures = tuple(failures)
        listed = "; ".join(self.failures[:5]) + (f"; and {len(self.failures) - 5} more" if len(self.failures) > 5 else "")
        super().__init__(f"{len(self.failures)} SciPy call(s) failed inside jaxsci callbacks (their outputs are NaN): {listed}")


def report(qualname: str, exc: BaseException) -> None:
    """Called by the host for every failure; never raises."""
    message = f"jaxsci.{qualname}: SciPy raised {type(exc).__name__}: {exc}; the result is NaN"
    with _lock:
        mode, failures = _stack[-1] if _stack else ("warn", None)
        if mode == "raise":
            failures.append(message)
    if mode == "warn":
        warnings.warn(message, CallbackWarning, stacklevel=3)


@contextlib.contextmanager
def errstate(mode: str):
    """Within the block, failures inside jaxsci callbacks ``"warn"``, are ignored, or ``"raise"`` at its end."""
    if mode not in _MODES:
        raise ValueError(f"jaxsci.errstate: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")
    entry = (mode, [])
    with _lock:
        _stack.append(entry)
    try:
        yield
    finally:
        try:
            import jax

            jax.effects_barrier()
        finally:
            with _lock:
                _stack.remove(entry)
    if mode == "raise" and entry[1]:
        raise CallbackError(entry[1])
