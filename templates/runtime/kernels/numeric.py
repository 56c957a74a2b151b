"""The last-resort rule: Ridders' extrapolated central differences of SciPy itself, with an error bound.

For a parameter that no series, continued fraction or integral of ours covers yet (a Struve order,
a parabolic-cylinder order, ...), the derivative is taken from SciPy's own float64 values: central
differences at steps h, h/c, h/c², ... are extrapolated to h = 0 in a Neville tableau (the error of
a central difference is even in h), and each element keeps the entry whose successive differences
are smallest, as in Ridders, "Accurate computation of F'(x) and F'(x) F''(x)", Adv. Eng. Software 4
(1982), and the dfridr routine of Press et al., Numerical Recipes, 3rd ed., section 5.7.

The rule is never silently inaccurate: where the tableau's own error estimate exceeds the tolerance
(``FIRST_RTOL``, ``SECOND_RTOL`` of the derivative, or of ``VALUE_FLOOR`` times the function value
where the derivative is smaller), the result is NaN. Its accuracy over each spec's domain is checked against mpmath by the gradient suite like any
other rule.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

STEP = 0.125  # the first step, relative to max(1, sqrt|parameter|): functions like P(a, x) vary on that scale
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


VALUE_FLOOR = 1e-3  # near a zero of the derivative, its scale is taken as this fraction of |f|


def _checked(estimate, error, value, rtol):
    # Relative to the derivative itself, not to f: where SciPy's own last digits are noisy in the
    # parameter (modstruve for negative orders and large x, 3e-11), a second difference can be off by
    # 1e-9 of f and still by 1e-5 of the derivative; that must be NaN, not a number.
    scale = np.maximum(np.abs(estimate), VALUE_FLOOR * np.abs(value))
    return np.where(error <= rtol * scale, estimate, np.nan)


def _per_output(kernel_of_one, function):
    """A kernel for each output of a function with several (SciPy's pbdv returns (d, dp)), as a tuple.
    The count is the ufunc's ``nout`` (1 for a Python function): calling SciPy to find it out would run
    it when this module is imported (ellip_harm warned there about truncating 0.5)."""
    outputs = getattr(function, "nout", 1)
    if outputs == 1:
        return kernel_of_one(function)
    parts = [kernel_of_one(lambda *a, k=k: function(*a)[k]) for k in range(outputs)]
    return lambda *args: tuple(part(*args) for part in parts)


def partial_derivative(function, index: int, order: int = 1, step=None):
    """d^order function / d args[index]^order by Ridders' method, for order 1 or 2; a tuple of them
    for a function with several outputs. ``step(arrays)``, if given, bounds the first step elementwise
    (a function with a branch point near the argument must not be differenced across it)."""
    kernel = _per_output(lambda f: _partial(f, index, order, step), function)
    kernel.__name__ = f"{getattr(function, '__name__', 'f')}_d{index}{'' if order == 1 else order}"
    kernel.__doc__ = (f"d{'' if order == 1 else order} {getattr(function, '__name__', 'f')} / d(argument {index})"
                      f"{'' if order == 1 else order}: Ridders' extrapolated central differences of SciPy, NaN where "
                      f"the tableau's error estimate exceeds {FIRST_RTOL if order == 1 else SECOND_RTOL:g} of the scale.")
    return kernel


def _partial(function, index: int, order: int, step=None):
    def kernel(*args):
        with np.errstate(all="ignore"):
            arrays = np.broadcast_arrays(*_as_arrays(args))
            x = arrays[index]
            value = function(*arrays)
            h0 = STEP * np.maximum(1.0, np.sqrt(np.abs(x)))
            if step is not None:
                h0 = np.minimum(h0, step(arrays))

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

    return kernel


# d/dv and d²/dv² of the Struve functions H_v(x), L_v(x) (DLMF 11.2.1, 11.2.2: no closed form in v)
struve_dv = partial_derivative(sc.struve, 0)
struve_dv2 = partial_derivative(sc.struve, 0, order=2)
modstruve_dv = partial_derivative(sc.modstruve, 0)
modstruve_dv2 = partial_derivative(sc.modstruve, 0, order=2)


def mixed_derivative(function, first: int, second: int):
    """d² function / d args[first] d args[second] by Ridders' method on the cross difference
    (f(+,+) - f(+,-) - f(-,+) + f(-,-)) / (4 h_1 h_2), both steps shrinking together (error even in h)."""

    def kernel(*args):
        with np.errstate(all="ignore"):
            arrays = np.broadcast_arrays(*_as_arrays(args))
            value = function(*arrays)
            x, y = arrays[first], arrays[second]
            hx, hy = STEP * np.maximum(1.0, np.sqrt(np.abs(x))), STEP * np.maximum(1.0, np.sqrt(np.abs(y)))

            def at(sx, sy):
                moved = list(arrays)
                moved[first], moved[second] = x + sx, y + sy
                return function(*moved)

            def cross(t):
                a, b = hx * t, hy * t
                return (at(a, b) - at(a, -b) - at(-a, b) + at(-a, -b)) / (4 * a * b)

            estimate, error = _tableau(cross, np.ones_like(hx))
            return np.asarray(_checked(estimate, error, value, SECOND_RTOL))

    kernel.__name__ = f"{getattr(function, '__name__', 'f')}_d{first}d{second}"
    kernel.__doc__ = (f"d² {getattr(function, '__name__', 'f')} / d(argument {first}) d(argument {second}): Ridders' "
                      f"extrapolated cross differences of SciPy, NaN where the error estimate exceeds {SECOND_RTOL:g}.")
    return kernel


# d/dv of the associated Legendre function P_v^m(x) in its degree (DLMF 14.11: series or integrals only)
lpmv_dv = partial_derivative(sc.lpmv, 1)
lpmv_dv2 = partial_derivative(sc.lpmv, 1, order=2)
# parameter derivatives of the classical orthogonal polynomials (for an integer degree, sums over all
# lower degrees whose length grows with n; for a float degree, hypergeometric parameter derivatives)
eval_jacobi_dalpha = partial_derivative(sc.eval_jacobi, 1)
eval_jacobi_dbeta = partial_derivative(sc.eval_jacobi, 2)
eval_jacobi_dalpha2 = partial_derivative(sc.eval_jacobi, 1, order=2)
eval_jacobi_dbeta2 = partial_derivative(sc.eval_jacobi, 2, order=2)
eval_jacobi_dalphadbeta = mixed_derivative(sc.eval_jacobi, 1, 2)
eval_sh_jacobi_dp = partial_derivative(sc.eval_sh_jacobi, 1)
eval_sh_jacobi_dq = partial_derivative(sc.eval_sh_jacobi, 2)
eval_sh_jacobi_dp2 = partial_derivative(sc.eval_sh_jacobi, 1, order=2)
eval_sh_jacobi_dq2 = partial_derivative(sc.eval_sh_jacobi, 2, order=2)
eval_sh_jacobi_dpdq = mixed_derivative(sc.eval_sh_jacobi, 1, 2)
eval_gegenbauer_dalpha = partial_derivative(sc.eval_gegenbauer, 1)
eval_gegenbauer_dalpha2 = partial_derivative(sc.eval_gegenbauer, 1, order=2)
eval_genlaguerre_dalpha = partial_derivative(sc.eval_genlaguerre, 1)
eval_genlaguerre_dalpha2 = partial_derivative(sc.eval_genlaguerre, 1, order=2)


# d/ds and d²/ds² of the ellipsoidal harmonic E^p_n(s) (DLMF 29.12, 29.18): a Lamé polynomial whose
# coefficients SciPy computes from an eigenvalue problem, so there is no closed form in its own values.
def _ellip_harm(h2, k2, n, p, s, signm, signn):
    return sc.ellip_harm(h2, k2, n, p, s, signm, signn)


def _ellip_harm_step(arrays):
    # E^p_n(s) carries the factors sqrt|s^2 - h^2| and sqrt|s^2 - k^2| (DLMF 29.12.1): branch points at
    # s = +-h, +-k, whose expansion about s has that radius; steps of a quarter of the distance keep the
    # differences' error series converging fast (a step of 0.22 at 0.27 from s = k left a NaN there)
    h2, k2, s = arrays[0], arrays[1], arrays[4]
    distance = np.min([np.abs(np.abs(s) - np.sqrt(np.abs(h2))), np.abs(np.abs(s) - np.sqrt(np.abs(k2)))], axis=0)
    return np.where(distance > 0, distance / 4, np.inf)


ellip_harm_ds = partial_derivative(_ellip_harm, 4, step=_ellip_harm_step)
ellip_harm_ds2 = partial_derivative(_ellip_harm, 4, order=2, step=_ellip_harm_step)


# d/dh2, d/dk2 (first, second and mixed) of the ellipsoidal harmonic of the second kind F^p_n(s) and of
# the normalization constant gamma^p_n: both are SciPy's quadratures over the Lamé polynomial, whose
# coefficients come from an eigenvalue problem in h2 and k2 (DLMF 29.12), so there is no closed form in
# SciPy's values. SciPy integrates to a relative 1e-15, smooth enough in h2 and k2 for the tableau (it
# agrees with order-8 differences of SciPy to 3e-12 at first order over the specs' test domains).
def _ellip_harm_2(h2, k2, n, p, s):
    return sc.ellip_harm_2(h2, k2, n, p, s)


def _ellip_normal(h2, k2, n, p):
    # SciPy's quadrature raises ValueError, for the whole call, where a limit sqrt(h2) or sqrt(k2) is NaN or
    # infinite, and a step of the tableau can take h2 below 0: those elements are NaN, the others computed
    h2, k2, n, p = np.broadcast_arrays(h2, k2, n, p)
    admitted = (h2 >= 0) & (k2 >= 0) & (h2 < np.inf) & (k2 < np.inf)
    result = np.full(h2.shape, np.nan)
    result[admitted] = sc.ellip_normal(h2[admitted], k2[admitted], n[admitted], p[admitted])
    return result


ellip_harm_2_dh2 = partial_derivative(_ellip_harm_2, 0)
ellip_harm_2_dk2 = partial_derivative(_ellip_harm_2, 1)
ellip_harm_2_dh2_2 = partial_derivative(_ellip_harm_2, 0, order=2)
ellip_harm_2_dk2_2 = partial_derivative(_ellip_harm_2, 1, order=2)
ellip_harm_2_dh2dk2 = mixed_derivative(_ellip_harm_2, 0, 1)
ellip_normal_dh2 = partial_derivative(_ellip_normal, 0)
ellip_normal_dk2 = partial_derivative(_ellip_normal, 1)
ellip_normal_dh2_2 = partial_derivative(_ellip_normal, 0, order=2)
ellip_normal_dk2_2 = partial_derivative(_ellip_normal, 1, order=2)
ellip_normal_dh2dk2 = mixed_derivative(_ellip_normal, 0, 1)
