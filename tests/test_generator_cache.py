"""The derive cache: cached and fresh runs write the same bytes; stale, corrupt and foreign entries are
never trusted; a spec's key follows exactly what its rules depend on."""
import json
import shutil

import pytest

from generator import ROOT
from generator.cache import DIRECTORY, FORMAT
from generator.errors import SpecErrors
from generator.pipeline import generate
from spectree import copy_specs, with_dependencies

# jv (explicit rule with a special point), airy (several outputs), gammaincinv (implicit rule through
# gammainc), gammaln and erf (sympy-derived), spherical_jn (static cases), zeta (optional argument)
SMALL_TREE = ("jv", "airy", "gammaincinv", "gammainc", "gammaincc", "gammaln", "erf", "spherical_jn", "zeta",
              "polygamma", "digamma")


TREE = with_dependencies(SMALL_TREE)  # the kernels their rules call come along


@pytest.fixture
def project(tmp_path):
    copy_specs(SMALL_TREE, tmp_path)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    shutil.copytree(ROOT / "generator", tmp_path / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def entry(project, name):
    return project / DIRECTORY / f"special.{name}.json"


def test_a_cached_run_writes_the_same_bytes_as_a_fresh_one(project):
    fresh = generate(project, use_cache=False, jobs=1)
    assert not (project / DIRECTORY).exists()  # --no-cache neither reads nor writes
    first = generate(project, jobs=2)  # cold cache, derived in two processes
    assert sorted(first.derived) == TREE and first.cached == 0
    second = generate(project, jobs=1)
    assert second.derived == [] and second.cached == len(TREE)
    assert fresh.files == first.files == second.files
    shutil.rmtree(project / DIRECTORY)  # deleting the cache gives the same bytes again
    assert generate(project, jobs=1).files == fresh.files


def test_an_edit_rederives_the_spec_and_the_specs_that_use_it(project):
    generate(project, jobs=1)
    path = project / "specs" / "special" / "gammainc.yaml"
    path.write_text(path.read_text() + "# an edit\n")
    run = generate(project, jobs=1)
    # gammaincinv's implicit rule differentiates gammainc by gammainc's own rule
    assert sorted(run.derived) == ["gammainc", "gammaincinv"], run.derived
    path = project / "specs" / "special" / "erf.yaml"
    path.write_text(path.read_text() + "# an edit\n")
    assert generate(project, jobs=1).derived == ["erf"]


# the generator's source, and the derivative kernels the generator's mpmath check evaluates rules with
@pytest.mark.parametrize("source", ["generator/derive.py", "templates/runtime/kernels/incomplete.py"])
def test_a_change_to_the_generator_invalidates_every_entry(project, source):
    generate(project, jobs=1)
    with open(project / source, "a") as handle:
        handle.write("\n# a change\n")
    assert sorted(generate(project, jobs=1).derived) == TREE


def test_removing_a_spec_that_a_rule_calls_is_an_error_not_a_stale_hit(project):
    generate(project, jobs=1)
    # gammaincinv's cached rules were derived through gammainc: without it they must not be replayed
    (project / "specs" / "special" / "gammainc.yaml").unlink()
    with pytest.raises(SpecErrors) as info:
        generate(project, jobs=1)
    assert "gammaincinv.yaml" in str(info.value) and "gammainc" in str(info.value)


# each damage on another spec's entry, all found in one run
DAMAGES = {"jv": "truncated", "airy": "not json", "erf": "checksum", "zeta": "format", "gammaln": "shape"}


def test_a_corrupt_or_foreign_entry_is_reported_and_ignored(project):
    from generator.cache import _canonical, _sha256

    clean = generate(project, jobs=1).files
    for name, damage in DAMAGES.items():
        path = entry(project, name)
        data = json.loads(path.read_text())
        if damage == "truncated":
            path.write_text(path.read_text()[:100])
        elif damage == "not json":
            path.write_bytes(b"\x00\xff garbage")
        elif damage == "checksum":  # a payload edited without its checksum: a wrong rule must not be replayed
            data["rules"][0]["rules"][0]["derivative"] = ["0"]
            path.write_text(json.dumps(data))
        elif damage == "format":
            data["format"] = FORMAT.replace("/1", "/0")
            path.write_text(json.dumps(data))
        else:  # the right checksum over a payload of the wrong shape
            data["rules"] = [{"condition": [], "rules": [{"arg": "z"}]}]
            data["checksum"] = _sha256(_canonical(data["rules"]))
            path.write_text(json.dumps(data))
    run = generate(project, jobs=1)
    assert sorted(run.derived) == sorted(DAMAGES), run.derived
    assert len(run.cache_problems) == len(DAMAGES)
    for name in DAMAGES:
        assert sum(f"special.{name}.json" in problem for problem in run.cache_problems) == 1, (name, run.cache_problems)
    assert run.files == clean
    assert generate(project, jobs=1).derived == []  # the entries were rewritten


def test_every_specs_errors_come_out_in_one_run(project):
    # one spec broken in the loader, two in derive: all three in one run, each at its line
    for name, old, new in [("jv", "- v / z * jv(v, z)", "+ v / z * jv(v, z)"), ("airy", "summary:", "summry:"),
                           ("erf", "sympy: erf(z)", "sympy: erf(z")]:
        path = project / "specs" / "special" / f"{name}.yaml"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecErrors) as info:
        generate(project, jobs=1)
    paths = sorted({e.path for e in info.value.errors})
    assert paths == ["specs/special/airy.yaml", "specs/special/erf.yaml", "specs/special/jv.yaml"], str(info.value)
    assert all(e.line for e in info.value.errors)
