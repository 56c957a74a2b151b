"""Derivatives in the argument of the exponentially scaled modified Bessel functions
ive(v, x) = I_v(x) exp(-|x|) (real x) and kve(v, z) = K_v(z) exp(z), of any order k in the argument
and of order p = 0, 1, 2 in v: d^p/dv^p d^k/dz^k.

Why a kernel: the rules from DLMF 10.29.1 and the product rule, such as i0e' = i1e - sign(x) i0e or
kve' = kve - (kve(v - 1) + kve(v + 1)) / 2, subtract numbers of the size of the function to get a
derivative 2|z| times smaller (the scaled functions behave like z^(-1/2)), so their relative error
grows like |z| eps for the first derivative and |z|^2 eps for the second (1e-8 and 1 at x = 1e8).

Methods:

* Hankel's expansions (DLMF 10.40.1, 10.40.2) differentiated term by term,
  ive = (2 pi x)^(-1/2) sum_j (-1)^j a_j(v) x^(-j) and kve = (pi / (2 z))^(1/2) sum_j a_j(v) z^(-j),
  a_j(v) of DLMF 10.17.1 carried with its first two v-derivatives (truncated Taylor arithmetic).
  The error of the differentiated remainder comes from Cauchy's estimate on the circle |t - z| = |z|/2
  (and, for p > 0, the disc |nu - v| <= 1/2 in the order): d^p/dv^p d^k/dz^k R is at most
  p! k! / (rho^p r^k) times the largest |R| there, which DLMF 10.40.11-10.40.12 bound for complex
  argument and order: |R_l(nu, t)| <= 2 |a_l(nu)| V(t^-l) exp(|nu^2 - 1/4| V(t^-1)), V(t^-l) = |t|^-l
  for |ph t| <= pi/2 and chi(l) |t|^-l for pi/2 <= |ph t| <= pi (chi of DLMF 9.7(i)). I comes from K
  by DLMF 10.34.2 (I_nu(t) = (K_nu(t e^-+pi i) - e^+-nu pi i K_nu(t)) / (pi i)), so its remainder is K's at
  |ph| in [5 pi/6, pi] plus the exponentially small e^(-2t) K_nu(t) part, bounded the same way. The
  number of terms is the one whose bound is least; the result is used where that bound and the
  summation's rounding are below 1e-14 of it.
* Elsewhere (small |z|, or orders too large for the expansion) the rule of DLMF 10.29.1 and the product
  rule, expanded to order k: d^k/dz^k [f_v(z) e^(-s z)] = sum_j C(k, j) (-s)^(k-j) 2^(-j) sum_i C(j, i)
  f_(v-j+2i)(z) e^(-s z), with SciPy's ive/kve (p = 0) or jaxsci's order kernels ive_dv(2)/kve_dv(2)
  (p = 1, 2) at the shifted orders; its error is estimated from the sum of the absolute terms times
  the evaluations' accuracy (1e-14 for SciPy's, 1e-13 and 1e-12 for the order kernels' first and second derivatives).

Where neither estimate is within 1e-10 of the result (1e-8 for a second derivative in all, k + p = 2,
1e-7 beyond), NaN; an order derivative is
measured against 1e-2 of the z-derivative as well (it vanishes, up to e^(-2x) for I, at v = 0). Real x < 0: ive(n, x) = (-1)^n ive(n, |x|) for
an integer order (NaN otherwise, as SciPy's ive); the order derivatives there follow the order kernels'
convention through the rule. kve at real x < 0 is NaN, as SciPy's.
"""
import numpy as np
from scipy import special as sc

from . import bessel

__all__ = ["ive_dz", "ive_dzdv", "ive_dzdv2", "kve_dz", "kve_dzdv", "kve_dzdv2"]

_ASYMPTOTIC_TOL = 1e-14  # the expansion's bound, relative, below which the rule is not tried
# the largest estimated relative error a result may have, by its total order k + p (the test suites'
# tolerances grow with the order: the rule's cancellation grows like (2|z|)^k)
_TOL = {0: 1e-10, 1: 1e-10, 2: 1e-8}
_TOL_HIGHER = 1e-7
_RHO = 0.5                # the radius of the disc in the order for Cauchy's estimate of v-derivatives
_TERMS = 90               # the most terms of the expansion (its best truncation is near 2|z| terms)
_EPS = np.finfo(np.float64).eps
_ACCURACY = {0: 1e-14, 1: 1e-13, 2: 1e-12}  # relative accuracy assumed of the rule's evaluations


def _log_chi(ell):
    """log chi(l) = log(pi^(1/2) Gamma(l/2 + 1) / Gamma(l/2 + 1/2)) (DLMF 9.7(i))."""
    return 0.5 * np.log(np.pi) + sc.gammaln(ell / 2 + 1) - sc.gammaln(ell / 2 + 0.5)


def _asymptotic(kind, v, z, k, p):
    """(d^p/dv^p d^k/dz^k of the scaled function by Hankel's expansion, its error bound), for real v,
    z with Re z > 0 (real z > 0 for kind 'i'), integer k >= 0; bound inf where the bound does not apply."""
    zc = z.astype(np.complex128)
    size = np.abs(zc)
    radius = size / 2  # Cauchy's circle |t - z| = |z|/2: |t| >= |z|/2, |ph t - ph z| <= pi/6
    reach = np.abs(np.angle(zc)) + np.pi / 6
    if kind == "i":  # K at t e^-+pi i: |ph| in [5 pi/6, pi]
        chi_used = np.ones(z.shape, dtype=bool)
        applies = (zc.imag == 0) & (zc.real > 0)
    else:
        chi_used = reach > np.pi / 2
        applies = reach <= np.pi
    rho = _RHO if p else 0.0
    spread = np.abs(v * v - 0.25) + 2 * np.abs(v) * rho + rho * rho  # max |nu^2 - 1/4| on the disc
    log_r = np.log(radius)
    # log of everything in the bound but 2 |a_l| chi(l) r^-l: p! k! / (rho^p r^k), the prefactor at |t| = r,
    # and exp(|nu^2 - 1/4| V(t^-1)) with V(t^-1) = chi(1) / r = pi / (2 r) where chi is used
    prefactor = 0.5 * np.log(np.pi / 2) if kind == "k" else -0.5 * np.log(2 * np.pi)
    log_fixed = (sc.gammaln(k + 1.0) - k * log_r + (sc.gammaln(p + 1.0) - p * np.log(rho) if p else 0.0)
                 + prefactor - 0.5 * log_r + spread * np.where(chi_used, np.pi / 2, 1.0) / radius)
    sign = -1.0 if kind == "i" else 1.0
    scale = np.exp(prefactor)  # (pi / 2)^(1/2) for K, (2 pi)^(-1/2) for I
    log_z = np.log(zc)
    a = [np.ones(v.shape), np.zeros(v.shape), np.zeros(v.shape)]  # a_j(v) and its v-derivatives
    bound_a = np.ones(v.shape)  # the largest |a_j(nu)| on the disc |nu - v| <= rho
    total = np.zeros(z.shape, dtype=np.complex128)
    absolute = np.zeros(z.shape)
    best = np.full(z.shape, np.inf)
    value = np.full(z.shape, np.nan, dtype=np.complex128)
    with np.errstate(all="ignore"):
        k_sign = np.where(k % 2 == 0, 1.0, -1.0)
        for j in range(_TERMS):
            if j:
                c = (2 * j - 1) ** 2
                q = (4 * v * v - c) / (8.0 * j)
                q1, q2 = v / j, 1.0 / j  # dq/dv = 8 v / (8 j), d2q/dv2 = 8 / (8 j)
                a = [a[0] * q, a[1] * q + a[0] * q1, a[2] * q + 2 * a[1] * q1 + a[0] * q2]
                bound_a = bound_a * (np.abs(4 * v * v - c) + 8 * np.abs(v) * rho + 4 * rho * rho) / (8.0 * j)
            # d^k/dz^k z^(-j-1/2) = (-1)^k (j + 1/2)_k z^(-j-1/2-k)
            power = k_sign * sc.poch(j + 0.5, k) * np.exp(-(j + 0.5 + k) * log_z)
            term = scale * sign ** j * a[p] * power
            total = total + term
            # a_j carries about j roundings: the sum's rounding is eps sum_j (j + 2) |term_j|
            absolute = absolute + (j + 2) * np.abs(term)
            ell = j + 1
            log_bound = log_fixed + np.log(2 * bound_a) - ell * log_r + np.where(chi_used, _log_chi(ell), 0.0)
            bound = np.exp(log_bound)
            if kind == "i":
                # the e^(-2t) K_nu(t) part: |e^(-+nu pi i)| <= e^(pi rho), |K_nu(t) e^-t| <= (pi / (2|t|))^(1/2)
                # e^(-2 Re t) (1 + 2 |a_1(nu)| / |t| e^(|nu^2 - 1/4| / |t|)), Re t >= x/2 on the circle
                a1 = (np.abs(4 * v * v - 1) + 8 * np.abs(v) * rho + 4 * rho * rho) / 8
                extra = (np.exp(np.pi * rho) / np.pi * np.sqrt(np.pi / (2 * radius)) * np.exp(-2 * radius)
                         * (1 + 2 * a1 / radius * np.exp(spread / radius)))
                bound = bound + np.exp(sc.gammaln(k + 1.0) - k * log_r + (sc.gammaln(p + 1.0) - p * np.log(rho) if p else 0.0)) * extra
            estimate = bound + 4 * _EPS * absolute
            better = estimate < best
            best = np.where(better, estimate, best)
            value = np.where(better, total, value)
            if np.all((best <= 1e-3 * _EPS * np.abs(value)) | ~applies):
                break
    out = value if np.iscomplexobj(z) else value.real
    return out, np.where(applies & np.isfinite(out), best, np.inf)


def _weights(kind, k, s):
    """{m: w_m} with d^k/dz^k [f_v(z) e^(-s z)] = sum_m w_m f_(v+m)(z) e^(-s z) (DLMF 10.29.1 with
    K_v' = -(K_(v-1) + K_(v+1)) / 2 for 'k', where s = -1), per element of k and s."""
    top = int(k.max()) if k.size else 0
    half = 0.5 if kind == "i" else -0.5
    weights = {}
    with np.errstate(all="ignore"):  # (-s)^(k - j) for j > k, masked
        for j in range(top + 1):
            outer = np.where(j <= k, sc.comb(k, j) * np.where(k - j == 0, 1.0, (-s) ** (k - j)) * half ** j, 0.0)
            for i in range(j + 1):
                m = 2 * i - j
                weights[m] = weights.get(m, 0.0) + outer * sc.comb(j, i)
    return weights


def _rule(kind, v, z, k, p):
    """(d^p/dv^p d^k/dz^k by DLMF 10.29.1 and the product rule, its error estimate)."""
    if kind == "i":
        s = np.sign(z.real)
        functions = {0: sc.ive, 1: bessel.ive_dv, 2: bessel.ive_dv2}
    else:
        s = -np.ones(z.shape)
        functions = {0: sc.kve, 1: bessel.kve_dv, 2: bessel.kve_dv2}
    total = np.zeros(z.shape, dtype=z.dtype)
    absolute = np.zeros(z.shape)
    with np.errstate(all="ignore"):
        for m, w in _weights(kind, k, s).items():
            f = functions[p](v + m, z)
            term = np.where(w == 0, 0.0, w * f)
            total = total + term
            absolute = absolute + np.abs(term)
    return total, _ACCURACY[p] * absolute


def _derivative(kind, v, z, k, p):
    v, z, k = np.broadcast_arrays(np.asarray(v, dtype=np.float64), np.asarray(z), np.asarray(k))
    shape = v.shape
    cplx = np.iscomplexobj(z)
    v = v.ravel().astype(np.float64)
    z = z.ravel().astype(np.complex128 if cplx else np.float64)
    kf = k.ravel().astype(np.float64)
    valid = np.isfinite(kf) & (kf == np.floor(kf)) & (kf >= 0)
    k = np.where(valid, kf, 0).astype(np.int64)
    result = np.full(z.shape, np.nan, dtype=z.dtype)
    flip = np.ones(z.shape)
    w = z
    if kind == "i" and not cplx:
        # ive(n, x) = (-1)^n ive(n, |x|): d^k/dx^k picks up (-1)^(n + k); the expansion serves |x|
        integer = v == np.round(v)
        negative = (z < 0) & integer & (p == 0)
        flip = np.where(negative, np.where((np.round(v) + k) % 2 == 0, 1.0, -1.0), 1.0)
        w = np.where(negative, -z, z)
    with np.errstate(all="ignore"):
        # the scaled functions fall like z^(-1/2) with all their derivatives: 0 at x = inf
        at_infinity = valid & (w == np.inf) & ((k > 0) | (p > 0)) if not cplx else np.zeros(z.shape, dtype=bool)
        big = valid & (np.abs(w) >= 8) & np.isfinite(np.abs(w))
        estimate = np.full(z.shape, np.inf)
        if big.any():
            got, bound = _asymptotic(kind, v[big], w[big], k[big], p)
            result[big] = got * flip[big]
            estimate[big] = bound
        # an order derivative vanishes at v = 0 (K_v is even in v, I_v up to e^(-2x) K terms): its error
        # is measured against 1e-2 of the z-derivative too (tests/test_kernels_bessel.py's floor is
        # 1e-3 of the largest of the function and its order derivatives)
        floor = 0.0 if p == 0 else np.nan_to_num(1e-2 * np.abs(_derivative(kind, v, z, k, 0)))
        trust = estimate <= _ASYMPTOTIC_TOL * np.fmax(np.abs(result), floor)
        rest = valid & ~trust & ~at_infinity
        if rest.any():
            got, error = _rule(kind, v[rest], z[rest], k[rest], p)
            take = ~(estimate[rest] <= error) | np.isnan(result[rest])
            result[rest] = np.where(take, got, result[rest])
            estimate[rest] = np.where(take, error, estimate[rest])
        # the rule's own infinities and NaNs (kve at 0, ive of a non-integer order at x < 0) pass through
        tolerance = np.array([_TOL.get(n, _TOL_HIGHER) for n in range(int(k.max(initial=0)) + p + 1)])[k + p]
        ok = trust | (estimate <= tolerance * np.fmax(np.abs(result), floor)) | ~np.isfinite(result)
        result = np.where(ok & valid, result, np.nan)
        result = np.where(at_infinity, 0.0, result)
    return result.reshape(shape)


def ive_dz(v, z, k):
    """d^k/dz^k of scipy.special.ive(v, z) for real z: Hankel's expansion (DLMF 10.40.1) differentiated,
    with a bound, at large |z|; else DLMF 10.29.1 and the product rule on SciPy's ive. See the module
    docstring."""
    return _derivative("i", v, z, k, 0)


def ive_dzdv(v, z, k):
    """d/dv d^k/dz^k of scipy.special.ive(v, z) for real z; methods as ive_dz, the rule on ive_dv."""
    return _derivative("i", v, z, k, 1)


def ive_dzdv2(v, z, k):
    """d^2/dv^2 d^k/dz^k of scipy.special.ive(v, z) for real z; methods as ive_dz, the rule on ive_dv2."""
    return _derivative("i", v, z, k, 2)


def kve_dz(v, z, k):
    """d^k/dz^k of scipy.special.kve(v, z): Hankel's expansion (DLMF 10.40.2) differentiated, with a
    bound, at large |z| off the negative axis; else DLMF 10.29.1 and the product rule on SciPy's kve."""
    return _derivative("k", v, z, k, 0)


def kve_dzdv(v, z, k):
    """d/dv d^k/dz^k of scipy.special.kve(v, z); methods as kve_dz, the rule on kve_dv."""
    return _derivative("k", v, z, k, 1)


def kve_dzdv2(v, z, k):
    """d^2/dv^2 d^k/dz^k of scipy.special.kve(v, z); methods as kve_dz, the rule on kve_dv2."""
    return _derivative("k", v, z, k, 2)
