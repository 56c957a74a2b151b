"""``jaxsci.special.geterr / seterr / errstate``: SciPy's own special-function error switches, carried
into jaxsci's host callbacks.

The settings are SciPy's (``scipy.special.geterr()``): these functions read and change them exactly as
SciPy's do, with SciPy's signatures, and ``SpecialFunctionError`` and ``SpecialFunctionWarning`` are
SciPy's own classes. SciPy keeps them per thread (thread-local since scipy/scipy#22742, SciPy 1.16;
process-wide before, where carrying them changes nothing), but SciPy runs
inside a callback, on the thread XLA runs it on, and a large call is split across jaxsci's thread pool.
So the core carries them in, read when a callback runs, not when the function is traced: a compiled
function follows the settings of each call, as a NumPy or SciPy call would.

- On CPU, XLA runs a callback in the thread that called the computation, which holds the caller's
  settings already; the pieces of a large call that run on the pool get the same settings
  (``carried``), for as long as each piece runs.
- A callback that XLA runs on a thread of its own (asynchronous dispatch, a device other than the CPU)
  has no caller: it follows the settings most recently made through ``jaxsci.special.seterr`` or
  ``errstate``, from any thread (set through ``scipy.special`` directly, they reach it only on CPU).

What SciPy does with an error then reaches the user through jaxsci's own channel or Python's:
``"warn"`` issues SciPy's ``SpecialFunctionWarning`` through ``warnings``, as SciPy does (the filters
apply; the warning's location is jaxsci's host module, not the caller's line); ``"raise"`` makes SciPy
raise ``SpecialFunctionError`` inside the callback, where nothing may be raised, so the call's
outputs are NaN and the failure is reported like any exception SciPy raises there
(``jaxsci.errstate``): a ``CallbackWarning`` naming the ``SpecialFunctionError``, or, in a
``jaxsci.errstate("raise")`` block, a ``CallbackError`` when the block exits, caused by it.
"""
from __future__ import annotations

import threading

import scipy.special as _sc

SpecialFunctionError = _sc.SpecialFunctionError
SpecialFunctionWarning = _sc.SpecialFunctionWarning

_lock = threading.Lock()
_latest: dict | None = None  # the settings the latest seterr or errstate made, from any thread


def geterr() -> dict:
    """SciPy's special-function error handling in this thread (``scipy.special.geterr``)."""
    return _sc.geterr()


def seterr(**kwargs) -> dict:
    """Set SciPy's special-function error handling (``scipy.special.seterr``); returns the old settings.

    Applies to SciPy in this thread and to jaxsci's callbacks that this thread runs; a callback on a
    thread of XLA's own follows the latest settings made here from any thread.
    """
    global _latest
    old = _sc.seterr(**kwargs)
    with _lock:
        _latest = _sc.geterr()
    return old


class errstate:
    """Within the block, SciPy's special-function errors are handled as given (``scipy.special.errstate``).

    ``errstate(all="raise")``, ``errstate(singular="warn", domain="ignore")``: the keywords of
    ``seterr``, checked when the block is entered, as SciPy checks them.
    """

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self._old = None

    def __repr__(self) -> str:
        return f"jaxsci.special.errstate({', '.join(f'{k}={v!r}' for k, v in self.kwargs.items())})"

    def __enter__(self):
        self._old = seterr(**self.kwargs)
        return self

    def __exit__(self, *exc_info):
        import jax

        try:
            jax.effects_barrier()  # callbacks still running asynchronously belong to the block
        finally:
            seterr(**self._old)
        return False


def for_callback() -> dict | None:
    """The settings a callback starting in this thread applies to SciPy in it, or None to keep this
    thread's own: on a thread of XLA's own, the latest made through ``seterr`` or ``errstate``."""
    if isinstance(threading.current_thread(), threading._DummyThread):
        with _lock:
            return _latest
    return None


class carried:
    """Apply ``settings`` (a ``geterr`` dict, or None) to SciPy in this thread while the block runs.

    Where they already hold (SciPy's settings are process-wide before 1.16), nothing changes, so no
    other thread's change can be undone on exit.
    """

    __slots__ = ("settings", "_old")

    def __init__(self, settings: dict | None):
        self.settings = settings
        self._old = None

    def __enter__(self):
        if self.settings is not None and _sc.geterr() != self.settings:
            self._old = _sc.seterr(**self.settings)
        return self

    def __exit__(self, *exc_info):
        if self._old is not None:
            _sc.seterr(**self._old)
            self._old = None
        return False
