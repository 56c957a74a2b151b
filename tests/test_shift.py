"""``shift(OUTPUT, INDEX, OFFSET)`` in core-dimension rules (legendre_p's diff_n axis): the generator's
errors, the runtime's fill, and exact second derivatives through shifted and past-the-end positions.

The generic suites compare every element of legendre_p* with SciPy and its first and second
derivatives with mpmath; these tests pin down the grammar's errors and the branches those suites
reach only at some statics.
"""
from pathlib import Path

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest

from generator import ROOT
from generator.derive import derive_all
from generator.errors import SpecError, SpecErrors
from generator.loader import parse_spec
from jaxsci import _core
from jaxsci.special import legendre_p

_TEXT = (Path(ROOT) / "specs" / "special" / "legendre_p.yaml").read_text()
_RULE = _TEXT[_TEXT.index("    formula: >-"):_TEXT.index("    source: \"the next position")]


# eval_gegenbauer, which the rule past the last position calls, and the kernels its own rules call
_CALLEES = [parse_spec((Path(ROOT) / "specs" / module / f"{name}.yaml").read_text(), f"specs/{module}/{name}.yaml",
                       module=module, stem=name)
            for module, name in (("special", "eval_gegenbauer"), ("kernels", "eval_gegenbauer_dalpha"),
                                 ("kernels", "eval_gegenbauer_dalpha2"))]


def _derive(formula):
    text = _TEXT.replace(_RULE, f'    formula: "{formula}"\n')
    spec = parse_spec(text, "specs/special/legendre_p.yaml", module="special", stem="legendre_p")
    return derive_all([spec, *_CALLEES])


def _raises(formula, words):
    with pytest.raises((SpecError, SpecErrors)) as info:
        _derive(formula)
    message = str(info.value)
    assert words in message and "legendre_p.yaml:" in message, message


def test_the_spec_rule_derives_and_agrees_with_mpmath():
    ((case,),) = [_derive(" ".join(_RULE.split()[2:]))["legendre_p"]]
    assert case.rules[0].check.startswith("agrees with mpmath")


@pytest.mark.parametrize("formula,words", [
    # every position reads the next one: the last has none
    ("shift(legendre_p(n, z, diff_n=diff_n), d, 1)", "out of range at diff_n=0, d=0"),
    # the branch for the last position is there, but the first reads one before it
    ("Piecewise((shift(legendre_p(n, z, diff_n=diff_n), d, 1), d < diff_n), "
     "(shift(legendre_p(n, z, diff_n=diff_n), d, -1), True))", "shift by -1 along d is out of range at diff_n=0, d=0"),
    ("shift(legendre_p(n, z, diff_n=diff_n), k, 1)", "unknown name 'k'"),
    ("shift(legendre_p(n, z, diff_n=diff_n), n, 1)", "n is not an index of legendre_p"),
    ("shift(legendre_p(n, z, diff_n=diff_n), d, 1/2)", "the offset must be a nonzero integer number"),
    ("shift(legendre_p(n, z, diff_n=diff_n), d, 0)", "the offset must be a nonzero integer number"),
    ("shift(legendre_p(n, z, diff_n=diff_n), d)", "shift takes three arguments"),
    ("shift(z, d, 1)", "the first argument must be an output of legendre_p itself"),
    ("shift(2 * legendre_p(n, z, diff_n=diff_n), d, 1)", "the first argument must be an output of legendre_p itself"),
    # another static value: another core shape, which the rule cannot shift
    ("Piecewise((shift(legendre_p(n, z, diff_n=1), d, 1), d < diff_n), (0, True))", "its own outputs"),
    # a wrong neighbour is caught numerically, position by position
    ("Piecewise((2 * shift(legendre_p(n, z, diff_n=diff_n), d, 1), d < diff_n), "
     "((n + 1) * (z * legendre_p(n, z, diff_n=diff_n) - legendre_p(n + 1, z, diff_n=diff_n)) / (1 - z**2), True))",
     "disagrees with mpmath"),
])
def test_generator_rejects_bad_shifts_with_a_line(formula, words):
    _raises(formula, words)


def test_shift_outside_core_dimensions_is_an_unknown_name():
    text = (Path(ROOT) / "specs" / "special" / "eval_legendre.yaml").read_text()
    text = text.replace("formula: eval_gegenbauer(Max(n, -n - 1) - 1, Rational(3, 2), x)", "formula: shift(eval_legendre(n, x), n, 1)")
    with pytest.raises((SpecError, SpecErrors), match="unknown name 'shift'"):
        derive_all([parse_spec(text, "specs/special/eval_legendre.yaml", module="special", stem="eval_legendre")])


def test_runtime_shift_reads_neighbours_and_fills_zeros():
    value = jnp.arange(12.0).reshape(2, 2, 3)
    np.testing.assert_array_equal(_core.coredims.shift(value, -1, 1)[1, 0], [7.0, 8.0, 0.0])
    np.testing.assert_array_equal(_core.coredims.shift(value, -1, -2)[1, 1], [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(_core.coredims.shift(value, -2, 1)[0], [[3.0, 4.0, 5.0], [0.0, 0.0, 0.0]])
    assert not _core.coredims.shift(value, -1, 3).any()


def _mp(n, z, order):
    return float(mpmath.diff(lambda t: mpmath.legendre(n, t), z, order))


@pytest.mark.parametrize("diff_n", [0, 1, 2])
def test_hessian_of_every_position_is_exact_forward_and_reverse(diff_n):
    n, z = 4, 0.37
    for d in range(diff_n + 1):
        f = lambda x: legendre_p(n, x, diff_n=diff_n)[d]
        expected = _mp(n, z, d + 2)
        for second in map(jax.jit, (jax.hessian(f), jax.jacfwd(jax.jacfwd(f)), jax.grad(jax.grad(f)))):
            assert abs(float(second(jnp.float64(z) if jax.config.jax_enable_x64 else z)) - expected) <= 1e-4 * abs(expected)


def test_negative_degree_has_no_derivative():
    # SciPy documents n >= 0 and returns values of another degree below it: NaN, not that degree's slope
    assert np.isnan(float(jax.grad(lambda x: legendre_p(-2, x)[0])(0.3)))


@pytest.mark.parametrize("old,new,words", [
    ("  - name: z\n    kind: real", "  - name: z\n    scipy_name: x\n    kind: real", "has no parameter 'x'"),
    ("    default: 0\n    keyword_only: true", "    default: 1\n    keyword_only: true", "default 1, but"),
    ("    keyword_only: true\n", "", "is not parameter 3"),
])
def test_a_multi_ufunc_is_checked_against_its_documented_signature(old, new, words):
    # SciPy's legendre_p takes (*args, **kwargs); its docstring says legendre_p(n, z, *, diff_n=0)
    assert old in _TEXT
    with pytest.raises((SpecError, SpecErrors)) as info:
        parse_spec(_TEXT.replace(old, new), "specs/special/legendre_p.yaml", module="special", stem="legendre_p")
    assert words in str(info.value) and "legendre_p.yaml:" in str(info.value), str(info.value)
