"""The derive cache: each spec's derived and verified rules, keyed by everything they depend on.

Deriving (sympy differentiation, cross-checks at 30 digits, planning) is nearly all of a generator
run. A spec's rules depend on its own text, on the specs its formulas name (their rules, sympy
definitions and signatures, transitively: an implicit rule differentiates its callees by their own
rules), on the generator's source and on the versions of the libraries that compute them. The key
hashes exactly that; a hit replays the stored rules, which render to the same bytes as a fresh derive.

Entries are JSON (never pickle: a cache file is data, not code), one file per spec, each carrying a
format tag, its key and a checksum of its payload. A file that is unreadable, truncated, of another
format, or whose checksum does not match is reported and ignored, never trusted.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import tempfile
from dataclasses import fields, is_dataclass
from pathlib import Path

from . import model
from .derive import ArgRule, CaseRules, PlannedArg, PlannedNeed

FORMAT = "jaxsci-derive-cache/1"
DIRECTORY = ".generator-cache"  # under the project root; ignored by git


def _sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def environment_digest(root: Path) -> str:
    """The generator's own source, the derivative kernels' (mpcheck evaluates rules with them), and the
    versions of what computes the rules."""
    import mpmath
    import numpy
    import scipy
    import sympy

    parts = [FORMAT, platform.python_version(), sympy.__version__, mpmath.__version__, scipy.__version__,
             numpy.__version__]
    kernels = root / "templates" / "runtime" / "kernels"
    # generator/distribution.py loads and renders distributions, which have no rules to derive or cache
    generator = [p for p in sorted((root / "generator").glob("*.py")) if p.name != "distribution.py"]
    for path in generator + sorted(kernels.glob("*.py")):
        parts.append(f"{path.relative_to(root).as_posix()}:{_sha256(path.read_bytes())}")
    return _sha256("\n".join(parts))


def _formulas(value):
    """Every Formula inside a record (any field that holds one, now or later)."""
    if isinstance(value, model.Formula):
        yield value
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _formulas(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _formulas(item)


def _names(text: str) -> set:
    """The identifiers a formula uses (formulas are Python expressions, which sympy parses too)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return set()  # the loader or derive reports it; nothing is cached for a spec with an error
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


class Keys:
    """Cache keys for every spec of one run."""

    def __init__(self, specs: list, texts: dict, root: Path):
        self._by_name = {s.name: s for s in specs}
        self._texts = texts  # spec name -> its file's text
        self._environment = environment_digest(root)
        # the formulas derive reads: the sympy definition and the derivative rules (the mpmath
        # reference and the guard are other namespaces, read by the tests and the renderer)
        self._references = {s.name: sorted({n for f in _formulas((s.sympy, s.derivatives)) for n in _names(f.text)})
                            for s in specs}
        # sympy-derived rules map sympy functions back to spec'd ones through every spec whose sympy
        # expression is a plain call: a change to any such spec can change them.
        self._reverse_map = _sha256("\n".join(
            f"{s.name}|{len(s.outputs)}|{bool(s.static_args)}|" + "|".join(c.value.text for c in s.sympy)
            for s in sorted(specs, key=lambda s: s.name) if s.sympy))
        self._keys: dict = {}

    def closure(self, name: str) -> list:
        seen, stack = set(), [name]
        while stack:
            current = stack.pop()
            for ref in self._references.get(current, ()):
                if ref not in seen:
                    seen.add(ref)
                    stack.append(ref)
        return sorted(seen)

    def key(self, spec: model.Spec) -> str:
        if spec.name not in self._keys:
            closure = self.closure(spec.name)
            parts = [self._environment, f"self:{_sha256(self._texts[spec.name])}"]
            # a name that is no spec today (sin, or a typo) is recorded as such: adding a spec of that
            # name later changes what the formula means
            parts += [f"{n}:{_sha256(self._texts[n]) if n in self._texts else '-'}" for n in closure]
            derives = any(self._by_name[n].sympy for n in [spec.name, *closure] if n in self._by_name)
            if derives:
                parts.append(f"reverse-map:{self._reverse_map}")
            self._keys[spec.name] = _sha256("\n".join(parts))
        return self._keys[spec.name]


# ---- rules <-> JSON ------------------------------------------------------------------------------
def _plain(value):
    """Tuples become lists for JSON; ``_tuples`` restores them."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _tuples(value):
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def encode(cases: tuple) -> list:
    return [{"condition": _plain(case.condition), "rules": [_encode_rule(rule) for rule in case.rules]} for case in cases]


def _encode_rule(rule) -> dict:
    return {
        "arg": rule.arg.name,
        "traced_index": rule.traced_index,
        "method": rule.method,
        "source": rule.source,
        "formulas": _plain(rule.formulas),
        "needs": [{
            "var": need.var,
            "spec": need.spec.name,
            "statics": _plain(need.statics),
            "args": [[a.same_as, a.key, a.code] for a in need.args],
            "stage": need.stage,
            "where": [list(w) for w in need.where],
            "statics_code": None if need.statics_code is None else [list(s) for s in need.statics_code],
        } for need in rule.needs],
        "derivative": list(rule.derivative),
        "conjugate": None if rule.conjugate is None else list(rule.conjugate),
        "check": rule.check,
        "statics": list(rule.statics),
        "derivative_common": [list(c) for c in rule.derivative_common],
        "conjugate_common": [list(c) for c in rule.conjugate_common],
        "real": None if rule.real is None else _encode_rule(rule.real),
    }


def decode(data: list, spec: model.Spec, specs_by_name: dict) -> tuple:
    """Rebuild the rules, linked to this run's spec records; KeyError/TypeError/ValueError on bad data."""
    return tuple(CaseRules(condition=_tuples(case["condition"]), rules=tuple(_decode_rule(rule, spec, specs_by_name)
                                                                                for rule in case["rules"]))
                 for case in data)


def _decode_rule(rule: dict, spec: model.Spec, specs_by_name: dict) -> ArgRule:
    needs = tuple(PlannedNeed(
        var=need["var"], spec=specs_by_name[need["spec"]], statics=_tuples(need["statics"]),
        args=tuple(PlannedArg(same_as=a, key=k, code=c) for a, k, c in need["args"]), stage=need["stage"],
        where=tuple((index, constant) for index, constant in need["where"]),
        statics_code=None if need["statics_code"] is None else tuple(tuple(s) for s in need["statics_code"]),
    ) for need in rule["needs"])
    return ArgRule(
        arg=spec.arg(rule["arg"]), traced_index=rule["traced_index"], method=rule["method"],
        source=rule["source"], formulas=_tuples(rule["formulas"]), needs=needs,
        derivative=tuple(rule["derivative"]),
        conjugate=None if rule["conjugate"] is None else tuple(rule["conjugate"]), check=rule["check"],
        statics=tuple(rule["statics"]),
        derivative_common=_tuples(rule["derivative_common"]),
        conjugate_common=_tuples(rule["conjugate_common"]),
        real=None if rule["real"] is None else _decode_rule(rule["real"], spec, specs_by_name),
    )


class Store:
    """One JSON file per spec under ``directory``; ``problems`` lists the entries that were ignored."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.problems: list[str] = []

    def _path(self, spec: model.Spec) -> Path:
        return self.directory / f"{spec.module}.{spec.name}.json"

    def get(self, spec: model.Spec, key: str, specs_by_name: dict):
        path = self._path(spec)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.problems.append(f"{path}: unreadable ({exc.strerror})")
            return None
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict) or entry.get("format") != FORMAT:
                raise ValueError("not a jaxsci derive-cache entry of this format")
            payload = entry["rules"]
            if entry.get("checksum") != _sha256(_canonical(payload)):
                raise ValueError("its checksum does not match its content")
            if entry.get("key") != key:
                return None  # an entry for other inputs: stale, not corrupt
            return decode(payload, spec, specs_by_name)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            self.problems.append(f"{path}: ignored ({exc})")
            return None

    def put(self, spec: model.Spec, key: str, payload: list) -> None:
        entry = {"format": FORMAT, "key": key, "checksum": _sha256(_canonical(payload)), "rules": payload}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # write then rename: a run stopped half-way never leaves a truncated entry behind
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(_canonical(entry))
            os.replace(tmp, self._path(spec))
        except OSError as exc:
            self.problems.append(f"{self._path(spec)}: not written ({exc.strerror})")


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
