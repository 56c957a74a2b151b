"""Derivatives of besselpoly(a, lmb, nu) = int_0^1 x^lmb J_nu(2 a x) dx in lmb and nu (host kernels).

Method: the ascending series of J_nu (DLMF 10.2.2) integrated term by term,

    besselpoly(a, lmb, nu) = sum_k t_k,   t_k = c_k / D_k,
    c_k = (-1)^k a^(2k+nu) / (k! Gamma(k+nu+1)),   D_k = lmb + 2k + nu + 1,

(the series Cephes' besselpoly sums), differentiated term by term:

    d t/d lmb = -t / D,               d2 t/d lmb2 = 2 t / D^2,
    d t/d nu = t L,   L = log a - psi(k+nu+1) - 1/D,
    d2 t/d nu2 = t (L^2 - psi'(k+nu+1) + 1/D^2),   d2 t/d lmb d nu = -t (L - 1/D) / D.

The terms are summed until they fall below 1e-17 of the running sum (at most 300 terms).  The series
alternates, and its terms grow to about e^(2a) before they fall, so each kernel keeps the rounding
estimate 4 eps sum |term| and returns NaN where it exceeds 1e-10 of the result: for a <= 4 (the
spec's domain) it is below 1e-12 except next to zeros of the derivative.  Valid for a >= 0,
nu > -1, lmb + nu > -1 (NaN elsewhere).  At a = 0 every term with 2k + nu > 0 vanishes with its
derivatives; at a = 0, nu = 0 the derivatives in nu are infinite (a^nu log a), -inf (first) and
NaN (second).
"""

import numpy as np
from scipy import special as _sp

__all__ = ["besselpoly_dlmb", "besselpoly_dnu", "besselpoly_dlmb2", "besselpoly_dlmbdnu", "besselpoly_dnu2"]

_KMAX = 300
_EPS = np.finfo(np.float64).eps


def _series(a, lmb, nu, key):
    with np.errstate(all="ignore"):
        arrs = [np.asarray(v) for v in (a, lmb, nu)]
        shape = np.broadcast_shapes(*[v.shape for v in arrs])
        a, lmb, nu = [np.broadcast_to(v.astype(np.float64, copy=False), shape).ravel() for v in arrs]
        ok = (a >= 0) & (nu > -1) & (lmb + nu > -1) & np.isfinite(a) & np.isfinite(lmb) & np.isfinite(nu)
        out = np.full(a.shape, np.nan)
        if np.any(ok):
            out[ok] = _sum(a[ok], lmb[ok], nu[ok], key)
        return out.reshape(shape)


def _sum(a, lmb, nu, key):
    la = np.log(a)                      # -inf at a = 0
    zero_a = a == 0
    total = np.zeros_like(a)
    absum = np.zeros_like(a)
    active = np.ones(a.shape, bool)
    for k in range(_KMAX):
        e = 2 * k + nu
        # c_k = (-1)^k a^e / (k! Gamma(k+nu+1)), in logs; a^e = 0 for a = 0, e > 0
        mag = np.exp(e * la - _sp.gammaln(k + 1.0) - _sp.gammaln(k + nu + 1.0))
        mag = np.where(zero_a, np.where(e == 0, 1.0, 0.0), mag)
        d = lmb + e + 1.0
        t = (-1.0) ** k * mag / d
        if key == "l":
            term = -t / d
        elif key == "ll":
            term = 2.0 * t / (d * d)
        else:
            psi = _sp.psi(k + nu + 1.0)
            lg = np.where(zero_a & (e > 0), 0.0, la)        # t * log a -> 0 there (t = 0)
            L = lg - psi - 1.0 / d
            if key == "n":
                term = t * L
            elif key == "nn":
                term = t * (L * L - _sp.polygamma(1, k + nu + 1.0) + 1.0 / (d * d))
            else:                                            # "ln"
                term = -t * (L - 1.0 / d) / d
            term = np.where(zero_a & (e > 0), 0.0, term)
        term = np.where(active, term, 0.0)
        total += term
        absum += np.abs(term)
        # the terms fall once k^2 > a^2; stop an element when its term is negligible
        active &= ~((k * k > 4 * a * a) & (np.abs(term) <= 1e-17 * np.abs(total)))
        if not np.any(active):
            break
    bad = (4.0 * _EPS * absum > 1e-10 * np.abs(total)) & (absum > 0)
    return np.where(bad | active, np.nan, total)


def besselpoly_dlmb(a, lmb, nu):
    """d/dlmb scipy.special.besselpoly(a, lmb, nu): the integral of x^lmb log(x) J_nu(2 a x) over [0, 1].

    The series of J_nu integrated and differentiated term by term; see the module docstring.
    """
    return _series(a, lmb, nu, "l")


def besselpoly_dnu(a, lmb, nu):
    """d/dnu scipy.special.besselpoly(a, lmb, nu); see the module docstring."""
    return _series(a, lmb, nu, "n")


def besselpoly_dlmb2(a, lmb, nu):
    """d2/dlmb2 scipy.special.besselpoly(a, lmb, nu); see the module docstring."""
    return _series(a, lmb, nu, "ll")


def besselpoly_dlmbdnu(a, lmb, nu):
    """d2/dlmb dnu scipy.special.besselpoly(a, lmb, nu); see the module docstring."""
    return _series(a, lmb, nu, "ln")


def besselpoly_dnu2(a, lmb, nu):
    """d2/dnu2 scipy.special.besselpoly(a, lmb, nu); see the module docstring."""
    return _series(a, lmb, nu, "nn")
