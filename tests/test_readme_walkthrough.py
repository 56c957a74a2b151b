"""The README's walkthroughs, executed step by step in temporary copies of the project.

"Adding a function": a new YAML file, one command, an importable function whose generated value and
gradient tests pass. "Adding a parameter derivative": a kernel, its spec and the parent's rule, the
same commands, and a parameter gradient that agrees with mpmath.
"""
import os
import shlex
import shutil
import subprocess
import sys

import mpmath

from generator import ROOT
from spectree import copy_specs

# The spec-driven suites (the other test files are about this project's own tree).
SUITE_FILES = ("conftest.py", "specdata.py", "spectree.py", "mpref.py", "refdata.py", "test_values.py",
               "test_transforms.py", "test_gradients.py", "test_completeness.py", "tools/make_references.py")


def _block(text: str, marker: str) -> str:
    start = text.index(f"<!-- {marker}")
    body = text[text.index("```", start):text.index(f"<!-- end-{marker}")]
    return body.split("\n", 1)[1].rsplit("```", 1)[0]


def _block_path(text: str, marker: str) -> str:
    header = text[text.index(f"<!-- {marker}:"):].split("-->", 1)[0]
    return header.split(":", 1)[1].strip()


def _project(tmp_path, specs=()):
    """A copy of the generator, templates and spec-driven suites, with ``specs`` and what they call."""
    for folder in ("templates", "generator"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tests").mkdir()
    for name in SUITE_FILES:
        (tmp_path / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    copy_specs(specs, tmp_path)
    for module in ("special", "kernels"):
        (tmp_path / "specs" / module).mkdir(parents=True, exist_ok=True)


def _write_block(readme: str, marker: str, root) -> None:
    path = root / _block_path(readme, marker)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_block(readme, marker))


def _run(readme: str, marker: str, root) -> list:
    """Run the README's commands under ``marker`` in ``root``; returns each one's stdout."""
    commands = [line for line in _block(readme, marker).splitlines() if line.strip()]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "generated"), str(root)]))
    outputs = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == ".venv/bin/python", command
        argv[0] = sys.executable
        result = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        outputs.append(result.stdout)
    return outputs


def _assert_suite_passed(output: str, at_least: int) -> None:
    summary = output.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, output[-3000:]
    assert int(summary.split(" passed")[0].split()[-1]) >= at_least, summary


def test_readme_walkthrough_adds_a_working_function(tmp_path):
    readme = (ROOT / "README.md").read_text()
    # A user's tree has every spec; a few keep the generator run short, and the new spec needs none.
    _project(tmp_path, ("jv", "expit"))  # with the kernels jv's rules call
    _write_block(readme, "walkthrough-spec", tmp_path)
    outputs = _run(readme, "walkthrough-commands", tmp_path)

    generated = tmp_path / "generated" / "jaxsci" / "special" / "_logistic.py"
    assert generated.exists() and "specs/special/logistic.yaml" in generated.read_text().splitlines()[0]
    # d/dx expit(x) at 0.5 = expit(0.5) * (1 - expit(0.5))
    assert abs(float(outputs[1].strip()) - 0.2350037122015945) < 1e-6
    assert (tmp_path / "tests" / "data" / "references" / "special" / "logistic.json").exists(), outputs[2]
    _assert_suite_passed(outputs[3], 7)  # the generic tests of one spec (nested vmap runs for a share of specs)


def test_readme_walkthrough_adds_a_parameter_derivative(tmp_path):
    readme = (ROOT / "README.md").read_text()
    kernel_module = ROOT / _block_path(readme, "walkthrough-kernel")
    # the kernel line the README shows is the project's own
    assert _block(readme, "walkthrough-kernel").strip() in kernel_module.read_text().splitlines()
    _project(tmp_path)
    _write_block(readme, "walkthrough-kernel-spec", tmp_path)
    _write_block(readme, "walkthrough-parent-spec", tmp_path)
    outputs = _run(readme, "walkthrough-parameter-commands", tmp_path)

    mpmath.mp.dps = 30
    expected = mpmath.diff(lambda t: mpmath.struveh(t, 2), 1.5)
    assert abs(float(outputs[1].strip()) - float(expected)) < 1e-6 * abs(float(expected))
    for folder, name in (("special", "struve"), ("kernels", "struve_dv")):
        assert (tmp_path / "tests" / "data" / "references" / folder / f"{name}.json").exists(), outputs[2]
    _assert_suite_passed(outputs[3], 12)
