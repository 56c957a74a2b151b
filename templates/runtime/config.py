"""``jaxsci.config``: how the core runs SciPy, settable in code or by environment variables.

===================  ==========================  ===========================================================
attribute            environment variable        meaning
===================  ==========================  ===========================================================
``callback``         ``JAXSCI_CALLBACK``         ``"auto"`` (default): ``buffer_callback`` on CPU, where it
                                                 exists, else ``pure_callback``; ``"buffer"`` or ``"pure"``
                                                 force one (``"buffer"`` still falls back off CPU).
``num_threads``      ``JAXSCI_NUM_THREADS``      threads one large callback may use (default: the CPUs this
                                                 process may run on); 1 turns the thread pool off.
``parallel_min_size``  ``JAXSCI_PARALLEL_MIN_SIZE``  elements per thread below which a callback stays on one
                                                 thread (default 16384).
``native``           ``JAXSCI_NATIVE``           ``True`` (default): functions whose spec names a native JAX
                                                 implementation use it; ``False`` forces SciPy everywhere.
``device_kernels``   ``JAXSCI_DEVICE_KERNELS``   ``True`` (default): on an accelerator, calls with a device
                                                 kernel that passed the accuracy gate run there (``device.py``);
                                                 ``False`` sends every call to SciPy on the host.
===================  ==========================  ===========================================================

``callback``, ``native`` and ``device_kernels`` are read when a function is traced: set them before the first call, or
call ``jax.clear_caches()`` after changing them. The thread settings are read at every callback.
"""
from __future__ import annotations

import os

_CALLBACKS = ("auto", "buffer", "pure")


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _check(name: str, value):
    if name == "callback":
        if value not in _CALLBACKS:
            raise ValueError(f"jaxsci.config.callback must be one of {', '.join(map(repr, _CALLBACKS))}, got {value!r}")
        return value
    if name in ("num_threads", "parallel_min_size"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"jaxsci.config.{name} must be a positive int, got {value!r}")
        return value
    if name in ("native", "device_kernels"):
        if not isinstance(value, bool):
            raise ValueError(f"jaxsci.config.{name} must be True or False, got {value!r}")
        return value
    raise AttributeError(f"jaxsci.config has no setting {name!r} (settings: {', '.join(Config.__slots__)})")


def _from_environment(name: str, variable: str, parse, default):
    text = os.environ.get(variable)
    if text is None or text.strip() == "":
        return default
    try:
        return _check(name, parse(text.strip()))
    except ValueError as exc:
        raise ValueError(f"environment variable {variable}={text!r}: {exc}") from None


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected 1/0, true/false, yes/no or on/off, got {text!r}")


class Config:
    """jaxsci's settings; assigning an invalid value raises ``ValueError``."""

    __slots__ = ("callback", "num_threads", "parallel_min_size", "native", "device_kernels")

    def __init__(self):
        object.__setattr__(self, "callback", _from_environment("callback", "JAXSCI_CALLBACK", str.lower, "auto"))
        object.__setattr__(self, "num_threads", _from_environment("num_threads", "JAXSCI_NUM_THREADS", int, _cpu_count()))
        object.__setattr__(self, "parallel_min_size",
                           _from_environment("parallel_min_size", "JAXSCI_PARALLEL_MIN_SIZE", int, 16384))
        object.__setattr__(self, "native", _from_environment("native", "JAXSCI_NATIVE", _parse_bool, True))
        object.__setattr__(self, "device_kernels",
                           _from_environment("device_kernels", "JAXSCI_DEVICE_KERNELS", _parse_bool, True))

    def __setattr__(self, name, value):
        object.__setattr__(self, name, _check(name, value))

    def __repr__(self):
        settings = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"jaxsci.config({settings})"


config = Config()
