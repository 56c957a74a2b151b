"""Completeness both ways, SciPy-identical signatures, and generated/ as a pure function of specs/ + templates/."""
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
import scipy

import jaxsci
from generator import ROOT
from generator.pipeline import generate
from generator.render import existing_files
from generator.releases import installed_scipy
from generator.scipycheck import documented_signature
from specdata import SPEC_ERRORS, SPECS, params
from spectree import copy_specs

# Every spec file (and every file the loader rejects), as specs/<module>/<name>.yaml.
SPEC_FILES = sorted({str(p.relative_to(ROOT)) for p in (ROOT / "specs").glob("*/*.yaml")}
                    | {e.path for e in SPEC_ERRORS})


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.removeprefix("specs/").removesuffix(".yaml"))
def test_spec_loads(path):
    """A spec the loader rejects fails here, with the loader's ``path:line: message``; the suites leave
    it out (tests/specdata.py) and run every other spec."""
    errors = [str(e) for e in SPEC_ERRORS if e.path == path]
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)


def test_every_spec_is_exported():
    for spec in SPECS:
        module = getattr(jaxsci, spec.module)
        assert spec.name in module.__all__, f"{spec.path}: {spec.name} is not in jaxsci.{spec.module}.__all__"
        assert callable(getattr(module, spec.name))


def test_every_scipy_special_ufunc_has_a_spec():
    """The whole of scipy.special's ufuncs, by name (issue: all 232 on SciPy 1.17)."""
    import numpy as np
    import scipy.special

    ufuncs = {n for n in dir(scipy.special) if isinstance(getattr(scipy.special, n), np.ufunc)}
    broken = {Path(e.path).stem for e in SPEC_ERRORS if Path(e.path).parent.name == "special"}  # see test_spec_loads
    missing = sorted(ufuncs - {s.name for s in SPECS if s.module == "special"} - broken)
    assert not missing, f"{len(missing)} scipy.special ufuncs have no spec: {', '.join(missing)}"


def _core_exports() -> dict:
    """specs/exports.yaml: {module: {name: (core module, attribute, line)}}."""
    from generator.loader import load_exports

    return load_exports(ROOT / "specs", ROOT)


def test_every_export_has_a_spec():
    names = {(s.module, n) for s in SPECS for n in (s.name, *s.aliases)}
    names |= {(module, n) for module, exported in _core_exports().items() for n in exported}
    for module_name in {s.module for s in SPECS}:
        module = getattr(jaxsci, module_name)
        loaded = {n for n in vars(module) if not n.startswith("_")}
        assert loaded <= set(module.__all__), "the module exposes names outside __all__"
        assert {n for n in dir(module) if not n.startswith("_")} == set(module.__all__)
        for name in module.__all__:
            assert callable(getattr(module, name)), f"jaxsci.{module_name}.{name} does not load"
            assert (module_name, name) in names, f"jaxsci.{module_name}.{name} has no spec and is not in specs/exports.yaml"


def test_scipy_special_public_list_both_ways():
    """Every public scipy.special callable (``__all__`` without ``test``) is in jaxsci.special, under
    its own name or as the alias SciPy makes it, or is listed in specs/uncovered.yaml with the reason;
    and every name jaxsci exports or lists is public in SciPy. A name SciPy adds or removes, or one
    that gets a spec while still listed, fails here."""
    import scipy.special
    from generator.loader import load_uncovered

    public = set(scipy.special.__all__) - {"test"}
    uncovered = load_uncovered(ROOT / "specs", ROOT).get("special", {})
    ours = [s for s in SPECS if s.module == "special"]
    exported = {n for s in ours for n in (s.name, *s.aliases)} | set(_core_exports().get("special", {}))
    broken = {Path(e.path).stem for e in SPEC_ERRORS if Path(e.path).parent.name == "special"}  # see test_spec_loads
    missing = sorted(public - exported - set(uncovered) - broken)
    assert not missing, f"scipy.special's public {', '.join(missing)}: neither wrapped nor listed in specs/uncovered.yaml with a reason"
    gone = sorted((exported | set(uncovered)) - public)
    assert not gone, f"{', '.join(gone)}: not in scipy.special.__all__ (SciPy {scipy.__version__}) any more"
    both = sorted(exported & set(uncovered))
    assert not both, f"{', '.join(both)}: wrapped, but still listed in specs/uncovered.yaml; remove them there"
    assert set(jaxsci.special.__all__) == exported
    for spec in ours:  # aliases stay aliases, as in SciPy
        for alias in spec.aliases:
            assert getattr(scipy.special, alias) is getattr(scipy.special, spec.name), f"scipy.special.{alias} is not {spec.name}"
            assert getattr(jaxsci.special, alias) is getattr(jaxsci.special, spec.name)


@pytest.mark.parametrize("name", sorted(_core_exports().get("special", {})))
def test_core_exports_are_scipys_objects_or_signatures(name):
    """specs/exports.yaml's names: SciPy's classes themselves, and functions and context managers with
    SciPy's signatures (``seterr(**kwargs)``)."""
    import scipy.special

    ours, theirs = getattr(jaxsci.special, name), getattr(scipy.special, name)
    if isinstance(theirs, type) and issubclass(theirs, BaseException):
        assert ours is theirs
    else:
        assert ours is not theirs, f"jaxsci.special.{name} is SciPy's own: it would not reach the callbacks"
        shape = lambda f: [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]
        assert shape(ours) == shape(theirs)


@pytest.mark.parametrize("spec", params(SPECS, ids=lambda s: s.name))
def test_signature_matches_scipy(spec):
    import importlib

    mod, _, name = spec.scipy.rpartition(".")
    scipy_fn = getattr(importlib.import_module(mod), name)
    ours = inspect.signature(getattr(getattr(jaxsci, spec.module), spec.name))
    # SciPy's **kwargs for a numpy ufunc (softplus's): jaxsci takes them only to refuse them clearly
    variadic = [p for p in ours.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert [p.name for p in variadic] == (["numpy_keywords"] if spec.numpy_keywords else [])
    ours = ours.replace(parameters=[p for p in ours.parameters.values() if p not in variadic])
    assert [p.name for p in ours.parameters.values()] == [a.name for a in spec.args]
    if spec.kernel:  # jaxsci's own kernel: positional arrays in the spec's order (or *args, a numeric factory's),
        # then its static arguments with the spec's defaults (bessel_diff's n=1)
        theirs = list(inspect.signature(scipy_fn).parameters.values())
        if not (len(theirs) == 1 and theirs[0].kind is inspect.Parameter.VAR_POSITIONAL):
            assert [p.name for p in theirs] == [a.name for a in spec.args]
            assert [p.default for p in theirs] == [a.default if a.has_default else inspect.Parameter.empty for a in spec.args]
    elif not hasattr(scipy_fn, "nin"):  # a Python function: names and defaults must match SciPy's exactly
        # except an `out=` array to write into, which JAX's immutable arrays have no use for (zeta), and
        # `**kwargs` passed on to a numpy ufunc (softplus's out=, where=, dtype=)
        # (a multi-ufunc's, legendre_p's, is its docstring's: it takes *args, **kwargs)
        # An argument SciPy renamed in a supported release (scipy_renamed) keeps its public name here;
        # SciPy's is the installed release's (generator/releases.py).
        theirs = [p for p in documented_signature(scipy_fn).parameters.values()
                  if p.name != "out" and p.kind is not inspect.Parameter.VAR_KEYWORD]
        release = installed_scipy()
        scipy_names = [a.scipy_name_in(release) if a.scipy_renamed else a.name for a in spec.args]
        assert [(n, p.default) for n, p in zip(scipy_names, ours.parameters.values())] == [(p.name, p.default) for p in theirs]
    else:  # a ufunc: positional arguments and outputs must match in number
        assert scipy_fn.nin == len(spec.args) and scipy_fn.nout == len(spec.outputs)


@pytest.mark.parametrize("spec", params(SPECS, ids=lambda s: s.name))
def test_docstring_is_useful(spec):
    doc = getattr(getattr(jaxsci, spec.module), spec.name).__doc__
    assert doc.startswith(spec.summary)
    if not spec.kernel:
        assert f"docs.scipy.org/doc/scipy/reference/generated/{spec.scipy}.html" in doc
    for arg in spec.args:
        assert f"  {arg.name}: " in doc
        if arg.differentiable:
            assert "Differentiable:" in doc


@pytest.mark.slow  # the README's test command runs `python -m generator --check` itself, first: 25 s again here
def test_generated_is_current():
    # Through the derive cache, as `python -m generator --check` does (.ci/run runs that first, so the
    # cache is warm here); tests/test_generator_cache.py shows cached and fresh runs give the same bytes,
    # and test_check_flag_reports_a_stale_tree regenerates a deleted tree byte for byte.
    files = generate(ROOT).files
    assert existing_files(ROOT / "generated") == files, "generated/ is stale: run `python -m generator`"


def test_every_generated_file_is_marked():
    for rel, content in existing_files(ROOT / "generated").items():
        first = content.splitlines()[0]
        marker = "<!-- @generated by `python -m generator`" if rel.endswith(".md") else "# @generated by `python -m generator`"
        assert first.startswith(marker) and "DO NOT EDIT" in first, rel
    for spec in SPECS:
        content = (ROOT / "generated" / "jaxsci" / spec.module / f"_{spec.name}.py").read_text()
        assert spec.path in content.splitlines()[0]


# A small tree keeps the four generator runs below quick; the whole tree's --check is .ci/run's.
SMALL_TREE = ("jv", "airy", "gammaincinv", "gammainc", "gammaincc", "gammaln")


def test_check_flag_reports_a_stale_tree(tmp_path):
    import shutil

    for folder in ("templates", "generator"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    copy_specs(SMALL_TREE, tmp_path)
    run = lambda *a: subprocess.run([sys.executable, "-m", "generator", "--root", str(tmp_path), *a],
                                    capture_output=True, text=True, cwd=tmp_path, timeout=600)
    first = run()
    assert first.returncode == 0, first.stderr
    generated = existing_files(tmp_path / "generated")
    assert f"jaxsci/special/_{SMALL_TREE[0]}.py" in generated
    victim = tmp_path / "generated" / "jaxsci" / "special" / "_jv.py"
    victim.write_text(victim.read_text() + "# edited by hand\n")
    stale = run("--check")
    assert stale.returncode == 1 and "+# edited by hand" not in stale.stdout and "-# edited by hand" in stale.stdout
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "generated").rglob("*.py")}
    assert run().returncode == 0
    changed = [p for p in before if p.stat().st_mtime_ns != before[p]]
    assert changed == [victim], "only the changed file may be rewritten"
    assert run("--check").returncode == 0
    # deleting generated/ and regenerating (in another process, so another hash seed) gives the same bytes
    shutil.rmtree(tmp_path / "generated")
    assert run().returncode == 0
    assert existing_files(tmp_path / "generated") == generated


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("Run the whole test suite"):]
    command = section.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci, f".ci/run must run the README's test command: {command}"


def _ufunc_specs():
    import numpy as np
    import scipy.special

    return [s for s in SPECS if isinstance(getattr(scipy.special, s.name, None), np.ufunc)]


@pytest.mark.parametrize("spec", params(_ufunc_specs(), ids=lambda s: s.name))
def test_complex_kinds_match_scipys_loops(spec):
    """An argument is `complex` exactly where SciPy's ufunc has a loop taking a complex value there."""
    import scipy.special

    ufunc = getattr(scipy.special, spec.name)
    inputs = [t.split("->")[0] for t in ufunc.types]
    for i, arg in enumerate(spec.args):
        scipy_complex = any(types[i] in "FD" for types in inputs)
        assert (arg.kind == "complex") == scipy_complex, (
            f"{spec.name}({arg.name}): kind {arg.kind}, but SciPy's loops {'take' if scipy_complex else 'do not take'} complex values there")
