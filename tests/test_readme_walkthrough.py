"""The README's "adding a function" walkthrough, executed step by step in a temporary copy.

This is the add-a-spec flow: a new YAML file, one command, an importable function whose generated
value and gradient tests pass.
"""
import os
import shlex
import shutil
import subprocess
import sys

from generator import ROOT
from spectree import copy_specs


def _block(text: str, marker: str) -> str:
    start = text.index(f"<!-- {marker}")
    body = text[text.index("```", start):text.index(f"<!-- end-{marker}")]
    return body.split("\n", 1)[1].rsplit("```", 1)[0]


def test_readme_walkthrough_adds_a_working_function(tmp_path):
    readme = (ROOT / "README.md").read_text()
    header = readme[readme.index("<!-- walkthrough-spec:"):].split("-->", 1)[0]
    spec_path = header.split(":", 1)[1].strip()
    spec_text = _block(readme, "walkthrough-spec")
    commands = [line for line in _block(readme, "walkthrough-commands").splitlines() if line.strip()]

    for folder in ("templates", "generator"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    # The spec-driven suites (the other test files are about this project's own tree).
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "specdata.py", "spectree.py", "mpref.py", "refdata.py", "test_values.py", "test_transforms.py",
                 "test_gradients.py", "test_completeness.py", "tools/make_references.py"):
        (tmp_path / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    # A user's tree has every spec; a few keep the generator run short, and the new spec needs none.
    copy_specs(("jv", "expit"), tmp_path)  # with the kernels jv's rules call
    (tmp_path / "specs" / "special").mkdir(parents=True, exist_ok=True)
    (tmp_path / spec_path).write_text(spec_text)

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "generated"), str(tmp_path)]))
    outputs = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == ".venv/bin/python", command
        argv[0] = sys.executable
        result = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        outputs.append(result.stdout)
    generated = tmp_path / "generated" / "jaxsci" / "special" / "_logistic.py"
    assert generated.exists() and "specs/special/logistic.yaml" in generated.read_text().splitlines()[0]
    # d/dx expit(x) at 0.5 = expit(0.5) * (1 - expit(0.5))
    assert abs(float(outputs[1].strip()) - 0.2350037122015945) < 1e-6
    assert (tmp_path / "tests" / "data" / "references" / "special" / "logistic.json").exists(), outputs[2]
    summary = outputs[3].strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, outputs[3][-3000:]
    assert int(summary.split(" passed")[0].split()[-1]) >= 8, summary
