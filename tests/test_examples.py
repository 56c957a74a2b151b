"""Every script in examples/ runs to completion; each one asserts its own results."""
import os
import subprocess
import sys

import pytest

from generator import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(script):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "generated"))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert result.returncode == 0, f"{script.name} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    assert result.stdout.strip(), f"{script.name} printed nothing"
