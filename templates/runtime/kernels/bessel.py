"""Derivatives of the Bessel functions jv, yv, iv, kv in their ORDER v (first and second order).

Each public kernel ``f_dv(v, z)`` / ``f_dv2(v, z)`` takes the arguments of ``scipy.special.f`` in the
same order, real ``v`` and real or complex ``z``, and returns float64 (complex128 for complex ``z``).

Methods (regime by regime; the notes file lists the measured errors):

* Ascending series differentiated in v (DLMF 10.2.2 for J, 10.25.2 for I):
  ``J_v(z) = (z/2)^v sum_k (-z^2/4)^k / (k! Gamma(v+k+1))``.  With ``a_k = 1/Gamma(v+k+1)`` and its two
  v-derivatives carried as a triple (forward recurrence ``a_{k+1} = a_k/(v+k+1)``, restarted from the
  reflection formula DLMF 5.5.3 wherever ``v+k+1`` is near a pole, so that integer and negative orders
  need no special case), ``dJ/dv = (z/2)^v (L S0 + S1)``, ``d2J/dv2 = (z/2)^v (L^2 S0 + 2 L S1 + S2)``,
  ``L = log(z/2)``.  Used for J and I where |z| is small enough that the alternating series loses
  at most ~4 digits (|z| <= 12), and for I at real z > 0 (no cancellation) up to z = 60.
* Schlaefli integrals for real z > 0 (DLMF 10.9.6 for J, 10.9.7 for Y), differentiated under the
  integral sign: a Gauss-Legendre rule on the finite theta-integral and a Gauss-Legendre rule on
  [0, T(v, z)] for the t-integral.  Used for Y at every real z > 0 and for J at real z > 12.
* K at real z > 0: dK/dv = int_0^inf t sinh(vt) exp(-z cosh t) dt (DLMF 10.32.9 differentiated), an even
  integrand, so the trapezoidal rule on [0, T] converges geometrically (Trefethen & Weideman, SIAM
  Review 56 (2014) 385, section 5).
* Complex z: K_v(z) by the contour integral of DLMF 10.32.9 rotated to t in [0, -i ph z] and then
  [-i ph z, -i ph z + inf) (the exponent exp(-z cosh t) decays without oscillation on the horizontal
  piece), again differentiated under the integral sign.  H^(1), H^(2) follow from K (DLMF 10.27.8),
  Y = (H1 - H2)/(2i), J = (H1 + H2)/2 (for J at |z| > 12), I from J (DLMF 10.27.6), and the left half
  plane from the continuation formulas DLMF 10.11.1-10.11.2 and 10.34.1-10.34.2.
* Large |z| (|z| > 45, beyond every spec domain): Hankel's expansions DLMF 10.17.3-10.17.6 and
  10.40.1-10.40.2 with their coefficients a_k(v) differentiated in v exactly.

Real z < 0: SciPy's real jv/iv are finite there only at integer v (J_n(-x) = (-1)^n J_n(x)); the kernels
return the derivative of the real part of the principal branch, i.e. of cos(v pi) J_v(|z|), which is
(-1)^n dJ/dv and (-1)^n (d2J/dv2 - pi^2 J) at v = n; NaN for non-integer v (and for Y, K at real z < 0,
where SciPy's real functions give NaN).  Complex z on the negative real axis follows SciPy (ph z = +pi).
"""
import numpy as np
from scipy import special as sc

__all__ = ["jv_dv", "jv_dv2", "yv_dv", "yv_dv2", "iv_dv", "iv_dv2", "kv_dv", "kv_dv2"]

_PI = np.pi
_TINY = 1e-300

# Gauss-Legendre nodes on [0, 1], computed once at import.
def _gl01(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return (x + 1.0) / 2.0, w / 2.0


_GL = {n: _gl01(n) for n in (24, 32, 40, 48, 64, 96)}


# ----------------------------------------------------------------------------------------------
# helpers


def _sinpi(x):
    n = np.round(x)
    r = x - n
    s = np.sin(_PI * r)
    return np.where(np.mod(n, 2.0) == 0, s, -s)


def _cospi(x):
    n = np.round(x)
    r = x - n
    c = np.cos(_PI * r)
    return np.where(np.mod(n, 2.0) == 0, c, -c)


def _rgamma3(x):
    """1/Gamma(x) and its first two derivatives; the reflection formula (DLMF 5.5.3) below 1/2."""
    x = np.asarray(x, dtype=np.float64)
    r0 = np.empty_like(x)
    r1 = np.empty_like(x)
    r2 = np.empty_like(x)
    hi = x >= 0.5
    if hi.any():
        xh = x[hi]
        p = sc.psi(xh)
        q = sc.polygamma(1, xh)
        g = sc.rgamma(xh)
        r0[hi] = g
        r1[hi] = -p * g
        r2[hi] = (p * p - q) * g
    lo = ~hi
    if lo.any():
        xl = x[lo]
        y = 1.0 - xl
        G = sc.gamma(y)
        p = sc.psi(y)
        q = sc.polygamma(1, y)
        s = _sinpi(xl)
        c = _cospi(xl)
        r0[lo] = G * s / _PI
        r1[lo] = G * (c - p * s / _PI)
        r2[lo] = G * ((p * p + q) * s / _PI - 2.0 * p * c - _PI * s)
    return r0, r1, r2


# ----------------------------------------------------------------------------------------------
# ascending series (J: sgn = -1, I: sgn = +1), DLMF 10.2.2 / 10.25.2 differentiated in v


def _series3(v, z, sgn, kmax=400):
    """Return (f, df/dv, d2f/dv2) of J_v(z) (sgn=-1) or I_v(z) (sgn=+1) by the ascending series.

    v: float64 array, z: float64 (> 0) or complex128 array of the same shape (z != 0).
    """
    cplx = np.iscomplexobj(z)
    dt = np.complex128 if cplx else np.float64
    n = v.size
    w = sgn * z * z / 4.0
    aw = np.abs(w)
    a0, a1, a2 = _rgamma3(v + 1.0)
    c = np.ones(n, dtype=dt)
    S0 = (c * a0).astype(dt)
    S1 = (c * a1).astype(dt)
    S2 = (c * a2).astype(dt)
    M = np.maximum(np.maximum(np.abs(a0), np.abs(a1)), np.abs(a2))
    idx = np.arange(n)
    vv, ww, aww = v, w, aw
    for k in range(kmax):
        if idx.size == 0:
            break
        xk = vv + (k + 1.0)
        near = np.abs(xk) < 0.5
        with np.errstate(all="ignore"):
            ix = 1.0 / xk
            n0 = a0 * ix
            n1 = (a1 - a0 * ix) * ix
            n2 = (a2 - 2.0 * n1) * ix
        if near.any():
            b0, b1, b2 = _rgamma3(xk[near] + 1.0)
            n0[near] = b0
            n1[near] = b1
            n2[near] = b2
        a0, a1, a2 = n0, n1, n2
        c = c * ww / (k + 1.0)
        t0 = c * a0
        t1 = c * a1
        t2 = c * a2
        S0[idx] += t0
        S1[idx] += t1
        S2[idx] += t2
        tm = np.maximum(np.maximum(np.abs(t0), np.abs(t1)), np.abs(t2))
        M = np.maximum(M, tm)
        # the remaining terms shrink by at least 1/2 per step once |w|/((k+2)(v+k+2)) <= 1/2
        ratio_ok = (xk + 1.0 > 0.5) & (aww <= 0.5 * (k + 2.0) * (xk + 1.0))
        done = (ratio_ok & (tm <= 1e-17 * M)) | ~np.isfinite(tm)
        if done.any():
            keep = ~done
            idx = idx[keep]
            vv, ww, aww = vv[keep], ww[keep], aww[keep]
            a0, a1, a2, c, M = a0[keep], a1[keep], a2[keep], c[keep], M[keep]
    if idx.size:
        S0[idx] = np.nan
    with np.errstate(all="ignore"):
        L = np.log(z / 2.0)
        P = np.exp(v * L)
        f0 = P * S0
        f1 = P * (L * S0 + S1)
        f2 = P * (L * (L * S0 + 2.0 * S1) + S2)
    return f0, f1, f2
