"""Scratch projects for generator tests: chosen specs plus every spec they call (kernels included)."""
import re
import shutil
from pathlib import Path

from generator import ROOT

SPEC_PATHS = {p.stem: p for p in sorted((ROOT / "specs").glob("*/*.yaml"))}


def with_dependencies(names) -> list:
    """``names`` and every spec whose name their texts mention, transitively (an over-approximation:
    any identifier that names a spec counts, which is what a small tree needs to generate)."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in SPEC_PATHS:
            continue
        seen.add(name)
        todo.extend(set(re.findall(r"[A-Za-z_]\w*", SPEC_PATHS[name].read_text())) & set(SPEC_PATHS))
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
