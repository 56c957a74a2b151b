"""Derivatives of hypergeometric functions in their parameters (host kernels).

Common engine (`_pfq_series`): the defining series sum_n prod (a_i)_n / prod (b_j)_n w^n / n!
(DLMF 16.2.1) differentiated term by term in the parameters.  Each Pochhammer factor (p)_n (and
1/(p)_n) is carried with its first and second p-derivatives by the product rule,

    (p)_(n+1) = (p)_n (p+n),  d(p)_(n+1) = d(p)_n (p+n) + (p)_n,  d2(p)_(n+1) = d2(p)_n (p+n) + 2 d(p)_n,

so a terminating parameter p = -m is exact: (p)_n vanishes for n > m while its derivative does not.
This is the approach of Stan Math's `grad_pFq` / `grad_2F1` (sum of digamma differences
psi(p+n) - psi(p) = sum_{k<n} 1/(p+k) times the term), and of JAX's `_hyp1f1_a_derivative`, written
without digamma so that zeros of (p)_n cause no 0 * inf.  The factors are renormalised by powers of
two every few terms (exact) to avoid overflow in long sums.  The sum stops when the tail bound
|t_n| rho / (1 - rho) (rho the current term ratio bound) is below 1e-17 of the partial sum, for
every requested derivative, on two successive checks; hard cap on the number of terms; elements
still running at the cap get NaN.  A rounding-error estimate eps * sum |t_n| is kept: where it
exceeds the accuracy target (cancellation), the kernel switches method or returns NaN.

Transformations (DLMF 13.2.39 Kummer, 15.8.1 Pfaff) keep the series argument small; the derivatives
of the transformed form follow by the chain rule (documented in each kernel). Where 1F1's series
cancels beyond float64 (a x < 0, |x| comparable to |a|), it is summed again in double-double
arithmetic (`_hyp1f1_dd`).
"""

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import special as _sp

# sin(pi y) with y - round(y) taken exactly first: psi'(y) by reflection near its poles needs the digits
from .bessel import _sinpi

__all__ = [
    "hyp1f1_da", "hyp1f1_db", "hyp1f1_da2", "hyp1f1_dadb", "hyp1f1_db2",
    "hyp2f1_da", "hyp2f1_db", "hyp2f1_dc", "hyp2f1_da2", "hyp2f1_db2", "hyp2f1_dc2",
    "hyp2f1_dadb", "hyp2f1_dadc", "hyp2f1_dbdc",
    "hyp0f1_dv", "hyp0f1_dv2",
    "hyperu_da", "hyperu_db", "hyperu_da2", "hyperu_dadb", "hyperu_db2",
    "wright_bessel_da", "wright_bessel_db", "wright_bessel_da2", "wright_bessel_dadb",
    "wright_bessel_db2",
]

_EPS = 2.220446049250313e-16
_CHUNK = 8192


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def _prep(args, complex_last=False):
    """Broadcast, flatten and cast to float64 (the last argument to complex128 when it is complex
    and `complex_last`).  Returns (shape, is_complex, list of 1-d arrays)."""
    arrs = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrs])
    iscplx = any(np.iscomplexobj(a) for a in arrs)
    out = []
    for i, a in enumerate(arrs):
        if complex_last and i == len(arrs) - 1 and iscplx:
            a = a.astype(np.complex128, copy=False)
        else:
            if np.iscomplexobj(a):
                a = a.real if not np.any(a.imag) else np.full(a.shape, np.nan)
            a = a.astype(np.float64, copy=False)
        out.append(np.broadcast_to(a, shape).ravel())
    return shape, iscplx and complex_last, out


def _chunked(fn, n, arrs, dtype, key=None):
    """fn(*slices) over slices of _CHUNK elements (64 KiB arrays stay in cache and in malloc's heap;
    bigger temporaries are mmap'ed and page-faulted on every allocation, 2-4x slower).  With `key`
    (an estimate of each element's series length) the elements are sorted by it first, so that a
    chunk's elements converge together (no long tail of a few slow elements in every chunk)."""
    if n <= _CHUNK:
        return fn(*arrs)
    order = None
    if key is not None:
        order = np.argsort(key, kind="stable")
        arrs = [a[order] for a in arrs]
    out = np.empty(n, dtype=dtype)
    for i in range(0, n, _CHUNK):
        out[i:i + _CHUNK] = fn(*[a[i:i + _CHUNK] for a in arrs])
    if order is not None:
        res = np.empty_like(out)
        res[order] = out
        out = res
    return out


def _is_nonpos_int(p, cap=1e7):
    return (p <= 0) & (p == np.floor(p)) & (p > -cap)


def _pfq_series(nums, dens, w, derivs, maxiter=3000, want_mag=False, polepass=False, p0=None):
    """Sum the pFq series in w and its parameter derivatives.

    nums, dens: lists of float64 arrays (same length n); w: float64 or complex128 array.
    derivs: list of tuples of parameter indices (0.. for nums, then dens), each of length 0, 1, 2;
    e.g. [(), (0,), (0, 2)] asks for F, dF/dp0, d2F/dp0dp2.
    Returns (list of sums, list of sum|t| magnitudes or None, number of terms used per element).
    Elements not converged within maxiter are NaN.  polepass: 1/(p)_n is taken as 0 past a pole
    p = -k (the convention of a series that terminates before the pole; the caller keeps the
    result only where it does).  p0: a factor multiplying every term (e.g. Kummer's e^x, applied
    term by term so that neither it nor the sum overflows alone).
    """
    params = list(nums) + list(dens)
    npar = len(params)
    nnum = len(nums)
    n = w.shape[0]
    cplx = np.iscomplexobj(w)
    dt = np.complex128 if cplx else np.float64
    order = [0] * npar
    for d in derivs:
        for i in set(d):
            order[i] = max(order[i], d.count(i))
    mult = [[d.count(i) for i in range(npar)] for d in derivs]
    # state (all arrays over the active elements)
    F = [[np.ones(n)] + [np.zeros(n) for _ in range(order[i])] for i in range(npar)]
    P = np.ones(n, dtype=dt) if p0 is None else np.array(p0, dtype=dt)
    sums = [np.zeros(n, dtype=dt) for _ in derivs]
    mags = [np.zeros(n) for _ in derivs] if want_mag else None
    small = [np.zeros(n, dtype=bool) for _ in derivs]      # previous check already small
    res = [np.full(n, np.nan, dtype=dt) for _ in derivs]
    resm = [np.full(n, np.nan) for _ in derivs] if want_mag else None
    nterms = np.full(n, maxiter)
    idx = np.arange(n)
    pr = params
    ww = w
    k = 0
    while k < maxiter and idx.size:
        # terms t_k for every requested derivative
        for j, m in enumerate(mult):
            t = P
            for i in range(npar):
                t = t * F[i][m[i]]
            sums[j] += t
            if want_mag:
                mags[j] += np.abs(t)
            if j == 0:
                tlast = [t]
            else:
                tlast.append(t)
        # advance factors to k+1
        for i in range(npar):
            q = pr[i] + k
            f = F[i]
            if i < nnum:
                if order[i] >= 2:
                    f[2] = f[2] * q + 2.0 * f[1]
                if order[i] >= 1:
                    f[1] = f[1] * q + f[0]
                f[0] = f[0] * q
            else:
                r = 1.0 / q
                if polepass:
                    r = np.where(q == 0, 0.0, r)
                if order[i] >= 2:
                    f[2] = (f[2] - 2.0 * r * (f[1] - r * f[0])) * r
                if order[i] >= 1:
                    f[1] = (f[1] - r * f[0]) * r
                f[0] = f[0] * r
        P = P * (ww / (k + 1))
        k += 1
        if k % 16 == 0:
            # renormalise the factors by powers of two into P (exact)
            for i in range(npar):
                mx = np.abs(F[i][0])
                for fo in F[i][1:]:
                    mx = np.maximum(mx, np.abs(fo))
                e = np.frexp(mx)[1]
                e = np.where(mx > 0, e, 0)
                e = np.where(np.isfinite(mx), e, 0)
                for o in range(len(F[i])):
                    F[i][o] = np.ldexp(F[i][o], -e)
                P = P * np.ldexp(1.0, e)
        if (k % 4 == 0 and k <= 32) or k % 16 == 0 or k == maxiter:
            # bound on the ratio of the terms beyond k (all shifted parameters positive by now)
            rho = np.abs(ww) / (k + 1)
            ok = np.ones(idx.size, dtype=bool)
            for i in range(npar):
                a = pr[i] + k
                ok &= a > 0
                rho = rho * a if i < nnum else rho / a
            rho = np.abs(rho) * (1.0 + 2.0 / k)
            if nnum == npar - nnum + 1:
                rho = np.maximum(rho, np.abs(ww) * (1.0 + 2.0 / k))
            ok &= rho < 0.999
            tailf = np.where(ok, rho / (1.0 - rho), np.inf)
            done = np.ones(idx.size, dtype=bool)
            for j in range(len(derivs)):
                sm = (np.abs(tlast[j]) * tailf) <= 1e-17 * np.abs(sums[j])
                both = sm & small[j]
                small[j] = sm
                done &= both
            # terminating series: every factor product is exactly zero from here on
            term0 = np.zeros(idx.size, dtype=bool)
            for j, m in enumerate(mult):
                z = np.zeros(idx.size, dtype=bool)
                for i in range(npar):
                    zi = F[i][0] == 0
                    for o in range(1, m[i] + 1):
                        zi &= F[i][o] == 0
                    z |= zi
                term0 = z if j == 0 else (term0 & z)
            done |= term0
            # a term past float64's range: every sum is a truncated partial sum then (the function's
            # own value may still be finite, 7e280 at a = 783, b = -16.2, x = 91, whose terms reach
            # 1e309): NaN, not that partial sum
            overflow = ~np.isfinite(sums[0])
            done |= overflow
            if np.any(done):
                sel = idx[done]
                for j in range(len(derivs)):
                    res[j][sel] = np.where(overflow[done], np.nan, sums[j][done])
                    if want_mag:
                        resm[j][sel] = mags[j][done]
                nterms[sel] = k
                keep = ~done
                idx = idx[keep]
                P = P[keep]
                ww = ww[keep]
                pr = [p[keep] for p in pr]
                F = [[fo[keep] for fo in f] for f in F]
                sums = [s[keep] for s in sums]
                small = [s[keep] for s in small]
                if want_mag:
                    mags = [s[keep] for s in mags]
    return res, resm, nterms


def _combine(coefs, comps):
    """sum_k coefs[k] * comps[k] (coefs may be scalars or arrays)."""
    out = 0.0
    for c, v in zip(coefs, comps):
        out = out + c * v
    return out


def _finish(res, shape, cplx):
    res = np.asarray(res).reshape(shape)
    if not cplx:
        res = res.real.astype(np.float64) if np.iscomplexobj(res) else res
    return res


# --------------------------------------------------------------------------------------------
# second-order jets: a value with its partial derivatives in the parameters, and a bound on the
# rounding error of each, carried through products and three-term recurrences
# --------------------------------------------------------------------------------------------

def _jet_keys(key):
    """The derivative tuples the product rule for `key` needs (every sub-multiset, () first)."""
    out = {()}
    for r in range(1, len(key) + 1):
        out.update(tuple(sorted(c)) for c in itertools.combinations(key, r))
    return sorted(out, key=lambda t: (len(t), t))


def _splits(k):
    """(left, right) for each subset of k's positions: the terms of Leibniz's rule for d^k (f g)."""
    for mask in range(1 << len(k)):
        yield (tuple(k[i] for i in range(len(k)) if mask >> i & 1),
               tuple(k[i] for i in range(len(k)) if not mask >> i & 1))


def _jet_mul(f, g):
    return {k: sum(f[left] * g[right] for left, right in _splits(k)) for k in f}


def _jet_abs_mul(f, g):
    """Leibniz's rule on the moduli: a bound on |d^k (f g)| term by term."""
    return {k: sum(np.abs(f[left]) * np.abs(g[right]) for left, right in _splits(k)) for k in f}


def _jet_poly(keys, value, gradient, hessian):
    """The jet of a polynomial coefficient: its value, gradient and (constant) Hessian in the
    parameters (entries scalars or arrays)."""
    shape = np.shape(value)
    out = {}
    for k in keys:
        if k == ():
            out[k] = value
        elif len(k) == 1:
            out[k] = np.broadcast_to(np.asarray(gradient[k[0]], dtype=np.float64), shape)
        else:
            out[k] = np.broadcast_to(np.asarray(hessian[k[0]][k[1]], dtype=np.float64), shape)
    return out


def _recur_down(low, high, low_err, high_err, steps, coefficients):
    """Three-term recurrence f_(j+1) = C1_j f_j + C2_j f_(j-1) (f_0 = low, f_(-1) = high) run for
    `steps` steps (per element) on jets; coefficients(j) gives the jets (C1_j, C2_j).  Returns the
    last jet and a first-order bound on its error: the start's error bounds and each step's rounding
    (4 eps of the terms) times their signed sensitivities, found by the adjoint recurrence
    lambda_j = lambda_(j+1) C1_j + mu_(j+1), mu_j = lambda_(j+1) C2_j run backwards in the jet
    algebra.  Unlike term-by-term moduli this does not count as growth the cancellations that a
    stable direction of the recurrence makes (Wimp, "Computation with recurrence relations", 1984,
    ch. 2)."""
    keys = list(low)
    nmax = int(steps.max()) if steps.size else 0
    rounding = []
    for j in range(nmax):
        act = j < steps
        c1, c2 = coefficients(j)
        t1, t2 = _jet_mul(c1, low), _jet_mul(c2, high)
        a1, a2 = _jet_abs_mul(c1, low), _jet_abs_mul(c2, high)
        rounding.append({k: np.where(act, 4.0 * _EPS * (a1[k] + a2[k]), 0.0) for k in keys})
        high = {k: np.where(act, low[k], high[k]) for k in keys}
        low = {k: np.where(act, t1[k] + t2[k], low[k]) for k in keys}
    unit = {k: (np.ones_like(steps) if k == () else np.zeros_like(steps)) for k in keys}
    lam, mu = unit, {k: np.zeros_like(steps) for k in keys}
    err = {k: np.zeros_like(steps) for k in keys}
    for j in reversed(range(nmax)):
        act = j < steps
        spread = _jet_abs_mul(lam, rounding[j])
        err = {k: err[k] + spread[k] for k in keys}
        c1, c2 = coefficients(j)
        lam_c1, lam_c2 = _jet_mul(lam, c1), _jet_mul(lam, c2)
        lam, mu = ({k: np.where(act, lam_c1[k] + mu[k], lam[k]) for k in keys},
                   {k: np.where(act, lam_c2[k], mu[k]) for k in keys})
    start_low, start_high = _jet_abs_mul(lam, low_err), _jet_abs_mul(mu, high_err)
    return low, {k: err[k] + start_low[k] + start_high[k] for k in keys}


# --------------------------------------------------------------------------------------------
# 1F1
# --------------------------------------------------------------------------------------------

# derivative tuples: indices 0 = a, 1 = b
_H1_KEYS = {"a": (0,), "b": (1,), "aa": (0, 0), "ab": (0, 1), "bb": (1, 1)}
# Kummer M(a,b,x) = e^x G(b-a, b, -x) (DLMF 13.2.39); with G's parameters p = b-a, q = b:
# dM/da = -e^x G_p, dM/db = e^x (G_p + G_q), d2/da2 = e^x G_pp, d2/dadb = -e^x (G_pp + G_pq),
# d2/db2 = e^x (G_pp + 2 G_pq + G_qq)
_H1_KUMMER = {
    "a": [(-1.0, (0,))],
    "b": [(1.0, (0,)), (1.0, (1,))],
    "aa": [(1.0, (0, 0))],
    "ab": [(-1.0, (0, 0)), (-1.0, (0, 1))],
    "bb": [(1.0, (0, 0)), (2.0, (0, 1)), (1.0, (1, 1))],
}


def _hyp1f1_core(a, b, x, key):
    cplx = np.iscomplexobj(x)
    dt = np.complex128 if cplx else np.float64
    out = np.full(a.shape, np.nan, dtype=dt)
    tol = 1e-11 if len(key) == 1 else 1e-9
    # terminating in a with no a-derivative: the finite polynomial at x itself
    term = _is_nonpos_int(a) & ("a" not in key)
    # b = -k: SciPy's value is inf unless the series stops before the pole (a = -m, m < k)
    bp = _is_nonpos_int(b)
    fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(x) & (~bp | (term & (a > b)))
    kum = fin & (x.real < 0) & ~term & ~bp
    dirc = fin & ~kum
    d = _H1_KEYS[key]
    if np.any(dirc):
        i = np.nonzero(dirc)[0]
        (f0, fd), (m0, md), _ = _pfq_series([a[i]], [b[i]], x[i], [(), d], want_mag=True,
                                             polepass=np.any(bp[i]))
        err = 2 * _EPS * md * 4
        bad = err > tol * np.maximum(np.abs(fd), np.abs(f0))
        out[i] = np.where(bad, np.nan, fd)
    if np.any(kum):
        i = np.nonzero(kum)[0]
        comb = _H1_KUMMER[key]
        dl = [()] + [c[1] for c in comb]
        ex = np.exp(x[i])
        sums, mags, _ = _pfq_series([b[i] - a[i]], [b[i]], -x[i], dl, want_mag=True, p0=ex)
        val = _combine([c[0] for c in comb], sums[1:])
        err = 2 * _EPS * 4 * _combine([abs(c[0]) for c in comb], mags[1:])
        bad = err > tol * np.maximum(np.abs(val), np.abs(sums[0]))
        out[i] = np.where(bad, np.nan, val)
    # where the float64 series cancels (a x < 0 and |a| large, |x| from about |a| to 4|a|, where its
    # terms reach 1e5 to 1e20 times the result): the same series in double-double arithmetic
    extended = fin & ~cplx & np.isnan(out) & ~bp & (np.abs(x) <= _EXTENDED_X)
    if np.any(extended):
        i = np.nonzero(extended)[0]
        out[i] = _hyp1f1_extended(a[i], b[i], x[i].real, key, tol)
    # what is left (the double-double series' bound fails too): the recurrence in a from a positive
    # first parameter, where every term has one sign
    first = np.where(x.real < 0, b - a, a)
    rec = fin & ~cplx & np.isnan(out) & ~term & (b > 0) & (first < 0) & (first > -200.0)
    if np.any(rec):
        i = np.nonzero(rec)[0]
        # held to the tolerance of hyperu's bound (1e-10, 1e-8): this bound is first order and term by term
        out[i] = _hyp1f1_recurrence(first[i], b[i], x[i].real, key, 1e-10 if len(key) == 1 else 1e-8)
    # the last resort: the series in fixed point with as many bits as its cancellation needs
    exact = fin & ~cplx & np.isnan(out) & ~bp & (np.abs(x) <= _EXTENDED_X)
    if np.any(exact):
        i = np.nonzero(exact)[0]
        out[i] = _hyp1f1_exact(a[i], b[i], x[i].real, key, tol)
    return out


# --------------------------------------------------------------------------------------------
# double-double arithmetic: a value as the unevaluated sum hi + lo of two float64 (Dekker, Numer.
# Math. 18 (1971) 224; Hida, Li & Bailey's QD library, 2001), about 32 digits, vectorised
# --------------------------------------------------------------------------------------------

_DD_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter
_DD_EPS = 2.0 ** -104


def _two_sum(a, b):
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def _two_prod(a, b):
    p = a * b
    ah = _DD_SPLIT * a
    ah = ah - (ah - a)
    bh = _DD_SPLIT * b
    bh = bh - (bh - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(x, y):
    s, e = _two_sum(x[0], y[0])
    t, f = _two_sum(x[1], y[1])
    s, e = _fast_two_sum(s, e + t)
    return _fast_two_sum(s, e + f)


def _dd_mul(x, y):
    p, e = _two_prod(x[0], y[0])
    return _fast_two_sum(p, e + (x[0] * y[1] + x[1] * y[0]))


def _dd_div_d(x, d):
    """x / d for a float64 d."""
    q1 = x[0] / d
    p, e = _two_prod(q1, d)
    s, f = _two_sum(x[0], -p)
    return _fast_two_sum(q1, (s + (f - e + x[1])) / d)


def _dd_recip(x):
    """1 / x."""
    q1 = 1.0 / x[0]
    r = _dd_add((np.ones_like(x[0]), np.zeros_like(x[0])), _dd_mul(x, (-q1, np.zeros_like(q1))))
    return _fast_two_sum(q1, r[0] * q1)


def _dd_scale2(x, e):
    """x * 2^e, exact."""
    return np.ldexp(x[0], e), np.ldexp(x[1], e)


_EXTENDED_X = 700.0  # beyond, e^|x| overflows: the double-double series is not tried


def _hyp1f1_dd(p, q, y, keys, maxiter=6000):
    """G(p, q, y) = sum_n (p)_n / (q)_n y^n / n! (DLMF 13.2.2) and its derivatives in p (0) and q (1) to
    second order, in double-double arithmetic: {key: (value, error bound)} for ``keys`` and (). p is a
    double-double pair (Kummer's b - a, formed exactly), q and y float64 (y >= 0). The Pochhammer
    jets follow the product rule as _pfq_series's (exact for a terminating p = -m), in double-double,
    renormalised by powers of two; the error bound is 2^-102 sum_n (n + 2) |t_n| per key (a term
    carries about 3n double-double products and sums of relative error 2^-104 each, the running sum
    one more per term), small where the float64 series loses everything to cancellation (its terms
    up to about 1e18 of the result). NaN where the series has not
    converged after maxiter terms (elements still running keep NaN)."""
    n = y.shape[0]
    zero = np.zeros(n)
    one = (np.ones(n), zero.copy())
    num = [one, (zero.copy(), zero.copy()), (zero.copy(), zero.copy())]      # (p)_n and its p-derivatives
    den = [one, (zero.copy(), zero.copy()), (zero.copy(), zero.copy())]      # 1/(q)_n and its q-derivatives
    power = one                                                             # y^n / n!, times the scale
    keys = sorted(set(keys) | {()}, key=lambda t: (len(t), t))
    sums = {k: (zero.copy(), zero.copy()) for k in keys}
    mags = {k: zero.copy() for k in keys}
    out = {k: (np.full(n, np.nan), np.full(n, np.nan)) for k in keys}
    small = np.zeros(n, dtype=bool)
    idx = np.arange(n)
    p0, p1, q_, y_ = p[0], p[1], q, y
    for k in range(maxiter):
        done_terms = {}
        for key in keys:
            t = _dd_mul(_dd_mul(num[key.count(0)], den[key.count(1)]), power)
            sums[key] = _dd_add(sums[key], t)
            mags[key] = mags[key] + (k + 2) * np.abs(t[0])
            done_terms[key] = np.abs(t[0])
        # advance to k + 1: (p)_(k+1) = (p)_k (p + k), 1/(q)_(k+1) = 1/(q)_k / (q + k), y^(k+1)/(k+1)!
        shift = _dd_add((p0, p1), (np.full(idx.size, float(k)), np.zeros(idx.size)))
        num = [_dd_mul(num[0], shift),
               _dd_add(_dd_mul(num[1], shift), num[0]),
               _dd_add(_dd_mul(num[2], shift), _dd_scale2(num[1], 1))]
        r = _dd_recip(_two_sum(q_, np.full(idx.size, float(k))))
        minus_r = (-r[0], -r[1])
        first = _dd_add(den[1], _dd_mul(minus_r, den[0]))                     # Q' - r Q
        den = [_dd_mul(den[0], r),
               _dd_mul(first, r),
               _dd_mul(_dd_add(den[2], _dd_scale2(_dd_mul(minus_r, first), 1)), r)]
        power = _dd_div_d(_dd_mul(power, (y_, np.zeros(idx.size))), k + 1.0)
        if k % 8 == 7:  # renormalise the jets by powers of two into the power (exact)
            for jets in (num, den):
                big = np.maximum.reduce([np.abs(j[0]) for j in jets])
                e = np.where((big > 0) & np.isfinite(big), np.frexp(big)[1], 0)
                jets[:] = [_dd_scale2(j, -e) for j in jets]
                power = _dd_scale2(power, e)
        if k % 8 == 7:
            # past the terms' peak the ratio is below rho < 1: the tail is below |t| rho / (1 - rho)
            later = k + 1.0
            rho = y_ * np.abs(p0 + later) / ((q_ + later) * (later + 1.0))
            ok = (p0 + later > 0) & (q_ + later > 0) & (rho < 0.9)
            tail = np.where(ok, rho / (1.0 - rho), np.inf)
            quiet = np.ones(idx.size, dtype=bool)
            for key in keys:
                quiet &= ((done_terms[key] * tail <= 1e-34 * np.abs(sums[key][0])) | (done_terms[key] == 0)) & ok
            terminated = (num[0][0] == 0) & (num[1][0] == 0) & (num[2][0] == 0)
            done = (quiet & small) | terminated | ~np.isfinite(sums[()][0])
            small = quiet
            if np.any(done):
                sel = idx[done]
                for key in keys:
                    value = sums[key][0][done] + sums[key][1][done]
                    out[key][0][sel] = value
                    out[key][1][sel] = 2.0 ** -102 * mags[key][done]
                keep = ~done
                idx, p0, p1, q_, y_, small = idx[keep], p0[keep], p1[keep], q_[keep], y_[keep], small[keep]
                num = [(j[0][keep], j[1][keep]) for j in num]
                den = [(j[0][keep], j[1][keep]) for j in den]
                power = (power[0][keep], power[1][keep])
                sums = {kk: (v[0][keep], v[1][keep]) for kk, v in sums.items()}
                mags = {kk: v[keep] for kk, v in mags.items()}
            if not idx.size:
                break
    return out


def _hyp1f1_extended(a, b, x, key, tol):
    """d^key M(a, b, x) for real x from the series in double-double (_hyp1f1_dd): directly for x >= 0,
    through Kummer's M(a, b, x) = e^x M(b - a, b, -x) (DLMF 13.2.39) for x < 0, with b - a formed
    exactly; NaN where its error bound exceeds tol of max(|result|, |M|)."""
    kummer = x < 0
    p = _two_sum(b, -a)
    p = (np.where(kummer, p[0], a), np.where(kummer, p[1], 0.0))
    comb = _H1_KUMMER[key]
    direct = _H1_KEYS[key]
    jets = _hyp1f1_dd(p, b, np.abs(x), [c[1] for c in comb] + [direct])
    value = np.where(kummer, _combine([c[0] for c in comb], [jets[c[1]][0] for c in comb]), jets[direct][0])
    error = np.where(kummer, _combine([abs(c[0]) for c in comb], [jets[c[1]][1] for c in comb]), jets[direct][1])
    scale = np.where(kummer, np.exp(x), 1.0)
    # e^x in float64: 2 eps of the result more
    value, function = value * scale, jets[()][0] * scale
    error = error * scale + 2 * _EPS * np.abs(value)
    good = np.isfinite(value) & (error <= tol * np.maximum(np.abs(value), np.abs(function)))
    return np.where(good, value, np.nan)


_EXACT_TERMS = 20000
_EXACT_BITS = (128, 512, 2048, 8192)   # fraction bits tried in turn until the bound holds
_EXACT_PARAMETER = 2000.0              # |a|, |b - a| beyond: more terms than a host call should take


def _fixed_point_series(p, q, y, bits):
    """M(p, q, y) (y >= 0) and its partial derivatives in (p, q) to second order, keyed as _H1_KEYS'
    tuples, summed in fixed point on Python's integers with `bits` fraction bits (about bits/3.3
    digits), and a bound on each sum's error in the same units.  p, q and y are binary fractions, so
    each term ratio r = (p + k) y / ((q + k)(k + 1)) and its (p, q) derivatives are ratios of integers
    over a common power-of-two denominator: the only rounding is each division's floor (under a unit),
    carried through the product rule t' = t r, t'_p = t_p r + t r_p, ... by the ratios' moduli.  None
    where the series has not converged by _EXACT_TERMS."""
    (pn, pd), (qn, qd), (yn, yd) = ((f.numerator, f.denominator) for f in map(Fraction, (p, q, y)))
    d = max(pd, qd, yd)
    pi, qi, yi = pn * (d // pd), qn * (d // qd), yn * (d // yd)   # p = pi / d, q = qi / d, y = yi / d
    keys = ((), (0,), (1,), (0, 0), (0, 1), (1, 1))
    t = dict.fromkeys(keys, 0)
    t[()] = 1 << bits
    total = dict(t)
    bound = dict.fromkeys(keys, 0)        # each term's error, then each sum's, in units (integers)
    total_bound = dict.fromkeys(keys, 0)
    for k in range(_EXACT_TERMS):
        pk, qk = pi + k * d, qi + k * d                       # d (p + k), d (q + k)
        if qk == 0:
            return None                                       # q a non-positive integer: a pole
        k1 = k + 1
        ratios = {                                            # (numerator, denominator) in integers
            "r": (pk * yi, d * qk * k1), "p": (yi, qk * k1), "q": (-pk * yi, qk * qk * k1),
            "pq": (-yi * d, qk * qk * k1), "qq": (2 * pk * yi * d, qk * qk * qk * k1)}
        def times(value, name):
            n, m = ratios[name]
            return value * n // m

        def up(bound_, name):                                 # |ratio| times a bound, rounded up
            n, m = ratios[name]
            return -(-bound_ * abs(n) // abs(m))
        new = {
            (): times(t[()], "r"),
            (0,): times(t[(0,)], "r") + times(t[()], "p"),
            (1,): times(t[(1,)], "r") + times(t[()], "q"),
            (0, 0): times(t[(0, 0)], "r") + 2 * times(t[(0,)], "p"),
            (0, 1): times(t[(0, 1)], "r") + times(t[(0,)], "q") + times(t[(1,)], "p") + times(t[()], "pq"),
            (1, 1): times(t[(1, 1)], "r") + 2 * times(t[(1,)], "q") + times(t[()], "qq"),
        }
        # each term's error: the last one's carried by the ratios' moduli, and a unit per floor
        bound = {
            (): up(bound[()], "r") + 1,
            (0,): up(bound[(0,)], "r") + up(bound[()], "p") + 2,
            (1,): up(bound[(1,)], "r") + up(bound[()], "q") + 2,
            (0, 0): up(bound[(0, 0)], "r") + 2 * up(bound[(0,)], "p") + 3,
            (0, 1): up(bound[(0, 1)], "r") + up(bound[(0,)], "q") + up(bound[(1,)], "p") + up(bound[()], "pq") + 4,
            (1, 1): up(bound[(1, 1)], "r") + 2 * up(bound[(1,)], "q") + up(bound[()], "qq") + 4,
        }
        t = new
        for key in keys:
            total[key] += t[key]
            total_bound[key] += bound[key]
        # past k = |p| and k = 2y the ratio is below 1/2 (and the derivatives' below 1/2 after a few
        # more): once every term is under 4 units (a floor keeps a negative term at -1, a few at -3)
        # the tail adds under 8 units each, and its terms' errors, which shrink as fast, twice the last's
        if k > abs(p) + 4 and k > 2.0 * y + 4 and all(abs(t[key]) <= 4 for key in keys):
            return total, {key: total_bound[key] + 8 + 2 * bound[key] for key in keys}
    return None


def _fixed_to_float(value, bits, scale):
    """value 2^-bits scale as a float, the integer's leading 62 bits taken first (relative error 2^-61)
    so that neither value 2^-bits (beyond 1e308 where e^x, x < 0, scales it back) nor the product
    overflows on the way; inf where the result does."""
    shift = max(value.bit_length() - 62, 0)
    try:
        return math.ldexp(float(value >> shift) * scale, shift - bits)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _hyp1f1_exact(a, b, x, key, tol):
    """d^key M(a, b, x) for real x, point by point, from the series in fixed point on Python's integers
    (_fixed_point_series), directly for x >= 0 and through Kummer's M = e^x M(b - a, b, -x) (DLMF
    13.2.39) for x < 0 (b - a exact, a rational), with as many bits as the bound needs, up to 8192: the
    last resort where the float64 and double-double series cancel past their precision and the
    recurrence in a is unstable (a x < 0, |a| above about 40, |x| from |a| to about 20 |a|). NaN where
    |a| or |b - a| exceeds 2000, the bound exceeds tol of max(|result|, |M|), or a value overflows."""
    out = np.full(a.shape, np.nan)
    comb = _H1_KUMMER[key]
    for i in range(a.shape[0]):
        ai, bi, xi = float(a[i]), float(b[i]), float(x[i])
        kummer = xi < 0
        p = (Fraction(bi) - Fraction(ai)) if kummer else Fraction(ai)
        if abs(p) > _EXACT_PARAMETER:
            continue
        terms = comb if kummer else [(1.0, _H1_KEYS[key])]
        needed = 0
        for bits in _EXACT_BITS:
            if bits < needed:
                continue
            found = _fixed_point_series(p, bi, abs(xi), bits)
            if found is None:
                break
            sums, bounds = found
            value = sum(int(c) * sums[k] for c, k in terms)
            error = sum(abs(int(c)) * bounds[k] for c, k in terms)
            scale = math.exp(xi) if kummer else 1.0
            result, function = _fixed_to_float(value, bits, scale), _fixed_to_float(sums[()], bits, scale)
            # e^x in float64 and the conversion: 2 eps of the result more
            bound = _fixed_to_float(error, bits, scale) + 2 * _EPS * abs(result)
            target = tol * max(abs(result), abs(function))
            if not (math.isfinite(result) and math.isfinite(function) and target > 0):
                break                                         # an overflow (or 0): more bits do not help
            if bound <= target:
                out[i] = result
                break
            # the bound falls a bit per bit (past float64's range: the next level)
            needed = bits + math.log2(bound) - math.log2(target) + 8 if math.isfinite(bound) else 0
    return out


def _hyp1f1_recurrence(p, b, x, key, tol):
    """d^key M(a, b, x) with p = a (x > 0) or p = b - a (x < 0, Kummer's M = e^x M(b-a, b, -x),
    DLMF 13.2.39) negative, b > 0: M(p, b, |x|) and its derivatives from the series at p + m and
    p + m + 1 (m = floor(-p) + 1, all terms positive), then m steps down of
    M(p-1) = (p M(p+1) - (2p - b + |x|) M(p)) / (b - p) (DLMF 13.3.1) on jets in (p, b), with the
    recurrence's first-order error bound; NaN where that exceeds tol of the result."""
    y = np.abs(x)
    kummer = x < 0
    comb = _H1_KUMMER[key]
    keys = sorted(set().union(*[_jet_keys(w) for w in [c[1] for c in comb] + [_H1_KEYS[key]]]),
                  key=lambda t: (len(t), t))
    steps = np.floor(-p) + 1.0
    top = p + steps
    n = p.shape[0]
    sums, mags, _ = _pfq_series([np.concatenate([top, top + 1.0])], [np.concatenate([b, b])],
                                np.concatenate([y, y]), keys, want_mag=True)
    low = {k: s_[:n] for k, s_ in zip(keys, sums)}
    high = {k: s_[n:] for k, s_ in zip(keys, sums)}
    low_err = {k: 8 * _EPS * m_[:n] for k, m_ in zip(keys, mags)}
    high_err = {k: 8 * _EPS * m_[n:] for k, m_ in zip(keys, mags)}

    def coefficients(j):
        cur = top - j                                   # M(cur - 1) from M(cur), M(cur + 1)
        den = b - cur
        # 1/(b - cur): gradient (1, -1)/den^2 in (p, b), Hessian 2 g_i g_j / den^3 with g = (-1, 1)
        inv = _jet_poly(keys, 1.0 / den, (1.0 / den ** 2, -1.0 / den ** 2),
                        ((2.0 / den ** 3, -2.0 / den ** 3), (-2.0 / den ** 3, 2.0 / den ** 3)))
        c1 = _jet_mul(_jet_poly(keys, -(2.0 * cur - b + y), (-2.0, 1.0), ((0.0, 0.0), (0.0, 0.0))), inv)
        c2 = _jet_mul(_jet_poly(keys, cur, (1.0, 0.0), ((0.0, 0.0), (0.0, 0.0))), inv)
        return c1, c2
    jet, jet_err = _recur_down(low, high, low_err, high_err, steps, coefficients)
    direct_d = _H1_KEYS[key]
    value = np.where(kummer, _combine([c[0] for c in comb], [jet[c[1]] for c in comb]), jet[direct_d])
    error = np.where(kummer, _combine([abs(c[0]) for c in comb], [jet_err[c[1]] for c in comb]),
                     jet_err[direct_d])
    scale = np.where(kummer, np.exp(x), 1.0)
    value, error = value * scale, error * scale
    good = np.isfinite(value) & (error <= tol * np.abs(value))
    return np.where(good, value, np.nan)


def _hyp1f1(a, b, x, key):
    with np.errstate(all="ignore"):
        shape, cplx, (a, b, x) = _prep((a, b, x), complex_last=True)
        n = a.shape[0]
        sk = np.abs(x)
        sk = np.where(np.isnan(sk), 0.0, sk)
        res = _chunked(lambda a_, b_, x_: _hyp1f1_core(a_, b_, x_, key), n, (a, b, x),
                       np.complex128 if cplx else np.float64, key=sk)
        return _finish(res, shape, cplx)


_H1_DOC = """{what} of Kummer's function scipy.special.hyp1f1(a, b, x) (x real or complex).

    Method: the series DLMF 13.2.2 differentiated term by term in the parameters (product rule on
    the Pochhammer symbols, exact for terminating a = -m); for Re x < 0 Kummer's transformation
    M(a, b, x) = e^x M(b - a, b, -x) (DLMF 13.2.39) first, differentiated by the chain rule.  Sources:
    DLMF 13.2.2, 13.2.39; Stan Math grad_pFq; JAX _hyp1f1_a_derivative / _hyp1f1_b_derivative.
    Where that series cancels (a x < 0 with |a| large: its first parameter p = a or b - a negative,
    its terms up to 1e20 times the result for |x| between about |p| and 4|p|), real |x| <= 700: the
    same series in double-double arithmetic (about 32 digits, Dekker 1971), with b - a formed exactly
    and an error bound of 2^-102 sum_n (n + 2) |t_n| (NaN above the accuracy target; on a -40 <= a
    <= 40, 0.5 <= b <= 10, -100 <= x <= 100 grid with a x < 0 it leaves 1.6% of first derivatives
    NaN, where |a| is near 40 and |x| near |a|, none of the second). Left after that, for b > 0: the
    series at p + m and p + m + 1 (m = floor(-p) + 1, all terms positive) and m steps of the
    recurrence M(p-1) = (p M(p+1) - (2p - b + |x|) M(p)) / (b - p) (DLMF 13.3.1) on jets in (p, b),
    with a first-order error bound (adjoint sensitivities), NaN above 1e-10 (1e-8 second order).
    Last, for real |x| <= 700 and |a|, |b - a| <= 2000: the series in fixed point on Python's
    integers, exact but for one floor per division, with an integer error bound and as many bits
    as it needs (up to 8192; milliseconds a point): on |a| <= 1000, -20.5 <= b <= 200,
    |x| <= 700, every point whose derivative is below float64's overflow right to 1e-13.
    NaN where b is a non-positive integer (SciPy: inf), for non-finite inputs, where a term of the
    float64 series overflows and the fixed-point series does not serve, and where the
    rounding-error estimate exceeds the accuracy target.
    """


def hyp1f1_da(a, b, x):
    return _hyp1f1(a, b, x, "a")


def hyp1f1_db(a, b, x):
    return _hyp1f1(a, b, x, "b")


def hyp1f1_da2(a, b, x):
    return _hyp1f1(a, b, x, "aa")


def hyp1f1_dadb(a, b, x):
    return _hyp1f1(a, b, x, "ab")


def hyp1f1_db2(a, b, x):
    return _hyp1f1(a, b, x, "bb")


hyp1f1_da.__doc__ = _H1_DOC.format(what="d/da")
hyp1f1_db.__doc__ = _H1_DOC.format(what="d/db")
hyp1f1_da2.__doc__ = _H1_DOC.format(what="d2/da2")
hyp1f1_dadb.__doc__ = _H1_DOC.format(what="d2/dadb")
hyp1f1_db2.__doc__ = _H1_DOC.format(what="d2/db2")


# --------------------------------------------------------------------------------------------
# 2F1
# --------------------------------------------------------------------------------------------

_H2_KEYS = {"a": (0,), "b": (1,), "c": (2,), "aa": (0, 0), "bb": (1, 1), "cc": (2, 2),
            "ab": (0, 1), "ac": (0, 2), "bc": (1, 2)}
# Pfaff F(a,b;c;z) = (1-z)^-a G(a, c-b, c; w), w = z/(z-1) (DLMF 15.8.1).  With L = log(1-z) and
# G's parameters (p0, p1, p2) = (a, c-b, c), (1-z)^a dF = sum of coef(L) * G_d:
_H2_PFAFF = {
    "a": [((), lambda L: -L), ((0,), 1.0)],
    "b": [((1,), -1.0)],
    "c": [((1,), 1.0), ((2,), 1.0)],
    "aa": [((), lambda L: L * L), ((0,), lambda L: -2.0 * L), ((0, 0), 1.0)],
    "ab": [((1,), lambda L: L), ((0, 1), -1.0)],
    "ac": [((1,), lambda L: -L), ((2,), lambda L: -L), ((0, 1), 1.0), ((0, 2), 1.0)],
    "bb": [((1, 1), 1.0)],
    "bc": [((1, 1), -1.0), ((1, 2), -1.0)],
    "cc": [((1, 1), 1.0), ((1, 2), 2.0), ((2, 2), 1.0)],
}
_SWAP_AB = {"a": "b", "b": "a", "c": "c", "aa": "bb", "bb": "aa", "cc": "cc", "ab": "ab",
            "ac": "bc", "bc": "ac"}
_H2_RMAX = 0.97         # series radius used; beyond: Ridders on scipy.special.hyp2f1


def _ridders(dq, h0, ntab=8, con=1.4):
    """Ridders' polynomial extrapolation (Numerical Recipes 5.7, `dfridr`) of a difference quotient
    dq(h) whose error is even in h, vectorised over the elements.  Returns (estimate, error
    estimate)."""
    con2 = con * con
    h = h0
    tab = [dq(h)]
    best = tab[0]
    err = np.full(np.shape(h0), np.inf)
    for i in range(1, ntab):
        h = h / con
        row = [dq(h)]
        fac = con2
        for j in range(1, i + 1):
            row.append((row[j - 1] * fac - tab[j - 1]) / (fac - 1.0))
            fac *= con2
            e = np.maximum(np.abs(row[j] - row[j - 1]), np.abs(row[j] - tab[j - 1]))
            better = e <= err
            best = np.where(better, row[j], best)
            err = np.where(better, e, err)
        tab = row
    return best, err


def _ridders_param(fn, base, d, rtol=1e-9):
    """Last resort: Ridders-extrapolated central differences of the SciPy function fn(*base) in
    the parameters d (one index, or two for a second derivative; mixed by the 4-point formula,
    even in h); NaN where the estimated relative error exceeds rtol."""
    def at(shifts):
        p = list(base)
        for i, s in shifts:
            p[i] = p[i] + s
        return fn(*p)

    h0 = 0.1 * np.maximum(1.0, np.abs(base[d[0]]))
    if len(d) == 1:
        def dq(h):
            return (at([(d[0], h)]) - at([(d[0], -h)])) / (2.0 * h)
    elif d[0] == d[1]:
        f0 = at([])

        def dq(h):
            return (at([(d[0], h)]) - 2.0 * f0 + at([(d[0], -h)])) / (h * h)
    else:
        def dq(h):
            return (at([(d[0], h), (d[1], h)]) - at([(d[0], h), (d[1], -h)])
                    - at([(d[0], -h), (d[1], h)]) + at([(d[0], -h), (d[1], -h)])) / (4.0 * h * h)
    val, err = _ridders(dq, h0)
    bad = ~(err <= rtol * np.abs(val))
    return np.where(bad, np.nan, val)


def _hyp2f1_ridders(a, b, c, z, key):
    """Ridders on scipy.special.hyp2f1 (last resort; NaN where the estimate exceeds 1e-9)."""
    return _ridders_param(_sp.hyp2f1, [a, b, c, z], _H2_KEYS[key])


def _hyp2f1_core(a, b, c, z, key):
    cplx = np.iscomplexobj(z)
    dt = np.complex128 if cplx else np.float64
    out = np.full(a.shape[0], np.nan, dtype=dt)
    tol = 1e-11 if len(key) == 1 else 1e-9
    fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & np.isfinite(z)
    # F is symmetric in a, b: let a be the terminating parameter whose derivative is not asked
    # for, when only b is one
    ta = _is_nonpos_int(a, 1e5) & ("a" not in key)
    tb = _is_nonpos_int(b, 1e5) & ("b" not in key)
    swap = tb & ~ta
    if np.any(fin & ~swap):
        _hyp2f1_part(a, b, c, z, key, fin & ~swap, out, tol, cplx)
    if np.any(fin & swap):
        _hyp2f1_part(b, a, c, z, _SWAP_AB[key], fin & swap, out, tol, cplx)
    # Pfaff's other form (1-z)^-b F(b, c-a; c; w), F being symmetric in a and b: where the first one's
    # series cancelled (a negative a or c - b) this one's may not
    retry = fin & np.isnan(out) & ~ta & ~tb
    if np.any(retry):
        _hyp2f1_part(b, a, c, z, _SWAP_AB[key], retry, out, tol, cplx)
    # c = -k a non-positive integer: SciPy's value is inf/NaN unless the series stops before the
    # pole (a or b = -m, m < k, as a polynomial whose derivative is asked for in the others only)
    cp = _is_nonpos_int(c)
    okp = (ta & (a > c)) | (tb & (b > c))
    out[cp & ~okp] = np.nan
    return out


def _hyp2f1_part(a, b, c, z, key, sel, out, tol, cplx):
    d = _H2_KEYS[key]
    term = _is_nonpos_int(a, 1e5) & ("a" not in key)
    w2 = z / (z - 1.0)
    az, aw = np.abs(z), np.abs(w2)
    realcut = (z.real > 1.0) if not cplx else np.zeros(z.shape, bool)
    direct = sel & (term | ((az <= aw) & (az <= _H2_RMAX))) & ~(realcut & ~term)
    pfaff = sel & ~direct & (aw < az) & (aw <= _H2_RMAX) & ~realcut
    rest = sel & ~direct & ~pfaff & ~realcut
    if np.any(direct):
        i = np.nonzero(direct)[0]
        (f0, fd), (m0, md), _ = _pfq_series([a[i], b[i]], [c[i]], z[i], [(), d], want_mag=True,
                                             maxiter=6000, polepass=np.any(_is_nonpos_int(c[i])))
        err = 8 * _EPS * md
        bad = err > tol * np.maximum(np.abs(fd), np.abs(f0))
        out[i] = np.where(bad, np.nan, fd)
    if np.any(pfaff):
        i = np.nonzero(pfaff)[0]
        comb = _H2_PFAFF[key]
        dl = [()] + [cmb[0] for cmb in comb if cmb[0] != ()]
        sums, mags, _ = _pfq_series([a[i], c[i] - b[i]], [c[i]], w2[i], dl, want_mag=True,
                                    maxiter=6000)
        L = np.log1p(-z[i])
        val = 0.0
        err = 0.0
        for dd, cf in comb:
            cv = cf(L) if callable(cf) else cf
            jj = dl.index(dd)
            val = val + cv * sums[jj]
            err = err + np.abs(cv) * mags[jj]
        err = 8 * _EPS * err
        bad = err > tol * np.maximum(np.abs(val), np.abs(sums[0]))
        pre = np.exp(-a[i] * L)
        out[i] = np.where(bad, np.nan, pre * val)
    if np.any(rest):
        i = np.nonzero(rest)[0]
        out[i] = _hyp2f1_ridders(a[i], b[i], c[i], z[i], key)


def _hyp2f1(a, b, c, z, key):
    with np.errstate(all="ignore"):
        shape, cplx, (a, b, c, z) = _prep((a, b, c, z), complex_last=True)
        sk = np.minimum(np.abs(z), np.abs(z / (z - 1.0)))
        sk = np.where(np.isnan(sk), 2.0, sk)
        res = _chunked(lambda a_, b_, c_, z_: _hyp2f1_core(a_, b_, c_, z_, key), a.shape[0],
                       (a, b, c, z), np.complex128 if cplx else np.float64, key=sk)
        return _finish(res, shape, cplx)


_H2_DOC = """{what} of the Gauss function scipy.special.hyp2f1(a, b, c, z) (z real or complex).

    Method: the series DLMF 15.2.1 differentiated term by term in the parameters (product rule on
    the Pochhammer symbols; exact for terminating a or b = -m, where the derivatives in the other
    parameters are finite polynomials evaluated at z itself, any z), in whichever of z and
    w = z/(z-1) is smaller in modulus, the latter through Pfaff's transformation
    F(a,b;c;z) = (1-z)^-a F(a, c-b; c; w) (DLMF 15.8.1) differentiated by the chain rule, or where
    that series cancels (a or c - b negative) its other form (1-z)^-b F(b, c-a; c; w).  Where
    both |z| and |z/(z-1)| exceed 0.97 (real z in (0.97, 1), z < -32, complex z near the unit
    circle around exp(+-i pi/3)) the last resort is Ridders' extrapolated central differences of
    scipy.special.hyp2f1 in the parameter (NaN where its error estimate exceeds 1e-9 relative).
    Sources: DLMF 15.2.1, 15.8.1; Stan Math grad_2F1; JAX _hyp2f1 derivatives; Numerical Recipes
    dfridr.  NaN on the real branch cut z > 1 (non-terminating), where c is a non-positive integer
    (unless the series terminates before the pole, as SciPy's value does), for non-finite inputs,
    and where the series' rounding-error estimate exceeds the accuracy target.
    """


def _mk2(key, what):
    def f(a, b, c, z):
        return _hyp2f1(a, b, c, z, key)
    f.__name__ = "hyp2f1_d" + {"a": "a", "b": "b", "c": "c", "aa": "a2", "bb": "b2", "cc": "c2",
                               "ab": "adb", "ac": "adc", "bc": "bdc"}[key]
    f.__doc__ = _H2_DOC.format(what=what)
    return f


hyp2f1_da = _mk2("a", "d/da")
hyp2f1_db = _mk2("b", "d/db")
hyp2f1_dc = _mk2("c", "d/dc")
hyp2f1_da2 = _mk2("aa", "d2/da2")
hyp2f1_db2 = _mk2("bb", "d2/db2")
hyp2f1_dc2 = _mk2("cc", "d2/dc2")
hyp2f1_dadb = _mk2("ab", "d2/dadb")
hyp2f1_dadc = _mk2("ac", "d2/dadc")
hyp2f1_dbdc = _mk2("bc", "d2/dbdc")


# --------------------------------------------------------------------------------------------
# 0F1
# --------------------------------------------------------------------------------------------

def _hyp0f1_core(v, z, d):
    cplx = np.iscomplexobj(z)
    out = np.full(v.shape[0], np.nan, dtype=np.complex128 if cplx else np.float64)
    tol = 1e-11 if len(d) == 1 else 1e-9
    ok = np.isfinite(v) & np.isfinite(z) & ~_is_nonpos_int(v)
    if np.any(ok):
        i = np.nonzero(ok)[0]
        (f0, fd), (m0, md), _ = _pfq_series([], [v[i]], z[i], [(), d], want_mag=True)
        err = 8 * _EPS * md
        bad = err > tol * np.maximum(np.abs(fd), np.abs(f0))
        out[i] = fd
        if np.any(bad):
            # cancellation (large negative z): Ridders on scipy.special.hyp0f1
            j = i[bad]
            out[j] = _ridders_param(_sp.hyp0f1, [v[j], z[j]], d)
    return out


def _hyp0f1(v, z, d):
    with np.errstate(all="ignore"):
        shape, cplx, (v, z) = _prep((v, z), complex_last=True)
        sk = np.where(np.isnan(np.abs(z)), 0.0, np.abs(z))
        res = _chunked(lambda v_, z_: _hyp0f1_core(v_, z_, d), v.shape[0], (v, z),
                       np.complex128 if cplx else np.float64, key=sk)
        return _finish(res, shape, cplx)


def hyp0f1_dv(v, z):
    """d/dv of scipy.special.hyp0f1(v, z) (z real or complex).

    Method: the series DLMF 16.2.1 (p = 0, q = 1) differentiated term by term in v (product rule
    on 1/(v)_n); converges for every z.  For large negative z (or large |z| off the positive axis)
    the series cancels (terms up to about exp(2 sqrt|z|)): the kernel keeps a rounding-error
    estimate 8 eps sum |t_n| and where it exceeds 1e-11 of the result (real z below about -30
    for v ~ 1) falls back to Ridders' extrapolated central differences of scipy.special.hyp0f1
    in v (Numerical Recipes 5.7), NaN where its error estimate exceeds 1e-9 relative.  NaN for v a
    non-positive integer (SciPy: NaN/inf).  Sources: DLMF 16.2.1; Stan Math grad_pFq.
    """
    return _hyp0f1(v, z, (0,))


def hyp0f1_dv2(v, z):
    """d2/dv2 of scipy.special.hyp0f1(v, z); method and regimes as hyp0f1_dv (NaN where the
    cancellation estimate exceeds 1e-9)."""
    return _hyp0f1(v, z, (0, 0))


# --------------------------------------------------------------------------------------------
# U (hyperu)
# --------------------------------------------------------------------------------------------

def _trigamma(x):
    """psi'(x) for x > 0: recurrence to x >= 8, then the asymptotic series (DLMF 5.15.8)."""
    acc = np.zeros_like(x)
    y = x.copy()
    for _ in range(8):
        m = y < 8.0
        acc = acc + np.where(m, 1.0 / (y * y), 0.0)
        y = np.where(m, y + 1.0, y)
    iy = 1.0 / y
    i2 = iy * iy
    # 1/y + 1/(2y^2) + sum B_2k / y^(2k+1)
    ser = iy * (1.0 + iy * (0.5 + iy * (1 / 6 + i2 * (-1 / 30 + i2 * (1 / 42 + i2 * (-1 / 30
                + i2 * (5 / 66 + i2 * (-691 / 2730 + i2 * (7 / 6)))))))))
    return acc + ser


def _trigamma_real(y):
    """psi'(y) for real y not a pole: for y <= 0 by reflection, psi'(1-y) + psi'(y) = pi^2 / sin^2(pi y)
    (DLMF 5.15.6)."""
    tg = _trigamma(np.where(y > 0, y, 1.0 - y))
    return np.where(y > 0, tg, np.pi ** 2 / _sinpi(y) ** 2 - tg)


_LIVE_NODES = 641       # odd: every other node is the rule with twice the step (the error estimate)
_LIVE_COARSE = 160      # grid that finds where the integrand lives
_LIVE_DROP = 55.0       # the integrand is cut where it is below e^-55 of its peak


def _live_trapezoid(phi, factors, vlo, vhi):
    """The trapezoidal rule for int e^phi(v) F_k(v) dv over the part of [vlo, vhi] (per element) where
    phi is within 55 of its peak, found on a coarse grid: a sharp peak gets as many nodes as a broad
    one.  For integrands analytic in a strip about the real axis the rule converges geometrically
    (Trefethen & Weideman, SIAM Review 56 (2014) 385), so the difference between the rules with
    steps 2h and h bounds the error of the finer one; the bound adds the integrand at the range's ends
    and the rounding of the sum of |terms| (the F_k may change sign).  factors(v) gives the dict of
    the F_k.  Returns (peak, h, sums, bounds): the integral of F_k is e^peak h sums[k], its error
    bound e^peak h bounds[k]."""
    grid = np.array([vlo + (vhi - vlo) * j / (_LIVE_COARSE - 1) for j in range(_LIVE_COARSE)])
    values = np.array([phi(v) for v in grid])
    values = np.where(np.isnan(values), -np.inf, values)
    peak = values.max(axis=0)
    alive = values > peak - _LIVE_DROP
    first = np.maximum(np.argmax(alive, axis=0) - 1, 0)
    last = np.minimum(_LIVE_COARSE - np.argmax(alive[::-1], axis=0), _LIVE_COARSE - 1)
    cols = np.arange(grid.shape[1])
    lo, hi = grid[first, cols], grid[last, cols]
    h = (hi - lo) / (_LIVE_NODES - 1)
    fine = coarse = mag = ends = None
    for j in range(_LIVE_NODES):
        v = lo + j * h
        g = np.exp(phi(v) - peak)
        edge = j in (0, _LIVE_NODES - 1)
        w = 0.5 if edge else 1.0
        terms = {k: g * f for k, f in factors(v).items()}
        if fine is None:
            fine = {k: np.zeros_like(g) for k in terms}
            coarse = {k: np.zeros_like(g) for k in terms}
            mag = {k: np.zeros_like(g) for k in terms}
            ends = {k: np.zeros_like(g) for k in terms}
        for k, t in terms.items():
            fine[k] += w * t
            if j % 2 == 0:
                coarse[k] += 2.0 * w * t
            mag[k] += np.abs(t)
            if edge:
                ends[k] += np.abs(t)
    bounds = {k: np.abs(fine[k] - coarse[k]) + 4.0 * ends[k]
              + 4.0 * _EPS * (np.sqrt(_LIVE_NODES) + np.abs(peak)) * mag[k] for k in fine}
    return peak, h, fine, bounds


def _hyperu_integral(a, b, x, keys):
    """Jets of U(a, b, x) in (a, b) for a >= 1, x > 0, with error bounds.

    U = 1/Gamma(a) int_0^inf e^(-xt) t^(a-1) (1+t)^(b-a-1) dt (DLMF 13.4.4); with t = e^v the
    integrand e^phi(v), phi = a v + (b-a-1) log(1+e^v) - x e^v, decays like e^(a v) as v -> -inf and
    double-exponentially beyond v = log(1/x), and is analytic in the strip |Im v| < pi/2: the
    trapezoidal rule over its live range (_live_trapezoid).  d/da brings log(t/(1+t)) - psi(a), d/db
    log(1+t), d2/da2 also -psi'(a)."""
    lx = np.log(x)
    vlo = -_LIVE_DROP / a - 4.0
    big = np.maximum(b - 1.0, 0.0)
    vhi = np.maximum(np.log(big + _LIVE_DROP + 12.0 * np.sqrt(big) + 5.0) - lx, vlo + 1.0)
    psi = _sp.psi(a)
    trig = _trigamma(a) if (0, 0) in keys else 0.0

    def phi(v):
        return a * v + (b - a - 1.0) * np.logaddexp(0.0, v) - np.exp(v + lx)

    def factors(v):
        l2 = np.logaddexp(0.0, v)                   # log(1 + t)
        l1 = -np.logaddexp(0.0, -v) - psi           # log(t / (1 + t)) - psi(a)
        table = {(): 1.0, (0,): l1, (1,): l2, (0, 0): l1 * l1 - trig, (0, 1): l1 * l2, (1, 1): l2 * l2}
        return {k: table[k] for k in keys}
    peak, h, sums, bounds = _live_trapezoid(phi, factors, vlo, vhi)
    scale = np.exp(peak - _sp.gammaln(a)) * h
    return {k: scale * sums[k] for k in keys}, {k: scale * bounds[k] for k in keys}


_CAUCHY_NODES = 32           # per parameter; the even nodes give the rule with half as many (its error)
_CONNECTION_X = 30.0         # beyond, M's series cancels past any use (its error bound says so anyway)
_CONNECTION_TERMS = 3000
_CONNECTION_CHUNK = 64       # points per batch: each takes 32 x 32 complex evaluations


def _bold_m(p, q, x):
    """Olver's M(p, q, x) / Gamma(q) = sum_k (p)_k x^k / (Gamma(q + k) k!) (DLMF 13.2.3) at complex p, q
    and real x > 0, and the sum of its terms' moduli (NaN where it has not converged by the cap)."""
    t = _sp.rgamma(q)
    s, mag = t.copy(), np.abs(t)
    pmax, xmax = float(np.abs(p.real).max()), float(x.max())
    for k in range(_CONNECTION_TERMS):
        t = t * ((p + k) * x / ((q + k) * (k + 1.0)))
        s = s + t
        at = np.abs(t)
        mag = mag + at
        # past k = |p| and k = x the term ratio is below x / k < 1/2: the tail is below the last term
        if k > pmax + 2.0 and k > 2.0 * xmax and np.all(at <= 1e-17 * mag):
            return s, mag
    return np.full_like(s, np.nan), mag


def _hyperu_connection(a, b, x):
    """U(a, b, x) = pi / sin(pi b) [M(a, b, x) / (Gamma(a - b + 1) Gamma(b)) - x^(1-b) M(a - b + 1, 2 - b, x)
    / (Gamma(a) Gamma(2 - b))] (DLMF 13.2.42) at complex a, b off the real axis, where sin(pi b) does not
    vanish, and a bound on its rounding error: 8 eps of the moduli of every term (the series'
    convention, doubled for the complex reciprocal gammas, power and sine)."""
    m1, mag1 = _bold_m(a, b, x)
    m2, mag2 = _bold_m(a - b + 1.0, 2.0 - b, x)
    g1, g2 = _sp.rgamma(a - b + 1.0), _sp.rgamma(a)
    power = np.exp((1.0 - b) * np.log(x))
    c = np.pi / np.sin(np.pi * b)
    value = c * (g1 * m1 - power * g2 * m2)
    error = 8.0 * _EPS * np.abs(c) * (np.abs(g1) * mag1 + np.abs(power * g2) * mag2)
    return value, error


def _hyperu_cauchy(a, b, x, key):
    """d^(m+n) U / da^m db^n (m, n: the a's and b's in key) from the connection formula by Cauchy's
    integral on circles about a (radius 1/4) and b (radius 1/4, less for small x, where x^(1-b) grows
    like e^(|log x| |b|)), the trapezoidal rule with 32 nodes offset half a step from the real axis:
    U is entire in a and b, so the rule converges faster than geometrically (Bornemann, Found.
    Comput. Math. 11 (2011) 1), and the connection formula's cancellation near integer b, where
    sin(pi b) vanishes, is met only at distance r sin(pi/32) from the axis.  A derivative in b alone
    takes a itself, no circle about it: U varies far more in a than in b where a < 0, and the
    16-node rule's error in a would swamp the bound.  Returns the derivative and an error bound:
    the 16-node rule's difference from the 32-node one, and the nodes' largest rounding error, both
    times m! n! / (ra^m rb^n)."""
    m, n = key.count("a"), key.count("b")
    theta = 2.0 * np.pi * (np.arange(_CAUCHY_NODES) + 0.5) / _CAUCHY_NODES
    ra = np.full_like(a, 0.25)
    rb = np.minimum(0.25, 1.0 / (1.0 + np.abs(np.log(x))))
    circle = np.exp(1j * theta)
    around_a = circle if m else np.zeros(1)
    values, errors = _hyperu_connection(a[:, None, None] + ra[:, None, None] * around_a[None, :, None],
                                        b[:, None, None] + rb[:, None, None] * circle[None, None, :],
                                        x[:, None, None])
    weights = np.exp(-1j * m * theta[:around_a.size])[:, None] * np.exp(-1j * n * theta)[None, :]
    fine = (values * weights).mean(axis=(1, 2))
    coarse = (values[:, ::2, ::2] * weights[::2, ::2]).mean(axis=(1, 2))
    scale = _sp.factorial(m) * _sp.factorial(n) / (ra ** m * rb ** n)
    return fine.real * scale, (np.abs(fine - coarse) + errors.max(axis=(1, 2))) * scale


def _hyperu_small_x(a, b, x, key, tolerance):
    """The Cauchy-connection derivatives where they meet the tolerance, NaN elsewhere, in batches."""
    out = np.full(a.shape[0], np.nan)
    for start in range(0, a.shape[0], _CONNECTION_CHUNK):
        part = slice(start, start + _CONNECTION_CHUNK)
        value, error = _hyperu_cauchy(a[part], b[part], x[part], key)
        out[part] = np.where(np.isfinite(value) & (error <= tolerance * np.abs(value)), value, np.nan)
    return out


def _hyperu_core(a, b, x, key):
    out = np.full(a.shape[0], np.nan)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(x) & (x > 0) & (a > -200.0)
    if not np.any(ok):
        return out
    i = np.nonzero(ok)[0]
    a, b, x = a[i], b[i], x[i]
    d = _H1_KEYS[key]
    keys = _jet_keys(d)
    # a < 1: the integral at a + m and a + m + 1 (m = ceil(1 - a)), then down to a by the
    # recurrence U(a-1) = (2a + x - b) U(a) - a (a - b + 1) U(a+1) (DLMF 13.3.7), in the direction in
    # which U, the solution recessive as a -> +inf, grows (Gautschi, SIAM Review 9 (1967) 24)
    steps = np.where(a < 1.0, np.ceil(1.0 - a), 0.0)
    top = a + steps
    n = a.shape[0]
    r = np.nonzero(steps > 0)[0]                      # these also need U(top + 1)
    both, both_err = _hyperu_integral(np.concatenate([top, top[r] + 1.0]), np.concatenate([b, b[r]]),
                                      np.concatenate([x, x[r]]), keys)
    low = {k: v[:n] for k, v in both.items()}
    low_err = {k: v[:n] for k, v in both_err.items()}
    high = {k: np.zeros(n) for k in keys}
    high_err = {k: np.zeros(n) for k in keys}
    for k in keys:
        high[k][r] = both[k][n:]
        high_err[k][r] = both_err[k][n:]

    def coefficients(j):
        ap = top - j                                  # U(ap - 1) from U(ap), U(ap + 1)
        c1 = _jet_poly(keys, 2.0 * ap + x - b, (2.0, -1.0), ((0.0, 0.0), (0.0, 0.0)))
        c2 = _jet_poly(keys, -ap * (ap - b + 1.0), (-(2.0 * ap - b + 1.0), ap),
                       ((-2.0, 1.0), (1.0, 0.0)))
        return c1, c2
    if np.any(steps > 0):
        low, low_err = _recur_down(low, high, low_err, high_err, steps, coefficients)
    value, error = low[d], low_err[d]
    tolerance = 1e-10 if len(d) == 1 else 1e-8
    good = np.isfinite(value) & (error <= tolerance * np.abs(value))
    # where the recurrence from a + m down to a < 0 cancels (U oscillates in a there), the connection
    # formula with M's series, which converges fast for moderate x
    retry = np.nonzero(~good & (a < 1.0) & (x <= _CONNECTION_X))[0]
    if retry.size:
        value = value.copy()
        value[retry] = _hyperu_small_x(a[retry], b[retry], x[retry], key, tolerance)
        good[retry] = np.isfinite(value[retry])
    out[i] = np.where(good, value, np.nan)
    return out


def _hyperu(a, b, x, key):
    with np.errstate(all="ignore"):
        shape, _, (a, b, x) = _prep((a, b, x))
        res = _chunked(lambda a_, b_, x_: _hyperu_core(a_, b_, x_, key), a.shape[0], (a, b, x),
                       np.float64)
        return res.reshape(shape)


_HU_DOC = """{what} of Tricomi's function scipy.special.hyperu(a, b, x), x > 0.

    Method: for a >= 1 the integral U(a,b,x) = 1/Gamma(a) int_0^inf e^(-xt) t^(a-1) (1+t)^(b-a-1) dt
    (DLMF 13.4.4) differentiated under the integral sign (d/da brings log(t/(1+t)) - psi(a), d/db
    brings log(1+t); d2/da2 adds -psi'(a) U), with t = e^v by the trapezoidal rule in v (641 nodes over
    the range where the integrand is within e^-55 of its peak; geometric convergence, the integrand
    being analytic in a strip).  For a < 1 (a -> 0 and every a < 0) the integral at a + m and
    a + m + 1 (m = ceil(1 - a)) and m steps of the recurrence U(a-1) = (2a+x-b) U(a) - a(a-b+1) U(a+1)
    (DLMF 13.3.7), differentiated in a and b, downward, the direction in which the recessive solution
    U is stable.  An error bound (step h against 2h, the integrand at the range's ends, the rounding
    of the sums of |terms|, propagated through the recurrence by its adjoint) makes the kernel NaN
    where it exceeds 1e-10 of the result (1e-8 for second derivatives).  Where the recurrence
    cancels (a < 0, where U oscillates in a; x up to 30): the connection formula U = pi/sin(pi b)
    [M(a,b,x)/(Gamma(a-b+1) Gamma(b)) - x^(1-b) M(a-b+1,2-b,x)/(Gamma(a) Gamma(2-b))] (DLMF 13.2.42)
    at complex a and b on circles about them, differentiated by Cauchy's integral (32 x 32 nodes off
    the real axis, where sin(pi b) does not vanish; integer b included), with its own bound (the
    16-node rule's difference and the terms' rounding); NaN where neither meets the tolerance: near
    the derivative's zeros, and where M's series cancels.  NaN for x <= 0 (SciPy: NaN on the cut), a <= -200 and
    non-finite input.
    """


def hyperu_da(a, b, x):
    return _hyperu(a, b, x, "a")


def hyperu_db(a, b, x):
    return _hyperu(a, b, x, "b")


def hyperu_da2(a, b, x):
    return _hyperu(a, b, x, "aa")


def hyperu_dadb(a, b, x):
    return _hyperu(a, b, x, "ab")


def hyperu_db2(a, b, x):
    return _hyperu(a, b, x, "bb")


hyperu_da.__doc__ = _HU_DOC.format(what="d/da")
hyperu_db.__doc__ = _HU_DOC.format(what="d/db")
hyperu_da2.__doc__ = _HU_DOC.format(what="d2/da2")
hyperu_dadb.__doc__ = _HU_DOC.format(what="d2/dadb")
hyperu_db2.__doc__ = _HU_DOC.format(what="d2/db2")


# --------------------------------------------------------------------------------------------
# Wright's generalized Bessel function
# --------------------------------------------------------------------------------------------

def _rgamma012(y, order):
    """1/Gamma(y) and its first `order` derivatives: (1/Gamma)' = -psi/Gamma,
    (1/Gamma)'' = (psi^2 - psi')/Gamma (DLMF 5.2.2); at the poles y = -m the limits
    (-1)^m m! and -2 (-1)^m m! psi(m+1) (from 1/Gamma(y) = Gamma(1-y) sin(pi y)/pi)."""
    rg = _sp.rgamma(y)
    ps = _sp.psi(y)
    pole = (y <= 0) & (y == np.floor(y))
    m = np.where(pole, -y, 0.0)
    sg = np.where(np.fmod(m, 2.0) == 0, 1.0, -1.0)
    mf = _sp.gamma(m + 1.0)
    d1 = np.where(pole, sg * mf, -ps * rg)
    if order < 2:
        return rg, d1, None
    tg = _trigamma_real(y)
    d2 = np.where(pole, -2.0 * sg * mf * _sp.psi(m + 1.0), (ps * ps - tg) * rg)
    return rg, d1, d2


def _wright_core(a, b, x, key, maxiter=400):
    out = np.full(a.shape[0], np.nan)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(x) & (a >= 0) & (b >= 0) & (x >= 0)
    if not np.any(ok):
        return out
    idx = np.nonzero(ok)[0]
    a, b, x = a[idx], b[idx], x[idx]
    pa = key.count("a")                     # power of k from the chain rule d/da (ak+b) = k
    order = len(key)
    lx = np.log(x)
    s = np.zeros_like(a)
    prev_small = np.zeros(a.shape, dtype=bool)
    lt_prev = np.full(a.shape, np.inf)
    for k in range(maxiter):
        y = a * k + b
        rg, d1, d2 = _rgamma012(y, order)
        dr = d1 if order == 1 else d2
        # x^k / k! (x = 0: only k = 0)
        if k == 0:
            pw = np.ones_like(a)
        else:
            pw = np.where(x > 0, np.exp(k * lx - _sp.gammaln(k + 1.0)), 0.0)
        t = pw * dr * (float(k) ** pa)
        s = s + t
        # base term x^k/k!/Gamma(ak+b) (log) to see the series decaying
        lt = k * lx - _sp.gammaln(k + 1.0) - _sp.gammaln(np.maximum(y, 1.0))
        small = (np.abs(t) <= 1e-17 * np.abs(s)) & (lt < lt_prev - 0.69) & (k > 2)
        small |= (x == 0) & (k >= 1)
        done = small & prev_small
        prev_small = small
        lt_prev = lt
        if np.any(done):
            out[idx[done]] = s[done]
            keep = ~done
            idx, a, b, x, lx, s, prev_small, lt_prev = (v[keep] for v in (idx, a, b, x, lx, s,
                                                                          prev_small, lt_prev))
            if idx.size == 0:
                break
    return out


def _wright(a, b, x, key):
    with np.errstate(all="ignore"):
        shape, _, (a, b, x) = _prep((a, b, x))
        sk = np.where(np.isnan(x), 0.0, x / np.maximum(a, 0.05))
        res = _chunked(lambda a_, b_, x_: _wright_core(a_, b_, x_, key), a.shape[0], (a, b, x),
                       np.float64, key=sk)
        return res.reshape(shape)


_WB_DOC = """{what} of Wright's generalized Bessel function scipy.special.wright_bessel(a, b, x),
    a >= 0, b >= 0, x >= 0 (SciPy's domain).

    Method: the series DLMF 10.46.1, Phi = sum_k x^k / (k! Gamma(a k + b)), differentiated term by
    term: d/db brings (1/Gamma)'(ak+b) = -psi/Gamma, d/da brings k (1/Gamma)'(ak+b); the second
    derivatives (1/Gamma)'' = (psi^2 - psi')/Gamma with k^2, k, 1 (DLMF 5.2.2, 5.15; pole limits at
    ak+b = 0).  Stops when the terms have fallen below 1e-17 of the sum twice while the base term
    still halves; at most 400 terms: NaN where that is not enough (large x with small a, about
    x > 150 for a = 1, x > 40 for a = 0.1).  NaN outside SciPy's domain.
    """


def wright_bessel_da(a, b, x):
    return _wright(a, b, x, "a")


def wright_bessel_db(a, b, x):
    return _wright(a, b, x, "b")


def wright_bessel_da2(a, b, x):
    return _wright(a, b, x, "aa")


def wright_bessel_dadb(a, b, x):
    return _wright(a, b, x, "ab")


def wright_bessel_db2(a, b, x):
    return _wright(a, b, x, "bb")


wright_bessel_da.__doc__ = _WB_DOC.format(what="d/da")
wright_bessel_db.__doc__ = _WB_DOC.format(what="d/db")
wright_bessel_da2.__doc__ = _WB_DOC.format(what="d2/da2")
wright_bessel_dadb.__doc__ = _WB_DOC.format(what="d2/dadb")
wright_bessel_db2.__doc__ = _WB_DOC.format(what="d2/db2")
