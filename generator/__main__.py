"""``python -m generator [--check]``: validate every spec, derive its rules, and render generated/.

``python -m generator new scipy.special.NAME`` writes a first spec for a SciPy ufunc (generator/scaffold.py);
``python -m generator new scipy.stats.NAME`` one for a scipy.stats distribution (generator/distribution.py).

Exit codes: 0 success (or generated/ is current), 1 generated/ is stale (--check),
2 a spec is wrong (each problem printed as ``path:line: message``) or ``new`` cannot scaffold the name,
3 an internal error.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import ROOT
from .cache import DIRECTORY
from .errors import SpecError, SpecErrors
from .pipeline import generate


def _generate(root: Path) -> dict:
    """Every generated file for the project at ``root``, derived afresh in this process (for tests)."""
    return generate(root, use_cache=False, jobs=1).files


def _new(dotted: str, root: Path, traceback: bool) -> int:
    from .distribution import scaffold_distribution
    from .scaffold import ScaffoldError, scaffold

    try:
        path = scaffold_distribution(dotted, root) if dotted.startswith("scipy.stats.") else scaffold(dotted, root)
    except ScaffoldError as exc:
        print(f"python -m generator new: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - report, never dump a traceback on users
        if traceback:
            raise
        print(f"generator: internal error: {type(exc).__name__}: {exc} (rerun with --traceback)", file=sys.stderr)
        return 3
    print(f"wrote {path.relative_to(root)}: fill in its TODO(jaxsci new) places, then run `python -m generator`")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 with a diff if generated/ is not current")
    parser.add_argument("--root", type=Path, default=ROOT, help="project root holding specs/, templates/, generated/")
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks for internal errors")
    parser.add_argument("--no-cache", action="store_true",
                        help=f"derive every spec afresh, ignoring and not writing the cache in {DIRECTORY}/")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="processes for deriving specs (default: the CPUs this process may use)")
    parser.add_argument("command", nargs="*", metavar="new scipy.special.NAME",
                        help="write specs/special/NAME.yaml for a SciPy ufunc (or specs/stats/NAME.yaml for a "
                             "scipy.stats distribution), with TODOs for what only you can fill in")
    options = parser.parse_args(argv)
    root = options.root.resolve()
    if options.command:
        if options.command[0] != "new" or len(options.command) != 2 or options.check:
            parser.error("the only command is `new scipy.special.NAME` or `new scipy.stats.NAME` (without --check)")
        return _new(options.command[1], root, options.traceback)
    if options.jobs is not None and options.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        run = generate(root, use_cache=not options.no_cache, jobs=options.jobs)
    except SpecErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        if len(exc.errors) > 1:
            print(f"generator: {len(exc.errors)} error(s) in {len({e.path for e in exc.errors})} spec file(s)", file=sys.stderr)
        return 2
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - report, never dump a traceback on users
        if options.traceback:
            raise
        print(f"generator: internal error: {type(exc).__name__}: {exc} (rerun with --traceback)", file=sys.stderr)
        return 3
    for problem in run.cache_problems:
        print(f"generator: cache entry {problem}; derived afresh", file=sys.stderr)
    files = run.files
    derived = (f"derived {len(run.derived)} spec(s)" + (f" ({', '.join(run.derived)})" if 0 < len(run.derived) <= 5 else "")
               + f", {run.cached} from the cache")
    from .render import diff, write

    out_dir = root / "generated"
    if options.check:
        stale = diff(files, out_dir)
        if stale:
            sys.stdout.write(stale)
            print("generated/ is stale: run `python -m generator`", file=sys.stderr)
            return 1
        print(f"generated/ is current ({len(files)} files; {derived})")
        return 0
    written, removed = write(files, out_dir)
    unchanged = len(files) - len(written)
    print(f"generated/: {len(written)} written, {len(removed)} removed, {unchanged} unchanged; {derived}"
          + "".join(f"\n  {label} {path}" for label, paths in (("wrote", written), ("removed", removed))
                    if len(written) + len(removed) <= 10 for path in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
