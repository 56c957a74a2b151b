"""Derivatives of the Gauss hypergeometric distribution's cdf in its shape parameters (host kernels).

Kernels (float64 results of the broadcast shape of their arguments):

* ``gausshyper_cdf_da(x, a, b, c, z)``, ``gausshyper_cdf_db``, ``gausshyper_cdf_dc``, ``gausshyper_cdf_dz``: the
  first derivatives of F(x; a, b, c, z) = ``scipy.stats.gausshyper.cdf(x, a, b, c, z)`` in one shape parameter;
* ``gausshyper_cdf_d2(x, a, b, c, z, i, j)``: the second derivative in the shape parameters numbered i and j
  (1 a, 2 b, 3 c, 4 z; i = j on the diagonal).

F = J / (J + K), with J = int_0^x g and K = int_x^1 g, g(t) = t^(a-1) (1-t)^(b-1) (1+zt)^(-c) (SciPy's density
before its normalization B(a, b) 2F1(c, a; a+b; -z)); no closed form exists (it is an Appell F1 function of
x and -zx), and SciPy integrates the density numerically. Differentiating under the integral sign,
with L_theta = d log g / d theta (log t, log(1-t), -log(1+zt), -ct/(1+zt)):

    J_theta = int_0^x g L_theta,   J_theta,phi = int_0^x g (L_theta L_phi + d L_theta / d phi),   (K alike on [x, 1])
    F_theta = (J_theta K - J K_theta) / (J + K)^2,
    F_theta,phi = (J_theta,phi K + J_theta K_phi - J_phi K_theta - J K_theta,phi) / (J + K)^2
                  - 2 (J_theta K - J K_theta) (J_phi + K_phi) / (J + K)^3,

(the quotient rule, written so that neither side's integral is subtracted from the whole: no cancellation
as x nears 0 or 1). The only non-zero d L / d phi are d L_c / dz = d L_z / dc = -t/(1+zt) and
d L_z / dz = c t^2 / (1+zt)^2. The integrals are taken after the substitutions t = x u^(1/p), p = min(a, 1) (J: t^(a-1) dt =
x^a / p u^(a/p - 1) du, bounded) and 1 - t = (1-x) v^(1/q), q = min(b, 1) (K), which remove the endpoint
singularities of the powers below 1 (a larger power is left as it is: the substitution would crowd its
mass into a corner), by tanh-sinh quadrature on
[0, 1] (Takahasi and Mori, Publ. RIMS 9 (1974) 721-741), whose double-exponential node spacing also
integrates the log u singularities that log t brings: step 1/64 over |s| <= 3.2 (409 nodes). J and K
carry their prefactors x^a / p and (1-x)^b / q as logarithms, scaled together, so that large shape
parameters do not overflow.

Accuracy (tests/test_kernels_gausshyper.py, against mpmath's quadrature at 30 digits): about 1e-12 relative
at SciPy's test parameters and for a, b in [0.5, 20], c in [-3, 3], z in (-0.9, 10], x in [0.02, 0.98].
NaN outside SciPy's parameters (a, b > 0, z > -1, c finite) and for x outside (0, 1).
"""

import numpy as np

__all__ = ["gausshyper_cdf_da", "gausshyper_cdf_db", "gausshyper_cdf_dc", "gausshyper_cdf_dz", "gausshyper_cdf_d2"]

_STEP = 1.0 / 64
_SPAN = 3.2


def _nodes():
    """tanh-sinh nodes and weights on [0, 1]: t = (1 + tanh(pi/2 sinh s)) / 2, near 0 as e^(-2|u|) / (1 + e^(-2|u|))."""
    s = np.arange(-_SPAN, _SPAN + _STEP / 2, _STEP)
    u = np.pi / 2 * np.sinh(s)
    small = np.exp(-2 * np.abs(u)) / (1 + np.exp(-2 * np.abs(u)))
    t = np.where(u < 0, small, 1 - small)
    w = _STEP * np.pi / 2 * np.cosh(s) / (2 * np.cosh(u) ** 2)
    return t, w


_T, _W = _nodes()


def _logs(t, log_t, log_1mt, a, b, c, z):
    """L_theta for theta = a, b, c, z at the points t (log t and log(1 - t) given without cancellation)."""
    zt = z * t
    return {1: log_t, 2: log_1mt, 3: -np.log1p(zt), 4: -c * t / (1 + zt)}


def _second(t, c, z, i, j):
    """d L_i / d theta_j."""
    if {i, j} == {3, 4}:
        return -t / (1 + z * t)
    if i == j == 4:
        return c * t * t / (1 + z * t) ** 2
    return 0.0


def _weight(logs, t, c, z, i, j):
    if i == 0:
        return 1.0
    if j == 0:
        return logs[i]
    return logs[i] * logs[j] + _second(t, c, z, i, j)


def _sides(x, a, b, c, z, pairs):
    """For each (i, j) in pairs: (J, K) of the integrand g times _weight(i, j), with one common scale."""
    x, a, b, c, z = (v[:, None] for v in (x, a, b, c, z))
    u, w = _T[None, :], _W[None, :]
    # J: t = x u^(1/p), p = min(a, 1): t^(a-1) dt = x^a / p u^(a/p - 1) du, bounded; log t = log x + log(u) / p
    p, q = np.minimum(a, 1), np.minimum(b, 1)
    log_u = np.log(u)
    log_tj = np.log(x) + log_u / p
    tj = np.exp(log_tj)
    log_1mtj = np.log1p(-tj)
    gj = np.exp((a / p - 1) * log_u + (b - 1) * log_1mtj - c * np.log1p(z * tj))
    # K: 1 - t = (1 - x) v^(1/q), q = min(b, 1)
    log_1mtk = np.log1p(-x) + log_u / q
    tk = -np.expm1(log_1mtk)
    log_tk = np.log1p(-np.exp(log_1mtk))
    gk = np.exp((b / q - 1) * log_u + (a - 1) * log_tk - c * np.log1p(z * tk))
    pj = a[:, 0] * np.log(x[:, 0]) - np.log(p[:, 0])
    pk = b[:, 0] * np.log1p(-x[:, 0]) - np.log(q[:, 0])
    top = np.maximum(pj, pk)
    fj, fk = np.exp(pj - top), np.exp(pk - top)
    logs_j = _logs(tj, log_tj, log_1mtj, a, b, c, z)
    logs_k = _logs(tk, log_tk, log_1mtk, a, b, c, z)
    out = {}
    for i, j in pairs:
        J = fj * np.sum(w * gj * _weight(logs_j, tj, c, z, i, j), axis=1)
        K = fk * np.sum(w * gk * _weight(logs_k, tk, c, z, i, j), axis=1)
        out[i, j] = (J, K)
    return out


def _run(x, a, b, c, z, i, j):
    with np.errstate(all="ignore"):
        arrays = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, a, b, c, z)))
        shape = arrays[0].shape
        x, a, b, c, z = (v.ravel() for v in arrays)
        out = np.full(x.shape, np.nan)
        good = (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (z > -1) & np.isfinite(z) \
            & (x > 0) & (x < 1)
        if np.any(good):
            out[good] = _derivative(x[good], a[good], b[good], c[good], z[good], i, j)
        return out.reshape(shape)


def _derivative(x, a, b, c, z, i, j):
    pairs = [(0, 0), (i, 0)] + ([(j, 0), (i, j)] if j else [])
    s = _sides(x, a, b, c, z, pairs)
    J, K = s[0, 0]
    Ji, Ki = s[i, 0]
    total = J + K
    first = (Ji * K - J * Ki) / total**2
    if not j:
        return first
    Jj, Kj = s[j, 0]
    Jij, Kij = s[i, j]
    return (Jij * K + Ji * Kj - Jj * Ki - J * Kij) / total**2 - 2 * first * (Jj + Kj) / total


def gausshyper_cdf_da(x, a, b, c, z):
    """d/da of ``scipy.stats.gausshyper.cdf(x, a, b, c, z)``: see the module docstring."""
    return _run(x, a, b, c, z, 1, 0)


def gausshyper_cdf_db(x, a, b, c, z):
    """d/db of ``scipy.stats.gausshyper.cdf(x, a, b, c, z)``: see the module docstring."""
    return _run(x, a, b, c, z, 2, 0)


def gausshyper_cdf_dc(x, a, b, c, z):
    """d/dc of ``scipy.stats.gausshyper.cdf(x, a, b, c, z)``: see the module docstring."""
    return _run(x, a, b, c, z, 3, 0)


def gausshyper_cdf_dz(x, a, b, c, z):
    """d/dz of ``scipy.stats.gausshyper.cdf(x, a, b, c, z)``: see the module docstring."""
    return _run(x, a, b, c, z, 4, 0)


def gausshyper_cdf_d2(x, a, b, c, z, i, j):
    """d^2 / (d theta_i d theta_j) of ``scipy.stats.gausshyper.cdf(x, a, b, c, z)``, theta = (a, b, c, z)
    numbered 1 to 4; i and j are scalar integers (NaN for others): see the module docstring."""
    i, j = (np.asarray(v) for v in (i, j))
    if i.ndim or j.ndim:  # one pair per call, as the distribution's rules call it; an array is taken elementwise
        ii, jj = (v.astype(int) for v in np.broadcast_arrays(i, j))
        arrays = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, a, b, c, z)), ii, jj)
        out = np.full(arrays[0].shape, np.nan)
        for pair in set(zip(arrays[5].ravel().tolist(), arrays[6].ravel().tolist())):
            mask = (arrays[5] == pair[0]) & (arrays[6] == pair[1])
            if 1 <= pair[0] <= 4 and 1 <= pair[1] <= 4:
                out[mask] = _run(*(v[mask] for v in arrays[:5]), *pair)
        return out
    if not (1 <= int(i) <= 4 and 1 <= int(j) <= 4 and i == int(i) and j == int(j)):
        return np.full(np.broadcast_shapes(*(np.shape(v) for v in (x, a, b, c, z))), np.nan)
    return _run(x, a, b, c, z, int(i), int(j))
