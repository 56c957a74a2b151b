"""The hard points of the parameter derivatives (tests/hardpoints.py): PASS / NaN / FAIL per function.

    .venv/bin/python tests/tools/hard_points.py            # the table, from the stored references
    .venv/bin/python tests/tools/hard_points.py --write    # recompute the mpmath references (minutes)
    .venv/bin/python tests/tools/hard_points.py --write --missing  # only the points not yet stored
    .venv/bin/python tests/tools/hard_points.py --verbose  # and every point that is not PASS

PASS: within tests/hardpoints.py's RTOL of mpmath; NaN: the kernel declined (an honest NaN); FAIL: a
finite wrong number.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import hardpoints  # noqa: E402


def _mpmath_function(name):
    import mpmath as mp

    def hankel(kind, scaled):
        sign = 1 if kind == 1 else -1

        def h(v, z):  # DLMF 10.27.8: mpmath's hankel1 is J + iY, which cancels where H decays
            w = -sign * 1j * z
            value = sign * 2 / (mp.pi * 1j) * mp.exp(-sign * 0.5j * mp.pi * v) * mp.besselk(v, w)
            return value * mp.exp(w) if scaled else value
        return h

    def stdtr(df, t):  # A&S 26.7.1 through the incomplete beta function
        tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
        # for t > 0, -tail: the same derivatives in df as 1 - tail, whose digits a tail of 1e-50 would take
        return tail if t < 0 else -tail

    return {
        "jv": mp.besselj, "yv": mp.bessely, "iv": mp.besseli,
        "ive": lambda v, z: mp.besseli(v, z) * mp.exp(-z),
        "hankel1": hankel(1, False), "hankel1e": hankel(1, True), "hankel2e": hankel(2, True),
        "stdtr": stdtr,
        "betainc": lambda a, b, x: mp.betainc(a, b, 0, x, regularized=True),
        "gammainc": _lower_gamma,
        # beyond the median, -Q(a, x): 1 - Q would leave P's derivative to the last of the digits
        "gammainc upper": lambda a, x: -mp.gammainc(a, x, mp.inf, regularized=True),
        "hyperu": mp.hyperu, "hyp1f1": mp.hyp1f1, "hyp2f1": mp.hyp2f1,
        "gammaincc": lambda a, x: 1 - _lower_gamma(a, x),
        "chdtrc": lambda v, x: 1 - _lower_gamma(v / 2, x / 2),
        "gdtr": lambda a, b, x: _lower_gamma(b, a * x),
        "pdtr": lambda k, m: 1 - _lower_gamma(mp.floor(k) + 1, m),
    }[name]


def _inverse(name):
    """The equation G(arguments..., root) = 0 that an inverse of the gamma family solves, for the
    implicit-function rule d root / d t = -G_t / G_root at the root."""
    import mpmath as mp

    return {
        "gammaincinv": lambda a, y, x: _lower_gamma(a, x) - y,
        "gammainccinv": lambda a, y, x: 1 - _lower_gamma(a, x) - y,
        "chdtri": lambda v, p, x: 1 - _lower_gamma(v / 2, x / 2) - p,
        "gdtrix": lambda a, b, p, x: _lower_gamma(b, a * x) - p,
        "pdtri": lambda k, y, m: 1 - _lower_gamma(mp.floor(k) + 1, m) - y,
    }[name]


def _k_order_derivative(v, x, order):
    """d^order/dv^order K_v(x) = int_0^inf t^order (sinh or cosh)(v t) exp(-x cosh t) dt (DLMF 10.32.9
    differentiated): mpmath's besselk forms K from I_-v - I_v over sin(v pi), and its mp.diff at
    v = 1000, x = 700 came out 1e134 (50 digits) and 8e8 (80 digits) for the true -2.5e-30. The
    quadrature is split at the integrand's peak, sinh t = |v|/x, and at multiples of its width."""
    import mpmath as mp

    peak = mp.asinh(abs(v) / x)
    width = 1 / mp.sqrt(x * mp.cosh(peak))
    odd = order % 2 == 1

    def exponent(t):
        return abs(v) * t - x * mp.cosh(t)

    # a finite end where the integrand is below 10^-(digits + 20) of its peak (an infinite one made
    # mp.quad take minutes at x = 500)
    end = peak + width
    while exponent(end) > exponent(peak) - (mp.mp.dps + 20) * mp.log(10):
        end = peak + 2 * (end - peak)

    top = exponent(peak)

    def integrand(t):  # scaled by exp(-top): mp.quad's error test is absolute, and K_10(500) is 1e-220
        grow, decay = mp.exp(v * t - x * mp.cosh(t) - top), mp.exp(-v * t - x * mp.cosh(t) - top)
        return t ** order * (grow - decay if odd else grow + decay) / 2
    cuts = sorted({mp.mpf(0), peak / 2, end} | {peak + k * width for k in (-3, -1, 0, 1, 3, 10) if 0 < peak + k * width < end})
    value, error = mp.quad(integrand, cuts, error=True)
    if error > mp.mpf(10) ** -30 * abs(value):
        raise ArithmeticError(f"K order derivative at v = {v}, x = {x}: quadrature error {error} of {value}")
    return value * mp.exp(top)


def _scaled_argument_derivative(f, v, z, order):
    """d^order/dz^order of ive(v, z) = I_v(z) e^-|z| (real z) or kve(v, z) = K_v(z) e^z, differentiated
    under the integral sign: e^-x I_v(x) = (1/pi) int_0^pi e^(x (cos t - 1)) cos(v t) dt - (sin(v pi)/pi)
    int_0^inf e^(-x (cosh t + 1) - v t) dt (DLMF 10.32.4), e^z K_v(z) = int_0^inf e^(-z (cosh t - 1)) cosh(v t) dt
    (DLMF 10.32.9), Re z > 0. mp.diff of besselk at an integer order took minutes (its limit in the
    order), and of besseli's scaled product lost what the huge x's cancellation needs."""
    import mpmath as mp

    width = 1 / mp.sqrt(abs(z))
    # the integrands scaled to the result's size, |z|^-(order + 1/2): mp.quad's error estimate has an
    # absolute floor near 10^-(digits + 3), a relative 1e-15 of the second derivative at x = 1e15
    norm = abs(z) ** (order + mp.mpf(1) / 2)
    if f == "kve" and mp.re(z) <= 0:  # the integral diverges: mpmath's besselk, at an order that is not an integer
        assert v != mp.floor(v), "an integer order of K in the left half plane: no reference method here"
        return mp.diff(lambda t: mp.besselk(v, t) * mp.exp(t), z, order)
    if f == "kve":
        # a finite end where the integrand is below 10^-(digits + 30) of its peak (an infinite one made mp.quad hang)
        end = mp.acosh(1 + (mp.mp.dps + 30) * mp.log(10) / mp.re(z) + 2 * order + abs(v))
        cuts = sorted({mp.mpf(0), end} | {width * c for c in (1, 3, 10) if width * c < end})
        def integrand(t):  # cosh t - 1 as 2 sinh(t/2)^2: at t ~ z^-1/2 = 3e-8 the difference loses 16 digits
            up = 2 * mp.sinh(t / 2) ** 2
            return norm * (-up) ** order * mp.exp(-z * up) * mp.cosh(v * t)
        value, error = mp.quad(integrand, cuts, error=True)
        value, error = value / norm, error / norm
        scale = abs(value)
    else:
        sign = 1
        if z < 0:  # integer orders: I_n(-x) = (-1)^n I_n(x)
            sign, z = (-1) ** (int(v) + order), -z
        cuts = sorted({mp.mpf(0), mp.pi} | {width * c for c in (1, 3, 10, 30) if width * c < mp.pi})
        def integrand(t):  # cos t - 1 as -2 sin(t/2)^2, as for K
            down = -2 * mp.sin(t / 2) ** 2
            return norm * down ** order * mp.exp(z * down) * mp.cos(v * t)
        value, error = mp.quad(integrand, cuts, error=True)
        value, error = value / (mp.pi * norm), error / (mp.pi * norm)
        if v != mp.floor(v):
            end = mp.acosh(1 + (mp.mp.dps + 30) * mp.log(10) / z)
            tail = mp.quad(lambda t: (-(mp.cosh(t) + 1)) ** order * mp.exp(-z * (mp.cosh(t) + 1) - v * t), [0, end])
            value -= mp.sinpi(v) / mp.pi * tail
        value *= sign
        scale = abs(value)
    if error > mp.mpf(10) ** -30 * scale:
        raise ArithmeticError(f"{f} at v = {v}, z = {z}: quadrature error {error} of {value}")
    return value


_BESSEL_COMPLEX = ("jv", "yv", "iv", "kv", "ive", "kve", "hankel1", "hankel2", "hankel1e", "hankel2e")


def _bessel_of_order(f, v, z):
    """jv .. hankel2e at order v and complex z from mpmath's besselj, bessely and besseli alone (their
    hypergeometric series, whose cancellation mpmath tracks): H1,2 = J +- iY, and K by DLMF 10.27.8,
    K_v(z) = (pi i/2) e^(v pi i/2) H1_v(iz) for ph z <= pi/2, -(pi i/2) e^(-v pi i/2) H2_v(-iz) beyond."""
    import mpmath as mp

    def hankel(sign, w):
        return mp.besselj(v, w) + sign * 1j * mp.bessely(v, w)

    base = f.rstrip("e")
    if base == "jv":
        value = mp.besselj(v, z)
    elif base == "yv":
        value = mp.bessely(v, z)
    elif base == "iv":
        value = mp.besseli(v, z)
    elif base in ("hankel1", "hankel2"):
        value = hankel(1 if base == "hankel1" else -1, z)
    elif mp.arg(z) <= mp.pi / 2:
        value = mp.pi * 1j / 2 * mp.exp(1j * v * mp.pi / 2) * hankel(1, 1j * z)
    else:
        value = -mp.pi * 1j / 2 * mp.exp(-1j * v * mp.pi / 2) * hankel(-1, -1j * z)
    scale = {"ive": mp.exp(-abs(mp.re(z))), "kve": mp.exp(z), "hankel1e": mp.exp(-1j * z), "hankel2e": mp.exp(1j * z)}
    return value * scale.get(f, 1)


def _cancelled_digits(f, v, z):
    """About how many digits J +- iY loses in _bessel_of_order, from SciPy's values (a first working
    precision only: the agreement of two precisions decides), 0 where SciPy's values are not finite."""
    import numpy as np
    import scipy.special as sc

    base = f.rstrip("e")
    if base not in ("hankel1", "hankel2", "kv"):
        return 0
    if base == "kv":   # through H at -+iz
        w, base = (1j * z, "hankel1") if np.angle(z) <= np.pi / 2 else (-1j * z, "hankel2")
    else:
        w = z
    with np.errstate(all="ignore"):
        parts = abs(sc.jv(v, w)) + abs(sc.yv(v, w))
        whole = abs(getattr(sc, base)(v, w))
        lost = np.log10(parts / whole)
    return int(np.ceil(lost)) if np.isfinite(lost) and lost > 0 else 0


def _bessel_complex_derivative(f, v, z, order):
    """d^order/dv^order of a Bessel function at complex z and |v| >= 8 (_bessel_of_order): mpmath's besselk
    sums a 2F0 series there, and at v = 677, z = 442 + 167i it gave 3e10 for the true 9e-13, at 50 and at
    80 digits alike. J +- iY cancels where H (or K) is small, by up to e^(2 |Im z|) (e^(2 Re z) for K):
    the function is evaluated with that many more digits than mp.diff works at (mp.diff multiplies its
    own precision by order + 1 for the differences, which the cancellation does not need), and the
    result must agree at two precisions (p, p + 20 digits, with 20 more for the sum) to 1e-25 and not
    be 0 (at too few digits J and iY cancel to exactly 0 at both); else both double."""
    import mpmath as mp

    def at_more_digits(more):
        def g(t):
            with mp.workdps(mp.mp.dps + more):
                value = _bessel_of_order(f, t, mp.mpc(z))
            return +value
        return g

    digits, extra = 40, _cancelled_digits(f, v, z)
    while digits <= 640:
        results = []
        for dps, more in ((digits, extra), (digits + 20, extra + 20)):
            with mp.workdps(dps):
                results.append(mp.diff(at_more_digits(more), mp.mpf(v), order))
        if results[1] != 0 and abs(results[1] - results[0]) <= mp.mpf(10) ** -25 * abs(results[1]):
            return results[1]
        digits, extra = 2 * digits, max(2 * extra, 40)
    raise ArithmeticError(f"{f} d{order}/dv at v = {v}, z = {z}: no two precisions up to 640 digits agree")


def _lower_gamma(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) 1F1(1; a + 1; x) (DLMF 8.5.1), with the terms a = 1e7 needs."""
    import mpmath as mp

    return mp.exp(a * mp.log(x) - x - mp.loggamma(a + 1)) * mp.hyp1f1(1, a + 1, x, maxterms=10**6)


def reference(entry):
    import mpmath as mp

    f, arg, order, point = entry
    with mp.workdps(50):
        args = [mp.mpc(p) if isinstance(p, complex) else mp.mpf(p) for p in point]
        index = hardpoints.ARGUMENTS[f].index(arg)
        if f in ("gammaincinv", "gammainccinv", "chdtri", "gdtrix", "pdtri"):  # the implicit-function rule at the exact root
            import scipy.special

            g = _inverse(f)
            start = mp.mpf(float(getattr(scipy.special, f)(*point)))  # refined at 50 digits
            root = mp.findroot(lambda t: g(*args, t), (start * (1 - mp.mpf(10) ** -6), start * (1 + mp.mpf(10) ** -6)),
                               solver="anderson")
            g_t = mp.diff(lambda s: g(*args[:index], s, *args[index + 1:], root), args[index])
            g_root = mp.diff(lambda t: g(*args, t), root)
            value = -g_t / g_root
        elif f in ("i0e", "i1e", "k0e", "k1e") or (f in ("ive", "kve") and arg == "z"):
            v, z = (mp.mpf(f[1]), args[0]) if f not in ("ive", "kve") else args
            kind = "kve" if f[0] == "k" else "ive"
            value = _scaled_argument_derivative(kind, v, z, order)
            with mp.workdps(70):  # the quadrature checked at 70 digits
                check = _scaled_argument_derivative(kind, v, z, order)
            if abs(check - value) > mp.mpf(10) ** -30 * abs(check):
                raise ArithmeticError(f"{hardpoints.key(entry)}: quadratures at 50 and 70 digits disagree")
        elif f in _BESSEL_COMPLEX and arg == "v" and isinstance(point[1], complex) and abs(point[0]) >= 8:
            value = _bessel_complex_derivative(f, point[0], point[1], order)
        elif f in ("kv", "kve"):
            x = args[1]
            value = _k_order_derivative(args[0], x, order) * (mp.exp(x) if f == "kve" else 1)
        else:
            function = _mpmath_function("gammainc upper" if f == "gammainc" and point[1] > point[0] else f)
            value = mp.diff(lambda t: function(*args[:index], t, *args[index + 1:]), args[index], order)
            if f in ("jv", "yv", "iv", "ive"):
                # a second evaluation at 70 digits: mpmath's Bessel functions of large order can lose
                # what their working precision cannot cover (as besselk did)
                with mp.workdps(70):
                    check = mp.diff(lambda t: function(*args[:index], t, *args[index + 1:]), args[index], order)
                if abs(check - value) > mp.mpf(10) ** -30 * abs(check):
                    raise ArithmeticError(f"{hardpoints.key(entry)}: mpmath at 50 and 70 digits disagree")
    value = complex(value)
    return [value.real, value.imag] if any(isinstance(p, complex) for p in entry[3]) or f.startswith("hankel") else value.real


def write(missing_only=False):
    """Compute the references; with ``missing_only`` those not stored yet, saving what is done every
    minute, so that an interrupted run (at large orders a reference can take minutes) resumes."""
    entries = hardpoints.entries()
    stored = hardpoints.load() if missing_only and hardpoints.DATA.exists() else {}
    todo = [e for e in entries if hardpoints.key(e) not in stored]
    computed = {}

    def save():
        done = {**stored, **computed}
        references = {hardpoints.key(e): done[hardpoints.key(e)] for e in entries if hardpoints.key(e) in done}
        hardpoints.DATA.write_text(json.dumps({"about": "mpmath references of tests/hardpoints.py (tests/tools/hard_points.py --write)",
                                               "references": references}, indent=1) + "\n")

    last = time.monotonic()
    with ProcessPoolExecutor(2) as pool:
        for entry, value in zip(todo, pool.map(reference, todo)):
            computed[hardpoints.key(entry)] = value
            if missing_only and time.monotonic() - last > 60:
                save()
                last = time.monotonic()
    save()


def table(verbose: bool):
    import jax

    jax.config.update("jax_enable_x64", True)
    rows = hardpoints.results()
    counts = {}
    real = {entry[0] for entry, *_ in rows if not any(isinstance(p, complex) for p in entry[3])}
    for entry, got, ref, verdict in rows:
        where = " at complex z" if entry[0] in real and any(isinstance(p, complex) for p in entry[3]) else ""
        counts.setdefault(f"{entry[0]} d{entry[2]}/d{entry[1]}{entry[2] if entry[2] > 1 else ''}{where}", Counter())[verdict] += 1
    print(f"{'derivative':<30} {'PASS':>5} {'NaN':>5} {'FAIL':>5}")
    for name, c in counts.items():
        print(f"{name:<30} {c['PASS']:>5} {c['NaN']:>5} {c['FAIL']:>5}")
    total = sum(counts.values(), Counter())
    print(f"{'total':<30} {total['PASS']:>5} {total['NaN']:>5} {total['FAIL']:>5}")
    if verbose:
        for entry, got, ref, verdict in rows:
            if verdict != "PASS":
                rel = abs(got - ref) / abs(ref) if verdict == "FAIL" else float("nan")
                print(f"  {verdict:<4} {hardpoints.key(entry)}: {got!r} vs {ref!r} (rel {rel:.1e})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--missing", action="store_true", help="with --write: only the points with no stored reference")
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args()
    if options.write:
        write(options.missing)
    table(options.verbose)
