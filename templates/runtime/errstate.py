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

The mode is scoped like NumPy's ``errstate``: to the thread, or the ``contextvars`` context (an asyncio
task), that entered the block, and read when a callback runs. On CPU, XLA runs a callback in the thread
that called the computation, so another thread's block never changes what this one hears. A callback
that XLA runs on a thread of its own (asynchronous dispatch, or a device other than the CPU) has no
caller's context to read: it follows the innermost block active in the process. The mode is checked
when the ``errstate`` is constructed.
"""
from __future__ import annotations

import contextvars
import os
import sys
import threading
import warnings

_MODES = ("warn", "ignore", "raise")
_lock = threading.Lock()
_current: contextvars.ContextVar = contextvars.ContextVar("jaxsci_errstate", default=None)  # innermost (mode, failures)
_active: list[tuple[str, list]] = []  # every block active in the process, innermost last (for XLA's own threads)


class CallbackWarning(RuntimeWarning):
    """SciPy failed inside a callback; the affected outputs are NaN."""


class CallbackError(RuntimeError):
    """SciPy failed inside one or more callbacks run in a ``jaxsci.errstate("raise")`` block.

    ``failures`` are the messages; ``exceptions`` what SciPy raised (without their tracebacks, which
    would hold the callback's buffers), and the first of them is the error's ``__cause__``
    (``SpecialFunctionError`` under ``jaxsci.special.errstate(...="raise")``).
    """

    def __init__(self, failures, exceptions=()):
        self.failures = tuple(failures)
        self.exceptions = tuple(exceptions)
        listed = "; ".join(self.failures[:5]) + (f"; and {len(self.failures) - 5} more" if len(self.failures) > 5 else "")
        super().__init__(f"{len(self.failures)} SciPy call(s) failed inside jaxsci callbacks (their outputs are NaN): {listed}")


def _entry():
    """The block that applies to a callback running in this thread."""
    entry = _current.get()
    if entry is None and isinstance(threading.current_thread(), threading._DummyThread):
        with _lock:  # a thread of XLA's own, not the caller's: the innermost block of the process
            entry = _active[-1] if _active else None
    return entry or ("warn", None)


def _internal_directories() -> tuple:
    import jax
    import jaxlib

    jaxsci_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package, _core included
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (jax, jaxlib)) + (jaxsci_dir + os.sep,)


_INTERNAL: tuple = ()


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points ``report``'s warning at the user's call: the first frame outside
    jaxsci, jax and jaxlib (1, ``report`` itself, when the callback runs on a thread of XLA's own)."""
    global _INTERNAL
    if not _INTERNAL:
        _INTERNAL = _internal_directories()
    frame, level = sys._getframe(2), 2  # report's caller
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_INTERNAL):
            return level
        frame, level = frame.f_back, level + 1
    return 1


# set while an eager call (outside every trace) runs SciPy in the caller's own thread: no callback is
# involved there, so SciPy's SpecialFunctionError (jaxsci.special.errstate(...="raise")) reaches the
# caller, as it does from SciPy itself
_eager: contextvars.ContextVar = contextvars.ContextVar("jaxsci_eager_call", default=False)


class eager_call:
    """The block in which the core evaluates an eager call directly (``transport._eager_device``)."""

    def __enter__(self):
        self._token = _eager.set(True)

    def __exit__(self, *exc_info):
        _eager.reset(self._token)
        return False


def report(qualname: str, exc: BaseException) -> None:
    """Called by the host for every failure. Never raises inside a callback; in an eager call, SciPy's own
    ``SpecialFunctionError`` propagates to the caller as it would from SciPy."""
    if _eager.get() and isinstance(exc, _special_function_error()):
        raise exc
    message = f"jaxsci.{qualname}: SciPy raised {type(exc).__name__}: {exc}; the result is NaN"
    mode, failures = _entry()
    if mode == "raise":
        exc.__traceback__ = exc.__context__ = None  # the frames hold views of XLA's buffers
        with _lock:
            failures.append((message, exc))
    elif mode == "warn":
        warnings.warn(message, CallbackWarning, stacklevel=_user_stacklevel())


def _special_function_error():
    from scipy.special import SpecialFunctionError

    return SpecialFunctionError


class errstate:
    """Within the block, failures inside jaxsci callbacks ``"warn"``, are ignored, or ``"raise"`` at its end.

    Like ``numpy.errstate``: the mode is checked here, and applies to the thread or context that enters
    the block. An instance can be entered again after it exits, not while it is active.
    """

    def __init__(self, mode: str):
        if mode not in _MODES:
            raise ValueError(f"jaxsci.errstate: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")
        self.mode = mode
        self._state = None

    def __repr__(self) -> str:
        return f"jaxsci.errstate({self.mode!r})"

    def __enter__(self):
        if self._state is not None:
            raise RuntimeError(f"{self!r} is already active; make one per block")
        entry = (self.mode, [])
        token = _current.set(entry)
        with _lock:
            _active.append(entry)
        self._state = (entry, token)
        return self

    def __exit__(self, *exc_info):
        entry, token = self._state
        try:
            import jax

            jax.effects_barrier()
        finally:
            self._state = None
            _current.reset(token)
            with _lock:
                _active.remove(entry)
        if self.mode == "raise" and entry[1] and exc_info[0] is None:
            messages, exceptions = zip(*entry[1])
            raise CallbackError(messages, exceptions) from exceptions[0]
        return False
