"""Specs are checked against the installed SciPy and mpmath when they load (generator/scipycheck.py),
and explicit rules of specs without a sympy definition against mpmath's derivative (generator/mpcheck.py)."""
import pytest

from generator.derive import derive_all
from generator.errors import SpecError
from generator.loader import parse_spec

PATH = "specs/special/logistic.yaml"
LOGISTIC = """\
name: logistic
scipy: scipy.special.expit
summary: The logistic sigmoid.
args:
  - name: x
    kind: real
sympy: 1 / (1 + exp(-x))
reference:
  mpmath: 1 / (1 + exp(-x))
tests:
  domain: {x: [-20, 20]}
"""


def load(text, path=PATH):
    return parse_spec(text, path, module="special", stem=path.rsplit("/", 1)[1][:-5])


def errors_of(text, path=PATH):
    with pytest.raises(SpecError) as info:
        load(text, path)
    return [str(e) for e in getattr(info.value, "errors", [info.value])]


def test_the_walkthrough_spec_loads():
    assert load(LOGISTIC).scipy == "scipy.special.expit"


@pytest.mark.parametrize("mutate, expected", [
    # the issue's example: SciPy would take y as its out= and write into the caller's array
    (lambda t: t.replace("    kind: real\n", "    kind: real\n  - name: y\n    kind: real\n").replace("{x: [-20, 20]}", "{x: [-20, 20], y: [0, 1]}"),
     [f"{PATH}:7: scipy.special.expit takes 1 argument(s), the spec lists 2 traced (x, y): a ufunc takes the next one as its out= and writes into it"]),
    (lambda t: t.replace("scipy.special.expit", "scipy.special.expitt"),
     [f"{PATH}:2: scipy: scipy.special has no function 'expitt'; did you mean scipy.special.expit?"]),
    (lambda t: t.replace("mpmath: 1 / (1 + exp(-x))", "mpmath: '1 / (1 + expp(-x)) + diff(lambda t: sin(t), x)'"),
     [f"{PATH}:9: reference.mpmath: 'expp' is not an mpmath name or an argument; did you mean 'exp'?"]),
    (lambda t: t.replace("name: x", "name: t").replace("-x", "-t").replace("{x:", "{t:"),
     [f"{PATH}:5: argument 't' is 'x' in scipy.special.expit(x): use SciPy's names in SciPy's order, or keep this name and say scipy_name: x (or, where a SciPy release renamed it, scipy_renamed: {{'MAJOR.MINOR': x}})"]),
    (lambda t: t.replace("    kind: real\n", "    kind: real\n  - name: k\n    kind: static_bool\n    default: false\n"),
     [f"{PATH}:7: argument 'k': scipy.special.expit is a ufunc, which takes no static arguments (only array arguments, then out=)"]),
    (lambda t: t.replace("    kind: real\n", "    kind: real\n    scipy_name: z\n"),
     [f"{PATH}:5: argument 'x': scipy_name 'z' is not SciPy's name here, 'x' (scipy.special.expit(x))"]),
], ids=["extra-argument", "misspelled-scipy-name", "unknown-mpmath-name", "other-argument-name", "static-on-a-ufunc", "wrong-scipy-name"])
def test_specs_that_do_not_match_scipy_are_rejected(mutate, expected):
    assert errors_of(mutate(LOGISTIC)) == expected


def test_every_mismatch_is_reported_at_once():
    text = LOGISTIC.replace("mpmath: 1 / (1 + exp(-x))", "mpmath: nosuch(x) + other(x)").replace(
        "    kind: real\n", "    kind: real\n  - name: k\n    kind: static_bool\n    default: false\n")
    found = errors_of(text)
    assert len(found) == 3 and "'nosuch'" in found[1] and "'other'" in found[2], found


SPHERICAL = """\
name: spherical_jn
scipy: scipy.special.spherical_jn
summary: Spherical Bessel function.
args:
  - name: n
    kind: integer
  - name: z
    kind: complex
  - name: derivative
    kind: static_bool
    default: false
derivatives:
  z:
    - when: {derivative: false}
      formula: spherical_jn(n, z, derivative=True)
      source: definition
    - when: {derivative: true}
      formula: -(n + 1) / z * spherical_jn(n, z, derivative=True) + (n * (n + 1) / z**2 - 1) * spherical_jn(n, z)
      source: DLMF 10.47.E1
reference:
  mpmath: "diff(lambda t: sqrt(pi / (2 * t)) * besselj(n + 0.5, t), z) if derivative else sqrt(pi / (2 * z)) * besselj(n + 0.5, z)"
tests:
  domain: {n: [0, 5], z: [0.5, 10]}
"""


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.replace("    default: false\n", "    default: true\n"),
     "argument 'derivative': default True, but scipy.special.spherical_jn(n, z, derivative=False) has False"),
    (lambda t: t.replace("name: derivative", "name: deriv").replace("derivative:", "deriv:").replace("if derivative", "if deriv"),
     "argument 'deriv': scipy.special.spherical_jn(n, z, derivative=False) has no parameter 'deriv'; did you mean 'derivative'?"),
    (lambda t: t.replace("  - name: n\n    kind: integer\n  - name: z\n    kind: complex\n", "  - name: z\n    kind: complex\n  - name: n\n    kind: integer\n"),
     "argument 'z' is not parameter 1 of scipy.special.spherical_jn(n, z, derivative=False): list the arguments in SciPy's order"),
])
def test_python_functions_are_checked_against_their_signature(mutate, message):
    path = "specs/special/spherical_jn.yaml"
    assert load(SPHERICAL, path).scipy == "scipy.special.spherical_jn"
    found = errors_of(mutate(SPHERICAL), path)
    assert any(message in e for e in found), found


# --- scipy_renamed: an argument SciPy renamed in a supported release (generator/releases.py) ----------

def test_ndtri_is_y_until_scipy_1_17_and_p_from_1_18():
    from generator import ROOT
    from generator.loader import load_spec

    (y,) = load_spec(ROOT / "specs" / "special" / "ndtri.yaml", ROOT).args
    assert y.name == "y" and y.scipy_renamed == (((1, 18), "p"),)
    assert [y.scipy_name_in(release) for release in ((1, 13), (1, 17), (1, 18), (2, 0))] == ["y", "y", "p", "p"]


def test_a_rename_is_checked_against_the_installed_scipy():
    """A rename in a release after the installed one does not apply; one at or before it must be SciPy's
    name, for a ufunc (from its docstring) and for a Python function (from its signature)."""
    from generator.releases import installed_scipy

    release = installed_scipy()
    later = f"{release[0]}.{release[1] + 1}"
    assert load(LOGISTIC.replace("    kind: real\n", f"    kind: real\n    scipy_renamed: {{\"{later}\": z}}\n")).args[0].scipy_renamed
    assert errors_of(LOGISTIC.replace("    kind: real\n", "    kind: real\n    scipy_renamed: {\"1.0\": z}\n")) == [
        f"{PATH}:5: argument 'x': SciPy {release[0]}.{release[1]} names it 'x' (scipy.special.expit(x)), not 'z' as scipy_renamed says"]
    spherical = SPHERICAL.replace("    kind: complex\n", "    kind: complex\n    scipy_renamed: {\"1.0\": x}\n")
    found = errors_of(spherical, "specs/special/spherical_jn.yaml")
    assert any("argument 'z': scipy.special.spherical_jn(n, z, derivative=False) has no parameter 'x'" in e for e in found), found


@pytest.mark.parametrize("value, line, message", [
    ("p", 7, "argument 'x'.scipy_renamed must be a mapping, got str 'p'"),
    ("{}", 7, "argument 'x': scipy_renamed must map at least one SciPy release to the name it took"),
    ("{1.18: p}", 7, "keys must be strings, got 1.18 (quote it: YAML reads 1.20 as the number 1.2)"),
    ('{"1.18.1": p}', 7, "argument 'x': scipy_renamed: '1.18.1' is not a SciPy release MAJOR.MINOR, such as \"1.18\""),
    ('{"1.18": 2}', 7, "argument 'x': scipy_renamed: SciPy 1.18's name must be a string, got 2"),
    ('{"1.18": not a name}', 7, "argument 'x': scipy_renamed: SciPy 1.18's name 'not a name' is not a valid Python identifier"),
    ('{"1.18": x}', 7, "argument 'x': scipy_renamed: SciPy 1.18 names it 'x' as before; that is no rename, remove it"),
    ('\n      "1.18": p\n      "1.16": q', 9, "argument 'x': scipy_renamed: list the releases from the oldest on (1.16 follows 1.18)"),
], ids=["not-a-mapping", "empty", "unquoted-release", "patch-release", "not-a-string", "not-an-identifier", "no-rename", "out-of-order"])
def test_malformed_renames_are_located(value, line, message):
    text = LOGISTIC.replace("    kind: real\n", f"    kind: real\n    scipy_renamed: {value}\n")
    assert errors_of(text) == [f"{PATH}:{line}: {message}"]


def test_a_static_argument_cannot_be_renamed():
    text = SPHERICAL.replace("    default: false\n", "    default: false\n    scipy_renamed: {\"1.18\": deriv}\n")
    assert errors_of(text, "specs/special/spherical_jn.yaml") == [
        "specs/special/spherical_jn.yaml:12: argument 'derivative': scipy_renamed is for traced arguments, which SciPy "
        "receives by position; a static one is passed by its name"]


# --- native.jax_since: the jax release that added a native function (generator/releases.py) ---------

def _dawsn(jax_since: str) -> str:
    from generator import ROOT

    text = (ROOT / "specs" / "special" / "dawsn.yaml").read_text()
    return text.replace('  jax_since: "0.10.2"', f"  jax_since: {jax_since}")


def _dawsn_line(key: str) -> int:
    """The line of dawsn.yaml's ``native.<key>``, which the errors name."""
    from generator import ROOT

    lines = (ROOT / "specs" / "special" / "dawsn.yaml").read_text().splitlines()
    return lines.index(next(l for l in lines if l.startswith(f"  {key}:"))) + 1


def test_a_native_function_is_checked_against_its_jax_release():
    """With the jax that added it or a later one the function must be there (and match); with an older
    one it must be missing, and SciPy computes the function (tests/test_native.py)."""
    import jax
    from generator.releases import installed_jax

    path = "specs/special/dawsn.yaml"
    assert load(_dawsn('"0.10.2"'), path).native.function == "jax.scipy.special.dawsn"
    release = installed_jax()
    if hasattr(jax.scipy.special, "dawsn"):
        assert load(_dawsn('"0.6"'), path).native is not None
        later = f"{release[0]}.{release[1] + 1}"
        assert errors_of(_dawsn(f'"{later}"'), path) == [
            f"{path}:{_dawsn_line('jax_since')}: native.jax_since: the installed jax {jax.__version__} has jax.scipy.special.dawsn already, before jax {later}"]
    else:
        assert release < (0, 10, 2)
        assert errors_of(_dawsn('"0.6"'), path) == [f"{path}:{_dawsn_line('function')}: native.function 'jax.scipy.special.dawsn' is not in the "
                                                    f"installed jax {jax.__version__}: jax.scipy.special has no attribute 'dawsn'"]


@pytest.mark.parametrize("value, message", [
    ('"0.10"', None),
    ("0.10", "native.jax_since must be a string, got float 0.1"),
    ('"0.10.x"', "native.jax_since: '0.10.x' is not a jax release, such as \"0.10.2\""),
    ('"10"', "native.jax_since: '10' is not a jax release, such as \"0.10.2\""),
])
def test_malformed_jax_releases_are_located(value, message):
    path = "specs/special/dawsn.yaml"
    if message is None:
        assert load(_dawsn(value), path).native.function == "jax.scipy.special.dawsn"
    else:
        found = errors_of(_dawsn(value), path)
        assert len(found) == 1 and found[0].startswith(f"{path}:{_dawsn_line('jax_since')}: {message}"), found


def test_a_rule_without_sympy_is_checked_against_mpmaths_derivative():
    # struve has no sympy definition; its x rule (DLMF 11.4.27) is checked against mpmath's struveh
    struve = """\
name: struve
scipy: scipy.special.struve
summary: Struve function.
args:
  - name: v
    kind: real
    differentiable: false
    why: not here
  - name: x
    kind: real
derivatives:
  x:
    formula: struve(v - 1, x) - v / x * struve(v, x)
    source: DLMF 11.4.27
reference:
  mpmath: struveh(v, x)
tests:
  domain: {v: [-2, 4], x: [0.5, 20]}
"""
    path = "specs/special/struve.yaml"
    (rules,) = derive_all([load(struve, path)])["struve"]
    assert "agrees with mpmath's numerical derivative of the reference at 2 sample point(s)" in rules.rules[0].check
    with pytest.raises(SpecError) as info:
        derive_all([load(struve.replace("- v / x *", "+ v / x *"), path)])
    assert str(info.value).startswith(f"{path}:13: derivatives.x: the formula disagrees with mpmath's numerical derivative of the reference 'struveh(v, x)' at v=")
