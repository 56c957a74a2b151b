"""The edit-regenerate-test loop, timed: what a user waits for after editing a spec.

    python benchmarks/generator_loop.py [--repeat N]

Runs in a scratch copy of the project (specs/, templates/, generator/, generated/), so the working
tree and its cache are left alone. Each step is a fresh `python -m generator` process, as a user runs
it, timed as the median of N repetitions; the ratio column compares each step with the full run
without a cache measured in the same run. Targets (issue 12, a 2-core machine): one spec edited ->
regenerate <= 5 s; no change -> --check <= 5 s; full run without a cache <= 20 s; import of
jaxsci.special <= 1 s. This is not a test: nothing here passes or fails.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(command: list, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for folder in ("specs", "templates", "generator", "generated"):
            shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
        env = dict(os.environ, PYTHONPATH=str(work), JAX_PLATFORMS="cpu")
        generator = [python, "-m", "generator", "--root", str(work)]
        spec = work / "specs" / "special" / "jv.yaml"
        original = spec.read_text()

        rows = {}
        rows["full run, no cache (all CPUs)"] = statistics.median(
            _timed(generator + ["--no-cache"], work, env) for _ in range(options.repeat))
        rows["full run, no cache (1 process)"] = _timed(generator + ["--no-cache", "--jobs", "1"], work, env)
        _timed(generator, work, env)  # warm the cache
        rows["no change: --check"] = statistics.median(
            _timed(generator + ["--check"], work, env) for _ in range(options.repeat))

        def edit_once(k: int) -> float:
            # a real edit: the test domain changes, so jv's rules are derived again (and so are the
            # specs whose rules call jv), and generated/ is rewritten
            spec.write_text(original.replace("domain: {v: [-4, 6]", f"domain: {{v: [-4, {6 + k}]"))
            return _timed(generator, work, env)

        rows["one spec edited (jv.yaml): regenerate"] = statistics.median(
            edit_once(k) for k in range(1, options.repeat + 1))
        spec.write_text(original)
        _timed(generator, work, env)
        rows["import jaxsci.special (fresh process)"] = statistics.median(
            _timed([python, "-c", "import jaxsci.special"], work, dict(env, PYTHONPATH=str(work / "generated")))
            for _ in range(options.repeat))

    targets = {"full run, no cache (all CPUs)": 20, "no change: --check": 5,
               "one spec edited (jv.yaml): regenerate": 5, "import jaxsci.special (fresh process)": 1}
    baseline = rows["full run, no cache (all CPUs)"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"CPUs: {os.cpu_count()}, load average {load:.2f}, median of {options.repeat}")
    print(f"| step | seconds | / full run | target |\n|---|---|---|---|")
    for step, seconds in rows.items():
        target = targets.get(step)
        verdict = "" if target is None else f"<= {target} s: {'met' if seconds <= target else 'NOT met'}"
        print(f"| {step} | {seconds:.2f} | {seconds / baseline:.2f} | {verdict} |")


if __name__ == "__main__":
    main()
