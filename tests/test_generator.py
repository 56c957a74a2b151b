"""Generator unit tests on inline specs: every kind of bad spec is a one-line ``path:line: message``."""
import re
import textwrap
from pathlib import Path

import pytest
import sympy

from generator.derive import CROSS_CHECK_POINTS, derive_all
from generator.errors import SpecError
from generator.loader import parse_spec

PATH = "specs/special/demo.yaml"

GOOD = """\
name: demo
scipy: scipy.special.jv
summary: A demo spec.
args:
  - name: v
    kind: real
    differentiable: false
    why: no closed form
  - name: z
    kind: complex
sympy: besselj(v, z)
derivatives:
  z:
    formula: jv(v - 1, z) - v / z * jv(v, z)
    source: DLMF 10.6.2
reference:
  mpmath: besselj(v, z)
tests:
  domain: {v: [0, 3], z: [0.5, 5]}
"""

JV = parse_spec(GOOD.replace("name: demo", "name: jv"), "specs/special/jv.yaml", module="special", stem="jv")


def load(text, stem="demo"):
    return parse_spec(textwrap.dedent(text), PATH, module="special", stem=stem)


def derive(text, stem="demo"):
    spec = load(text, stem)
    return derive_all([spec, JV] if spec.name != "jv" else [spec])


def error_of(fn, *args) -> SpecError:
    with pytest.raises(SpecError) as info:
        fn(*args)
    return info.value


# jve's spec, its order rule (a kernel this test's catalog lacks) left out
JVE = re.sub(r"  v:\n    formula: jv_dv.*\n.*\n", "", (Path(__file__).resolve().parents[1] / "specs" / "special" / "jve.yaml").read_text()
             ).replace("    kind: real\n    doc: Order.\n", "    kind: real\n    doc: Order.\n    differentiable: false\n    why: not here\n")
JVE_REAL = JVE.replace("    conjugate: -I * sign(im(z)) / 2 * jve(v, z)\n",
                       "    conjugate: -I * sign(im(z)) / 2 * jve(v, z)\n    real: jve(v - 1, z) - v / z * jve(v, z)\n")


def test_real_axis_rule_is_a_rule_of_its_own():
    """`real` beside `conjugate`: the rule for real arguments, with its own evaluations, checked along
    the real axis at real points (jve's factor exp(-|Im z|) is 1 there)."""
    assert JVE_REAL != JVE
    (case,) = derive_all([parse_spec(JVE_REAL, "specs/special/jve.yaml", module="special", stem="jve"), JV])["jve"]
    rule = next(r for r in case.rules if r.arg.name == "z")
    assert rule.conjugate is not None and rule.real is not None and rule.real.conjugate is None
    assert rule.real.formulas == (("out", "jve(v - 1, z) - v / z * jve(v, z)"),)
    # at real points, along the real direction only (the main rule: real and complex points, two directions)
    assert rule.real.check.endswith(f"at {CROSS_CHECK_POINTS} sample points"), rule.real.check
    assert [n.spec.name for n in rule.real.needs] == ["jve"]
    wrong = JVE_REAL.replace("    real: jve(v - 1, z) - v / z * jve(v, z)", "    real: jve(v - 1, z) + v / z * jve(v, z)")
    error = error_of(derive_all, [parse_spec(wrong, "specs/special/jve.yaml", module="special", stem="jve"), JV])
    assert "derivatives.z: the formula disagrees with sympy's derivative" in error.message, error.message


def test_good_spec_loads_and_derives():
    spec = load(GOOD)
    rules = derive(GOOD)["demo"]
    (case,) = rules
    (rule,) = case.rules
    assert spec.name == "demo" and rule.arg.name == "z"
    assert rule.check.startswith("agrees with sympy")
    # jv(v, z) is not demo's own value, so it is a need like jv(v - 1, z)
    assert [n.var for n in rule.needs] == ["jv_1", "jv_2"]


@pytest.mark.parametrize(
    "mutate, line, message",
    [
        (lambda t: t.replace("summary: A demo spec.\n", "summary: A demo spec.\nsumary: typo\n"), 4, "unknown key 'sumary'"),
        (lambda t: t.replace("summary: A demo spec.\n", "summary: A demo spec.\nsummary: again\n"), 4, "duplicate key 'summary' (first given on line 3)"),
        (lambda t: t.replace("summary: A demo spec.\n", ""), 1, "missing required key 'summary'"),
        (lambda t: t.replace("kind: complex", "kind: complx"), 10, "unknown kind 'complx'"),
        (lambda t: t.replace("    why: no closed form\n", ""), 5, "say why"),
        (lambda t: t.replace("name: demo", "name: other"), 1, "does not match the file name"),
        (lambda t: t.replace("scipy: scipy.special.jv", "scipy: numpy.sin"), 2, "must name a callable in scipy.special"),
        (lambda t: t.replace("domain: {v: [0, 3], z: [0.5, 5]}", "domain: {v: [0, 3]}"), 19, "no interval for argument 'z'"),
        (lambda t: t.replace("domain: {v: [0, 3], z: [0.5, 5]}", "domain: {v: [3, 0], z: [0.5, 5]}"), 19, "low <= high"),
        (lambda t: t.replace("  z:\n    formula", "  v:\n    formula"), 13, "marked not differentiable"),
        (lambda t: t.replace("    source: DLMF 10.6.2\n", ""), 14, "missing required key 'source'"),
        (lambda t: t + "vmap_method: sequential\n", 20, "batches by broadcasting"),
        (lambda t: t.replace("reference:\n  mpmath: besselj(v, z)\n", ""), 1, "missing required key 'reference'"),
        (lambda t: t.replace("summary: A demo spec.", "summary: [a, b]"), 3, "summary must be a string, got a list"),
        (lambda t: t.replace("name: z\n    kind: complex", "name: v\n    kind: complex"), 9, "listed twice"),
        (lambda t: t.replace("summary: A demo spec.", "summary: [unclosed"), 4, "YAML syntax error"),
        # found by tests/test_spec_fuzz.py
        (lambda t: t.replace("summary: A demo", "summary: A\x1f demo"), 3, "character U+001F is not allowed in YAML"),
        (lambda t: t + "  points: [{v: 1, z: 1}\n", 20, "YAML syntax error"),  # the end of the file is its last line
        (lambda t: t.replace("z: [0.5, 5]}", "z: [0.5, " + "9" * 400 + "]}"), 19, "finite interval"),
        (lambda t: t.replace("    kind: complex\n", "    kind: complex\n    default: " + "9" * 400 + "\n"), 11,
         "does not fit its kind complex"),
        (lambda t: t + "  gradient_tolerance: {float64: {rtol: -1}}\n", 20, "rtol must be a finite number >= 0"),
        (lambda t: t + "  gradient_tolerance: {float32: {atol: " + "9" * 400 + "}}\n", 20, "atol must be a finite number >= 0"),
        (lambda t: t + "  points:\n    - {v: 1, z: .nan}\n", 21, "tests.points[0].z must be a finite number"),
        # the other kinds of loader error
        (lambda t: t.replace("sympy: besselj(v, z)", "1: besselj(v, z)"), 11, "keys must be strings, got 1"),
        (lambda t: "", 1, "the file is empty"),
        (lambda t: "- name: demo\n", 1, "the spec must be a mapping, got a list"),
        (lambda t: t.replace("name: z\n", "name: 2z\n"), 9, "argument name '2z' is not a valid Python identifier"),
        (lambda t: t.replace("sympy: besselj", "outputs:\n  - name: out\n    dtype: float\nsympy: besselj"), 13,
         "output dtype rule must be one of promoted, complex, real, int32, orthopoly1d, got 'float'"),
        (lambda t: t.replace("sympy: besselj", "outputs:\n  - name: out\n    dtype: int32\nsympy: besselj"), 13,
         "dtype int32 is for functions of static arguments only"),
        (lambda t: t.replace("    kind: complex\n", "    kind: complex\n    eager: true\n"), 11,
         "eager applies only to static_bool arguments"),
        (lambda t: t.replace("summary: A demo spec.\n", "summary: A demo spec.\naliases: [demo]\n"), 4,
         "alias 'demo' is listed twice or is the function's own name"),
        (lambda t: t.replace("    kind: complex\n", "    kind: complex\n    accepts_float: true\n"), 11,
         "accepts_float applies only to integer and static_int arguments"),
        (lambda t: t.replace("kind: complex", "kind: real").replace("    source: DLMF", "    conjugate: 0\n    source: DLMF"), 14,
         "a 'conjugate' derivative applies only to complex arguments"),
        (lambda t: t.replace("    source: DLMF", "    real: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF"), 15,
         "derivatives.z: 'real' is the derivative along the real axis of a rule with a 'conjugate' part"),
        (lambda t: t.replace("domain: {v: [0, 3], z: [0.5, 5]}", "domain: {v: [0, 3], z: [0.5, 5], w: [0, 1]}"), 19,
         "tests.domain names 'w', which is not a traced argument"),
        # names the generated code uses: they compiled to a duplicate parameter, a shadowed jnp, or a rule
        # that read the output where it meant the argument
        (lambda t: t.replace("name: v\n", "name: values\n"), 5, "argument name 'values' would shadow a name of the generated module"),
        (lambda t: t.replace("name: v\n", "name: jnp\n"), 5, "argument name 'jnp' would shadow"),
        (lambda t: t.replace("name: v\n", "name: _core\n"), 5, "argument name '_core' would shadow"),
        (lambda t: t.replace("sympy: besselj", "outputs:\n  - name: z\nsympy: besselj"), 12,
         "output 'z' has the name of an argument"),
        # optional traced arguments (zeta(x, q=None))
        (lambda t: t.replace("    why: no closed form\n", "    why: no closed form\n    default: null\n").replace(
            "    kind: complex\n", "    kind: complex\n    default: 1.0\n"), 5,
         "optional argument 'v' (default null) must come after every traced argument that is not optional"),
        (lambda t: t.replace("reference:", "when_omitted:\n  derivatives: {}\nreference:"), 16,
         "when_omitted gives rules for calls that leave an optional argument (default null) out; the function has none"),
        # what `python -m generator new` leaves to fill in
        (lambda t: t.replace("mpmath: besselj(v, z)", 'mpmath: "TODO(jaxsci new): an mpmath expression in v, z"'), 17,
         "reference.mpmath is a placeholder left by `python -m generator new`: TODO(jaxsci new): an mpmath expression in v, z"),
        (lambda t: t.replace("  z:\n    formula: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF 10.6.2\n",
                             '  z: "TODO(jaxsci new): the derivative of demo in z"\n'), 13,
         "derivatives.z is a placeholder left by `python -m generator new`"),
        (lambda t: t.replace("tests:\n", "tests:\n  # TODO(jaxsci new): check the domain\n"), 19,
         "a '# TODO(jaxsci new)' comment from `python -m generator new` is left"),
        # sum_of (the Gauss rules' mu=True)
        (lambda t: t.replace("    kind: complex\n", "    kind: complex\n    sum_of: out\n"), 11,
         "sum_of applies only to a static_bool with default false and no choices"),
        (lambda t: t.replace("    kind: complex\n", "    kind: complex\n  - name: mu\n    kind: static_bool\n    default: false\n    sum_of: out\n"), 11,
         "argument 'mu': sum_of must name an output with one (core) dimension, got 'out'"),
        # frontend: a function the runtime core defines
        (lambda t: t.replace("sympy: besselj", "frontend: {function: jaxsci._core.factorials.factorail, why: checks}\nsympy: besselj"), 11,
         "templates/runtime/factorials.py defines no 'factorail'; did you mean 'factorial'?"),
        (lambda t: t.replace("sympy: besselj", "frontend: {function: jaxsci._core.nowhere.f, why: checks}\nsympy: besselj"), 11,
         "there is no templates/runtime/nowhere.py"),
    ],
    ids=["unknown-key", "duplicate-key", "missing-key", "bad-kind", "no-why", "name-mismatch", "bad-scipy",
         "missing-domain", "empty-interval", "rule-for-nondiff", "no-source", "sequential", "no-reference",
         "wrong-type", "duplicate-arg", "yaml-syntax", "control-character", "syntax-error-at-end", "huge-interval",
         "huge-default", "negative-tolerance", "huge-tolerance", "nan-point", "non-string-key", "empty-file",
         "not-a-mapping", "bad-identifier", "bad-output-dtype", "int32-output-of-traced", "eager-on-complex", "alias-of-itself", "accepts-float-on-real",
         "conjugate-on-real", "real-without-conjugate", "domain-for-unknown-arg", "arg-named-values", "arg-named-jnp", "arg-named-_core",
         "output-named-like-arg", "optional-not-last", "when-omitted-without-optional", "scaffold-reference", "scaffold-derivative", "scaffold-comment",
         "sum-of-on-complex", "sum-of-without-core", "frontend-misspelt", "frontend-no-module"],
)
def test_loader_errors_are_located(mutate, line, message):
    error = error_of(load, mutate(GOOD))
    assert error.path == PATH
    assert error.line == line, str(error)
    assert message in error.message, str(error)
    assert str(error).startswith(f"{PATH}:{line}: ")
    assert "\n" not in str(error)


@pytest.mark.parametrize(
    "formula, message",
    [
        ("jv(v - 1, z) - v / z * jx(v, z)", "unknown name 'jx'"),
        ("jv(v - 1) - v / z * jv(v, z)", "missing a required argument: 'z'"),
        ("jv(v - 1, z, 3) - v / z * jv(v, z)", "too many positional arguments"),
        ("jv(v - 1, z) - v / z * jv(v, z", "cannot parse"),
        ("jv(v - 1, z) - w / z * jv(v, z)", "unknown name 'w'"),
        ("jv(v - 1, z) + v / z * jv(v, z)", "disagrees with sympy's derivative"),
        ("besselj(v - 1, z)", "unknown name 'besselj'"),
        # found by tests/test_spec_fuzz.py
        ("nan", "disagrees with sympy's derivative"),  # NaN compared as "not larger than the tolerance"
        ("0/0 + jv(v - 1, z) - v / z * jv(v, z)", "disagrees with sympy's derivative"),
        ("not not 8", "'not not 8' is a condition, not a number-valued expression"),
        ("z > 1", "'z > 1' is a condition, not a number-valued expression"),
        ("Piecewise((jv(v - 1, z) - v / z * jv(v, z), z > 0))", "a Piecewise must end with an otherwise-branch"),
    ],
    ids=["unknown-function", "too-few-args", "too-many-args", "unparsable", "unknown-symbol", "wrong-formula", "sympy-name-in-rule",
         "nan", "nan-term", "boolean", "condition", "piecewise-without-otherwise"],
)
def test_formula_errors_are_located(formula, message):
    error = error_of(derive, GOOD.replace("jv(v - 1, z) - v / z * jv(v, z)", formula))
    assert error.path == PATH and error.line == 14, str(error)
    assert message in error.message, str(error)


@pytest.mark.parametrize(
    "definition, message",
    [
        ("not --4", "'not --4' is a condition, not a number-valued expression"),
        ("Eq(z, 1)", "is a condition, not a number-valued expression"),
        ("Lambda(z, z)", "not a number-valued expression"),
        ("Tuple(v, z)", "is of sympy type Tuple, not a number-valued expression"),
        ("diff(besselj(v, z))", "variable(s) of differentiation must be supplied"),  # sympy's message has line breaks
        ("1/0", "sympy: '1/0' is undefined (zoo)"),  # blamed on the formulas of the specs that call it
    ],
    ids=["boolean", "condition", "lambda", "tuple", "multi-line-sympy-message", "undefined"],
)
def test_bad_sympy_expressions_are_located(definition, message):
    error = error_of(derive, GOOD.replace("sympy: besselj(v, z)", f"sympy: {definition}"))
    assert error.path == PATH and error.line == 11, str(error)
    assert message in error.message and "\n" not in str(error), str(error)


def test_sympy_expressions_sympy_cannot_evaluate_are_not_cross_checked():
    # sympy raises ValueError on the Sum's limits once numbers are substituted: no crash, the rule is
    # just not cross-checked (the test suite still checks it against mpmath)
    (case,) = derive(GOOD.replace("sympy: besselj(v, z)", "sympy: Sum(besselj(v, z), (v, 0, 3))"))["demo"]
    assert case.rules[0].check.startswith("not cross-checked: sympy cannot evaluate the derivative numerically at")


def test_a_function_of_a_spec_name_with_other_arity_is_not_that_spec():
    # Function('jv')(v) in a sympy expression is not jaxsci's jv(v, z); with jv's own rule planned first
    # (which registers jv), decoding it used to pop a missing argument (IndexError)
    text = GOOD.replace("sympy: besselj(v, z)", "sympy: Function('jv')(v) * z").replace(
        "    formula: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF 10.6.2\n", "").replace("  z:\n", "  z: sympy\n")
    with pytest.raises(SpecError) as info:
        derive_all([JV, load(text)])
    assert info.value.line == 13 and "cannot evaluate jv(v): not a spec'd function" in info.value.message


def _with_special_point(where, formula):
    return GOOD.replace("    source: DLMF 10.6.2\n", f"    source: DLMF 10.6.2\n    at:\n      - where: {where}\n        formula: \"{formula}\"\n")


@pytest.mark.parametrize("where", ["Eq(z, nan)", "Eq(z, v)", "z > 1"])
def test_special_point_is_an_argument_at_a_number(where):
    error = error_of(derive, _with_special_point(where, "jv(v - 1, z)"))
    assert "Eq(argument, number) or Eq(argument, inf)" in error.message and error.line == 17


def test_special_point_at_infinity_is_checked_as_a_limit():
    # J_v'(z) -> 0 as z -> inf (DLMF 10.7.8): 0 is its limit, checked at z = 1e8; 1 is not
    (case,) = derive(_with_special_point("Eq(z, inf)", "0"))["demo"]
    assert case.rules[0].check.startswith("agrees with sympy's derivative")
    error = error_of(derive, _with_special_point("Eq(z, inf)", "1"))
    assert "the special point 'Eq(z, inf)' disagrees with sympy's derivative" in error.message


@pytest.mark.parametrize("formula, message", [
    ("pair(x)", "pair has several outputs; name one: pair.a, pair.b"),
    ("pair.c(x)", "pair has no output 'c' (outputs: a, b)"),
    ("pair + 1", "cannot evaluate 'pair + 1': TypeError"),  # was: "pair has no output '_op_priority'"
    ("pair.a", "'pair.a' is not an expression"),
])
def test_several_outputs_are_called_by_name(formula, message):
    pair = load("""\
        name: pair
        scipy: scipy.special.sici
        summary: Two outputs.
        args:
          - name: x
            kind: real
        outputs:
          - name: a
          - name: b
        derivatives:
          x:
            formulas: {a: sin(x) / x, b: cos(x) / x}
            source: DLMF 6.6
        reference:
          mpmath: si(x)
        tests:
          domain: {x: [0.5, 5]}
        """, stem="pair")
    user = GOOD.replace("formula: jv(v - 1, z) - v / z * jv(v, z)", f"formula: {formula.replace('(x)', '(z)')}")
    with pytest.raises(SpecError) as info:
        derive_all([pair, load(user)])
    assert info.value.line == 14 and message in info.value.message, str(info.value)


@pytest.mark.parametrize("value, message", [
    ("I", "pbdv_seq: argument 'v' is static; pass a real number, got I"),  # was TypeError: complex to float
    ("1/0", "pbdv_seq: argument 'v' is static; pass a real number, got zoo"),
])
def test_static_arguments_in_formulas_take_their_kind_of_value(value, message):
    from generator import ROOT

    text = (ROOT / "specs" / "special" / "pbdv_seq.yaml").read_text()
    bad = text.replace("dv: pbdv_seq.dp(v, x)", f"dv: pbdv_seq.dp({value}, x)")
    assert bad != text
    with pytest.raises(SpecError) as info:
        derive_all([parse_spec(bad, "specs/special/pbdv_seq.yaml", module="special", stem="pbdv_seq")])
    assert message in info.value.message, str(info.value)


def test_a_disagreement_names_the_sympy_expressions_of_the_functions_called():
    # the formula is right, jv's sympy expression is wrong: the error says whose expression it used
    wrong_jv = parse_spec(GOOD.replace("name: demo", "name: jv").replace("sympy: besselj(v, z)", "sympy: 2 * besselj(v, z)"),
                          "specs/special/jv.yaml", module="special", stem="jv")
    with pytest.raises(SpecError) as info:
        derive_all([load(GOOD), wrong_jv])
    assert info.value.path == PATH and info.value.line == 14
    assert info.value.message.endswith("(with the sympy expression of jv at specs/special/jv.yaml:11)"), str(info.value)


def test_spec_error_is_always_one_line():
    assert str(SpecError(PATH, 3, "first\n  second\r\nthird")) == f"{PATH}:3: first second third"


def test_undecodable_file_is_located(tmp_path):
    from generator.loader import load_spec

    path = tmp_path / "specs" / "special" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(GOOD.replace("A demo spec.", "A demo spec \xff.").encode("latin-1"))
    error = error_of(load_spec, path, tmp_path)
    assert str(error) == "specs/special/demo.yaml:3: the file is not UTF-8 text: byte 0xff (invalid start byte)"


def test_sympy_derivation_maps_back_to_spec_functions():
    text = GOOD.replace("derivatives:\n  z:\n    formula: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF 10.6.2\n", "")
    text = text.replace("name: demo", "name: jv")
    rules = derive(text, stem="jv")["jv"]
    (rule,) = rules[0].rules
    assert rule.method == "sympy"
    # d/dz besselj(v, z) = (besselj(v-1, z) - besselj(v+1, z)) / 2, evaluated as two jv needs
    assert sorted(n.args[0].key for n in rule.needs) == ["_0 + 1", "_0 - 1"]


def test_sympy_without_a_rule_is_a_loud_error():
    text = GOOD.replace("    differentiable: false\n    why: no closed form\n", "")
    error = error_of(derive, text)
    assert "sympy knows no closed form for d/dv" in error.message and "Derivative" in error.message
    assert error.line == 5


def test_differentiable_argument_without_any_rule():
    text = GOOD.replace("sympy: besselj(v, z)\n", "").replace(
        "derivatives:\n  z:\n    formula: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF 10.6.2\n", "")
    error = error_of(load, text)
    assert error.line == 9 and "has no rule" in error.message


def test_special_point_must_be_an_equation():
    text = GOOD.replace("    source: DLMF 10.6.2\n", "    source: DLMF 10.6.2\n    at:\n      - where: z < 1\n        formula: jv(v - 1, z)\n")
    error = error_of(derive, text)
    assert "Eq(argument, number)" in error.message and error.line == 17


def test_static_cases_must_cover_every_combination():
    text = GOOD.replace("  - name: z\n    kind: complex\n", "  - name: z\n    kind: complex\n  - name: derivative\n    kind: static_bool\n    default: false\n")
    text = text.replace("  z:\n    formula: jv(v - 1, z) - v / z * jv(v, z)\n    source: DLMF 10.6.2\n",
                        "  z:\n    - when: {derivative: false}\n      formula: jv(v - 1, z) - v / z * jv(v, z)\n      source: DLMF 10.6.2\n")
    error = error_of(load, text)
    assert "no case for derivative=True" in error.message


def test_printer_is_strict():
    from generator.printer import JaxsciPrinter, PrintError

    with pytest.raises(PrintError):
        JaxsciPrinter().doprint(sympy.besselj(1, sympy.Symbol("z")))
    assert JaxsciPrinter().doprint(sympy.gamma(sympy.Symbol("x"))) == "jsp.gamma(x)"


# ---- implicit rules and finite-difference references -----------------------------------------------
FORWARD = """\
name: fwd
scipy: scipy.special.gammainc
summary: A forward function.
args:
  - name: a
    kind: real
    differentiable: false
    why: no closed form in a
  - name: x
    kind: real
derivatives:
  x:
    formula: exp(-x**2 / 2) / sqrt(2 * pi) + a
    source: a made-up density
reference:
  mpmath: ncdf(x)
tests:
  domain: {a: [0, 1], x: [-3, 3]}
"""

INVERSE = """\
name: inv
scipy: scipy.special.gammaincinv
summary: Its inverse in x.
args:
  - name: a
    kind: real
    differentiable: false
    why: fwd has no closed form in a
  - name: y
    kind: real
derivatives:
  y:
    implicit: Eq(fwd(a, inv(a, y)), y)
    source: implicit-function rule
reference:
  finite_differences: no mpmath inverse
tests:
  domain: {a: [0, 1], y: [0.1, 0.9]}
"""


def derive_pair(inverse, forward=FORWARD):
    specs = [parse_spec(forward, "specs/special/fwd.yaml", module="special", stem="fwd"),
             parse_spec(textwrap.dedent(inverse), "specs/special/inv.yaml", module="special", stem="inv")]
    return derive_all(specs)


def test_implicit_rule_is_minus_one_over_the_forward_derivative():
    (case,) = derive_pair(INVERSE)["inv"]
    (rule,) = case.rules
    assert rule.method == "implicit" and rule.needs == ()  # only the function's own value
    expected = sympy.sympify("1 / (exp(-out**2 / 2) / sqrt(2 * pi) + a)")
    got = sympy.sympify(rule.formulas[0][1].replace("inv(a, y)", "out"))
    assert sympy.simplify(got - expected) == 0


def test_implicit_rule_is_zero_where_scipys_value_is_constant():
    # constant_where: SciPy's search stops at a bound there (nbdtrik's k = 0), so the rule is 0
    (case,) = derive_pair(INVERSE.replace("    source: implicit-function rule\n",
                                          "    constant_where: fwd(a, 0) >= y\n    source: implicit-function rule\n"))["inv"]
    (rule,) = case.rules
    got = sympy.sympify(rule.formulas[0][1].replace("inv(a, y)", "out").replace("fwd(a, 0)", "F0"))
    assert isinstance(got, sympy.Piecewise) and got.args[0] == (0, sympy.sympify("F0 >= y"))
    expected = sympy.sympify("1 / (exp(-out**2 / 2) / sqrt(2 * pi) + a)")
    assert sympy.simplify(got.args[1][0] - expected) == 0 and got.args[1][1] == sympy.true


def test_finite_difference_reference_is_recorded():
    spec = parse_spec(INVERSE, "specs/special/inv.yaml", module="special", stem="inv")
    assert spec.finite_differences == "no mpmath inverse" and spec.reference == ()


@pytest.mark.parametrize("inverse,message", [
    (INVERSE.replace("    differentiable: false\n    why: fwd has no closed form in a\n", "").replace(
        "derivatives:\n", "derivatives:\n  a:\n    implicit: fwd(a, inv(a, y)) - y\n    source: implicit\n"),
     "needs d fwd / d a, but fwd is not differentiable in 'a' (no closed form in a)"),
    (INVERSE.replace("Eq(fwd(a, inv(a, y)), y)", "fwd(a, y) - y"), "must contain the function's own value inv(a, y)"),
    (INVERSE.replace("Eq(fwd(a, inv(a, y)), y)", "Lt(fwd(a, inv(a, y)), y)"), "give an expression that is zero"),
    (INVERSE.replace("Eq(fwd(a, inv(a, y)), y)", "fwd(a, inv(a, 0.5)) - y"), "must contain the function's own value"),
    (INVERSE.replace("    source: implicit-function rule\n", "    source: implicit-function rule\n    formula: y\n"),
     "'implicit' defines the derivative by itself; remove 'formula'"),
    (INVERSE.replace("finite_differences: no mpmath inverse", "finite_differences: no mpmath inverse\n  mpmath: x"),
     "unknown key 'mpmath'"),
    (INVERSE.replace("    source: implicit-function rule\n", "    constant_where: fwd(a, 0) - y\n    source: implicit-function rule\n"),
     "constant_where: give a condition"),
])
def test_bad_implicit_rules_are_located_errors(inverse, message):
    error = error_of(derive_pair, inverse)
    assert message in str(error) and str(error).startswith("specs/special/inv.yaml:")


def test_cyclic_implicit_rules_are_errors():
    forward = FORWARD.replace("""    formula: exp(-x**2 / 2) / sqrt(2 * pi) + a
    source: a made-up density""", """    implicit: Eq(inv(a, fwd(a, x)), x)
    source: cyclic""")
    error = error_of(derive_pair, INVERSE, forward)
    assert "cyclic implicit rules" in str(error)


# ---- guards ---------------------------------------------------------------------------------------
GUARDED = GOOD + "guard:\n  valid: And(v <= 100, abs(z) <= 1e3)\n  reason: SciPy crashes beyond.\n"


def test_a_guard_loads_and_prints_as_numpy():
    from generator.printer import GuardPrinter

    spec = load(GUARDED)
    assert spec.guard.reason == "SciPy crashes beyond." and spec.guard.valid.loc.line == 21
    assert GuardPrinter().doprint(spec.guard.expr) == "np.logical_and((np.abs(z) <= 1000.0), (v <= 100))"
    assert load(GOOD).guard is None


@pytest.mark.parametrize("valid, code", [
    ("Max(v, 2) <= 100", "(np.maximum(2, v) <= 100)"),  # a literal beside an array: broadcast, not stacked
    ("v**(1/2) <= 10", "(np.sqrt(v) <= 10)"),
    ("Or(Eq(v, 0), And(v <= 1e3, abs(z)**2 <= 1e6))", "np.logical_or(np.logical_and((np.abs(z)**2 <= 1000000.0), (v <= 1000.0)), (v == 0))"),
])
def test_guards_print_as_numpy_code(valid, code):
    from generator.printer import GuardPrinter

    assert GuardPrinter().doprint(load(GUARDED.replace("And(v <= 100, abs(z) <= 1e3)", valid)).guard.expr) == code


@pytest.mark.parametrize(
    "valid, line, message",
    [
        ("sin(v) < 1", 21, "guard.valid: unknown name 'sin'"),
        ("v + 1", 21, "'v + 1' is not a condition"),
        ("v <= 2", 21, "guard.valid excludes v=2.25, z=0.5, a point of tests.domain: a guard may only exclude inputs outside"),
        ("Not(v > 100)", 21, "unknown name 'Not'"),
        ("And(v <= 100, Ne(v, 50))", 21, "unknown name 'Ne'"),
        ("z <= 100", 21, "compares the complex argument 'z'; compare abs(z)"),
        ("1 < 2", 21, "is always true"),
        ("2 < 1", 21, "is always false"),
        ("v <= 1e400", 21, "has a number beyond float64's range"),
        ("v <= 100 and v >= 0", 21, "cannot evaluate"),
        ("Eq(v > 1, z > 1)", 21, "compares a condition"),
        ("w <= 1", 21, "unknown name 'w'"),
    ],
    ids=["unknown-function", "not-a-condition", "excludes-domain", "not", "ne", "complex-compared", "always-true",
         "always-false", "huge-number", "python-and", "condition-compared", "unknown-symbol"],
)
def test_bad_guards_are_located(valid, line, message):
    error = error_of(load, GUARDED.replace("And(v <= 100, abs(z) <= 1e3)", valid))
    assert error.line == line and message in error.message, str(error)
    assert str(error).startswith(f"{PATH}:{line}: ") and "\n" not in str(error)


@pytest.mark.parametrize(
    "mutate, line, message",
    [
        (lambda t: t.replace("  reason: SciPy crashes beyond.\n", ""), 21, "guard is missing required key 'reason'"),
        (lambda t: t + "  why: typo\n", 23, "unknown key 'why' in guard"),
        (lambda t: t.replace("guard:\n  valid: And(v <= 100, abs(z) <= 1e3)\n  reason: SciPy crashes beyond.\n",
                             "guard: v <= 100\n"), 20, "guard must be a mapping"),
        (lambda t: t.replace("And(v <= 100, abs(z) <= 1e3)", "[1, 2]"), 21, "guard.valid must be a string"),
        (lambda t: t.replace("  domain: {v: [0, 3], z: [0.5, 5]}\n", "  domain: {v: [0, 3], z: [0.5, 5]}\n  points:\n    - {v: 150, z: 1}\n"),
         23, "guard.valid excludes v=150, z=1, tests.points[0]"),
    ],
    ids=["no-reason", "unknown-key", "not-a-mapping", "valid-not-a-string", "excludes-a-point"],
)
def test_guard_structure_errors_are_located(mutate, line, message):
    error = error_of(load, mutate(GUARDED))
    assert error.line == line and message in error.message, str(error)


# ---- native: a native JAX implementation for real inputs ------------------------------------------
NATIVE = """\
name: demo
scipy: scipy.special.xlogy
summary: A demo spec.
args:
  - name: x
    kind: real
  - name: y
    kind: real
    differentiable: false
    why: not needed here
derivatives:
  x:
    formula: log(y)
    source: d/dx x log y
reference:
  mpmath: x * log(y)
tests:
  domain: {x: [-1, 1], y: [0.5, 2]}
native:
  function: jax.scipy.special.xlogy
  tolerance:
    float64: {rtol: 1.0e-15, atol: 0}
    float32: {rtol: 1.0e-6, atol: 0}
  why: measured by benchmarks/native_dispatch.py
"""


def test_native_is_recorded():
    spec = load(NATIVE)
    assert spec.native.function == "jax.scipy.special.xlogy"
    assert spec.native.tolerance["float64"].rtol == 1e-15 and spec.native.tolerance["float32"].atol == 0
    assert spec.native.why == "measured by benchmarks/native_dispatch.py"
    assert load(GOOD).native is None


@pytest.mark.parametrize(
    "mutate, line, message",
    [
        (lambda t: t + "  speedup: 2\n", 25, "unknown key 'speedup' in native"),
        (lambda t: t.replace("  why: measured by benchmarks/native_dispatch.py\n", ""), 20, "native is missing required key 'why'"),
        (lambda t: t.replace("  tolerance:\n    float64: {rtol: 1.0e-15, atol: 0}\n    float32: {rtol: 1.0e-6, atol: 0}\n", ""), 20,
         "native is missing required key 'tolerance'"),
        (lambda t: t[:t.index("native:")] + "native: jax.scipy.special.xlogy\n", 19, "native must be a mapping, got str"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: [jax]"), 20, "native.function must be a string, got a list"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: numpy.log"), 20,
         "native.function must be the dotted name of a callable in jax, like 'jax.scipy.special.i0e', got 'numpy.log'"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: jax.scipy.special.xlogz"), 20,
         "native.function 'jax.scipy.special.xlogz' is not in the installed jax"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: jax.scipy.nospecial.xlogy"), 20,
         "jax.scipy has no attribute 'nospecial'"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: jax.numpy.pi"), 20,
         "native.function 'jax.numpy.pi' is not callable (it is a float)"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: jax.scipy.special.erf"), 20,
         "cannot be called as erf(x, y): too many positional arguments"),
        (lambda t: t.replace("function: jax.scipy.special.xlogy", "function: jax.scipy.special.betainc"), 20,
         "cannot be called as betainc(x, y): missing a required argument: 'x'"),
        (lambda t: t.replace("    float32: {rtol: 1.0e-6, atol: 0}\n", ""), 22, "native.tolerance has no tolerance for float32"),
        (lambda t: t.replace("{rtol: 1.0e-6, atol: 0}", "{rtol: 1.0e-6}"), 23, "native.tolerance.float32 is missing required key 'atol'"),
        (lambda t: t.replace("{rtol: 1.0e-15, atol: 0}", "{rtol: -1.0e-15, atol: 0}"), 22,
         "native.tolerance.float64.rtol must be a finite number >= 0"),
        (lambda t: t.replace("{rtol: 1.0e-15, atol: 0}", "{rtol: 1.0e-15, atol: .inf}"), 22,
         "native.tolerance.float64.atol must be a finite number >= 0"),
        (lambda t: t.replace("{rtol: 1.0e-15, atol: 0}", "{rtol: 1.0e-15, atol: small}"), 22,
         "native.tolerance.float64.atol must be a number, got str 'small'"),
        (lambda t: t.replace("{rtol: 1.0e-15, atol: 0}", "{rtol: 1e-15, atol: 0}"), 22,
         "native.tolerance.float64.rtol must be a number, got str '1e-15' (YAML reads an exponent without a decimal point as a string: write 1.0e-15)"),
        (lambda t: t.replace("    float64:", "    float16: {rtol: 0, atol: 0}\n    float64:"), 22,
         "native.tolerance names 'float16'; dtypes are float32, float64"),
        (lambda t: t.replace("tests:\n", "outputs:\n  - name: out\n    dtype: complex\ntests:\n"), 23,
         "native: output 'out' is complex for real inputs"),
        (lambda t: t + "guard:\n  valid: x < 10\n  reason: a demo\n", 20, "native and guard cannot be combined"),
    ],
    ids=["unknown-key", "no-why", "no-tolerance", "not-a-mapping", "function-not-a-string", "not-jax", "not-in-jax",
         "no-such-module", "not-callable", "too-many-arguments", "too-few-arguments", "missing-dtype", "missing-bound",
         "negative-tolerance", "infinite-tolerance", "tolerance-not-a-number", "yaml-exponent", "unknown-dtype", "complex-output", "with-guard"],
)
def test_native_errors_are_located(mutate, line, message):
    error = error_of(load, mutate(NATIVE))
    assert error.line == line, str(error)
    assert message in error.message, str(error)
    assert str(error).startswith(f"{PATH}:{line}: ") and "\n" not in str(error)


def test_native_signature_check_covers_static_and_optional_arguments():
    # scipy's comb has exact=, jax's has not: the call the core would make cannot be bound
    comb = NATIVE.replace("scipy.special.xlogy", "scipy.special.comb").replace(
        "    why: not needed here\n", "    why: not needed here\n  - name: exact\n    kind: static_bool\n    default: false\n    keyword_only: true\n"
    ).replace("jax.scipy.special.xlogy", "jax.scipy.special.comb")
    error = error_of(load, comb)
    assert "cannot be called as comb(x, y, exact=...): got an unexpected keyword argument 'exact'" in str(error)
    # a static argument with a single choice is fixed, and not passed
    fixed = comb.replace("    default: false\n", "    default: false\n    choices: [false]\n    why_choices: only this\n")
    # (SciPy's comb calls them N and k)
    assert load(re.sub(r"\bx\b", "N", re.sub(r"\by\b", "k", fixed))).native.function == "jax.scipy.special.comb"
    # zeta(x, q=None): called with and without q
    zeta = NATIVE.replace("    why: not needed here\n", "    why: not needed here\n    default: null\n").replace(
        "derivatives:\n  x:\n    formula: log(y)\n    source: d/dx x log y\n", "").replace("    kind: real\n  - name: y", "    kind: real\n    differentiable: false\n    why: demo\n  - name: y")
    assert load(zeta.replace("jax.scipy.special.xlogy", "jax.scipy.special.zeta")).native is not None
    error = error_of(load, zeta)
    assert "cannot be called as xlogy(x): missing a required argument: 'y'" in str(error)


STATIC_ORDER = """\
name: dnz
scipy: scipy.special.jvp
summary: A demo spec with a static int order.
args:
  - name: v
    kind: real
    differentiable: false
    why: no closed form
  - name: z
    kind: complex
  - name: n
    kind: static_int
    default: 1
derivatives:
  z:
    formula: FORMULA
    source: the definition
reference:
  mpmath: besselj(v, z, n)
tests:
  domain: {v: [0, 3], z: [0.5, 5]}
  statics: {n: [1, 2]}
"""


def test_a_static_int_may_pass_on_as_an_integer_polynomial():
    """``dnz(v, z, n + 1)``: a needed evaluation at another static int is planned with the statics as
    code, and the rule's functions take the static as a keyword; ``n`` itself is the function's value."""
    ((case,),) = [derive(STATIC_ORDER.replace("FORMULA", "n * dnz(v, z, 2 * n + 1) + dnz(v, z, n)"), "dnz")["dnz"]]
    (rule,) = case.rules
    assert rule.statics == ("n",)
    (need,) = rule.needs
    assert need.statics_code == (("n", "2*n + 1"),)


@pytest.mark.parametrize("order", ["n / 2", "v"])
def test_a_static_int_passed_on_must_be_an_integer_polynomial(order):
    error = error_of(derive, STATIC_ORDER.replace("FORMULA", f"dnz(v, z, {order})"), "dnz")
    assert "integer polynomial in the caller's static ints" in error.message or "is static; pass an integer" in error.message, error.message


# ---- derivative_outputs: the function's own derivatives returned with its value (SciPy's diff_n) ------------
SPH_HARM_Y_PATH = "specs/special/sph_harm_y.yaml"


def _sph_harm_y(text=None):
    from generator import ROOT

    text = (ROOT / SPH_HARM_Y_PATH).read_text() if text is None else text
    return parse_spec(text, SPH_HARM_Y_PATH, module="special", stem="sph_harm_y")


def test_derivative_outputs_are_recorded():
    spec = _sph_harm_y()
    assert spec.derivative_outputs.order == "diff_n"
    assert spec.derivative_outputs.args == ("theta", "phi")
    assert set(spec.derivative_outputs.tolerance) == {"float32", "float64"}
    assert load(GOOD).derivative_outputs is None


@pytest.mark.parametrize(
    "old, new, marker, message",
    [
        ("  order: diff_n\n", "  order: theta\n", "  order: theta", "derivative_outputs.order must name a static_int argument"),
        ("    choices: [0, 1, 2]\n    why_choices: \"SciPy computes the derivatives up to order 2 only (ValueError beyond)\"\n", "",
         "  order: diff_n", "derivative_outputs.order: argument 'diff_n' needs `choices`"),
        ("  domain: {n: [0, 6]", "  statics: {diff_n: [0, 1]}\n  domain: {n: [0, 6]", "  order: diff_n",
         "tests.statics must not list 'diff_n'"),
        ("  args: [theta, phi]\n", "  args: [n, phi]\n", "  args: [n, phi]", "derivative_outputs.args: 'n' is not a differentiable real argument"),
        ("  args: [theta, phi]\n", "  args: [theta, theta]\n", "  args: [theta, theta]", "derivative_outputs.args names 'theta' twice"),
        ("  args: [theta, phi]\n", "  args: []\n", "  args: []", "derivative_outputs.args must name at least one argument"),
        ("  order: diff_n\n", "  order: diff_n\n  orders: 2\n", "  orders: 2", "unknown key 'orders' in derivative_outputs; did you mean 'order'?"),
        ("  tolerance: {float64: {rtol: 1.0e-13, atol: 1.0e-13}, float32: {rtol: 1.0e-5, atol: 1.0e-5}}\n", "",
         "  order: diff_n", "derivative_outputs is missing required key 'tolerance'"),
    ],
    ids=["order-not-static-int", "order-without-choices", "order-in-tests-statics", "integer-arg", "repeated-arg", "no-args",
         "unknown-key", "no-tolerance"],
)
def test_derivative_outputs_errors_are_located(old, new, marker, message):
    from generator import ROOT

    text = (ROOT / SPH_HARM_Y_PATH).read_text()
    assert old in text
    text = text.replace(old, new)
    error = error_of(_sph_harm_y, text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(marker))
    assert message in error.message, str(error)
    assert error.line == line, str(error)
    assert str(error).startswith(f"{SPH_HARM_Y_PATH}:{line}: ")
