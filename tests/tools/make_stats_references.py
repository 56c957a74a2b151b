"""mpmath derivatives of jaxsci.stats' distributions, stored as tests/data/distributions/<name>.json.

    .venv/bin/python tests/tools/make_stats_references.py [NAME ...]   # default: every distribution

For each distribution (specs/stats/<name>.yaml), at SciPy's own test parameters
(scipy.stats._distr_params), at two points per method: the value and the first and second derivatives
of every public method in each differentiable argument, from the spec's mpmath ``reference`` composed
with loc and scale (the quantiles by root finding on the reference's cdf or sf) and differentiated by
``mpmath.diff`` at 30 digits. tests/test_stats.py compares jaxsci's derivatives with them, and says
to run this command when a spec's reference or this file's points change.
"""
from __future__ import annotations

import json
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
        if method == density:
            return ev(texts[density]) if density in texts else mpmath.exp(ev(texts[log_density]))
        if method == log_density:
            return ev(texts[log_density]) if log_density in texts else mpmath.log(ev(texts[density]))
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
    return tuple(n for n in names if n not in blocked)


def make(d) -> dict:
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
            if name not in differentiable(d, method):
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
    return {"format": FORMAT, "reference": d.reference, "records": records, "scipy_off": scipy_off(d, reference)}


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
        inside = [x for x in value_points(d, shapes, at) if lower < (x - at["loc"]) / scale < upper]
        for method in (m for m in d.public_methods if m not in QUANTILE_METHODS):
            with np.errstate(all="ignore"):
                theirs = getattr(dist, method)(np.array(inside), *shapes, **at)
                floored = getattr(dist, method)(np.floor(inside), *shapes, **at)
            for x, value, at_floor in zip(inside, theirs, floored):
                standard = float((x - at["loc"]) / scale)
                if d.type == "discrete" and not standard.is_integer():
                    if method in d.density or value != at_floor:
                        continue
                    standard = float(np.floor(standard))

                def exact():
                    # the real part: a root found by findroot may carry an imaginary part at rounding level
                    return float(mpmath.re(reference(method, mpmath.mpf(standard) * scale,
                                                     [_mp(s) for s in shapes], 0, scale)))

                def near(value, exact):
                    return value == exact or abs(value - exact) <= rtol * abs(exact)

                try:
                    first = exact()
                    if near(value, first):
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


def _resolved(evaluate, first: float) -> float:
    """The reference's value where its 30-digit value ``first`` says SciPy's is off: again at 60 digits, kept
    where the two agree to 1e-15 and are not 0; else at 400 digits, which hold the differences a point like
    1e-300 makes (exp(-1e-300) - 1, 0 at 30 and 60 digits alike). A quadrature reference (gausshyper's cdf)
    costs seconds at 400 digits: most of its points are resolved at 60."""
    with mpmath.workdps(60):
        second = evaluate()
    if second != 0 and abs(first - second) <= 1e-15 * abs(second):
        return second
    with mpmath.workdps(400):
        return evaluate()


def quantiles_off(d, reference, dist, shapes, at, rtol) -> list:
    """A continuous distribution's ppf and isf at the value test's probabilities where SciPy's quantile is
    further than rtol from the root of the reference's cdf (sf): a quantile whose formula cancels in a tail
    (1 - q**(s/k) near q = 1), by an amount that any other rounding of the same formula moves. The root is
    Newton's from SciPy's quantile, at 30 digits and again (_resolved) where 30 say SciPy is off; a probability
    mpmath cannot resolve there (no root found) is skipped, and SciPy stands."""
    import numpy as np

    from statspoints import PROBABILITIES as VALUE_PROBABILITIES

    off = []
    scale = at.get("scale", 1)
    for method in QUANTILE_METHODS:
        with np.errstate(all="ignore"):
            theirs = getattr(dist, method)(VALUE_PROBABILITIES, *shapes, **at)
        for q, value in zip(VALUE_PROBABILITIES, theirs):
            if not np.isfinite(value):
                continue
            reference.start = mpmath.mpf((value - at["loc"]) / scale)

            def exact():
                root = reference(method, mpmath.mpf(float(q)), [mpmath.mpf(s) for s in shapes], at["loc"], scale)
                return float(mpmath.re(root))

            try:
                first = exact()
                if abs(value - first) <= rtol * abs(value):
                    continue
                truth = _resolved(exact, first)
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if abs(value - truth) > rtol * abs(truth):
                off.append({"method": method, **at, "x": float(q), "scipy": float(value), "mpmath": truth})
    return off


def main(argv: list) -> int:
    specs, errors = collect_specs(ROOT / "specs", ROOT)
    distributions, more = collect_distributions(ROOT / "specs", ROOT, specs)
    if errors or more:
        print("\n".join(map(str, errors + more)), file=sys.stderr)
        return 2
    wanted = set(argv) or {d.name for d in distributions}
    unknown = wanted - {d.name for d in distributions}
    if unknown:
        print(f"no spec in specs/{FOLDER}/ for {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    DATA.mkdir(parents=True, exist_ok=True)
    for d in distributions:
        if d.name in wanted:
            path = DATA / f"{d.name}.json"
            path.write_text(json.dumps(make(d), indent=1) + "\n")  # args keep the call order
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
