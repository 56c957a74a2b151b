"""Render the package: jinja2 templates over the derived rules, plus the runtime core copied verbatim."""
from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from . import coredims, model
from . import device as device_spec
from .derive import ArgRule, CaseRules
from .errors import SpecError
from .printer import GuardPrinter, PrintError

VERSION = "0.1.0"
PACKAGE = "jaxsci"
RUNTIME_DIR = "runtime"
DEVICE_TABLE = "_device_table.py"  # the kernel table, generated/jaxsci/_device_table.py
CORE_PACKAGE = "_core"
COVERAGE = "coverage.md"  # the coverage table, generated/coverage.md

_KIND_TEXT = {
    "real": "real array",
    "complex": "real or complex array",
    "integer": "integer array",
    "static_bool": "static Python bool",
    "static_int": "static Python int",
    "static_float": "static Python float",
    "static_str": "static Python str",
    "static_axis": "static None, int or tuple of ints",
}
_OUTPUT_TEXT = {
    "promoted": "array of the promoted input dtype",
    "complex": "complex array of the promoted input precision",
    "real": "real array of the promoted input precision",
    "int32": "int32 array",
    "orthopoly1d": "SciPy's orthopoly1d (a numpy poly1d with roots and weights).",
}


def _environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = repr
    return env


def _case_suffix(case: CaseRules) -> str:
    return "".join(f"_{name}_{str(value).lower()}" for name, value in case.condition)


def _when_text(case: CaseRules) -> str:
    if not case.condition:
        return ""
    return " (when " + ", ".join(f"{name}={value}" for name, value in case.condition) + ")"


def _rule_text(rule: ArgRule) -> str:
    formulas = "; ".join(text if len(rule.formulas) == 1 else f"{name}: {text}" for name, text in rule.formulas)
    return f"{formulas} [{rule.source}]"


def _unpack(names) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def _tolerance_text(tol: model.Tolerance) -> str:
    return f"rtol={tol.rtol:g}, atol={tol.atol:g}"


def native_text(spec: model.Spec) -> str:
    """The docstring paragraph of a function with a native implementation; empty without one."""
    if spec.native is None:
        return ""
    tol = spec.native.tolerance
    complex_note = " Complex inputs always go to SciPy." if any(a.kind == "complex" for a in spec.args) else ""
    benchmark = "benchmarks/reductions.py" if spec.reduction is not None else "benchmarks/native_dispatch.py"
    since = spec.native.jax_since
    since_note = f" (jax {'.'.join(map(str, since))} and later; with an older jax, SciPy computes it)" if since else ""
    text = (
        f"Native dispatch: for real inputs this runs JAX's native ``{spec.native.function}``{since_note}, which was "
        f"faster than the SciPy callback on 10^4 and 10^6 elements ({benchmark}; on "
        f"small arrays the callback can be faster) and agrees with SciPy to within {_tolerance_text(tol['float64'])} in "
        f"float64 and {_tolerance_text(tol['float32'])} in float32 over the tested domain; the spec's derivative "
        f"rules differentiate it, as on the SciPy path (evaluations they need go to SciPy), and XLA flushes subnormal numbers to zero there. To force SciPy (bit-identical to ``{spec.scipy}``, evaluated on the host in one "
        f"callback per call and one per derivative order), set ``jaxsci.config.native = False`` or the "
        f"environment variable ``JAXSCI_NATIVE=0`` before the first call, or call ``jax.clear_caches()`` "
        f"after changing it.{complex_note}"
    )
    return textwrap.fill(text, width=96, break_long_words=False, break_on_hyphens=False)


def render_function(env: jinja2.Environment, spec: model.Spec, cases: tuple) -> str:
    def derivative_text(arg: model.Arg) -> str:
        texts = []
        for case in cases:
            for rule in case.rules:
                if rule.arg.name == arg.name:
                    how = "derived by sympy" if rule.method == "sympy" else rule.source
                    texts.append(f"{'; '.join(t for _, t in rule.formulas)}{_when_text(case)} ({how}; {rule.check})")
                    if rule.real is not None:
                        texts.append(f"for real {arg.name}: {'; '.join(t for _, t in rule.real.formulas)}{_when_text(case)} "
                                     f"(the derivative along the real axis; {rule.real.check})")
        return "; ".join(dict.fromkeys(texts))

    complex_args = ", ".join(a.name for a in spec.args if a.kind == "complex")
    docstring = env.get_template("docstring.txt.j2").render(
        spec=spec, kind_text=lambda a: _KIND_TEXT[a.kind], derivative_text=derivative_text,
        output_text=lambda o: _OUTPUT_TEXT[o.dtype], complex_args=complex_args, native_text=native_text(spec),
    ).rstrip("\n")
    traced = [a.name for a in spec.traced_args]
    public = []
    for a in spec.args:
        if a.keyword_only and "*" not in public:
            public.append("*")
        public.append(f"{a.name}={a.default!r}" if a.has_default else a.name)
    if spec.numpy_keywords:
        public.append("**numpy_keywords")
    every_rule = [r for case in cases for rule in case.rules for r in (rule, rule.real) if r is not None]
    all_code = " ".join(code for rule in every_rule
                        for code in rule.derivative + (rule.conjugate or ()) + tuple(a.code or "" for n in rule.needs for a in n.args)
                        + tuple(c for _, c in rule.derivative_common + rule.conjugate_common))
    guard_code = raises_code = None
    if spec.guard is not None:
        try:
            guard_code = GuardPrinter().doprint(spec.guard.expr)
            if spec.guard.raises is not None:
                raises_code = GuardPrinter().doprint(spec.guard.raises)
        except PrintError as exc:
            raise SpecError(spec.guard.valid.loc.path, spec.guard.valid.loc.line, f"guard.valid: {exc}") from None
    if spec.reduction is not None:  # over an axis: the reduction core (templates/runtime/reduction.py)
        from .reduction import present_outputs

        return env.get_template("reduction.py.j2").render(
            spec=spec, cases=cases, reduction=spec.reduction, docstring=docstring, public_params=", ".join(public),
            call_args=", ".join(a.name for a in spec.args), case_suffix=_case_suffix, when_text=_when_text,
            rule_text=_rule_text, unpack=_unpack,
            case_params=lambda case: ", ".join(t for t in traced if (t, None) not in case.condition),
            present=lambda case: [o.name for o in present_outputs(
                spec.reduction, spec.outputs, tuple(c for c in case.condition if c[1] is not None))],
        )
    core_shape = coredims.shape_function(spec)
    return env.get_template("function.py.j2").render(
        spec=spec,
        guard_code=guard_code,
        raises_code=raises_code,
        core_shape=core_shape,
        core_uses_math=core_shape is not None and any("math." in code for code in core_shape[1]),
        core_indices=_unpack([d.index for d in spec.core]) if spec.core else None,
        cases=cases,
        uses_jsp="jsp." in all_code,
        traced_params=", ".join(traced),
        case_params=lambda case: ", ".join(t for t in traced if (t, None) not in case.condition),
        public_params=", ".join(public),
        call_args=", ".join(a.name for a in spec.args),
        unpack_values=_unpack([o.name for o in spec.outputs]),
        unpack_needs=lambda rule: _unpack([n.var for n in rule.needs]),
        unpack_names=_unpack,
        static_params=lambda rule: (", *, " + ", ".join(rule.statics)) if rule.statics else "",
        need_stages=lambda rule: range(max((n.stage for n in rule.needs), default=0) + 1),
        stage_suffix=lambda stage: f"_stage{stage + 1}" if stage else "",
        earlier_needs=lambda rule, stage: [n.var for n in rule.needs if n.stage < stage],
        case_suffix=_case_suffix,
        when_text=_when_text,
        rule_text=_rule_text,
        docstring=docstring,
        # each rule, and its variant for real arguments (a `real` formula), with their functions' prefix
        variants=lambda case: [v for rule in case.rules for v in (
            (rule, f"_{spec.name}{_case_suffix(case)}_{rule.arg.name}", ""),
            *(((rule.real, f"_{spec.name}{_case_suffix(case)}_{rule.arg.name}_real", " along the real axis"),)
              if rule.real is not None else ()))],
    )


def _header_copy(source: str) -> str:
    return f"# @generated by `python -m generator`: a verbatim copy of {source}. DO NOT EDIT.\n"


def _package_docstring(module: str) -> str:
    if module == model.KERNELS:
        return (f"{PACKAGE}.{module}: jaxsci's own derivative kernels (vectorised numpy on the host) as JAX "
                "functions, differentiable, under jit and vmap.")
    return f"{PACKAGE}.{module}: scipy.{module} for JAX, differentiable, under jit and vmap."


def render_all(specs: list, rules: dict, templates: Path, uncovered: dict | None = None, exports: dict | None = None,
               gate: dict | None = None, packages: tuple = ()) -> dict:
    """relative path under generated/ -> file content. ``exports``: ``loader.load_exports``'s names;
    ``gate``: what the GPU accuracy gate measured (``device.load_gate``); ``packages``: jaxsci's other
    subpackages, rendered by their own generator modules (``stats``)."""
    env = _environment(templates)
    gate = gate or {"measured_on": None, "kernels": {}}
    files: dict[str, str] = {}
    exports = exports or {}
    modules = sorted({s.module for s in specs})
    for module in modules:
        members = sorted((s for s in specs if s.module == module), key=lambda s: s.name)
        for spec in members:
            files[f"{PACKAGE}/{module}/_{spec.name}.py"] = render_function(env, spec, rules[spec.name])
        core = [{"name": name, "module": target[0], "attribute": target[1]}
                for name, target in sorted(exports.get(module, {}).items())]
        files[f"{PACKAGE}/{module}/__init__.py"] = env.get_template("package_init.py.j2").render(
            docstring=_package_docstring(module), specs=members, source=f"specs/{module}/*.yaml",
            exports=core, public=sorted([*(s.name for s in members), *(a for s in members for a in s.aliases),
                                         *(e["name"] for e in core)]))
    files[f"{PACKAGE}/__init__.py"] = env.get_template("root_init.py.j2").render(
        modules=sorted([*modules, *packages]), version=VERSION, source="specs/")
    files[f"{PACKAGE}/{DEVICE_TABLE}"] = env.get_template("device_table.py.j2").render(
        kernels=device_rows(specs, gate), measured_on=gate.get("measured_on"), source=f"specs/ and specs/{device_spec.GATE}")
    files[COVERAGE] = render_coverage(env, specs, rules, (uncovered or {}).get("special", {}), set(exports.get("special", {})),
                                      gate)
    runtime = templates / RUNTIME_DIR
    for path in sorted(runtime.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(runtime).as_posix()
        files[f"{PACKAGE}/{CORE_PACKAGE}/{rel}"] = _header_copy(f"templates/{RUNTIME_DIR}/{rel}") + path.read_text(encoding="utf-8")
    return files


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


@dataclass
class _Tally:
    """The coverage table's counts over the (function, real or complex argument) pairs."""

    pairs: int = 0
    differentiable: int = 0
    not_differentiable: int = 0
    mpmath_verified: int = 0
    fd_verified: int = 0
    complex_functions: int = 0
    by_method: dict = field(default_factory=lambda: {"sympy": 0, "formula": 0, "implicit": 0})
    unverified: list = field(default_factory=list)


def device_rows(specs: list, gate: dict) -> list:
    """Every device kernel of every spec, with the accuracy gate's verdict: the kernel table's rows."""
    rows = []
    for spec in sorted(specs, key=lambda s: (s.module, s.name)):
        if spec.device is None:
            continue
        for kernel in spec.device.kernels:
            used, measured = device_spec.verdict(spec, kernel, gate)
            tol = spec.device.tolerance
            rows.append({"qualname": f"{spec.module}.{spec.name}", "name": spec.name, "kind": kernel.kind,
                         "target": kernel.target, "header": kernel.header, "used": used,
                         "used_text": ", ".join(used) or "no", "used_literal": repr(tuple(used)), "measured": measured,
                         "tolerance": f"float64 {_tolerance_text(tol['float64'])}; float32 {_tolerance_text(tol['float32'])}"})
    return rows


def _gpu_cell(rows: list) -> str:
    if not rows:
        return "host"
    return "<br>".join(f"{r['kind']} ({', '.join(d.replace('float', 'f') for d in r['used']) or 'not used'})" for r in rows)


def render_coverage(env: jinja2.Environment, specs: list, rules: dict, uncovered: dict | None = None,
                    exports: set = frozenset(), gate: dict | None = None) -> str:
    """The coverage table: every function, its arguments, rules, reasons and references, and
    scipy.special's public callables not covered yet (``uncovered``: name -> reason); ``exports`` are
    the names specs/exports.yaml exports from the runtime core."""
    # Nothing here asks the installed SciPy: generated/ is the same whatever SciPy (1.13 to 1.18) runs the
    # generator, so `--check` passes on each. tests/test_completeness.py compares the lists with SciPy.
    names = {s.name for s in specs if s.module == "special"}
    exported = names | {a for s in specs if s.module == "special" for a in s.aliases} | set(exports)
    uncovered = uncovered or {}
    tally = _Tally()
    gate = gate or {"measured_on": None, "kernels": {}}
    devices = device_rows(specs, gate)
    rows, natives, kernels, frontends, refused = [], [], [], [], []
    for spec in sorted(specs, key=lambda s: (s.module, s.name)):
        gpu = _gpu_cell([r for r in devices if r["qualname"] == f"{spec.module}.{spec.name}"])
        if spec.kernel:
            kernels.append({**_kernel_row(spec, rules[spec.name]), "gpu": gpu})
            continue
        if spec.native is not None:
            natives.append(_native_row(spec))
        if spec.frontend is not None:
            frontends.append({"name": spec.name, "function": spec.frontend.function, "why": _cell(spec.frontend.why)})
        if spec.numpy_keywords is not None:
            refused.append({"name": spec.name, "why": _cell(spec.numpy_keywords)})
        rows.append({**_function_row(spec, rules[spec.name], tally), "gpu": gpu})
    counts = {
        "functions": len(specs) - len(kernels),
        "kernels": len(kernels),
        "public_covered": len(exported),
        "aliases": len(exported - names - set(exports)),
        "exports": sorted(exports),
        "uncovered": [{"name": n, "reason": _cell(uncovered[n])} for n in sorted(uncovered, key=str.lower)],
        "complex_functions": tally.complex_functions,
        "pairs": tally.pairs,
        "differentiable": tally.differentiable,
        "differentiable_percent": f"{100 * tally.differentiable / tally.pairs:.1f}" if tally.pairs else "0",
        "by_method": tally.by_method,
        "verified_mpmath": tally.mpmath_verified,
        "verified_fd": tally.fd_verified,
        "verified_mpmath_percent": f"{100 * tally.mpmath_verified / tally.differentiable:.1f}" if tally.differentiable else "0",
        "unverified": tally.unverified,
        "not_differentiable": tally.not_differentiable,
        "native": len(natives),
        "device_used": sum(bool(r["used"]) for r in devices),
        "device_total": len(devices),
    }
    return env.get_template("coverage.md.j2").render(counts=counts, rows=rows, natives=natives, kernels=kernels, frontends=frontends, refused=refused,
                                                     devices=devices, measured_on=gate.get("measured_on"))


def _native_row(spec: model.Spec) -> dict:
    return {
        "name": spec.name,
        "function": spec.native.function,
        "float64": _tolerance_text(spec.native.tolerance["float64"]),
        "float32": _tolerance_text(spec.native.tolerance["float32"]),
        "why": _cell(spec.native.why),
    }


def _function_row(spec: model.Spec, cases: tuple, tally: _Tally) -> dict:
    """One function's row of the table; counts its arguments into ``tally``."""
    methods = {}
    for case in cases:
        for rule in case.rules:
            how = "derived by sympy" if rule.method == "sympy" else (
                f"implicit: {rule.source}" if rule.method == "implicit" else rule.source)
            entry = methods.setdefault(rule.arg.name, {})
            if any(v is None for _, v in case.condition) and rule.method in entry:  # when_omitted: both rules
                how = f"{entry[rule.method]}; {how}{_when_text(case)}"
            entry[rule.method] = how
    diff_cells, nondiff_cells = [], []
    for arg in spec.args:
        if arg.kind not in ("real", "complex"):
            continue
        tally.pairs += 1
        if arg.differentiable:
            tally.differentiable += 1
            found = methods.get(arg.name, {})
            for method in found:
                tally.by_method[method] += 1
                break
            if spec.tests.expected_failure("gradients", "float64") is not None:
                tally.unverified.append(f"{spec.name}({arg.name})")
            elif spec.finite_differences:
                tally.fd_verified += 1
            else:
                tally.mpmath_verified += 1
            diff_cells.append(f"`{arg.name}` ({'; '.join(dict.fromkeys(found.values()))})")
        else:
            tally.not_differentiable += 1
            nondiff_cells.append(f"`{arg.name}`: {arg.why}")
    complex_args = [a.name for a in spec.args if a.kind == "complex"]
    tally.complex_functions += bool(complex_args)
    return {
        "name": spec.name,
        "url": f"https://docs.scipy.org/doc/scipy/reference/generated/{spec.scipy}.html",
        "args": _cell(", ".join(f"{a.name} ({a.kind})" for a in spec.args)),
        "differentiable": _cell("<br>".join(diff_cells) or "–"),
        "not_differentiable": _cell("<br>".join(nondiff_cells) or "–"),
        "complex": _cell(", ".join(complex_args) or "–"),
        "reference": _cell("–" if not spec.differentiable_args else (
            f"finite differences ({spec.finite_differences})" if spec.finite_differences else "mpmath")
            + f"; {_verified_accuracy(spec)}"),
    }


# tests/test_gradients.py checks second derivatives to this multiple of the spec's first-order rtol
SECOND_ORDER_FACTOR = 100


def _verified_accuracy(spec: model.Spec) -> str:
    """The relative error the gradient suite holds the float64 derivatives to (the spec's tolerance)."""
    tol = spec.tests.gradient_tolerance["float64"]
    if spec.tests.first_order_only:
        return f"rtol {tol.rtol:.0e} (first order)"
    return f"rtol {tol.rtol:.0e} / {tol.rtol * SECOND_ORDER_FACTOR:.0e} (first / second order)"


def _kernel_row(spec: model.Spec, cases: tuple) -> dict:
    rules = {rule.arg.name: rule for case in cases for rule in case.rules}
    cells = []
    for arg in spec.args:
        if arg.kind not in ("real", "complex"):
            continue
        rule = rules.get(arg.name)
        text = _rule_text(rule) if rule is not None else f"not differentiable ({arg.why})"
        if rule is not None and rule.real is not None:
            text += f"; for real {arg.name}: " + "; ".join(t for _, t in rule.real.formulas)
        cells.append(f"`{arg.name}`: " + text)
    return {"name": spec.name, "host": spec.scipy, "summary": _cell(spec.summary), "rules": _cell("<br>".join(cells))}


def existing_files(out_dir: Path) -> dict:
    root = out_dir / PACKAGE
    if not root.exists():
        return {}
    found = {str(p.relative_to(out_dir)): p.read_text(encoding="utf-8")
             for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts}
    if (out_dir / COVERAGE).exists():
        found[COVERAGE] = (out_dir / COVERAGE).read_text(encoding="utf-8")
    return found


def write(files: dict, out_dir: Path) -> tuple[list[str], list[str]]:
    """Write what changed and remove what is no longer generated; returns (written, removed) paths."""
    written, removed = [], []
    current = existing_files(out_dir)
    for rel, content in files.items():
        if current.get(rel) != content:
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            written.append(rel)
    for rel in sorted(set(current) - set(files)):
        (out_dir / rel).unlink()
        removed.append(rel)
    return written, removed


def diff(files: dict, out_dir: Path) -> str:
    """A unified diff from what is in ``out_dir`` to what should be there; empty when current."""
    current = existing_files(out_dir)
    chunks = []
    for rel in sorted(set(files) | set(current)):
        old, new = current.get(rel), files.get(rel)
        if old == new:
            continue
        chunks.extend(difflib.unified_diff(
            (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
            fromfile=f"generated/{rel}" if old is not None else "/dev/null",
            tofile=f"generated/{rel}" if new is not None else "/dev/null",
        ))
    return "".join(chunks)
