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
    entries = hardpoints.entries()
    stored = hardpoints.load() if missing_only and hardpoints.DATA.exists() else {}
    todo = [e for e in entries if hardpoints.key(e) not in stored]
    with ProcessPoolExecutor(2) as pool:
        values = list(pool.map(reference, todo))
    computed = {hardpoints.key(e): v for e, v in zip(todo, values)}
    references = {hardpoints.key(e): stored.get(hardpoints.key(e), computed.get(hardpoints.key(e))) for e in entries}
    hardpoints.DATA.write_text(json.dumps({"about": "mpmath references of tests/hardpoints.py (tests/tools/hard_points.py --write)",
                                           "references": references}, indent=1) + "\n")


def table(verbose: bool):
    import jax

    jax.config.update("jax_enable_x64", True)
    rows = hardpoints.results()
    counts = {}
    for entry, got, ref, verdict in rows:
        counts.setdefault(f"{entry[0]} d{entry[2]}/d{entry[1]}{entry[2] if entry[2] > 1 else ''}", Counter())[verdict] += 1
    print(f"{'derivative':<26} {'PASS':>5} {'NaN':>5} {'FAIL':>5}")
    for name, c in counts.items():
        print(f"{name:<26} {c['PASS']:>5} {c['NaN']:>5} {c['FAIL']:>5}")
    total = sum(counts.values(), Counter())
    print(f"{'total':<26} {total['PASS']:>5} {total['NaN']:>5} {total['FAIL']:>5}")
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
