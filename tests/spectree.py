"""Scratch projects for generator tests: chosen specs plus every spec they call (kernels included)."""
import re
import shutil

import yaml
from pathlib import Path

from generator import ROOT

# function specs by name (specs/stats/ holds distributions, whose names may be functions' too: gamma, beta)
SPEC_PATHS = {p.stem: p for p in sorted((ROOT / "specs").glob("*/*.yaml")) if p.parent.name != "stats"}


def _formula_names(path: Path) -> set:
    """Identifiers in a spec's ``sympy``, ``derivatives`` and ``when_omitted`` values: the specs its rules can call."""
    data = yaml.safe_load(path.read_text())
    texts = []

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            texts.append(value)

    walk([data.get("sympy"), data.get("derivatives"), data.get("when_omitted")])
    return set(re.findall(r"[A-Za-z_]\w*", " ".join(texts)))


def with_dependencies(names) -> list:
    """``names`` and every spec their rules call, transitively (any identifier in a formula that
    names a spec counts: an over-approximation, which is what a small tree needs to generate)."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in SPEC_PATHS:
            continue
        seen.add(name)
        todo.extend(_formula_names(SPEC_PATHS[name]) & set(SPEC_PATHS))
    return sorted(seen)


def copy_specs(names, root: Path) -> list:
    """Copy the specs ``names`` need into ``root``/specs/<module>/; returns every name copied."""
    copied = with_dependencies(names)
    for name in copied:
        source = SPEC_PATHS[name]
        target = root / "specs" / source.parent.name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    return copied
