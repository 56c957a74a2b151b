"""Order derivatives of the Bessel derivative functions jvp, yvp, ivp, kvp, h1vp, h2vp.

SciPy computes the n-th z-derivative of a Bessel function as a finite sum over orders (DLMF 10.6.7,
10.29.5; SciPy's ``_bessel_diff_formula``, from Abramowitz & Stegun 9.1.31 and 9.6.29):

    C_v^(n)(z) = 2^-n sum_{k=0}^{n} (phase)^k binom(n, k) C_(v-n+2k)(z),

with phase -1 for J, Y, H1, H2 and +1 for I and (-1)^n K. The sum is linear in C and its orders
depend on v only by a shift, so its derivative in v is the same sum of the order kernels of
``kernels/bessel.py`` (jv_dv, yv_dv, iv_dv, kv_dv and their second derivatives): each kernel here is
that sum, with SciPy's coefficients, evaluated term by term (n + 1 kernel evaluations; n is static).
"""
import numpy as np

from . import bessel

__all__ = ["jvp_dv", "jvp_dv2", "yvp_dv", "yvp_dv2", "ivp_dv", "ivp_dv2", "kvp_dv", "kvp_dv2",
           "h1vp_dv", "h1vp_dv2", "h2vp_dv", "h2vp_dv2"]


def _diff_sum(kernel, v, z, n, phase):
    """2^-n sum_k phase^k binom(n, k) kernel(v - n + 2k, z), as SciPy's _bessel_diff_formula."""
    v = np.asarray(v, dtype=np.float64)
    p = 1.0
    total = kernel(v - n, z)
    for i in range(1, n + 1):
        p = phase * (p * (n - i + 1)) / i
        total = total + p * kernel(v - n + 2 * i, z)
    return total / 2.0 ** n


def _hankel(first, second, sign):
    def kernel(v, z):
        return first(v, z) + sign * 1j * second(v, z)
    return kernel


def jvp_dv(v, z, n=1):
    """d/dv of scipy.special.jvp(v, z, n): the sum of jv_dv (DLMF 10.6.7)."""
    return _diff_sum(bessel.jv_dv, v, z, n, -1)


def jvp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.jvp(v, z, n): the sum of jv_dv2 (DLMF 10.6.7)."""
    return _diff_sum(bessel.jv_dv2, v, z, n, -1)


def yvp_dv(v, z, n=1):
    """d/dv of scipy.special.yvp(v, z, n): the sum of yv_dv (DLMF 10.6.7)."""
    return _diff_sum(bessel.yv_dv, v, z, n, -1)


def yvp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.yvp(v, z, n): the sum of yv_dv2 (DLMF 10.6.7)."""
    return _diff_sum(bessel.yv_dv2, v, z, n, -1)


def ivp_dv(v, z, n=1):
    """d/dv of scipy.special.ivp(v, z, n): the sum of iv_dv (DLMF 10.29.5)."""
    return _diff_sum(bessel.iv_dv, v, z, n, 1)


def ivp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.ivp(v, z, n): the sum of iv_dv2 (DLMF 10.29.5)."""
    return _diff_sum(bessel.iv_dv2, v, z, n, 1)


def kvp_dv(v, z, n=1):
    """d/dv of scipy.special.kvp(v, z, n): (-1)^n times the sum of kv_dv (DLMF 10.29.5)."""
    return (-1) ** n * _diff_sum(bessel.kv_dv, v, z, n, 1)


def kvp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.kvp(v, z, n): (-1)^n times the sum of kv_dv2 (DLMF 10.29.5)."""
    return (-1) ** n * _diff_sum(bessel.kv_dv2, v, z, n, 1)


def h1vp_dv(v, z, n=1):
    """d/dv of scipy.special.h1vp(v, z, n): the sum of jv_dv + i yv_dv (DLMF 10.4.3, 10.6.7)."""
    return _diff_sum(_hankel(bessel.jv_dv, bessel.yv_dv, 1), v, z, n, -1)


def h1vp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.h1vp(v, z, n): the sum of jv_dv2 + i yv_dv2."""
    return _diff_sum(_hankel(bessel.jv_dv2, bessel.yv_dv2, 1), v, z, n, -1)


def h2vp_dv(v, z, n=1):
    """d/dv of scipy.special.h2vp(v, z, n): the sum of jv_dv - i yv_dv (DLMF 10.4.4, 10.6.7)."""
    return _diff_sum(_hankel(bessel.jv_dv, bessel.yv_dv, -1), v, z, n, -1)


def h2vp_dv2(v, z, n=1):
    """d^2/dv^2 of scipy.special.h2vp(v, z, n): the sum of jv_dv2 - i yv_dv2."""
    return _diff_sum(_hankel(bessel.jv_dv2, bessel.yv_dv2, -1), v, z, n, -1)
