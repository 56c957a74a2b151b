"""Derivatives in the concentration kappa of the von Mises cdf (host kernels).

Kernels (float64 results of the broadcast shape of ``x`` and ``kappa``):

* ``vonmises_cdf_dkappa(x, kappa)``, ``vonmises_cdf_dkappa2(x, kappa)``: d/dkappa and d^2/dkappa^2 of the
  von Mises cdf F(x; kappa), the integral of exp(kappa cos t) / (2 pi I_0(kappa)) over (-pi, x], continued
  periodically as SciPy's ``scipy.stats.vonmises.cdf`` is (F(x + 2 pi) = F(x) + 1, so the derivatives
  are 2 pi-periodic in x).

Method: the cdf's Fourier series (Mardia and Jupp, Directional Statistics (2000), 3.5.37; the series SciPy
sums with a backward recurrence, scipy/stats/_stats.pyx, von_mises_cdf_series),

    F(x) = 1/2 + x / (2 pi) + (1/pi) sum_{n >= 1} A_n(kappa) sin(n x) / n,   A_n = I_n(kappa) / I_0(kappa),

differentiated term by term in kappa. With r_n = I_n / I_0 (r_(-n) = r_n), I_n' = (I_(n-1) + I_(n+1)) / 2
and I_n'' = (I_(n-2) + 2 I_n + I_(n+2)) / 4 (DLMF 10.29.1):

    A_n'  = (r_(n-1) + r_(n+1)) / 2 - r_n r_1,
    A_n'' = (r_(n-2) + 2 r_n + r_(n+2)) / 4 - r_1 (r_(n-1) + r_(n+1)) - r_n (1 + r_2) / 2 + 2 r_n r_1^2,

each ratio from SciPy's exponentially scaled ``ive`` (ive(n, kappa) / ive(0, kappa), no overflow). A_n
decays like (kappa/2)^n / n! for n > kappa and like exp(-n^2 / (2 kappa)) for large kappa: the sum runs
until every element's r_n is below 1e-22 (at most N = 40 + 12 sqrt(kappa) terms, where exp(-72) bounds
it), vectorised over the elements, a loop over n. The cdf's derivative is exact, also for kappa >= 50, where SciPy's cdf is a
normal approximation (off by up to 1e-3 relative in its tails, 1e-6 in the bulk).

Accuracy (tests/test_kernels_vonmises.py, against mpmath's series at 30 digits): about 1e-14 relative for
kappa <= 100 in the bulk, and 1e-16 absolute: where the derivative is far smaller than the series' terms
(a tail of a concentrated distribution, x far from 0 for kappa >= 20) the terms cancel, and the relative
error grows as the derivative falls below 1e-16 (2e-4 at kappa = 100, x = 0.72, a derivative of 3e-13).
The A_n' and A_n'' differences cancel as kappa grows (terms of size 1 for a result of size n^2 / kappa^2,
and n^2 / kappa^3): measured at x = -3 / sqrt(kappa) .. 2 / sqrt(kappa), kappa = 1000 gives 1e-12 (first
derivative) and 4e-10 (second), kappa = 1e4 1e-10 and 5e-7. kappa is capped there, at KAPPA_MAX = 1e4
(about 1250 terms; NaN above), and must be >= 0 (NaN for a negative or NaN kappa, or an infinite x).
"""

import numpy as np
from scipy import special as _sc

__all__ = ["vonmises_cdf_dkappa", "vonmises_cdf_dkappa2"]

KAPPA_MAX = 1e4


def _terms(kappa):
    return int(np.ceil(40 + 12 * np.sqrt(kappa)))


def _run(x, kappa, order):
    with np.errstate(all="ignore"):
        x, kappa = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(kappa, np.float64))
        shape = x.shape
        x, kappa = x.ravel(), kappa.ravel()
        out = np.full(x.shape, np.nan)
        good = (kappa >= 0) & (kappa <= KAPPA_MAX) & np.isfinite(x)
        if np.any(good):
            out[good] = _series(x[good], kappa[good], order)
        return out.reshape(shape)


def _series(x, kappa, order):
    """(1/pi) sum_n A_n^(order)(kappa) sin(n x) / n, x reduced to [-pi, pi] (the derivatives are periodic)."""
    x = x - 2 * np.pi * np.round(x / (2 * np.pi))
    scale = _sc.ive(0, kappa)
    ratio = {m: _sc.ive(m, kappa) / scale for m in range(0, 4)}
    r1, r2 = ratio[1], ratio[2]
    total = np.zeros_like(x)
    count = _terms(np.max(kappa))
    for n in range(1, count + 1):
        ratio[n + 2] = _sc.ive(n + 2, kappa) / scale
        near = {k: ratio[abs(n + k)] for k in (-2, -1, 0, 1, 2)}
        if order == 1:
            coefficient = (near[-1] + near[1]) / 2 - near[0] * r1
        else:
            coefficient = ((near[-2] + 2 * near[0] + near[2]) / 4 - r1 * (near[-1] + near[1])
                           - near[0] * (1 + r2) / 2 + 2 * near[0] * r1 * r1)
        total += coefficient * np.sin(n * x) / n
        if n > 3:
            del ratio[n - 2]
        if not any(np.any(near[k] > 1e-22) for k in (-1, 0, 1, 2)):  # the terms still to come: below 1e-22
            break
    return total / np.pi


def vonmises_cdf_dkappa(x, kappa):
    """d/dkappa of the von Mises cdf F(x; kappa) (``scipy.stats.vonmises.cdf(x, kappa)``), kappa in
    [0, 1e4]: the Fourier series differentiated term by term; see the module docstring. NaN elsewhere."""
    return _run(x, kappa, 1)


def vonmises_cdf_dkappa2(x, kappa):
    """d^2/dkappa^2 of the von Mises cdf F(x; kappa), kappa in [0, 1e4] (NaN elsewhere); see
    vonmises_cdf_dkappa."""
    return _run(x, kappa, 2)
