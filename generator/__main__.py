"""``python -m generator [--check]``: validate every spec, derive its rules, and render generated/.

``python -m generator new scipy.special.NAME`` writes a first spec for a SciPy ufunc (generator/scaffold.py).

Exit codes: 0 success (or generated/ is current), 1 generated/ is stale (--check),
2 a spec is wrong (each problem printed as ``path:line: message``) or ``new`` cannot scaffold the name,
3 an internal error.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import ROOT
from .errors import SpecError, SpecErrors


def _generate(root: Path):
    from .derive import derive_all
    from .loader import load_specs
    from .render import render_all

    specs = load_specs(root / "specs", root)
    rules = derive_all(specs)
    return render_all(specs, rules, root / "templates")


def _new(dotted: str, root: Path, traceback: bool) -> int:
    from .scaffold import ScaffoldError, scaffold

    try:
        path = scaffold(dotted, root)
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
    parser.add_argument("command", nargs="*", metavar="new scipy.special.NAME",
                        help="write specs/special/NAME.yaml for a SciPy ufunc, with TODOs for what only you can fill in")
    options = parser.parse_args(argv)
    root = options.root.resolve()
    if options.command:
        if options.command[0] != "new" or len(options.command) != 2 or options.check:
            parser.error("the only command is `new scipy.special.NAME` (without --check)")
        return _new(options.command[1], root, options.traceback)
    try:
        files = _generate(root)
    except SpecErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        return 2
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - report, never dump a traceback on users
        if options.traceback:
            raise
        print(f"generator: internal error: {type(exc).__name__}: {exc} (rerun with --traceback)", file=sys.stderr)
        return 3
    from .render import diff, write

    out_dir = root / "generated"
    if options.check:
        stale = diff(files, out_dir)
        if stale:
            sys.stdout.write(stale)
            print("generated/ is stale: run `python -m generator`", file=sys.stderr)
            return 1
        print(f"generated/ is current ({len(files)} files)")
        return 0
    touched = write(files, out_dir)
    print(f"generated/: {len(touched)} of {len(files)} files written" + (": " + ", ".join(touched) if touched and len(touched) <= 10 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
