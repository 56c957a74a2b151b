"""Specs checked against the installed SciPy and mpmath, when they are loaded.

A spec that does not match SciPy is worse than a spec that does not load: an extra argument is taken by
a ufunc as its ``out=`` (it would write into the caller's array), a misspelled name gives NaN values
with a number for a gradient. So every ``scipy:`` spec is checked against the object it names:

- ``scipy:`` resolves to a callable of ``scipy.<module>``;
- a ufunc takes exactly the spec's traced arguments (``nin``) and gives its outputs (``nout``), under
  SciPy's names in SciPy's order (from the docstring's signature line, as ``generator new`` reads it);
  an argument whose public name is not SciPy's says so with ``scipy_name`` (jn: SciPy's docstring is
  jv's, ``v, z``), one SciPy renamed in a supported release with ``scipy_renamed`` (ndtri's ``y`` is
  ``p`` from SciPy 1.18, generator/releases.py), and a ufunc has no static arguments;
- a Python function's signature (``inspect.signature``) accepts the spec's arguments in the spec's
  order, by name, with the same defaults, and has no required parameter the spec leaves out;

and every name of every ``reference.mpmath`` expression must be an mpmath name, an argument of the
spec, or one the expression binds itself (``diff(lambda t: ..., v)``).

All of a spec's mismatches are returned together, as ``SpecError``s located at the line that is wrong.
"""
from __future__ import annotations

import ast
import difflib
import importlib
import inspect

import numpy as np

from . import model, releases
from .errors import SpecError

# the builtins an mpmath reference may use (tests/mpref.py evaluates it with exactly these)
REFERENCE_BUILTINS = frozenset({"abs", "min", "max", "int", "float", "complex", "round"})


def check_spec(spec: model.Spec, scipy_line: int | None) -> list[SpecError]:
    """Every way ``spec`` disagrees with SciPy's function or with mpmath (empty if none)."""
    errors = []
    if spec.scipy_since is not None and releases.installed_scipy() < spec.scipy_since:
        errors += _check_missing(spec, scipy_line)
    elif spec.module != model.KERNELS:
        errors += _check_scipy(spec, scipy_line)
    errors += _check_reference_names(spec)
    return errors


def _check_missing(spec: model.Spec, line: int | None) -> list[SpecError]:
    """Before its ``scipy_since`` release, SciPy must not have the function (generator/releases.py)."""
    if resolve(spec.scipy) is None:
        return []
    return [SpecError(spec.path, line, f"scipy_since: SciPy {_installed_text()} has {spec.scipy} already, "
                                       f"before SciPy {_text(spec.scipy_since)}")]


def _text(release: tuple) -> str:
    return ".".join(map(str, release))


def _installed_text() -> str:
    return _text(releases.installed_scipy())


def resolve(dotted: str):
    """The object ``scipy.<module>.NAME`` names, or None."""
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None


def _scipy_names(spec: model.Spec) -> list:
    """SciPy's names for the spec's arguments, in the installed SciPy."""
    release = releases.installed_scipy()
    return [a.scipy_name_in(release) for a in spec.args]


def _check_scipy(spec: model.Spec, line: int | None) -> list[SpecError]:
    function = resolve(spec.scipy)
    module, _, name = spec.scipy.rpartition(".")
    if function is None:
        try:
            known = [n for n in dir(importlib.import_module(module)) if not n.startswith("_")]
        except ImportError:
            known = []
        hint = difflib.get_close_matches(name, known, n=1)
        return [SpecError(spec.path, line, f"scipy: {module} has no function {name!r}"
                                           + (f"; did you mean {module}.{hint[0]}?" if hint else ""))]
    if not callable(function):
        return [SpecError(spec.path, line, f"scipy: {spec.scipy} is not callable (it is a {type(function).__name__})")]
    if isinstance(function, np.ufunc):
        return _check_ufunc(spec, function, line)
    return _check_python_function(spec, function, line)


def _check_ufunc(spec: model.Spec, ufunc, line: int | None) -> list[SpecError]:
    from .scaffold import argument_names

    errors = []
    traced = [a for a in spec.args if a.traced]
    statics = [a for a in spec.args if a.static]
    for arg in statics:
        errors.append(SpecError(spec.path, arg.loc.line, f"argument {arg.name!r}: {spec.scipy} is a ufunc, which takes "
                                                         "no static arguments (only array arguments, then out=)"))
    if ufunc.nin != len(traced):
        errors.append(SpecError(
            spec.path, traced[ufunc.nin].loc.line if len(traced) > ufunc.nin else line,
            f"{spec.scipy} takes {ufunc.nin} argument(s), the spec lists {len(traced)} traced "
            f"({', '.join(a.name for a in traced)})" + (": a ufunc takes the next one as its out= and writes into it"
                                                      if len(traced) > ufunc.nin else "")))
    if ufunc.nout != len(spec.outputs):
        errors.append(SpecError(spec.path, spec.outputs[0].loc.line if len(spec.outputs) > 1 else line,
                                f"{spec.scipy} returns {ufunc.nout} output(s), the spec lists {len(spec.outputs)}"))
    if ufunc.nin == len(traced):
        names = argument_names(ufunc, ufunc.__doc__ or "")
        release = releases.installed_scipy()
        for arg, scipy_name in zip(traced, names):
            if arg.scipy_name_in(release) != scipy_name:
                errors.append(SpecError(spec.path, arg.loc.line, _name_message(spec, arg, scipy_name, names)))
    return errors


def _name_message(spec: model.Spec, arg: model.Arg, scipy_name: str, names: list) -> str:
    if arg.scipy_renamed:
        release = releases.installed_scipy()
        return (f"argument {arg.name!r}: SciPy {_text(release)} names it {scipy_name!r} ({spec.scipy}({', '.join(names)})), "
                f"not {arg.scipy_name_in(release)!r} as scipy_renamed says")
    if arg.scipy_name:
        return f"argument {arg.name!r}: scipy_name {arg.scipy_name!r} is not SciPy's name here, {scipy_name!r} ({spec.scipy}({', '.join(names)}))"
    return (f"argument {arg.name!r} is {scipy_name!r} in {spec.scipy}({', '.join(names)}): use SciPy's names in "
            f"SciPy's order, or keep this name and say scipy_name: {scipy_name} (or, where a SciPy release "
            f"renamed it, scipy_renamed: {{'MAJOR.MINOR': {scipy_name}}})")


def documented_signature(function) -> inspect.Signature:
    """``inspect.signature``, except for SciPy's multi-ufuncs (legendre_p), which take ``(*args,
    **kwargs)`` and document their signature on the docstring's first line, ``legendre_p(n, z, *,
    diff_n=0)``: that one, parsed by Python's ``ast``."""
    signature = inspect.signature(function)
    params = list(signature.parameters.values())
    if [p.kind for p in params] != [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
        return signature
    first = (inspect.getdoc(function) or "").strip().splitlines()[:1]
    # SciPy 1.15 and 1.16's multi-ufuncs have no __name__: the line then names the function itself
    name = getattr(function, "__name__", None) or (first and first[0].split("(", 1)[0])
    if not first or not name or not name.isidentifier() or not first[0].startswith(f"{name}("):
        return signature
    try:
        spec = ast.parse(f"def _{first[0][len(name):]}: pass").body[0].args
        kind = inspect.Parameter
        positional = spec.posonlyargs + spec.args
        defaults = [kind.empty] * (len(positional) - len(spec.defaults)) + [ast.literal_eval(d) for d in spec.defaults]
        params = [kind(a.arg, kind.POSITIONAL_OR_KEYWORD, default=d) for a, d in zip(positional, defaults)]
        params += [kind(a.arg, kind.KEYWORD_ONLY, default=kind.empty if d is None else ast.literal_eval(d))
                   for a, d in zip(spec.kwonlyargs, spec.kw_defaults)]
        return inspect.Signature(params)
    except (SyntaxError, ValueError, IndexError):  # an undocumented form: keep the variadic signature
        return signature


def _check_python_function(spec: model.Spec, function, line: int | None) -> list[SpecError]:
    try:
        signature = documented_signature(function)
    except (TypeError, ValueError):  # nothing to compare with: the value tests call it
        return []
    params = signature.parameters
    variadic = any(p.kind == p.VAR_KEYWORD for p in params.values())
    positional = [n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    errors = []
    release = releases.installed_scipy()
    for index, (arg, scipy_name) in enumerate(zip(spec.args, _scipy_names(spec))):
        param = params.get(scipy_name)
        if arg.scipy_since is not None and release < arg.scipy_since:  # the core leaves it out (releases.py)
            if param is not None:
                errors.append(SpecError(spec.path, arg.loc.line, f"argument {arg.name!r}: scipy_since: {spec.scipy}{signature} "
                                                                 f"has it already, in SciPy {_text(release)}, before SciPy {_text(arg.scipy_since)}"))
            continue
        if param is None or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            if variadic and arg.static:
                continue
            hint = difflib.get_close_matches(scipy_name, list(params), n=1)
            errors.append(SpecError(spec.path, arg.loc.line, f"argument {arg.name!r}: {spec.scipy}{signature} has no parameter "
                                                             f"{scipy_name!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")))
            continue
        if arg.traced or not arg.keyword_only:  # the core passes these by position
            if index >= len(positional) or positional[index] != scipy_name:
                errors.append(SpecError(spec.path, arg.loc.line,
                                        f"argument {arg.name!r} is not parameter {index + 1} of {spec.scipy}{signature}: "
                                        "list the arguments in SciPy's order"))
                continue
        if arg.keyword_only and param.kind == param.POSITIONAL_ONLY:
            errors.append(SpecError(spec.path, arg.loc.line, f"argument {arg.name!r} is keyword_only, but {spec.scipy}{signature} "
                                                             "takes it by position only"))
        default = arg.scipy_default_in(release)
        if arg.has_default and param.default is not param.empty and not _same(default, param.default):
            before = " (scipy_default_before)" if default is not arg.default else ""
            errors.append(SpecError(spec.path, arg.loc.line, f"argument {arg.name!r}: default {default!r}{before}, but "
                                                             f"{spec.scipy}{signature} has {param.default!r}"))
    listed = set(_scipy_names(spec))
    for name, param in params.items():
        if (param.default is param.empty and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)
                and name not in listed):
            errors.append(SpecError(spec.path, line, f"{spec.scipy}{signature} requires {name!r}, which the spec does not list"))
    return errors


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an array default, say: not comparable, not checked
        return True


# ---- mpmath references --------------------------------------------------------------------------
def _mpmath_names() -> frozenset:
    import mpmath

    return frozenset(n for n in dir(mpmath) if not n.startswith("_"))


def free_names(text: str) -> list:
    """The names an expression reads that it does not bind itself (lambda parameters, comprehension
    targets), in order of appearance; raises SyntaxError."""
    tree = ast.parse(text.strip(), mode="eval")
    found: list = []

    def visit(node, bound: frozenset):
        if isinstance(node, ast.Lambda):
            a = node.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} | {p.arg for p in (a.vararg, a.kwarg) if p}
            for default in (*a.defaults, *a.kw_defaults):
                if default is not None:
                    visit(default, bound)
            visit(node.body, bound | params)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = set(bound)
            for gen in node.generators:
                visit(gen.iter, frozenset(inner))
                inner |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                for cond in gen.ifs:
                    visit(cond, frozenset(inner))
            for part in ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)):
                visit(part, frozenset(inner))
            return
        if isinstance(node, ast.Name) and node.id not in bound and node.id not in found:
            found.append(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, bound)

    visit(tree, frozenset())
    return found


def _check_reference_names(spec: model.Spec) -> list[SpecError]:
    known = _mpmath_names() | REFERENCE_BUILTINS | {a.name for a in spec.args} | {d.index for d in spec.core}
    errors = []
    for case in spec.reference:
        formula = case.value
        try:
            names = free_names(formula.text)
        except SyntaxError as exc:
            errors.append(SpecError(formula.loc.path, formula.loc.line, f"reference.mpmath {formula.text!r} does not parse: {exc.msg}"))
            continue
        for name in names:
            if name not in known:
                hint = difflib.get_close_matches(name, sorted(known), n=1)
                errors.append(SpecError(formula.loc.path, formula.loc.line,
                                        f"reference.mpmath: {name!r} is not an mpmath name or an argument"
                                        + (f"; did you mean {hint[0]!r}?" if hint else "")))
    return errors
