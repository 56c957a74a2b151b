"""Parameter derivatives of the non-central chi-square, F and t CDFs (host kernels).

Kernels (positional arguments in SciPy's order, float64 results of the broadcast shape):

* ``chndtr_ddf(x, df, nc)``, ``chndtr_ddf2``: d/d df and d^2/d df^2 of ``scipy.special.chndtr``.
* ``ncfdtr_ddfn``, ``ncfdtr_ddfd``, ``ncfdtr_ddfn2``, ``ncfdtr_ddfnddfd``, ``ncfdtr_ddfd2``
  (all ``(dfn, dfd, nc, f)``): first and second derivatives of ``scipy.special.ncfdtr`` in its degrees
  of freedom.
* ``nctdtr_ddf``, ``nctdtr_ddf2``, ``nctdtr_ddfdnc``, ``nctdtr_ddfdt`` (all ``(df, nc, t)``): d/d df of
  ``scipy.special.nctdtr``, and its derivatives in df, nc and t.

Method: each CDF is a Poisson mixture of regularised incomplete gamma or beta functions, and the
parameter derivatives are the same mixtures of the terms' derivatives (the chain rule, term by term):

* chndtr(x, df, nc) = sum_j w_j P(df/2 + j, x/2), w_j = e^(-nc/2) (nc/2)^j / j!
  (Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions 2, 29.2; Ding, Appl. Statist. 41
  (1992) 478, algorithm AS 275).
* ncfdtr(dfn, dfd, nc, f) = sum_j w_j I_y(dfn/2 + j, dfd/2), y = dfn f / (dfn f + dfd)
  (JKB ch. 30; Patnaik 1949): y depends on dfn and dfd, so each term's derivative is the incomplete beta
  function's parameter derivative plus its density times dy/d dfn (and the second-order terms of the
  chain rule, with the density's closed-form derivatives in a, b and y, DLMF 8.17.2 differentiated).
* nctdtr(df, nc, t), t >= 0: Phi(-nc) + 1/2 sum_j [p_j I_x(j + 1/2, df/2) + q_j I_x(j + 1, df/2)],
  x = t^2 / (t^2 + df), p_j = e^(-nc^2/2) (nc^2/2)^j / j!, q_j = nc e^(-nc^2/2) (nc^2/2)^j / (sqrt 2 Gamma(j + 3/2))
  (Lenth, Appl. Statist. 38 (1989) 185, algorithm AS 243; Benton & Krishnamoorthy, CSDA 43 (2003) 249);
  F(t; nc) = 1 - F(-t; -nc) for t < 0.  d/dnc of the weights: dp_j/dnc = nc (p_(j-1) - p_j),
  dq_j/dnc = (2j + 1 - nc^2) q_j / nc.

The terms' parameter derivatives come from jaxsci's incomplete gamma and beta kernels
(``kernels/incomplete.py``: series and continued fractions differentiated in the parameter).  The sum is
vectorised over elements and a block of terms at once: it starts at j0 = max(0, floor(lam - 20 sqrt(lam) - 20))
(lam the Poisson mean; the weights below j0 are under e^-200 of the mode's) and goes up in blocks of 8
until past the Poisson mode and until the Poisson upper tail, times a bound 1e3 max(1, max |term|) on the
terms still to come, is below 1e-17 of the sum; at 4000 terms an unfinished element is NaN.

Accuracy (tests/test_kernels_noncentral.py and the specs' gradient references): about 1e-13 relative or
better in the specs' domains; the terms are all of one sign for chndtr's first derivative, while ncfdtr's
chain-rule terms and Lenth's p_j and q_j terms can have opposite signs.  For nctdtr with nc * t < 0 and large
|nc| the q_j terms cancel the p_j terms: at nc = -6, t = 2 (a derivative of 4e-13) the error is 1e-7.

Elements outside the domain (non-positive degrees of freedom, negative nc for chndtr / ncfdtr, x or f
negative, NaN) give NaN; at x = 0 or f = 0 (CDF 0), t = 0 (CDF Phi(-nc), free of df), and infinite
x, f or t the derivatives are exactly 0, except d^2/(d df dt) at t = 0: the density there,
phi(nc) sqrt(2/df) Gamma((df+1)/2) / Gamma(df/2), differentiated in df.
"""

import numpy as np
from scipy import special as _sc

from . import incomplete as _inc

__all__ = [
    "chndtr_ddf", "chndtr_ddf2",
    "ncfdtr_ddfn", "ncfdtr_ddfd", "ncfdtr_ddfn2", "ncfdtr_ddfnddfd", "ncfdtr_ddfd2",
    "nctdtr_ddf", "nctdtr_ddf2", "nctdtr_ddfdnc", "nctdtr_ddfdt",
]

_BLOCK = 8
_CAP = 4000
_TAIL_RTOL = 1e-17
_TERM_BOUND = 1e3


# ----------------------------------------------------------------------------------- the mixture sum
def _mixture(lam, terms, tail_factor=None):
    """sum_j terms(idx, J) for each element, J = j0, j0 + 1, ... (blocks of _BLOCK columns).

    ``terms(idx, J)`` returns (weighted terms, |unweighted terms|) of shape J.shape for the elements
    ``idx``; ``tail_factor`` (per element) multiplies the Poisson tail bound (for weights larger than
    Poisson ones by a bounded factor)."""
    n = lam.size
    total = np.zeros(n)
    runmax = np.zeros(n)
    j0 = np.maximum(0.0, np.floor(lam - 20.0 * np.sqrt(lam) - 20.0))
    active = np.arange(n)
    out = np.full(n, np.nan)
    offs = np.arange(_BLOCK, dtype=np.float64)
    for k in range(0, _CAP, _BLOCK):
        if active.size == 0:
            break
        J = j0[active, None] + (k + offs)[None, :]
        wt, mag = terms(active, J)
        total[active] += np.sum(wt, axis=1)
        runmax[active] = np.fmax(runmax[active], np.max(mag, axis=1))
        jl = J[:, -1]
        la = lam[active]
        # Poisson upper tail Pr[N > jl] = P(jl + 1, lam) (regularised lower incomplete gamma)
        tail = np.where(la > 0, _sc.gammainc(jl + 1.0, la), 0.0)
        bound = tail * _TERM_BOUND * np.maximum(runmax[active], 1.0)
        if tail_factor is not None:
            bound = bound * tail_factor[active]
        ok = np.isfinite(total[active])
        done = (jl >= la) & (bound <= _TAIL_RTOL * np.abs(total[active]))
        done |= ~ok
        out[active[done]] = total[active[done]]
        active = active[~done]
    return out


def _log_poisson(lam, J):
    """log(e^-lam lam^J / J!) with the limit lam = 0 (weight 1 at J = 0)."""
    lam = lam[:, None] * np.ones_like(J)
    with np.errstate(divide="ignore", invalid="ignore"):
        lw = -lam + J * np.log(lam) - _sc.gammaln(J + 1.0)
    return np.where(lam > 0, lw, np.where(J == 0, 0.0, -np.inf))


def _rows(v, idx, J):
    return np.broadcast_to(v[idx, None], J.shape).ravel()


def _flat_run(core, args):
    """Broadcast the arguments, evaluate ``core`` on flat float64 arrays, reshape."""
    with np.errstate(all="ignore"):
        arrs = np.broadcast_arrays(*[_inc._as_real(v) for v in args])
        shape = arrs[0].shape
        flat = [np.ascontiguousarray(v, dtype=np.float64).ravel() for v in arrs]
        out = np.empty(flat[0].size, dtype=np.float64)
        for s in range(0, out.size, _inc._CHUNK):
            out[s:s + _inc._CHUNK] = core(*[v[s:s + _inc._CHUNK] for v in flat])
        return out.reshape(shape)


# --------------------------------------------------------------------------- non-central chi-square
def _chndtr_core(order):
    def core(x, df, nc):
        out = np.full(x.shape, np.nan)
        good = (df > 0) & (df < np.inf) & (nc >= 0) & (nc < np.inf) & (x >= 0)
        edge = good & ((x == 0) | (x == np.inf))
        out[edge] = 0.0
        reg = good & ~edge
        if reg.any():
            xr, dr, lam = x[reg] / 2.0, df[reg] / 2.0, nc[reg] / 2.0

            def terms(idx, J):
                d = _inc._gammainc_core(_rows(dr, idx, J) + J.ravel(), _rows(xr, idx, J), order)
                d = d.reshape(J.shape) * 0.5 ** order
                return np.exp(_log_poisson(lam[idx], J)) * d, np.abs(d)

            out[reg] = _mixture(lam, terms)
        return out
    return core


def chndtr_ddf(x, df, nc):
    """d/d df of the non-central chi-square CDF ``scipy.special.chndtr(x, df, nc)``:
    sum_j w_j (1/2) dP/da (df/2 + j, x/2), the Poisson mixture (JKB 29.2) differentiated term by term,
    with jaxsci's ``gammainc_da`` series / continued fraction for the terms."""
    return _flat_run(_chndtr_core(1), (x, df, nc))


def chndtr_ddf2(x, df, nc):
    """d^2/d df^2 of ``scipy.special.chndtr(x, df, nc)``: sum_j w_j (1/4) d^2P/da^2 (df/2 + j, x/2)
    (JKB 29.2 differentiated twice; jaxsci's ``gammainc_da2`` for the terms)."""
    return _flat_run(_chndtr_core(2), (x, df, nc))


# --------------------------------------------------------------------------------- beta-term pieces
def _beta_terms(a, b, y, ym, what):
    """Derivatives of I_y(a, b) (flat arrays; ym = 1 - y computed without cancellation) in a, b, y:
    ``what`` is a tuple of names among 'I_a', 'I_b', 'I_aa', 'I_ab', 'I_bb', 'p', 'p_a', 'p_b', 'p_y'
    (p the beta density y^(a-1) (1-y)^(b-1) / B(a, b), DLMF 8.17.2 differentiated)."""
    res = {}
    kern = {"I_a": ("a", None), "I_b": ("b", None), "I_aa": ("a", "a"), "I_ab": ("a", "b"),
            "I_bb": ("b", "b")}
    for name in what:
        if name in kern:
            res[name] = _inc._betainc_core(a, b, y, *kern[name])
    if any(n.startswith("p") for n in what):
        ly, lym = np.log(y), np.log(ym)
        p = np.exp((a - 1.0) * ly + (b - 1.0) * lym - _sc.betaln(a, b))
        res["p"] = p
        psab = _sc.digamma(a + b)
        if "p_a" in what:
            res["p_a"] = p * (ly - _sc.digamma(a) + psab)
        if "p_b" in what:
            res["p_b"] = p * (lym - _sc.digamma(b) + psab)
        if "p_y" in what:
            res["p_y"] = p * ((a - 1.0) / y - (b - 1.0) / ym)
    return res


# ---------------------------------------------------------------------------------- non-central F
def _ncf_core(dirs):
    """Derivative of ncfdtr in the directions ``dirs`` (a tuple of 'n' and/or 'd')."""
    def core(dfn, dfd, nc, f):
        out = np.full(dfn.shape, np.nan)
        good = ((dfn > 0) & (dfn < np.inf) & (dfd > 0) & (dfd < np.inf) & (nc >= 0) & (nc < np.inf)
                & (f >= 0))
        edge = good & ((f == 0) | (f == np.inf))
        out[edge] = 0.0
        reg = good & ~edge
        if not reg.any():
            return out
        n, d, fr, lam = dfn[reg], dfd[reg], f[reg], nc[reg] / 2.0
        s = n * fr + d
        y, ym = n * fr / s, d / s
        # dy/d dfn, dy/d dfd and second derivatives of y = dfn f / (dfn f + dfd)
        dy = {"n": fr * d / s ** 2, "d": -n * fr / s ** 2}
        ddy = {("n", "n"): -2.0 * fr * fr * d / s ** 3, ("d", "d"): 2.0 * n * fr / s ** 3,
               ("n", "d"): fr * (n * fr - d) / s ** 3}
        par = {"n": "a", "d": "b"}
        if len(dirs) == 1:
            u, = dirs
            what = ("I_" + par[u], "p")
        else:
            u, v = dirs
            what = ("I_" + "".join(sorted(par[u] + par[v])), "p", "p_" + par[u], "p_" + par[v], "p_y")

        def terms(idx, J):
            a = 0.5 * _rows(n, idx, J) + J.ravel()
            b = 0.5 * _rows(d, idx, J)
            r = _beta_terms(a, b, _rows(y, idx, J), _rows(ym, idx, J), what)
            if len(dirs) == 1:
                t = 0.5 * r[what[0]] + r["p"] * _rows(dy[u], idx, J)
            else:
                yu, yv = _rows(dy[u], idx, J), _rows(dy[v], idx, J)
                key = (u, v) if (u, v) in ddy else (v, u)
                t = (0.25 * r[what[0]] + 0.5 * (r["p_" + par[u]] * yv + r["p_" + par[v]] * yu)
                     + r["p_y"] * yu * yv + r["p"] * _rows(ddy[key], idx, J))
            t = t.reshape(J.shape)
            return np.exp(_log_poisson(lam[idx], J)) * t, np.abs(t)

        out[reg] = _mixture(lam, terms)
        return out
    return core


def ncfdtr_ddfn(dfn, dfd, nc, f):
    """d/d dfn of ``scipy.special.ncfdtr(dfn, dfd, nc, f)``: sum_j w_j [(1/2) dI/da + density * dy/d dfn]
    at I_y(dfn/2 + j, dfd/2), y = dfn f / (dfn f + dfd) (JKB ch. 30, term by term; jaxsci's ``betainc_da``)."""
    return _flat_run(_ncf_core(("n",)), (dfn, dfd, nc, f))


def ncfdtr_ddfd(dfn, dfd, nc, f):
    """d/d dfd of ``scipy.special.ncfdtr``: sum_j w_j [(1/2) dI/db + density * dy/d dfd] (as ``ncfdtr_ddfn``)."""
    return _flat_run(_ncf_core(("d",)), (dfn, dfd, nc, f))


def ncfdtr_ddfn2(dfn, dfd, nc, f):
    """d^2/d dfn^2 of ``scipy.special.ncfdtr``: the mixture of the terms' second derivatives by the chain
    rule (``betainc_da2`` and the beta density's derivatives in a and y)."""
    return _flat_run(_ncf_core(("n", "n")), (dfn, dfd, nc, f))


def ncfdtr_ddfnddfd(dfn, dfd, nc, f):
    """d^2/(d dfn d dfd) of ``scipy.special.ncfdtr`` (``betainc_dadb`` and the density's derivatives)."""
    return _flat_run(_ncf_core(("n", "d")), (dfn, dfd, nc, f))


def ncfdtr_ddfd2(dfn, dfd, nc, f):
    """d^2/d dfd^2 of ``scipy.special.ncfdtr`` (``betainc_db2`` and the density's derivatives)."""
    return _flat_run(_ncf_core(("d", "d")), (dfn, dfd, nc, f))


# ---------------------------------------------------------------------------------- non-central t
_LOG_SQRT2 = 0.5 * np.log(2.0)


def _nct_core(kind):
    """kind: 'df' (d/d df), 'dfdf', 'dfnc' (d^2/(d df d nc)), 'dfdt'."""
    def core(df, nc, t):
        out = np.full(df.shape, np.nan)
        good = (df > 0) & (df < np.inf) & np.isfinite(nc) & ~np.isnan(t)
        edge = good & ((t == 0) | np.isinf(t))
        out[edge] = 0.0
        if kind == "dfdt":
            # at t = 0 the density is phi(nc) c(df), c(df) = E[S] = sqrt(2/df) Gamma((df+1)/2) / Gamma(df/2),
            # whose derivative in df is c(df) ((psi((df+1)/2) - psi(df/2)) / 2 - 1 / (2 df))
            z = good & (t == 0)
            dz, nz = df[z], nc[z]
            c = np.exp(0.5 * np.log(2.0 / dz) + _sc.gammaln(0.5 * (dz + 1.0)) - _sc.gammaln(0.5 * dz))
            out[z] = (np.exp(-0.5 * nz * nz) / np.sqrt(2.0 * np.pi) * c
                      * (0.5 * (_sc.digamma(0.5 * (dz + 1.0)) - _sc.digamma(0.5 * dz)) - 0.5 / dz))
        reg = good & ~edge
        if not reg.any():
            return out
        # F(t; nc) = 1 - G(-t; -nc) for t < 0: d/d df flips sign, d^2/(d df dt) and d^2/(d df dnc) do not
        neg = t[reg] < 0
        sgn = np.where(neg, -1.0, 1.0)
        u, m, d = np.abs(t[reg]), np.where(neg, -nc[reg], nc[reg]), df[reg]
        lam = 0.5 * m * m
        s = u * u + d
        x, xm = u * u / s, d / s
        x_d = -u * u / s ** 2                 # dx/d df
        x_dd = 2.0 * u * u / s ** 3           # d^2x/d df^2
        x_t = 2.0 * u * d / s ** 2            # dx/dt
        x_dt = 2.0 * u * (u * u - d) / s ** 3
        what = {"df": ("I_b", "p"), "dfnc": ("I_b", "p"), "dfdf": ("I_bb", "p", "p_b", "p_y"),
                "dfdt": ("p", "p_b", "p_y")}[kind]
        def term(a, idx, J):
            b = 0.5 * _rows(d, idx, J)
            r = _beta_terms(a, b, _rows(x, idx, J), _rows(xm, idx, J), what)
            xd = _rows(x_d, idx, J)
            if kind in ("df", "dfnc"):
                v = 0.5 * r["I_b"] + r["p"] * xd
            elif kind == "dfdf":
                v = 0.25 * r["I_bb"] + r["p_b"] * xd + r["p_y"] * xd * xd + r["p"] * _rows(x_dd, idx, J)
            else:
                xt = _rows(x_t, idx, J)
                v = 0.5 * r["p_b"] * xt + r["p_y"] * xt * xd + r["p"] * _rows(x_dt, idx, J)
            return v.reshape(J.shape)

        def terms(idx, J):
            Jf = J.ravel()
            tp = term(Jf + 0.5, idx, J)
            tq = term(Jf + 1.0, idx, J)
            la = lam[idx, None] * np.ones_like(J)
            lp = _log_poisson(lam[idx], J)
            with np.errstate(divide="ignore", invalid="ignore"):
                # |q_j| / nc without the nc: e^-lam lam^j / (sqrt 2 Gamma(j + 3/2))
                lc = np.where(la > 0, -la + J * np.log(la), np.where(J == 0, 0.0, -np.inf)) \
                    - _sc.gammaln(J + 1.5) - _LOG_SQRT2
            mm = m[idx, None]
            if kind == "dfnc":
                lp1 = _log_poisson(lam[idx], J - 1.0)
                lp1 = np.where(J >= 1, lp1, -np.inf)
                wp = mm * (np.exp(lp1) - np.exp(lp))
                wq = (2.0 * J + 1.0 - mm * mm) * np.exp(lc)
            else:
                wp = np.exp(lp)
                wq = mm * np.exp(lc)
            return 0.5 * (wp * tp + wq * tq), np.maximum(np.abs(tp), np.abs(tq))

        # |q_j| <= |nc| p_j / sqrt(j + 1/2)...; for d/dnc the weights are bounded by (j + 1 + nc^2) times
        factor = (1.0 + np.abs(m)) * (1.0 + m * m) * (1.0 if kind != "dfnc" else 1e3)
        res = _mixture(lam, terms, factor)
        out[reg] = res * (sgn if kind in ("df", "dfdf") else 1.0)
        return out
    return core


def nctdtr_ddf(df, nc, t):
    """d/d df of ``scipy.special.nctdtr(df, nc, t)``: Lenth's mixture (AS 243) differentiated term by term,
    (1/2) sum_j [p_j D I_x(j + 1/2, df/2) + q_j D I_x(j + 1, df/2)], D = (1/2) d/db + density * dx/d df,
    x = t^2 / (t^2 + df) (jaxsci's ``betainc_db``); t < 0 by F(t; nc) = 1 - F(-t; -nc)."""
    return _flat_run(_nct_core("df"), (df, nc, t))


def nctdtr_ddf2(df, nc, t):
    """d^2/d df^2 of ``scipy.special.nctdtr`` (Lenth's mixture, ``betainc_db2`` and the beta density's
    derivatives in b and x)."""
    return _flat_run(_nct_core("dfdf"), (df, nc, t))


def nctdtr_ddfdnc(df, nc, t):
    """d^2/(d df d nc) of ``scipy.special.nctdtr``: Lenth's mixture with the weights differentiated,
    dp_j/dnc = nc (p_(j-1) - p_j), dq_j/dnc = (2j + 1 - nc^2) q_j / nc."""
    return _flat_run(_nct_core("dfnc"), (df, nc, t))


def nctdtr_ddfdt(df, nc, t):
    """d^2/(d df dt) of ``scipy.special.nctdtr``: Lenth's mixture of the beta densities' derivatives in
    b and x (DLMF 8.17.2 differentiated), times dx/dt."""
    return _flat_run(_nct_core("dfdt"), (df, nc, t))
