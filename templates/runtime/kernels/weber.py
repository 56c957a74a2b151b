"""Derivatives in the parameter a of the parabolic cylinder function W(a, x) (scipy.special.pbwa).

Method: W as the combination of the even and odd solutions of DLMF 12.14.1 in Kummer's function with
complex parameters (DLMF 12.14.4-12.14.6 with 12.7.14, 13.2.2; the form the spec's mpmath reference
uses):

    W(a, x) = c1 w1 - c2 w2,   c1 = 2^(-3/4) sqrt(G1 / G3),  c2 = 2^(-3/4) sqrt(2 G3 / G1),
    G1 = |Gamma(1/4 + ia/2)|,  G3 = |Gamma(3/4 + ia/2)|,
    w1 = Re[e M(p1, 1/2, z)],  w2 = x Re[e M(p2, 3/2, z)],  e = exp(-i x^2/4),  z = i x^2/2,
    p1 = 1/4 - ia/2,  p2 = 3/4 - ia/2,

and W'(a, x) from dM(p, q, z)/dz = (p/q) M(p+1, q+1, z) (DLMF 13.3.15).  Everything depends on a
through p (d/da = -(i/2) d/dp) and log G = Re loggamma(.) (d/da log G1 = -Im psi(1/4 + ia/2)/2,
d2/da2 = -Re psi'(1/4 + ia/2)/4).  The Kummer series sum_n (p)_n z^n / ((q)_n n!) is differentiated
in p term by term ((p)_n' = (p)_n S1, S1 = sum_{j<n} 1/(p+j); (p)_n'' = (p)_n (S1^2 - S2),
S2 = sum_{j<n} 1/(p+j)^2), 100 terms, in complex arithmetic.  The series' terms reach about
exp(x^2/2) before they fall, so the rounding error grows like 1e-16 exp(x^2/2); within SciPy's own
range abs(a), abs(x) <= 5 it is below about 1e-10 relative to the derivative (checked against mpmath:
first derivatives to 1e-11 and second to 1e-10 on [-4, 3] x [-4, 4]); outside that range the kernels
return NaN, as SciPy's pbwa does.
"""

import numpy as np
from scipy import special as _sp

__all__ = ["pbwa_da", "pbwa_da2"]

_NTERMS = 100
_LIMIT = 5.0


def _trigamma_c(z):
    """psi'(z) for complex z with Re z > 0: recurrence to Re z >= 10, then DLMF 5.15.8."""
    acc = np.zeros_like(z)
    for _ in range(10):
        small = z.real < 10.0
        acc = acc + np.where(small, 1.0 / (z * z), 0.0)
        z = np.where(small, z + 1.0, z)
    iz = 1.0 / z
    i2 = iz * iz
    return acc + iz * (1.0 + iz * (0.5 + iz * (1 / 6 + i2 * (-1 / 30 + i2 * (1 / 42 + i2 * (-1 / 30 + i2 * (5 / 66)))))))


def _kummer(p, q, z, order):
    """(M, dM/dp, d2M/dp2) of M(p, q, z) (complex p, z; real q > 0) by the series; entries past order are 0."""
    t = np.ones_like(z)
    m0, m1, m2 = t.copy(), np.zeros_like(z), np.zeros_like(z)
    s1 = np.zeros_like(z)
    s2 = np.zeros_like(z)
    for n in range(_NTERMS):
        r = 1.0 / (p + n)
        t = t * (p + n) * z / ((q + n) * (n + 1))
        s1 = s1 + r
        s2 = s2 + r * r
        m0 = m0 + t
        m1 = m1 + t * s1
        if order >= 2:
            m2 = m2 + t * (s1 * s1 - s2)
    return m0, m1, m2


def _pbwa(a, x, order):
    with np.errstate(all="ignore"):
        a = np.asarray(a).astype(np.float64, copy=False)
        x = np.asarray(x).astype(np.float64, copy=False)
        a, x = np.broadcast_arrays(a, x)
        shape = a.shape
        a, x = a.ravel(), x.ravel()             # 1-d: numpy's scalar and array loops round differently
        ok = (np.abs(a) <= _LIMIT) & (np.abs(x) <= _LIMIT)
        a = np.where(ok, a, 0.0)
        x = np.where(ok, x, 0.0)
        da = -0.5j                                           # dp/da
        z1, z3 = 0.25 + 0.5j * a, 0.75 + 0.5j * a
        lg1, lg3 = _sp.loggamma(z1).real, _sp.loggamma(z3).real
        half = 0.5 * (lg1 - lg3)
        k = 2.0 ** -0.75
        c1, c2 = k * np.exp(half), k * np.sqrt(2.0) * np.exp(-half)
        d1 = 0.5 * (-_sp.psi(z1).imag / 2 + _sp.psi(z3).imag / 2)    # d half / da
        d2 = 0.5 * (-_trigamma_c(z1).real / 4 + _trigamma_c(z3).real / 4) if order >= 2 else 0.0
        cs1 = (c1, c1 * d1, c1 * (d2 + d1 * d1))             # c1 and its a-derivatives
        cs2 = (c2, -c2 * d1, c2 * (d1 * d1 - d2))
        e = np.exp(-0.25j * x * x)
        z = 0.5j * x * x
        p1, p2 = 0.25 - 0.5j * a, 0.75 - 0.5j * a
        ma = _kummer(p1, 0.5, z, order)
        mb = _kummer(p1 + 1, 1.5, z, order)
        mc = _kummer(p2, 1.5, z, order)
        md = _kummer(p2 + 1, 2.5, z, order)
        scale = (1.0, da, da * da)                           # d^j/da^j = (dp/da)^j d^j/dp^j

        def dpj(m, j):
            return m[j] * scale[j]

        def prod(p, m, j):
            """d^j/da^j of p M for p = p0 - ia/2: Leibniz with dp/da = da."""
            if j == 0:
                return p * m[0]
            if j == 1:
                return da * m[0] + p * dpj(m, 1)
            return 2 * da * dpj(m, 1) + p * dpj(m, 2)

        # w1, w2, w1', w2' and their a-derivatives (j = 0, 1, 2)
        w1 = [np.real(e * dpj(ma, j)) for j in range(order + 1)]
        w2 = [x * np.real(e * dpj(mc, j)) for j in range(order + 1)]
        w1x = [np.real(e * (-0.5j * x * dpj(ma, j) + 2j * x * prod(p1, mb, j))) for j in range(order + 1)]
        w2x = [np.real(e * ((1 - 0.5j * x * x) * dpj(mc, j) + 2j * x * x / 3 * prod(p2, md, j))) for j in range(order + 1)]

        def combine(u1, u2):
            if order == 1:
                return cs1[1] * u1[0] + cs1[0] * u1[1] - cs2[1] * u2[0] - cs2[0] * u2[1]
            return (cs1[2] * u1[0] + 2 * cs1[1] * u1[1] + cs1[0] * u1[2]
                    - cs2[2] * u2[0] - 2 * cs2[1] * u2[1] - cs2[0] * u2[2])

        w = np.where(ok, combine(w1, w2), np.nan)
        wp = np.where(ok, combine(w1x, w2x), np.nan)
        return w.reshape(shape), wp.reshape(shape)


def pbwa_da(a, x):
    """(d/da W(a, x), d/da W'(a, x)) of scipy.special.pbwa, abs(a), abs(x) <= 5 (NaN elsewhere).

    The Kummer-series form of W (DLMF 12.14) differentiated in a term by term; see the module docstring.
    """
    return _pbwa(a, x, 1)


def pbwa_da2(a, x):
    """(d2/da2 W(a, x), d2/da2 W'(a, x)) of scipy.special.pbwa, abs(a), abs(x) <= 5 (NaN elsewhere)."""
    return _pbwa(a, x, 2)
