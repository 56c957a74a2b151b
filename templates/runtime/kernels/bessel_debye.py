"""Large-order forms of the Bessel functions and their derivatives in the order (first and second).

Debye's expansions (DLMF 10.19.3, 10.19.6 for J and Y, 10.41.3-10.41.4 for I and K) are explicit in the
order, so they are evaluated here in truncated Taylor arithmetic in v (``Jet``: a value and its first
two v-derivatives, propagated exactly through every operation): d/dv and d2/dv2 come out of the same
formula, with no differencing. With W = sqrt(|v^2 -+ x^2|) each term U_k(p)/v^k is W^-k times a
polynomial in v^2/W^2, so the sums are finite at v = 0 too; for x >> v they turn into Hankel's
expansions (DLMF 10.17, 10.40) and for v >> x into the large-order limits, which is why one form
serves large orders at any x off the turning point and moderate orders at large x.

Every result comes with an error bound: the last two terms kept (the series are asymptotic, and
DLMF 10.41(iv) bounds the remainder of the I/K series by a multiple of the first term left out) plus
the rounding of the polynomials and, for the oscillatory J, Y above the turning point, of the phase
xi ~ v. The callers keep a result only where that bound is below their target (1e-10 of the first
derivative, 1e-8 of the second) and fall back to another method, or NaN, elsewhere.
"""
from fractions import Fraction

import numpy as np

_PI = np.pi
_EPS = 2.2e-16
_TERMS = 24   # U_0 .. U_23


def _debye_polynomials(count):
    """Q_k with U_k(p) = p^k Q_k(p^2) (DLMF 10.41.10: U_{k+1} = p^2 (1 - p^2) U_k'/2 + int_0^p (1 - 5t^2) U_k/8),
    as float coefficients of powers of p^2, from exact rational arithmetic."""
    u = {0: Fraction(1)}
    out = [np.array([1.0])]
    for _ in range(count - 1):
        nxt = {}
        for e, c in u.items():
            if e:
                nxt[e + 1] = nxt.get(e + 1, 0) + c * e / 2
                nxt[e + 3] = nxt.get(e + 3, 0) - c * e / 2
            nxt[e + 1] = nxt.get(e + 1, 0) + c / (8 * (e + 1))
            nxt[e + 3] = nxt.get(e + 3, 0) - 5 * c / (8 * (e + 3))
        u = nxt
        k = len(out)
        out.append(np.array([float(u.get(k + 2 * j, 0)) for j in range(k + 1)]))
    return out


_Q = _debye_polynomials(_TERMS)


class Jet:
    """f, df/dv, d2f/dv2 as numpy arrays (real or complex); arithmetic by the chain and product rules."""
    __slots__ = ("f0", "f1", "f2")
    __array_ufunc__ = None   # ndarray op Jet defers to Jet's reflected operators

    def __init__(self, f0, f1, f2):
        self.f0, self.f1, self.f2 = f0, f1, f2

    @staticmethod
    def const(c):
        z = np.zeros_like(c)
        return Jet(c, z, z)

    def __add__(self, o):
        if isinstance(o, Jet):
            return Jet(self.f0 + o.f0, self.f1 + o.f1, self.f2 + o.f2)
        return Jet(self.f0 + o, self.f1, self.f2)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.f0, -self.f1, -self.f2)

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Jet):
            return Jet(self.f0 * o.f0, self.f1 * o.f0 + self.f0 * o.f1,
                       self.f2 * o.f0 + 2.0 * self.f1 * o.f1 + self.f0 * o.f2)
        return Jet(self.f0 * o, self.f1 * o, self.f2 * o)

    __rmul__ = __mul__

    def chain(self, g0, g1, g2):
        """g(self) for a function g with g(f0), g'(f0), g''(f0) given."""
        return Jet(g0, g1 * self.f1, g1 * self.f2 + g2 * self.f1 * self.f1)

    def reciprocal(self):
        r = 1.0 / self.f0
        return self.chain(r, -r * r, 2.0 * r * r * r)

    def __truediv__(self, o):
        return self * (o.reciprocal() if isinstance(o, Jet) else 1.0 / o)

    def exp(self):
        e = np.exp(self.f0)
        return self.chain(e, e, e)

    def log(self):
        r = 1.0 / self.f0
        return self.chain(np.log(self.f0), r, -r * r)

    def sqrt(self):
        s = np.sqrt(self.f0)
        return self.chain(s, 0.5 / s, -0.25 / (s * self.f0))

    def magnitude(self):
        """|f0|, |f1|, |f2|: the jet of an error bound."""
        return Jet(np.abs(self.f0), np.abs(self.f1), np.abs(self.f2))

    def components(self):
        return (self.f0, self.f1, self.f2)


def _order(v):
    return Jet(v, np.ones_like(v), np.zeros_like(v))


def _sum_terms(winv, q, sign):
    """sum_k sign^k winv^k Q_k(q) (winv, q Jets, sign +-1 or +-1j) with a bound on its error: the
    magnitudes of the last two terms plus the rounding of every polynomial."""
    total = Jet.const(np.ones_like(q.f0 * winv.f0))
    power = Jet.const(np.ones_like(total.f0))
    aq = np.abs(q.f0)
    rounding = np.zeros(q.f0.shape)
    last = []
    for k in range(1, _TERMS):
        power = power * winv * sign
        coeffs = _Q[k]
        poly = Jet.const(np.full_like(q.f0, coeffs[-1]))
        size = np.full(q.f0.shape, abs(coeffs[-1]))
        for c in coeffs[-2::-1]:
            poly = poly * q + c
            size = size * aq + abs(c)
        term = power * poly
        total = total + term
        rounding = rounding + 4.0 * k * _EPS * size * np.abs(power.f0)
        last = (last + [term.magnitude()])[-2:]
    bound = last[0] + last[1]
    # the rounding of each polynomial, carried to the derivatives at the size of the term's own
    r = Jet(rounding, rounding * (1.0 + np.abs(winv.f1 / winv.f0)), rounding * (1.0 + np.abs(winv.f1 / winv.f0)) ** 2)
    return total, bound + r


def _bound_product(a, b):
    """A bound on the error of a*b's jet from the magnitudes of the factors' jets (both Jets of >= 0)."""
    return Jet(a.f0 * b.f0, a.f1 * b.f0 + a.f0 * b.f1, a.f2 * b.f0 + 2.0 * a.f1 * b.f1 + a.f0 * b.f2)


def _sinpi_jet(nu):
    """sin(pi nu) and cos(pi nu) as Jets in v, exact at integers (nu = nu(v) a Jet with nu'' = 0)."""
    n = np.round(nu.f0)
    r = nu.f0 - n
    sgn = np.where(np.mod(n, 2.0) == 0, 1.0, -1.0)
    s = sgn * np.sin(_PI * r)
    c = sgn * np.cos(_PI * r)
    d = _PI * nu.f1
    return Jet(s, c * d, -s * d * d), Jet(c, -s * d, -c * d * d)


# ----------------------------------------------------------------------------------------------
# I and K (DLMF 10.41.3-10.41.4): no turning point, valid at every x > 0 once sqrt(v^2 + x^2) is large


def ik_positive(nu, x, scaled):
    """(I, I's error), (K, K's error) as Jets in v for the order nu = nu(v) >= 0 (a Jet), x > 0.

    log I = W - nu asinh(nu/x) - log(2 pi W)/2 + log sum_k U_k(p)/nu^k, W = sqrt(nu^2 + x^2), p = nu/W
    (DLMF 10.41.3 with z = x/nu: nu eta = W - nu asinh(nu/x)); K alike with the signs of DLMF 10.41.4.
    ``scaled``: I e^-x and K e^x (ive, kve), with W - x formed as nu^2/(W + x)."""
    w = (nu * nu + x * x).sqrt()
    asinh = np.arcsinh(nu.f0 / x)
    # d/dnu [W - nu asinh(nu/x)] = -asinh(nu/x), d2/dnu2 = -1/W: written out, as the difference
    # nu/W - nu/W of the chain rule would lose digits
    if scaled:
        grow0 = nu.f0 * nu.f0 / (w.f0 + x) - nu.f0 * asinh
    else:
        grow0 = w.f0 - nu.f0 * asinh
    grow = Jet(grow0, -asinh, -1.0 / w.f0)
    grow = Jet(grow.f0, grow.f1 * nu.f1, grow.f2 * nu.f1 * nu.f1 + grow.f1 * nu.f2)
    winv = w.reciprocal()
    q = nu * nu * winv * winv
    si, ei = _sum_terms(winv, q, 1.0)
    sk, ek = _sum_terms(winv, q, -1.0)
    half_log_w = w.log() * 0.5
    pre_i = (grow - half_log_w - 0.5 * np.log(2.0 * _PI)).exp()
    pre_k = (-grow - half_log_w + 0.5 * np.log(_PI / 2.0)).exp()
    i_jet = pre_i * si
    k_jet = pre_k * sk
    i_err = _bound_product(pre_i.magnitude(), ei)
    k_err = _bound_product(pre_k.magnitude(), ek)
    # At orders below 2 the expansion is Hankel's (DLMF 10.40.1), which leaves out an exponentially
    # small part of the size of K (DLMF 10.40.5): at v = 0 it gives dI/dv = 0 for -K_0(x). Count it.
    small = _bound_product(pre_k.magnitude(), sk.magnitude()) * np.where(nu.f0 < 2.0, 1.0, 0.0)
    i_err = i_err + (small * np.exp(-2.0 * x) if scaled else small)
    return (i_jet, i_err), (k_jet, k_err)


def ik(v, x, scaled=False):
    """(I_v(x), error), (K_v(x), error) as Jets in v for real v, x > 0 (e^-x I and e^x K when scaled);
    negative orders by I_{-nu} = I_nu + (2/pi) sin(nu pi) K_nu and K_{-nu} = K_nu (DLMF 10.27.2-10.27.3)."""
    neg = v < 0
    nu = Jet(np.abs(v), np.where(neg, -1.0, 1.0), np.zeros_like(v))
    (i_jet, i_err), (k_jet, k_err) = ik_positive(nu, x, scaled)
    if neg.any():
        s, _ = _sinpi_jet(nu)
        kk = k_jet * np.exp(-2.0 * x) if scaled else k_jet
        ke = k_err * np.exp(-2.0 * x) if scaled else k_err
        refl = i_jet + s * kk * (2.0 / _PI)
        refl_err = i_err + _bound_product(s.magnitude(), ke) * (2.0 / _PI) + refl.magnitude() * (8 * _EPS)
        i_jet = Jet(*(np.where(neg, a, b) for a, b in zip(refl.components(), i_jet.components())))
        i_err = Jet(*(np.where(neg, a, b) for a, b in zip(refl_err.components(), i_err.components())))
    return (i_jet, i_err), (k_jet, k_err)


# ----------------------------------------------------------------------------------------------
# J and Y (DLMF 10.19.3 below the turning point x = nu, 10.19.6 above it)


def _jy_below(nu, x):
    """(J, Y) with error Jets for 0 < x < nu: DLMF 10.19.3 with sech(alpha) = x/nu, W = nu tanh(alpha)
    = sqrt(nu^2 - x^2), nu (tanh alpha - alpha) = W - nu acosh(nu/x), coth(alpha) = nu/W."""
    w = (nu * nu - x * x).sqrt()
    acosh = np.log(nu.f0 + w.f0) - np.log(x)
    decay = Jet(w.f0 - nu.f0 * acosh, -acosh * nu.f1, -nu.f1 * nu.f1 / w.f0)
    winv = w.reciprocal()
    q = nu * nu * winv * winv
    sj, ej = _sum_terms(winv, q, 1.0)
    sy, ey = _sum_terms(winv, q, -1.0)
    half_log_w = w.log() * 0.5
    pre_j = (decay - half_log_w - 0.5 * np.log(2.0 * _PI)).exp()
    pre_y = -(-decay - half_log_w + 0.5 * np.log(2.0 / _PI)).exp()
    return ((pre_j * sj, _bound_product(pre_j.magnitude(), ej)),
            (pre_y * sy, _bound_product(pre_y.magnitude(), ey)))


def _jy_above(nu, x):
    """(J, Y) with error Jets for x > nu >= 0: DLMF 10.19.6 as H1 = J + iY
    = sqrt(2/(pi W)) e^{i xi} sum_k (-1)^k U_k(i cot beta)/nu^k, sec(beta) = x/nu, W = nu tan(beta)
    = sqrt(x^2 - nu^2), xi = W - nu acos(nu/x) - pi/4, U_k(i cot beta)/nu^k = (i/W)^k Q_k(-nu^2/W^2)."""
    w = (x * x - nu * nu).sqrt()
    beta = np.arccos(nu.f0 / x)
    xi = Jet(w.f0 - nu.f0 * beta - 0.25 * _PI, -beta * nu.f1, nu.f1 * nu.f1 / w.f0)
    winv = w.reciprocal()
    q = -(nu * nu * winv * winv)
    s, e = _sum_terms(winv, q, -1j)
    amp = (w * (_PI / 2.0)).reciprocal().sqrt()
    phase = Jet(np.exp(1j * xi.f0), 1j * xi.f1 * np.exp(1j * xi.f0),
                (1j * xi.f2 - xi.f1 * xi.f1) * np.exp(1j * xi.f0))
    h = amp * phase * s
    err = _bound_product(_bound_product(amp.magnitude(), phase.magnitude()), e)
    # the phase xi is known to about eps |xi|: a shift of the whole oscillation
    hm = h.magnitude()
    shift = (np.abs(xi.f0) + 1.0) * 4.0 * _EPS * (hm.f0 + hm.f1 + hm.f2)
    err = err + Jet(shift, shift, shift)
    return ((Jet(h.f0.real, h.f1.real, h.f2.real), err), (Jet(h.f0.imag, h.f1.imag, h.f2.imag), err))


def jy(v, x):
    """(J_v(x), error), (Y_v(x), error) as Jets in v for real v and x > 0, x != |v|; negative orders by
    J_{-nu} = cos(nu pi) J_nu - sin(nu pi) Y_nu, Y_{-nu} = sin(nu pi) J_nu + cos(nu pi) Y_nu (DLMF 10.4.7).
    Near the turning point the error bound is large and the caller must look elsewhere."""
    neg = v < 0
    a = np.abs(v)
    nu_all = Jet(a, np.where(neg, -1.0, 1.0), np.zeros_like(v))
    out = [[Jet(*(np.full(v.shape, np.nan) for _ in range(3))) for _ in range(2)] for _ in range(2)]
    for part, method in ((x < a, _jy_below), (x > a, _jy_above)):
        if not part.any():
            continue
        nu = Jet(*(c[part] for c in nu_all.components()))
        (jj, je), (yj, ye) = method(nu, x[part])
        for slot, jet in ((out[0][0], jj), (out[0][1], je), (out[1][0], yj), (out[1][1], ye)):
            slot.f0[part], slot.f1[part], slot.f2[part] = jet.f0, jet.f1, jet.f2
    (j_jet, j_err), (y_jet, y_err) = out
    if neg.any():
        s, c = _sinpi_jet(nu_all)
        j_ref = c * j_jet - s * y_jet
        y_ref = s * j_jet + c * y_jet
        je = _bound_product(c.magnitude(), j_err) + _bound_product(s.magnitude(), y_err)
        ye = _bound_product(s.magnitude(), j_err) + _bound_product(c.magnitude(), y_err)
        # the reflection's own rounding, at the size of its two parts
        jr = _bound_product(c.magnitude(), j_jet.magnitude()) + _bound_product(s.magnitude(), y_jet.magnitude())
        yr = _bound_product(s.magnitude(), j_jet.magnitude()) + _bound_product(c.magnitude(), y_jet.magnitude())
        je = je + jr * (4 * _EPS)
        ye = ye + yr * (4 * _EPS)
        pick = lambda a_, b_: Jet(*(np.where(neg, p, q) for p, q in zip(a_.components(), b_.components())))
        j_jet, j_err = pick(j_ref, j_jet), pick(je, j_err)
        y_jet, y_err = pick(y_ref, y_jet), pick(ye, y_err)
    return (j_jet, j_err), (y_jet, y_err)


def accepted(jet, err, tol1=1e-10, tol2=1e-8):
    """(f1, f2) of the Jet where the error bound meets the targets (relative 1e-10 for the first
    derivative, 1e-8 for the second: a bound, not an estimate, a tenth of what the kernels promise),
    NaN elsewhere."""
    with np.errstate(invalid="ignore"):
        f1 = np.where(err.f1 <= tol1 * np.abs(jet.f1), jet.f1, np.nan)
        f2 = np.where(err.f2 <= tol2 * np.abs(jet.f2), jet.f2, np.nan)
    return f1, f2
