"""theta-derivatives of the spherical Legendre functions, one order per element.

``sph_legendre_p_dtheta(n, m, theta, d)`` is d^d/dtheta^d Y_n^m(theta, 0), SciPy's
``sph_legendre_p(n, m, theta, diff_n=2)[d]`` for d = 0, 1, 2, taken element by element (d is an array
like the others). The rules of ``sph_legendre_p_all`` call it for the orders next to the ones its output
holds (the angular-momentum ladder in the order needs Y_j^(k+-1), and |k| = m has a neighbour outside
the output), at the derivative order of each output position; its own theta-rule is the same ladder,
so it is differentiable to every order without a division by sin(theta).
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

__all__ = ["sph_legendre_p_dtheta"]

_SCIPY_ORDERS = 2  # SciPy's sph_legendre_p computes the derivatives up to diff_n = 2


def sph_legendre_p_dtheta(n, m, theta, d):
    """d^d/dtheta^d of SciPy's sph_legendre_p(n, m, theta), elementwise; NaN for d outside 0..2."""
    n, m, theta, d = np.broadcast_arrays(*(np.asarray(v) for v in (n, m, theta, d)))
    theta = theta.astype(np.float64)
    order = np.asarray(d, dtype=np.float64)
    valid = (order == np.floor(order)) & (order >= 0) & (order <= _SCIPY_ORDERS)
    stacked = sc.sph_legendre_p(n, m, theta, diff_n=_SCIPY_ORDERS)  # (3, *shape)
    picked = np.take_along_axis(stacked, np.where(valid, order, 0).astype(np.intp)[None], axis=0)[0]
    return np.where(valid, picked, np.nan)
