"""Parameter derivatives at hard points (tests/hardpoints.py): each is within tolerance of mpmath, or NaN.

The references are stored in tests/data/hard_points.json (``tests/tools/hard_points.py --write``); the
table of PASS / NaN / FAIL per function is ``tests/tools/hard_points.py``. The points that still give a
finite wrong number are listed in ``hardpoints.KNOWN_WRONG`` and expected to fail (strictly: a fix must
take its point off that list).
"""
import json

import pytest

import hardpoints


def _verdicts(slow):
    return {hardpoints.key(entry): (verdict, got, ref) for entry, got, ref, verdict in hardpoints.results(slow)}


@pytest.fixture(scope="module")
def verdicts():
    return _verdicts(False)


@pytest.fixture(scope="module")
def slow_verdicts():
    return _verdicts(True)


def test_every_point_has_a_stored_reference():
    stored = json.loads(hardpoints.DATA.read_text())["references"]
    assert set(stored) == {hardpoints.key(e) for e in hardpoints.entries()}, \
        "run .venv/bin/python tests/tools/hard_points.py --write"
    assert hardpoints.KNOWN_WRONG <= set(stored)


@pytest.mark.parametrize("name", [
    pytest.param(hardpoints.key(e), marks=pytest.mark.xfail(strict=True, reason="a finite wrong number (issue 23, open)"))
    if hardpoints.key(e) in hardpoints.KNOWN_WRONG else hardpoints.key(e)
    for e in hardpoints.entries(slow=False)])
def test_right_or_nan(verdicts, name):
    verdict, got, ref = verdicts[name]
    assert verdict in ("PASS", "NaN"), f"{name}: {got!r}, mpmath {ref!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", [hardpoints.key(e) for e in hardpoints.entries(slow=True)])
def test_right_or_nan_slow(slow_verdicts, name):
    verdict, got, ref = slow_verdicts[name]
    assert verdict in ("PASS", "NaN"), f"{name}: {got!r}, mpmath {ref!r}"


# The gamma family's densities at x = inf: inf - inf in the formula, 0 in the limit (a special point at
# infinity in the spec). Each tuple: function, arguments, the differentiable positions.
_AT_INFINITY = [("gammainc", (2.5, "inf"), (0, 1)), ("gammainc", (0.5, "inf"), (0, 1)), ("gammainc", (30.0, "inf"), (0, 1)),
                ("gammaincc", (2.5, "inf"), (0, 1)), ("chdtr", (3.0, "inf"), (0, 1)), ("chdtrc", (3.0, "inf"), (0, 1)),
                ("gdtr", (1.5, 2.0, "inf"), (0, 2)), ("gdtrc", (1.5, 2.0, "inf"), (0, 2)),
                ("pdtr", (3.0, "inf"), (1,)), ("pdtrc", (3.0, "inf"), (1,))]


@pytest.mark.parametrize("name, args, positions", _AT_INFINITY, ids=lambda c: c if isinstance(c, str) else None)
def test_density_derivatives_vanish_at_infinity(name, args, positions):
    import jax
    import jax.numpy as jnp
    import numpy as np

    import jaxsci.special

    fn = getattr(jaxsci.special, name)
    args = tuple(jnp.float64(float(a)) for a in args)
    with jax.default_device(jax.devices("cpu")[0]):
        first, second = jax.jit(lambda *a: (jax.grad(fn, positions)(*a),
                                            jax.jacfwd(jax.grad(fn, positions), positions)(*a)))(*args)
    np.testing.assert_array_equal(np.abs(np.array(first)), 0.0)
    assert np.all(np.abs(np.array(second)) == 0.0), second
