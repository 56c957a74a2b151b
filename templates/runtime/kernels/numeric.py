"""The last-resort rule: Ridders' extrapolated central differences of SciPy itself, with an error bound.

For a parameter that no series, continued fraction or integral of ours covers yet (a Struve order,
a parabolic-cylinder order, ...), the derivative is taken from SciPy's own float64 values: central
differences at steps h, h/c, h/c², ... are extrapolated to h = 0 in a Neville tableau (the error of
a central difference is even in h), and each element keeps the entry whose successive differences
are smallest, as in Ridders, "Accurate computation of F'(x) and F'(x) F''(x)", Adv. Eng. Software 4
(1982), and the dfridr routine of Press et al., Numerical Recipes, 3rd ed., section 5.7.

The rule is never silently inaccurate: where the tableau's own error estimate exceeds the tolerance
(``FIRST_RTOL``, ``SECOND_RTOL`` of the larger of the derivative and the function value), the result
is NaN. Its accuracy over each spec's domain is checked against mpmath by the gradient suite like any
other rule.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

STEP = 0.125  # the first step, relative to max(1, |parameter|)
SHRINK = 1.6  # each step is the previous one / SHRINK
LEVELS = 7  # 2 * LEVELS SciPy evaluations for a first derivative, 2 * LEVELS + 1 for a second
FIRST_RTOL = 1e-9
SECOND_RTOL = 1e-7


def _as_arrays(args):
    arrays = [np.asarray(a) for a in args]
    kinds = [np.complex128 if np.iscomplexobj(a) else np.float64 for a in arrays]
    return [a.astype(k) for a, k in zip(arrays, kinds)]


def _tableau(difference, h0):
    """Neville extrapolation of ``difference(h)`` to h = 0, elementwise; (estimate, error estimate)."""
    previous_row = []
    h = h0
    for level in range(LEVELS):
        row = [difference(h)]
        if level == 0:
            best = np.full_like(row[0], np.nan)
            best_error = np.full(np.shape(row[0]), np.inf)
        factor = 1.0
        for j in range(1, level + 1):
            factor *= SHRINK ** 2
            row.append((row[j - 1] * factor - previous_row[j - 1]) / (factor - 1.0))
            error = np.maximum(np.abs(row[j] - row[j - 1]), np.abs(row[j] - previous_row[j - 1]))
            better = error < best_error  # NaN entries (a step left the domain) never win
            best = np.where(better, row[j], best)
            best_error = np.where(better, error, best_error)
        previous_row = row
        h = h / SHRINK
    return best, best_error


def _checked(estimate, error, value, rtol):
    scale = np.maximum(np.abs(estimate), np.abs(value))
    return np.where(error <= rtol * scale, estimate, np.nan)


def partial_derivative(function, index: int, order: int = 1):
    """d^order function / d args[index]^order by Ridders' method, for order 1 or 2."""

    def kernel(*args):
        with np.errstate(all="ignore"):
            arrays = np.broadcast_arrays(*_as_arrays(args))
            x = arrays[index]
            value = function(*arrays)
            h0 = STEP * np.maximum(1.0, np.abs(x))

            def at(shift):
                moved = list(arrays)
                moved[index] = x + shift
                return function(*moved)

            if order == 1:
                estimate, error = _tableau(lambda h: (at(h) - at(-h)) / (2 * h), h0)
                result = _checked(estimate, error, value, FIRST_RTOL)
            else:
                estimate, error = _tableau(lambda h: (at(h) - 2 * value + at(-h)) / (h * h), h0)
                result = _checked(estimate, error, value, SECOND_RTOL)
            return np.asarray(result)

    kernel.__name__ = f"{getattr(function, '__name__', 'f')}_d{index}{'' if order == 1 else order}"
    kernel.__doc__ = (f"d{'' if order == 1 else order} {getattr(function, '__name__', 'f')} / d(argument {index})"
                      f"{'' if order == 1 else order}: Ridders' extrapolated central differences of SciPy, NaN where "
                      f"the tableau's error estimate exceeds {FIRST_RTOL if order == 1 else SECOND_RTOL:g} of the scale.")
    return kernel


# d/dv and d²/dv² of the Struve functions H_v(x), L_v(x) (DLMF 11.2.1, 11.2.2: no closed form in v)
struve_dv = partial_derivative(sc.struve, 0)
struve_dv2 = partial_derivative(sc.struve, 0, order=2)
modstruve_dv = partial_derivative(sc.modstruve, 0)
modstruve_dv2 = partial_derivative(sc.modstruve, 0, order=2)
