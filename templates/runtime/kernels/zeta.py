"""Derivatives in the exponent of the Hurwitz and Riemann zeta functions (host kernels).

Method: the Euler-Maclaurin formula for the Hurwitz zeta function, differentiated in s term by term
(F. Johansson, "Rigorous high-precision computation of the Hurwitz zeta function and its
derivatives", Numer. Algorithms 69 (2015) 253-270, eq. (5); the same formula JAX's `zeta` JVP and
`jax.scipy.special.zeta` use):

    zeta(s, q) = sum_{k<N} (q+k)^-s + (q+N)^(1-s)/(s-1) + (q+N)^-s/2
                 + sum_{j=1..M} B_2j/(2j)! (s)_(2j-1) (q+N)^(-s-2j+1) + R_{N,M}

with N = 12 direct terms and M = 12 Bernoulli terms.  The remainder relative to (q+N)^-s is about
2 (s)_(2M+1) / (2 pi (q+N))^(2M+1), below 1e-10 for s <= 20 and far smaller relative to zeta itself
(which is >= q^-s) for every s > 1, q > 0.  The Pochhammer factor (s)_(2j-1) and its first two
s-derivatives are carried by the product rule, so the formula is differentiated exactly.

The formula is the analytic continuation of zeta(s, q) for s > -2M-1, so the Riemann kernels use it
with q = 1 for s >= -1; for s < -1 they use the functional equation (DLMF 25.4.1)
zeta(s) = chi(s) zeta(1-s), chi(s) = 2^s pi^(s-1) sin(pi s/2) Gamma(1-s), differentiated twice by the
product rule (Gamma'/Gamma = psi, DLMF 5.2.2 / 5.15.1), where zeta(1-s) has 1-s > 2.
"""

import numpy as np
from scipy import special as _sp

__all__ = ["zeta_dx", "zeta_dx2", "riemann_zeta_dx", "riemann_zeta_dx2", "zetac_dx", "zetac_dx2"]

_N = 12
_M = 12
# B_2j / (2j)!, j = 1..M (exact rationals rounded once to float64)
_B2J = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
        -174611 / 330, 854513 / 138, -236364091 / 2730]
_FACT = [1.0]
for _i in range(1, 2 * _M + 1):
    _FACT.append(_FACT[-1] * _i)
_BCOEF = [_B2J[j - 1] / _FACT[2 * j] for j in range(1, _M + 1)]


def _hurwitz_em(s, q, order):
    """(zeta, d/ds zeta, d2/ds2 zeta) of zeta(s, q) by Euler-Maclaurin; s, q float64 arrays.

    Valid (as the analytic continuation) for real s > -2M-1, s != 1, q > 0.  Entries of the returned
    tuple beyond `order` are None.
    """
    z0 = np.zeros_like(s)
    z1 = np.zeros_like(s)
    z2 = np.zeros_like(s)
    for k in range(_N):
        lk = np.log(q + k)
        t = np.exp(-s * lk)
        z0 += t
        t = t * lk
        z1 -= t
        if order >= 2:
            z2 += t * lk
    w = q + _N
    L = np.log(w)
    ww = np.exp(-s * L)                       # w^-s
    return _em_tail(s, w, L, ww, z0, z1, z2, order, _M)


def _em_tail(s, w, L, ww, z0, z1, z2, order, M):
    """Add the integral term, the half term and M Bernoulli terms of Euler-Maclaurin at w = q + N
    (L = log w, ww = w^-s) to the partial sums z0, z1, z2 (zeta and its s-derivatives)."""
    sm1 = s - 1.0
    inv = 1.0 / sm1
    # (w^(1-s)/(s-1)) and its derivatives
    a0 = w * ww * inv
    z0 += a0 + 0.5 * ww
    z1 += -a0 * (L + inv) - 0.5 * L * ww
    if order >= 2:
        z2 += a0 * (L * L + 2.0 * L * inv + 2.0 * inv * inv) + 0.5 * L * L * ww
    # Bernoulli tail: coef_j * P_j(s) * w^(-s-2j+1), P_j = (s)_(2j-1), scaled as P_j / w^(2j-1)
    P = s / w
    P1 = np.full_like(s, 1.0 / w)
    P2 = np.zeros_like(s)
    t0 = np.zeros_like(s)
    t1 = np.zeros_like(s)
    t2 = np.zeros_like(s)
    for j in range(1, M + 1):
        c = _BCOEF[j - 1]
        t0 += c * P
        t1 += c * P1
        if order >= 2:
            t2 += c * P2
        if j < M:
            for i in (2 * j - 1, 2 * j):
                f = (s + i) / w
                if order >= 2:
                    P2 = P2 * f + 2.0 * P1 / w
                P1 = P1 * f + P / w
                P = P * f
    # d/ds [T(s) w^-s] = (T' - L T) w^-s ; d2 = (T'' - 2 L T' + L^2 T) w^-s
    ok = ww > 0
    z0 += np.where(ok, t0 * ww, 0.0)
    z1 += np.where(ok, (t1 - L * t0) * ww, 0.0)
    if order >= 2:
        z2 += np.where(ok, (t2 - 2.0 * L * t1 + L * L * t0) * ww, 0.0)
    return z0, z1, (z2 if order >= 2 else None)


_LOGK = [float(np.log(k)) for k in range(1, 10)]          # log 1 .. log 9


def _riemann_em(s, order):
    """Euler-Maclaurin for zeta(s) = zeta(s, 1) with N = 8 direct terms, w = 9, M = 10 Bernoulli
    terms (remainder relative to zeta below 1e-16 for s >= 1.1 and below 1e-13 for -1 <= s < 1.1).

    The powers n^-s, n = 2..9, come from the primes 2, 3, 5, 7 (4 exponentials, products exact
    to a few ulps).
    """
    p2 = np.exp(-s * _LOGK[1])
    p3 = np.exp(-s * _LOGK[2])
    p5 = np.exp(-s * _LOGK[4])
    p7 = np.exp(-s * _LOGK[6])
    pw = {2: p2, 3: p3, 4: p2 * p2, 5: p5, 6: p2 * p3, 7: p7, 8: p2 * p2 * p2}
    z0 = 1.0 + p2 + p3 + pw[4] + p5 + pw[6] + p7 + pw[8]
    z1 = np.zeros_like(s)
    z2 = np.zeros_like(s)
    for n in range(2, 9):
        lk = _LOGK[n - 1]
        z1 -= lk * pw[n]
        if order >= 2:
            z2 += (lk * lk) * pw[n]
    w = 9.0
    L = _LOGK[8]
    ww = p3 * p3
    return _em_tail(s, w, L, ww, z0, z1, z2, order, 10)


_CHUNK = 8192


def _chunked(fn, *arrs):
    """fn over slices of 8192 elements: arrays of 64 KiB stay in the cache and in malloc's heap
    (larger temporaries are mmap'ed and page-faulted on every allocation, 2-4x slower)."""
    n = arrs[0].shape[0]
    if n <= _CHUNK:
        return fn(*arrs)
    out = np.empty(n)
    for i in range(0, n, _CHUNK):
        out[i:i + _CHUNK] = fn(*[a[i:i + _CHUNK] for a in arrs])
    return out


def _prep(*args):
    arrs = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrs])
    out = [np.broadcast_to(a.astype(np.float64, copy=False), shape).ravel() for a in arrs]
    return shape, out


def _hurwitz(x, q, order):
    with np.errstate(all="ignore"):
        shape, (s, qq) = _prep(x, q)
        res = np.full(s.shape, np.nan)
        good = (s > 1.0) & (qq > 0.0) & np.isfinite(s) & np.isfinite(qq)
        if np.any(good):
            res[good] = _chunked(lambda a, b: _hurwitz_em(a, b, order)[order], s[good], qq[good])
        # s == 1: zeta ~ 1/(s-1): the first derivative is -inf from both sides
        if order == 1:
            res[(s == 1.0) & (qq > 0)] = -np.inf
        # s = +inf: zeta(inf, q) = q^-inf: all derivatives 0 for q > 1
        big = (s == np.inf) & (qq > 1.0)
        res[big] = 0.0
        return res.reshape(shape)


def zeta_dx(x, q):
    """d/dx of the Hurwitz zeta function scipy.special.zeta(x, q), x > 1, q > 0.

    Euler-Maclaurin (Johansson 2015, eq. 5) differentiated in x; see the module docstring.
    NaN for x < 1, q <= 0, NaN inputs; -inf at x = 1.
    """
    return _hurwitz(x, q, 1)


def zeta_dx2(x, q):
    """d2/dx2 of the Hurwitz zeta function scipy.special.zeta(x, q), x > 1, q > 0.

    Euler-Maclaurin (Johansson 2015, eq. 5) differentiated twice in x.  NaN outside x > 1, q > 0.
    """
    return _hurwitz(x, q, 2)


def _sinpi_cospi(y):
    """sin(pi y), cos(pi y) with exact argument reduction (relative accuracy near the zeros)."""
    r = np.fmod(y, 2.0)                        # exact, in (-2, 2)
    r = np.where(r > 1.0, r - 2.0, r)
    r = np.where(r < -1.0, r + 2.0, r)         # [-1, 1]
    rs = np.where(r > 0.5, 1.0 - r, np.where(r < -0.5, -1.0 - r, r))
    sn = np.sin(np.pi * rs)
    a = np.abs(r)                              # cos is even; cos(pi a) = sin(pi (1/2 - a))
    cs = np.sin(np.pi * (0.5 - a))
    return sn, cs


def _riemann_fe(t, order):
    """zeta^(order)(t) for t < -1 by the functional equation DLMF 25.4.1 differentiated."""
    u = 1.0 - t                                           # > 2
    Z0, Z1, Z2 = _riemann_em(u, order)
    # d/dt zeta(1 - t) = -Z1, d2 = Z2
    # A(t) = (2 pi)^t / pi * Gamma(1 - t), computed in logs (Gamma(1-t) > 0 here)
    lg = _sp.gammaln(u)
    A = np.exp(t * np.log(2 * np.pi) - np.log(np.pi) + lg)
    g1 = np.log(2 * np.pi) - _sp.psi(u)                   # A'/A
    sn, cs = _sinpi_cospi(0.5 * t)
    h = 0.5 * np.pi
    S0, S1 = sn, h * cs
    chi0 = A * S0
    chi1 = A * (g1 * S0 + S1)
    if order == 1:
        return chi1 * Z0 - chi0 * Z1
    g2 = g1 * g1 + _sp.polygamma(1, u)                    # A''/A
    S2 = -h * h * sn
    chi2 = A * (g2 * S0 + 2.0 * g1 * S1 + S2)
    return chi2 * Z0 - 2.0 * chi1 * Z1 + chi0 * Z2


def _riemann(x, order):
    with np.errstate(all="ignore"):
        shape, (s,) = _prep(x)
        res = np.full(s.shape, np.nan)
        em = (s >= -1.0) & (s != 1.0) & np.isfinite(s)
        if np.any(em):
            res[em] = _chunked(lambda a: _riemann_em(a, order)[order], s[em])
        fe = (s < -1.0) & np.isfinite(s)
        if np.any(fe):
            res[fe] = _chunked(lambda a: _riemann_fe(a, order), s[fe])
        if order == 1:
            res[s == 1.0] = -np.inf
        res[s == np.inf] = 0.0
        return res.reshape(shape)


def riemann_zeta_dx(x):
    """zeta'(x) of the Riemann zeta function scipy.special.zeta(x) (q omitted), every real x != 1.

    x >= -1: Euler-Maclaurin with q = 1 (Johansson 2015, eq. 5), the analytic continuation.
    x < -1: the functional equation DLMF 25.4.1 differentiated by the product rule.
    -inf at x = 1 (zeta ~ 1/(x-1)); NaN for NaN; inf/-inf overflow for x < about -170 like zeta.
    """
    return _riemann(x, 1)


def riemann_zeta_dx2(x):
    """zeta''(x) of the Riemann zeta function, every real x != 1 (NaN at x = 1).

    Same methods as riemann_zeta_dx (Euler-Maclaurin for x >= -1, DLMF 25.4.1 below).
    """
    return _riemann(x, 2)


def zetac_dx(x):
    """d/dx scipy.special.zetac(x) = zeta'(x) (zetac = zeta - 1); see riemann_zeta_dx."""
    return _riemann(x, 1)


def zetac_dx2(x):
    """d2/dx2 scipy.special.zetac(x) = zeta''(x); see riemann_zeta_dx2."""
    return _riemann(x, 2)
