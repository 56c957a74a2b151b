"""The spec records that drive the generic suites: the generator's own loader, plus sampling helpers.

A spec that does not load (a scaffold with its TODOs left, a typo) is left out of ``SPECS`` and kept in
``SPEC_ERRORS`` with the loader's ``path:line: message``: test_completeness.py fails one test for it,
and every other spec's tests run.
"""
from __future__ import annotations

import functools
import itertools
import zlib
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest

import jaxsci
import mpref
from generator import ROOT
from generator.loader import collect_specs
from generator.model import all_conditions

SPECS, SPEC_ERRORS = collect_specs(ROOT / "specs", ROOT)
SPEC_BY_NAME = {s.name: s for s in SPECS}

# Shapes from JAX's lax_scipy_special_functions_test: the same shape for every argument, and mixed
# shapes that broadcast (the second entry gives each argument its own shape, cycling).
UNIFORM_SHAPES = [(), (4,), (3, 4), (2, 1, 4)]
MIXED_SHAPES = [((3, 1), (1, 4)), ((), (3, 4)), ((4,), (2, 1, 4))]
DTYPES = ["float32", "float64"]


@dataclass(frozen=True)
class Case:
    """One spec under one combination of its static booleans."""

    spec: object
    statics: dict

    @property
    def id(self) -> str:
        suffix = "".join(f"-{k}={v}" for k, v in self.statics.items())
        return f"{self.spec.name}{suffix}"

    def function(self):
        return getattr(getattr(jaxsci, self.spec.module), self.spec.name)

    def scipy(self):
        module, _, name = self.spec.scipy.rpartition(".")
        import importlib

        return getattr(importlib.import_module(module), name)

    def jax_call(self, *traced):
        args, kwargs = self._full(traced)
        return self.function()(*args, **kwargs)

    def _widened(self, traced):
        if self.spec.core:  # computed in float64 (complex128), as jaxsci's host calls it, then cast
            return [a.astype(np.result_type(a.dtype, np.float64)) if np.asarray(a).dtype.kind in "fc" else a
                    for a in map(np.asarray, traced)]
        return traced

    def scipy_call(self, *traced):
        traced = self._widened(traced)
        if self.spec.host_loop is not None:
            return self._scipy_per_element(traced)
        args, kwargs = self._full(traced)
        return self.scipy()(*args, **kwargs)

    def _scipy_per_element(self, traced, admitted=None):
        """A scalar-only SciPy function (``host_loop``) called on each element of the broadcast
        inputs, stacked the way SciPy's ``*_all`` functions lay out arrays: (core..., *batch).
        NaN where ``admitted`` (the guard) is False."""
        arrays = np.broadcast_arrays(*(np.asarray(a) for a in traced))
        shape = arrays[0].shape if arrays else ()
        core = core_shape(self)
        outs = None
        for index in np.ndindex(*shape):
            if admitted is not None and not admitted[index]:
                continue
            args, kwargs = self._full([a[index] for a in arrays])
            values = self.scipy()(*args, **kwargs)
            values = values if isinstance(values, tuple) else (values,)
            if outs is None:
                outs = [np.full(core + shape, np.nan, dtype=np.asarray(v).dtype) for v in values]
            for out, value in zip(outs, values):
                assert np.shape(value) == core, (np.shape(value), core)
                out[(Ellipsis,) + index] = value
        if outs is None:  # nothing admitted: NaN of SciPy's float64
            outs = [np.full(core + shape, np.nan) for _ in self.spec.outputs]
        return tuple(outs) if len(outs) > 1 else outs[0]

    def guard_mask(self, *traced):
        """Where the spec's guard admits the inputs (a bool array of the broadcast shape), or None for a
        spec without a guard. Evaluated from the spec's condition with sympy's lambdify, independently
        of the generated code."""
        if self.spec.guard is None:
            return None
        # in float64 (complex128), as the host evaluates it: a float32 comparison would round the guard's
        # constants (abs(x) <= 1.7e308 becomes inf <= inf, True at x = inf)
        widened = [np.asarray(a) for a in traced]
        widened = [a.astype(np.result_type(a.dtype, np.float64)) if a.dtype.kind in "fc" else a for a in widened]
        operands = np.broadcast_arrays(*widened)  # lambdify's And needs equal shapes
        with np.errstate(all="ignore"):
            admitted = _guard_function(self.spec.name)(*operands)
        return np.broadcast_to(np.asarray(admitted, dtype=bool), operands[0].shape)

    def guarded_scipy_call(self, *traced):
        """SciPy's outputs where the guard admits the inputs, NaN elsewhere: SciPy is never called at
        the others, where it may crash the test process. Without a guard, ``scipy_call``."""
        admitted = self.guard_mask(*traced)
        if admitted is None or admitted.all():
            return self.scipy_call(*traced)
        if self.spec.host_loop is not None:
            return self._scipy_per_element(self._widened(traced), admitted)
        picked = [np.broadcast_to(a, admitted.shape)[admitted] for a in traced]
        out = self.scipy_call(*picked)
        spread = []
        for values in out if isinstance(out, tuple) else (out,):
            values = np.asarray(values)
            full = np.full(admitted.shape, np.nan, dtype=np.result_type(values.dtype, np.float16))
            full[admitted] = values
            spread.append(full)
        return tuple(spread) if isinstance(out, tuple) else spread[0]

    def _full(self, traced):
        traced = iter(traced)
        args, kwargs = [], {}
        for a in self.spec.args:
            value = next(traced) if a.traced else self.statics.get(a.name, a.default)
            if a.keyword_only:
                kwargs[a.name] = value
            else:
                args.append(value)
        return args, kwargs

    def expected_failure(self, test: str, dtype: str | None = None):
        failure = self.spec.tests.expected_failure(test, dtype)
        if failure is not None:
            pytest.xfail(f"{failure.loc}: {failure.reason}")


def core_shape(case: Case) -> tuple:
    """The core shape of ``case``'s outputs (() for an elementwise function), from the spec's size
    expressions evaluated by sympy at the case's statics, independently of the generated code."""
    import sympy

    from generator import coredims

    symbols = coredims.size_symbols(case.spec.args)
    values = {symbols[name]: sympy.sympify(case.statics.get(name, case.spec.arg(name).default)) for name in symbols}
    return tuple(int(coredims.size_expr(d.size, case.spec.args).xreplace(values)) for d in case.spec.core)


def core_indices(case: Case) -> list[dict]:
    """Every position in the core shape, in C order, as {index name: position}."""
    names = [d.index for d in case.spec.core]
    return [dict(zip(names, position)) for position in np.ndindex(*core_shape(case))]


def batch_axes_first(case: Case, value, count: int):
    """An unbatched result laid out as vmap (or scan) over its first ``count`` loop axes lays it out:
    those axes before the core dimensions, which the public function puts first."""
    rank = len(case.spec.core)
    if not rank:
        return value
    move = lambda o: jnp.moveaxis(o, tuple(range(rank, rank + count)), tuple(range(count)))  # noqa: E731
    return tuple(map(move, value)) if isinstance(value, tuple) else move(value)


def flat_outputs(value) -> tuple:
    """A function's outputs as scalars: each output in turn, its core positions in C order (an
    elementwise output at a scalar point is one scalar)."""
    outs = value if isinstance(value, tuple) else (value,)
    return tuple(part for o in outs for part in (o.reshape(-1) if getattr(o, "ndim", 0) else (o,)))


def flat_count(case: Case) -> int:
    """How many scalars ``flat_outputs`` gives at a scalar point."""
    import math

    return len(case.spec.outputs) * math.prod(core_shape(case))


@functools.lru_cache(maxsize=None)
def _guard_function(name: str):
    import sympy

    spec = SPEC_BY_NAME[name]
    return sympy.lambdify([sympy.Symbol(a.name) for a in spec.traced_args], spec.guard.expr, modules="numpy")


def cases(predicate=lambda spec: True):
    """One Case per combination of static booleans and of the static values in ``tests.statics``.

    Elementwise functions only: the generic suites sample each argument with its own broadcasting
    shape and compare scalar mpmath derivatives point by point, which a reduction over ``axis`` is
    not; tests/test_reductions.py runs the same checks for those (``reduction_cases``)."""
    return [case for spec in SPECS if spec.reduction is None and predicate(spec) for case in spec_cases(spec)]


def reduction_cases():
    """One Case per reduction spec and combination of its static booleans (keepdims, return_sign)."""
    return [case for spec in SPECS if spec.reduction is not None for case in spec_cases(spec)]


def spec_cases(spec) -> list[Case]:
    """``spec``'s Cases: one per combination of its static booleans and ``tests.statics`` values."""
    out = []
    bools = {a.name for a in spec.args if a.kind == "static_bool"
             and (a.choices is None or len(a.choices) > 1)}
    fixed = {a.name: a.choices[0] for a in spec.args if a.kind == "static_bool" and a.choices is not None and len(a.choices) == 1}
    others = list(spec.tests.statics.items())
    for condition in all_conditions(bools):
        for values in itertools.product(*(v for _, v in others)):
            out.append(Case(spec, {**dict(condition), **fixed, **dict(zip((k for k, _ in others), values))}))
    return out


def traced_cases():
    return cases(lambda spec: spec.traced_args)


def in_default_share(case_id: str, share: int = 3) -> bool:
    """Whether the default suite runs, for this case, a check whose code path every function shares
    (float32 plumbing of the derivative rules, nested batching): a fixed 1/``share`` of the cases, the
    same on every run and machine; ``-m slow`` runs the rest. How jaxsci casts, batches and nests is
    the core's, not the spec's, so a sample of specs exercises it; what differs per spec (its rules'
    values, its shapes) is checked for every spec by default."""
    return zlib.crc32(case_id.encode()) % share == 0


def params(items, ids=lambda c: c.id, share=None):
    """pytest params; with ``share``, those outside ``in_default_share(id, share)`` are marked slow."""
    return [pytest.param(*(item if isinstance(item, tuple) else (item,)), id=ids(item),
                         marks=() if share is None or in_default_share(ids(item), share) else pytest.mark.slow)
            for item in items]


def rng_for(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def sample(case: Case, shapes, dtype: str, rng: np.random.Generator, complex_args=False):
    """Numpy arrays from the spec's domain, one per traced argument."""
    arrays = []
    for arg, shape in zip(case.spec.traced_args, itertools.cycle(shapes) if shapes else itertools.repeat(())):
        lo, hi = case.spec.tests.domain[arg.name]
        if arg.kind == "integer":
            arrays.append(rng.integers(int(lo), int(hi) + 1, size=shape).astype(np.int64))
            continue
        values = rng.uniform(lo, hi, size=shape)
        if complex_args and arg.name in case.spec.tests.complex_domain:
            (rlo, rhi), (ilo, ihi) = case.spec.tests.complex_domain[arg.name]
            values = rng.uniform(rlo, rhi, size=shape) + 1j * rng.uniform(ilo, ihi, size=shape)
            arrays.append(values.astype(np.complex64 if dtype == "float32" else np.complex128))
            continue
        arrays.append(values.astype(dtype))
    return arrays


def sample_points(case: Case, count: int, rng) -> list[dict]:
    """Scalar points of the domain (plus the spec's special points), as Python numbers."""
    points = []
    for _ in range(count):
        point = {}
        for arg in case.spec.traced_args:
            lo, hi = case.spec.tests.domain[arg.name]
            point[arg.name] = int(rng.integers(int(lo), int(hi) + 1)) if arg.kind == "integer" else round(float(rng.uniform(lo, hi)), 6)
        points.append(point)
    return points + [dict(p) for p in case.spec.tests.points]


# ---- mpmath references ------------------------------------------------------------------------
def reference(case: Case):
    """The spec's mpmath reference as a Python function of the traced arguments."""
    import refdata

    return mpref.reference_function(refdata.reference_text(case), refdata.reference_scope(case),
                                    [a.name for a in case.spec.traced_args], core_indices(case) if case.spec.core else ())


def declared_dtype(case: Case, arrays) -> list:
    """The dtypes the spec promises: promoted inexact inputs (integer arguments do not take part)."""
    inexact = [a.dtype for a, arg in zip(arrays, case.spec.traced_args) if arg.kind != "integer" or a.dtype.kind == "f"]
    promoted = np.result_type(*inexact) if inexact else np.dtype("float64")
    rules = {"promoted": promoted, "complex": np.result_type(promoted, np.complex64),
             "real": np.finfo(promoted).dtype, "int32": np.dtype("int32")}
    # an orthopoly1d is SciPy's object, not an array (assert_same_object)
    return [None if o.dtype == "orthopoly1d" else np.dtype(rules[o.dtype]) for o in case.spec.outputs]


def assert_same_object(got, expected):
    """``got`` is SciPy's kind of object with SciPy's numbers: an orthopoly1d's coefficients, its
    roots and weights, normalisation and limits, bit for bit."""
    assert type(got) is type(expected), (type(got), type(expected))
    np.testing.assert_array_equal(got.coeffs, expected.coeffs)
    np.testing.assert_array_equal(got.weights, expected.weights)
    assert got.normcoef == expected.normcoef and got.limits == expected.limits


def mp_value(x):
    return mpmath.mpf(x) if not isinstance(x, complex) else mpmath.mpc(x.real, x.imag)


# ---- native dispatch ----------------------------------------------------------------------------
def has_native(spec) -> bool:
    """Whether the spec names a native implementation that the installed jax has (``native.jax_since``:
    with an older jax, SciPy computes the function)."""
    from jaxsci._core import registry

    return spec.native is not None and registry.lookup(f"{spec.module}.{spec.name}").native_callable() is not None


def native_tolerance(case: Case, arrays):
    """The spec's native tolerance where jaxsci runs the native implementation on these inputs (real
    inputs, ``jaxsci.config.native`` on, a jax that has it), or its device tolerance where a device kernel
    computes them (JAX's default device is an accelerator); None where it runs SciPy, whose values are
    bit-identical."""
    if any(np.iscomplexobj(a) for a in arrays):
        return None
    dtype = "float32" if declared_dtype(case, arrays)[0] == np.float32 else "float64"
    if has_native(case.spec) and jaxsci.config.native:
        return case.spec.native.tolerance[dtype]
    return device_tolerance(case.spec, dtype)


def device_tolerance(spec, dtype: str):
    """The spec's device tolerance where JAX's default device is an accelerator on which one of its
    kernels passed the gate in ``dtype`` (templates/runtime/device.py); None elsewhere."""
    from jaxsci._core import device

    platform = jax.default_backend()
    if spec.device is None or platform == "cpu" or not jaxsci.config.device_kernels:
        return None
    platform = "cuda" if platform == "gpu" else platform
    call = (f"{spec.module}.{spec.name}", (), (0,), (dtype,), None, ())
    return spec.device.tolerance[dtype] if device.placement((call,), platform)[0][0] != device.HOST else None


def assert_matches_scipy(got, expected, dtype, tolerance=None, inputs=()):
    """``got`` equals SciPy's ``expected`` in ``dtype``: bit for bit, or within ``tolerance`` (a native
    implementation): the same NaNs and infinities, and finite values within atol + rtol * |scipy|.

    XLA flushes subnormal numbers to zero, so for a native implementation differences smaller than the
    smallest normal number pass, and points where one of the ``inputs`` is subnormal are not compared
    (the native function sees 0 there: ndtri(1e-308) is -inf)."""
    got = np.asarray(got)
    expected = np.asarray(expected).astype(dtype)
    if tolerance is None:
        np.testing.assert_array_equal(got, expected)
        return
    if inputs:
        subnormal = np.zeros(got.shape, dtype=bool)
        for a in inputs:
            a = np.asarray(a)
            if a.dtype.kind == "f":
                subnormal |= np.broadcast_to((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny), got.shape)
        got, expected = got[~subnormal], expected[~subnormal]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg="NaN pattern")
    infinite = np.isinf(got) | np.isinf(expected)
    np.testing.assert_array_equal(got[infinite], expected[infinite], err_msg="infinities")
    finite = np.isfinite(got) & np.isfinite(expected)
    wide = np.complex128 if got.dtype.kind == "c" or expected.dtype.kind == "c" else np.float64
    g, e = got[finite].astype(wide), expected[finite].astype(wide)
    error = np.abs(g - e)
    bad = (error > tolerance.atol + tolerance.rtol * np.abs(e)) & (error >= np.finfo(dtype).tiny)
    assert not bad.any(), (f"{int(bad.sum())} of {bad.size} values differ from SciPy by more than "
                           f"rtol={tolerance.rtol}, atol={tolerance.atol}: got {g[bad][:5]}, SciPy {e[bad][:5]}")
