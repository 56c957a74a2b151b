"""mpmath derivatives of jaxsci.stats' distributions, stored as tests/data/distributions/<name>.json.

    .venv/bin/python tests/tools/make_stats_references.py [--moments | --keep-moments] [NAME ...]   # default: every distribution

(``--moments``: only the moments' records, keeping the others; ``--keep-moments``: the others, keeping the
moments' records, which take the longest.)

For each distribution (specs/stats/<name>.yaml), at SciPy's own test parameters
(scipy.stats._distr_params), at two points per method: the value and the first and second derivatives
of every public method in each differentiable argument, from the spec's mpmath ``reference`` composed
with loc and scale (the quantiles by root finding on the reference's cdf or sf) and differentiated by
``mpmath.diff`` at 30 digits (not in the shape parameters the spec's ``tests.unreferenced`` names).
tests/test_stats.py compares jaxsci's derivatives with them, and says to run this command when a spec's
reference or this file's points change.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from generator.distribution import FOLDER, QUANTILE_METHODS, collect_distributions, not_differentiable, second_order_blocked  # noqa: E402
from generator.loader import collect_specs  # noqa: E402
from statspoints import VALUE_SCALES, points as value_points, scales as value_scales  # noqa: E402

DATA = ROOT / "tests" / "data" / "distributions"
PROBABILITIES = (0.2, 0.7)  # each method at the points (or probabilities) of these quantiles
LOC, SCALE = 0.25, 1.5  # continuous distributions; a discrete one's loc is 1 (it is not differentiable)
FORMAT = 1


def test_parameters(name: str) -> tuple:
    """SciPy's test parameters: floats, and a list of floats for a shape parameter with a core axis
    (poisson_binom's p)."""
    from scipy.stats._distr_params import distcont, distdiscrete

    return tuple([float(x) for x in v] if isinstance(v, (list, tuple)) else float(v)
                 for v in dict(distcont + distdiscrete)[name])


def _mp(value):
    """A value as mpmath numbers: a float, or a list of them (a vector shape parameter)."""
    return [mpmath.mpf(x) for x in value] if isinstance(value, list) else mpmath.mpf(value)


def _namespace() -> dict:
    names = {n: getattr(mpmath, n) for n in dir(mpmath) if not n.startswith("_")}
    names.update(abs=abs, min=min, max=max, int=int, float=float, len=len)
    return names


class Reference:
    """One distribution's public methods as mpmath functions of (point, *shapes, loc[, scale])."""

    def __init__(self, d):
        self.d = d
        self.namespace = _namespace()
        # (method, point, shapes, precision) -> value: mpmath.diff's steps at one precision share their
        # centre, logcdf and logsf evaluate the cdf and sf at the same points, and the loc and scale
        # derivatives of a quantile find the same root again; a quadrature reference (genhyperbolic's) costs
        # a second or more per call at the 110 digits of a second derivative. The same arguments give the
        # same value, so nothing changes but the time.
        self.memo = {}

    def _standard(self, method: str, z, shapes):
        key = (method, z, tuple(shapes), mpmath.mp.prec)
        if key not in self.memo:
            self.memo[key] = self._evaluate(method, z, shapes)
        return self.memo[key]

    def _evaluate(self, method: str, z, shapes):
        names = {self.d.variable: z, **{s.name: v for s, v in zip(self.d.shapes, shapes)}}
        texts = self.d.reference
        density, log_density = self.d.density
        # one namespace, so that a lambda in the expression (nsum's term) sees the variables
        ev = lambda text: eval(text, {**self.namespace, **names})  # noqa: E731 - the spec's mpmath expression
        # the one from the other through the memo: an entropy's integrand takes both at each node, and a density
        # that is a derivative or a quadrature (ksone's, landau's) costs a tenth of a second or more
        if method == density:
            return ev(texts[density]) if density in texts else mpmath.exp(self._standard(log_density, z, shapes))
        if method == log_density:
            return ev(texts[log_density]) if log_density in texts else mpmath.log(self._standard(density, z, shapes))
        if method == "sf" and "sf" not in texts:
            return 1 - ev(texts["cdf"])
        if method in ("cdf", "sf"):
            return ev(texts[method])
        if method in ("logcdf", "logsf"):
            # log1p of minus the other tail where that is the smaller: at 30 digits log(1 - 2e-33) is 0
            # (argus's logsf next to its lower end, where the cdf goes as x**2)
            other = self._standard("sf" if method == "logcdf" else "cdf", z, shapes)
            if other < 0.5:
                return mpmath.log1p(-other)
            return mpmath.log(self._standard(method[3:], z, shapes))
        raise KeyError(method)

    def __call__(self, method: str, point, shapes, loc, scale=1):
        if method in QUANTILE_METHODS:
            # Newton's method from SciPy's quantile, with the density as the tail's derivative: a secant
            # step can leave the support, where the reference is complex
            tail, sign = ("cdf", 1) if method == "ppf" else ("sf", -1)
            key = (method, point, tuple(shapes), mpmath.mp.prec, self.start)
            if key in self.memo:
                return self.memo[key] * scale + loc
            root = self.memo[key] = mpmath.findroot(lambda z: self._standard(tail, z, shapes) - point, self.start,
                                                    solver="newton",
                                                    df=lambda z: sign * self._standard(self.d.density[0], z, shapes))
            return root * scale + loc
        z = (point - loc) / scale
        value = self._standard(method, z, shapes)
        if self.d.type == "continuous" and method == "pdf":
            return value / scale
        if self.d.type == "continuous" and method == "logpdf":
            return value - mpmath.log(scale)
        return value


def points(d) -> list:
    """(method, {argument: value}) for each point the references are made at."""
    import scipy.stats

    shapes = test_parameters(d.name)
    dist = getattr(scipy.stats, d.name)
    scales = {"loc": LOC, "scale": SCALE} if d.type == "continuous" else {"loc": 1.0}
    out = []
    # a discrete quantile is a step function: no derivative to refer to (tests/test_stats.py checks it raises)
    for method in (m for m in d.public_methods if d.type == "continuous" or m not in QUANTILE_METHODS):
        for p in PROBABILITIES:
            first = p if method in QUANTILE_METHODS else float(dist.ppf(p, *shapes, **scales))
            variable = "q" if method in QUANTILE_METHODS else d.variable
            out.append((method, {variable: first, **{s.name: v for s, v in zip(d.shapes, shapes)}, **scales}))
    return out


def differentiable(d, method: str) -> tuple:
    """The arguments of a method that the references differentiate in: not those it is declared not
    differentiable in (a host method's, with the reason; tests/test_stats.py checks they raise)."""
    blocked = not_differentiable(d, method)
    names = ("q", *d.differentiable[1:]) if method in QUANTILE_METHODS else d.differentiable
    # the spec's tests.unreferenced: mpmath.diff cannot afford the reference in these (checked elsewhere)
    return tuple(n for n in names if n not in blocked and n not in d.tests.unreferenced)


def make(d, with_moments: bool = True) -> dict:
    mpmath.mp.dps = 30
    reference = Reference(d)
    records = []
    for method, args in points(d):
        names = list(args)
        # one scalar per component: a vector shape parameter (poisson_binom's p) is differentiated in each
        # of its elements, its first derivatives stored as a list and its second as the matrix of them all
        sizes = [len(v) if isinstance(v, list) else None for v in args.values()]
        values = [x for v in args.values() for x in (_mp(v) if isinstance(v, list) else [_mp(v)])]
        starts = [sum(1 if s is None else s for s in sizes[:i]) for i in range(len(sizes))]

        def f(*xs):
            point, *rest = (xs[s] if n is None else list(xs[s:s + n]) for s, n in zip(starts, sizes))
            shapes = rest[:len(d.shapes)]
            return reference(method, point, shapes, *rest[len(d.shapes):])

        if method in QUANTILE_METHODS:  # the root's starting point: SciPy's quantile, in standard form
            import scipy.stats

            scales = {n: args[n] for n in ("loc", "scale") if n in args}
            dist = getattr(scipy.stats, d.name)
            x = getattr(dist, method)(args["q"], *[args[s.name] for s in d.shapes], **scales)
            reference.start = mpmath.mpf((x - args["loc"]) / args.get("scale", 1))
        record = {"method": method, "args": args, "value": float(f(*values)), "first": {}, "second": {}}
        for name, start, size in zip(names, starts, sizes):
            # the log of a probability that is 0 whatever the parameters (betabinom's logsf at k = n): -inf,
            # a constant, where mpmath's differences are NaN: no derivative to refer to (the core's is 0)
            if name not in differentiable(d, method) or not math.isfinite(record["value"]):
                continue
            at = range(start, start + (size or 1))

            def partial(*orders):
                """The partial derivative of those orders in the components at ``at``."""
                def moved(*ts):
                    return f(*values[:start], *ts, *values[start + len(at):])

                if len(at) == 1:
                    return float(mpmath.diff(moved, values[start], orders[0]))
                return float(mpmath.diff(moved, values[start:start + len(at)], orders))

            unit = [[int(i == j) for j in range(len(at))] for i in range(len(at))]
            first = [partial(*u) for u in unit]
            record["first"][name] = first if size else first[0]
            if name not in second_order_blocked(d, method):  # tests/test_stats.py checks it raises
                second = [[partial(*[a + b for a, b in zip(u, w)]) for w in unit] for u in unit]
                record["second"][name] = second if size else second[0][0]
        records.append(record)
    return {"format": FORMAT, "reference": d.reference, "records": records, "scipy_off": scipy_off(d, reference),
            **({"moments": make_moments(d)} if with_moments else {})}


def scipy_off(d, reference) -> list:
    """The points of tests/test_stats.py's value comparison strictly inside the support where SciPy's
    own value is further from the mpmath reference than the spec's value_rtol (a difference that cancels
    in SciPy's formula): there the test accepts jaxsci's value close to SciPy's or to mpmath's.
    A discrete distribution's reference is meant for integers: at the test's half-integers it is taken at
    floor(k), where SciPy's value is its value there (rv_discrete's cdf and sf take floor(k) as most
    distributions' _cdf do; yulesimon's does not, and is skipped there)."""
    import numpy as np
    import scipy.stats

    mpmath.mp.dps = 30
    rtol = d.tests.value_rtol["float64"]
    dist, shapes = getattr(scipy.stats, d.name), test_parameters(d.name)
    off = []
    lower, upper = dist.support(*shapes)
    for pair in VALUE_SCALES:
        at = value_scales(d, *pair)
        # SciPy and jaxsci both standardise (x - loc) / scale in float64, and the reference is taken at
        # that standard point: its rounding is no part of a method's error
        scale = at.get("scale", 1)
        every = value_points(d, shapes, at)
        kept = np.array([lower < (x - at["loc"]) / scale < upper for x in every], bool)
        inside = list(every[kept])
        for method in (m for m in d.public_methods if m not in QUANTILE_METHODS):
            with np.errstate(all="ignore"):
                # SciPy's values over the test's whole array, as the test takes them: norminvgauss' sf gives
                # its first point's value at every interior point of an array with NaN or an infinity in it
                theirs = getattr(dist, method)(every, *shapes, **at)[kept]
                floored = getattr(dist, method)(np.floor(every), *shapes, **at)[kept]
            for x, value, at_floor in zip(inside, theirs, floored):
                standard = float((x - at["loc"]) / scale)
                if d.type == "discrete" and not standard.is_integer():
                    if method in d.density or value != at_floor:
                        continue
                    standard = float(np.floor(standard))

                def exact():
                    # the real part: a root found by findroot may carry an imaginary part at rounding level
                    return mpmath.re(reference(method, mpmath.mpf(standard) * scale, [_mp(s) for s in shapes], 0, scale))

                def near(value, exact):
                    return value == exact or abs(value - exact) <= rtol * abs(exact)

                try:
                    first = exact()
                    if near(value, float(first)):
                        continue
                    exact = _resolved(exact, first)
                except OverflowError:  # mpmath's own limits (erfc's series check at 1/x = 1e300): SciPy stands
                    continue
                if not near(value, exact):
                    off.append({"method": method, **at, "x": float(x), "scipy": float(value), "mpmath": float(exact)})
        if d.type == "continuous":
            off += quantiles_off(d, reference, dist, shapes, at, rtol)
        if d.type == "discrete" and lower == -np.inf:
            # rv_discrete.logcdf and logsf pass k = -inf to _logcdf and _logsf where the support is unbounded
            # below (its cdf and sf do not): NaN where SciPy's _cdf is NaN there (skellam's chndtr), although
            # the cdf there is 0 and the sf 1
            for method in ("logcdf", "logsf"):
                with np.errstate(all="ignore"):
                    log_value, value = (getattr(dist, m)(-np.inf, *shapes, **at) for m in (method, method[3:]))
                    if np.isnan(log_value) and not np.isnan(value):
                        off.append({"method": method, **at, "x": -np.inf, "scipy": np.nan, "mpmath": float(np.log(value))})
    return off


def _resolved(evaluate, first) -> float:
    """The reference's value (an mpmath number; ``first`` is it at 30 digits) where 30 digits say SciPy's is
    off, as a float: evaluated again at 60, 120 and 400 digits in turn, and kept at the first precision whose
    value agrees with the one before to 1e-15. Two values agree only where both are finite and not 0 as mpmath
    numbers: an exact 0 (or the infinite log of one) may be a difference more digits hold, as a point like
    1e-300 makes (exp(-1e-300) - 1, 0 at 30, 60 and 120 digits alike, -1e-300 at 400); a value below float64's
    range (or above it) that two precisions agree on is 0 (or infinite) in float64 at any precision, and is
    kept. The steps, and the agreement in mpmath rather than in float64, keep a quadrature reference from 400
    digits where 60 or 120 settle it: genhyperbolic's trapezoid-rule density at x = -1.8e308 (0 in float64)
    cost 0.3 s at 120 digits and 450 s at 200, and its 400-digit pass ran past 90 minutes. Where 60 and 120
    agree the 60-digit value lost at most 45 digits to cancellation, so the 120-digit one keeps more than
    float64 holds, as 400 would."""
    def agree(one, other):
        return (mpmath.isfinite(one) and mpmath.isfinite(other) and one != 0 and other != 0
                and abs(one - other) <= 1e-15 * abs(other))

    before = first
    for digits in (60, 120, 400):
        with mpmath.workdps(digits):
            value = evaluate()
        if agree(before, value) or digits == 400:
            return float(value)
        before = value


def quantiles_off(d, reference, dist, shapes, at, rtol) -> list:
    """A continuous distribution's ppf and isf at the value test's probabilities where SciPy's quantile is
    further than rtol from the root of the reference's cdf (sf): a quantile whose formula cancels in a tail
    (1 - q**(s/k) near q = 1), by an amount that any other rounding of the same formula moves. The root is
    Newton's from SciPy's quantile, at 30 digits and again (_resolved) where 30 say SciPy is off; a probability
    mpmath cannot resolve there (no root found) is skipped, and SciPy stands. Where SciPy raises (norminvgauss'
    ppf at 1 - 1e-9), its value is NaN, and Newton's method starts from SciPy's other quantile at 1 - q."""
    import numpy as np

    from statspoints import PROBABILITIES as VALUE_PROBABILITIES, scipy_values

    off = []
    scale = at.get("scale", 1)
    for method in QUANTILE_METHODS:
        other = "isf" if method == "ppf" else "ppf"
        with np.errstate(all="ignore"):
            theirs, raised = scipy_values(dist, method, VALUE_PROBABILITIES, *shapes, **at)
            starts = np.where(raised, scipy_values(dist, other, 1 - VALUE_PROBABILITIES, *shapes, **at)[0], theirs)
        for q, value, start in zip(VALUE_PROBABILITIES, theirs, starts):
            if not np.isfinite(start):
                continue
            reference.start = mpmath.mpf((start - at["loc"]) / scale)

            def exact():
                return mpmath.re(reference(method, mpmath.mpf(float(q)), [mpmath.mpf(s) for s in shapes], at["loc"], scale))

            try:
                first = exact()
                if abs(value - float(first)) <= rtol * abs(value):  # False where SciPy raised (NaN)
                    continue
                truth = _resolved(exact, first)
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if not abs(value - truth) <= rtol * abs(truth):  # NaN where SciPy raised: recorded
                off.append({"method": method, **at, "x": float(q), "scipy": float(value), "mpmath": truth})
    return off




# ---- moments: mean, var, std and entropy, from the reference's density ----------------------------------
MOMENT_STEP = 1e-3  # the finite-difference step, relative to the parameter (absolute at 0)
MOMENT_ERROR = 1e-20  # mpmath's error estimate of a moment's quadrature or sum, relative to its magnitude
TAIL_ERROR = 1e-32  # an unbounded side of a moment's integral ends where the tail beyond is estimated below this


def _support_namespace() -> dict:
    """mpmath's counterparts of the functions a spec's support formulas use."""
    return {"where": lambda c, a, b: a if c else b, "maximum": max, "minimum": min, "inf": mpmath.inf,
            "pi": mpmath.pi, "nan": mpmath.nan, "floor": mpmath.floor, "sqrt": mpmath.sqrt, "exp": mpmath.exp, "log": mpmath.log,
            "boxcox": lambda x, lmbda: mpmath.log(x) if lmbda == 0 else (x ** lmbda - 1) / lmbda}  # kappa4's lower end


def _far(quantile, base) -> float:
    """SciPy's quantile at the first of the tails 1e-300, 1e-200, 1e-100 where it is finite (ncf's isf(1e-300)
    raises OverflowError, levy's is 1e600: inf; beyond a tail of 1e-200 the moments SciPy finds finite lose
    1e-100 of themselves); NaN if none."""
    import numpy as np

    for tail in (1e-300, 1e-200, 1e-100):
        try:
            value = float(quantile(tail, *base))
        except (OverflowError, RuntimeError, ValueError):
            continue
        if np.isfinite(value):
            return value
    return np.nan


class StandardMoments:
    """A distribution's standard-form mean, var and entropy (those of ``wanted``; var needs the mean) from its
    mpmath reference at 30 digits: the density's integrals over the support (split at a few of SciPy's
    quantiles, at 0 and at the shape parameters inside it, where a density may have a kink: triang's mode c),
    or the pmf's sums (nsum over an unbounded support); cached by the shape parameters. None where mpmath's
    own error estimate, with the estimate of an unbounded side's tail beyond its end (_cut), is above
    MOMENT_ERROR (a slowly decaying tail), or the moment is infinite."""

    def __init__(self, d, reference, base: tuple, wanted=("mean", "var", "entropy")):
        import numpy as np
        import scipy.stats

        self.d, self.reference, self.cache = d, reference, {}
        self.wanted = set(wanted) | ({"mean"} if "var" in wanted else set())
        dist = getattr(scipy.stats, d.name)
        with np.errstate(all="ignore"):
            quantiles = [float(v) for v in dist.ppf([1e-3, 0.1, 0.5, 0.9, 0.999], *base)]
            # SciPy's quantile of a tail of 1e-300 is only a candidate end: a numerical search stops at its
            # bracket (rel_breitwigner's and dpareto_lognorm's isf(1e-300) are 1e7 and 1e13, where their sf
            # are 3e-22 and 8e-18, and the var's integral beyond 1e7 is 8e-5 of it); a discrete sum goes
            # out by itself (_series), and SciPy's generic discrete isf(1e-300) would sum its pmf out to
            # there (zipf's: 1e54 integers, an out-of-memory error)
            far = ((_far(dist.ppf, base), _far(dist.isf, base)) if d.type == "continuous" else (np.nan, np.nan))
        self.median = int(quantiles[2]) if np.isfinite(quantiles[2]) else 0
        self.quantiles = [mpmath.mpf(v) for v in quantiles if np.isfinite(v)]
        # each unbounded side's candidate ends, outward: the outer quantile times each power of 10 (a power-law
        # tail is smooth on each piece; mpmath's own map of an infinite interval samples the density at
        # points like 1e1000, where exp(x**b) takes minutes) out to 1e300, and SciPy's far quantile among them
        self.ends = []
        for side, start, end in zip((-1, 1), (quantiles[0], quantiles[-1]), far):
            ends = []
            if d.type == "continuous" and np.isfinite(start):
                step = mpmath.mpf(max(abs(start), 1))
                while step * 10 <= 1e300:
                    step *= 10
                    ends.append(side * step)
                if np.isfinite(end) and (end - start) * side > 0:
                    ends = sorted({*ends, mpmath.mpf(end)}, key=abs)
            self.ends.append(ends)

    def support(self, shapes) -> tuple:
        names = {**_support_namespace(), **{s.name: v for s, v in zip(self.d.shapes, shapes)}}
        return tuple(mpmath.mpf(eval(text, names)) for text in (self.d.lower.text, self.d.upper.text))  # noqa: S307 - the spec's formula

    def __call__(self, shapes) -> dict:
        key = tuple(shapes)
        if key not in self.cache:
            with mpmath.workdps(30):
                self.cache[key] = self._moments([mpmath.mpf(s) for s in shapes])
        return self.cache[key]

    def _cut(self, g, f, side: int, bound) -> tuple:
        """(end, tail) of one side of g's integral, of a side the support bounds: (that bound, 0); of an
        unbounded side: the first candidate end x (self.ends) where the integrand h = |g| f decays faster
        than 1/x out to the next, h ~ x**-e with e the local exponent between them, and the tail beyond x,
        10 x h(x) / (e - 1) (ten times the integral of x**-e), is below TAIL_ERROR; a tail that never is
        (a moment that diverges, or decays too slowly for these ends) is infinite, which keep() rejects.
        No candidates (SciPy's outer quantile is infinite): mpmath's own map of the infinite side."""
        ends = self.ends[side]
        if not mpmath.isinf(bound) or not ends:
            return bound, mpmath.mpf(0)
        h = lambda x: abs(g(x)) * f(x)  # noqa: E731
        for x, further in zip(ends, ends[1:]):
            here, there = h(x), h(further)
            if here == 0:
                return x, mpmath.mpf(0)
            decay = mpmath.inf if there == 0 else mpmath.log(here / there) / mpmath.log(further / x)
            if decay > 1.05:
                tail = 10 * abs(x) * here / (decay - 1)
                if tail <= TAIL_ERROR:
                    return x, tail
        return ends[-1], mpmath.inf

    def _moments(self, shapes) -> dict:
        lower, upper = self.support(shapes)
        density, log_density = self.d.density
        f = lambda x: self.reference._standard(density, x, shapes)  # noqa: E731
        log_f = lambda x: self.reference._standard(log_density, x, shapes)  # noqa: E731
        if self.d.type == "continuous":
            candidates = [*self.quantiles, *self.ends[0], *self.ends[1], mpmath.mpf(0), *shapes]

            def total(g, positive=False):
                (start, low_tail), (stop, high_tail) = self._cut(g, f, 0, lower), self._cut(g, f, 1, upper)
                points = [start, *sorted({p for p in candidates if start < p < stop}), stop]

                def term(g, x):
                    # a node that rounds to a finite end of the support, where the density may be infinite
                    # (beta's (1 - x)**(b - 1)), stands for a piece of width below 1e-30: left out
                    return 0 if x in (start, stop) else g(x) * f(x)

                value, error = mpmath.quad(lambda x: term(g, x), points, error=True)
                scale = abs(value) if positive else mpmath.quad(lambda x: abs(term(g, x)), points)
                return value, error + low_tail + high_tail, scale
        else:
            start, stop = (int(mpmath.ceil(lower)) if lower != -mpmath.inf else -mpmath.inf,
                           int(mpmath.floor(upper)) if upper != mpmath.inf else mpmath.inf)

            def total(g, positive=False):
                term = lambda k: g(k) * f(k)  # noqa: E731
                if mpmath.isinf(start) or mpmath.isinf(stop):
                    return _series(term, start, stop, self.median)
                values = [term(k) for k in range(start, stop + 1)]
                return mpmath.fsum(values), mpmath.mpf(0), mpmath.fsum(abs(v) for v in values)

        out = {}

        def keep(name, result):
            value, error, scale = result
            if mpmath.isfinite(value) and error <= MOMENT_ERROR * max(scale, abs(value)):
                out[name] = value

        if "mean" in self.wanted:
            keep("mean", total(lambda x: x))
        if "mean" in out and "var" in self.wanted:
            mean = out["mean"]
            keep("var", total(lambda x: (x - mean) ** 2, positive=True))
        if "entropy" in self.wanted:
            keep("entropy", total(lambda x: -log_f(x) if f(x) > 0 else 0))
        return out


def _series(term, start, stop, middle: int, chunk: int = 200, most: int = 20000) -> tuple:
    """(sum, error estimate, sum of magnitudes) of term(k) over the integers of [start, stop], an unbounded
    side summed outward from ``middle`` until a chunk adds less than 1e-32 of the total; past ``most``
    terms (a power-law tail) the rest by mpmath's nsum with the Euler-Maclaurin formula (its default,
    Richardson and Shanks extrapolation, is 1e-4 off a k**-4.6 tail: zipf's var), whose error is estimated
    as the difference from nsum started ``chunk`` terms later plus the terms between."""
    total, scale, error = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    sides = [(max(middle, start) if not mpmath.isinf(start) else middle, stop, 1),
             (min(middle - 1, stop) if not mpmath.isinf(stop) else middle - 1, start, -1)]
    for first, end, direction in sides:
        k = first
        while (end - k) * direction >= 0:
            if abs(k - first) >= most and mpmath.isinf(end):
                rest = mpmath.nsum(term, [k, end] if direction > 0 else [end, k], method="euler-maclaurin")
                later = k + chunk * direction
                check = mpmath.fsum(term(j) for j in range(k, later, direction)) + mpmath.nsum(
                    term, [later, end] if direction > 0 else [end, later], method="euler-maclaurin")
                total, scale, error = total + rest, scale + abs(rest), error + abs(rest - check)
                break
            last = k + chunk * direction
            if not mpmath.isinf(end):
                last = min(last, end + 1) if direction > 0 else max(last, end - 1)
            values = [term(j) for j in range(k, last, direction)]
            piece = mpmath.fsum(values)
            total, scale = total + piece, scale + mpmath.fsum(abs(v) for v in values)
            k = last
            if abs(piece) <= 1e-32 * abs(total) and mpmath.isinf(end):
                break
    return total, error, scale


def _richardson(values: list) -> mpmath.mpf:
    """The limit of estimates at steps h, h/2, h/4, ... whose errors are a series in h**2."""
    table = list(values)
    power = 4
    for _ in range(len(values) - 1):
        table = [(power * b - a) / (power - 1) for a, b in zip(table, table[1:])]
        power *= 4
    return table[0]


def moment_records(d) -> list:
    """The moments' values and first and second derivatives at SciPy's test parameters, with loc and scale
    (LOC, SCALE): in each shape parameter a moment's derivatives are Richardson-extrapolated central
    differences of the mpmath moments (steps MOMENT_STEP, /2, /4); in loc and scale they follow from the
    standard form (mean * scale + loc, var * scale**2, entropy + log(scale)). A moment SciPy says is
    infinite or undefined there has no record, nor one mpmath cannot resolve (StandardMoments)."""
    import numpy as np
    import scipy.stats

    shapes = test_parameters(d.name)
    dist = getattr(scipy.stats, d.name)
    scales = {"loc": LOC, "scale": SCALE} if d.type == "continuous" else {"loc": 1.0}
    # only the moments a record needs: SciPy's is finite (landau's mean and var are not, and their integrals
    # over a tail like 1/x**2 out to 1e300 cost most of its time)
    with np.errstate(all="ignore"):
        finite = {m for m in ("mean", "var", "std", "entropy")
                  if m in d.public_moments and np.isfinite(getattr(dist, m)(*shapes, **scales))}
    moments = StandardMoments(d, Reference(d), shapes, {"var" if m == "std" else m for m in finite})
    loc, scale = mpmath.mpf(scales["loc"]), mpmath.mpf(scales.get("scale", 1))
    with mpmath.workdps(30):
        base = moments(shapes)
        names = [s.name for s in d.shapes]
        steps = {}
        for index, name in enumerate(names):
            if d.shapes[index].integer:
                continue
            x = mpmath.mpf(shapes[index])
            h = MOMENT_STEP * (abs(x) if x else 1)
            at = lambda t, index=index: moments([*shapes[:index], t, *shapes[index + 1:]])  # noqa: E731
            steps[name] = (x, [h / 2**i for i in range(3)], at)

        def derivatives(moment, name):
            x, hs, at = steps[name]
            try:
                points = [(at(x + h).get(moment), at(x - h).get(moment)) for h in hs]
            except (ValueError, ZeroDivisionError, TypeError):  # a step leaves the parameters' domain
                return None
            if any(p is None for pair in points for p in pair):
                return None
            first = _richardson([(a - b) / (2 * h) for (a, b), h in zip(points, hs)])
            second = _richardson([(a - 2 * base[moment] + b) / h**2 for (a, b), h in zip(points, hs)])
            return first, second

        records = []
        for moment in ("mean", "var", "std", "entropy"):
            source = "var" if moment == "std" else moment
            if moment not in finite or source not in base:
                continue
            m = base[source]
            value = {"mean": m * scale + loc, "var": m * scale**2, "std": mpmath.sqrt(m) * scale,
                     "entropy": m + (mpmath.log(scale) if d.type == "continuous" else 0)}[moment]
            record = {"method": moment, "args": {**{n: float(v) for n, v in zip(names, shapes)}, **scales},
                      "value": float(value), "first": {}, "second": {}}
            blocked = not_differentiable(d, moment)
            for name in steps:
                if name in blocked:
                    continue
                found = derivatives(source, name)
                if found is None:
                    continue
                first, second = found
                if moment == "std":  # std = sqrt(var)
                    first, second = first / (2 * mpmath.sqrt(m)), second / (2 * mpmath.sqrt(m)) - first**2 / (4 * m**1.5)
                factor = {"mean": scale, "var": scale**2, "std": scale, "entropy": 1}[moment]
                record["first"][name], record["second"][name] = float(first * factor), float(second * factor)
            if "loc" not in blocked:
                record["first"]["loc"] = 1.0 if moment == "mean" else 0.0
                record["second"]["loc"] = 0.0
            if d.type == "continuous" and "scale" not in blocked:
                record["first"]["scale"] = float({"mean": m, "var": 2 * m * scale, "std": mpmath.sqrt(m),
                                                  "entropy": 1 / scale}[moment])
                record["second"]["scale"] = float({"mean": 0, "var": 2 * m, "std": 0, "entropy": -1 / scale**2}[moment])
            records.append(record)
    return records, moments


def moments_scipy_off(d, base: dict) -> list:
    """tests/test_stats.py's moment comparisons (SciPy's test parameters, VALUE_SCALES) where SciPy's value is
    further than value_rtol from mpmath's (``base``: the standard moments), a mean relative to the standard
    deviation (a symmetric distribution's is 0 to rounding): SciPy integrates a moment numerically where it has
    no closed form. Not where SciPy's is infinite or NaN (an integral that diverges, which mpmath's over the
    support's first and last 1e-300 does not see)."""
    import numpy as np
    import scipy.stats

    shapes = test_parameters(d.name)
    dist = getattr(scipy.stats, d.name)
    rtol = d.tests.value_rtol["float64"]
    off = []
    for pair in VALUE_SCALES:
        at = value_scales(d, *pair)
        loc, scale = at["loc"], at.get("scale", 1)
        for moment in (m for m in d.public_moments if m != "median"):
            source = "var" if moment == "std" else moment
            if source not in base:
                continue
            m = base[source]
            exact = float({"mean": m * scale + loc, "var": m * scale**2, "std": mpmath.sqrt(m) * scale,
                           "entropy": m + (mpmath.log(scale) if d.type == "continuous" else 0)}[moment])
            with np.errstate(all="ignore"):
                theirs = float(getattr(dist, moment)(*shapes, **at))
            size = abs(exact) if moment != "mean" or "var" not in base else max(abs(exact), float(mpmath.sqrt(base["var"])) * scale)
            if np.isfinite(theirs) and not (theirs == exact or abs(theirs - exact) <= rtol * size):
                off.append({"method": moment, **at, "x": None, "scipy": theirs, "mpmath": exact})
    return off


def make_moments(d) -> dict:
    records, moments = moment_records(d)
    base = moments(test_parameters(d.name))
    return {"support": [d.lower.text, d.upper.text], "records": records, "scipy_off": moments_scipy_off(d, base)}


def main(argv: list) -> int:
    specs, errors = collect_specs(ROOT / "specs", ROOT)
    distributions, more = collect_distributions(ROOT / "specs", ROOT, specs)
    if errors or more:
        print("\n".join(map(str, errors + more)), file=sys.stderr)
        return 2
    only_moments = "--moments" in argv  # keep the other records, redo the moments' (they take the longest)
    keep_moments = "--keep-moments" in argv
    argv = [a for a in argv if a not in ("--moments", "--keep-moments")]
    wanted = set(argv) or {d.name for d in distributions}
    unknown = wanted - {d.name for d in distributions}
    if unknown:
        print(f"no spec in specs/{FOLDER}/ for {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    DATA.mkdir(parents=True, exist_ok=True)
    for d in distributions:
        if d.name in wanted:
            path = DATA / f"{d.name}.json"
            stored = json.loads(path.read_text()) if path.exists() else {}
            if only_moments and stored:
                data = {**stored, "moments": make_moments(d)}
            elif keep_moments and "moments" in stored:
                data = {**make(d, with_moments=False), "moments": stored["moments"]}
            else:
                data = make(d)
            path.write_text(json.dumps(data, indent=1) + "\n")  # args keep the call order
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
