"""Compute the mpmath references of the gradient suite and store them in tests/data/references/.

    .venv/bin/python tests/tools/make_references.py [NAME ...] [--stale] [--check] [-j N]

For every spec with differentiable arguments and an mpmath ``reference`` (or the NAMEs given: the
function's name, or module/name), the first and second derivatives of the reference (``mpmath.diff``
at 30 digits) at every point the default gradient suite samples — per static case, differentiable
argument, point, float64 and float32 evaluation point, and complex direction — are written to
tests/data/references/<module>/<name>.json, with the hash of what they depend on (tests/refdata.py).
The tests read these files instead of calling mpmath, and fail naming this command when one is stale.

The references are computed in N worker processes (default: the CPUs this process may use), which import
only mpmath; the files are deterministic (same specs, same bytes). With no NAME, files of specs that no
longer need them are removed. ``--stale`` limits the run to the missing and stale files; ``--check``
writes nothing and exits 1 if any file is missing, stale or left over.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setup_path() -> None:
    for folder in (ROOT, ROOT / "tests"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def _choose(names, specs, errors):
    """The specs named on the command line (by name or module/name), or every spec that needs references."""
    import refdata

    if not names:
        return [s for s in specs if refdata.uses_mpmath(s)]
    chosen = []
    for name in names:
        name = name.removesuffix(".yaml").removesuffix(".json").replace(os.sep, "/").split("specs/")[-1]
        matches = [s for s in specs if name in (s.name, f"{s.module}/{s.name}", s.qualname)]
        if not matches:
            broken = [e for e in errors if Path(e.path).stem == name.rsplit("/", 1)[-1]]
            why = f": the spec does not load: {broken[0]}" if broken else ""
            raise SystemExit(f"make_references: no spec named {name!r}{why}")
        if len(matches) > 1:
            raise SystemExit(f"make_references: {name!r} names {len(matches)} specs; write module/name")
        if not refdata.uses_mpmath(matches[0]):
            print(f"{matches[0].path}: no mpmath references needed (no differentiable argument, or finite_differences)")
            continue
        chosen.append(matches[0])
    return chosen


def _orphans(specs, errors, data_dir: Path) -> list[Path]:
    """Stored files of no spec that needs one (a spec that does not load keeps its file)."""
    import refdata

    wanted = {refdata.path_of(s).relative_to(refdata.DATA_DIR) for s in specs if refdata.uses_mpmath(s)}
    broken = {Path(Path(e.path).parent.name) / f"{Path(e.path).stem}.json" for e in errors}
    return sorted(p for p in data_dir.glob("*/*.json") if p.relative_to(data_dir) not in wanted | broken)


def _compute(tasks: list[dict], jobs: int, on_done) -> list[dict]:
    """mpref.compute of every task, in ``jobs`` processes; ``on_done(index, seconds)`` as each finishes."""
    import mpref

    results = [None] * len(tasks)
    if jobs <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            start = time.perf_counter()
            results[i] = mpref.compute(task)
            on_done(i, time.perf_counter() - start)
        return results
    import multiprocessing

    # spawn: the workers import mpmath and tests/mpref.py only (this process has jax loaded, and threads)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for i, result, seconds in pool.imap_unordered(mpref.compute_timed, list(enumerate(tasks)), chunksize=1):
            results[i] = result
            on_done(i, seconds)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python {Path(__file__).relative_to(ROOT)}",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="specs to regenerate (default: every one that needs references)")
    parser.add_argument("--stale", action="store_true", help="only the missing and stale files")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is missing, stale or left over")
    parser.add_argument("-j", "--jobs", type=int, default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
                        help="worker processes (default: the CPUs available)")
    parser.add_argument("--out", type=Path, help="write the files under this folder instead of tests/data/references")
    options = parser.parse_args(argv)
    _setup_path()

    import importlib.metadata

    import mpmath

    import mpref
    import refdata
    from specdata import SPEC_ERRORS, SPECS

    data_dir = options.out or refdata.DATA_DIR
    for error in SPEC_ERRORS:
        print(f"warning: skipped (does not load): {error}", file=sys.stderr)
    specs = _choose(options.names, SPECS, SPEC_ERRORS)
    if options.stale or options.check:
        problems = {s.name: refdata.status(s) for s in specs}
        for spec in specs:
            if problems[spec.name]:
                print(f"{spec.path}: {problems[spec.name]}")
        specs = [s for s in specs if problems[s.name]]
    orphans = _orphans(SPECS, SPEC_ERRORS, data_dir) if not options.names else []
    if options.check:
        for path in orphans:
            print(f"{refdata.shown(path)}: no spec needs it (remove it, or run {refdata.COMMAND})")
        if specs:
            print(f"regenerate with: {refdata.regenerate_command(specs)}")
        return 1 if specs or orphans else 0

    plans = [(spec, refdata.tasks(spec)) for spec in specs]
    tasks = [task for _, spec_tasks in plans for task in spec_tasks]
    owner = [spec for spec, spec_tasks in plans for _ in spec_tasks]
    print(f"{len(tasks)} references of {len(plans)} spec(s), {options.jobs} process(es)", flush=True)
    total = {spec.name: len(spec_tasks) for spec, spec_tasks in plans}
    left = dict(total)
    seconds = {spec.name: 0.0 for spec, _ in plans}
    start = time.perf_counter()

    def on_done(i, took):
        name = owner[i].name
        left[name] -= 1
        seconds[name] += took
        if not left[name]:
            print(f"  {name}: {total[name]} references, {seconds[name]:.1f} s of mpmath", flush=True)

    results = _compute(tasks, options.jobs, on_done)
    versions = f"mpmath {mpmath.__version__}, numpy {importlib.metadata.version('numpy')}, {mpref.DPS} digits"
    at = 0
    for spec, spec_tasks in plans:
        jobs = refdata.plan(spec)
        text = refdata.render(spec, jobs, results[at:at + len(spec_tasks)], versions)
        at += len(spec_tasks)
        path = data_dir / spec.module / f"{spec.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        failed = sum("error" in r for r in results[at - len(spec_tasks):at])
        if failed:
            print(f"warning: {refdata.shown(path)}: mpmath failed at {failed} points (the tests there fail with its error)",
                  file=sys.stderr)
    for path in orphans:
        path.unlink()
        print(f"removed {refdata.shown(path)}: no spec needs it")
    print(f"wrote {len(plans)} file(s) in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
