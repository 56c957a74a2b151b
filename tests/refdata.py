"""Stored mpmath references for the gradient suite: tests/data/references/<module>/<name>.json.

``mpmath.diff`` of a spec's reference is the slow part of the gradient tests (of a ``findroot``, seconds
per point), so the references at the points the default suite uses are computed once, by
``tests/tools/make_references.py``, and committed. This module plans those points (the same functions
the tests sample with), hashes what the references depend on, and reads the files back.

A file is current when its ``inputs_sha256`` equals the hash of the plan made from today's spec: the
reference expression per static case, the static values, the traced arguments, and every job (case,
argument, point, evaluation point, direction) — so a change to the domain, the special points, the
statics, the sampling (``sample_points``, ``rng_for``, the point counts), the expected failures (their
points are not computed) or the reference makes the file stale, and the tests that read it fail with
the command that regenerates it. ``VERSION`` covers the computation itself (``mpref``); bump it when
that changes. Derivative rules, tolerances and the jaxsci code are not inputs: changing them never
needs new references.
"""
from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

import mpref
from generator import ROOT
from specdata import SPECS, core_indices, flat_count, rng_for, sample_points, spec_cases

VERSION = 1  # bump when mpref's computation of a reference changes
POINTS_PER_ARG = 2  # sampled points per argument, besides each spec's special points
DATA_DIR = ROOT / "tests" / "data" / "references"
SCRIPT = "tests/tools/make_references.py"
COMMAND = f".venv/bin/python {SCRIPT}"


# ---- the points the tests use --------------------------------------------------------------------
def gradient_points(case, arg: str, count: int = POINTS_PER_ARG) -> list[dict]:
    """The real points of the forward, reverse and sweep tests: ``count`` sampled ones plus the spec's points."""
    return sample_points(case, count, rng_for(case.id, arg, "grad", count))


def complex_points(case, arg: str, count: int = POINTS_PER_ARG) -> list[dict]:
    """The complex-direction test's points: sampled real points with ``arg`` moved into its complex domain."""
    rng = rng_for(case.id, arg, "complex")
    (rlo, rhi), (ilo, ihi) = case.spec.tests.complex_domain[arg]
    points = sample_points(case, count, rng)[:count]
    for point in points:
        point[arg] = complex(round(rng.uniform(rlo, rhi), 6), round(rng.uniform(ilo, ihi), 6))
    return points


def real_x0(value, dtype: str) -> float:
    """The evaluation point in ``dtype``, as a float: the reference is taken where jaxsci is evaluated."""
    return float(np.asarray(value, dtype=dtype))


REAL = 1  # the real tests' direction
COMPLEX_DIRECTIONS = (1.0 + 0j, 1j)  # the complex test's directions, as complex numbers (mpmath.mpc)


def direction_value(direction):
    """The direction as ``mpref.directional_derivatives`` takes it."""
    return mpmath.mpc(direction) if isinstance(direction, complex) else direction


# ---- the plan: every reference the default suite reads, per spec -----------------------------------
def uses_mpmath(spec) -> bool:
    """Whether the spec's gradient tests need stored references (differentiable, with an mpmath reference)."""
    # a reduction's mpmath references are Jacobians over small arrays, computed by tests/test_reductions.py
    return bool(spec.differentiable_args) and not spec.finite_differences and spec.reduction is None


def reference_text(case) -> str:
    condition = tuple(sorted(case.statics.items()))
    chosen = None
    for ref in case.spec.reference:
        if set(ref.when) <= set(condition):
            chosen = ref.value.text
    assert chosen is not None, f"{case.spec.path}: no reference for {condition}"
    return chosen


def reference_scope(case) -> dict:
    """The names the reference sees besides mpmath's and the traced arguments: the static arguments."""
    scope = dict(case.statics)
    scope.update({a.name: a.default for a in case.spec.static_args if a.name not in case.statics})
    return scope


def _job(case, arg: str, point: dict, x0, direction) -> dict:
    return {"case": case.id, "arg": arg, "point": {k: mpref.encode(v) for k, v in point.items()},
            "x": mpref.encode(x0), "direction": mpref.encode(direction)}


def key(job: dict) -> str:
    return json.dumps([job["case"], job["arg"], job["point"], job["x"], job["direction"]], sort_keys=True)


def plan(spec) -> list[dict]:
    """The jobs of ``spec``, in a fixed order, without repeats: (case, arg, point, x, direction)."""
    if not uses_mpmath(spec):
        return []
    jobs = {}

    def add(*args):
        job = _job(*args)
        jobs.setdefault(key(job), job)

    for case in spec_cases(spec):
        tests = spec.tests
        dtypes = [d for d in ("float64", "float32") if tests.expected_failure("gradients", d if d == "float32" else None) is None]
        for a in spec.differentiable_args:
            for dtype in dtypes:  # forward mode in both dtypes; reverse mode at the float64 points
                for point in gradient_points(case, a.name):
                    add(case, a.name, point, real_x0(point[a.name], dtype), REAL)
            if a.name in tests.complex_domain and tests.expected_failure("complex_gradients") is None:
                for point in complex_points(case, a.name):
                    for direction in COMPLEX_DIRECTIONS:
                        add(case, a.name, point, point[a.name], direction)
    return list(jobs.values())


def tasks(spec) -> list[dict]:
    """The jobs with what ``mpref.compute`` needs to evaluate them in another process."""
    by_id = {case.id: case for case in spec_cases(spec)}
    names = [a.name for a in spec.traced_args]
    return [{**job, "reference": reference_text(by_id[job["case"]]), "scope": reference_scope(by_id[job["case"]]),
             "names": names, "outputs": flat_count(by_id[job["case"]]),
             **({"core": core_indices(by_id[job["case"]])} if spec.core else {})} for job in plan(spec)]


def inputs_hash(spec, jobs: list[dict] | None = None) -> str:
    """sha256 of everything the stored references depend on (see the module docstring)."""
    jobs = plan(spec) if jobs is None else jobs
    material = {
        "version": VERSION,
        "dps": mpref.DPS,
        "spec": spec.qualname,
        "traced": [a.name for a in spec.traced_args],
        "outputs": len(spec.outputs),
        "cases": {case.id: {"reference": reference_text(case), "scope": reference_scope(case)}
                  for case in spec_cases(spec)},
        "jobs": jobs,
    }
    if spec.core:  # the positions each case's reference is evaluated at (elementwise specs: none)
        material["core"] = {case.id: core_indices(case) for case in spec_cases(spec)}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


# ---- the files -----------------------------------------------------------------------------------
def path_of(spec) -> Path:
    return DATA_DIR / spec.module / f"{spec.name}.json"


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def regenerate_command(specs) -> str:
    return f"{COMMAND} {' '.join(s.name for s in specs)}"


def render(spec, jobs: list[dict], results: list[dict], versions: str) -> str:
    """The file's text: a header, then one reference per line (diffs show which points changed)."""
    head = {"spec": spec.path, "inputs_sha256": inputs_hash(spec, jobs),
            "generated_by": f"{regenerate_command([spec])} ({versions})"}
    lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    entries = [json.dumps({**job, **result}) for job, result in zip(jobs, results)]
    body = ",\n".join(f"  {e}" for e in entries)
    return "{\n" + "\n".join(lines) + '\n "references": [\n' + body + ("\n" if entries else "") + " ]\n}\n"


class StaleReferences(Exception):
    pass


def status(spec) -> str | None:
    """None when the stored file is current, else what is wrong with it (missing, stale, unreadable)."""
    path = path_of(spec)
    if not path.exists():
        return f"{shown(path)} is missing"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        stored_hash, entries = data["inputs_sha256"], data["references"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"{shown(path)} cannot be read ({type(exc).__name__}: {exc})"
    jobs = plan(spec)
    if stored_hash != inputs_hash(spec, jobs):
        return f"{shown(path)} is stale: its inputs (reference, domain, points, statics, sampling) changed"
    if [key(e) for e in entries] != [key(j) for j in jobs]:
        return f"{shown(path)} holds other points than the tests sample"
    return None


@functools.lru_cache(maxsize=None)
def _stored(name: str, module: str) -> dict:
    spec = next(s for s in SPECS if s.name == name and s.module == module)
    problem = status(spec)
    if problem is not None:
        raise StaleReferences(f"{spec.path}: {problem}; regenerate it with `{regenerate_command([spec])}`")
    entries = json.loads(path_of(spec).read_text(encoding="utf-8"))["references"]
    return {key(e): e for e in entries}


def stored_derivatives(case, arg: str, point: dict, x0, direction) -> tuple[list, list]:
    """The stored first and second derivatives (one per output) of ``case``'s reference; fails the
    calling test, with the command to run, where the file is missing or stale."""
    try:
        stored, problem = _stored(case.spec.name, case.spec.module), None
    except StaleReferences as exc:
        stored, problem = {}, str(exc)
    if problem:
        pytest.fail(problem, pytrace=False)
    entry = stored.get(key(_job(case, arg, point, x0, direction)))
    if entry is None:
        pytest.fail(f"{case.spec.path}: {shown(path_of(case.spec))} has no reference for d/d{arg} of {case.id} at "
                    f"{point} (x={x0!r}, direction {direction!r}); regenerate it with "
                    f"`{regenerate_command([case.spec])}`", pytrace=False)
    if "error" in entry:
        raise AssertionError(f"mpmath failed when the reference was made ({SCRIPT}): {entry['error']}")
    return [mpref.decode(v) for v in entry["first"]], [mpref.decode(v) for v in entry["second"]]
