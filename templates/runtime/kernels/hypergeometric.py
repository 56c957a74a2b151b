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
of the transformed form follow by the chain rule (documented in each kernel).
"""

import numpy as np
from scipy import special as _sp

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


def _pfq_series(nums, dens, w, derivs, maxiter=3000, want_mag=False, polepass=False):
    """Sum the pFq series in w and its parameter derivatives.

    nums, dens: lists of float64 arrays (same length n); w: float64 or complex128 array.
    derivs: list of tuples of parameter indices (0.. for nums, then dens), each of length 0, 1, 2;
    e.g. [(), (0,), (0, 2)] asks for F, dF/dp0, d2F/dp0dp2.
    Returns (list of sums, list of sum|t| magnitudes or None, number of terms used per element).
    Elements not converged within maxiter are NaN.  polepass: 1/(p)_n is taken as 0 past a pole
    p = -k (the convention of a series that terminates before the pole; the caller keeps the
    result only where it does).
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
    P = np.ones(n, dtype=dt)
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
            done |= ~np.isfinite(sums[0])
            if np.any(done):
                sel = idx[done]
                for j in range(len(derivs)):
                    res[j][sel] = sums[j][done]
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
        sums, mags, _ = _pfq_series([b[i] - a[i]], [b[i]], -x[i], dl, want_mag=True)
        ex = np.exp(x[i])
        val = _combine([c[0] for c in comb], sums[1:])
        err = 2 * _EPS * 4 * _combine([abs(c[0]) for c in comb], mags[1:])
        bad = err > tol * np.maximum(np.abs(val), np.abs(sums[0]))
        out[i] = np.where(bad, np.nan, ex * val)
    return out


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
    NaN where b is a non-positive integer (SciPy: inf), for non-finite inputs, and where the
    rounding-error estimate of the series (cancellation, large |x|) exceeds the accuracy target.
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


def _hyp2f1_ridders(a, b, c, z, key):
    """Last resort: Ridders-extrapolated central differences of scipy.special.hyp2f1 in the
    parameters; NaN where the estimated relative error exceeds 1e-9."""
    d = _H2_KEYS[key]
    base = [a, b, c]

    def at(shifts):
        p = list(base)
        for i, s in shifts:
            p[i] = p[i] + s
        return _sp.hyp2f1(p[0], p[1], p[2], z)

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
    bad = ~(err <= 1e-9 * np.abs(val))
    return np.where(bad, np.nan, val)


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
    F(a,b;c;z) = (1-z)^-a F(a, c-b; c; w) (DLMF 15.8.1) differentiated by the chain rule.  Where
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
