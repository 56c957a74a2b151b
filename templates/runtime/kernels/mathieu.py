"""Parameter derivatives of the Mathieu functions in q.

ce_m, se_m, Mc/Ms(1), Mc/Ms(2) depend on q through their Fourier (or Bessel-product) expansion
coefficients, an eigenvector of a tridiagonal matrix (DLMF 28.4, 28.20(iii); Zhang and Jin,
Computation of Special Functions, 1996, chapter 20: FCOEF, MTU0, MTU12). DLMF 28 gives no closed form
of the q-derivative, so until a kernel differentiates the eigenproblem itself, these are Ridders'
extrapolated central differences of SciPy's own values (kernels/numeric.py; Ridders, Adv. Eng.
Software 4 (1982) 75-76), with the tableau's error bound: NaN wherever the estimate exceeds 1e-9
(first order) or 1e-7 (second) of the derivative. Both outputs of a function (value and
x-derivative) come from the same SciPy calls.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

from .numeric import _partial


def _stacked(function):
    """The function's outputs as one array (outputs first), so one tableau serves all of them."""
    def stacked(*args):
        return np.stack(np.broadcast_arrays(*function(*args)))
    return stacked


def _pair(kernel, name, doc):
    def pair(*args):
        result = kernel(*args)
        return result[0], result[1]
    pair.__name__, pair.__doc__ = name, doc
    return pair


def _derivative(function, index, what, order=1):
    """The ``order``-th derivative kernel (1 or 2) of a two-output SciPy function in argument ``index``."""
    name = function.__name__
    suffix = "" if order == 1 else "2"
    return _pair(_partial(_stacked(function), index, order), f"{name}_d{what}{suffix}",
                 f"d{suffix}/d{what}{suffix} of both outputs of scipy.special.{name}: Ridders' extrapolated central "
                 f"differences, NaN where the error estimate exceeds {'1e-9' if order == 1 else '1e-7'} of the derivative.")


mathieu_cem_dq = _derivative(sc.mathieu_cem, 1, "q")
mathieu_cem_dq2 = _derivative(sc.mathieu_cem, 1, "q", order=2)
mathieu_sem_dq = _derivative(sc.mathieu_sem, 1, "q")
mathieu_sem_dq2 = _derivative(sc.mathieu_sem, 1, "q", order=2)
mathieu_modcem1_dq = _derivative(sc.mathieu_modcem1, 1, "q")
mathieu_modcem1_dq2 = _derivative(sc.mathieu_modcem1, 1, "q", order=2)
mathieu_modcem2_dq = _derivative(sc.mathieu_modcem2, 1, "q")
mathieu_modcem2_dq2 = _derivative(sc.mathieu_modcem2, 1, "q", order=2)
mathieu_modsem1_dq = _derivative(sc.mathieu_modsem1, 1, "q")
mathieu_modsem1_dq2 = _derivative(sc.mathieu_modsem1, 1, "q", order=2)
mathieu_modsem2_dq = _derivative(sc.mathieu_modsem2, 1, "q")
mathieu_modsem2_dq2 = _derivative(sc.mathieu_modsem2, 1, "q", order=2)
