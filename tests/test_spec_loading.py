"""A spec that does not load fails its own test, with the loader's message; the rest of the suite runs.

A scaffold left in specs/ (``python -m generator new``, TODOs unfilled) once broke the collection of
every test, because tests/specdata.py raised at import.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from generator import ROOT
from generator.errors import SpecError
from generator.loader import collect_specs, load_spec, load_specs
from generator.scaffold import render

import jaxsci
import pytest


def _scaffold(root, name):
    """``python -m generator new scipy.special.NAME``'s file (its TODOs left) under ``root``/specs/special/."""
    path = root / "specs" / "special" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(f"scipy.special.{name}")[1])
    return path


def test_collect_specs_keeps_the_good_specs_and_the_loaders_error(tmp_path):
    (tmp_path / "specs" / "special").mkdir(parents=True)
    for name in ("jv", "j0"):
        shutil.copy(ROOT / "specs" / "special" / f"{name}.yaml", tmp_path / "specs" / "special")
    path = _scaffold(tmp_path, "expit")
    specs, errors = collect_specs(tmp_path / "specs", tmp_path)
    assert [s.name for s in specs] == ["j0", "jv"]
    # every placeholder of the scaffold, each a SpecError at its own line of the one bad file
    assert errors and all(isinstance(e, SpecError) and e.path == "specs/special/expit.yaml" for e in errors)
    with pytest.raises(SpecError) as direct:
        load_spec(path, tmp_path)
    assert "\n".join(map(str, errors)) == str(direct.value)  # the loader's own path:line: messages
    assert any(re.fullmatch(r"specs/special/expit\.yaml:\d+: .*placeholder left by `python -m generator new`.*", str(e))
               for e in errors)
    with pytest.raises(Exception) as together:  # the generator still rejects the tree as a whole
        load_specs(tmp_path / "specs", tmp_path)
    assert str(errors[0]) in str(together.value)


def test_a_scaffold_in_specs_fails_only_its_own_test(tmp_path):
    """In a copy of the project holding a scaffold, pytest collects every suite: the scaffold's
    ``test_spec_loads`` fails with the loader's message, and the other specs' tests pass."""
    shutil.copytree(ROOT / "generator", tmp_path / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "specs" / "special").mkdir(parents=True)
    for name in ("jv", "expit"):  # expit: a spec whose name the scaffold would also take
        shutil.copy(ROOT / "specs" / "special" / f"{name}.yaml", tmp_path / "specs" / "special")
    _scaffold(tmp_path, "logit")
    message = str(collect_specs(tmp_path / "specs", tmp_path)[1][0])

    # this copy's generator/ (ROOT), and the jaxsci this session imported (installed, or on PYTHONPATH)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(jaxsci.__file__).parents[1])]))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rf",
                             "tests/test_values.py", "tests/test_gradients.py", "tests/test_completeness.py",
                             "-k", "test_spec_loads"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    summary = result.stdout.strip().splitlines()[-1]
    # every file collected (jv's and expit's value and gradient tests deselected), one failure
    assert re.fullmatch(r"1 failed, 2 passed, \d+ deselected in .*", summary), result.stdout[-3000:] + result.stderr[-3000:]
    assert int(summary.split(" deselected")[0].split()[-1]) > 20, summary
    assert "FAILED tests/test_completeness.py::test_spec_loads[special/logit]" in result.stdout
    assert message in result.stdout, result.stdout[-3000:]


def test_every_key_the_loader_accepts_is_documented_in_specs_readme():
    """Each key the loader reads (``.get``/``.has`` of a mapping, the per-output and case keys, the
    tolerance tables) and each argument kind and output dtype appears as `key` in specs/README.md."""
    import ast

    from generator import model

    root = ROOT
    sources = [(root / "generator" / name).read_text(encoding="utf-8") for name in ("loader.py", "reduction.py", "device.py", "releases.py")]
    tree = ast.parse("\n".join(sources))
    positions = {"get": [0], "has": [0], "_per_output": [1, 2], "_cases": [1], "_tolerances": [1]}
    keys = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        for i in positions.get(name, []):
            if i < len(node.args) and isinstance(node.args[i], ast.Constant) and isinstance(node.args[i].value, str):
                keys.add(node.args[i].value)
        keys.update(k.value.value for k in node.keywords if k.arg == "payload_key" and isinstance(k.value, ast.Constant))
    assert {"name", "scipy", "choices", "why_choices", "keyword_only", "shape", "statics", "scipy_name"} <= keys  # the scan works
    keys |= set(model.ARG_KINDS) | set(model.OUTPUT_DTYPES)
    documented = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)[`:]", (root / "specs" / "README.md").read_text(encoding="utf-8")))
    assert sorted(keys - documented) == []
