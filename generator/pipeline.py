"""One generator run: load every spec, derive what the cache does not hold (in parallel), render.

Errors are collected across the whole run: every spec's loader errors and every other spec's derive
errors come out together. A spec whose formulas name a spec that failed to load is not derived in
that run (its errors would only echo the other one's).
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import cache
from .errors import SpecError, SpecErrors


@dataclass
class Run:
    files: dict  # relative path under generated/ -> content
    derived: list = field(default_factory=list)  # names derived in this run
    cached: int = 0  # specs whose rules came from the cache
    cache_problems: list = field(default_factory=list)  # cache entries that were ignored, and why


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def generate(root: Path, *, use_cache: bool = True, jobs: int | None = None) -> Run:
    from .loader import EXPORTS, check_exports, check_object_outputs, collect_specs, load_exports, load_uncovered
    from .distribution import FOLDER, collect_distributions, render_distributions
    from .render import COVERAGE, _environment, render_all

    specs, errors = collect_specs(root / "specs", root)
    try:
        exports = load_exports(root / "specs", root)
    except SpecError as exc:
        exports = {}
        errors.append(exc)
    errors.extend(check_exports(exports, specs, f"specs/{EXPORTS}"))
    errors.extend(check_object_outputs(specs))
    by_name = {s.name: s for s in specs}
    texts = {s.name: (root / s.path).read_text(encoding="utf-8") for s in specs}
    keys = cache.Keys(specs, texts, root)
    store = cache.Store(root / cache.DIRECTORY) if use_cache else None
    broken = {Path(e.path).stem for e in errors}

    rules, todo = {}, []
    for spec in specs:
        hit = store.get(spec, keys.key(spec), by_name) if store is not None else None
        if hit is not None:
            rules[spec.name] = hit
        elif not broken.intersection(keys.closure(spec.name)):
            todo.append(spec)
    run = Run(files={}, cached=len(rules), cache_problems=store.problems if store is not None else [])

    for name, outcome in _derive(specs, [s.name for s in todo], jobs or default_jobs(), texts):
        kind, payload = outcome
        if kind == "errors":
            errors.extend(SpecError(*e) for e in payload)
            continue
        spec = by_name[name]
        rules[name] = cache.decode(payload, spec, by_name)  # fresh rules take the cached path too
        run.derived.append(name)
        if store is not None:
            store.put(spec, keys.key(spec), payload)
    distributions, distribution_errors = collect_distributions(root / "specs", root, specs)
    errors.extend(distribution_errors)
    if errors:
        raise SpecErrors(sorted(errors, key=lambda e: (e.path, e.line or 0)))
    from .device import load_gate

    uncovered = load_uncovered(root / "specs", root)
    run.files = render_all(specs, rules, root / "templates", uncovered, exports, load_gate(root / "specs"),
                           packages=(FOLDER,) if distributions else ())
    if distributions:
        stats = render_distributions(_environment(root / "templates"), distributions, uncovered.get(FOLDER, {}))
        run.files[COVERAGE] += stats.pop("coverage")
        run.files.update(stats)
    return run


# ---- deriving, sequentially or in worker processes -------------------------------------------------
_SPECS: list = []  # set before the pool forks: the workers inherit the loaded specs
_DERIVER = None


def _derive_one(name: str):
    from .derive import _Deriver, derive_spec

    global _DERIVER
    if _DERIVER is None:
        _DERIVER = _Deriver(_SPECS)
    spec = next(s for s in _SPECS if s.name == name)
    try:
        return name, ("rules", cache.encode(derive_spec(_DERIVER, spec)))
    except SpecErrors as exc:
        return name, ("errors", [(e.path, e.line, e.message) for e in exc.errors])
    except SpecError as exc:
        return name, ("errors", [(exc.path, exc.line, exc.message)])


def _derive(specs: list, names: list, jobs: int, texts: dict):
    """(name, outcome) for each name, in the order given; deterministic whatever the number of jobs."""
    global _SPECS, _DERIVER
    _SPECS, _DERIVER = specs, None
    try:
        if jobs < 2 or len(names) < 2 or "fork" not in multiprocessing.get_all_start_methods():
            return [_derive_one(name) for name in names]
        # fork: the workers start with the specs already loaded; each builds its own deriver
        # the longest specs first (a spec's size is a fair proxy for its derive time: stdtr's family, ncfdtr's
        # kernels), so that no worker starts a 4-second derive while the others sit idle at the end
        order = sorted(names, key=lambda name: -len(texts.get(name, "")))
        with ProcessPoolExecutor(max_workers=min(jobs, len(names)), mp_context=multiprocessing.get_context("fork")) as pool:
            outcomes = dict(pool.map(_derive_one, order, chunksize=1))
        return [(name, outcomes[name]) for name in names]
    finally:
        _SPECS, _DERIVER = [], None
