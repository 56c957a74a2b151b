"""Parameter derivatives of the Mathieu functions in q.

ce_m and se_m (mathieu_cem, mathieu_sem) and the characteristic values a_m, b_m (mathieu_a, mathieu_b):
the Fourier coefficients are an eigenvector of a symmetric tridiagonal matrix, the characteristic value
its eigenvalue (DLMF 28.4(i)-(ii); Zhang and Jin, Computation of Special Functions, 1996, chapter 20,
routine FCOEF), so the q-derivatives follow from first- and second-order eigenvalue and eigenvector
perturbation (eigen_perturbation), summed in the Fourier series (below). Where SciPy's characteristic
value is another eigenvalue of the class (count_below; at a few isolated q) the result is NaN. Where
the truncation does not serve (orders above about 330, or |q| above about 7000, where SciPy itself
returns NaN) or the coefficients do not reproduce SciPy's value to 1e-8, they fall back to the rule below.

The radial functions Mc/Ms(1), Mc/Ms(2) (Bessel-product series with the same coefficients, DLMF
28.20(iii), Zhang and Jin's MTU12) are for now Ridders' extrapolated central differences of SciPy's
own values (kernels/numeric.py; Ridders, Adv. Eng. Software 4 (1982) 75-76), with the tableau's error
bound: NaN wherever the estimate exceeds 1e-9 (first order) or 1e-7 (second) of the derivative. Both
outputs of a function (value and x-derivative) come from the same SciPy calls.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc

from .numeric import _partial, partial_derivative


def _stacked(function):
    """The function's outputs as one array (outputs first), so one tableau serves all of them."""
    def stacked(*args):
        return np.stack(np.broadcast_arrays(*function(*args)))
    return stacked


def _pair(kernel, name, doc):
    def pair(*args):
        result = kernel(*args)
        return result[0], result[1]
    pair.__name__, pair.__doc__ = name, doc
    return pair


def _derivative(function, index, what, order=1):
    """The ``order``-th derivative kernel (1 or 2) of a two-output SciPy function in argument ``index``."""
    name = function.__name__
    suffix = "" if order == 1 else "2"
    return _pair(_partial(_stacked(function), index, order), f"{name}_d{what}{suffix}",
                 f"d{suffix}/d{what}{suffix} of both outputs of scipy.special.{name}: Ridders' extrapolated central "
                 f"differences, NaN where the error estimate exceeds {'1e-9' if order == 1 else '1e-7'} of the derivative.")


_ridders_cem_dq = _derivative(sc.mathieu_cem, 1, "q")
_ridders_cem_dq2 = _derivative(sc.mathieu_cem, 1, "q", order=2)
_ridders_sem_dq = _derivative(sc.mathieu_sem, 1, "q")
_ridders_sem_dq2 = _derivative(sc.mathieu_sem, 1, "q", order=2)


# ce_m and se_m from their Fourier coefficients, differentiated as an eigenproblem (replacing the
# Ridders rules above for the angular functions wherever the truncation below suffices).
#
# DLMF 28.4(i): ce_2n = sum_k A_2k cos 2kx, ce_2n+1 = sum_k A_2k+1 cos (2k+1)x, se_2n+1 = sum_k
# B_2k+1 sin (2k+1)x, se_2n+2 = sum_k B_2k+2 sin (2k+2)x, whose coefficients satisfy three-term
# recurrences (DLMF 28.4.5-28.4.8): in each of the four classes the coefficient vector is an
# eigenvector of a symmetric tridiagonal matrix T(q) = D + q E (D the squares of the frequencies, E ones
# beside the diagonal, with sqrt(2) for the A_0 row of ce_2n after scaling v_0 = sqrt(2) A_0, and +1
# or -1 in the first diagonal entry for ce_2n+1 and se_2n+1), its eigenvalue the characteristic value
# (SciPy's mathieu_a or mathieu_b), and the normalization of DLMF 28.4(ii) (as Zhang and Jin's FCOEF)
# is |v| = 1. v is found by inverse iteration at SciPy's characteristic value; differentiating
# (T - a) v = 0 and v.v = 1 once and twice gives a' = v.E v (Hellmann-Feynman), a'' = 2 v.E v',
#   (T - a) v' = -(E - a') v,  (T - a) v'' = a'' v - 2 (E - a') v',  v.v' = 0,  v.v'' = -|v'|^2,
# the first and second order perturbation of a simple eigenvalue's eigenvector, solved as linear
# systems bordered by v (nonsingular for a simple eigenvalue; the eigenvalues of a class are simple). The sign of v is SciPy's, taken from SciPy's own (y, yp) at the same point;
# where the two disagree by more than 1e-8 the result is NaN rather than a wrong number.
_SIZES = (24, 48, 96, 192)  # truncations tried; the coefficients beyond k fall like q**k / (k!)**2 once 4 k**2 > |a|


def _terms(m, q):
    """Fourier terms the truncation needs: beyond the index m/2 + 2 sqrt|q| the coefficients decay faster
    than geometrically (the recurrence's ratio is about q / (2k)**2), so 24 more terms reach 1e-16."""
    return np.floor(m / 2 + 2 * np.sqrt(np.abs(q)) + 24)


def _class_matrices(odd_m, sine, size, q):
    """T(q) = D + q E for a batch of q (one class), with D and E."""
    k = np.arange(size)
    if not odd_m and not sine:
        freq = 2.0 * k
    elif odd_m:
        freq = 2.0 * k + 1
    else:
        freq = 2.0 * k + 2
    e = np.diag(np.ones(size - 1), 1) + np.diag(np.ones(size - 1), -1)
    if not odd_m and not sine:
        e[0, 1] = e[1, 0] = np.sqrt(2.0)
    if odd_m:
        e[0, 0] = -1.0 if sine else 1.0
    t = np.diag(freq ** 2)[None] + q[:, None, None] * e[None]
    return freq, e, t


def count_below(mat, shift):
    """The number of eigenvalues below ``shift`` of the symmetric tridiagonal matrices ``mat`` (batch, K, K):
    the negative pivots of the LDL^T factorization of mat - shift (Sylvester's law of inertia; the Sturm
    count of bisection methods, Golub and Van Loan, Matrix Computations, section 8.4)."""
    size = mat.shape[-1]
    rows = np.arange(size)
    diagonal = mat[:, rows, rows] - shift[:, None]
    beside = mat[:, rows[:-1], rows[:-1] + 1]
    tiny = 1e-300
    pivot = diagonal[:, 0]
    count = (pivot < 0).astype(np.intp)
    for k in range(1, size):
        pivot = np.where(pivot == 0, tiny, pivot)
        pivot = diagonal[:, k] - beside[:, k - 1] ** 2 / pivot
        count += pivot < 0
    return count


def eigen_perturbation(mat, d1, d2, approx):
    """A simple eigenpair of the symmetric matrices ``mat`` (batch, K, K) near the eigenvalues ``approx``,
    with its first and second derivatives along a parameter p, given d1 = dT/dp and d2 = d2T/dp2
    (broadcasting against ``mat``): (v, a, a', v', a'', v''), |v| = 1.

    v by two steps of inverse iteration at ``approx``, a by the Rayleigh quotient; differentiating
    (T - a) v = 0 and v.v = 1 once and twice gives a' = v.T'v (Hellmann-Feynman), a'' = v.T''v + 2 v.T'v',
        (T - a) v' = -(T' - a') v,  (T - a) v'' = -(T'' - a'') v - 2 (T' - a') v',
    with v.v' = 0 and v.v'' = -|v'|**2: linear systems bordered by v, nonsingular for a simple eigenvalue.
    """
    batch, size = mat.shape[0], mat.shape[-1]
    eye = np.eye(size)[None]
    v = np.ones((batch, size, 1))
    # the shift is moved off the eigenvalue by 1e-12 of its size: an exact eigenvalue (c = 0) would make
    # the matrix exactly singular, and a step of inverse iteration gains the ratio of 1e-12 to the gap
    shift = approx + 1e-12 * np.maximum(1.0, np.abs(approx))
    try:
        for _ in range(2):
            v = np.linalg.solve(mat - shift[:, None, None] * eye, v)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
    except np.linalg.LinAlgError:  # exactly singular somewhere (NaN input): the callers fall back
        nan = np.full((batch, size), np.nan)
        return nan, nan[:, 0], nan[:, 0], nan, nan[:, 0], nan
    v = v[..., 0]

    def apply(m, w):
        return (m @ w[..., None])[..., 0]

    a = np.sum(apply(mat, v) * v, axis=1)
    bordered = np.zeros((batch, size + 1, size + 1))
    bordered[:, :size, :size] = mat - a[:, None, None] * eye
    bordered[:, :size, size] = v
    bordered[:, size, :size] = v
    d1v = apply(np.broadcast_to(d1, mat.shape), v)
    d2v = apply(np.broadcast_to(d2, mat.shape), v)
    a1 = np.sum(d1v * v, axis=1)
    rhs = np.zeros((batch, size + 1, 1))
    rhs[:, :size, 0] = a1[:, None] * v - d1v
    try:
        v1 = np.linalg.solve(bordered, rhs)[:, :size, 0]
    except np.linalg.LinAlgError:
        nan = np.full((batch, size), np.nan)
        return nan, nan[:, 0], nan[:, 0], nan, nan[:, 0], nan
    d1v1 = apply(np.broadcast_to(d1, mat.shape), v1)
    a2 = np.sum(d2v * v, axis=1) + 2 * np.sum(d1v1 * v, axis=1)
    rhs[:, :size, 0] = a2[:, None] * v - d2v - 2 * (d1v1 - a1[:, None] * v1)
    v2 = np.linalg.solve(bordered, rhs)[:, :size, 0] - np.sum(v1 * v1, axis=1)[:, None] * v
    return v, a, a1, v1, a2, v2


def _angular_dq(m, q, x, sine):
    """(y, yp, y_q, yp_q, y_qq, yp_qq, a_q, a_qq, handled) of ce_m or se_m at t = x degrees and of its
    characteristic value (a_m or b_m), for 1-d arrays; handled is 1 where the truncation served (the
    others NaN there where SciPy's characteristic value is not the m-th), NaN elsewhere."""
    n_el = m.shape[0]
    out = np.full((9, n_el), np.nan)  # the last row: 1 where handled here
    valid = np.isfinite(q) & np.isfinite(x) & (m >= (1 if sine else 0)) & (m == np.floor(m)) & (m <= 1000)
    need = np.where(valid, _terms(m, q), np.inf)
    t = np.deg2rad(x)
    for odd_m in (False, True):
        for size in _SIZES:
            chosen = valid & ((m % 2 == 1) == odd_m) & (need <= size) & (need > (size // 2 if size > _SIZES[0] else 0))
            if not chosen.any():
                continue
            idx = np.nonzero(chosen)[0]
            qs, ms, ts = q[idx], m[idx], t[idx]
            freq, e, mat = _class_matrices(odd_m, sine, size, qs)
            approx = sc.mathieu_b(ms, qs) if sine else sc.mathieu_a(ms, qs)
            v, a, a1, v1, a2, v2 = eigen_perturbation(mat, e[None], np.zeros((1, size, size)), approx)
            coef_scale = np.ones(size)
            if not odd_m and not sine:
                coef_scale[0] = 1 / np.sqrt(2.0)  # A_0 = v_0 / sqrt(2)
            phase = freq[None] * ts[:, None]
            if sine:
                basis, dbasis = np.sin(phase), freq[None] * np.cos(phase)
            else:
                basis, dbasis = np.cos(phase), -freq[None] * np.sin(phase)
            results = []
            for vec in (v, v1, v2):
                coef = vec * coef_scale[None]
                results += [np.sum(coef * basis, axis=1), np.sum(coef * dbasis, axis=1)]
            # SciPy's characteristic value is, at a few isolated q, another eigenvalue of the class
            # (mathieu_b(6, q) is b_8(q) for 31.75 <= q < 31.93, say): NaN there, not a derivative of the
            # wrong function; the eigenvalue found must be SciPy's and the n-th of its class
            agree = np.abs(a - approx) <= 1e-9 * np.maximum(1.0, np.abs(approx))
            which = (ms - (2 if sine and not odd_m else 0)) // 2  # ce_2n, ce_2n+1, se_2n+1, se_2n+2: the n-th
            agree &= count_below(mat, a - 1e-8 * np.maximum(1.0, np.abs(a))) == which
            out[:8, idx] = np.where(agree, np.array(results + [a1, a2]), np.nan)
            out[8, idx] = 1.0  # handled here: no fallback
    return out


def _angular_kernel(function, sine, order):
    def kernel(m, q, x):
        with np.errstate(all="ignore"):
            m, q, x = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(q, dtype=np.float64),
                                          np.asarray(x, dtype=np.float64))
            shape = m.shape
            m, q, x = m.ravel(), q.ravel(), x.ravel()
            own = _angular_dq(m, q, x, sine)
            y, yp = function(m, q, x)
            # SciPy's sign, and a check that this is SciPy's function (class, index, normalization)
            sign = np.where(own[0] * y + own[1] * yp < 0, -1.0, 1.0)  # (y, yp) never both vanish
            size = np.hypot(y, yp)
            agree = (np.abs(sign * own[0] - y) <= 1e-8 * size) & (np.abs(sign * own[1] - yp) <= 1e-8 * size)
            first, second = 2 * order, 2 * order + 1
            dy = np.where(agree, sign * own[first], np.nan)
            dyp = np.where(agree, sign * own[second], np.nan)
            # where the truncation did not serve (or SciPy's value is not that series'), Ridders' rule on
            # SciPy; not where SciPy's characteristic value is the wrong eigenvalue (its function is wrong)
            wrong_branch = (own[8] == 1) & np.isnan(own[6])
            fallback = ~agree & ~wrong_branch & np.isfinite(y)
            if fallback.any():
                ridders = {(False, 1): _ridders_cem_dq, (True, 1): _ridders_sem_dq,
                           (False, 2): _ridders_cem_dq2, (True, 2): _ridders_sem_dq2}[sine, order]
                ry, ryp = ridders(m[fallback], q[fallback], x[fallback])
                dy[fallback], dyp[fallback] = ry, ryp
            return dy.reshape(shape), dyp.reshape(shape)
    return kernel


def _named(kernel, name, doc):
    kernel.__name__, kernel.__doc__ = name, doc
    return kernel


mathieu_cem_dq = _named(_angular_kernel(sc.mathieu_cem, False, 1), "mathieu_cem_dq",
                        "d/dq of ce_m(x, q) and of its x-derivative: Fourier coefficients by eigenvector perturbation.")
mathieu_cem_dq2 = _named(_angular_kernel(sc.mathieu_cem, False, 2), "mathieu_cem_dq2",
                         "d²/dq² of ce_m(x, q) and of its x-derivative: Fourier coefficients by eigenvector perturbation.")
mathieu_sem_dq = _named(_angular_kernel(sc.mathieu_sem, True, 1), "mathieu_sem_dq",
                        "d/dq of se_m(x, q) and of its x-derivative: Fourier coefficients by eigenvector perturbation.")
mathieu_sem_dq2 = _named(_angular_kernel(sc.mathieu_sem, True, 2), "mathieu_sem_dq2",
                         "d²/dq² of se_m(x, q) and of its x-derivative: Fourier coefficients by eigenvector perturbation.")


def _characteristic_kernel(sine, order, ridders, name):
    """d/dq or d2/dq2 of a_m(q) (sine False) or b_m(q): a' = v.E v (Hellmann-Feynman) and a'' = 2 v.E v' from
    eigen_perturbation, where the eigenvalue found reproduces SciPy's mathieu_a / mathieu_b to 1e-9;
    Ridders' rule on SciPy elsewhere."""
    def kernel(m, q):
        with np.errstate(all="ignore"):
            m, q = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(q, dtype=np.float64))
            shape = m.shape
            m, q = m.ravel(), q.ravel()
            own = _angular_dq(m, q, np.zeros_like(q), sine)
            result = own[5 + order]
            fallback = (own[8] != 1) & np.isfinite(q)
            if fallback.any():
                result[fallback] = ridders(m[fallback], q[fallback])
            return result.reshape(shape)
    kernel.__name__ = name
    kernel.__doc__ = (f"d{'' if order == 1 else order}/dq{'' if order == 1 else order} of scipy.special."
                      f"mathieu_{'b' if sine else 'a'}: eigenvalue perturbation of the Fourier coefficient matrix.")
    return kernel


mathieu_a_dq = _characteristic_kernel(False, 1, partial_derivative(sc.mathieu_a, 1), "mathieu_a_dq")
mathieu_a_dq2 = _characteristic_kernel(False, 2, partial_derivative(sc.mathieu_a, 1, order=2), "mathieu_a_dq2")
mathieu_b_dq = _characteristic_kernel(True, 1, partial_derivative(sc.mathieu_b, 1), "mathieu_b_dq")
mathieu_b_dq2 = _characteristic_kernel(True, 2, partial_derivative(sc.mathieu_b, 1, order=2), "mathieu_b_dq2")


def _characteristic_is_mth(m, q, sine):
    """False where SciPy's mathieu_a(m, q) (or mathieu_b) is not the eigenvalue of index n of its class
    (a Sturm count at it +- 1e-8 of its size); True elsewhere, and where the truncation does not serve."""
    m, q = np.broadcast_arrays(np.asarray(m, dtype=np.float64), np.asarray(q, dtype=np.float64))
    shape = m.shape
    m, q = m.ravel(), q.ravel()
    ok = np.ones(m.shape, dtype=bool)
    valid = np.isfinite(q) & (m >= (1 if sine else 0)) & (m == np.floor(m)) & (m <= 1000)
    need = np.where(valid, _terms(m, q), np.inf)
    for odd_m in (False, True):
        previous = 0
        for size in _SIZES:
            chosen = valid & ((m % 2 == 1) == odd_m) & (need <= size) & (need > previous)
            previous = size
            if not chosen.any():
                continue
            idx = np.nonzero(chosen)[0]
            _, _, mat = _class_matrices(odd_m, sine, size, q[idx])
            value = (sc.mathieu_b if sine else sc.mathieu_a)(m[idx], q[idx])
            delta = 1e-8 * np.maximum(1.0, np.abs(value))
            which = (m[idx] - (2 if sine and not odd_m else 0)) // 2
            ok[idx] = (count_below(mat, value - delta) == which) & (count_below(mat, value + delta) == which + 1)
    return ok.reshape(shape)


def _radial(function, sine, order):
    """Ridders' rule for a modified Mathieu function, NaN where SciPy's characteristic value is another
    eigenvalue of the class (at a few isolated q SciPy's function is then another one, and the tableau
    can straddle the jump: mathieu_modsem1(6, q, x) for 31.75 <= q < 31.93)."""
    ridders = _derivative(function, 1, "q", order)

    def kernel(m, q, x):
        with np.errstate(all="ignore"):
            dy, dyp = ridders(m, q, x)
            ok = _characteristic_is_mth(m, q, sine)
            return np.where(ok, dy, np.nan), np.where(ok, dyp, np.nan)
    kernel.__name__, kernel.__doc__ = ridders.__name__, ridders.__doc__
    return kernel


mathieu_modcem1_dq = _radial(sc.mathieu_modcem1, False, 1)
mathieu_modcem1_dq2 = _radial(sc.mathieu_modcem1, False, 2)
mathieu_modcem2_dq = _radial(sc.mathieu_modcem2, False, 1)
mathieu_modcem2_dq2 = _radial(sc.mathieu_modcem2, False, 2)
mathieu_modsem1_dq = _radial(sc.mathieu_modsem1, True, 1)
mathieu_modsem1_dq2 = _radial(sc.mathieu_modsem1, True, 2)
mathieu_modsem2_dq = _radial(sc.mathieu_modsem2, True, 1)
mathieu_modsem2_dq2 = _radial(sc.mathieu_modsem2, True, 2)
