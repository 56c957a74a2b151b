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

``scipy_since``: the SciPy release that added a function (the spec's top level: legendre_p is SciPy
1.15's) or a static argument (factorial's ``extend``). With an older SciPy installed the function or the
argument must be missing, and it is not checked further; the core raises ``NotImplementedError`` for
such a function, and calls SciPy without such an argument (it must have a single choice, its default,
which is what the older SciPy does). ``scipy_default_before: {"1.15": null}``: SciPy's default for
a static argument before that release (factorialk's ``exact``), where it differs from the spec's; the
core passes static arguments by name, so only the check against SciPy reads it.

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
    pairs, previous = [], scipy_name or name
    for release, version, new_name, at in _by_release(renamed, path, line, f"argument {name!r}: scipy_renamed"):
        if not isinstance(new_name, str):
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: SciPy {release}'s name must be a string, got {new_name!r}")
        new_name = identifier(new_name.strip(), path, at, f"argument {name!r}: scipy_renamed: SciPy {release}'s name")
        if new_name == previous:
            raise SpecError(path, at, f"argument {name!r}: scipy_renamed: SciPy {release} names it {new_name!r} "
                                      "as before; that is no rename, remove it")
        pairs.append((version, new_name))
        previous = new_name
    return tuple(pairs)


def _release(text: str, path: str, line: int | None, what: str) -> tuple:
    match = _RELEASE.match(text.strip())
    if not match:
        raise SpecError(path, line, f"{what}: {text!r} is not a SciPy release MAJOR.MINOR, such as \"1.18\"")
    return int(match.group(1)), int(match.group(2))


def _by_release(mapping: dict, path: str, line: int | None, what: str):
    """``(release text, (major, minor), value, line)`` for each item of a mapping keyed by SciPy release,
    which must list the releases from the oldest on."""
    key_lines = getattr(mapping, "key_lines", {})
    previous = None
    for text, value in mapping.items():
        at = key_lines.get(text, line)
        version = _release(text, path, at, what)
        if previous is not None and version <= previous:
            raise SpecError(path, at, f"{what}: list the releases from the oldest on ({text} follows {'.'.join(map(str, previous))})")
        previous = version
        yield text, version, value, at


def scipy_since(m, path: str, what: str) -> tuple | None:
    """``scipy_since`` of a spec or an argument (``m``, the loader's reader), as (major, minor), or None."""
    since = m.get("scipy_since", str)
    return None if since is None else _release(since, path, m.value_line("scipy_since"), f"{what}scipy_since")


def argument_since(m, path: str, name: str, kind: str, default, choices) -> tuple | None:
    """An argument's ``scipy_since``: a static one with a single choice, its default (the older SciPy's
    behaviour, since the core calls it without the argument)."""
    since = scipy_since(m, path, f"argument {name!r}: ")
    if since is not None and (not kind.startswith("static") or choices is None or tuple(choices) != (default,)):
        raise SpecError(path, m.key_line("scipy_since"), f"argument {name!r}: scipy_since is for a static argument whose "
                                                         "only choice is its default: an older SciPy is called without it")
    return since


def default_before(m, path: str, name: str, kind: str, check_default) -> tuple:
    """An argument's ``scipy_default_before`` as ``((major, minor), default)`` pairs, or ``()``;
    ``check_default`` is the loader's check of a static default of ``kind``."""
    before = m.get("scipy_default_before", dict)
    if before is None:
        return ()
    line = m.value_line("scipy_default_before")
    what = f"argument {name!r}: scipy_default_before"
    if not kind.startswith("static"):
        raise SpecError(path, m.key_line("scipy_default_before"), f"{what} is for static arguments, which SciPy receives by name")
    if not before:
        raise SpecError(path, line, f"{what} must map at least one SciPy release to SciPy's default before it")
    pairs = []
    for _, version, value, at in _by_release(before, path, line, what):
        if value is not None:
            check_default(kind, value, path, at, name)
        pairs.append((version, value))
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
