"""``python -m generator new scipy.special.NAME``: write a first spec for a SciPy ufunc.

What SciPy can tell is filled in: the name, the summary (the docstring's first line), the arguments
with SciPy's names (the docstring's signature line) and kinds (the ufunc's loops), the outputs (names
from the docstring's Returns section) and a test domain where SciPy returns finite values. What only a
person can give (the derivative rules and their sources, the mpmath reference) is left as a
``# TODO(jaxsci new):`` comment over a placeholder value, and the loader rejects the file, naming the
placeholder, until each is filled in and its comment removed.
"""
from __future__ import annotations

import difflib
import importlib
import itertools
import json
import keyword
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

TODO = "TODO(jaxsci new)"  # the loader rejects a spec that still holds this text (see loader.py)

_INTEGER_CODES = set(np.typecodes["AllInteger"])
_COMPLEX_CODES = set(np.typecodes["Complex"])
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SIGNATURE = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_.]*\((.*)\)\s*$")
_GENERIC = re.compile(r"^x\d*$")  # numpy's own names for ufunc inputs: x, or x1, x2, ...

# Candidate sampling intervals, tried in order; the first where SciPy is finite on a grid is kept.
_REAL_INTERVALS = [(-5.0, 5.0), (0.1, 10.0), (0.5, 5.0), (0.1, 0.9), (1.0, 5.0), (-0.9, 0.9)]
_INTEGER_INTERVALS = [(0, 5), (1, 5), (-3, 3), (0, 1)]
_COMPLEX_BOXES = [((-5.0, 5.0), (-5.0, 5.0)), ((0.1, 5.0), (-5.0, 5.0)), ((0.1, 5.0), (-2.0, 2.0))]
_GRID_POINTS = 400  # at most this many evaluations per trial: 7 per argument, fewer for many arguments


class ScaffoldError(Exception):
    """A one-line reason why no spec was written."""


@dataclass(frozen=True)
class ScaffoldArg:
    name: str
    kind: str  # real, complex or integer
    float_loop: bool  # for an integer argument: SciPy also has a floating loop for it


def _ufunc(dotted: str):
    module, _, name = dotted.rpartition(".")
    if module != "scipy.special" or not _IDENTIFIER.match(name):
        raise ScaffoldError(f"expected scipy.special.NAME, got {dotted!r}")
    special = importlib.import_module("scipy.special")
    function = getattr(special, name, None)
    if function is None:
        hint = difflib.get_close_matches(name, [n for n in dir(special) if not n.startswith("_")], n=1)
        suggestion = f"; did you mean scipy.special.{hint[0]}?" if hint else ""
        raise ScaffoldError(f"scipy.special has no function {name!r}{suggestion}")
    if not isinstance(function, np.ufunc):
        raise ScaffoldError(
            f"scipy.special.{name} is a Python function, not a ufunc: its loops and signature cannot be read "
            "from it; write its spec by hand (specs/README.md)")
    return name, function


def _params(text: str) -> list[str]:
    """Input names of a docstring signature ``jv(v, z, /, out=None, *, ...)`` or ``airy(x[, out1], / ...)``."""
    while True:  # drop optional parts such as [, out1, out2] and [, signature], innermost first
        stripped = re.sub(r"\[[^\[\]]*\]", "", text)
        if stripped == text:
            break
        text = stripped
    names = []
    for part in (p.strip() for p in text.split(",")):
        if part in ("/", "*") or "=" in part or part.startswith("*") or part == "out":
            break
        names.append(part)
    return names


def _section(doc: str, title: str) -> list[str]:
    """The lines of a numpydoc section (``Parameters``, ``Returns``), dedented."""
    lines = doc.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == title and set(lines[i + 1].strip()) == {"-"}:
            body = []
            for nxt in lines[i + 2:]:
                if nxt.strip() and body and set(nxt.strip()) == {"-"}:
                    body.pop()  # the next section's title
                    break
                body.append(nxt)
            indent = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
            return [b[indent:] for b in body]
    return []


def _entries(section: list[str]) -> list[list[str]]:
    """Names of each entry of a section: ``a, b : array_like`` gives [a, b]; an unnamed entry gives []."""
    out = []
    for line in section:
        if not line.strip() or line.startswith((" ", "\t")):
            continue
        names = line.split(" : ", 1)[0] if " : " in line else ""
        out.append([n.strip() for n in names.split(",")] if names else [])
    return out


def _valid(names: list[str], count: int) -> bool:
    return (len(names) == count and len(set(names)) == count
            and all(_IDENTIFIER.match(n) and not keyword.iskeyword(n) for n in names))


def argument_names(ufunc, doc: str) -> list[str]:
    """SciPy's names for the inputs: the docstring's own signature, then its Parameters section."""
    header = doc.split("Parameters\n", 1)[0]
    signatures = [_params(m.group(1)) for m in map(_SIGNATURE.match, header.splitlines()) if m]
    signatures = [s for s in signatures if _valid(s, ufunc.nin)]
    specific = [s for s in signatures if not all(_GENERIC.match(n) for n in s)]
    if specific:
        return specific[0]
    from_parameters = [n for entry in _entries(_section(doc, "Parameters")) for n in entry if n != "out"]
    if _valid(from_parameters, ufunc.nin):
        return from_parameters
    return signatures[0] if signatures else [f"x{i}" for i in range(ufunc.nin)]


def output_names(ufunc, doc: str, args: list[str]) -> list[str]:
    if ufunc.nout == 1:
        return ["out"]
    names = [n for entry in _entries(_section(doc, "Returns")) for n in entry]
    if _valid(names, ufunc.nout) and not set(names) & set(args):
        return names
    return [f"out{i}" for i in range(ufunc.nout)]


def summary(doc: str) -> str:
    for line in doc.split("Parameters\n", 1)[0].splitlines():
        if line.strip() and not _SIGNATURE.match(line):
            return line.strip()
    return ""


def _loops(ufunc) -> list[tuple[str, str]]:
    return [tuple(t.split("->")) for t in ufunc.types]


def argument_kinds(ufunc, names: list[str]) -> list[ScaffoldArg]:
    """integer if SciPy has an integer loop for it, complex if a complex one, else real."""
    loops = _loops(ufunc)
    args = []
    for i, name in enumerate(names):
        codes = {inputs[i] for inputs, _ in loops}
        if codes & _INTEGER_CODES:
            args.append(ScaffoldArg(name, "integer", float_loop=bool(codes - _INTEGER_CODES)))
        elif codes & _COMPLEX_CODES:
            args.append(ScaffoldArg(name, "complex", float_loop=False))
        else:
            args.append(ScaffoldArg(name, "real", float_loop=False))
    return args


def output_dtypes(ufunc) -> list[str]:
    """complex if every loop returns complex, real if a complex loop returns real, else promoted."""
    loops = _loops(ufunc)
    dtypes = []
    for k in range(ufunc.nout):
        outs = [(set(inputs) & _COMPLEX_CODES, outputs[k]) for inputs, outputs in loops]
        if all(code in _COMPLEX_CODES for _, code in outs):
            dtypes.append("complex")
        elif any(complex_in and code not in _COMPLEX_CODES for complex_in, code in outs):
            dtypes.append("real")
        else:
            dtypes.append("promoted")
    return dtypes


def _finite(ufunc, args: list[ScaffoldArg], intervals: list, boxes: dict | None = None) -> bool:
    """Whether SciPy returns finite values on a grid over the intervals (complex boxes for ``boxes``)."""
    per_axis = max(3, min(7, int(_GRID_POINTS ** (1 / len(args)))))
    axes = []
    for arg, (lo, hi) in zip(args, intervals):
        if arg.kind == "integer":
            axes.append(np.arange(int(lo), int(hi) + 1, dtype=np.int64))
        elif boxes and arg.name in boxes:
            (rlo, rhi), (ilo, ihi) = boxes[arg.name]
            axes.append((np.linspace(rlo, rhi, per_axis)[:, None] + 1j * np.linspace(ilo, ihi, per_axis)[None, :]).ravel())
        else:
            axes.append(np.linspace(lo, hi, per_axis))
    grids = [np.array(column) for column in zip(*itertools.product(*axes))]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = ufunc(*grids)
    except (TypeError, ValueError):
        return False
    values = values if isinstance(values, tuple) else (values,)
    return all(np.all(np.isfinite(v)) for v in values)


def guess_domain(ufunc, args: list[ScaffoldArg]) -> tuple[list, dict]:
    """Per argument, the first candidate interval where SciPy is finite (two passes, greedy)."""
    intervals = [(0, 3) if a.kind == "integer" else (0.1, 0.9) for a in args]
    for _ in range(2):
        for i, arg in enumerate(args):
            for candidate in _INTEGER_INTERVALS if arg.kind == "integer" else _REAL_INTERVALS:
                trial = intervals[:i] + [candidate] + intervals[i + 1:]
                if _finite(ufunc, args, trial):
                    intervals[i] = candidate
                    break
    boxes = {}
    for arg in args:
        if arg.kind == "complex":
            for box in _COMPLEX_BOXES:
                if _finite(ufunc, args, intervals, {**boxes, arg.name: box}):
                    boxes[arg.name] = box
                    break
    return intervals, boxes


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when that reads back unchanged, else double-quoted."""
    try:
        plain = yaml.safe_load(f"key: {text}") == {"key": text}
    except yaml.YAMLError:
        plain = False
    return text if plain and " #" not in text else json.dumps(text, ensure_ascii=False)


def _number(x) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def render(dotted: str) -> tuple[str, str]:
    """(name, spec text) for the ufunc ``scipy.special.NAME``; raises ScaffoldError."""
    name, ufunc = _ufunc(dotted)
    doc = ufunc.__doc__ or ""
    names = argument_names(ufunc, doc)
    args = argument_kinds(ufunc, names)
    outputs = list(zip(output_names(ufunc, doc, names), output_dtypes(ufunc)))
    intervals, boxes = guess_domain(ufunc, args)
    finite = _finite(ufunc, args, intervals)
    continuous = [a for a in args if a.kind in ("real", "complex")]
    traced = ", ".join(a.name for a in args)

    lines = [
        f"# Scaffolded by `python -m generator new {dotted}`. Fill in each place marked TODO(jaxsci new)",
        "# and delete its comment: the generator rejects this file until none is left. specs/README.md",
        "# explains every key.",
        f"name: {name}",
        f"scipy: {dotted}",
        f"summary: {_scalar(summary(doc) or TODO + ': a one-line summary')}",
        "args:",
    ]
    for arg in args:
        lines += [f"  - name: {arg.name}", f"    kind: {arg.kind}"]
        if arg.float_loop:
            lines.append(f"    # SciPy also has a floating loop for {arg.name}: set accepts_float to true (or 'truncate' "
                         "if it truncates), or leave it off to reject floats")
    if len(outputs) > 1 or outputs[0][1] != "promoted":
        lines.append("outputs:")
        for out, dtype in outputs:
            lines += [f"  - name: {out}", f"    dtype: {dtype}"]
    if continuous:
        several = len(outputs) > 1
        example = ("{formulas: {" + ", ".join(f"{o}: ..." for o, _ in outputs) + "}, source: ...}") if several \
            else "{formula: ..., source: ...}"
        lines += [
            "derivatives:",
            f"  # {TODO}: a rule for each argument below: {example} citing DLMF or",
            "  # functions.wolfram.com; or the word sympy, with a top-level `sympy:` expression to derive it from;",
            "  # for a parameter with no closed form, a derivative kernel of jaxsci's own: {formula: <name>_d<arg>(...)}",
            "  # with specs/kernels/<name>_d<arg>.yaml (README: \"Adding a parameter derivative\");",
            "  # or, only where SciPy floors or truncates it, mark the argument `differentiable: false` with a `why:`.",
        ]
        for arg in continuous:
            lines.append(f"  {arg.name}: \"{TODO}: the derivative of {name} in {arg.name} (a rule, sympy, or "
                         f"differentiable: false with why)\"")
    lines += [
        "reference:",
        f"  # {TODO}: an mpmath expression in {traced} that the gradient tests differentiate, or replace",
        "  # `mpmath:` by `finite_differences: <why mpmath cannot compute it>`.",
        f"  mpmath: \"{TODO}: an mpmath expression in {traced}, or finite_differences: <why>\"",
        "tests:",
        "  # Guessed: intervals where SciPy returns finite values; adjust them to the function's domain." if finite else
        "  # Guessed, but SciPy is not finite everywhere in these intervals: choose the function's domain.",
        "  domain: {" + ", ".join(f"{a.name}: [{_number(lo)}, {_number(hi)}]" for a, (lo, hi) in zip(args, intervals)) + "}",
    ]
    if boxes:
        lines.append("  complex_domain: {" + ", ".join(
            f"{n}: [[{_number(r[0])}, {_number(r[1])}], [{_number(i[0])}, {_number(i[1])}]]" for n, (r, i) in boxes.items())
            + "}")
    return name, "\n".join(lines) + "\n"


def scaffold(dotted: str, root: Path) -> Path:
    """Write ``specs/special/NAME.yaml`` under ``root``; never overwrites. Returns the path written."""
    name, text = render(dotted)
    path = root / "specs" / "special" / f"{name}.yaml"
    if path.exists():
        raise ScaffoldError(f"{path.relative_to(root)} already exists; delete it first to scaffold it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
