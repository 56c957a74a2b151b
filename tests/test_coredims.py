"""Outputs with core dimensions sized by static arguments (riccati_jn, lqn): layout, vmap, errors.

The generic suites compare values with SciPy element by element and every element's derivatives with
mpmath; these tests pin down what they do not: the public layout under vmap with any in_axes and
out_axes, the errors for bad static sizes, and the loader's errors for bad core grammar.
"""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
import scipy.special as sc

from generator.errors import SpecError, SpecErrors
from generator.derive import derive_all
from generator.loader import parse_spec
import jaxsci.special
from jaxsci.special import lmbda, lqmn, lqn, pbdn_seq, pbdv_seq, riccati_jn


def test_layout_is_core_first_and_matches_scipy_per_element():
    x = np.linspace(0.5, 3.0, 6).reshape(2, 3)
    jn, djn = riccati_jn(3, jnp.asarray(x))
    assert jn.shape == djn.shape == (4, 2, 3)
    for index in np.ndindex(2, 3):
        expected = sc.riccati_jn(3, x[index])
        np.testing.assert_array_equal(np.asarray(jn)[(slice(None),) + index], expected[0])
        np.testing.assert_array_equal(np.asarray(djn)[(slice(None),) + index], expected[1])


@pytest.mark.parametrize("in_axes,out_axes", [(0, 0), (1, 0), (0, 1), (1, 2), (0, -1)])
def test_vmap_any_axes(in_axes, out_axes):
    z = jnp.asarray(np.linspace(-0.8, 0.8, 15).reshape(3, 5))
    got = jax.vmap(lambda t: lqn(2, t), in_axes=in_axes, out_axes=out_axes)(z)
    moved = jnp.moveaxis(z, in_axes, 0)
    expected = jnp.stack([jnp.stack(lqn(2, row)) for row in moved])  # (batch, outputs, 3, rest)
    for k in range(2):
        np.testing.assert_array_equal(np.asarray(got[k]), np.asarray(jnp.moveaxis(expected[:, k], 0, out_axes)))


def test_vmap_of_the_derivative_is_batched_and_right():
    x = jnp.asarray([0.7, 1.3, 2.9])
    d = jax.vmap(jax.jacfwd(lambda t: riccati_jn(2, t)[0]))(x)
    np.testing.assert_allclose(np.asarray(d), np.stack([sc.riccati_jn(2, float(v))[1] for v in x]), rtol=1e-12)
    jaxpr = str(jax.make_jaxpr(jax.vmap(lambda t: riccati_jn(2, t)[0]))(x))
    assert jaxpr.count("jaxsci_evaluate") == 1  # one callback for the whole batch, no loop


@pytest.mark.parametrize("call,error,words", [
    (lambda: riccati_jn(-1, 1.0), ValueError, "n=-1"),
    (lambda: riccati_jn(2.5, 1.0), ValueError, "argument n=2.5 must be an integer"),  # as SciPy's ValueError
    (lambda: lqn(-4, 0.5), ValueError, "n=-4"),
    (lambda: pbdv_seq(-1.5, 1.0), ValueError, "v=-1.5 is not >= 0: for negative v SciPy"),
    (lambda: pbdv_seq(float("nan"), 1.0), ValueError, "v=nan"),
    (lambda: lmbda(-0.5, 1.0), ValueError, "v=-0.5"),
    (lambda: pbdn_seq(-2, 1.0), ValueError, "n=-2"),
    (lambda: pbdn_seq(2, 1.0 + 1j), TypeError, "'z'"),
])
def test_bad_static_sizes_raise_naming_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


_SPEC = """
name: riccati_jn
scipy: scipy.special.riccati_jn
summary: s
args:
  - {name: n, kind: static_int}
  - {name: x, kind: real}
outputs:
  - {name: jn, shape: [%s], index: [k]}
  - {name: djn, shape: [%s], index: [k]}
host_loop: "scalars only"
derivatives:
  x:
    formulas:
      jn: riccati_jn.djn(n, x)
      djn: (k * (k + 1) / x**2 - 1) * riccati_jn.jn(n, x)
    source: s
reference:
  mpmath: "(x, x)"
tests:
  domain: {x: [0.2, 20]}
  statics: {n: [0, 1]}
"""


@pytest.mark.parametrize("size,other,words", [
    ('"x + 1"', '"x + 1"', "traced argument"),
    ('"m + 1"', '"m + 1"', "unknown name 'm'"),
    ('"n / 2"', '"n / 2"', "not an integer expression"),
    ('"n - 1"', '"n - 1"', "at least one element"),
    ('"n + 2"', '"n + 1"', "must have the shape and index"),
])
def test_loader_rejects_bad_core_sizes_with_a_line(size, other, words):
    with pytest.raises((SpecError, SpecErrors)) as info:
        parse_spec(_SPEC % (size, other), "specs/special/riccati_jn.yaml", module="special", stem="riccati_jn")
    assert words in str(info.value) and "riccati_jn.yaml:" in str(info.value)


def test_sizes_from_a_static_float_follow_scipy():
    for v, size in [(0.0, 2), (0.3, 2), (1.0, 2), (2.5, 3), (3.0, 4)]:
        assert pbdv_seq(v, 1.0)[0].shape == (size,) == sc.pbdv_seq(v, 1.0)[0].shape
    for v, size in [(0.0, 1), (0.3, 1), (2.5, 3)]:
        assert lmbda(v, jnp.ones((2,)))[0].shape == (size, 2)


def test_lmbda_guard_gives_nan_where_scipy_crashes():
    vl, dl = lmbda(2.5, jnp.asarray([1.0, jnp.inf, jnp.nan, 1e10]))
    assert np.isfinite(np.asarray(vl[:, 0])).all() and np.isnan(np.asarray(vl[:, 1:])).all()


_RULE_SPEC = (_SPEC % ('"n + 1"', '"n + 1"')).replace(
    'mpmath: "(x, x)"',
    'mpmath: "(sqrt(pi * x / 2) * besselj(k + mpf(1) / 2, x), sqrt(pi / (2 * x)) * (x * besselj(k - mpf(1) / 2, x) - k * besselj(k + mpf(1) / 2, x)))"'
).replace("statics: {n: [0, 1]}", "statics: {n: [3]}")


def _derive(formula):
    text = _RULE_SPEC.replace("(k * (k + 1) / x**2 - 1) * riccati_jn.jn(n, x)", formula)
    return derive_all([parse_spec(text, "specs/special/riccati_jn.yaml", module="special", stem="riccati_jn")])


def test_a_core_rule_is_checked_against_mpmath_per_position():
    ((case,),) = [_derive("(k * (k + 1) / x**2 - 1) * riccati_jn.jn(n, x)")["riccati_jn"]]
    assert case.rules[0].check.startswith("agrees with mpmath")
    with pytest.raises((SpecError, SpecErrors), match="disagrees with mpmath.*k=1"):
        _derive("(k * k / x**2 - 1) * riccati_jn.jn(n, x)")  # wrong for k > 0: the second position catches it


def test_a_core_rule_may_not_call_other_functions():
    with pytest.raises((SpecError, SpecErrors), match="its own outputs"):
        _derive("riccati_jn.jn(n + 1, x)")  # another order: a value with another core shape


def test_a_complex_argument_where_scipy_is_wrong_is_refused_with_the_right_reason():
    # SciPy's pbdn_seq takes complex z but computes exp(-|z|**2/4) for exp(-z**2/4): the spec's z is real
    with pytest.raises(TypeError, match=r"pbdn_seq: argument 'z' does not accept complex values \(see its docstring\)"):
        pbdn_seq(2, jnp.asarray(0.5 + 0.5j))
    from jaxsci.special import gammaln  # a ufunc without a complex loop says so
    with pytest.raises(TypeError, match=r"gammaln: argument 'x' does not accept complex values \(SciPy has no complex loop"):
        gammaln(jnp.asarray(0.5 + 0.5j))


def test_roots_of_traced_parameters_broadcast_and_match_scipy():
    from jaxsci.special import roots_jacobi

    alpha, beta = np.array([-0.5, 0.3, 2.0]), np.array([[0.5], [1.5]])
    x, w = roots_jacobi(4, jnp.asarray(alpha), jnp.asarray(beta))
    assert x.shape == w.shape == (4, 2, 3)
    for j, i in np.ndindex(2, 3):
        expected = sc.roots_jacobi(4, alpha[i], beta[j, 0])
        np.testing.assert_array_equal(np.asarray(x)[:, j, i], expected[0])
        np.testing.assert_array_equal(np.asarray(w)[:, j, i], expected[1])
    x32, _ = roots_jacobi(4, jnp.float32(0.3), jnp.float32(0.5))
    assert x32.dtype == jnp.float32


def test_roots_vmapped_derivative_is_batched_and_every_order_matches_mpmath():
    from jaxsci.special import roots_jacobi

    import mpmath

    nodes = lambda a: roots_jacobi(3, a, 1.5)  # noqa: E731
    alphas = jnp.asarray([0.0, 0.7, 2.5])
    d = jax.vmap(jax.jacfwd(nodes))(alphas)
    for k, a in enumerate(alphas):
        np.testing.assert_allclose(np.asarray(d[0][k]), np.asarray(jax.jacfwd(nodes)(a)[0]), rtol=1e-14)
    for size in (3, 7):  # the callbacks do not multiply with the batch: one per round trip
        jaxpr = str(jax.make_jaxpr(jax.vmap(jax.jacfwd(nodes)))(jnp.linspace(0, 1, size)))
        assert jaxpr.count("jaxsci_evaluate") == 2
    # the third derivative: the rules' kernels differentiate again (no order limit)
    third = jax.jacfwd(jax.jacfwd(jax.jacfwd(lambda a: nodes(a)[1][0])))(0.7)
    with mpmath.workdps(30):
        ref = mpmath.diff(lambda a: mpmath.gauss_quadrature(3, "jacobi", a, mpmath.mpf(1.5))[1][0], mpmath.mpf(0.7), 3)
    assert abs(float(third) - float(ref)) <= 1e-7 * abs(float(ref))


_ROOTS_SPEC = """
name: roots_jacobi
scipy: scipy.special.roots_jacobi
summary: s
args:
  - {name: n, kind: static_int}
  - {name: alpha, kind: real}
  - {name: beta, kind: real}
  - {name: mu, kind: static_bool, default: false, choices: [false], why_choices: "w"}
outputs:
  - {name: x, shape: [n], index: [i]}
  - {name: w, shape: [n], index: [i]}
host_loop: "scalars only"
derivatives:
  alpha:
    formulas:
      x: -eval_jacobi_dparam(n, alpha, beta, roots_jacobi.x(n, alpha, beta), 1, 0) / eval_jacobi_dparam(n, alpha, beta, roots_jacobi.x(n, alpha, beta), 0, 0)
      w: %s
    source: s
  beta: {formulas: {x: "0", w: "0"}, source: s}
reference:
  mpmath: "(alpha, beta)"
tests:
  domain: {alpha: [0, 1], beta: [0, 1]}
  statics: {n: [2]}
"""


def _derive_roots(w_formula):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "specs"
    others = [parse_spec((root / module / f"{name}.yaml").read_text(), f"specs/{module}/{name}.yaml", module=module, stem=name)
              for module, name in [("special", "riccati_jn"), ("special", "bernoulli"), ("kernels", "eval_jacobi_dparam")]]
    spec = parse_spec(_ROOTS_SPEC % w_formula, "specs/special/roots_jacobi.yaml", module="special", stem="roots_jacobi")
    return derive_all([spec, *others])


def test_a_core_rule_calls_elementwise_functions_after_its_values_at_their_shape():
    # w's call uses the arguments only, yet it too has the outputs' shape (the derivative broadcasts it)
    rules = _derive_roots("eval_jacobi_dparam(n, alpha, beta, alpha + 1, 1, 0) * roots_jacobi.w(n, alpha, beta)")["roots_jacobi"]
    (alpha_rule, _) = rules[0].rules
    assert len(alpha_rule.needs) == 3
    # every call in a later round trip, every argument given by code (reshaped to broadcast), none shared
    assert all(need.stage >= 1 and all(a.same_as is None for a in need.args) for need in alpha_rule.needs)


@pytest.mark.parametrize("call,name", [("riccati_jn.jn(n, alpha)", "riccati_jn"), ("bernoulli(n)", "bernoulli")])
def test_a_core_rule_may_not_call_a_function_with_another_core_or_no_traced_arguments(call, name):
    with pytest.raises((SpecError, SpecErrors), match=rf"roots_jacobi.yaml:\d+: derivatives.alpha: .*{name}.*core dimensions, an axis or no traced"):
        _derive_roots(call)


@pytest.mark.parametrize("function, call, reference", [
    ("lqn", lambda z: lqn(3, z)[0], lambda k, z: mpmath.legenq(k, 0, z, type=3)),
    ("lqmn", lambda z: lqmn(1, 3, z)[0][1], lambda k, z: mpmath.legenq(k, 1, z, type=3)),
])
def test_legendre_q_outside_minus_one_one_matches_scipy_and_mpmath(function, call, reference):
    """The generic suites sample |z| < 1; for real |z| > 1 SciPy computes Q of type 3 (DLMF 14.3.7), and
    the rules (the output's derivative, the associated Legendre equation) hold there too."""
    z = np.array([1.5, 3.0, -2.5])
    got = getattr(jaxsci.special, function)(*((3, jnp.asarray(z)) if function == "lqn" else (1, 3, jnp.asarray(z))))
    expected = getattr(sc, function)(*((3, z) if function == "lqn" else (1, 3, z)))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), e)
    with mpmath.workdps(30):
        for x in (1.5, 3.0):
            first = jax.jit(jax.jacfwd(call))(x)
            second = jax.jit(jax.hessian(call))(x)
            for k in range(4):
                d1 = complex(mpmath.diff(lambda t: reference(k, t), x))
                d2 = complex(mpmath.diff(lambda t: reference(k, t), x, 2))
                assert abs(d1.imag) <= 1e-25 and abs(d2.imag) <= 1e-25, (d1, d2)  # real for real z > 1
                np.testing.assert_allclose(first[k], d1.real, rtol=1e-10)
                np.testing.assert_allclose(second[k], d2.real, rtol=1e-8)
