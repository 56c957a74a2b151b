"""The stored mpmath references (tests/data/references/, made by tests/tools/make_references.py) are
current: each file's hash matches its spec's inputs and its points are the points the tests sample.

The gradient tests read the files and fail on their own when theirs is stale; this checks every file at
once and names all the stale specs in one command.
"""
import dataclasses
import importlib.util
import json

import pytest

import refdata
from generator import ROOT
from specdata import SPEC_BY_NAME, SPEC_ERRORS, SPECS, spec_cases


def _script():
    spec = importlib.util.spec_from_file_location("make_references", ROOT / refdata.SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_files_are_current():
    stale = [(s, problem) for s in SPECS if refdata.uses_mpmath(s) and (problem := refdata.status(s))]
    if stale:
        pytest.fail("\n".join(f"{s.path}: {problem}" for s, problem in stale)
                    + f"\nregenerate with: {refdata.regenerate_command([s for s, _ in stale])}", pytrace=False)


def test_no_reference_file_without_a_spec():
    orphans = _script()._orphans(SPECS, SPEC_ERRORS, refdata.DATA_DIR)
    if orphans:
        pytest.fail(f"{', '.join(refdata.shown(p) for p in orphans)}: no spec needs these references; "
                    f"`{refdata.COMMAND}` (with no name) removes them", pytrace=False)


@pytest.mark.parametrize("name", ["jv", "spherical_jn", "sici"])  # complex directions, static cases, two outputs
def test_the_script_reproduces_the_stored_files(tmp_path, name):
    assert _script().main([name, "--out", str(tmp_path), "-j", "1"]) == 0
    made = json.loads((tmp_path / "special" / f"{name}.json").read_text())
    stored = json.loads(refdata.path_of(SPEC_BY_NAME[name]).read_text())
    assert made["inputs_sha256"] == stored["inputs_sha256"]
    assert made["references"] == stored["references"]


def _changed(spec, **tests):
    return dataclasses.replace(spec, tests=dataclasses.replace(spec.tests, **tests))


def test_what_makes_a_file_stale():
    spec = SPEC_BY_NAME["jv"]
    assert refdata.status(spec) is None
    same = refdata.inputs_hash(spec)
    # the references depend on: the test domain, the special points, the reference, the statics tried
    stale = [
        _changed(spec, domain={**spec.tests.domain, "z": (0.1, 24.0)}),
        _changed(spec, points=spec.tests.points[:-1]),
        _changed(spec, complex_domain={"z": ((-10.0, 10.0), (-4.0, 4.0))}),
        dataclasses.replace(spec, reference=(dataclasses.replace(spec.reference[0], value=dataclasses.replace(
            spec.reference[0].value, text="besselj(v, z) * 1")),)),
    ]
    for changed in stale:
        assert refdata.inputs_hash(changed) != same
        assert "is stale" in refdata.status(changed)
    harmonic = SPEC_BY_NAME["sph_harm_y"]  # the default of its static diff_n is in the reference's scope
    order = tuple(dataclasses.replace(a, default=1) if a.name == "diff_n" else a for a in harmonic.args)
    assert refdata.inputs_hash(dataclasses.replace(harmonic, args=order)) != refdata.inputs_hash(harmonic)
    # ... and not on the derivative rules or the tolerances
    for unchanged in (dataclasses.replace(spec, derivatives=()),
                      _changed(spec, gradient_tolerance={}), dataclasses.replace(spec, summary="changed")):
        assert refdata.inputs_hash(unchanged) == same and refdata.status(unchanged) is None


def test_a_missing_file_fails_with_the_command(monkeypatch, tmp_path):
    monkeypatch.setattr(refdata, "DATA_DIR", tmp_path)
    refdata._stored.cache_clear()
    try:
        spec = SPEC_BY_NAME["jv"]
        case = spec_cases(spec)[0]
        point = refdata.gradient_points(case, "z")[0]
        with pytest.raises(pytest.fail.Exception) as info:
            refdata.stored_derivatives(case, "z", point, point["z"], refdata.REAL)
        assert str(info.value) == (f"specs/special/jv.yaml: {tmp_path}/special/jv.json is missing; "
                                   f"regenerate it with `{refdata.COMMAND} jv`")
    finally:
        refdata._stored.cache_clear()


def test_every_point_of_the_tests_is_stored():
    """The lookup keys of the stored file are the ones the tests build (same points, float32 rounding)."""
    spec = SPEC_BY_NAME["jv"]
    case = spec_cases(spec)[0]
    for dtype in ("float64", "float32"):
        for point in refdata.gradient_points(case, "z"):
            first, second = refdata.stored_derivatives(case, "z", point, refdata.real_x0(point["z"], dtype), refdata.REAL)
            assert len(first) == len(second) == 1
    for point in refdata.complex_points(case, "z"):
        for direction in refdata.COMPLEX_DIRECTIONS:
            first, _ = refdata.stored_derivatives(case, "z", point, point["z"], direction)
            assert isinstance(first[0], complex)
