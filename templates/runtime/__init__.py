"""jaxsci's callback core: trace-time promotion, one-round-trip evaluation, and derivative plumbing.

Generated modules describe functions with ``Function``/``Arg``/``Output``/``Rule``/``Need`` and call
``call``; everything that touches JAX transformations or the host lives here.
"""
from . import coredims
from .api import call, refuse_numpy_keywords
from .config import config
from .errors import ExportError, NonDifferentiableError, TransportWarning
from .errstate import CallbackError, CallbackWarning, errstate
from .export import export
from .reduction import ReductionFunction, reduce
from .registry import Arg, Function, Need, Output, Rule, register

__all__ = ["coredims", "Arg", "CallbackError", "CallbackWarning", "ExportError", "Function", "Need", "NonDifferentiableError", "Output", "ReductionFunction", "Rule", "TransportWarning", "call", "config", "errstate", "export", "reduce", "refuse_numpy_keywords", "register"]
