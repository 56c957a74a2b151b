"""Bessel functions of large order at complex argument, with their first two order derivatives.

Olver's uniform expansions in Airy functions (DLMF 10.20.4-10.20.6), for nu > 0 and w = z/nu with
|ph w| <= pi/2,

    J_nu(nu w)  ~ phi [Ai(X) nu^-1/3 sum_k A_k(zeta)/nu^2k + Ai'(X) nu^-5/3 sum_k B_k(zeta)/nu^2k],
    Y_nu(nu w)  ~ -phi [the same with Bi, Bi'],
    H1,2_nu(nu w) ~ 2 e^-+pi i/3 phi [Ai(c X) nu^-1/3 sum A_k/nu^2k + c Ai'(c X) nu^-5/3 sum B_k/nu^2k],

X = nu^2/3 zeta, c = e^+-2 pi i/3, phi = (4 zeta/(1 - w^2))^1/4, (2/3) zeta^3/2 = ln((1 + sqrt(1 - w^2))/w)
- sqrt(1 - w^2) (DLMF 10.20.2), A_k and B_k from Debye's polynomials U_k (DLMF 10.20.10-10.20.11).
They hold uniformly in w, the turning point w = 1 included, so one formula serves every |z|/nu; each
function is expanded in its own Airy function, so none is formed as a cancelling sum of others (J
below the turning point, H1 in the upper half plane, are exponentially small beside Y). The order
enters through nu and through w = z/nu: the expansion is evaluated in truncated Taylor arithmetic in
the order (bessel_debye.Jet: a value and its first two derivatives, propagated exactly), which gives
d/dv and d2/dv2 with no differencing. The Airy functions come scaled (SciPy's airye, AMOS) with their
exponential folded into one factor, so nothing overflows before the result does.

Near the turning point, zeta(w), phi(w), A_k and B_k are analytic in t = 1 - w, while the closed forms
above cancel (B_6 holds zeta^-19 terms: at |t| = 1/4 it came out 1e3 off): for |t| < 1/2 they are
summed from Taylor series in t, whose coefficients are computed once at import from the closed forms on
the circle |t| = 0.7 by the discrete Fourier transform (Cauchy's integral formula by the trapezoidal
rule; the series converge for |t| < 1, w = 0 being the nearest singularity). At |t| = 1/2 the two
agree to 3e-3 in B_6, 1e-15 in zeta, and B_6 enters divided by nu^12.

Every result carries an error bound: the last two terms kept of the series in 1/nu^2 (A_5, B_5 and A_6,
B_6), as an absolute error; and a relative one, common to the value and its derivatives, for the
rounding of the exponent (eps times the sizes of its parts: at |z| ~ 3000, 1e-12) plus 1e-13 for the
Airy functions' and the coefficients' own. A linear combination with exact coefficients keeps the
relative part as it is and turns the absolute part of each term into the sum's (_combine). Callers keep
a derivative only where its bound is below 1e-10 (first) or 1e-8 (second) of it. Measured against
mpmath: within 3e-13 for |v| from 8 to 1000, |z|/|v| from 0.1 to 4, turning points included; the bound
is met at 95% of such points for |v| in 8 .. 10 and at all but a few beyond |v| = 12.

Other arguments and orders from these, each a linear combination whose coefficients' jets are exact:
I and K by DLMF 10.27.6 and 10.27.8 (J and H at -+iz, in the right half plane), the left half plane by
DLMF 10.11.1-10.11.4, negative orders by DLMF 10.4.7, 10.4.6, 10.27.2-10.27.3.
"""
from fractions import Fraction
from math import factorial

import numpy as np
from scipy import special as sc

from .bessel_debye import Jet, _EPS, _Q, _bound_product, _sinpi_jet, accepted

_PI = np.pi
_K = 6                 # A_0 .. A_6, B_0 .. B_6
_T_TAYLOR = 0.5        # |t| = |1 - z/nu| below which the Taylor series are used
_TAYLOR_TERMS = 72     # (1/2)^72 ~ 2e-22 of the coefficients' scale
_CIRCLE, _NODES = 0.7, 160
_FLOOR = 1e-13         # relative rounding of the Airy functions and of the coefficients


def _airy_constants(count):
    """u_k and v_k of DLMF 9.7.2: u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!), v_k = -(6k+1)/(6k-1) u_k."""
    u, v = [1.0], [1.0]
    for k in range(1, count):
        num = 1
        for m in range(2 * k + 1, 6 * k, 2):
            num *= m
        uk = Fraction(num, 216 ** k * factorial(k))
        u.append(float(uk))
        v.append(float(-Fraction(6 * k + 1, 6 * k - 1) * uk))
    return u, v


_UA, _VA = _airy_constants(2 * _K + 2)


def _debye_u(m, p, p2):
    """U_m(p) = p^m Q_m(p^2) (bessel_debye._Q) for a Jet p (p2 = p*p)."""
    coeffs = _Q[m]
    poly = Jet.const(np.full_like(p.f0, coeffs[-1]))
    for c in coeffs[-2::-1]:
        poly = poly * p2 + c
    for _ in range(m):
        poly = poly * p
    return poly


def _coefficients(zeta_half, p):
    """[A_0..A_K], [B_0..B_K] (DLMF 10.20.10-10.20.11) as Jets, from zeta^1/2 and p = (1 - w^2)^-1/2
    taken on matching branches (both positive for 0 < w < 1)."""
    zm = (zeta_half * zeta_half * zeta_half).reciprocal()      # zeta^-3/2
    powers = [Jet.const(np.ones_like(p.f0))]
    for _ in range(2 * _K + 1):
        powers.append(powers[-1] * zm)
    p2 = p * p
    u = [_debye_u(m, p, p2) for m in range(2 * _K + 2)]
    inv_half = zeta_half.reciprocal()
    a_list, b_list = [], []
    for k in range(_K + 1):
        a = Jet.const(np.zeros_like(p.f0))
        for j in range(2 * k + 1):
            a = a + powers[j] * u[2 * k - j] * (1.5 ** j * _VA[j])
        b = Jet.const(np.zeros_like(p.f0))
        for j in range(2 * k + 2):
            b = b + powers[j] * u[2 * k - j + 1] * (1.5 ** j * _UA[j])
        a_list.append(a)
        b_list.append(-(inv_half * b))
    return a_list, b_list


def _taylor_tables():
    """Taylor coefficients in t = 1 - w of zeta, phi, A_0..A_K, B_0..B_K about the turning point w = 1.

    On the circle |t| = _CIRCLE: r = sqrt(1 - w^2) = sqrt(t) sqrt(2 - t), (2/3) zeta^3/2 = sigma = ln((1 + r)/w) - r
    (DLMF 10.20.2), an odd function of sqrt(t) with sigma / t^3/2 analytic, so zeta = t (3 sigma /
    (2 t^3/2))^2/3 and zeta^1/2 = sqrt(t) (3 sigma / (2 t^3/2))^1/3 on the branch of sqrt(t) that r uses."""
    t = _CIRCLE * np.exp(2j * _PI * np.arange(_NODES) / _NODES)
    st = np.sqrt(t)
    r = st * np.sqrt(2.0 - t)
    sigma = np.log((1.0 + r) / (1.0 - t)) - r
    g = 1.5 * sigma / (t * st)
    zeta_over_t = g ** (2.0 / 3.0)
    zeta = t * zeta_over_t
    zeta_half = Jet.const(st * g ** (1.0 / 3.0))
    phi = (4.0 * zeta_over_t / (2.0 - t)) ** 0.25
    a_list, b_list = _coefficients(zeta_half, Jet.const(1.0 / r))
    rows = [zeta, phi] + [a.f0 for a in a_list] + [b.f0 for b in b_list]
    scale = _CIRCLE ** -np.arange(_TAYLOR_TERMS)
    out = []
    for values in rows:
        c = np.fft.fft(values)[:_TAYLOR_TERMS] / _NODES * scale
        out.append(c.real)   # real on -1 < t < 1: the imaginary parts are rounding
    return np.array(out)


_TAYLOR = _taylor_tables()


def _horner(coeffs, t):
    out = Jet.const(np.full_like(t.f0, coeffs[-1]))
    for c in coeffs[-2::-1]:
        out = out * t + c
    return out


def _power_jet(x, a):
    """x^a for a real positive Jet x."""
    y = x.f0 ** a
    return x.chain(y, a * y / x.f0, a * (a - 1.0) * y / (x.f0 * x.f0))


def _airy_jet(y, bi):
    """Ai(y(v)) and Ai'(y(v)) (Bi, Bi' when ``bi``) as Jets, scaled by exp(scale): returns the scaled
    Jets and the exponent ``scale`` they leave out (SciPy's airye: Ai e^(2/3 y^3/2), Bi e^-|Re(2/3 y^3/2)|)."""
    # on the negative real axis (J, Y above the turning point) the sign of a zero imaginary part picks
    # the side of the cut of y^3/2: +0 for both, so that the exponent left out is AMOS's own
    y_cut = np.where(y.f0.imag == 0, y.f0.real + 0j, y.f0)
    e_ai, e_aip, e_bi, e_bip = sc.airye(y_cut)
    expo = (2.0 / 3.0) * y_cut ** 1.5
    f, fp = (e_bi, e_bip) if bi else (e_ai, e_aip)
    scale = np.abs(expo.real) if bi else -expo
    y0, y1, y2 = y.components()
    value = Jet(f, fp * y1, y0 * f * y1 * y1 + fp * y2)            # (Ai)'' = y Ai
    slope = Jet(fp, y0 * f * y1, (f + y0 * fp) * y1 * y1 + y0 * f * y2)
    return value, slope, scale


def _zeta_direct(nu, z, nsig):
    """zeta, zeta^1/2 and zeta^1/4 as Jets away from the turning point, from nu sigma = nu ln((nu + R)/z) - R,
    R = sqrt(nu^2 - z^2); the phase of zeta is fixed by continuity from 0 < w < 1: in the upper
    quadrant (Im z >= 0) ph zeta is in (-pi, 0], so ph sigma = (3/2) ph zeta in (-3pi/2, 0]."""
    sig0 = nsig.f0 / nu.f0
    ph = np.angle(sig0)
    upper = ~np.signbit(z.imag)
    ph = np.where(upper & (ph > _PI / 4), ph - 2 * _PI, ph)
    ph = np.where(~upper & (ph < -_PI / 4), ph + 2 * _PI, ph)
    theta = ph * (2.0 / 3.0)
    psi = nsig * nu.reciprocal() * 1.5
    mag = np.abs(psi.f0)
    z0 = mag ** (2.0 / 3.0) * np.exp(1j * theta)
    zeta = psi.chain(z0, (2.0 / 3.0) * z0 / psi.f0, -(2.0 / 9.0) * z0 / (psi.f0 * psi.f0))
    h0 = mag ** (1.0 / 3.0) * np.exp(0.5j * theta)
    half = zeta.chain(h0, 0.5 / h0, -0.25 / (h0 * z0))
    q0 = mag ** (1.0 / 6.0) * np.exp(0.25j * theta)
    quarter = zeta.chain(q0, 0.25 * q0 / z0, -0.1875 * q0 / (z0 * z0))
    return zeta, half, quarter


_KINDS = {   # prefactor, rotation c of the Airy argument, factor of the Ai' term, Bi
    "j": (1.0, 1.0, 1.0, False),
    "y": (-1.0, 1.0, 1.0, True),
    "h1": (2.0 * np.exp(-1j * _PI / 3), np.exp(2j * _PI / 3), np.exp(2j * _PI / 3), False),
    "h2": (2.0 * np.exp(1j * _PI / 3), np.exp(-2j * _PI / 3), np.exp(-2j * _PI / 3), False),
}


def right_half(kinds, nu, z, shift):
    """{kind: (value, absolute error, relative error)} (Jets, as _combine takes them) for kind in
    ``kinds`` (of j, y, h1, h2) at nu > 0 (a Jet in v), complex z with Re z >= 0, z != 0, times
    exp(shift) (a complex array, constant in v)."""
    n = z.shape
    tz = 1.0 - z / nu.f0
    near = np.abs(tz) < _T_TAYLOR
    # nu - z as -(z - nu): a real minus a complex would give +0 for -0 imaginary parts, and on z > nu
    # the side of the cut must be z's own (the one _zeta_direct reads)
    r_big0 = np.sqrt(-(z - nu.f0)) * np.sqrt(z + nu.f0)
    with np.errstate(all="ignore"):
        log0 = np.log((nu.f0 + r_big0) / z)
    r_big = Jet(r_big0, nu.f0 / r_big0 * nu.f1, -z * z / r_big0 ** 3 * nu.f1 * nu.f1)
    nsig = Jet(nu.f0 * log0 - r_big0, log0 * nu.f1, nu.f1 * nu.f1 / r_big0)
    zeta = Jet(*(np.zeros(n, complex) for _ in range(3)))
    phi = Jet(*(np.zeros(n, complex) for _ in range(3)))
    a_list = [Jet(*(np.zeros(n, complex) for _ in range(3))) for _ in range(_K + 1)]
    b_list = [Jet(*(np.zeros(n, complex) for _ in range(3))) for _ in range(_K + 1)]

    def put(target, part, jet):
        target.f0[part], target.f1[part], target.f2[part] = jet.f0, jet.f1, jet.f2

    sub = lambda jet, part: Jet(*(c[part] for c in jet.components()))  # noqa: E731
    if near.any():
        nn = sub(nu, near)
        t = (nn.reciprocal() * z[near]) * -1.0 + 1.0
        put(zeta, near, _horner(_TAYLOR[0], t))
        put(phi, near, _horner(_TAYLOR[1], t))
        for k in range(_K + 1):
            put(a_list[k], near, _horner(_TAYLOR[2 + k], t))
            put(b_list[k], near, _horner(_TAYLOR[3 + _K + k], t))
    far = ~near
    if far.any():
        nn = sub(nu, far)
        zf, half, quarter = _zeta_direct(nn, z[far], sub(nsig, far))
        rb = sub(r_big, far)
        p = nn / rb
        a_f, b_f = _coefficients(half, p)
        put(zeta, far, zf)
        put(phi, far, quarter * (rb / nn).sqrt().reciprocal() * np.sqrt(2.0))
        for k in range(_K + 1):
            put(a_list[k], far, a_f[k])
            put(b_list[k], far, b_f[k])
    x = _power_jet(nu, 2.0 / 3.0) * zeta
    inv2 = _power_jet(nu, -2.0)
    third = _power_jet(nu, -1.0 / 3.0)
    five = _power_jet(nu, -5.0 / 3.0)
    terms_a, terms_b = [], []
    power = Jet.const(np.ones(n))
    for k in range(_K + 1):
        terms_a.append(a_list[k] * power)
        terms_b.append(b_list[k] * power)
        power = power * inv2
    out = {}
    sizes = np.abs(nsig.f0) + np.abs(nu.f0 * log0) + np.abs(r_big0) + np.abs(shift) + 1.0
    for kind in kinds:
        pre, c, d, bi = _KINDS[kind]
        ai, aip, scale = _airy_jet(x * c, bi)
        total = Jet.const(np.zeros(n, complex))
        last = []
        for ta, tb in zip(terms_a, terms_b):
            term = phi * (ai * third * ta + aip * five * tb * d) * pre
            total = total + term
            last = (last + [term.magnitude()])[-2:]
        factor = np.exp(scale + shift)
        value = total * factor
        err = (last[0] + last[1]) * np.abs(factor)
        # the rounding of the exponent (scale + shift and the Airy functions' own, which AMOS forms
        # from the same 2/3 X^3/2) is a common relative error of the value and its derivatives; that
        # of the exponent's derivatives (log((nu + R)/z), the Airy argument's) is at their own size
        rel0 = _FLOOR + 8.0 * _EPS * (sizes + np.abs(scale) + (1.0 + np.sqrt(np.abs(x.f0))) * nu.f0 ** (2.0 / 3.0))
        rel1 = _FLOOR + 8.0 * _EPS * (np.abs(log0) + (1.0 + np.sqrt(np.abs(x.f0))) * np.abs(x.f1) + 1.0)
        # a factor near the underflow threshold has lost digits (subnormal) or all of them: the value is
        # known only to be below 1e-280 of the unscaled sum, an absolute error that a larger term of a
        # combination (I_-v = I_v + (2/pi) sin(v pi) K_v of ive at z = 1800) leaves negligible
        tiny = np.where(np.abs(factor) < 1e-280, 1e-280, 0.0)
        tm = total.magnitude()
        err = err + Jet(tm.f0 * tiny, tm.f1 * tiny, tm.f2 * tiny)
        out[kind] = (value, err, Jet(rel0, rel1, rel1))
    return out


# ----------------------------------------------------------------------------------------------
# every z and every sign of the order, by linear relations with exact coefficient jets


def _combine(pairs):
    """sum_i c_i F_i for coefficient Jets c_i and results F_i = (value, absolute error, relative error),
    where the relative error is a Jet Delta with F_true = F (1 + Delta) + absolute error: the rounding
    of an exponent or phase, common to a value and its derivatives, which a product with an exact
    coefficient carries unchanged (J_nu(-iz) into I_nu(z)). A sum of several turns it into an absolute
    error at the size of the parts, plus the sum's own rounding (eps times the parts' sizes)."""
    terms = [(coef * val, coef.magnitude(), val, e, rel) for coef, (val, e, rel) in pairs]
    value = terms[0][0]
    for term in terms[1:]:
        value = value + term[0]
    err = None
    for product, cm, val, e, rel in terms:
        part = _bound_product(cm, e) + _bound_product(cm, val.magnitude()) * (4.0 * _EPS)
        if len(terms) > 1:
            part = part + _bound_product(product.magnitude(), rel)
        err = part if err is None else err + part
    rel = terms[0][4] if len(terms) == 1 else Jet.const(np.zeros(value.f0.shape))
    return value, err, rel


def _unit(nu, a, sign):
    """exp(sign i a pi nu) as a Jet (a = 1 or 1/2; sign an array of +-1), exact at integer a nu."""
    s, c = _sinpi_jet(nu * a)
    return c + s * (1j * sign)


def _where(mask, a, b):
    return Jet(*(np.where(mask, p, q) for p, q in zip(a.components(), b.components())))


def _scalar(value, like):
    return Jet.const(np.full(like.shape, value, dtype=complex))


def _jyh(kinds, nu, z, shift):
    """{kind: (value, errors)} of J, Y, H1, H2 (kinds) for nu > 0 at any z != 0: the right half plane
    directly, the left by DLMF 10.11.1-10.11.4 with z = u e^(m pi i), u = -z, m = 1 for Im z >= 0."""
    left = z.real < 0
    if not left.any():
        return right_half(kinds, nu, z, shift)
    u = np.where(left, -z.real - 1j * z.imag, z)
    need = set(kinds)
    if "y" in need:
        need.add("j")
    if need & {"h1", "h2"}:
        need |= {"h1", "h2"}
    base = right_half(sorted(need), nu, u, shift)
    m = np.where(z.imag >= 0, 1.0, -1.0)
    zero = _scalar(0.0, z)
    s, c = _sinpi_jet(nu)
    e_plus = _unit(nu, 1.0, m)        # e^(m nu pi i)
    e_minus = _unit(nu, 1.0, -m)
    up = m > 0
    rel = {
        "j": [(e_plus, "j")],
        "y": [(e_minus, "y"), (c * (2j * m), "j")],
        # H1(u e^(pi i)) = -e^(-nu pi i) H2(u); H1(u e^(-pi i)) = 2 cos(nu pi) H1(u) + e^(-nu pi i) H2(u)
        "h1": [(_where(up, zero, c * 2.0), "h1"), (_where(up, -_unit(nu, 1.0, -1.0), _unit(nu, 1.0, -1.0)), "h2")],
        # H2(u e^(pi i)) = 2 cos(nu pi) H2(u) + e^(nu pi i) H1(u); H2(u e^(-pi i)) = -e^(nu pi i) H1(u)
        "h2": [(_where(up, c * 2.0, zero), "h2"), (_where(up, _unit(nu, 1.0, 1.0), -_unit(nu, 1.0, 1.0)), "h1")],
    }
    out = {}
    for kind in kinds:
        direct = base[kind]
        combined = _combine([(coef, base[name]) for coef, name in rel[kind]])
        out[kind] = tuple(_where(left, a, b) for a, b in zip(combined, direct))
    return out


def _ik(kinds, nu, z, shift):
    """{kind: (value, errors)} of I, K for nu > 0 at any z != 0 (|ph z| <= pi): DLMF 10.27.6 and 10.27.8,
    I_nu(z) = e^(+-nu pi i/2) J_nu(z e^(-+pi i/2)), K_nu(z) = -+(pi i/2) e^(-+nu pi i/2) H2,1_nu(z e^(-+pi i/2)),
    upper signs for Im z >= 0, so that the argument u = -+iz is in the right half plane."""
    up = ~np.signbit(z.imag)
    u = np.where(up, z.imag - 1j * z.real, -z.imag + 1j * z.real)
    need = set()
    if "i" in kinds:
        need.add("j")
    if "k" in kinds:
        need |= {"h1", "h2"}
    base = right_half(sorted(need), nu, u, shift)
    sg = np.where(up, 1.0, -1.0)
    out = {}
    if "i" in kinds:
        out["i"] = _combine([(_unit(nu, 0.5, sg), base["j"])])
    if "k" in kinds:
        # up: -(pi i/2) e^(-nu pi i/2) H2(u); down: (pi i/2) e^(nu pi i/2) H1(u)
        coef = _unit(nu, 0.5, -sg) * (-0.5j * _PI * sg)
        out["k"] = tuple(_where(up, a, b) for a, b in zip(_combine([(coef, base["h2"])]), _combine([(coef, base["h1"])])))
    return out


def evaluate(which, v, z, shift):
    """(f, df/dv, d2f/dv2) of which = j, y, i, k, h1 or h2 at real v != 0 and complex z != 0 (finite),
    times exp(shift); each derivative NaN where its error bound misses 1e-10 (first) or 1e-8 (second)
    of it. Negative orders: J_-nu = cos(nu pi) J_nu - sin(nu pi) Y_nu, Y_-nu = sin(nu pi) J_nu +
    cos(nu pi) Y_nu (DLMF 10.4.7), H1_-nu = e^(nu pi i) H1_nu, H2_-nu = e^(-nu pi i) H2_nu (DLMF 10.4.6),
    I_-nu = I_nu + (2/pi) sin(nu pi) K_nu, K_-nu = K_nu (DLMF 10.27.2-10.27.3)."""
    neg = v < 0
    nu = Jet(np.abs(v), np.where(neg, -1.0, 1.0), np.zeros_like(v))
    with np.errstate(all="ignore"):
        if which in "ik":
            kinds = ("i", "k") if which == "i" and neg.any() else (which,)
            base = _ik(kinds, nu, z, shift)
        else:
            kinds = ("j", "y") if which in "jy" and neg.any() else (which,)
            base = _jyh(kinds, nu, z, shift)
        value, err, rel = base[which]
        if neg.any():
            s, c = _sinpi_jet(nu)
            one = _scalar(1.0, z)
            reflected = {
                "j": lambda: _combine([(c, base["j"]), (-s, base["y"])]),
                "y": lambda: _combine([(s, base["j"]), (c, base["y"])]),
                "h1": lambda: _combine([(_unit(nu, 1.0, 1.0), base["h1"])]),
                "h2": lambda: _combine([(_unit(nu, 1.0, -1.0), base["h2"])]),
                "i": lambda: _combine([(one, base["i"]), (s * (2.0 / _PI), base["k"])]),
                "k": lambda: (value, err, rel),
            }[which]()
            value, err, rel = (_where(neg, a, b) for a, b in zip(reflected, (value, err, rel)))
        d1, d2 = accepted(value, err + _bound_product(value.magnitude(), rel))
    return value.f0, d1, d2

