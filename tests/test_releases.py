"""SciPy releases within the supported range that added a function or an argument, or changed a default
(generator/releases.py): the check against the installed SciPy, and the core on an older SciPy."""
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

from generator.releases import installed_scipy
from jaxsci import _core
from jaxsci._core import registry
from test_scipy_check import LOGISTIC, PATH, SPHERICAL, errors_of, load

SPHERICAL_PATH = "specs/special/spherical_jn.yaml"
RELEASE = installed_scipy()
LATER = f"{RELEASE[0]}.{RELEASE[1] + 1}"  # a release after the installed one
INSTALLED = f"{RELEASE[0]}.{RELEASE[1]}"


def test_a_function_added_after_the_installed_scipy_must_be_missing_there():
    later = LOGISTIC.replace("scipy: scipy.special.expit\n", f'scipy: scipy.special.expit\nscipy_since: "{LATER}"\n')
    assert errors_of(later) == [f"{PATH}:2: scipy_since: SciPy {INSTALLED} has scipy.special.expit already, before SciPy {LATER}"]
    missing = later.replace("scipy.special.expit", "scipy.special.expit_of_a_later_scipy")
    assert load(missing).scipy_since == tuple(map(int, LATER.split(".")))
    # from its release on, it is checked as usual
    assert errors_of(LOGISTIC.replace("scipy: scipy.special.expit\n", 'scipy: scipy.special.expitt\nscipy_since: "1.13"\n')) == [
        f"{PATH}:2: scipy: scipy.special has no function 'expitt'; did you mean scipy.special.expit?"]


def _spherical_static(extra: str) -> str:
    return SPHERICAL.replace("    default: false\n", "    default: false\n    choices: [false]\n    why_choices: not here\n" + extra)


def test_an_argument_added_after_the_installed_scipy_must_be_missing_there():
    assert errors_of(_spherical_static(f'    scipy_since: "{LATER}"\n'), SPHERICAL_PATH) == [
        f"{SPHERICAL_PATH}:9: argument 'derivative': scipy_since: scipy.special.spherical_jn(n, z, derivative=False) has it "
        f"already, in SciPy {INSTALLED}, before SciPy {LATER}"]
    assert load(_spherical_static('    scipy_since: "1.13"\n'), SPHERICAL_PATH).args[2].scipy_since == (1, 13)


def test_scipys_default_before_a_release():
    text = _spherical_static(f'    scipy_default_before: {{"{LATER}": true}}\n')
    assert errors_of(text, SPHERICAL_PATH) == [
        f"{SPHERICAL_PATH}:9: argument 'derivative': default True (scipy_default_before), but "
        "scipy.special.spherical_jn(n, z, derivative=False) has False"]
    (arg,) = [a for a in load(_spherical_static('    scipy_default_before: {"1.13": null}\n'), SPHERICAL_PATH).args if a.static]
    assert [arg.scipy_default_in(r) for r in ((1, 12), (1, 13), (1, 17))] == [None, False, False]


@pytest.mark.parametrize("text, path, line, message", [
    (LOGISTIC.replace("scipy: scipy.special.expit\n", 'scipy: scipy.special.expit\nscipy_since: "1.15.0"\n'), PATH, 3,
     "scipy_since: '1.15.0' is not a SciPy release MAJOR.MINOR, such as \"1.18\""),
    (LOGISTIC.replace("    kind: real\n", '    kind: real\n    scipy_since: "1.15"\n'), PATH, 7,
     "argument 'x': scipy_since is for a static argument whose only choice is its default: an older SciPy is called without it"),
    (SPHERICAL.replace("    default: false\n", '    default: false\n    scipy_since: "1.15"\n'), SPHERICAL_PATH, 12,
     "argument 'derivative': scipy_since is for a static argument whose only choice is its default: an older SciPy is called without it"),
    (_spherical_static('    scipy_default_before: {"1.15": 3}\n'), SPHERICAL_PATH, 14,
     "default 3 of argument 'derivative' does not fit its kind static_bool"),
    (_spherical_static('    scipy_default_before: {"1.15": true, "1.14": false}\n'), SPHERICAL_PATH, 14,
     "argument 'derivative': scipy_default_before: list the releases from the oldest on (1.14 follows 1.15)"),
    (LOGISTIC.replace("    kind: real\n", '    kind: real\n    scipy_default_before: {"1.15": 1.0}\n'), PATH, 7,
     "argument 'x': scipy_default_before is for static arguments, which SciPy receives by name"),
], ids=["patch-release", "traced-argument", "several-choices", "wrong-kind", "out-of-order", "default-of-a-traced-argument"])
def test_malformed_releases_are_located(text, path, line, message):
    (found,) = errors_of(text, path)
    assert found.startswith(f"{path}:{line}: {message}"), found


# --- the core on a SciPy older than a function or an argument --------------------------------------

def _factorial(qualname: str, *, function_since=None, extend_since=None):
    return registry.Function(
        qualname=qualname, scipy="scipy.special.factorial", scipy_since=function_since,
        args=(_core.Arg("n", "real", why="a reason"),
              _core.Arg("exact", "static_bool", choices=(False,), why_choices="a reason"),
              _core.Arg("extend", "static_str", choices=("zero",), why_choices="a reason", scipy_since=extend_since)),
        outputs=(_core.Output("out", "promoted"),), vmap_method="expand_dims")


def test_the_core_calls_an_older_scipy_without_a_newer_argument():
    n = np.array([-1.0, 3.0, 4.0])
    older = _factorial("test.factorial_older_scipy", extend_since=(99, 0))
    with pytest.raises(TypeError, match="'unknown'"):  # only the newer argument is left out
        older.scipy_callable()(n, exact=False, extend="zero", unknown=1)
    np.testing.assert_array_equal(older.scipy_callable()(n, exact=False, extend="zero"), sc.factorial(n))
    assert _factorial("test.factorial_newer_scipy", extend_since=(1, 13)).scipy_callable() is sc.factorial


def test_a_function_newer_than_the_installed_scipy_says_which_release_it_needs():
    later = _core.register(_factorial("test.factorial_of_a_later_scipy", function_since=(99, 0)))
    with pytest.raises(NotImplementedError, match=r"jaxsci\.test\.factorial_of_a_later_scipy needs SciPy 99\.0 or later"):
        _core.call(later, jnp.ones(3), False, "zero")
    _factorial("test.factorial_of_this_scipy", function_since=(1, 13)).require_scipy()
