"""Derivatives of the spheroidal wave functions and their characteristic values in c.

They depend on c through Flammer's characteristic value and expansion coefficients, an eigenvalue and
eigenvector of a three-term recurrence (DLMF 30.3, 30.8; Flammer, Spheroidal Wave Functions, 1957;
Zhang and Jin, Computation of Special Functions, 1996, chapter 15: SEGV, SDMN, ASWFA, RSWFP, RSWFO).
DLMF 30 gives no closed form of the c-derivative, so these are Ridders' extrapolated central
differences of SciPy's own values (kernels/numeric.py; Ridders, Adv. Eng. Software 4 (1982) 75-76),
with the tableau's error bound: NaN wherever the estimate exceeds 1e-9 (first order) or 1e-7 (second)
of the derivative.

SciPy evaluates a negative c as c = 0 (wrong, not NaN), and a central difference near c = 0 steps
there. The characteristic values and the angular functions depend on c only through c**2 (the
spheroidal equation DLMF 30.2.1 and Flammer's normalization), so their stencils use |c|, which is
exact; the radial functions (whose factor like j_n(c xi) is not even in c) are NaN at negative c, and
the tableau keeps the steps that stay at c >= 0.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

from .mathieu import _pair, _stacked
from .numeric import _partial

C = 2  # c is the third argument of every spheroidal function: (m, n, c, ...)


def _even_in_c(function):
    def even(*args):
        args = list(args)
        args[C] = np.abs(args[C])
        return function(*args)
    even.__name__ = function.__name__
    return even


def _nonnegative_c(function):
    """NaN at c < 0, where SciPy would compute with c = 0 (it is not called there)."""
    def nonnegative(*args):
        args = list(np.broadcast_arrays(*args))
        negative = args[C] < 0
        args[C] = np.where(negative, 1.0, args[C])
        return tuple(np.where(negative, np.nan, o) for o in function(*args))
    nonnegative.__name__ = function.__name__
    return nonnegative


def _cv_derivative(function, order):
    kernel = _partial(_even_in_c(function), C, order)
    suffix = "" if order == 1 else "2"
    kernel.__name__ = f"{function.__name__}_dc{suffix}"
    kernel.__doc__ = (f"d{suffix}/dc{suffix} of scipy.special.{function.__name__} (even in c): Ridders' extrapolated "
                      f"central differences, NaN where the error estimate exceeds {'1e-9' if order == 1 else '1e-7'}.")
    return kernel


def _function_derivative(function, order, even):
    wrapped = _even_in_c(function) if even else _nonnegative_c(function)
    suffix = "" if order == 1 else "2"
    return _pair(_partial(_stacked(wrapped), C, order), f"{function.__name__}_dc{suffix}",
                 f"d{suffix}/dc{suffix} of both outputs of scipy.special.{function.__name__}: Ridders' extrapolated "
                 f"central differences, NaN where the error estimate exceeds {'1e-9' if order == 1 else '1e-7'}.")


obl_cv_dc = _cv_derivative(sc.obl_cv, 1)
obl_cv_dc2 = _cv_derivative(sc.obl_cv, 2)
pro_cv_dc = _cv_derivative(sc.pro_cv, 1)
pro_cv_dc2 = _cv_derivative(sc.pro_cv, 2)
obl_ang1_dc = _function_derivative(sc.obl_ang1, 1, even=True)
obl_ang1_dc2 = _function_derivative(sc.obl_ang1, 2, even=True)
pro_ang1_dc = _function_derivative(sc.pro_ang1, 1, even=True)
pro_ang1_dc2 = _function_derivative(sc.pro_ang1, 2, even=True)
obl_rad1_dc = _function_derivative(sc.obl_rad1, 1, even=False)
obl_rad1_dc2 = _function_derivative(sc.obl_rad1, 2, even=False)
pro_rad1_dc = _function_derivative(sc.pro_rad1, 1, even=False)
pro_rad1_dc2 = _function_derivative(sc.pro_rad1, 2, even=False)
obl_rad2_dc = _function_derivative(sc.obl_rad2, 1, even=False)
obl_rad2_dc2 = _function_derivative(sc.obl_rad2, 2, even=False)
pro_rad2_dc = _function_derivative(sc.pro_rad2, 1, even=False)
pro_rad2_dc2 = _function_derivative(sc.pro_rad2, 2, even=False)
