"""Derivatives of the spheroidal wave functions and their characteristic values in c.

They depend on c through Flammer's characteristic value and expansion coefficients, an eigenvalue and
eigenvector of a three-term recurrence (DLMF 30.3, 30.8; Flammer, Spheroidal Wave Functions, 1957;
Zhang and Jin, Computation of Special Functions, 1996, chapter 15: SEGV, SDMN, ASWFA, RSWFP, RSWFO).
DLMF 30 gives no closed form of the c-derivative.

- The characteristic values (obl_cv, pro_cv) and the angular functions (obl_ang1, pro_ang1): the
  eigenproblem in the normalized associated Legendre functions, differentiated by eigenvalue and
  eigenvector perturbation (below; kernels/mathieu.py's eigen_perturbation), with Ridders' rule on SciPy
  where that does not reproduce SciPy's own values.
- The radial functions: Ridders' extrapolated central differences of SciPy's own values
  (kernels/numeric.py; Ridders, Adv. Eng. Software 4 (1982) 75-76), with the tableau's error bound: NaN
  wherever the estimate exceeds 1e-9 (first order) or 1e-7 (second) of the derivative.

SciPy evaluates a negative c as c = 0 (wrong, not NaN), and a central difference near c = 0 steps
there. The characteristic values and the angular functions depend on c only through c**2 (the
spheroidal equation DLMF 30.2.1 and Flammer's normalization), so their stencils use |c|, which is
exact; the radial functions (whose factor like j_n(c xi) is not even in c) are NaN at negative c, and
the tableau keeps the steps that stay at c >= 0.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc
from scipy.special import gammaln

from .mathieu import _pair, _stacked, count_below, eigen_perturbation
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


_ridders_obl_cv_dc = _cv_derivative(sc.obl_cv, 1)
_ridders_obl_cv_dc2 = _cv_derivative(sc.obl_cv, 2)
_ridders_pro_cv_dc = _cv_derivative(sc.pro_cv, 1)
_ridders_pro_cv_dc2 = _cv_derivative(sc.pro_cv, 2)


# The characteristic values as eigenvalues. In the normalized associated Legendre functions p_l =
# P_l^m / |P_l^m| (l = m, m + 1, ...), the spheroidal operator -(d/dx)(1 - x^2)(d/dx) + m^2/(1 - x^2)
# + s c^2 x^2 (s = 1 prolate, -1 oblate: DLMF 30.2.1 with gamma^2 = s c^2, Flammer's lambda_mn = cv)
# is T(c) = diag(l (l + 1)) + s c^2 X2, where x p_l = alpha_l p_(l+1) + alpha_(l-1) p_(l-1) with
# alpha_l = sqrt(((l + 1)^2 - m^2) / ((2l + 1)(2l + 3))) (DLMF 14.10.3 normalized), so X2 = x^2 has
# the entries alpha_l^2 + alpha_(l-1)^2 on the diagonal and alpha_l alpha_(l+1) two places beside it:
# it keeps the parity of l - m, and within the parity of n - m the characteristic value cv_mn(c) is the
# ((n - m) // 2)-th eigenvalue (they are simple and ordered in n, Sturm-Liouville). With T' = 2 s c X2 and
# T'' = 2 s X2, eigen_perturbation (kernels/mathieu.py) gives d cv/dc = 2 s c <x^2> (Hellmann-Feynman)
# and d2 cv/dc2; the eigenvector comes from inverse iteration at SciPy's own cv, and where the
# eigenvalue found differs from SciPy's by more than 1e-9 of max(1, |cv|), or the truncation
# ((n - m)/2 + c + 24 terms, up to 256) does not suffice, Ridders' rule on SciPy stands in.
_CV_SIZES = (32, 64, 128, 256)


def _normalized_legendre(m, first, count, x):
    """p_l(x) and p_l'(x) for l = first, first + 2, ... (count of them), p_l = P_l^m / |P_l^m| without the
    Condon-Shortley phase, by the recurrence x p_l = alpha_l p_(l+1) + alpha_(l-1) p_(l-1) (DLMF 14.10.3)
    upward from p_m = sqrt((2m + 1) (2m)! / 2) / (2^m m!) (1 - x^2)^(m/2) (DLMF 14.7.10, 14.7.13); (batch, count)."""
    start = np.exp(0.5 * (np.log(2 * m + 1) - np.log(2.0) + gammaln(2 * m + 1)) - m * np.log(2.0) - gammaln(m + 1)
                   + 0.5 * m * np.log1p(-x * x))
    p_prev, dp_prev = np.zeros_like(x), np.zeros_like(x)
    p, dp = start, -m * x / (1 - x * x) * start
    offsets = (first - m).astype(np.intp)  # l = m + offsets + 2k is the k-th wanted
    values = np.zeros((m.shape[0], count))
    slopes = np.zeros((m.shape[0], count))
    every = np.arange(m.shape[0])
    for j in range(int(np.max(offsets, initial=0)) + 2 * count - 1):
        slot = (j - offsets) // 2
        take = (j >= offsets) & ((j - offsets) % 2 == 0) & (slot < count)
        values[every[take], slot[take]] = p[take]
        slopes[every[take], slot[take]] = dp[take]
        l = m + j
        a_l = np.sqrt(np.maximum((l + 1) ** 2 - m ** 2, 0) / ((2 * l + 1) * (2 * l + 3)))
        a_prev = np.sqrt(np.maximum(l ** 2 - m ** 2, 0) / ((2 * l - 1) * (2 * l + 1)))
        p_next = (x * p - a_prev * p_prev) / a_l
        dp_next = (p + x * dp - a_prev * dp_prev) / a_l
        p_prev, dp_prev, p, dp = p, dp, p_next, dp_next
    return values, slopes


def _spheroidal_eigen(m, n, c, sign, x=None):
    """(cv, cv', cv'') and, given x, (s, sp, s', sp', s'', sp'') of the angular function up to the constant
    factor fixed below (derivatives in c), for 1-d arrays; NaN where not handled."""
    out = np.full((3 if x is None else 9, m.shape[0]), np.nan)
    handled = np.zeros(m.shape[0], dtype=bool)
    valid = (np.isfinite(c) & (c >= 0) & (m >= 0) & (n >= m) & (m == np.floor(m)) & (n == np.floor(n))
             & (m <= 1000))
    if x is not None:
        valid &= np.abs(x) < 1
    need = np.where(valid, np.floor((n - m) / 2 + c + 24), np.inf)
    scipy_cv = (sc.pro_cv if sign > 0 else sc.obl_cv)
    previous = 0
    for size in _CV_SIZES:
        chosen = valid & (need <= size) & (need > previous)
        previous = size
        if not chosen.any():
            continue
        idx = np.nonzero(chosen)[0]
        ms, ns, cs = m[idx], n[idx], c[idx]
        parity = (ns - ms) % 2
        l = ms[:, None] + parity[:, None] + 2 * np.arange(size)[None]  # (batch, size)

        def alpha(k):
            return np.sqrt(np.maximum((k + 1) ** 2 - ms[:, None] ** 2, 0) / ((2 * k + 1) * (2 * k + 3)))

        diagonal = alpha(l) ** 2 + alpha(l - 1) ** 2
        beside = alpha(l[:, :-1]) * alpha(l[:, :-1] + 1)
        x2 = np.zeros((len(idx), size, size))
        rows = np.arange(size)
        x2[:, rows, rows] = diagonal
        x2[:, rows[:-1], rows[:-1] + 1] = beside
        x2[:, rows[:-1] + 1, rows[:-1]] = beside
        mat = x2 * (sign * cs ** 2)[:, None, None]
        mat[:, rows, rows] += l * (l + 1)
        approx = scipy_cv(ms, ns, cs)
        v, a, a1, v1, a2, v2 = eigen_perturbation(mat, x2 * (2 * sign * cs)[:, None, None], 2 * sign * x2, approx)
        # the eigenvalue found must be SciPy's and the ((n - m) // 2)-th of its parity; else NaN (handled)
        agree = np.abs(a - approx) <= 1e-9 * np.maximum(1.0, np.abs(approx))
        agree &= count_below(mat, a - 1e-8 * np.maximum(1.0, np.abs(a))) == (ns - ms) // 2
        handled[idx] = True
        rows_out = [a, a1, a2]
        if x is not None:
            # Flammer's normalization (Zhang and Jin's SDMN): S(c, 0) = P_n^m(0) for n - m even, S'(c, 0) =
            # P_n^m'(0) for n - m odd, a constant in c; so S = const * N(x) / D with N = sum v_l p_l(x),
            # D = sum v_l p_l(0) (or p_l'(0)), and the constant comes from SciPy's own value (below)
            at_x, slope_x = _normalized_legendre(ms, ms + parity, size, x[idx])
            at_0, slope_0 = _normalized_legendre(ms, ms + parity, size, np.zeros(len(idx)))
            ref = np.where(parity[:, None] == 0, at_0, slope_0)
            d0, d1, d2 = (np.sum(w * ref, axis=1) for w in (v, v1, v2))
            for basis in (at_x, slope_x):
                n0, n1, n2 = (np.sum(w * basis, axis=1) for w in (v, v1, v2))
                rows_out += [n0 / d0, (n1 * d0 - n0 * d1) / d0 ** 2,
                             n2 / d0 - 2 * n1 * d1 / d0 ** 2 - n0 * d2 / d0 ** 2 + 2 * n0 * d1 ** 2 / d0 ** 3]
            rows_out = rows_out[:3] + [rows_out[3], rows_out[6], rows_out[4], rows_out[7], rows_out[5], rows_out[8]]
        out[:, idx] = np.where(agree, np.array(rows_out), np.nan)
    return out, handled


def _cv_kernel(sign, order, ridders, name):
    def kernel(m, n, c):
        with np.errstate(all="ignore"):
            m, n, c = (np.asarray(a, dtype=np.float64) for a in (m, n, c))
            m, n, c = np.broadcast_arrays(m, n, c)
            shape = m.shape
            m, n, c = m.ravel(), n.ravel(), c.ravel()
            own, handled = _spheroidal_eigen(m, n, c, sign)
            result = own[order]
            fallback = ~handled & np.isfinite(c) & (c >= 0)
            if fallback.any():
                result[fallback] = ridders(m[fallback], n[fallback], c[fallback])
            return result.reshape(shape)
    kernel.__name__ = name
    kernel.__doc__ = (f"d{'' if order == 1 else order}/dc{'' if order == 1 else order} of scipy.special.{name[:6]}: "
                      f"the characteristic value as an eigenvalue in the Legendre basis, by eigenvalue perturbation.")
    return kernel


obl_cv_dc = _cv_kernel(-1, 1, _ridders_obl_cv_dc, "obl_cv_dc")
obl_cv_dc2 = _cv_kernel(-1, 2, _ridders_obl_cv_dc2, "obl_cv_dc2")
pro_cv_dc = _cv_kernel(1, 1, _ridders_pro_cv_dc, "pro_cv_dc")
pro_cv_dc2 = _cv_kernel(1, 2, _ridders_pro_cv_dc2, "pro_cv_dc2")
_ridders_obl_ang1_dc = _function_derivative(sc.obl_ang1, 1, even=True)
_ridders_obl_ang1_dc2 = _function_derivative(sc.obl_ang1, 2, even=True)
_ridders_pro_ang1_dc = _function_derivative(sc.pro_ang1, 1, even=True)
_ridders_pro_ang1_dc2 = _function_derivative(sc.pro_ang1, 2, even=True)


def _ang1_kernel(function, sign, order, ridders, name):
    """The angular function's c-derivative of the given order from the eigenvector's (_spheroidal_eigen),
    scaled by SciPy's own S(c, 0) (n - m even) or S'(c, 0) (odd), Flammer's c-independent normalization;
    where that does not reproduce SciPy's (s, sp) to 1e-8, Ridders' rule on SciPy stands in."""
    def kernel(m, n, c, x):
        with np.errstate(all="ignore"):
            m, n, c, x = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (m, n, c, x)))
            shape = m.shape
            m, n, c, x = m.ravel(), n.ravel(), c.ravel(), x.ravel()
            own, handled = _spheroidal_eigen(m, n, c, sign, x)
            wrong_branch = handled & np.isnan(own[0])
            own = own[3:]
            s, sp = function(m, n, c, x)
            at_0 = function(m, n, c, np.zeros_like(x))
            scale = np.where((n - m) % 2 == 0, at_0[0], at_0[1])
            size = np.hypot(s, sp)
            agree = (np.abs(scale * own[0] - s) <= 1e-8 * size) & (np.abs(scale * own[1] - sp) <= 1e-8 * size)
            ds = np.where(agree, scale * own[2 * order], np.nan)
            dsp = np.where(agree, scale * own[2 * order + 1], np.nan)
            fallback = ~agree & ~wrong_branch & np.isfinite(s)
            if fallback.any():
                ds[fallback], dsp[fallback] = ridders(m[fallback], n[fallback], c[fallback], x[fallback])
            return ds.reshape(shape), dsp.reshape(shape)
    kernel.__name__ = name
    kernel.__doc__ = (f"d{'' if order == 1 else order}/dc{'' if order == 1 else order} of both outputs of "
                      f"scipy.special.{function.__name__}: Legendre coefficients by eigenvector perturbation.")
    return kernel


obl_ang1_dc = _ang1_kernel(sc.obl_ang1, -1, 1, _ridders_obl_ang1_dc, "obl_ang1_dc")
obl_ang1_dc2 = _ang1_kernel(sc.obl_ang1, -1, 2, _ridders_obl_ang1_dc2, "obl_ang1_dc2")
pro_ang1_dc = _ang1_kernel(sc.pro_ang1, 1, 1, _ridders_pro_ang1_dc, "pro_ang1_dc")
pro_ang1_dc2 = _ang1_kernel(sc.pro_ang1, 1, 2, _ridders_pro_ang1_dc2, "pro_ang1_dc2")
obl_rad1_dc = _function_derivative(sc.obl_rad1, 1, even=False)
obl_rad1_dc2 = _function_derivative(sc.obl_rad1, 2, even=False)
pro_rad1_dc = _function_derivative(sc.pro_rad1, 1, even=False)
pro_rad1_dc2 = _function_derivative(sc.pro_rad1, 2, even=False)
obl_rad2_dc = _function_derivative(sc.obl_rad2, 1, even=False)
obl_rad2_dc2 = _function_derivative(sc.obl_rad2, 2, even=False)
pro_rad2_dc = _function_derivative(sc.pro_rad2, 1, even=False)
pro_rad2_dc2 = _function_derivative(sc.pro_rad2, 2, even=False)
