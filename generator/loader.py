"""Strict spec loader: YAML mapping -> ``Spec``; every problem is ``path:line: message``.

Keys are popped one at a time, so anything left over is an unknown key; nothing is silently ignored.
"""
from __future__ import annotations

import dataclasses

import difflib
import functools
import importlib
import inspect
import itertools
import keyword
import math
import re
from pathlib import Path

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from . import coredims, derivative_outputs, model, releases, scipycheck
from . import device as device_spec
from . import reduction as reduction_spec
from .errors import SpecError, SpecErrors
from .formulas import FormulaError, parse, parse_guard
from .printer import GuardPrinter, PrintError
from .yamlload import LocatedDict, line_at, load_yaml

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FLOAT_TEXT = re.compile(r"^[-+]?[0-9]+[eE][-+]?[0-9]+$")  # 1e-15: a string to YAML 1.1, a number to people
# an output size that is a sum of static ints and integers: "n + 1", "n - m + 1"
_SHAPE_SUM = re.compile(r"^\s*[+-]?\s*(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\s*[+-]\s*(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*\s*$")
_SHAPE_TERM = re.compile(r"([+-]?)\s*([A-Za-z_][A-Za-z0-9_]*|[0-9]+)")
_JAX_NAME = re.compile(r"^jax(\.[A-Za-z_][A-Za-z0-9_]*)+$")
# Names the generated modules use (templates/function.py.j2): a function, argument or output may not take them.
_RESERVED = frozenset({"jnp", "jsp", "np", "values", "needs"})

# What `python -m generator new` leaves for a person to fill in: a placeholder value, under a comment.
SCAFFOLD_TODO = "TODO(jaxsci new)"

DEFAULT_GRADIENT_TOLERANCE = {
    "float32": model.Tolerance(rtol=2e-3, atol=1e-5),
    "float64": model.Tolerance(rtol=1e-9, atol=1e-12),
}


class _Mapping:
    """Reads keys from a located mapping; ``done()`` rejects the keys nobody asked for."""

    def __init__(self, data, path: str, what: str, line: int | None):
        if not isinstance(data, dict):
            raise SpecError(path, line, f"{what} must be a mapping, got {_describe(data)}")
        self.data = data
        self.path = path
        self.what = what
        self.line = getattr(data, "line", line)
        self.taken: set[str] = set()

    def key_line(self, key: str) -> int | None:
        return getattr(self.data, "key_lines", {}).get(key, self.line)

    def value_line(self, key: str) -> int | None:
        return getattr(self.data, "value_lines", {}).get(key, self.line)

    def loc(self, key: str | None = None) -> model.Location:
        return model.Location(self.path, self.value_line(key) if key else self.line)

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, types, *, required: bool = False, default=None, allow_empty: bool = False):
        self.taken.add(key)
        if key not in self.data:
            if required:
                raise SpecError(self.path, self.line, f"{self.what} is missing required key {key!r}")
            return default
        value = self.data[key]
        if types is not None and not _isinstance(value, types):
            expected = " or ".join(_type_name(t) for t in (types if isinstance(types, tuple) else (types,)))
            hint = ""
            if float in (types if isinstance(types, tuple) else (types,)) and isinstance(value, str) and _FLOAT_TEXT.match(value):
                hint = f" (YAML reads an exponent without a decimal point as a string: write {value.replace('e', '.0e', 1)})"
            raise SpecError(
                self.path, self.value_line(key), f"{self.what}.{key} must be {expected}, got {_describe(value)}{hint}"
            )
        if isinstance(value, str) and not value.strip() and not allow_empty:
            raise SpecError(self.path, self.value_line(key), f"{self.what}.{key} must not be empty")
        if isinstance(value, str) and SCAFFOLD_TODO in value:
            raise SpecError(self.path, self.value_line(key),
                            f"{self.what}.{key} is a placeholder left by `python -m generator new`: {' '.join(value.split())}")
        return value

    def done(self) -> None:
        unknown = [k for k in self.data if k not in self.taken]
        if unknown:
            key = unknown[0]
            hint = difflib.get_close_matches(key, sorted(self.taken), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            known = ", ".join(sorted(self.taken))
            raise SpecError(
                self.path,
                self.key_line(key),
                f"unknown key {key!r} in {self.what}{suggestion} (known keys: {known})",
            )


def _isinstance(value, types) -> bool:
    types = types if isinstance(types, tuple) else (types,)
    for t in types:
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if t is int and isinstance(value, bool):
            continue
        if isinstance(value, t):
            return True
    return False


def _type_name(t) -> str:
    return {str: "a string", bool: "true or false", int: "an integer", float: "a number",
            dict: "a mapping", list: "a list"}.get(t, t.__name__)


def _describe(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"boolean {value}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"


def _finite(number) -> bool:
    """A finite float; an integer too large for a float is not (math.isfinite would raise)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _list(value, path: str, what: str, line: int | None) -> list:
    if not isinstance(value, list):
        raise SpecError(path, line, f"{what} must be a list, got {_describe(value)}")
    return value


def _item_line(seq, index: int, fallback: int | None) -> int | None:
    lines = getattr(seq, "item_lines", None)
    return lines[index] if lines else fallback


def _identifier(name: str, path: str, line: int | None, what: str) -> str:
    if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise SpecError(path, line, f"{what} {name!r} is not a valid Python identifier")
    if name.startswith("_") or name in _RESERVED:
        raise SpecError(path, line, f"{what} {name!r} would shadow a name of the generated module "
                                    f"({', '.join(sorted(_RESERVED))}, or one beginning with '_')")
    return name


def load_spec(path: Path, root: Path | None = None) -> model.Spec:
    """Load one spec file; ``root`` makes the reported path relative (``specs/special/jv.yaml``)."""
    shown = str(path.relative_to(root)) if root and path.is_absolute() and path.is_relative_to(root) else str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(shown, None, f"cannot read spec: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start].decode("utf-8")
        line = line_at(before, len(before))
        raise SpecError(shown, line, f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} ({exc.reason})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as in text mode
    module = path.parent.name
    return parse_spec(text, shown, module=module, stem=path.stem)


def load_specs(specs_dir: Path, root: Path | None = None) -> list[model.Spec]:
    """Load every ``specs/<module>/<name>.yaml``; all errors are collected, then raised together."""
    specs, errors = collect_specs(specs_dir, root)
    if errors:
        raise SpecErrors(errors)
    return specs


def collect_specs(specs_dir: Path, root: Path | None = None) -> tuple[list[model.Spec], list[SpecError]]:
    """Every spec that loads, and every error of each file that does not (``load_specs`` without the
    raise): the generator reports them all at once, and the test suite runs the good specs and fails
    one test per bad file.

    A function defined twice keeps its first definition (in path order); the second is the error.
    """
    specs, errors = [], []
    for path in sorted(specs_dir.glob("*/*.yaml")):
        if path.parent.name == DISTRIBUTIONS:
            continue
        try:
            specs.append(load_spec(path, root))
        except SpecErrors as exc:
            errors.extend(exc.errors)
        except SpecError as exc:
            errors.append(exc)
    seen: dict[tuple, model.Spec] = {}
    unique = []
    for spec in specs:
        key = (spec.module, spec.name)
        if key in seen:
            errors.append(SpecError(spec.path, spec.loc.line, f"function {spec.name!r} is also defined in {seen[key].path}"))
            continue
        seen[key] = spec
        unique.append(spec)
    for spec in list(unique):
        for alias in spec.aliases:
            key = (spec.module, alias)
            if key in seen:
                errors.append(SpecError(spec.path, spec.loc.line, f"alias {alias!r} is also the name of {seen[key].path}"))
                unique.remove(spec)
                break
            seen[key] = spec
    stray = sorted(p for p in specs_dir.glob("*/*") if p.suffix in (".yml", ".YAML", ".json"))
    for path in stray:
        errors.append(SpecError(str(path.relative_to(root) if root else path), None, "specs must be named <name>.yaml"))
    return unique, errors


DISTRIBUTIONS = "stats"  # specs/stats/: distribution specs, loaded by generator/distribution.py
UNCOVERED = "uncovered.yaml"  # specs/uncovered.yaml: SciPy's public callables not wrapped yet, with why


def _per_module_names(specs_dir: Path, root: Path | None, filename: str, value):
    """``specs/<filename>``, ``{module: {name: ...}}``: ``{module: {name: value(module, name, mapping, path,
    module's line)}}`` with every key checked to be a name (empty when the file is absent)."""
    path = specs_dir / filename
    if not path.is_file():
        return {}
    shown = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    data = load_yaml(path.read_text(encoding="utf-8"), shown)
    top = _Mapping(data, shown, filename, 1)
    out = {}
    for module in list(data):
        names = top.get(module, dict)
        m = _Mapping(names, shown, f"{filename}: {module}", top.value_line(module))
        out[module] = {}
        for name in list(names):
            if not _IDENTIFIER.match(str(name)):
                raise SpecError(shown, m.key_line(name), f"{name!r} is not a name")
            out[module][name] = value(module, name, m, shown, top.key_line(module))
        m.done()
    top.done()
    return out


def load_uncovered(specs_dir: Path, root: Path | None = None) -> dict:
    """``specs/uncovered.yaml``: ``{module: {name: reason}}`` for the public callables of ``scipy.<module>``
    that have no spec yet (empty when the file is absent). Each reason is a non-empty string."""
    return _per_module_names(specs_dir, root, UNCOVERED, lambda module, name, m, path, line: " ".join(m.get(name, str).split()))


EXPORTS = "exports.yaml"  # specs/exports.yaml: SciPy's public names that are objects of jaxsci's runtime core
_RUNTIME_DIR = Path(__file__).resolve().parent.parent / "templates" / "runtime"


def load_exports(specs_dir: Path, root: Path | None = None) -> dict:
    """``specs/exports.yaml``: ``{module: {name: (core module, attribute, line)}}`` for the public names of
    ``scipy.<module>`` that are not array functions (SciPy's error switches, its exception classes):
    ``jaxsci.<module>.<name>`` is ``jaxsci._core.<core module>.<attribute>``, a name that
    ``templates/runtime/<core module>.py`` defines (empty when the file is absent)."""

    def target(module: str, name: str, m: _Mapping, path: str, module_line: int | None) -> tuple:
        if not hasattr(_scipy_module(module, path, module_line), name):
            raise SpecError(path, m.key_line(name), f"scipy.{module} has no {name!r}: jaxsci exports only SciPy's names")
        line = m.value_line(name)
        return (*_core_target(m.get(name, str).strip(), name, path, line), line)

    return _per_module_names(specs_dir, root, EXPORTS, target)


def check_exports(exports: dict, specs: list, path: str) -> list:
    """An exported name that is also a function or an alias of the same module is an error."""
    functions = {(s.module, n): s.path for s in specs for n in (s.name, *s.aliases)}
    return [SpecError(path, line, f"{name} is exported from jaxsci._core, but {functions[(module, name)]} defines it too")
            for module, names in exports.items() for name, (_, _, line) in names.items() if (module, name) in functions]


def _scipy_module(module: str, path: str, line: int | None):
    try:
        return importlib.import_module(f"scipy.{module}")
    except ImportError:
        raise SpecError(path, line, f"{module!r} is not a SciPy module (scipy.{module} does not import)") from None


def _core_target(target: str, name: str, path: str, line: int | None) -> tuple:
    """``jaxsci._core.<core module>.<attribute>`` -> (core module, attribute), checked against the source."""
    parts = target.split(".")
    if parts[:2] != ["jaxsci", "_core"] or len(parts) != 4 or not all(map(_IDENTIFIER.match, parts[2:])):
        raise SpecError(path, line, f"{name}: must name an object of templates/runtime/<module>.py as "
                                    f"'jaxsci._core.<module>.{name}', got {target!r}")
    module, attribute = parts[2], parts[3]
    source = _RUNTIME_DIR / f"{module}.py"
    if not source.is_file():
        raise SpecError(path, line, f"{name}: there is no templates/runtime/{module}.py")
    defined = _names_defined(source.read_text(encoding="utf-8"), str(source))
    if attribute not in defined:
        hint = difflib.get_close_matches(attribute, sorted(defined), n=1)
        raise SpecError(path, line, f"{name}: templates/runtime/{module}.py defines no {attribute!r}"
                                    + (f"; did you mean {hint[0]!r}?" if hint else ""))
    return module, attribute


def _scaffold_leftovers(data, text: str, path: str) -> list[SpecError]:
    """Every placeholder value and every TODO comment `python -m generator new` left, in one list."""
    errors = []

    def walk(value, where: str, line):
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{where}.{key}" if where else str(key), getattr(value, "value_lines", {}).get(key, line))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]", _item_line(value, i, line))
        elif isinstance(value, str) and SCAFFOLD_TODO in value:
            errors.append(SpecError(path, line, f"{where} is a placeholder left by `python -m generator new`: "
                                                f"{' '.join(value.split())}"))

    walk(data, "", 1)
    for number, line_text in enumerate(text.splitlines(), 1):
        if f"# {SCAFFOLD_TODO}" in line_text:
            errors.append(SpecError(path, number, f"a '# {SCAFFOLD_TODO}' comment from `python -m generator new` "
                                                  "is left: do what it says, then delete it"))
    return sorted(errors, key=lambda e: e.line or 0)


def parse_spec(text: str, path: str, *, module: str, stem: str | None = None) -> model.Spec:
    data = load_yaml(text, path)
    leftovers = _scaffold_leftovers(data, text, path)
    if leftovers:
        raise SpecErrors(leftovers)
    top = _Mapping(data, path, "the spec", 1)
    name = _identifier(top.get("name", str, required=True), path, top.value_line("name"), "function name")
    if stem is not None and stem != name:
        raise SpecError(path, top.value_line("name"), f"name {name!r} does not match the file name {stem}.yaml")
    scipy = _host_callable(top, path, module, name)
    scipy_since = releases.scipy_since(top, path, "")
    if scipy_since is not None and module == model.KERNELS:
        raise SpecError(path, top.key_line("scipy_since"), "scipy_since: a derivative kernel is jaxsci's own, in every SciPy")
    summary = top.get("summary", str, required=True).strip()
    description = (top.get("description", str, default="") or "").strip()
    references = _references(top, path)
    args = _args(top, path)
    outputs = _outputs(top, path, args)
    for out in outputs:
        if out.name in {a.name for a in args}:
            # derivative code binds outputs and arguments by name in one scope
            raise SpecError(path, out.loc.line, f"output {out.name!r} has the name of an argument; rename the output")
    for arg in args:
        summed = next((out for out in outputs if out.name == arg.sum_of), None)
        if arg.sum_of is not None and (summed is None or len(summed.core or summed.shape or ()) != 1):
            raise SpecError(path, arg.loc.line, f"argument {arg.name!r}: sum_of must name an output with one "
                                                f"(core) dimension, got {arg.sum_of!r}")
    static_bools = {a.name for a in args if a.kind == "static_bool"}
    traced_names = {a.name for a in args if a.traced}
    vmap_method = top.get("vmap_method", str, default="expand_dims")
    if vmap_method not in model.VMAP_METHODS:
        raise SpecError(path, top.value_line("vmap_method"), f"vmap_method must be one of {', '.join(model.VMAP_METHODS)}, got {vmap_method!r}")
    if vmap_method == "sequential":
        raise SpecError(
            path, top.value_line("vmap_method"),
            "vmap_method 'sequential' calls the host once per batch element; an elementwise function batches by broadcasting (expand_dims or broadcast_all)",
        )
    sympy_cases = _cases(top, "sympy", path, static_bools, lambda v, loc, what: _formula(v, loc, what), payload_key="expr")
    reduction = None
    if top.has("reduction"):  # over an axis: rules in the reduction form (generator/reduction.py)
        reduction = reduction_spec.load(top, path, args, outputs, static_bools, _Mapping, _condition, _formula)
        derivatives = ()
    else:
        derivatives = _derivatives(top, path, args, outputs, static_bools)
        derivatives += _omitted_derivatives(top, path, args, outputs, static_bools)
    reference, finite_differences = _reference(top, path, static_bools, required=any(a.differentiable for a in args))
    tests = _tests(top, path, args, traced_names)
    native = _native(top, path, args, outputs)
    guard = _guard(top, path, args, tests)
    if native is not None and guard is not None:
        raise SpecError(path, native.loc.line, "native and guard cannot be combined: the native implementation "
                                               "would run where the guard keeps SciPy from running")
    aliases = _aliases(top, path, name)
    derived = derivative_outputs.load(top, path, args, outputs, tests, _Mapping, _tolerances)
    device = device_spec.load(top, path, args, outputs, _Mapping, _tolerances)
    frontend = _frontend(top, path, module)
    numpy_keywords = top.get("numpy_keywords", str, default=None)
    numpy_keywords = " ".join(numpy_keywords.split()) if numpy_keywords else None
    host_loop = top.get("host_loop", str, default=None)
    host_loop_line = top.value_line("host_loop") if top.has("host_loop") else None
    top.done()
    spec = model.Spec(
        path=path, module=module, name=name, scipy=scipy, summary=summary, description=description,
        references=references, args=args, outputs=outputs, vmap_method=vmap_method, sympy=sympy_cases,
        derivatives=derivatives, reference=reference, tests=tests, loc=model.Location(path, 1),
        finite_differences=finite_differences, native=native, guard=guard, aliases=aliases, reduction=reduction,
        host_loop=" ".join(host_loop.split()) if host_loop else None, derivative_outputs=derived,
        device=device,
        scipy_since=scipy_since, frontend=frontend, numpy_keywords=numpy_keywords,
    )
    coredims.check_spec(spec, host_loop_line)
    if reduction is not None:
        reduction_spec.check(spec)
    else:
        _check_consistency(spec)
    mismatches = scipycheck.check_spec(spec, top.value_line("scipy") if top.has("scipy") else None)
    if mismatches:
        raise SpecErrors(mismatches)
    return spec


def _aliases(top: _Mapping, path: str, name: str) -> tuple:
    """``aliases: [p_roots]``: other names SciPy gives the same callable; jaxsci exports them too."""
    raw = top.get("aliases", list, default=[])
    out = []
    for i, alias in enumerate(raw):
        line = _item_line(raw, i, top.value_line("aliases"))
        if not isinstance(alias, str):
            raise SpecError(path, line, f"aliases[{i}] must be a name, got {_describe(alias)}")
        alias = _identifier(alias, path, line, "alias")
        if alias == name or alias in out:
            raise SpecError(path, line, f"alias {alias!r} is listed twice or is the function's own name")
        out.append(alias)
    return tuple(out)


def _host_callable(top: _Mapping, path: str, module: str, name: str) -> str:
    """What the host evaluates: ``scipy: scipy.<module>.NAME``, or for a derivative kernel in
    specs/kernels/, ``host: jaxsci._core.kernels.<family>.NAME``, a function of templates/runtime/kernels/."""
    if module != model.KERNELS:
        if top.has("host"):
            raise SpecError(path, top.key_line("host"), f"host: names a derivative kernel, for specs in specs/{model.KERNELS}/ only; "
                                                        f"a scipy.{module} function is named by scipy:")
        scipy = top.get("scipy", str, required=True)
        expected_prefix = f"scipy.{module}."
        if not scipy.startswith(expected_prefix) or not _IDENTIFIER.match(scipy[len(expected_prefix):]):
            raise SpecError(path, top.value_line("scipy"),
                            f"scipy must name a callable in scipy.{module}, like '{expected_prefix}{name}', got {scipy!r}")
        return scipy
    if top.has("scipy"):
        raise SpecError(path, top.key_line("scipy"), f"a derivative kernel in specs/{model.KERNELS}/ is named by host: "
                                                     f"(jaxsci._core.kernels.<family>.{name}), not scipy:")
    host = top.get("host", str, required=True)
    parts = host.split(".")
    if parts[:3] != ["jaxsci", "_core", "kernels"] or len(parts) != 5 or not all(map(_IDENTIFIER.match, parts[3:])):
        raise SpecError(path, top.value_line("host"),
                        f"host must name a function of templates/runtime/kernels/<family>.py as "
                        f"'jaxsci._core.kernels.<family>.{name}', got {host!r}")
    family, function = parts[3], parts[4]
    source = _KERNELS_DIR / f"{family}.py"
    if not source.is_file():
        raise SpecError(path, top.value_line("host"), f"host {host!r}: there is no templates/runtime/kernels/{family}.py")
    defined = _kernel_names(source)
    if function not in defined:
        hint = difflib.get_close_matches(function, sorted(defined), n=1)
        raise SpecError(path, top.value_line("host"), f"host {host!r}: templates/runtime/kernels/{family}.py defines no "
                                                      f"function {function!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
    return host


_KERNELS_DIR = Path(__file__).resolve().parent.parent / "templates" / "runtime" / "kernels"


def _kernel_names(source: Path) -> frozenset:
    """The module-level functions and assigned names of a kernel module, read without running it."""
    return _names_defined(source.read_text(encoding="utf-8"), str(source))


@functools.lru_cache(maxsize=64)
def _names_defined(text: str, filename: str) -> frozenset:
    # parsed once per module text: every kernel spec of a family asks about the same module
    import ast

    tree = ast.parse(text, filename=filename)
    names = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _references(top: _Mapping, path: str) -> tuple:
    refs = top.get("references", list, default=[])
    out = []
    for i, ref in enumerate(refs):
        if not isinstance(ref, str) or not ref.strip():
            raise SpecError(path, _item_line(refs, i, top.value_line("references")), "each reference must be a non-empty string")
        out.append(ref.strip())
    return tuple(out)


def _args(top: _Mapping, path: str) -> tuple:
    raw = _list(top.get("args", list, required=True), path, "args", top.value_line("args"))
    if not raw:
        raise SpecError(path, top.value_line("args"), "args must list at least one argument")
    args, names = [], set()
    seen_default = seen_keyword_only = False
    for i, item in enumerate(raw):
        line = _item_line(raw, i, top.value_line("args"))
        m = _Mapping(item, path, f"args[{i}]", line)
        name = _identifier(m.get("name", str, required=True), path, m.value_line("name"), "argument name")
        if name in names:
            raise SpecError(path, m.value_line("name"), f"argument {name!r} is listed twice")
        names.add(name)
        m.what = f"argument {name!r}"
        kind = m.get("kind", str, required=True)
        if kind not in model.ARG_KINDS:
            raise SpecError(path, m.value_line("kind"), f"argument {name!r} has unknown kind {kind!r}; kinds are {', '.join(model.ARG_KINDS)}")
        continuous = kind in ("real", "complex")
        differentiable = m.get("differentiable", bool, default=continuous)
        if differentiable and not continuous:
            raise SpecError(path, m.value_line("differentiable"), f"argument {name!r} of kind {kind} cannot be differentiable")
        why = m.get("why", str)
        if continuous and not differentiable and not why:
            raise SpecError(path, m.line, f"argument {name!r} is marked not differentiable: say why (key 'why')")
        if differentiable and why:
            raise SpecError(path, m.value_line("why"), f"argument {name!r} is differentiable; 'why' explains only a non-differentiable argument")
        doc = (m.get("doc", str, default="") or "").strip()
        accepts_float = m.get("accepts_float", (bool, str), default=False)
        if accepts_float not in (True, False, "truncate"):
            raise SpecError(path, m.value_line("accepts_float"), f"argument {name!r}: accepts_float must be true, false or 'truncate', got {accepts_float!r}")
        if accepts_float == "truncate" and kind == "static_int":
            raise SpecError(path, m.value_line("accepts_float"), f"argument {name!r}: a static_int accepts_float true "
                                                                 "(a whole-number float, as SciPy's int(n) == n) or false")
        if accepts_float and kind not in ("integer", "static_int"):
            raise SpecError(path, m.value_line("accepts_float"), "accepts_float applies only to integer and static_int arguments")
        has_default = m.has("default")
        default = m.get("default", None)
        if has_default and default is None and kind in model.TRACED_KINDS:
            seen_default = True  # optional: None leaves it out of SciPy's call (zeta(x, q=None))
        elif has_default:
            _check_default(kind, default, path, m.value_line("default"), name)
            seen_default = True
        elif seen_default:
            raise SpecError(path, m.line, f"argument {name!r} has no default but follows an argument that has one")
        choices, choices_why = _choices(m, path, name, kind, default)
        sum_of = _sum_of(m, path, name, kind, default, choices)
        if sum_of is not None:  # the core evaluates the default only; the other value is derived from it
            choices, choices_why = (False,), f"{name}=True appends the sum of {sum_of} over its core dimension"
        eager, eager_why = _eager(m, path, name, kind, choices)
        minimum, minimum_why = _minimum(m, path, name, kind, default if has_default else None)
        keyword_only = m.get("keyword_only", bool, default=False)
        if seen_keyword_only and not keyword_only:
            raise SpecError(path, m.line, f"argument {name!r} follows a keyword-only argument: mark it keyword_only too")
        seen_keyword_only = seen_keyword_only or keyword_only
        scipy_name = _scipy_name(m, path, name, kind)
        scipy_renamed = releases.load(m, path, name, kind, model.TRACED_KINDS, scipy_name, _identifier)
        scipy_since = releases.argument_since(m, path, name, kind, default, choices)
        scipy_default_before = releases.default_before(m, path, name, kind, _check_default)
        m.done()
        args.append(model.Arg(name=name, kind=kind, differentiable=differentiable, why=why.strip() if why else None,
                              doc=doc, has_default=has_default, default=default, accepts_float=bool(accepts_float),
                              truncates_float=accepts_float == "truncate",
                              loc=model.Location(path, line), choices=choices, choices_why=choices_why,
                              keyword_only=keyword_only, scipy_name=scipy_name, scipy_renamed=scipy_renamed,
                              scipy_since=scipy_since, scipy_default_before=scipy_default_before,
                              eager=eager, eager_why=eager_why, minimum=minimum, minimum_why=minimum_why,
                              sum_of=sum_of))
    _check_optional(args, path)
    return tuple(args)


def _choices(m: _Mapping, path: str, name: str, kind: str, default) -> tuple:
    """``choices`` (the supported values of a static argument) and ``why_choices``, or (None, None)."""
    if not m.has("choices"):
        if m.has("why_choices"):
            raise SpecError(path, m.key_line("why_choices"), f"argument {name!r}: why_choices explains choices; there are none")
        return None, None
    if kind not in model.STATIC_KINDS:
        raise SpecError(path, m.key_line("choices"), f"argument {name!r}: choices apply only to static arguments")
    choices = tuple(m.get("choices", list))
    for value in choices:
        _check_default(kind, value, path, m.value_line("choices"), name, what="choice")
    if not choices or default not in choices:
        raise SpecError(path, m.value_line("choices"), f"argument {name!r}: choices must include the default {default!r}")
    return choices, m.get("why_choices", str, required=True).strip()


def _minimum(m: _Mapping, path: str, name: str, kind: str, default) -> tuple:
    """``minimum`` (the smallest value jaxsci accepts for a static int or float) and ``why_minimum``."""
    if not m.has("minimum"):
        if m.has("why_minimum"):
            raise SpecError(path, m.key_line("why_minimum"), f"argument {name!r}: why_minimum explains minimum; there is none")
        return None, None
    if kind not in ("static_int", "static_float"):
        raise SpecError(path, m.key_line("minimum"), f"argument {name!r}: minimum applies only to static_int and static_float arguments")
    minimum = m.get("minimum", (int, float))
    if isinstance(minimum, bool) or not _finite(minimum):
        raise SpecError(path, m.value_line("minimum"), f"argument {name!r}: minimum must be a finite number, got {minimum!r}")
    if default is not None and default < minimum:
        raise SpecError(path, m.value_line("minimum"), f"argument {name!r}: the default {default!r} is below the minimum {minimum!r}")
    return minimum, m.get("why_minimum", str, required=True).strip()


def _sum_of(m: _Mapping, path: str, name: str, kind: str, default, choices) -> str | None:
    """``sum_of``: the output whose sum over its core dimension this static_bool, when true, appends as
    one more output (the Gauss rules' ``mu=True``: the sum of the weights), or None."""
    if not m.has("sum_of"):
        return None
    if kind != "static_bool" or default is not False or choices is not None:
        raise SpecError(path, m.key_line("sum_of"), f"argument {name!r}: sum_of applies only to a static_bool with "
                                                    "default false and no choices")
    return _identifier(m.get("sum_of", str).strip(), path, m.value_line("sum_of"), "sum_of")


def _eager(m: _Mapping, path: str, name: str, kind: str, choices) -> tuple:
    """``eager`` (the static_bool value for which SciPy is called eagerly on concrete inputs, such as
    exact=True's Python integers) and ``why_eager``, or (None, None)."""
    if not m.has("eager"):
        if m.has("why_eager"):
            raise SpecError(path, m.key_line("why_eager"), f"argument {name!r}: why_eager explains eager; there is none")
        return None, None
    if kind != "static_bool":
        raise SpecError(path, m.key_line("eager"), f"argument {name!r}: eager applies only to static_bool arguments")
    eager = m.get("eager", bool)
    if choices is None or eager in choices:
        raise SpecError(path, m.value_line("eager"), f"argument {name!r}: eager: {str(eager).lower()} is the value "
                                                    "SciPy is called with eagerly; choices must list the other value, the traced one")
    return eager, m.get("why_eager", str, required=True).strip()


def _scipy_name(m: _Mapping, path: str, name: str, kind: str) -> str | None:
    """``scipy_name``: SciPy's name for a traced argument whose public name differs (generator/scipycheck.py)."""
    scipy_name = m.get("scipy_name", str)
    if scipy_name is None:
        return None
    scipy_name = _identifier(scipy_name.strip(), path, m.value_line("scipy_name"), "scipy_name")
    if kind not in model.TRACED_KINDS:
        raise SpecError(path, m.key_line("scipy_name"), f"argument {name!r}: scipy_name is for traced arguments, which "
                                                        "SciPy receives by position; a static one is passed by its name")
    if scipy_name == name:
        raise SpecError(path, m.value_line("scipy_name"), f"argument {name!r}: scipy_name is its own name; remove it")
    return scipy_name


def _check_optional(args: list, path: str) -> None:
    """Optional traced arguments (default null) come last. Rules are generated for calls that give every
    argument, and for calls that leave the optional ones out from ``when_omitted``; without it, a tangent
    on such a call raises NonDifferentiableError (the core's rules_for finds no rules)."""
    optional = [a for a in args if a.optional]
    if not optional:
        return
    traced = [a for a in args if a.traced]
    if traced[len(traced) - len(optional):] != optional:
        raise SpecError(path, optional[0].loc.line, f"optional argument {optional[0].name!r} (default null) must "
                                                    "come after every traced argument that is not optional")


def _check_default(kind: str, default, path: str, line: int | None, name: str, what: str = "default") -> None:
    ok = {
        "static_bool": isinstance(default, bool),
        "static_int": isinstance(default, int) and not isinstance(default, bool),
        "static_float": isinstance(default, (int, float)) and not isinstance(default, bool) and _finite(default),
        "static_str": isinstance(default, str),
        "static_axis": _axis_value(default),
        "integer": isinstance(default, int) and not isinstance(default, bool),
        "real": isinstance(default, (int, float)) and not isinstance(default, bool) and _finite(default),
        "complex": isinstance(default, (int, float)) and not isinstance(default, bool) and _finite(default),
    }[kind]
    if not ok:
        raise SpecError(path, line, f"{what} {default!r} of argument {name!r} does not fit its kind {kind}")


def _axis_value(value) -> bool:
    """None, an int, or a list of distinct ints: what numpy takes as ``axis``."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return True
    return (isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            and len(set(value)) == len(value))


def _outputs(top: _Mapping, path: str, args: tuple) -> tuple:
    if not top.has("outputs"):
        return (model.Output(name="out", dtype="promoted", doc="", loc=top.loc()),)
    raw = _list(top.get("outputs", list), path, "outputs", top.value_line("outputs"))
    if not raw:
        raise SpecError(path, top.value_line("outputs"), "outputs must list at least one output")
    outs, names = [], set()
    for i, item in enumerate(raw):
        line = _item_line(raw, i, top.value_line("outputs"))
        m = _Mapping(item, path, f"outputs[{i}]", line)
        name = _identifier(m.get("name", str, required=True), path, m.value_line("name"), "output name")
        if name in names:
            raise SpecError(path, m.value_line("name"), f"output {name!r} is listed twice")
        names.add(name)
        dtype = m.get("dtype", str, default="promoted")
        if dtype not in model.OUTPUT_DTYPES:
            raise SpecError(path, m.value_line("dtype"), f"output dtype rule must be one of {', '.join(model.OUTPUT_DTYPES)}, got {dtype!r}")
        doc = (m.get("doc", str, default="") or "").strip()
        if dtype == "int32" and any(a.traced for a in args):
            raise SpecError(path, m.value_line("dtype"), f"output {name!r}: dtype int32 is for functions of static arguments "
                                                         "only (an integer output of traced arguments has no derivative)")
        # core dimensions of an output of traced arguments; `eager` is for static arguments only (below)
        if m.has("shape") and any(a.traced for a in args) and m.data["shape"] != model.EAGER_SHAPE:
            core = coredims.output_core(m, path, name, args)
            m.done()
            outs.append(model.Output(name=name, dtype=dtype, doc=doc, loc=model.Location(path, line), core=core))
            continue
        shape = _output_shape(m, path, name, args) if m.has("shape") else None
        evaluates = _evaluates(m, path, name, dtype, args, shape, len(raw))
        m.done()
        outs.append(model.Output(name=name, dtype=dtype, doc=doc, loc=model.Location(path, line), shape=shape,
                                 evaluates=evaluates))
    return tuple(outs)


def _output_shape(m: _Mapping, path: str, name: str, args: tuple):
    """``shape``: a list of sizes, or ``eager`` (known only from SciPy's result); static functions only."""
    traced = [a.name for a in args if a.traced]
    if traced:
        raise SpecError(path, m.value_line("shape"), f"output {name!r}: a shape is for functions of static arguments only; "
                        f"{', '.join(traced)} {'is' if len(traced) == 1 else 'are'} traced (elementwise outputs broadcast; "
                        f"core dimensions of traced arguments are a list of sizes with `index`)")
    if m.get("shape", (list, str)) == model.EAGER_SHAPE:
        return model.EAGER_SHAPE
    if isinstance(m.data["shape"], str):
        raise SpecError(path, m.value_line("shape"), f"output {name!r}: shape must be a list of sizes or {model.EAGER_SHAPE!r} "
                                                     f"(the size is known only from SciPy's result), got {m.data['shape']!r}")
    sizes = {a.name for a in args if a.kind == "static_int"}
    dims = []
    for dim in m.data["shape"]:
        terms = None
        if isinstance(dim, str) and dim not in sizes and _SHAPE_SUM.match(dim):
            # "n + 1" (bernoulli's B_0..B_n), "n - m + 1": ((coefficient, static int name or None), ...)
            terms = tuple(((-1 if sign == "-" else 1) * int(term), None) if term.isdigit() else
                          (-1 if sign == "-" else 1, term) for sign, term in _SHAPE_TERM.findall(dim))
        if terms is not None and all(n is None or n in sizes for _, n in terms):
            dims.append(terms)
        elif not (isinstance(dim, int) and not isinstance(dim, bool) and dim >= 0) and not (isinstance(dim, str) and dim in sizes):
            raise SpecError(path, m.value_line("shape"), f"output {name!r}: each shape entry must be a non-negative "
                            f"integer, a static_int argument ({', '.join(sorted(sizes)) or 'there are none'}) or "
                            f"a sum of them and integers ('n + 1', 'n - m + 1'), got {dim!r}")
        else:
            dims.append(dim)
    return tuple(dims)


def _evaluates(m: _Mapping, path: str, name: str, dtype: str, args: tuple, shape, count: int):
    """An ``orthopoly1d`` output's ``evaluates``: ``(function, (argument names, ...))``, the jaxsci function
    that computes the polynomial (for monic=False) at a JAX value ``x``, called on static arguments and x."""
    if dtype != "orthopoly1d":
        if m.has("evaluates"):
            raise SpecError(path, m.key_line("evaluates"), f"output {name!r}: evaluates is for an orthopoly1d output only")
        return None
    line = m.value_line("dtype")
    traced = [a.name for a in args if a.traced]
    if traced or shape is not None or count != 1:
        raise SpecError(path, line, f"output {name!r}: an orthopoly1d is SciPy's object computed from static arguments: "
                                    "the function's only output, with no shape and no traced arguments")
    monic = next((a for a in args if a.name == "monic"), None)
    if monic is None or monic.kind != "static_bool":
        raise SpecError(path, line, f"output {name!r}: an orthopoly1d needs SciPy's static_bool argument 'monic' "
                                    "(with monic=True its value is divided by the leading coefficient)")
    text = m.get("evaluates", str, required=True).strip()
    line = m.value_line("evaluates")
    statics = [a.name for a in args if a.static and a.name != "monic"]
    if "x" in statics:
        raise SpecError(path, line, f"output {name!r}: evaluates calls its variable x, which is also an argument's name")
    shape_error = (f"output {name!r}: evaluates must be one call of a jaxsci function on the static arguments "
                   f"({', '.join(statics)}) and x, with x once, like 'eval_legendre(n, x)', got {text!r}")
    import ast

    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise SpecError(path, line, f"output {name!r}: cannot parse evaluates {text!r}: {exc.msg}") from None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        raise SpecError(path, line, shape_error)
    function = call.func.id
    namespace = {n: sympy.Symbol(n) for n in [*statics, "x"]}
    namespace[function] = sympy.Function(function)
    try:
        expr = parse(text, namespace)
    except FormulaError as exc:
        raise SpecError(path, line, f"output {name!r}: evaluates: {exc}") from None
    names = [a.name if isinstance(a, sympy.Symbol) else None for a in getattr(expr, "args", ())]
    if not isinstance(expr, AppliedUndef) or None in names or names.count("x") != 1:
        raise SpecError(path, line, shape_error)
    return function, tuple(names)


def check_object_outputs(specs: list) -> list:
    """Each orthopoly1d output's ``evaluates`` calls a function of its module, with a fitting number of
    arguments, and x where that function takes a differentiable array (so the object's value is)."""
    by_name = {(s.module, s.name): s for s in specs}
    errors = []
    for spec in specs:
        for out in spec.outputs:
            if out.evaluates is None:
                continue
            function, names = out.evaluates
            callee = by_name.get((spec.module, function))
            position = names.index("x")
            if callee is None:
                hint = difflib.get_close_matches(function, sorted(n for m, n in by_name if m == spec.module), n=1)
                errors.append(SpecError(spec.path, out.loc.line, f"output {out.name!r}: evaluates calls {function!r}, which is not a "
                                        f"jaxsci.{spec.module} function" + (f"; did you mean {hint[0]!r}?" if hint else "")))
            elif not len([a for a in callee.args if not a.has_default]) <= len(names) <= len(callee.args):
                errors.append(SpecError(spec.path, out.loc.line, f"output {out.name!r}: evaluates gives {function} {len(names)} "
                                        f"arguments; it takes {', '.join(a.name for a in callee.args)}"))
            elif not callee.args[position].differentiable:
                errors.append(SpecError(spec.path, out.loc.line, f"output {out.name!r}: evaluates passes x as {function}'s "
                                        f"argument {callee.args[position].name!r}, which is not differentiable"))
    return errors


def _formula(value, loc: model.Location, what: str) -> model.Formula:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(value)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(loc.path, loc.line, f"{what} must be a formula string, got {_describe(value)}")
    return model.Formula(text=value.strip(), loc=loc)


def _condition(raw, path: str, line: int | None, static_bools: set, what: str) -> model.Condition:
    m = _Mapping(raw, path, f"{what}.when", line)
    items = []
    for key in list(raw):
        if key not in static_bools:
            known = ", ".join(sorted(static_bools)) or "none"
            raise SpecError(path, m.key_line(key), f"{what}.when names {key!r}, which is not a static boolean argument (those are: {known})")
        items.append((key, m.get(key, bool)))
    m.done()
    if not items:
        raise SpecError(path, line, f"{what}.when must name at least one static argument")
    return tuple(sorted(items))


def _check_coverage(cases, path: str, line: int | None, static_bools: set, what: str) -> None:
    """Each combination of static booleans must be covered by exactly one case."""
    for full in model.all_conditions(static_bools):
        hits = [c for c in cases if model.matches(c.when, full)]
        label = ", ".join(f"{k}={v}" for k, v in full) or "all calls"
        if not hits:
            raise SpecError(path, line, f"{what} has no case for {label}")
        if len(hits) > 1:
            raise SpecError(path, hits[1].loc.line, f"{what} has two cases for {label} (lines {hits[0].loc.line} and {hits[1].loc.line})")


def _cases(top: _Mapping, key: str, path: str, static_bools: set, build, *, payload_key: str, required: bool = False) -> tuple:
    """``key: value``, ``key: {<payload_key>: value}``, or a list of ``{when: {...}, <payload_key>: value}``."""
    if not top.has(key):
        if required:
            raise SpecError(path, top.line, f"the spec is missing required key {key!r}")
        top.taken.add(key)
        return ()
    raw = top.get(key, (str, dict, list, float))
    line = top.value_line(key)
    if isinstance(raw, dict):
        m = _Mapping(raw, path, key, line)
        value = build(m.get(payload_key, (str, float), required=True), m.loc(payload_key), f"{key}.{payload_key}")
        m.done()
        return (model.Case(when=(), value=value, loc=m.loc(payload_key)),)
    if not isinstance(raw, list):
        return (model.Case(when=(), value=build(raw, model.Location(path, line), key), loc=model.Location(path, line)),)
    cases = []
    for i, item in enumerate(raw):
        item_line = _item_line(raw, i, line)
        m = _Mapping(item, path, f"{key}[{i}]", item_line)
        when = _condition(m.get("when", dict, required=True), path, m.value_line("when"), static_bools, f"{key}[{i}]")
        value = build(m.get(payload_key, (str, float), required=True), m.loc(payload_key), f"{key}[{i}].{payload_key}")
        m.done()
        cases.append(model.Case(when=when, value=value, loc=model.Location(path, item_line)))
    _check_coverage(cases, path, line, static_bools, key)
    return tuple(cases)


def _per_output(m: _Mapping, single: str, plural: str, outputs: tuple, what: str, *, required: bool) -> tuple:
    """``formula: text`` for a one-output function, or ``formulas: {output: text}``."""
    path = m.path
    names = [o.name for o in outputs]
    if m.has(single) and m.has(plural):
        raise SpecError(path, m.key_line(plural), f"{what}: give either {single!r} or {plural!r}, not both")
    if m.has(single):
        if len(outputs) != 1:
            raise SpecError(path, m.key_line(single), f"{what}: the function has {len(outputs)} outputs; use {plural!r} with one formula per output ({', '.join(names)})")
        return ((names[0], _formula(m.get(single, (str, float)), m.loc(single), f"{what}.{single}")),)
    if m.has(plural):
        raw = m.get(plural, dict)
        sub = _Mapping(raw, path, f"{what}.{plural}", m.value_line(plural))
        result = []
        for out in names:
            if out in raw:
                result.append((out, _formula(sub.get(out, (str, float)), sub.loc(out), f"{what}.{plural}.{out}")))
            elif required:
                raise SpecError(path, sub.line, f"{what}.{plural} has no formula for output {out!r}")
        sub.done()
        return tuple(result)
    if required:
        raise SpecError(path, m.line, f"{what} needs {single!r} (or {plural!r} per output)")
    return ()


def _derivatives(top: _Mapping, path: str, args: tuple, outputs: tuple, static_bools: set) -> tuple:
    raw = top.get("derivatives", dict, default=LocatedDict())
    section = _Mapping(raw, path, "derivatives", top.value_line("derivatives"))
    by_name = {a.name: a for a in args}
    rules = []
    for arg_name in list(raw):
        arg = by_name.get(arg_name)
        if arg is None:
            raise SpecError(path, section.key_line(arg_name), f"derivatives names {arg_name!r}, which is not an argument")
        if not arg.differentiable:
            reason = f"it is marked not differentiable ({arg.why})" if arg.why else f"arguments of kind {arg.kind} are not differentiable"
            raise SpecError(path, section.key_line(arg_name), f"derivatives gives a rule for {arg_name!r}, but {reason}")
        entry = section.get(arg_name, (dict, list, str))
        line = section.value_line(arg_name)
        if entry == "sympy":
            rules.append(model.DerivativeRule(arg=arg_name, when=(), method="sympy", formulas=(), conjugates=(),
                                              source="sympy", at=(), loc=model.Location(path, line)))
            continue
        if isinstance(entry, str):
            raise SpecError(path, line, f"derivatives.{arg_name} must be a mapping with 'formula' and 'source', a list of cases, or the word 'sympy'")
        items = entry if isinstance(entry, list) else [entry]
        arg_rules = []
        for i, item in enumerate(items):
            item_line = _item_line(entry, i, line) if isinstance(entry, list) else line
            what = f"derivatives.{arg_name}" + (f"[{i}]" if isinstance(entry, list) else "")
            m = _Mapping(item, path, what, item_line)
            when = ()
            if isinstance(entry, list):
                when = _condition(m.get("when", dict, required=True), path, m.value_line("when"), static_bools, what)
            elif m.has("when"):
                raise SpecError(path, m.key_line("when"), f"{what}: 'when' belongs in a list of cases")
            if m.has("implicit"):
                arg_rules.append(_implicit_rule(m, arg_name, when, outputs, what, item_line))
                continue
            formulas = _per_output(m, "formula", "formulas", outputs, what, required=True)
            conjugates = _per_output(m, "conjugate", "conjugates", outputs, what, required=False)
            reals = _per_output(m, "real", "reals", outputs, what, required=False)
            if reals and not conjugates:
                key = "real" if m.has("real") else "reals"
                raise SpecError(path, m.key_line(key), f"{what}: {key!r} is the derivative along the real axis of a rule "
                                                       "with a 'conjugate' part; a holomorphic rule's formula is that derivative already")
            source = m.get("source", str, required=True).strip()
            at = []
            at_raw = m.get("at", list, default=[])
            for j, point in enumerate(at_raw):
                pm = _Mapping(point, path, f"{what}.at[{j}]", _item_line(at_raw, j, m.value_line("at")))
                where = _formula(pm.get("where", str, required=True), pm.loc("where"), f"{what}.at[{j}].where")
                point_formulas = _per_output(pm, "formula", "formulas", outputs, f"{what}.at[{j}]", required=True)
                point_source = pm.get("source", str)
                pm.done()
                at.append(model.SpecialPoint(where=where, formulas=point_formulas, source=point_source, loc=pm.loc()))
            m.done()
            arg_rules.append(model.DerivativeRule(arg=arg_name, when=when, method="formula", formulas=formulas,
                                                  conjugates=conjugates, source=source, at=tuple(at),
                                                  loc=model.Location(path, item_line), reals=reals))
        if isinstance(entry, list):
            _check_coverage([model.Case(r.when, r, r.loc) for r in arg_rules], path, line, static_bools, f"derivatives.{arg_name}")
        rules.extend(arg_rules)
    section.done()
    return tuple(rules)


def _omitted_derivatives(top: _Mapping, path: str, args: tuple, outputs: tuple, static_bools: set) -> tuple:
    """``when_omitted: {derivatives: {...}}``: the rules for calls that leave every optional argument out
    (zeta(x) without q), in the other arguments; each rule's condition is ``((optional name, None), ...)``."""
    if not top.has("when_omitted"):
        top.taken.add("when_omitted")
        return ()
    optional = [a for a in args if a.optional]
    if not optional:
        raise SpecError(path, top.key_line("when_omitted"), "when_omitted gives rules for calls that leave an optional "
                                                            "argument (default null) out; the function has none")
    if static_bools:
        raise SpecError(path, top.key_line("when_omitted"), "when_omitted cannot be combined with static booleans")
    m = _Mapping(top.get("when_omitted", dict), path, "when_omitted", top.value_line("when_omitted"))
    reduced = tuple(a for a in args if not a.optional)
    rules = _derivatives(m, path, reduced, outputs, static_bools)
    m.done()
    omitted = tuple(sorted((a.name, None) for a in optional))
    return tuple(dataclasses.replace(r, when=omitted) for r in rules)


def _implicit_rule(m: _Mapping, arg_name: str, when: tuple, outputs: tuple, what: str, line: int | None) -> model.DerivativeRule:
    """``implicit: G`` (G = 0, or ``Eq(lhs, rhs)``, at the function's own value) with a ``source``."""
    path = m.path
    for other in ("formula", "formulas", "conjugate", "conjugates", "real", "reals", "at"):
        if m.has(other):
            raise SpecError(path, m.key_line(other), f"{what}: 'implicit' defines the derivative by itself; remove {other!r}")
    if len(outputs) != 1:
        raise SpecError(path, m.key_line("implicit"), f"{what}: an implicit rule defines one value; the function has {len(outputs)} outputs")
    implicit = _formula(m.get("implicit", str), m.loc("implicit"), f"{what}.implicit")
    # where SciPy's search stops at a bound (nbdtrik's k = 0), its value is constant: the equation
    # has no root there, and the derivative is 0
    constant_where = None
    if m.has("constant_where"):
        constant_where = _formula(m.get("constant_where", str), m.loc("constant_where"), f"{what}.constant_where")
    # where SciPy's search stops at a point that is not a root (its tolerance fails in a far tail), the
    # equation does not hold at the value, and the rule would differentiate it anyway: NaN
    nan_where = None
    if m.has("nan_where"):
        nan_where = _formula(m.get("nan_where", str), m.loc("nan_where"), f"{what}.nan_where")
    source = m.get("source", str, required=True).strip()
    m.done()
    return model.DerivativeRule(arg=arg_name, when=when, method="implicit", formulas=(), conjugates=(), source=source,
                                at=(), loc=model.Location(path, line), implicit=implicit, constant_where=constant_where,
                                nan_where=nan_where)


def _reference(top: _Mapping, path: str, static_bools: set, *, required: bool) -> tuple:
    """``reference``: mpmath expressions (one, or cases), or ``{finite_differences: why}``."""
    raw = top.data.get("reference")
    if isinstance(raw, dict) and "finite_differences" in raw:
        top.taken.add("reference")
        m = _Mapping(raw, path, "reference", top.value_line("reference"))
        why = m.get("finite_differences", str, required=True).strip()
        m.done()
        return (), why
    formula = lambda v, loc, what: _formula(v, loc, what)  # noqa: E731
    return _cases(top, "reference", path, static_bools, formula, payload_key="mpmath", required=required), None


def _interval(value, path: str, line: int | None, what: str, *, integer: bool) -> tuple:
    if not (isinstance(value, list) and len(value) == 2 and all(_isinstance(x, float) for x in value)):
        raise SpecError(path, line, f"{what} must be [low, high], got {_describe(value)}")
    lo, hi = value
    if not (_finite(lo) and _finite(hi) and lo <= hi):
        raise SpecError(path, line, f"{what} must be a finite interval with low <= high, got [{lo}, {hi}]")
    if integer and not all(isinstance(x, int) for x in value):
        raise SpecError(path, line, f"{what} is for an integer argument; give integer bounds")
    return (lo, hi)


def _tests(top: _Mapping, path: str, args: tuple, traced_names: set) -> model.TestPlan:
    raw = top.get("tests", dict, required=True)
    m = _Mapping(raw, path, "tests", top.value_line("tests"))
    by_name = {a.name: a for a in args}
    domain = _test_domain(m, path, by_name, traced_names)
    complex_domain = _test_complex_domain(m, path, by_name)
    points = _test_points(m, path, traced_names)
    tolerance = _tolerances(m, "gradient_tolerance", path, "tests.gradient_tolerance", DEFAULT_GRADIENT_TOLERANCE)
    statics = _test_statics(m, path, args, by_name)
    failures = _expected_failures(m, path)
    first_order_only = _first_order_only(m, path, args)
    m.done()
    return model.TestPlan(domain=domain, complex_domain=complex_domain, points=points, statics=statics,
                          gradient_tolerance=tolerance, expected_failures=failures, loc=m.loc(),
                          first_order_only=first_order_only)


def _test_domain(m: _Mapping, path: str, by_name: dict, traced_names: set) -> dict:
    """``tests.domain``: an interval for every traced argument."""
    domain_raw = m.get("domain", dict, required=bool(traced_names), default=LocatedDict())
    dm = _Mapping(domain_raw, path, "tests.domain", m.value_line("domain"))
    domain = {}
    for name in list(domain_raw):
        if name not in traced_names:
            raise SpecError(path, dm.key_line(name), f"tests.domain names {name!r}, which is not a traced argument")
        domain[name] = _interval(dm.get(name, list), path, dm.value_line(name), f"tests.domain.{name}",
                                 integer=by_name[name].kind == "integer")
    dm.done()
    for name in sorted(traced_names - set(domain)):
        raise SpecError(path, dm.line, f"tests.domain has no interval for argument {name!r}")
    return domain


def _test_complex_domain(m: _Mapping, path: str, by_name: dict) -> dict:
    """``tests.complex_domain``: ``[[re low, re high], [im low, im high]]`` for complex arguments."""
    complex_domain = {}
    cd_raw = m.get("complex_domain", dict, default=LocatedDict())
    cm = _Mapping(cd_raw, path, "tests.complex_domain", m.value_line("complex_domain"))
    for name in list(cd_raw):
        if name not in by_name or by_name[name].kind != "complex":
            raise SpecError(path, cm.key_line(name), f"tests.complex_domain names {name!r}, which is not a complex argument")
        value = cm.get(name, list)
        if len(value) != 2:
            raise SpecError(path, cm.value_line(name), f"tests.complex_domain.{name} must be [[re low, re high], [im low, im high]]")
        complex_domain[name] = tuple(
            _interval(part, path, cm.value_line(name), f"tests.complex_domain.{name}", integer=False) for part in value
        )
    cm.done()
    return complex_domain


def _test_points(m: _Mapping, path: str, traced_names: set) -> tuple:
    """``tests.points``: extra points, a finite value for every traced argument."""
    points = []
    points_raw = m.get("points", list, default=[])
    for i, point in enumerate(points_raw):
        pm = _Mapping(point, path, f"tests.points[{i}]", _item_line(points_raw, i, m.value_line("points")))
        values = {}
        for name in list(point):
            if name not in traced_names:
                raise SpecError(path, pm.key_line(name), f"tests.points[{i}] names {name!r}, which is not a traced argument")
            values[name] = pm.get(name, float)
            if not _finite(values[name]):
                raise SpecError(path, pm.value_line(name), f"tests.points[{i}].{name} must be a finite number, got {values[name]!r}")
        for name in traced_names - set(values):
            raise SpecError(path, pm.line, f"tests.points[{i}] has no value for argument {name!r}")
        pm.done()
        points.append(values)
    return tuple(points)


def _test_statics(m: _Mapping, path: str, args: tuple, by_name: dict) -> dict:
    """``tests.statics``: the values tested for static int, float and string arguments."""
    statics = {}
    statics_raw = m.get("statics", dict, default=LocatedDict())
    sm = _Mapping(statics_raw, path, "tests.statics", m.value_line("statics"))
    for name in list(statics_raw):
        arg = by_name.get(name)
        if arg is None or arg.kind not in ("static_int", "static_float", "static_str"):
            raise SpecError(path, sm.key_line(name), f"tests.statics names {name!r}, which is not a static int, float or string argument")
        values = sm.get(name, list)
        if not values:
            raise SpecError(path, sm.value_line(name), f"tests.statics.{name} must list at least one value")
        for value in values:
            _check_default(arg.kind, value, path, sm.value_line(name), name, what="test value")
            if arg.choices is not None and value not in arg.choices:
                raise SpecError(path, sm.value_line(name), f"tests.statics.{name}: {value!r} is not one of the choices")
        statics[name] = tuple(values)
    sm.done()
    for arg in args:
        if arg.kind in ("static_int", "static_float", "static_str") and not arg.has_default and arg.name not in statics:
            raise SpecError(path, sm.line, f"tests.statics must give values for {arg.name!r}, which has no default")
    return statics


def _expected_failures(m: _Mapping, path: str) -> tuple:
    """``tests.expected_failures``: generic tests expected to fail, each with its reason."""
    failures = []
    xf_raw = m.get("expected_failures", list, default=[])
    for i, item in enumerate(xf_raw):
        fm = _Mapping(item, path, f"tests.expected_failures[{i}]", _item_line(xf_raw, i, m.value_line("expected_failures")))
        test = fm.get("test", str, required=True)
        if test not in model.GENERIC_TESTS:
            raise SpecError(path, fm.value_line("test"), f"tests.expected_failures names test {test!r}; tests are {', '.join(model.GENERIC_TESTS)}")
        reason = fm.get("reason", str, required=True)
        dtype = fm.get("dtype", str)
        if dtype is not None and dtype not in model.TEST_DTYPES:
            raise SpecError(path, fm.value_line("dtype"), f"dtype must be one of {', '.join(model.TEST_DTYPES)}")
        fm.done()
        failures.append(model.ExpectedFailure(test=test, reason=reason.strip(), dtype=dtype, loc=fm.loc()))
    return tuple(failures)


def _first_order_only(m: _Mapping, path: str, args: tuple) -> tuple:
    """``tests.first_order_only: {arg: why}``: the suite checks the first derivative in ``arg`` and that
    the second raises NonDifferentiableError (a kernel whose next order is its parent's third)."""
    raw = m.get("first_order_only", dict, default=LocatedDict())
    fm = _Mapping(raw, path, "tests.first_order_only", m.value_line("first_order_only"))
    differentiable = {a.name for a in args if a.differentiable}
    out = []
    for name in raw:
        if name not in differentiable:
            raise SpecError(path, fm.key_line(name), f"tests.first_order_only names {name!r}, which is not a differentiable argument")
        out.append((name, fm.get(name, str).strip()))
    fm.done()
    return tuple(out)


def _tolerances(parent: _Mapping, key: str, path: str, what: str, defaults: dict | None) -> dict:
    """``{float32: {rtol, atol}, float64: {rtol, atol}}``: dtype -> Tolerance.

    With ``defaults``, a dtype or a bound left out keeps its default; without, every one is required.
    """
    raw = parent.get(key, dict, required=defaults is None, default=LocatedDict())
    tm = _Mapping(raw, path, what, parent.value_line(key))
    tolerance = dict(defaults or {})
    for dtype in list(raw):
        if dtype not in model.TEST_DTYPES:
            raise SpecError(path, tm.key_line(dtype), f"{what} names {dtype!r}; dtypes are {', '.join(model.TEST_DTYPES)}")
        sub = _Mapping(tm.get(dtype, dict), path, f"{what}.{dtype}", tm.value_line(dtype))
        bounds = {}
        for bound in ("rtol", "atol"):
            value = sub.get(bound, float, required=defaults is None,
                            default=getattr(tolerance[dtype], bound) if defaults is not None else None)
            if not (_finite(value) and value >= 0):
                raise SpecError(path, sub.value_line(bound), f"{what}.{dtype}.{bound} must be a finite number >= 0, got {value!r}")
            bounds[bound] = float(value)
        sub.done()
        tolerance[dtype] = model.Tolerance(**bounds)
    tm.done()
    for dtype in model.TEST_DTYPES:
        if dtype not in tolerance:
            raise SpecError(path, tm.line, f"{what} has no tolerance for {dtype}: give {{rtol: ..., atol: ...}} for each of "
                                           f"{', '.join(model.TEST_DTYPES)}")
    return tolerance


def _native(top: _Mapping, path: str, args: tuple, outputs: tuple) -> model.Native | None:
    """``native: {function: jax.scipy.special.NAME, tolerance: {...}, why: ...}``: checked against the installed jax."""
    if not top.has("native"):
        top.taken.add("native")
        return None
    m = _Mapping(top.get("native", dict), path, "native", top.value_line("native"))
    function = m.get("function", str, required=True).strip()
    line = m.value_line("function")
    if not _JAX_NAME.match(function):
        raise SpecError(path, line, f"native.function must be the dotted name of a callable in jax, like "
                                    f"'jax.scipy.special.i0e', got {function!r}")
    tolerance = _tolerances(m, "tolerance", path, "native.tolerance", None)
    why = m.get("why", str, required=True).strip()
    jax_since = releases.jax_since(m, path)
    m.done()
    traced = [a for a in args if a.traced]
    if not traced:
        raise SpecError(path, m.line, "native: a function of static arguments only has nothing to compute natively")
    for out in outputs:
        if out.dtype == "complex":
            raise SpecError(path, m.line, f"native: output {out.name!r} is complex for real inputs, and the native "
                                          "implementation serves real inputs only")
    if jax_since is not None and releases.installed_jax() < jax_since:  # SciPy computes it (releases.py)
        _check_native_missing(function, jax_since, path, m.value_line("jax_since"))
    else:
        target = _import_native(function, path, line)
        _check_native_signature(target, function, args, path, line, by_name=top.has("reduction"))
    return model.Native(function=function, tolerance=tolerance, why=why, loc=model.Location(path, m.line), jax_since=jax_since)


def _frontend(top: _Mapping, path: str, module: str) -> model.Frontend | None:
    """``frontend: {function: jaxsci._core.<module>.<function>, why: ...}``: a function of the runtime core
    that every call goes through first, checked to exist in templates/runtime/<module>.py."""
    if not top.has("frontend"):
        top.taken.add("frontend")
        return None
    m = _Mapping(top.get("frontend", dict), path, "frontend", top.value_line("frontend"))
    function = m.get("function", str, required=True).strip()
    _core_target(function, function.rpartition(".")[2] or "frontend.function", path, m.value_line("function"))
    why = " ".join(m.get("why", str, required=True).split())
    m.done()
    if module == model.KERNELS:
        raise SpecError(path, m.line, "frontend: a derivative kernel is called by rules, not by users: it has no frontend")
    return model.Frontend(function=function, why=why, loc=model.Location(path, m.line))


def _import_native(function: str, path: str, line: int | None):
    """The callable ``function`` names in the installed jax, or a located error saying why there is none."""
    parts = function.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:split])
        try:
            target = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        except Exception as exc:  # noqa: BLE001 - any failure to import is the spec's problem to report
            raise SpecError(path, line, f"native.function {function!r}: importing {module_name} failed: "
                                        f"{type(exc).__name__}: {exc}") from None
        for i, attr in enumerate(parts[split:]):
            if not hasattr(target, attr):
                owner = ".".join(parts[:split + i])
                raise SpecError(path, line, f"native.function {function!r} is not in the installed jax "
                                            f"{_jax_version()}: {owner} has no attribute {attr!r}")
            target = getattr(target, attr)
        if not callable(target):
            raise SpecError(path, line, f"native.function {function!r} is not callable (it is a {type(target).__name__})")
        return target
    raise SpecError(path, line, f"native.function {function!r}: cannot import jax")


def _check_native_missing(function: str, jax_since: tuple, path: str, line: int | None) -> None:
    """With a jax older than ``native.jax_since``, the native function must be missing: else the release is wrong."""
    try:
        _import_native(function, path, line)
    except SpecError:
        return
    raise SpecError(path, line, f"native.jax_since: the installed jax {_jax_version()} has {function} already, "
                                f"before jax {'.'.join(map(str, jax_since))}")


def _jax_version() -> str:
    import jax

    return jax.__version__


def _check_native_signature(target, function: str, args: tuple, path: str, line: int | None, *, by_name: bool = False) -> None:
    """The core calls ``target(*traced arguments, **static arguments)``, with or without optional ones;
    a static argument with a single choice is fixed, and not passed. A reduction's core passes the
    traced arguments after the first by name (``logsumexp(a, axis=..., b=...)``): ``by_name``."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check before calling it
        return
    traced = [a.name for a in args if a.traced]
    required = [a.name for a in args if a.traced and not a.optional]
    statics = {a.name: a.default for a in args if a.static and not _fixed(a)}
    for names in dict.fromkeys((tuple(traced), tuple(required))):
        try:
            positional = names[:1] if by_name else names
            keywords = {**{n: n for n in names[len(positional):]}, **statics}
            signature.bind(*positional, **keywords)
        except TypeError as exc:
            call = ", ".join([*positional, *(f"{k}=..." for k in keywords)])
            raise SpecError(path, line, f"native.function {function}{signature} cannot be called as "
                                        f"{function.rsplit('.', 1)[1]}({call}): {exc}") from None


def _fixed(arg: model.Arg) -> bool:
    """A static argument that supports one value only (``choices: [false]``)."""
    return arg.choices is not None and len(arg.choices) == 1


def _guard(top: _Mapping, path: str, args: tuple, tests: model.TestPlan) -> model.Guard | None:
    """``guard: {valid: <condition>, reason: <why>}``: SciPy is called only where the condition holds."""
    if not top.has("guard"):
        top.taken.add("guard")
        return None
    m = _Mapping(top.get("guard", dict), path, "guard", top.value_line("guard"))
    valid = _formula(m.get("valid", str, required=True), m.loc("valid"), "guard.valid")
    reason = " ".join(m.get("reason", str, required=True).split())
    raises_map = _Mapping(m.get("raises", dict), path, "guard.raises", m.value_line("raises")) if m.has("raises") else None
    m.done()
    line = valid.loc.line
    traced = [a for a in args if a.traced]
    if not traced:
        raise SpecError(path, m.line, "a guard needs traced arguments; this function has none")
    optional = [a.name for a in traced if a.optional]
    if optional:
        raise SpecError(path, m.line, f"a guard cannot be combined with the optional argument {optional[0]!r}")
    try:
        expr = parse_guard(valid.text, [a.name for a in traced])
    except FormulaError as exc:
        statics = sorted(a.name for a in args if not a.traced and a.name in str(exc))
        hint = f" (static arguments such as {statics[0]!r} cannot be guarded)" if statics else ""
        raise SpecError(path, line, f"guard.valid: {exc}{hint}") from None
    for arg in traced:
        if arg.kind == "complex" and _outside_abs(expr, arg.name):
            raise SpecError(path, line, f"guard.valid compares the complex argument {arg.name!r}; compare abs({arg.name})")
    try:
        code = GuardPrinter().doprint(expr)
    except PrintError as exc:
        raise SpecError(path, line, f"guard.valid: {exc}") from None
    points = list(_domain_points(traced, tests))
    # the very code the generated module runs on the host, on every point at once
    holds = sympy.lambdify([sympy.Symbol(a.name) for a in traced], expr, modules=[{"np": np}], printer=GuardPrinter)
    try:
        with np.errstate(all="ignore"):
            admitted = np.broadcast_to(holds(*(np.asarray([p[a.name] for p, _ in points]) for a in traced)), (len(points),))
    except Exception as exc:  # noqa: BLE001 - numpy's complaint, whatever it is, is about this formula
        raise SpecError(path, line, f"guard.valid cannot be evaluated on the test domain ({code}): "
                                    f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    for (point, where), ok in zip(points, admitted):
        if not ok:
            shown = ", ".join(f"{k}={v:g}" for k, v in point.items())
            raise SpecError(path, line, f"guard.valid excludes {shown}, {where}: a guard may only exclude inputs "
                                        "outside the test domain")
    raises, raises_message, raises_text = (_guard_raises(raises_map, path, traced, holds, points)
                                           if raises_map else (None, None, None))
    return model.Guard(valid=valid, expr=expr, reason=reason, loc=m.loc(), raises=raises, raises_message=raises_message,
                       raises_text=raises_text)


def _guard_raises(m: _Mapping, path: str, traced: list, holds, points) -> tuple:
    """``guard.raises: {when: <condition>, message: <SciPy's ValueError message>}``: where SciPy raises for
    invalid arguments (roots_jacobi's alpha <= -1). It must exclude the whole test domain and lie
    outside ``valid`` (checked at the test points and on a grid around them)."""
    when = _formula(m.get("when", str, required=True), m.loc("when"), "guard.raises.when")
    message = " ".join(m.get("message", str, required=True).split())
    m.done()
    try:
        expr = parse_guard(when.text, [a.name for a in traced])
    except FormulaError as exc:
        raise SpecError(path, when.loc.line, f"guard.raises.when: {exc}") from None
    raised = sympy.lambdify([sympy.Symbol(a.name) for a in traced], expr, modules=[{"np": np}], printer=GuardPrinter)
    # the test domain, and the same points moved far out in every direction
    columns = [np.asarray([p[a.name] for p, _ in points], dtype=float) for a in traced]
    probes = [np.concatenate([c, c * 10 - 5, -c * 10 - 5, c - 10, np.full_like(c, -1e3)]) for c in columns]
    with np.errstate(all="ignore"):
        inside = np.broadcast_to(raised(*columns), columns[0].shape) if columns else np.zeros(0, bool)
        both = np.broadcast_to(raised(*probes), probes[0].shape) & np.broadcast_to(holds(*probes), probes[0].shape)
    if np.any(inside):
        raise SpecError(path, when.loc.line, "guard.raises.when holds on the test domain: SciPy raises only outside it")
    if np.any(both):
        raise SpecError(path, when.loc.line, "guard.raises.when holds where guard.valid admits the arguments: "
                                             "it must lie outside guard.valid")
    return expr, message, when.text


def _outside_abs(expr, name: str) -> bool:
    if isinstance(expr, sympy.Abs):
        return False
    if isinstance(expr, sympy.Symbol):
        return expr.name == name
    return any(_outside_abs(a, name) for a in expr.args)


def _domain_points(traced: list, tests: model.TestPlan):
    """Points of the test domain a guard must admit: a grid over the box (every integer of a short
    integer interval) and the special points."""
    axes = []
    for arg in traced:
        lo, hi = tests.domain[arg.name]
        if arg.kind == "integer":
            values = list(range(int(lo), int(hi) + 1)) if hi - lo <= 64 else sorted({lo, lo + 1, (lo + hi) // 2, hi - 1, hi})
        else:
            values = sorted({lo + (hi - lo) * k / 8 for k in range(9)})
            if arg.name in tests.complex_domain:
                (rlo, rhi), (ilo, ihi) = tests.complex_domain[arg.name]
                values += [complex(r, i) for r in (rlo, rhi) for i in (ilo, ihi)]
        axes.append(values)
    names = [a.name for a in traced]
    for values in itertools.product(*axes):
        yield dict(zip(names, values)), "a point of tests.domain"
    for i, point in enumerate(tests.points):
        yield {n: point[n] for n in names}, f"tests.points[{i}]"


def _check_consistency(spec: model.Spec) -> None:
    """Cross-field rules that no single key can check."""
    ruled = {r.arg for r in spec.derivatives}
    for arg in spec.differentiable_args:
        if arg.name not in ruled and not spec.sympy:
            raise SpecError(
                spec.path, arg.loc.line,
                f"argument {arg.name!r} is differentiable but has no rule: add derivatives.{arg.name} "
                "(formula and source), give a 'sympy' expression to derive it from, or mark it "
                "differentiable: false with a reason",
            )
    if any(a.kind == "complex" for a in spec.args):
        return
    for rule in spec.derivatives:
        if rule.conjugates:
            raise SpecError(spec.path, rule.loc.line, "a 'conjugate' derivative applies only to complex arguments")
