"""Probe SciPy's Zhang-Jin Mathieu and spheroidal wave functions for crashes, hangs and values, and
check the specs' guards against what SciPy does (issue 5).

    PYTHONPATH=. python tests/tools/probe_zhang_jin.py [NAME ...] [--timeout 10] [--json out.json]

Each function is called directly in child processes, one input at a time with a per-input time limit:
an input that kills the child (a negative return code: segmentation fault, abort) is a *crash*, one
that has not returned within the limit a *hang*; the child is restarted after the input. The inputs
are wide grids (orders up to 2**40 and negative, parameters over +-1e-300..1e300, NaN, infinities,
non-integer orders), plus points on both sides of each guard's boundary. Each input is also classified
by the spec's guard (evaluated from specs/special/NAME.yaml with sympy), and the tool exits with status
1 if any input the guard admits crashes or hangs. It is not part of the test suite: a full run takes
tens of minutes.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INF, NAN = float("inf"), float("nan")
ORDERS = [-(2.0**31), -1000, -1, 0, 1, 2, 3, 5, 10, 50, 100, 150, 198, 199, 200, 250, 500, 1000, 1e4, 1e5, 1e6,
          1e7, 2.0**31 - 1, 2.0**31, 2.0**40, 1e300, INF, -INF, NAN, 2.5]
REALS = [NAN, -INF, -1e300, -1e100, -1e10, -1e8, -1e6, -1e4, -1e3, -100, -10, -1, -1e-300, 0.0, 1e-300, 1e-10, 0.5,
         1.0, 2.0, 10, 100, 300, 1e3, 1e4, 1e6, 3e7, 1e8, 1e10, 1e100, 1e300, INF]
MATHIEU = {"mathieu_a": None, "mathieu_b": None, "mathieu_cem": 30.0, "mathieu_sem": 30.0, "mathieu_modcem1": 0.5,
           "mathieu_modcem2": 0.5, "mathieu_modsem1": 0.5, "mathieu_modsem2": 0.5}
SPHEROIDAL = ["pro_cv", "obl_cv", "pro_ang1", "obl_ang1", "pro_rad1", "pro_rad2", "obl_rad1", "obl_rad2",
              "pro_ang1_cv", "obl_ang1_cv", "pro_rad1_cv", "pro_rad2_cv", "obl_rad1_cv", "obl_rad2_cv"]


# ---- the child: evaluate points, one line per point ---------------------------------------------
def _child(name: str, path: str, start: int) -> None:
    import numpy as np
    import scipy.special as sc

    f = getattr(sc, name)
    points = json.loads(Path(path).read_text())
    for i in range(start, len(points)):
        t = time.perf_counter()
        with np.errstate(all="ignore"):
            out = f(*[float(v) for v in points[i]])
        out = out if isinstance(out, tuple) else (out,)
        print("@@", i, json.dumps([repr(float(o)) for o in out], separators=(",", ":")),
              f"{time.perf_counter() - t:.3g}", flush=True)


def probe(name: str, points: list, timeout: float) -> list:
    """[(status, outputs, seconds)] per point; status is ok, crash:<rc> or hang."""
    results = [None] * len(points)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(points, fh)
    try:
        start = 0
        while start < len(points):
            child = subprocess.Popen([sys.executable, __file__, "--child", name, fh.name, str(start)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            current, deadline = start, time.monotonic() + timeout + 10  # + the import
            while True:
                ready, _, _ = select.select([child.stdout], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:  # the input `current` has not returned in time
                    child.kill()
                    child.wait()
                    results[current] = ("hang", None, timeout)
                    start = current + 1
                    break
                line = child.stdout.readline()
                if not line:  # the child died on the input `current`
                    results[current] = (f"crash:{child.wait()}", None, None)
                    start = current + 1
                    break
                if not line.startswith("@@ "):
                    continue
                _, i, rest = line.split(" ", 2)
                outs, seconds = rest.rsplit(" ", 1)
                results[int(i)] = ("ok", json.loads(outs), float(seconds))
                current, deadline = int(i) + 1, time.monotonic() + timeout
                if current == len(points):
                    child.wait()
                    start = current
                    break
    finally:
        os.unlink(fh.name)
    return results


# ---- the inputs -----------------------------------------------------------------------------------
def _guard(name: str):
    import sympy

    from generator import ROOT
    from generator.loader import load_spec

    spec = load_spec(ROOT / "specs" / "special" / f"{name}.yaml", ROOT)
    if spec.guard is None:
        return None
    return sympy.lambdify([sympy.Symbol(a.name) for a in spec.traced_args], spec.guard.expr, modules="math")


def _admits(guard, point) -> bool:
    if guard is None:
        return True
    try:
        return bool(guard(*point))
    except (ValueError, OverflowError):  # floor(inf) or floor(nan) in Python's math: not admitted by numpy either
        return False


def mathieu_points(name: str) -> list:
    x = MATHIEU[name]
    qs = sorted(set(REALS) - {NAN}, key=float) + [NAN]
    if x is None:
        return [[m, q] for m in ORDERS for q in qs]
    xs = [NAN, -INF, -1e300, -10, 0.0, 1e-300, 0.5, 1.5, 30, 90, 1e3, 1e300, INF]
    pts = [[m, q, x] for m in ORDERS for q in qs]
    pts += [[m, q, xx] for m in (0, 1, 2, 10, 500, 1000) for q in (NAN, -1e7, 0.0, 1.0, 1e3, 1e7, 1e8) for xx in xs]
    return pts


def spheroidal_points(name: str, guard, rng: random.Random) -> list:
    cv_arg = name.endswith("_cv") and name not in ("pro_cv", "obl_cv")
    kind = "cv" if name in ("pro_cv", "obl_cv") else ("ang" if "ang" in name else "rad")
    xs = {"cv": [None], "ang": [NAN, -1.0, -0.999, 0.0, 0.5, 1 - 1.1e-16, 1.0],
          "rad": [NAN, 0.0, 0.5, 1.0, 1 + 2.2e-16, 1.001, 1.5, 3.0, 10.0, 1e3, 1e300, INF]}[kind]
    base_x = {"cv": None, "ang": 0.5, "rad": 2.0}[kind]

    def point(m, n, c, x, cv=None):
        p = [m, n, c]
        if cv_arg:
            p.append(n * (n + 1) + c * c / 2 if cv is None else cv)
        if x is not None:
            p.append(x)
        return p

    pts = []
    for m in ORDERS:  # orders alone, and n - m around SciPy's 198
        for d in (0, 2, 198, 200, 300):
            pts.append(point(m, m + d if math.isfinite(m) else m, 1.5, base_x))
    for c in REALS:  # the parameter alone
        pts.append(point(1, 2, c, base_x))
    for x in xs:  # the argument, with parameters inside and at the edge
        for c in (0.5, 50.0, 100.0):
            for m, n in ((0, 0), (1, 2), (5, 30)):
                pts.append(point(m, n, c, x))
    if cv_arg:
        for cv in (NAN, INF, -INF, 1e300, -1e300, 0.0, -1.0, 1e6):
            for c in (1.5, 100.0):
                pts.append(point(1, 2, c, base_x, cv))
    # both sides of the guard's boundary in c, for orders across the admitted range
    for m in (0, 1, 2, 5, 20, 50, 100, 150, 199, 200, 201, 500, 1000, 1001):
        for d in (0, 1, 2, 7, 50, 101, 198):
            last = None
            for c in [k / 4 for k in range(0, 1400)]:
                if _admits(guard, point(m, m + d, c, base_x)):
                    last = c
            if last is None:
                pts.append(point(m, m + d, 0.5, base_x))
                continue
            for c in (last, last + 0.25, last + 1.0, last + 10.0, max(0.0, last - 1.0)):
                pts.append(point(m, m + d, c, rng.choice([x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]) if kind != "cv" else None))
    # random inputs the guard admits
    candidates = []
    for _ in range(4000):
        m = rng.choice([rng.randint(0, 10), rng.randint(0, 210), rng.randint(0, 1100)])
        d = rng.randint(0, 360)
        c = rng.choice([rng.uniform(0, 10), rng.uniform(0, 200), rng.uniform(0, 300)])
        x = rng.choice(xs)
        p = point(m, m + d, c, x)
        if _admits(guard, p):
            candidates.append(p)
    pts += rng.sample(candidates, min(150, len(candidates)))
    return pts


def _classify(outputs) -> str:
    values = [float(o) for o in outputs]
    if all(math.isnan(v) for v in values):
        return "nan"
    return "value"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(MATHIEU) + SPHEROIDAL)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it counts as a hang")
    parser.add_argument("--json", type=Path, help="write every input and its outcome here")
    parser.add_argument("--seed", type=int, default=5)
    options = parser.parse_args(argv)
    rng = random.Random(options.seed)
    report, failures, everything = [], [], {}
    for name in options.names:
        guard = _guard(name)
        points = mathieu_points(name) if name in MATHIEU else spheroidal_points(name, guard, rng)
        results = probe(name, points, options.timeout)
        # an admitted input that timed out gets one more chance, alone and with six times the limit:
        # a slow element (a busy machine) is not a hang
        for i, (p, (status, _, _)) in enumerate(zip(points, results)):
            if status == "hang" and _admits(guard, p):
                results[i] = probe(name, [p], 6 * options.timeout)[0]
        tally = collections.Counter()
        for p, (status, outs, seconds) in zip(points, results):
            admitted = _admits(guard, p)
            outcome = status.split(":")[0] if status != "ok" else _classify(outs)
            tally[("in" if admitted else "out", outcome)] += 1
            if admitted and status != "ok":
                failures.append((name, p, status))
                print(f"ADMITTED BY THE GUARD BUT {status.upper()}: {name}{tuple(p)}", flush=True)
        everything[name] = [[p, *r, _admits(guard, p)] for p, r in zip(points, results)]
        report.append((name, len(points), tally))
        print(f"{name:16} {len(points):5} inputs  admitted: {dict((k[1], v) for k, v in tally.items() if k[0] == 'in')}"
              f"  excluded: {dict((k[1], v) for k, v in tally.items() if k[0] == 'out')}", flush=True)
        if options.json:
            options.json.write_text(json.dumps(everything))
    for name, p, status in failures:
        print(f"ADMITTED BY THE GUARD BUT {status.upper()}: {name}{tuple(p)}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(main())
