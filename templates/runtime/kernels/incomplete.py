"""Parameter derivatives of the regularised incomplete gamma and beta functions (host kernels).

Kernels (positional arguments in SciPy's order, float64 results of the broadcast shape):

* ``gammainc_da(a, x)``, ``gammainc_da2(a, x)``: d/da and d^2/da^2 of P(a, x) = ``scipy.special.gammainc``.
  (Q = 1 - P, so the derivatives of ``gammaincc`` are the negatives.)
* ``gamma_density(a, x)``, ``gamma_logdensity_da(a, x)``: d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) and
  d/da of its logarithm, log x - psi(a), both without the cancellation of their terms at large a; the
  x-derivatives of the gamma family (gammainc, gammaincc, chdtr, chdtrc, gdtr, gdtrc, pdtr, pdtrc) and so
  the implicit rules of their inverses.
* ``betainc_da``, ``betainc_db``, ``betainc_da2``, ``betainc_dadb``, ``betainc_db2`` (all ``(a, b, x)``):
  first and second derivatives of I_x(a, b) = ``scipy.special.betainc`` in a and b.

Methods (each kernel's docstring repeats the part it uses):

* Incomplete gamma, x < a + 1 + 2.5 sqrt(a+1) (Q >~ 3e-3, so the rounding loss of P - 1 stays below
  ~P/Q ulp): the power series P(a, x) = D * S with D = x^a e^-x / Gamma(a+1) and
  S = sum_k x^k Gamma(a+1)/Gamma(a+k+1) (DLMF 8.7.1, Numerical Recipes ``gser``; Gautschi 1979 as cited by
  Stan Math's ``grad_reg_lower_inc_gamma``), differentiated term by term in a: d/da log r_k = -H_k,
  H_k = sum_{j<=k} 1/(a+j) (= psi(a+k+1) - psi(a+1)), d^2/da^2 log r_k = sum 1/(a+j)^2 (trigamma
  differences).  XLA's ``IgammaSeries`` in DERIVATIVE mode (JAX ``igamma_grad_a``) differentiates the
  same series.
* Incomplete gamma, larger x: Legendre's continued fraction for Q(a, x) = x^a e^-x / Gamma(a) * f
  (DLMF 8.9.2, Numerical Recipes ``gcf``), f = 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))), whose
  partial numerators a_n = (n-1)(a-n+1) and denominators b_n = x+2n-1-a are polynomial in a; the
  forward recurrences A_n = b_n A_{n-1} + a_n A_{n-2} (and B_n) are differentiated exactly in a, and
  f', f'' follow from (A, A', A'', B, B', B'') -- the approach of XLA's ``IgammacContinuedFraction`` in
  DERIVATIVE mode (Stan Math's ``grad_reg_inc_gamma`` uses an asymptotic series in 1/z there instead).
  f, f', f'' are positive (f = int_0^inf e^-xu (1+u)^(a-1) log^k(1+u) du), so no cancellation; the
  prefactor is written as D ((a N1 + 1) f + a f') with N1 = log x - psi(a+1), finite as a -> 0.
* Incomplete beta: the continued fraction DLMF 8.17.22 (Numerical Recipes ``betacf``),
  I_x(a, b) = x^a (1-x)^b / (a B(a, b)) / (1 + d_1/(1 + d_2/(1 + ...))), evaluated where it converges fast,
  x < (a+1)/(a+b+2), and otherwise through I_x(a, b) = 1 - I_{1-x}(b, a) (DLMF 8.17.4).  The partial
  numerators d_n are rational in (a, b); their first and second partial derivatives are exact, and the
  forward recurrences for numerator and denominator are differentiated (dual numbers of order 2).  The CF
  keeps converging in O(sqrt(a+b)) steps near the mean x ~ a/(a+b) for large a + b, where the hypergeometric
  series used by Stan Math (``inc_beta_dda``, ``inc_beta_ddb``) and TFP (betainc gradients) slow down.
  The first partial numerator d_1 = -x(a+b)/(a+1) is differentiated in closed form, the log-derivatives
  of the prefactor use psi(a+1), psi'(a+1), and for a tiny first parameter the b-only derivatives take
  the other side of the symmetry (all three avoid O(1/a) cancellations as a -> 0).
* The prefactors x^a e^-x / Gamma(a+1) and x^a (1-x)^b / B(a, b) are computed for parameters >= 15 as
  exp(a log1pmx(u) + ...), log1pmx(u) = log(1+u) - u, with the Stirling remainder (Temme, "Special functions", 2.11; Boost's
  ``regularised_gamma_prefix`` / ``ibeta_power_terms``), so a, b ~ 1e3..1e5 keep their relative accuracy.

Elements outside the domain (a <= 0, b <= 0, x < 0, x > 1 for beta, NaN, infinite parameters) give NaN.
Derivatives at x = 0 (and x = inf for gamma, x = 1 for beta) are exactly 0.
"""

import numpy as np
from scipy import special as _sc

from . import hypergeometric as _hypergeometric

__all__ = [
    "gammainc_da", "gammainc_da2", "gamma_density", "gamma_logdensity_da",
    "betainc_da", "betainc_db", "betainc_da2", "betainc_dadb", "betainc_db2",
    "stdtr_ddf", "stdtr_ddf2",
]

_CHUNK = 8192          # elements per block (keeps the working set in cache)
# Convergence tests compare checkpoints 4 recurrence steps apart.  The forward recurrences carry
# rounding noise of a few ulp (values) and ~1e-14 (derivatives, relative to the terms they enter), so
# asking for less than that only makes the noise random-walk longer.
_TOL_F = 2e-15         # the fraction's value
_TOL_D = 2e-14         # its derivatives, relative to the size of the terms they are combined with
# at the iteration cap the tolerances are relaxed 1e4-fold; an element failing even that gives NaN
_LN_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


# ----------------------------------------------------------------------------------------- plumbing
def _as_real(v):
    v = np.asarray(v)
    if np.iscomplexobj(v):
        v = np.where(v.imag == 0, v.real, np.nan)
    if v.dtype.kind not in "fiub":
        v = v.astype(np.float64)
    return v


def _run(core, args, *extra):
    """Broadcast, flatten, evaluate ``core`` on float64 blocks of _CHUNK elements, reshape."""
    with np.errstate(all="ignore"):
        arrs = np.broadcast_arrays(*[_as_real(v) for v in args])
        shape = arrs[0].shape
        flat = [np.ascontiguousarray(v, dtype=np.float64).ravel() for v in arrs]
        size = flat[0].size
        out = np.empty(size, dtype=np.float64)
        for s in range(0, size, _CHUNK):
            out[s:s + _CHUNK] = core(*[v[s:s + _CHUNK] for v in flat], *extra)
        return out.reshape(shape)


def _stirlerr(a):
    """log Gamma(a+1) - (a+1/2) log a + a - log sqrt(2 pi)  (a > 0); Stirling series (DLMF 5.11.1,
    5.11.3) for a >= 10, where the first term left out, 3617/(122400 a^15), is below 3e-17."""
    out = np.empty_like(a)
    big = a >= 10.0
    ab = a[big]
    r = 1.0 / ab
    r2 = r * r
    out[big] = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 * (
        1.0 / 1188 - r2 * (691.0 / 360360 - r2 / 156.0))))))
    sm = ~big
    asm = a[sm]
    out[sm] = _sc.gammaln(asm + 1.0) - (asm + 0.5) * np.log(asm) + asm - _LN_SQRT_2PI
    return out


def _log1pmx(u):
    """log(1 + u) - u with relative accuracy for u > -1.  With t = u / (2 + u), log(1 + u) = 2 atanh(t)
    and u - 2 t = u t, so log(1 + u) - u = -u t + 2 (t^3/3 + t^5/5 + ...) (DLMF 4.6.4 with 4.37.24):
    two terms of the same sign for u < 0 and a ratio below u/6 for u > 0, so no cancellation where
    log1p(u) - u would lose |u| / |log1p(u) - u| ulp (1e3-fold at u = 2e-3, the 5-sigma point of
    a = 1e7).  16 terms of the series in t^2 <= 1/9 (u in [-1/2, 1]) reach 1e-17; outside that interval
    log1p(u) - u loses at most 3 ulp, and log of the ratio is used instead below u = -1/2."""
    u = np.asarray(u, dtype=np.float64)
    t = u / (2.0 + u)
    t2 = t * t
    series = np.full_like(u, 1.0 / 33)
    for k in range(15, 0, -1):
        series = 1.0 / (2 * k + 1) + t2 * series
    near = -u * t + 2.0 * t * t2 * series
    far = np.log1p(u) - u
    return np.where((u >= -0.5) & (u <= 1.0), near, far)


def _log_ratio_m1(y, a):
    """log(y/a) - (y-a)/a for y, a > 0.  Its absolute error is what matters, since the result is
    multiplied by a: log1pmx((y-a)/a) keeps it to a few ulp of the result near y ~ a, log(y/a) - u
    below y = a/2 (log1p(u) near u = -1 would amplify the rounding of u)."""
    u = (y - a) / a
    out = _log1pmx(u)
    far = u < -0.5
    out[far] = np.log(y[far] / a[far]) - u[far]
    return out


# Bernoulli numbers B_2 .. B_18 for the trigamma asymptotic series
_B2K = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510,
        43867.0 / 798)


def _trigamma(x):
    """psi'(x) for x > 0: psi'(x) = sum_{j<N} 1/(x+j)^2 + psi'(x+N) with N = 10 (fewer where x is
    already large), then the asymptotic series psi'(y) ~ 1/y + 1/(2y^2) + sum B_2k / y^(2k+1) at
    y >= 10 (DLMF 5.15.5, 5.15.8).  scipy's polygamma(1, .) costs about as much as gammainc itself."""
    x = np.asarray(x, dtype=np.float64)
    acc = np.zeros_like(x)
    y = x.copy()
    small = x < 10.0
    if small.any():
        xs = x[small]
        ys = xs.copy()
        accs = np.zeros_like(xs)
        t = np.empty_like(xs)
        for _ in range(10):   # no masks: extra shifts of elements already >= 10 are harmless
            np.multiply(ys, ys, out=t)
            np.divide(1.0, t, out=t)
            accs += t
            ys += 1.0
        acc[small] = accs
        y[small] = ys
    r = 1.0 / y
    r2 = r * r
    s = _B2K[-1]
    for c in _B2K[-2::-1]:
        s = c + r2 * s
    return acc + r * (1.0 + r * (0.5 + r * s))


# ----------------------------------------------------------------------------------- incomplete gamma
def _gamma_log_prefix(a, x, logx):
    """log(x^a e^-x / Gamma(a+1)): directly for a < 15, else as a log1pmx((x-a)/a) - log sqrt(2 pi a)
    - stirlerr(a) (Temme 2.11, Boost regularised_gamma_prefix), which keeps relative accuracy for large a."""
    out = a * logx - x - _sc.gammaln(a + 1.0)
    big = a >= 15.0
    if big.any():
        ab = a[big]
        out[big] = (ab * _log_ratio_m1(x[big], ab) - 0.5 * np.log(ab) - _LN_SQRT_2PI - _stirlerr(ab))
    return out


def _gamma_series_sums(a, x, order, cap=60000):
    """S = sum r_k, S1 = sum r_k', S2 = sum r_k'' (' = d/da), r_k = x^k Gamma(a+1)/Gamma(a+k+1):
    r_k' = -H_k r_k, r_k'' = (H_k^2 + H2_k) r_k with H_k = sum_{j<=k} 1/(a+j), H2_k = sum 1/(a+j)^2.
    Stops once the next term bound r_k (1+H_k)^2 / (1-q), q = x/(a+k+1), is below 1e-16 S."""
    n = a.size
    S_out = np.full(n, np.nan)
    S1_out = np.full(n, np.nan)
    S2_out = np.full(n, np.nan) if order == 2 else None
    act = np.arange(n)
    aa, xx = a, x
    S = np.ones(n)
    S1 = np.zeros(n)
    S2 = np.zeros(n) if order == 2 else None
    H2 = np.zeros(n) if order == 2 else None
    r = np.ones(n)
    H = np.zeros(n)
    t = np.empty(n)
    u = np.empty(n)
    done = np.zeros(n, dtype=bool)
    k = 0
    while act.size and k < cap:
        for _ in range(4):
            k += 1
            np.add(aa, k, out=t)
            np.divide(1.0, t, out=t)
            r *= xx
            r *= t
            H += t
            S += r
            np.multiply(r, H, out=u)
            S1 -= u
            if order == 2:
                t *= t
                H2 += t
                np.multiply(H, H, out=t)
                t += H2
                t *= r
                S2 += t
        # stop test: r (1+H)^(order) <= 1e-16 (1 - q) S
        np.add(aa, k + 1.0, out=u)
        np.divide(xx, u, out=u)
        conv = u < 1.0
        np.subtract(1.0, u, out=u)
        u *= S
        np.add(H, 1.0, out=t)
        if order == 2:
            t *= t
        t *= r
        conv &= t <= 1e-16 * u
        if k >= cap:
            conv |= t <= 1e-12 * S
        conv &= ~done
        if conv.any():
            sel = act[conv]
            S_out[sel] = S[conv]
            S1_out[sel] = S1[conv]
            if order == 2:
                S2_out[sel] = S2[conv]
            done |= conv
            ndone = np.count_nonzero(done)
            if ndone == done.size:
                break
            if ndone >= 0.25 * done.size:   # compress once it pays (converged terms stay tiny)
                keep = ~done
                act = act[keep]
                aa, xx, S, S1, r, H = aa[keep], xx[keep], S[keep], S1[keep], r[keep], H[keep]
                if order == 2:
                    S2, H2 = S2[keep], H2[keep]
                t = np.empty(act.size)
                u = np.empty(act.size)
                done = np.zeros(act.size, dtype=bool)
    return S_out, S1_out, S2_out


def _gamma_cf(a, x, order, M1, W2, cap=60000):
    """f, f', f'' (derivatives in a) of Legendre's continued fraction for Gamma(a,x) e^x x^-a.

    Forward recurrences A_n = b_n A_{n-1} + a_n A_{n-2} (and B_n), a_n = (n-1)(a-n+1), b_n = x+2n-1-a,
    differentiated in a (a_n' = n-1, b_n' = -1), renormalised by B_n every 4 steps.
    M1, W2: d/da log(prefactor) and (prefactor''/prefactor); they only scale the convergence test
    (the derivatives are accepted when their change is small against the terms of Q', Q'')."""
    n_el = a.size
    fo = np.full(n_el, np.nan)
    f1o = np.full(n_el, np.nan)
    f2o = np.full(n_el, np.nan) if order == 2 else None
    act = np.arange(n_el)
    aa, xx = a, x
    # convergent 1: A_1 = 1, B_1 = b_1 = x + 1 - a; A_0 = 0, B_0 = 1
    A1 = np.ones(n_el)
    A2 = np.zeros(n_el)
    B1 = xx + 1.0 - aa
    B2 = np.ones(n_el)
    dA1 = np.zeros(n_el)
    dA2 = np.zeros(n_el)
    dB1 = np.full(n_el, -1.0)
    dB2 = np.zeros(n_el)
    if order == 2:
        eA1 = np.zeros(n_el)
        eA2 = np.zeros(n_el)
        eB1 = np.zeros(n_el)
        eB2 = np.zeros(n_el)
    c = xx - aa
    w1 = np.abs(M1)
    w2 = np.abs(W2) if order == 2 else None
    an = np.empty(n_el)
    bn = np.empty(n_el)
    tmp = np.empty(n_el)
    pf = pf1 = pf2 = None
    n = 1
    while act.size:
        for _ in range(4):
            n += 1
            m = n - 1.0
            np.subtract(aa, m, out=an)
            an *= m
            np.add(c, 2.0 * n - 1.0, out=bn)
            if order == 2:
                # eX_new = bn eX1 - 2 dX1 + an eX2 + 2m dX2   (written into eX2's buffer)
                for X1, X2, D1, D2 in ((eA1, eA2, dA1, dA2), (eB1, eB2, dB1, dB2)):
                    X2 *= an
                    np.multiply(D2, 2.0 * m, out=tmp)
                    X2 += tmp
                    np.multiply(D1, 2.0, out=tmp)
                    X2 -= tmp
                    np.multiply(X1, bn, out=tmp)
                    X2 += tmp
                eA1, eA2 = eA2, eA1
                eB1, eB2 = eB2, eB1
            # dX_new = bn dX1 - X1 + an dX2 + m X2   (into dX2's buffer)
            for D1, D2, X1, X2 in ((dA1, dA2, A1, A2), (dB1, dB2, B1, B2)):
                D2 *= an
                np.multiply(X2, m, out=tmp)
                D2 += tmp
                D2 -= X1
                np.multiply(D1, bn, out=tmp)
                D2 += tmp
            dA1, dA2 = dA2, dA1
            dB1, dB2 = dB2, dB1
            # X_new = bn X1 + an X2   (into X2's buffer)
            for X1, X2 in ((A1, A2), (B1, B2)):
                X2 *= an
                np.multiply(X1, bn, out=tmp)
                X2 += tmp
            A1, A2 = A2, A1
            B1, B2 = B2, B1
        s = 1.0 / B1
        for v in (A1, A2, B2, dA1, dA2, dB1, dB2):
            v *= s
        B1.fill(1.0)
        f = A1.copy()
        f1 = dA1 - f * dB1
        if order == 2:
            for v in (eA1, eA2, eB1, eB2):
                v *= s
            f2 = eA1 - 2.0 * f1 * dB1 - f * eB1
        if pf is None:
            pf, pf1 = f, f1
            if order == 2:
                pf2 = f2
            continue
        late = n >= cap
        k = 1e4 if late else 1.0
        af = np.abs(f)
        good = np.abs(f - pf) <= (k * _TOL_F) * af
        sc1 = np.abs(f1) + w1 * af
        good &= np.abs(f1 - pf1) <= (k * _TOL_D) * sc1
        if order == 2:
            good &= np.abs(f2 - pf2) <= (k * _TOL_D) * (np.abs(f2) + 2.0 * w1 * np.abs(f1) + w2 * af)
        conv = good
        if late:   # whatever did not converge becomes NaN
            conv = np.ones_like(good)
            f = np.where(good, f, np.nan)
        if conv.any():
            sel = act[conv]
            fo[sel] = f[conv]
            f1o[sel] = f1[conv]
            if order == 2:
                f2o[sel] = f2[conv]
            keep = ~conv
            act = act[keep]
            aa, xx, c, w1 = aa[keep], xx[keep], c[keep], w1[keep]
            A1, A2, B1, B2 = A1[keep], A2[keep], B1[keep], B2[keep]
            dA1, dA2, dB1, dB2 = dA1[keep], dA2[keep], dB1[keep], dB2[keep]
            f, f1 = f[keep], f1[keep]
            if order == 2:
                eA1, eA2, eB1, eB2 = eA1[keep], eA2[keep], eB1[keep], eB2[keep]
                f2 = f2[keep]
                w2 = w2[keep]
            an = np.empty(act.size)
            bn = np.empty(act.size)
            tmp = np.empty(act.size)
        pf, pf1 = f, f1
        if order == 2:
            pf2 = f2
    return fo, f1o, f2o


# Terms of the second derivatives are each good to about 1e-14 (the series' S2 to 5e-15 at a = x = 1e4);
# where they cancel more than 1e6-fold the sum could miss the 1e-7 that second derivatives are held to.
_MAX_CANCELLATION = 1e6


def _sum_or_nan(terms):
    """The sum of ``terms``, NaN where the sum of their magnitudes exceeds _MAX_CANCELLATION times the
    sum's (near a = x for large a the second derivative in a is a 1e7-fold remainder at a = 1e4:
    P(a, x) is nearly Phi((x - a)/sqrt(a)), whose second derivative vanishes there)."""
    total = sum(terms)
    magnitude = sum(np.abs(t) for t in terms)
    return np.where(magnitude > _MAX_CANCELLATION * np.abs(total), np.nan, total)


def _gammainc_core(a, x, order):
    out = np.full(a.shape, np.nan)
    finite_a = (a > 0) & (a < np.inf)
    edge = finite_a & ((x == 0) | (x == np.inf))
    out[edge] = 0.0
    at0 = (a == 0) & (x > 0)
    if at0.any():   # one-sided derivative at a = 0: P = 1 - a E1(x) + O(a^2)
        out[at0] = -_sc.exp1(x[at0]) if order == 1 else np.nan
    reg = finite_a & (x > 0) & (x < np.inf)
    # The series for P is used beyond x = a+1 while Q is not small (x < a + 1 + 2.5 sqrt(a+1), Q >~ 3e-3):
    # its rounding loss there is about P/Q ulp, and it costs far less than the continued fraction,
    # which converges slowly near x ~ a+1.
    ser = reg & (x < a + 1.0 + 2.5 * np.sqrt(a + 1.0))
    cf = reg & ~ser
    if ser.any():
        a_s, x_s = a[ser], x[ser]
        lx = np.log(x_s)
        D = np.exp(_gamma_log_prefix(a_s, x_s, lx))
        S, S1, S2 = _gamma_series_sums(a_s, x_s, order)
        L1 = _gamma_logdensity_da_core(a_s + 1.0, x_s)  # log x - psi(a + 1), without its cancellation
        if order == 1:
            out[ser] = D * (L1 * S + S1)
        else:
            L2 = -_trigamma(a_s + 1.0)
            out[ser] = D * _sum_or_nan(((L1 * L1 + L2) * S, 2.0 * L1 * S1, S2))
    if cf.any():
        a_c, x_c = a[cf], x[cf]
        lx = np.log(x_c)
        # Q = x^a e^-x / Gamma(a) f = D a f with D = x^a e^-x / Gamma(a+1).  With N1 = log x - psi(a+1),
        # N2 = -psi'(a+1) (so M1 = N1 + 1/a, M2 = N2 - 1/a^2 for the prefactor x^a e^-x / Gamma(a)):
        #   Q'  = D ((a N1 + 1) f + a f')
        #   Q'' = D ((a (N1^2 + N2) + 2 N1) f + 2 (a N1 + 1) f' + a f'')
        # which stays finite and cancellation-free as a -> 0.
        D = np.exp(_gamma_log_prefix(a_c, x_c, lx))
        N1 = _gamma_logdensity_da_core(a_c + 1.0, x_c)
        rA = 1.0 / a_c
        M1 = N1 + rA
        if order == 1:
            f, f1, _ = _gamma_cf(a_c, x_c, 1, M1, None)
            out[cf] = -D * ((a_c * N1 + 1.0) * f + a_c * f1)
        else:
            N2 = -_trigamma(a_c + 1.0)
            f, f1, f2 = _gamma_cf(a_c, x_c, 2, M1, N1 * (N1 + 2.0 * rA) + N2)
            out[cf] = -D * _sum_or_nan(((a_c * (N1 * N1 + N2) + 2.0 * N1) * f, 2.0 * (a_c * N1 + 1.0) * f1,
                                        a_c * f2))
    return out


def gammainc_da(a, x):
    """d/da of the regularised lower incomplete gamma function P(a, x) (``scipy.special.gammainc``).

    x < a + 1 + 2.5 sqrt(a+1): power series DLMF 8.7.1 differentiated term by term (digamma differences as
    harmonic sums); beyond: Legendre continued fraction DLMF 8.9.2 for Q with its forward recurrences
    differentiated in a (cf. XLA ``IgammaSeries`` / ``IgammacContinuedFraction`` DERIVATIVE modes behind
    ``IgammaGradA``; Stan Math ``grad_reg_lower_inc_gamma`` / ``grad_reg_inc_gamma``).
    Prefactor via log1pmx and the Stirling remainder (Temme 2.11).  x = 0 and x = inf give 0;
    a = 0 gives the one-sided limit -E1(x); a < 0, x < 0, NaN give NaN.  Cost grows like sqrt(a) near
    x ~ a for very large a (about 300 terms at a = 1e3, 9000 at a = 1e6); iteration cap 60000 -> NaN.
    """
    return _run(_gammainc_core, (a, x), 1)


def gammainc_da2(a, x):
    """d^2/da^2 of P(a, x) (``scipy.special.gammainc``); same regimes and sources as ``gammainc_da``,
    second derivatives of the series terms (trigamma differences as sums of 1/(a+j)^2) and of the
    continued-fraction recurrences.  a = 0 gives NaN (one-sided second derivative not provided), and so
    do points where the terms cancel more than 1e6-fold (near x = a for a of 1e4 and more)."""
    return _run(_gammainc_core, (a, x), 2)


# --------------------------------------------------------------------------------------- gamma density
def _gamma_density_core(a, x):
    out = np.full(a.shape, np.nan)
    shape = (a > 0) & (a < np.inf)
    inside = shape & (x > 0) & (x < np.inf)
    small = inside & (a < 10.0)
    out[small] = np.exp(_sc.xlogy(a[small] - 1.0, x[small]) - x[small] - _sc.gammaln(a[small]))
    big = inside & ~small
    if big.any():
        ab, xb = a[big], x[big]
        # x^a e^-x / Gamma(a + 1) as in _gamma_log_prefix, times a / x; the ratio overflows only where the
        # exponential underflows (x below 1e-300 a), and is then taken into the exponent
        exponent = ab * _log_ratio_m1(xb, ab) - 0.5 * np.log(ab) - _LN_SQRT_2PI - _stirlerr(ab)
        ratio = ab / xb
        out[big] = np.where(np.isfinite(ratio), np.exp(exponent) * ratio,
                            np.exp(exponent + np.log(ab) - np.log(xb)))
    at0 = shape & (x == 0)
    out[at0] = np.where(a[at0] > 1.0, 0.0, np.where(a[at0] == 1.0, 1.0, np.inf))
    out[shape & (x == np.inf)] = 0.0
    # a <= 0 only enters through the recurrence of the x-derivative, f(a - 1, x) - f(a, x): x^(a-1) e^-x
    # / Gamma(a), which is 0 for every x at a pole of Gamma (its limit in x at x = 0 too)
    low = (a <= 0) & (a > -np.inf) & (x >= 0)
    if low.any():
        al, xl = a[low], x[low]
        rg = _sc.rgamma(al)
        out[low] = np.where(rg == 0, 0.0, np.power(xl, al - 1.0) * np.exp(-xl) * rg)
    return out


def gamma_density(a, x):
    """The gamma density x^(a-1) e^-x / Gamma(a) = d/dx P(a, x) (DLMF 8.8.13), with relative accuracy
    for large a.  Directly in logarithms for a < 10; for a >= 10 the exponent's terms are each about
    a log a and cancel (1e8-fold at a = 1e7), so there it is (a/x) x^a e^-x / Gamma(a+1) with
    x^a e^-x / Gamma(a+1) = exp(a log1pmx((x-a)/a) - stirlerr(a)) / sqrt(2 pi a) (Stirling's formula,
    DLMF 5.11.1 and 5.11.3; Temme, "Special functions", 2.11; Boost's regularised_gamma_prefix), the
    relative distance (x-a)/a formed from the exact difference.  x = 0 gives 0, 1 or inf (a > 1, = 1,
    < 1), x = inf gives 0; a <= 0 gives x^(a-1) e^-x / Gamma(a) (0 at the poles of Gamma), which only
    the recurrence of its x-derivative uses; x < 0 and NaN give NaN."""
    return _run(_gamma_density_core, (a, x))


# log a - psi(a) = 1/(2a) + sum_k B_2k / (2k a^2k) (DLMF 5.11.2); through B_16 the first term left out is
# below 4e-18 for a >= 10
_LOG_MINUS_DIGAMMA = tuple(b / (2 * (k + 1)) for k, b in enumerate(_B2K[:8]))


def _gamma_logdensity_da_core(a, x):
    out = np.log(x) - _sc.digamma(a)
    big = (a >= 10.0) & (a < np.inf) & (x > 0) & (x < np.inf)
    if big.any():
        ab, xb = a[big], x[big]
        u = (xb - ab) / ab
        log_ratio = np.where(u >= -0.5, np.log1p(u), np.log(xb / ab))
        r2 = 1.0 / (ab * ab)
        series = _LOG_MINUS_DIGAMMA[-1]
        for c in _LOG_MINUS_DIGAMMA[-2::-1]:
            series = c + r2 * series
        out[big] = log_ratio + (0.5 / ab + r2 * series)
    out[(x < 0) | (a == np.inf)] = np.nan
    return out


def gamma_logdensity_da(a, x):
    """d/da log of the gamma density, log x - psi(a).  For a >= 10 both terms are about log a and cancel
    (to about 1/sqrt(a) near the mode), so there it is log1p((x-a)/a) + (log a - psi(a)) with the
    asymptotic series of the second term (DLMF 5.11.2), which holds its absolute error near 1e-17.
    x = 0 gives -inf; x < 0 and NaN give NaN."""
    return _run(_gamma_logdensity_da_core, (a, x))


# ------------------------------------------------------------------------------------ incomplete beta
def _beta_log_prefix(a, b, x):
    """log(x^a (1-x)^b / B(a, b)); Stirling form (Boost ibeta_power_terms) when min(a, b) >= 15, and
    log B(a, b)'s large-parameter difference by Stirling's formula when only one of them is large."""
    out = a * np.log(x) + b * np.log1p(-x) - _sc.betaln(a, b)
    big = np.minimum(a, b) >= 15.0
    if big.any():
        ab, bb, xb = a[big], b[big], x[big]
        cb = ab + bb
        out[big] = (ab * _log_ratio_m1(xb * cb, ab) + bb * _log_ratio_m1((1.0 - xb) * cb, bb)
                    + 0.5 * (np.log(ab) + np.log(bb) - np.log(cb)) - _LN_SQRT_2PI
                    - _stirlerr(ab) - _stirlerr(bb) + _stirlerr(cb))
        # stirlerr(a) as defined is the remainder of log Gamma(a+1); the same remainder serves log Gamma(a)
    # One parameter small and the other large: log B(a, b) = lgamma(s) + lgamma(L) - lgamma(L + s) loses
    # about L log(L) eps to the last two (1e-9 at L = 1e6), so their difference is taken from Stirling's
    # formula, lgamma(z) = (z - 1/2) log z - z + log sqrt(2 pi) + stirlerr(z) (DLMF 5.11.1):
    # lgamma(L) - lgamma(L + s) = -(L - 1/2) log1p(s/L) - s log(L + s) + s + stirlerr(L) - stirlerr(L + s).
    lop = (np.minimum(a, b) < 15.0) & (np.maximum(a, b) >= 100.0)
    if lop.any():
        sl, ll = np.minimum(a[lop], b[lop]), np.maximum(a[lop], b[lop])
        betaln = (_sc.gammaln(sl) - (ll - 0.5) * np.log1p(sl / ll) - sl * np.log(ll + sl) + sl
                  + _stirlerr(ll) - _stirlerr(ll + sl))
        out[lop] = a[lop] * np.log(x[lop]) + b[lop] * np.log1p(-x[lop]) - betaln
    return out


def _beta_d(a, b, x, m, even, keys, w):
    """Partial numerator d_n of DLMF 8.17.22 and the partial derivatives named in ``keys``, written
    into the work arrays ``w`` (in place: allocating temporaries costs several times the arithmetic).

    even (n = 2m):  d = m (b-m) x / ((a+2m-1)(a+2m))
    odd (n = 2m+1): d = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
    With al, be the two reciprocal factors and s = al + be:  d/da log of the a-factors = -s and
    d2/da2 of the a-factors = (s^2 + al^2 + be^2) times themselves.  d_bb is identically 0.
    """
    al, be, s, t, v, c = w["al"], w["be"], w["s"], w["t"], w["v"], w["c"]
    np.add(a, (2.0 * m - 1.0) if even else 2.0 * m, out=al)
    np.divide(1.0, al, out=al)
    np.add(a, 2.0 * m if even else 2.0 * m + 1.0, out=be)
    np.divide(1.0, be, out=be)
    np.add(al, be, out=s)
    if even:
        # c = m x al be (common factor);  v = c (b - m)
        np.multiply(al, be, out=c)
        c *= x
        c *= m
        np.subtract(b, m, out=v)
        v *= c
        if "a" in keys:
            np.multiply(v, s, out=w["a"])
            np.negative(w["a"], out=w["a"])
        if "aa" in keys:
            out = w["aa"]
            np.multiply(s, s, out=out)
            np.multiply(al, al, out=t)
            out += t
            np.multiply(be, be, out=t)
            out += t
            out *= v
        if "b" in keys:
            np.copyto(w["b"], c)
        if "ab" in keys:
            np.multiply(c, s, out=w["ab"])
            np.negative(w["ab"], out=w["ab"])
        return
    # odd: c = -x al be;  am = a + m;  p = am (am + b);  v = c p
    am, p = w["am"], w["p"]
    np.multiply(al, be, out=c)
    c *= x
    np.negative(c, out=c)
    np.add(a, m, out=am)
    np.add(am, b, out=p)
    p *= am
    np.multiply(c, p, out=v)
    if "a" in keys or "aa" in keys:
        pa = w["pa"]                   # dp/da = 2 am + b
        np.add(am, am, out=pa)
        pa += b
    if "a" in keys:                    # d_a = c (pa - p s)
        out = w["a"]
        np.multiply(p, s, out=out)
        np.subtract(pa, out, out=out)
        out *= c
    if "aa" in keys:                   # d_aa = c (2 - 2 pa s + p (s^2 + al^2 + be^2))
        out = w["aa"]
        np.multiply(s, s, out=out)
        np.multiply(al, al, out=t)
        out += t
        np.multiply(be, be, out=t)
        out += t
        out *= p
        np.multiply(pa, s, out=t)
        t *= 2.0
        out -= t
        out += 2.0
        out *= c
    if "b" in keys:                    # d_b = c am
        np.multiply(c, am, out=w["b"])
    if "ab" in keys:                   # d_ab = c (1 - am s)
        out = w["ab"]
        np.multiply(am, s, out=out)
        np.subtract(1.0, out, out=out)
        out *= c


def _beta_cf(a, b, x, e1, e2, l1, l2, L0, cap=20000):
    """The bracket R of a derivative of I = K f, f = 1/(1 + d_1/(1 + d_2/(1 + ...))) (DLMF 8.17.22),
    K = x^a (1-x)^b / (a B(a, b)) with log-derivatives l1, l2 and L0 = l1 l2 + l12:

        first order (e2 None):  dI/de1 = K R,  R = l1 f + f_1
        second order:           d2I/de1de2 = K R,  R = (l1 l2 + l12) f + l1 f_2 + l2 f_1 + f_12

    The fraction's convergents are P_n/Q_n (f = Q/P) with P_n = P_{n-1} + d_n P_{n-2} (same for Q);
    these recurrences are differentiated exactly (d_n is rational in a, b).  P and Q are stacked in
    one (2, n) array per derivative component, updated in place.  Converged when R changes by less
    than _TOL_D times the size of its terms between checkpoints 4 steps apart; cap -> NaN.
    """
    second = e2 is not None
    mixed = second and e2 != e1
    k12 = (e1 + e2 if e1 <= e2 else e2 + e1) if second else None
    zero12 = k12 == "bb"
    keys = (e1,) + ((e2,) if mixed else ()) + ((k12,) if second and not zero12 else ())
    n_el = a.size
    out = np.full(n_el, np.nan)
    act = np.arange(n_el)
    aa, bb, xx = a, b, x
    if second and not mixed:
        l2 = l1
    ncomp = 4 if mixed else (3 if second else 2)
    wnames = ("al", "be", "s", "t", "v", "c", "am", "p", "pa") + keys

    def work(n):
        return {k: np.empty(n) for k in wnames}

    w = work(n_el)
    # n = 1: P_1 = 1 + d_1, Q_1 = 1;  P_0 = Q_0 = 1 (all derivatives of P_0, Q_0, Q_1 vanish)
    # d_1 = -x (a+b)/(a+1) and its derivatives in closed form (the generic odd-step formula divides by
    # a and would lose accuracy like eps/a for small a)
    r1 = 1.0 / (aa + 1.0)
    w["v"] = -xx * (aa + bb) * r1
    for key in keys:
        if key == "a":
            w["a"] = -xx * (1.0 - bb) * r1 * r1
        elif key == "b":
            w["b"] = -xx * r1
        elif key == "aa":
            w["aa"] = 2.0 * xx * (1.0 - bb) * r1 * r1 * r1
        elif key == "ab":
            w["ab"] = xx * r1 * r1
    X1 = [np.zeros((2, n_el)) for _ in range(ncomp)]
    X1[0][0] = 1.0 + w["v"]
    X1[0][1] = 1.0
    X1[1][0] = w[e1]
    if mixed:
        X1[2][0] = w[e2]
        X1[3][0] = w[k12]
    elif second and not zero12:
        X1[2][0] = w[k12]
    X2 = [np.ones((2, n_el))] + [np.zeros((2, n_el)) for _ in range(ncomp - 1)]
    tmp = np.empty((2, n_el))

    def step(X1, X2):
        """X2 <- X1 + d X2 (and derivatives), highest component first (it reads the lower ones)."""
        dv, d1 = w["v"], w[e1]
        if mixed:
            d2 = w[e2]
            Y = X2[3]
            Y *= dv
            Y += X1[3]
            np.multiply(X2[2], d1, out=tmp)
            Y += tmp
            np.multiply(X2[1], d2, out=tmp)
            Y += tmp
            np.multiply(X2[0], w[k12], out=tmp)
            Y += tmp
            Y = X2[2]
            Y *= dv
            Y += X1[2]
            np.multiply(X2[0], d2, out=tmp)
            Y += tmp
        elif second:
            Y = X2[2]
            Y *= dv
            Y += X1[2]
            np.multiply(X2[1], d1, out=tmp)
            np.multiply(tmp, 2.0, out=tmp)
            Y += tmp
            if not zero12:
                np.multiply(X2[0], w[k12], out=tmp)
                Y += tmp
        Y = X2[1]
        Y *= dv
        Y += X1[1]
        np.multiply(X2[0], d1, out=tmp)
        Y += tmp
        Y = X2[0]
        Y *= dv
        Y += X1[0]

    prev = None
    done = np.zeros(n_el, dtype=bool)
    m = 0
    while act.size:
        for _ in range(2):
            m += 1
            for even in (True, False):
                _beta_d(aa, bb, xx, float(m), even, keys, w)
                step(X1, X2)
                X1, X2 = X2, X1
        s = 1.0 / X1[0][0]
        for v in X1:
            v *= s
        for v in X2:
            v *= s
        # f = Q/P with P normalised to 1
        f = X1[0][1]
        f1 = X1[1][1] - f * X1[1][0]
        if mixed:
            f2 = X1[2][1] - f * X1[2][0]
            f12 = X1[3][1] - f1 * X1[2][0] - f2 * X1[1][0] - f * X1[3][0]
            terms = (L0 * f, l1 * f2, l2 * f1, f12)
        elif second:
            f11 = X1[2][1] - 2.0 * f1 * X1[1][0] - f * X1[2][0]
            terms = (L0 * f, 2.0 * l1 * f1, f11)
        else:
            terms = (l1 * f, f1)
        R = terms[0] + terms[1]
        size = np.abs(terms[0]) + np.abs(terms[1])
        for t in terms[2:]:
            R += t
            size += np.abs(t)
        if prev is None:
            prev = R
            continue
        late = 2 * m >= cap
        conv = np.abs(R - prev) <= ((1e4 if late else 1.0) * _TOL_D) * size
        if late:
            R = np.where(conv, R, np.nan)
            conv = np.ones_like(conv)
        conv &= ~done
        if conv.any():
            out[act[conv]] = R[conv]
            done |= conv
            ndone = np.count_nonzero(done)
            # converged elements keep iterating (harmlessly) until compressing pays: copying the
            # state costs about as much as a few steps
            if ndone == done.size:
                break
            if ndone >= 0.25 * done.size:
                keep = ~done
                act = act[keep]
                aa, bb, xx, l1 = aa[keep], bb[keep], xx[keep], l1[keep]
                if second:
                    l2, L0 = l2[keep], L0[keep]
                X1 = [v[:, keep] for v in X1]
                X2 = [v[:, keep] for v in X2]
                R = R[keep]
                w = work(act.size)
                tmp = np.empty((2, act.size))
                done = np.zeros(act.size, dtype=bool)
        prev = R
    return out


def _digamma_shift(z, w):
    """psi(z + w) - psi(z), for z > 0 and z + w > 0.  Where both are at least 1e3 the two digammas are
    each about log(z) while their difference is about w / z, so it is formed from the asymptotic series
    psi(z) = log z - 1/(2z) - 1/(12 z^2) + 1/(120 z^4) - ... (DLMF 5.11.2) term by term, each difference
    written with the common factor w: the next term's contribution is below w / (40 z^7)."""
    out = _sc.digamma(z + w) - _sc.digamma(z)
    big = np.minimum(z, z + w) >= 1e3
    if big.any():
        zb, wb = z[big], w[big]
        zw = zb + wb
        out[big] = (np.log1p(wb / zb) + wb / (2.0 * zb * zw) + wb * (zb + zw) / (12.0 * (zb * zw) ** 2)
                    - wb * (zb + zw) * (zb * zb + zw * zw) / (120.0 * (zb * zw) ** 4))
    return out


def _beta_logders(a, b, x, e1, e2):
    """Log-derivatives of K = x^a (1-x)^b / (a B(a, b)) = x^a (1-x)^b Gamma(a+b) / (Gamma(a+1) Gamma(b)):
    l_a = log x - psi(a+1) + psi(a+b),  l_b = log(1-x) - psi(b) + psi(a+b),
    l_aa = psi'(a+b) - psi'(a+1),  l_ab = psi'(a+b),  l_bb = psi'(a+b) - psi'(b).
    Returns (l1, l2, L0) with L0 = l1 l2 + l12 (None, None for first order).  psi(a+1), psi'(a+1) avoid
    the cancellation of 1/a against psi(a) for small a; for the bb case L0 is formed as
    N (N + 2/b) + psi'(a+b) - psi'(b+1) with N = l_b - 1/b, so the 1/b^2 terms cancel exactly.  The
    digamma differences come from _digamma_shift, exact also where both parameters of one are large."""
    def first(e):
        if e == "a":
            return np.log(x) + _digamma_shift(a + 1.0, b - 1.0)
        return np.log1p(-x) + _digamma_shift(b, a)

    l1 = first(e1)
    if e2 is None:
        return l1, None, None
    tc = _trigamma(a + b)
    if e1 == e2 == "b":
        N = np.log1p(-x) + _digamma_shift(b + 1.0, a - 1.0)
        rb = 1.0 / b
        return N + rb, None, N * (N + 2.0 * rb) + (tc - _trigamma(b + 1.0))
    if e1 == e2:   # aa
        return l1, None, l1 * l1 + (tc - _trigamma(a + 1.0))
    l2 = first(e2)
    return l1, l2, l1 * l2 + tc


def _beta_direct(a, b, x, e1, e2):
    """Derivative of I_x(a, b) in directions e1 (and e2) by the CF; requires x < (a+1)/(a+b+2)."""
    K = np.exp(_beta_log_prefix(a, b, x) - np.log(a))
    l1, l2, L0 = _beta_logders(a, b, x, e1, e2)
    return K * _beta_cf(a, b, x, e1, e2, l1, l2, L0)


_SWAP = {"a": "b", "b": "a"}


def _betainc_core(a, b, x, e1, e2):
    out = np.full(a.shape, np.nan)
    okp = (a > 0) & (a < np.inf) & (b > 0) & (b < np.inf)
    edge = okp & ((x == 0) | (x == 1))
    out[edge] = 0.0
    reg = okp & (x > 0) & (x < 1)
    direct = reg & (x * (a + b + 2.0) < a + 1.0)
    # With a tiny first parameter (I ~ 1 - O(a)) the fraction's derivative in the second parameter alone
    # is an O(a) remainder of O(1) terms (loss ~ eps/a); there the other representation is exact enough,
    # and its fraction still converges because its second parameter is tiny (slowly as its x -> 1,
    # hence the 1e-3 limit; below it the loss eps/a remains, documented).
    dirs = {e1} | ({e2} if e2 is not None else set())
    if dirs == {"b"}:
        flip = direct & (a < 1e-4) & (b > a) & (x >= 1e-3)
        direct &= ~flip
    elif dirs == {"a"}:
        flip = reg & ~direct & (b < 1e-4) & (a > b) & (x <= 1.0 - 1e-3)
        direct |= flip
    swap = reg & ~direct
    if direct.any():
        out[direct] = _beta_direct(a[direct], b[direct], x[direct], e1, e2)
    if swap.any():
        out[swap] = -_beta_direct(b[swap], a[swap], 1.0 - x[swap], _SWAP[e1],
                                  None if e2 is None else _SWAP[e2])
    return out


_BETA_DOC = """{what} of the regularised incomplete beta function I_x(a, b) (``scipy.special.betainc``).

    Method: continued fraction DLMF 8.17.22 (Numerical Recipes ``betacf``) for x < (a+1)/(a+b+2), else
    I_x(a, b) = 1 - I_(1-x)(b, a) (DLMF 8.17.4); the forward recurrences of the fraction's numerator and
    denominator are differentiated exactly in a and b (the partial numerators are rational in a, b), and
    the prefactor x^a (1-x)^b / (a B(a, b)) contributes digamma{tri} terms.  Stan Math ``inc_beta_dda`` /
    ``inc_beta_ddb`` and TFP's betainc gradient sum the hypergeometric series instead; the fraction also
    converges (in O(sqrt(a+b)) steps) near x ~ a/(a+b) for large a + b.  x = 0 and x = 1 give 0;
    a <= 0, b <= 0, x outside [0, 1], infinite parameters and NaN give NaN.
    """


def betainc_da(a, b, x):
    return _run(_betainc_core, (a, b, x), "a", None)


def betainc_db(a, b, x):
    return _run(_betainc_core, (a, b, x), "b", None)


def betainc_da2(a, b, x):
    return _run(_betainc_core, (a, b, x), "a", "a")


def betainc_dadb(a, b, x):
    return _run(_betainc_core, (a, b, x), "a", "b")


def betainc_db2(a, b, x):
    return _run(_betainc_core, (a, b, x), "b", "b")


betainc_da.__doc__ = _BETA_DOC.format(what="d/da", tri="")
betainc_db.__doc__ = _BETA_DOC.format(what="d/db", tri="")
betainc_da2.__doc__ = _BETA_DOC.format(what="d^2/da^2", tri=" and trigamma")
betainc_dadb.__doc__ = _BETA_DOC.format(what="d^2/(da db)", tri=" and trigamma")
betainc_db2.__doc__ = _BETA_DOC.format(what="d^2/db^2", tri=" and trigamma")


# --------------------------------------------------------------------------------------------
# Student t CDF in its degrees of freedom
# --------------------------------------------------------------------------------------------

# c_j = (2 - 2^(1-2j)) B_2j: psi(x + 1/2) - psi(x) ~ 1/(2x) + sum_j c_j / (2j x^2j) (DLMF 5.15.8's
# analogue for a shift h = 1/2, from DLMF 5.11.8 with B_k(1/2) = -(1 - 2^(1-k)) B_k, DLMF 24.4.27)
_HALF_SHIFT = tuple((2.0 - 2.0 ** (1 - 2 * j)) * b for j, b in enumerate(_B2K, start=1))


def _half_shift(x):
    """(R, Q, Q') with R = lgamma(x + 1/2) - lgamma(x) - log(x)/2, Q = R' = psi(x + 1/2) - psi(x) -
    1/(2x): the asymptotic series for x >= 20 (terms below 1e-20 of the first), SciPy's functions
    below (where their difference loses at most a factor 4x)."""
    big = x >= 20.0
    xb = np.where(big, x, 20.0)
    r = np.zeros_like(x)
    q = np.zeros_like(x)
    dq = np.zeros_like(x)
    for j, c in enumerate(_HALF_SHIFT, start=1):
        r -= c / (2 * j * (2 * j - 1)) * xb ** (1 - 2 * j)
        q += c / (2 * j) * xb ** (-2 * j)
        dq -= c * xb ** (-2 * j - 1)
    xs = np.where(big, 1.0, x)
    r = np.where(big, r, _sc.gammaln(xs + 0.5) - _sc.gammaln(xs) - 0.5 * np.log(xs))
    q = np.where(big, q, _sc.psi(xs + 0.5) - _sc.psi(xs) - 0.5 / xs)
    dq = np.where(big, dq, _sc.polygamma(1, xs + 0.5) - _sc.polygamma(1, xs) + 0.5 / xs ** 2)
    return r, q, dq


def _log1p_minus(y):
    """log(1 - y) + y for 0 <= y < 1, without the cancellation at small y (series below 0.1)."""
    small = y < 0.1
    ys = np.where(small, y, 0.0)
    series = np.zeros_like(y)
    for k in range(18, 1, -1):
        series = (series + 1.0 / k) * ys
    series = -series * ys
    return np.where(small, series, np.log1p(-np.where(small, 0.0, y)) + y)


def _stdtr_df_core(df, t, order):
    out = np.full(df.shape, np.nan)
    ok = np.isfinite(df) & (df > 0) & ~np.isnan(t)
    out[ok & ((t == 0) | np.isinf(t))] = 0.0
    ok &= np.isfinite(t) & (t != 0)
    if not np.any(ok):
        return out
    i = np.nonzero(ok)[0]
    nu, t = df[i], t[i]
    tail = -np.abs(t)
    half = 0.5 * nu
    r, q, dq = _half_shift(half)
    log_norm = r - _LN_SQRT_2PI
    c0 = 0.5 * q                                       # psi((nu+1)/2)/2 - psi(nu/2)/2 - 1/(2 nu)
    c1 = 0.25 * dq                                     # its derivative in nu

    def phi(v):
        s = tail - np.exp(v)
        return log_norm - 0.5 * (nu + 1.0) * np.log1p(s * s / nu) + v

    def factors(v):
        s = tail - np.exp(v)
        y = s * s / (nu + s * s)
        score = c0 + 0.5 * _log1p_minus(y) + y / (2.0 * nu)   # d/dnu log f(s; nu)
        if order == 1:
            return {1: score}
        return {2: score * score + c1 + y * y / (2.0 * nu) - y * (2.0 - y) / (2.0 * nu * nu)}
    vhi = np.log(np.abs(tail) + 15.0) + 60.0 / nu + 1.0
    peak, h, sums, bounds = _hypergeometric._live_trapezoid(phi, factors, np.full_like(nu, -60.0), vhi)
    value = np.exp(peak) * h * sums[order]
    error = np.exp(peak) * h * bounds[order]
    value = np.where(t > 0, -value, value)
    tolerance = 1e-10 if order == 1 else 1e-8
    out[i] = np.where(np.isfinite(value) & (error <= tolerance * np.abs(value)), value, np.nan)
    return out


def _stdtr_df(df, t, order):
    return _run(_stdtr_df_core, (df, t), order)


_STDTR_DOC = """{what} of the Student t CDF scipy.special.stdtr(df, t).

    Method: the CDF's derivative under the integral, d^k/d df^k int_(-inf)^(-|t|) f(s; df) ds with
    d f/d df = f S and d2 f/d df2 = f (S^2 + S'), S(s, df) = psi((df+1)/2)/2 - psi(df/2)/2 - 1/(2 df)
    - log(1 + s^2/df)/2 + (df+1) s^2 / (2 df (df + s^2)) the score (A&S 26.7.1), written without its
    cancellations for large df: the psi difference from its asymptotic series in 1/df (DLMF 5.11.8
    with h = 1/2), log(1 - y) + y (y = s^2/(df + s^2)) by its series for small y.  The upper tail
    follows from stdtr(df, t) = 1 - stdtr(df, -t).  With s = -|t| - e^v the trapezoidal rule in v over
    the integrand's live range, and an error bound (steps h against 2h, the range's ends, the rounding
    of the sum of |terms|): NaN where it exceeds 1e-10 of the result (1e-8 for the second
    derivative), 0 at t = 0 and t = +-inf, NaN for df <= 0 or non-finite df.
    """


def stdtr_ddf(df, t):
    return _stdtr_df(df, t, 1)


def stdtr_ddf2(df, t):
    return _stdtr_df(df, t, 2)


stdtr_ddf.__doc__ = _STDTR_DOC.format(what="d/ddf")
stdtr_ddf2.__doc__ = _STDTR_DOC.format(what="d^2/ddf^2")
