"""``python -m generator new scipy.special.NAME``: a first spec from SciPy, rejected until its TODOs are filled in."""
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from generator import ROOT
from generator.errors import SpecError, SpecErrors
from generator.loader import parse_spec
from generator.scaffold import ScaffoldError, render

JV_ARGS = [{"name": "v", "kind": "real"}, {"name": "z", "kind": "complex"}]


@pytest.fixture
def project(tmp_path):
    """A temporary project: the real templates and an empty specs/special/."""
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    (tmp_path / "specs" / "special").mkdir(parents=True)
    return tmp_path


def generator(root, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "generator", "--root", str(root), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def one_error_line(result) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def error_lines(result) -> list:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = result.stderr.splitlines()
    assert lines[-1].startswith("generator: ") and "error(s)" in lines[-1], lines
    return lines[:-1]


def test_new_jv_has_scipys_names_kinds_and_summary(project):
    result = generator(project, "new", "scipy.special.jv")
    assert result.returncode == 0, result.stderr
    assert "specs/special/jv.yaml" in result.stdout
    text = (project / "specs" / "special" / "jv.yaml").read_text()
    data = yaml.safe_load(text)
    assert data["name"] == "jv" and data["scipy"] == "scipy.special.jv"
    assert data["summary"] == "Bessel function of the first kind of real order and complex argument."
    assert data["args"] == JV_ARGS  # SciPy's jv(v, z), not numpy's generic jv(x1, x2)
    assert "outputs" not in data  # one output of the promoted dtype: the default
    assert set(data["tests"]["domain"]) == {"v", "z"} and "z" in data["tests"]["complex_domain"]
    assert set(data["derivatives"]) == {"v", "z"}
    todo_lines = [line.strip() for line in text.splitlines() if "# TODO(jaxsci new):" in line]
    assert len(todo_lines) == 2 and all(line.startswith("# TODO(jaxsci new):") for line in todo_lines)


def test_generator_rejects_the_scaffold_until_every_todo_is_filled_in(project):
    assert generator(project, "new", "scipy.special.jv").returncode == 0
    path = project / "specs" / "special" / "jv.yaml"
    text = path.read_text()

    # the first run names every placeholder and every TODO comment at once, each at its line
    lines = error_lines(generator(project))
    todo_comments = [i for i, t in enumerate(text.splitlines(), 1) if "# TODO(jaxsci new):" in t]
    placeholder = "is a placeholder left by `python -m generator new`"
    placeholders = [line for line in lines if placeholder in line]
    assert sorted(re.fullmatch(r"specs/special/jv\.yaml:\d+: (\S+) " + re.escape(placeholder) + r": TODO\(jaxsci new\): .*",
                               line).group(1) for line in placeholders) == ["derivatives.v", "derivatives.z", "reference.mpmath"]
    assert [line for line in lines if line not in placeholders] == [
        f"specs/special/jv.yaml:{n}: a '# TODO(jaxsci new)' comment from `python -m generator new` is left: "
        "do what it says, then delete it" for n in todo_comments] and len(todo_comments) == 2, lines

    # fill everything in at once: v is not differentiable, z has DLMF's recurrence, mpmath's besselj
    text = text.replace("  - name: v\n    kind: real\n", "  - name: v\n    kind: real\n    differentiable: false\n"
                        "    why: no closed form in Bessel functions\n")
    start, end = text.index("derivatives:\n"), text.index("reference:\n")
    text = text[:start] + ("derivatives:\n  z:\n    formula: jv(v - 1, z) - v / z * jv(v, z)\n"
                           "    source: DLMF 10.6.2\n") + text[end:]
    text = re.sub(r'  mpmath: "TODO\(jaxsci new\)[^\n]*"\n', "  mpmath: besselj(v, z)\n", text)
    text = "\n".join(t for t in text.splitlines() if not t.strip().startswith("#")) + "\n"
    path.write_text(text)
    result = generator(project)
    assert result.returncode == 0, result.stderr
    module = (project / "generated" / "jaxsci" / "special" / "_jv.py").read_text()
    assert "def jv(v, z):" in module and "DLMF 10.6.2" in module

    # the scaffolded function works: d/dz J_1(z) at 2 = (J_0(2) - J_2(2)) / 2
    check = ("import jax; from jaxsci.special import jv; "
             "print(float(jax.grad(lambda z: jv(1.0, z))(2.0)))")
    env = dict(os.environ, PYTHONPATH=str(project / "generated"), JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert abs(float(run.stdout.strip()) - (-0.0644716247)) < 1e-6, run.stdout


def test_new_refuses_to_overwrite(project):
    target = project / "specs" / "special" / "jv.yaml"
    shutil.copy(ROOT / "specs" / "special" / "jv.yaml", target)
    before = target.read_text()
    line = one_error_line(generator(project, "new", "scipy.special.jv"))
    assert line == ("python -m generator new: specs/special/jv.yaml already exists; "
                    "delete it first to scaffold it again"), line
    assert target.read_text() == before


@pytest.mark.parametrize("name, message", [
    ("scipy.special.jvv", "scipy.special has no function 'jvv'; did you mean scipy.special.jv?"),
    ("scipy.special.spherical_jn", "scipy.special.spherical_jn is a Python function, not a ufunc"),
    ("numpy.sin", "expected scipy.special.NAME, got 'numpy.sin'"),
    ("jv", "expected scipy.special.NAME, got 'jv'"),
], ids=["unknown", "not-a-ufunc", "other-module", "bare-name"])
def test_new_with_a_name_it_cannot_scaffold_exits_2(project, name, message):
    line = one_error_line(generator(project, "new", name))
    assert line.startswith("python -m generator new: ") and message in line, line
    assert list((project / "specs" / "special").iterdir()) == []


def test_command_other_than_new_is_a_usage_error(project):
    result = generator(project, "old", "scipy.special.jv")
    assert result.returncode == 2 and "the only command is `new scipy.special.NAME`" in result.stderr


@pytest.mark.parametrize("name, args, outputs", [
    ("kn", [("n", "integer"), ("x", "real")], None),
    ("hankel1", [("v", "real"), ("z", "complex")], [("out", "complex")]),
    ("airy", [("z", "complex")], [("Ai", "promoted"), ("Aip", "promoted"), ("Bi", "promoted"), ("Bip", "promoted")]),
    ("sici", [("x", "complex")], [("si", "promoted"), ("ci", "promoted")]),
    ("ellipj", [("u", "real"), ("m", "real")], [("sn", "promoted"), ("cn", "promoted"), ("dn", "promoted"),
                                                ("ph", "promoted")]),
    ("gammaincinv", [("a", "real"), ("y", "real")], None),
], ids=lambda v: v if isinstance(v, str) else None)
def test_scaffold_reads_kinds_and_outputs_from_the_ufunc(name, args, outputs):
    _, text = render(f"scipy.special.{name}")
    data = yaml.safe_load(text)
    assert [(a["name"], a["kind"]) for a in data["args"]] == args
    assert ([(o["name"], o["dtype"]) for o in data["outputs"]] if "outputs" in data else None) == outputs
    for arg in data["args"]:
        assert (arg["kind"] == "integer") == (arg["name"] not in data.get("derivatives", {}))
        lo, hi = data["tests"]["domain"][arg["name"]]
        assert lo < hi
    if name == "kn":  # SciPy's kn also has a float loop: say so next to n
        assert "# SciPy also has a floating loop for n" in text
    with pytest.raises(SpecErrors) as info:
        parse_spec(text, f"specs/special/{name}.yaml", module="special", stem=name)
    assert any("placeholder left by `python -m generator new`" in e.message for e in info.value.errors), str(info.value)


def test_scaffold_errors_are_one_line():
    with pytest.raises(ScaffoldError) as info:
        render("scipy.special.not_there")
    assert "\n" not in str(info.value)
