"""What a parameter derivative costs, and how it compares with jax.scipy.special's own.

    python benchmarks/parameter_derivatives.py [--size N] [--repeat R]

For each method family, the time of ``jit(vmap(grad(f, parameter)))`` over the time of the primal
``jit(f)`` at N float64 elements (default 1e5) drawn from the spec's test domain, both measured in this
run as the median of interleaved repetitions. Then, side by side with jax.scipy.special's gradients
for gammainc in a, hyp1f1 in a, hyp2f1 in a and zeta in x (where this jax has them): the time ratio
and each one's largest relative error against mpmath at 20 points. This is not a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import jax
import jax.numpy as jnp
import mpmath
import numpy as np

jax.config.update("jax_enable_x64", True)

import jax.scipy.special as jsp  # noqa: E402

import jaxsci.special as js  # noqa: E402

# (label, family, function, index of the differentiated argument, domain per argument)
CASES = [
    ("jv order v", "Bessel order (series, integrals)", js.jv, 0, [(-4, 6), (0.1, 25)]),
    ("gammainc a", "incomplete gamma parameter (series, continued fraction)", js.gammainc, 0, [(0.5, 12), (0.01, 20)]),
    ("betainc a", "incomplete beta parameter (series, continued fraction)", js.betainc, 0, [(0.5, 10), (0.5, 10), (0.01, 0.99)]),
    ("hyp1f1 a", "hypergeometric series, term by term", js.hyp1f1, 0, [(-3, 3), (0.5, 4), (-8, 8)]),
    ("hyp2f1 a", "hypergeometric series, term by term (Pfaff)", js.hyp2f1, 0, [(-2, 2), (-2, 2), (0.5, 4), (-3, 0.9)]),
    ("zetac x", "Euler-Maclaurin (Johansson 2015)", js.zetac, 0, [(1.1, 40)]),
    ("hyperu a", "integral, double-exponential quadrature", js.hyperu, 0, [(0.1, 2), (-2, 3), (0.2, 2)]),
    ("wright_bessel a", "Wright's series, term by term", js.wright_bessel, 0, [(0.1, 2.5), (0.1, 3), (0.1, 8)]),
    ("stdtr df", "2F1 form, chain rule through a kernel", js.stdtr, 0, [(0.5, 30), (-6, 6)]),
    ("gammaincinv a", "implicit-function rule over a kernel", js.gammaincinv, 0, [(0.5, 12), (0.05, 0.95)]),
    ("chndtr df", "Poisson mixture of incomplete-gamma parameter kernels", js.chndtr, 1, [(0.5, 30), (0.5, 10), (0, 20)]),
    ("ncfdtr dfn", "Poisson mixture of incomplete-beta parameter kernels", js.ncfdtr, 0, [(0.5, 10), (1, 10), (0, 10), (0.1, 5)]),
    ("nctdtr df", "Lenth's series (AS 243), term by term", js.nctdtr, 0, [(1, 10), (-2, 2), (-5, 5)]),
    ("zeta x (q given)", "Euler-Maclaurin (Johansson 2015)", lambda x, q: js.zeta(x, q), 0, [(1.1, 20), (0.5, 5)]),
    ("smirnov d", "Birnbaum-Tingey sum, term by term", lambda d: js.smirnov(20, d), 0, [(0.01, 0.99)]),
    ("pbdv v", "Kummer functions, chain rule through hyp1f1's kernel", lambda v, x: js.pbdv(v, x)[0], 0, [(-3, 3), (-4, 4)]),
    ("besselpoly nu", "the J series integrated, term by term", lambda a, lmb, nu: js.besselpoly(a, lmb, nu), 2, [(0.1, 3), (0, 3), (0, 3)]),
    ("pro_cv c", "Legendre-coefficient eigenvalue perturbation", lambda c: js.pro_cv(1, 3, c), 0, [(0.1, 5)]),
    ("struve v", "Ridders' extrapolated differences of SciPy (last resort)", js.struve, 0, [(-4, 6), (0.1, 25)]),
]


def _sample(domain, size, rng):
    return [jnp.asarray(rng.uniform(lo, hi, size)) for lo, hi in domain]


def _median_ratio(fast, slow, args, repeat):
    jax.block_until_ready(fast(*args))
    jax.block_until_ready(slow(*args))
    a, b = [], []
    for _ in range(repeat):
        t = time.perf_counter(); jax.block_until_ready(fast(*args)); a.append(time.perf_counter() - t)
        t = time.perf_counter(); jax.block_until_ready(slow(*args)); b.append(time.perf_counter() - t)
    return statistics.median(a), statistics.median(b)


def _grad_of(f, index):
    return jax.jit(jax.vmap(jax.grad(f, argnums=index)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"N = {options.size} float64, median of {options.repeat}, load average {load:.2f}\n")
    print("| derivative | method | primal (s) | grad (s) | grad / primal |\n|---|---|---|---|---|")
    for label, family, f, index, domain in CASES:
        args = _sample(domain, options.size, rng)
        primal, grad = _median_ratio(jax.jit(f), _grad_of(f, index), args, options.repeat)
        print(f"| {label} | {family} | {primal:.4f} | {grad:.4f} | {grad / primal:.2f} |")

    print("\nSide by side with jax.scipy.special (time: jaxsci / jax; error: max relative vs mpmath at 20 points)\n")
    print("| derivative | jaxsci (s) | jax (s) | ratio | jaxsci error | jax error |\n|---|---|---|---|---|---|")
    mpmath.mp.dps = 30
    pairs = [
        ("gammainc a", js.gammainc, getattr(jsp, "gammainc", None), [(0.5, 12), (0.01, 20)],
         lambda a, x: mpmath.diff(lambda t: mpmath.gammainc(t, 0, x, regularized=True), a)),
        ("hyp1f1 a", js.hyp1f1, getattr(jsp, "hyp1f1", None), [(0.1, 3), (0.5, 4), (-8, 8)],
         lambda a, b, x: mpmath.diff(lambda t: mpmath.hyp1f1(t, b, x), a)),
        ("hyp2f1 a", js.hyp2f1, getattr(jsp, "hyp2f1", None), [(0.1, 2), (0.1, 2), (0.5, 4), (-0.9, 0.9)],
         lambda a, b, c, z: mpmath.diff(lambda t: mpmath.hyp2f1(t, b, c, z), a)),
        ("zeta x (q = 1.5)", lambda x: js.zeta(x, 1.5), (lambda x: jsp.zeta(x, 1.5)) if hasattr(jsp, "zeta") else None,
         [(1.1, 20)], lambda x: mpmath.diff(lambda t: mpmath.zeta(t, 1.5), x)),
    ]
    for label, ours, theirs, domain, reference in pairs:
        if theirs is None:
            print(f"| {label} | | not in this jax | | | |")
            continue
        args = _sample(domain, options.size, rng)
        try:
            t_ours, t_theirs = _median_ratio(_grad_of(ours, 0), _grad_of(theirs, 0), args, options.repeat)
        except Exception as exc:  # noqa: BLE001 - a row says what failed, the table goes on
            print(f"| {label} | {type(exc).__name__}: {str(exc)[:80]} | | | | |")
            continue
        points = [tuple(float(a[i]) for a in args) for i in range(20)]
        exact = np.array([float(reference(*p)) for p in points])
        small = [jnp.asarray(np.array([p[k] for p in points])) for k in range(len(domain))]
        errors = []
        for f in (ours, theirs):
            got = np.asarray(_grad_of(f, 0)(*small))
            errors.append(np.nanmax(np.abs(got - exact) / np.maximum(np.abs(exact), 1e-300)))
        print(f"| {label} | {t_ours:.4f} | {t_theirs:.4f} | {t_ours / t_theirs:.2f} | {errors[0]:.1e} | {errors[1]:.1e} |")


if __name__ == "__main__":
    main()
