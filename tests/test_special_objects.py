"""Functions of static arguments whose result JAX cannot describe before SciPy computes it
(templates/runtime/objects.py): SciPy's orthopoly1d constructors (``dtype: orthopoly1d``), and
``mathieu_even_coef`` / ``mathieu_odd_coef``, whose size comes from q (``shape: eager``)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci.special as js
from generator import ROOT
from generator.errors import SpecError
from generator.loader import check_object_outputs, parse_spec
from specdata import SPEC_BY_NAME, SPECS, assert_same_object, params

ORTHOPOLY = [s for s in SPECS if s.outputs[0].dtype == "orthopoly1d"]
# inside each family's interval of orthogonality, where the polynomials are of moderate size
POINTS = {"laguerre": (0.0, 6.0), "genlaguerre": (0.0, 6.0), "chebyc": (-1.9, 1.9), "chebys": (-1.9, 1.9),
          "sh_legendre": (0.05, 0.95), "sh_chebyt": (0.05, 0.95), "sh_chebyu": (0.05, 0.95), "sh_jacobi": (0.05, 0.95),
          "hermite": (-2.0, 2.0), "hermitenorm": (-2.0, 2.0)}


def _calls(spec):
    """(args, monic) for degrees 0, 2, 5 and the parameters' values in the spec's tests.statics."""
    names = [a.name for a in spec.args if a.kind == "static_float"]
    values = itertools.product(*(spec.tests.statics[k] for k in names))
    for n, values, monic in itertools.product((0, 2, 5), values, (False, True)):
        yield (n, *values), monic


def _points(spec, dtype):
    lo, hi = POINTS.get(spec.name, (-0.95, 0.95))
    return np.linspace(lo, hi, 7).astype(dtype)


@pytest.mark.parametrize("spec", params(ORTHOPOLY, ids=lambda s: s.name))
def test_orthopoly_is_scipys_object(spec):
    for args, monic in _calls(spec):
        got, expected = getattr(js, spec.name)(*args, monic=monic), getattr(sc, spec.name)(*args, monic=monic)
        assert isinstance(got, sc._orthogonal.orthopoly1d) and isinstance(got, np.poly1d)
        assert_same_object(got, expected)
        np.testing.assert_array_equal(got.roots, expected.roots)
        x = _points(spec, "float64")
        # numpy and Python values: SciPy's own evaluation, bit for bit
        np.testing.assert_array_equal(got(x), expected(x))
        assert got(float(x[1])) == expected(float(x[1]))
        assert type(got * 2) is type(expected * 2)  # arithmetic is numpy's, as in SciPy


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec", params(ORTHOPOLY, ids=lambda s: s.name))
def test_orthopoly_evaluates_jax_values_under_jit_vmap_and_grad(spec, dtype):
    """Against the polynomial itself: np.polyval of SciPy's coefficients and of np.polyder's (the
    parameters' first test values)."""
    rtol = 1e-5 if dtype == "float32" else 1e-11
    first = {k: v[0] for k, v in spec.tests.statics.items() if k != "n"}
    calls = [((n, *(first[a.name] for a in spec.args if a.kind == "static_float")), monic)
             for n, monic in itertools.product((0, 2, 5), (False, True))]
    polys = [getattr(js, spec.name)(*args, monic=monic) for args, monic in calls]
    x = _points(spec, dtype)
    x64 = x.astype(np.float64)

    def everything(t):  # one compilation for every degree, value, gradient and (degree 5) Hessian
        results = [jax.vmap(jax.value_and_grad(lambda u, poly=poly: poly(u)))(t) for poly in polys]
        return results, jax.vmap(jax.hessian(lambda u: polys[-2](u)))(t)

    results, second = jax.jit(everything)(jnp.asarray(x))
    for (args, monic), (got, grads) in zip(calls, results):
        coeffs = getattr(sc, spec.name)(*args, monic=monic).coeffs
        value, slope = np.polyval(coeffs, x64), np.polyval(np.polyder(coeffs), x64)
        scale = max(1.0, np.abs(value).max(), np.abs(slope).max())
        assert got.dtype == grads.dtype == dtype and got.shape == grads.shape == x.shape
        np.testing.assert_allclose(got, value, rtol=rtol, atol=rtol * scale)
        np.testing.assert_allclose(grads, slope, rtol=rtol, atol=rtol * scale)
        if args[0] == 5 and not monic:
            np.testing.assert_allclose(second, np.polyval(np.polyder(coeffs, 2), x64), rtol=100 * rtol, atol=100 * rtol * scale)


def test_the_constructor_works_inside_a_jitted_function():
    f = jax.jit(lambda x: js.legendre(3)(x) + js.jacobi(2, 0.5, 1.5, monic=True)(x))
    x = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(f(x), sc.legendre(3)(x) + sc.jacobi(2, 0.5, 1.5, monic=True)(x), rtol=1e-13, atol=1e-14)


def test_orthopoly_arguments_are_static_and_checked_as_scipy_checks_them():
    with pytest.raises(TypeError, match="argument 'n' must be a static Python value"):
        jax.jit(lambda n: js.legendre(n))(3)
    with pytest.raises(TypeError, match="argument 'alpha' must be a static Python value"):
        jax.jit(lambda a: js.genlaguerre(2, a))(0.5)
    with pytest.raises(ValueError, match="jaxsci.special.legendre: n must be nonnegative"):
        js.legendre(-1)
    with pytest.raises(ValueError, match="jaxsci.special.gegenbauer: `alpha` must be a finite number greater than -1/2"):
        js.gegenbauer(2, -0.75)


@pytest.mark.parametrize("name", ["mathieu_even_coef", "mathieu_odd_coef"])
def test_mathieu_coefficients_are_scipys_array_of_the_size_q_gives(name):
    sizes = set()
    for m, q in itertools.product((1, 2, 7), (0.0, 0.3, 4.0, 150.0)):
        expected = getattr(sc, name)(m, q)
        got = getattr(js, name)(m, q)
        assert isinstance(got, jax.Array) and got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
        # under jit with m and q fixed: the array is computed when traced, a constant of the program
        np.testing.assert_array_equal(jax.jit(lambda: getattr(js, name)(m, q) * 2)(), 2 * expected)
        sizes.add(expected.size)
    assert len(sizes) > 3  # the size does change with q and m: no static shape could be declared


def test_mathieu_coefficients_take_static_values_only():
    with pytest.raises(TypeError, match="argument 'q' must be a static Python value"):
        jax.jit(lambda q: js.mathieu_even_coef(2, q))(1.5)
    with pytest.raises(ValueError, match="jaxsci.special.mathieu_even_coef: q >=0"):
        js.mathieu_even_coef(2, -1.0)
    with pytest.raises(ValueError, match="jaxsci.special.mathieu_odd_coef: m must be an integer > 0"):
        js.mathieu_odd_coef(0, 1.0)


# ---- the grammar: located errors ---------------------------------------------------------------
def _load(name, old, new):
    text = (ROOT / "specs" / "special" / f"{name}.yaml").read_text()
    assert old in text
    return parse_spec(text.replace(old, new), f"specs/special/{name}.yaml", module="special", stem=name)


@pytest.mark.parametrize("name, old, new, message", [
    ("legendre", "evaluates: eval_legendre(n, x)", "evaluates: eval_legendre(n, x) * 2",
     ":25: output 'P': evaluates must be one call of a jaxsci function on the static arguments (n) and x"),
    ("legendre", "evaluates: eval_legendre(n, x)", "evaluates: eval_legendre(n, x, x)", ":25: output 'P': evaluates must be one call"),
    ("legendre", "evaluates: eval_legendre(n, x)", "evaluates: eval_legendre(m, x)", ":25: output 'P': evaluates: unknown name 'm'"),
    ("legendre", "evaluates: eval_legendre(n, x)", "evaluates: eval_legendre(n, x",
     ":25: output 'P': cannot parse evaluates"),
    ("legendre", "    evaluates: eval_legendre(n, x)\n", "", ":23: outputs[0] is missing required key 'evaluates'"),
    ("legendre", "  - name: monic\n    kind: static_bool\n    default: false\n    doc: If True, scale the leading coefficient to be 1.\n", "",
     ":20: output 'P': an orthopoly1d needs SciPy's static_bool argument 'monic'"),
    ("mathieu_even_coef", "    shape: eager", "    shape: later",
     ":25: output 'out': shape must be a list of sizes or 'eager'"),
    ("mathieu_even_coef", "    shape: eager", "    shape: eager\n    evaluates: mathieu_a(m, x)",
     ":26: output 'out': evaluates is for an orthopoly1d output only"),
])
def test_object_grammar_errors_are_located(name, old, new, message):
    with pytest.raises(SpecError) as caught:
        _load(name, old, new)
    text = str(caught.value)
    assert text.startswith(f"specs/special/{name}.yaml") and message in text, text


def test_an_eager_shape_needs_static_arguments_only():
    with pytest.raises(SpecError, match=r"mathieu_even_coef.yaml:\d+: output 'out': a shape is for functions of static arguments only"):
        _load("mathieu_even_coef", "  - name: q\n    kind: static_float", "  - name: q\n    kind: real")


@pytest.mark.parametrize("evaluates, message", [
    ("eval_legendr(n, x)", "evaluates calls 'eval_legendr', which is not a jaxsci.special function; did you mean 'eval_legendre'?"),
    ("eval_jacobi(n, x)", "evaluates gives eval_jacobi 2 arguments; it takes n, alpha, beta, x"),
    ("eval_legendre(x, n)", "evaluates passes x as eval_legendre's argument 'n', which is not differentiable"),
])
def test_evaluates_must_call_a_fitting_function(evaluates, message):
    spec = _load("legendre", "evaluates: eval_legendre(n, x)", f"evaluates: {evaluates}")
    errors = check_object_outputs([spec, SPEC_BY_NAME["eval_legendre"], SPEC_BY_NAME["eval_jacobi"]])
    assert [str(e) for e in errors] == [f"specs/special/legendre.yaml:23: output 'P': {message}"]
    assert not check_object_outputs(SPECS)
