"""The reduction grammar (specs/README.md, "Reductions over an axis"): every bad spec is one
``path:line: message``, and the rules are parsed by sympy and checked linear in the tangent."""
import pytest

from generator import ROOT
from generator.derive import derive_all
from generator.errors import SpecError, SpecErrors
from generator.loader import parse_spec

PATH = "specs/special/softmax.yaml"
SOFTMAX = (ROOT / PATH).read_text(encoding="utf-8")
LOGSUMEXP = (ROOT / "specs/special/logsumexp.yaml").read_text(encoding="utf-8")


def load(text, name="softmax"):
    return parse_spec(text, f"specs/special/{name}.yaml", module="special", stem=name)


def error(text, name="softmax", *, derive=False) -> str:
    with pytest.raises((SpecError, SpecErrors)) as info:
        spec = load(text, name)
        if derive:
            derive_all([spec])
    return str(info.value)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_specs_load_and_derive():
    for name, text in (("softmax", SOFTMAX), ("logsumexp", LOGSUMEXP)):
        spec = load(text, name)
        cases = derive_all([spec])[name]
        assert spec.reduction is not None and all(case.rules for case in cases)
    conditions = [case.condition for case in derive_all([load(LOGSUMEXP, "logsumexp")])["logsumexp"]]
    assert (("b", None), ("return_sign", True)) in conditions and (("return_sign", False),) in conditions


def test_a_partial_derivative_is_contracted_over_the_reduced_axes():
    (case,) = [c for c in derive_all([load(LOGSUMEXP, "logsumexp")])["logsumexp"] if c.condition == (("return_sign", False),)]
    codes = {rule.arg.name: rule.derivative for rule in case.rules}
    assert codes["a"] == ("reduce(b*t*jnp.exp(a - res))",)


def test_axis_must_name_a_static_axis_argument():
    bad = SOFTMAX.replace("  axis: axis\n", "  axis: x\n")
    assert error(bad) == f"{PATH}:{_line(bad, '  axis: x')}: reduction.axis must name the static_axis argument, got 'x'"


def test_an_unknown_output_shape_is_an_error():
    bad = SOFTMAX.replace("shapes: {out: input}", "shapes: {out: elementwise}")
    assert "reduction.shapes.out must be one of reduced, input, got 'elementwise'" in error(bad)
    assert error(bad).startswith(f"{PATH}:{_line(bad, 'elementwise')}:")


def test_a_static_axis_default_must_be_an_axis():
    bad = SOFTMAX.replace("    default: null\n    doc: Axis", "    default: [0, 0]\n    doc: Axis")
    assert "default [0, 0] of argument 'axis' does not fit its kind static_axis" in error(bad)


def test_a_tangent_must_be_linear_in_t():
    bad = SOFTMAX.replace("jvp: out * (t - sum(out * t))", "jvp: out * (t - sum(out * t * t))")
    message = error(bad, derive=True)
    assert f"{PATH}:{_line(bad, 'jvp:')}: derivatives.x: the tangent" in message and "is not linear in t" in message


def test_an_unknown_name_in_a_rule_is_an_error():
    bad = SOFTMAX.replace("jvp: out * (t - sum(out * t))", "jvp: out * (t - total(out * t))")
    assert "unknown name 'total'" in error(bad, derive=True)


def test_every_return_sign_case_needs_a_rule():
    case = """    - when: {return_sign: true}
      jvps:
        res: re(sum(conjugate(sgn) * exp(a - res) * t))
        sgn: I * sgn * im(sum(conjugate(sgn) * exp(a - res) * t))
      source: "as for a, with dS = sum(exp(a) t)"
"""
    assert case in LOGSUMEXP
    bad = LOGSUMEXP.replace(case, "")
    assert f"{_line(bad, '  b:') + 1}: derivatives.b has 0 cases for return_sign=True; it needs one" in error(bad, "logsumexp")


def test_a_rule_gives_only_the_outputs_its_case_returns():
    bad = LOGSUMEXP.replace("      formula: exp(a - res)\n      source: \"d/db_i", "      formulas: {res: exp(a - res), sgn: 0}\n      source: \"d/db_i", 1)
    assert "derivatives.b[0].formulas names 'sgn', which is not an output of a call in this case (res)" in error(bad, "logsumexp")


def test_a_rule_covers_every_output_the_call_returns():
    bad = LOGSUMEXP.replace("        sgn: I * sgn * im(sum(conjugate(sgn) * b * exp(a - res) * t))\n", "", 1)
    assert "has nothing for output(s) sgn (write 0 for an output that is piecewise constant" in error(bad, "logsumexp")


def test_only_when_names_an_output():
    bad = LOGSUMEXP.replace("only_when: {sgn:", "only_when: {sign:")
    assert "reduction.only_when names 'sign', which is not an output (res, sgn)" in error(bad, "logsumexp")
