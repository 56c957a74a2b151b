"""Releases within the supported range (SciPy 1.13 to 1.18, jax 0.6 to 0.12) that changed what a spec names.

``scipy_renamed``: an argument SciPy renamed.

SciPy 1.18 calls ndtri's argument ``p`` (``ndtri(p)``), SciPy 1.13 to 1.17 ``y``. The generated function
has one public name whatever SciPy is installed (generated/ is a function of specs/ and templates/ alone),
so the spec keeps the public name and says from which release SciPy uses which other one::

    - name: y
      kind: real
      scipy_renamed: {"1.18": p}

The checks against SciPy (generator/scipycheck.py, tests/test_completeness.py) then expect, for the
installed SciPy, the name of the latest rename at or before its version, else ``scipy_name``, else the
argument's name (``model.Arg.scipy_name_in``).

``native.jax_since``: the jax release that added a spec's native function (``jax.scipy.special.dawsn``
is jax 0.10.2's). With an older jax the function must be missing, and the core computes the function
with SciPy (templates/runtime/registry.py: ``Function.native_callable`` is None).
"""
from __future__ import annotations

import re

from .errors import SpecError

# A release as SciPy numbers its renames: MAJOR.MINOR (a rename comes with a feature release, not a patch).
_RELEASE = re.compile(r"^([0-9]+)\.([0-9]+)$")


def load(m, path: str, name: str, kind: str, traced_kinds, scipy_name: str | None, identifier) -> tuple:
    """The argument's ``scipy_renamed``, as ``((major, minor), name)`` pairs from the oldest release
    on, or ``()``. ``m`` is the loader's reader of the argument's mapping; ``identifier`` its check
    of a Python name (generator/loader.py), passed in to keep one grammar."""
    renamed = m.get("scipy_renamed", dict)
    if renamed is None:
        return ()
    line = m.value_line("scipy_renamed")
    if kind not in traced_kinds:
        raise SpecError(path, m.key_line("scipy_renamed"), f"argument {name!r}: scipy_renamed is for traced arguments, "
                                                           "which SciPy receives by position; a static one is passed by its name")
    if not renamed:
        raise SpecError(path, line, f"argument {name!r}: scipy_renamed must map at least one SciPy release to the name it took")
    key_lines = getattr(renamed, "key_lines", {})
    pairs, previous = [], scipy_name or name
    for release, new_name in renamed.items():
        at = key_lines.get(release, line)
        match = _RELEASE.match(release.strip())
        if not match:
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: {release!r} is not a SciPy release "
                                      "MAJOR.MINOR, such as \"1.18\"")
        version = (int(match.group(1)), int(match.group(2)))
        if pairs and version <= pairs[-1][0]:
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: list the releases from the oldest on "
                                      f"({release} follows {'.'.join(map(str, pairs[-1][0]))})")
        if not isinstance(new_name, str):
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: SciPy {release}'s name must be a string, got {new_name!r}")
        new_name = identifier(new_name.strip(), path, at, f"argument {name!r}: scipy_renamed: SciPy {release}'s name")
        if new_name == previous:
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: SciPy {release} names it {new_name!r} "
                                      "as before; that is no rename, remove it")
        pairs.append((version, new_name))
        previous = new_name
    return tuple(pairs)


def installed_scipy() -> tuple:
    """The installed SciPy's (major, minor): ``1.18.1`` and ``1.19.0rc1`` give (1, 18) and (1, 19)."""
    import scipy

    major, minor = scipy.__version__.split(".")[:2]
    return int(major), int(re.match(r"[0-9]+", minor).group())


# A jax release: 0.10.2, 0.9.0.1.
_JAX_RELEASE = re.compile(r"^[0-9]+(\.[0-9]+){1,3}$")


def jax_since(m, path: str) -> tuple | None:
    """``native.jax_since`` as a tuple of integers, or None. ``m`` is the loader's reader of ``native``."""
    since = m.get("jax_since", str)
    if since is None:
        return None
    if not _JAX_RELEASE.match(since.strip()):
        raise SpecError(path, m.value_line("jax_since"), f"native.jax_since: {since!r} is not a jax release, such as \"0.10.2\"")
    return tuple(int(part) for part in since.strip().split("."))


def installed_jax() -> tuple:
    """The installed jax's release as a tuple of integers: ``0.10.2`` and ``0.11.0.dev20260101`` give
    (0, 10, 2) and (0, 11, 0)."""
    import jax

    return tuple(int(part) for part in re.match(r"[0-9]+(?:\.[0-9]+)*", jax.__version__).group().split("."))
