"""jaxsci.stats: one record per distribution spec (specs/stats/), checked against scipy.stats and mpmath.

Values are compared with SciPy at SciPy's own test parameters (scipy.stats._distr_params), across
the support and its edges, with loc and scale, for invalid parameters, broadcast shapes, float32 and
float64, under jit and vmap; derivatives with the mpmath references of tests/data/distributions/
(tests/tools/make_stats_references.py). Completeness is checked against SciPy's distribution lists.
"""
import json
import re
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy
import scipy.stats
from scipy.stats._distr_params import distcont, distdiscrete, invdistcont, invdistdiscrete

import jaxsci
import jaxsci.stats
from jaxsci import CallbackWarning
from generator import ROOT
from generator.distribution import (QUANTILE_METHODS, SECOND_ORDER_FACTOR, collect_distributions, not_differentiable,
                                    parse_distribution, second_order_blocked, special_arities)
from generator.errors import SpecError
from generator.loader import load_uncovered
from specdata import SPECS, in_default_share, params
from statspoints import PROBABILITIES, VALUE_SCALES, points as _points, scales as _scales, scipy_values

DISTRIBUTIONS, DISTRIBUTION_ERRORS = collect_distributions(ROOT / "specs", ROOT, SPECS)
BY_NAME = {d.name: d for d in DISTRIBUTIONS}
NAMES = sorted(BY_NAME)
PARAMS = dict(distcont + distdiscrete)
INVALID = {}
for _name, _params in invdistcont + invdistdiscrete:
    INVALID.setdefault(_name, []).append(_params)
DATA = ROOT / "tests" / "data" / "distributions"
def _compare(ours, theirs, rtol, what, log_density=False, mpmath_values=None):
    """Relative comparison; a log density (log_density) is compared as its density is, relatively in the
    density: an absolute rtol in the log where it is near 0 (a density near 1, whose last bits move it).
    mpmath_values: {index: value} where SciPy's own value is off (make_stats_references.py records
    them): jaxsci's may be close to SciPy's or to mpmath's there."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape}, SciPy's {theirs.shape}"

    def near(reference):
        magnitude = np.maximum(np.abs(reference), 1) if log_density else np.abs(reference)
        with np.errstate(invalid="ignore"):  # inf - inf: equal infinities are caught by ==
            return (ours == reference) | (np.isnan(ours) & np.isnan(reference)) | (np.abs(ours - reference) <= rtol * magnitude + 1e-300)

    exact = np.full_like(theirs, np.nan)
    for index, value in (mpmath_values or {}).items():
        exact[index] = value
    bad = ~(near(theirs) | (near(exact) & ~np.isnan(exact)))
    assert not bad.any(), (f"{what}: at {np.flatnonzero(bad)}: jaxsci {ours[bad]}, SciPy {theirs[bad]}"
                           + (f", mpmath {exact[bad]}" if mpmath_values else ""))


# Distributions whose SciPy methods cost seconds per call: studentized_range's ppf and isf are brentq searches
# over two-dimensional quadratures (0.2 s a quantile, SciPy's and jaxsci's host method alike), so that its
# value checks cost about 10 s of CPU. They run under -m slow; the host path is checked by default elsewhere.
COSTLY = {"studentized_range"}


def _costly_slow(cases):
    """pytest params (names or params), those of COSTLY under -m slow."""
    return [pytest.param(*c.values, id=c.id, marks=[*c.marks, pytest.mark.slow]) if c.values[0] in COSTLY else c
            for c in (c if hasattr(c, "values") else pytest.param(c, id=c) for c in cases)]


def test_specs_load():
    assert not DISTRIBUTION_ERRORS, "\n".join(map(str, DISTRIBUTION_ERRORS))


def _scipy_off(name):
    """(method, loc, scale, point) -> mpmath's value, where SciPy's own value is off by more than the
    spec's value_rtol (tests/data/distributions/<name>.json's scipy_off; a moment's point is None)."""
    path = DATA / f"{name}.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    records = data.get("scipy_off", []) + data.get("moments", {}).get("scipy_off", [])
    return {(r["method"], r["loc"], r.get("scale"), r["x"]): r["mpmath"] for r in records}


@pytest.mark.parametrize("name", _costly_slow(NAMES))
def test_values_match_scipy(name):
    """Every method at SciPy's test parameters, with loc and scale, over the support, its edges and
    beyond (0, -inf, 0 or 1 outside it, as SciPy), and the quantiles at 0, 1, outside [0, 1] and NaN."""
    d = BY_NAME[name]
    dist, module, shapes = getattr(scipy.stats, name), getattr(jaxsci.stats, name), PARAMS[name]
    rtol = d.tests.value_rtol["float64"]
    scipy_off = _scipy_off(name)
    for scales in (_scales(d, *pair) for pair in VALUE_SCALES):
        x = _points(d, shapes, scales)
        q = np.concatenate([PROBABILITIES, [0.0, 1.0, -0.5, 1.5, np.nan]])
        with np.errstate(all="ignore"):
            for method in d.public_methods:
                point = q if method in QUANTILE_METHODS else x
                keys = [(method, scales["loc"], scales.get("scale"), p) for p in point]
                off = {i: scipy_off[key] for i, key in enumerate(keys) if key in scipy_off}
                # NaN where SciPy raises (norminvgauss' ppf near 1): there jaxsci's is compared with mpmath's
                _compare(getattr(module, method)(point, *shapes, **scales), scipy_values(dist, method, point, *shapes, **scales)[0],
                         rtol, f"{name}.{method} {scales}", log_density=method == d.density[1], mpmath_values=off)
            for moment in d.public_moments:
                if not _scipy_integrates(name, moment):  # those: test_integrated_moments_match_scipy
                    _compare_moment(name, moment, scales, scipy_off)


def _compare_moment(name, moment, scales, scipy_off):
    d, dist, module, shapes = BY_NAME[name], getattr(scipy.stats, name), getattr(jaxsci.stats, name), PARAMS[name]
    key = (moment, scales["loc"], scales.get("scale"), None)
    with np.errstate(all="ignore"):
        theirs = getattr(dist, moment)(*shapes, **scales)
    _compare(getattr(module, moment)(*shapes, **scales), theirs, d.tests.value_rtol["float64"], f"{name}.{moment} {scales}",
             mpmath_values={(): scipy_off[key]} if key in scipy_off else None)


def _scipy_integrates(name, moment):
    """Whether SciPy computes a moment numerically (rv_generic's integral or sum: its class has no closed form
    for it), which takes seconds for some (ksone's integrates its own numerical density)."""
    dist = getattr(scipy.stats, name)
    kind, base = type(dist), (scipy.stats.rv_continuous if BY_NAME[name].type == "continuous" else scipy.stats.rv_discrete)
    if moment == "median":
        return False
    if moment == "entropy":
        return kind._entropy is base._entropy
    if kind._munp is not base._munp:
        return False
    with np.errstate(all="ignore"):
        return kind._stats is base._stats or dist._stats(*PARAMS[name])[0 if moment == "mean" else 1] is None


def _integrated_cases():
    """The distributions with a moment SciPy integrates numerically: jaxsci's closed forms against mpmath
    for all of them by default, SciPy's own on the host (host_moments) against SciPy with loc and scale for a
    fixed quarter by default (a host density's under -m slow only: SciPy integrates it, seconds per moment);
    under -m slow, every one against SciPy at every VALUE_SCALES pair (``every_scale``)."""
    out = []
    for name in NAMES:
        d = BY_NAME[name]
        if not any(_scipy_integrates(name, m) for m in d.public_moments):
            continue
        cheap = not (set(d.host) & set(d.density)) and (not d.host_moments or in_default_share(f"{name}-moments", 4))
        out.append(pytest.param(name, False, id=name, marks=() if cheap else pytest.mark.slow))
        out.append(pytest.param(name, True, id=f"{name}-every-scale", marks=pytest.mark.slow))
    return out


@pytest.mark.parametrize("name, every_scale", _integrated_cases())
def test_integrated_moments_match(name, every_scale):
    """Moments SciPy computes numerically: jaxsci's closed forms against the mpmath references' values (with
    loc and scale), and against SciPy's own (every_scale: all of them at test_values_match_scipy's points;
    otherwise SciPy's own on the host with loc and scale only: SciPy integrates each, once for jaxsci's and
    once here), to SciPy's integration error where the references record mpmath's value."""
    d, module = BY_NAME[name], getattr(jaxsci.stats, name)
    integrated = [m for m in d.public_moments if _scipy_integrates(name, m)]
    # a core-axis shape (poisson_binom's vector p): the moment references take scalar shapes; SciPy's moments
    # are finite sums over the trials there, exact to rounding
    every_scale = every_scale or any(s.core for s in d.shapes)
    if not every_scale:
        for record in _references(name, moments=True):
            moment, args = record["method"], record["args"]
            if moment in integrated and moment not in d.host_moments and not (moment == "std" and "var" in d.host_moments):
                ours = getattr(module, moment)(*list(args.values())[:len(d.shapes)],
                                               **{k: args[k] for k in ("loc", "scale") if k in args})
                _compare(ours, record["value"], max(d.tests.value_rtol["float64"], 1e-13), f"{name}.{moment} against mpmath")
        if not d.host_moments:
            return
    scipy_off = _scipy_off(name)
    for scales in (_scales(d, *pair) for pair in (VALUE_SCALES if every_scale else VALUE_SCALES[1:])):
        for moment in integrated:
            _compare_moment(name, moment, scales, scipy_off)


@pytest.mark.parametrize("name", _costly_slow([n for n in NAMES if INVALID.get(n)]))
def test_invalid_shape_parameters_are_nan(name):
    """SciPy's invalid test parameters (_distr_params' invdistcont, invdistdiscrete) give what SciPy gives
    (NaN) for every method: each spec's own ``valid``, checked for every distribution."""
    d = BY_NAME[name]
    _check_invalid(name, [(p, _scales(d)) for p in INVALID[name]])


@pytest.mark.parametrize("name", _costly_slow(params(NAMES, ids=lambda n: n, share=3)))
def test_invalid_scale_and_loc_are_nan(name):
    """scale <= 0 and a NaN loc give what SciPy gives (NaN) for every method. The core checks them for
    every distribution alike: a fixed third of the distributions by default, all under -m slow."""
    d = BY_NAME[name]
    cases = []
    if d.type == "continuous":
        cases += [(PARAMS[name], {"loc": 0.0, "scale": 0.0}), (PARAMS[name], {"loc": 0.0, "scale": -1.0})]
    cases.append((PARAMS[name], {**_scales(d), "loc": np.nan}))
    _check_invalid(name, cases)


def _check_invalid(name, cases):
    d = BY_NAME[name]
    dist, module = getattr(scipy.stats, name), getattr(jaxsci.stats, name)
    x = np.array([0.25, 0.5, 2.0])
    # a shapeless distribution's "invalid" parameters are () (valid): its moments are compared as
    # test_values_match_scipy does, with mpmath's value where SciPy's integration is off (kstwobign's mean)
    scipy_off = _scipy_off(name)
    with np.errstate(all="ignore"):
        for shapes, scales in cases:
            for method in (*d.public_methods, *d.public_moments):
                args = () if method in d.public_moments else (x,)
                try:
                    theirs = getattr(dist, method)(*args, *shapes, **scales)
                # SciPy's generic entropy evaluates exponpow's density at b = -1 (0.0**-1), and raises from
                # its ppf's bracket search (RuntimeError) at yulesimon's alpha = -2: NaN is expected there
                except (ArithmeticError, RuntimeError):
                    theirs = None
                with warnings.catch_warnings():  # ours warns that SciPy raised, and is NaN
                    warnings.simplefilter("ignore", CallbackWarning)
                    ours = getattr(module, method)(*args, *shapes, **scales)
                if theirs is None:
                    theirs = np.full(np.shape(ours), np.nan)
                key = (method, scales["loc"], scales.get("scale"), None)
                _compare(ours, theirs, d.tests.value_rtol["float64"], f"{name}.{method}{shapes} {scales}",
                         mpmath_values={(): scipy_off[key]} if args == () and key in scipy_off else None)


def _host_slow(names, share=3):
    """Parameters for a check of code every distribution shares: a fixed share by default, as
    ``params``, but a distribution with host methods only under -m slow (their derivative graphs cost
    seconds each to compile); test_a_blocked_host_argument_raises_with_its_reason_in_every_method_that_uses_it checks the host
    path (values, jit, vmap, grad) by default, test_host_methods_second_order_float32_and_scale the rest."""
    return [pytest.param(n, id=n, marks=pytest.mark.slow) if BY_NAME[n].host else p
            for n, p in zip(names, params(names, ids=lambda n: n, share=share))]


@pytest.mark.parametrize("name", _host_slow(NAMES))
def test_shapes_dtypes_jit_vmap(name):
    """Broadcasting as SciPy's, float32 in and out (to the spec's float32 tolerance), and the same
    values under jit and vmap. The core broadcasts, casts and batches every distribution alike: a fixed
    third runs by default, all under -m slow."""
    d = BY_NAME[name]
    dist, module, shapes = getattr(scipy.stats, name), getattr(jaxsci.stats, name), PARAMS[name]
    scales = _scales(d)
    x = dist.ppf(np.array([[0.1], [0.6], [0.9]]), *shapes, **scales)  # (3, 1) against loc of shape (2,)
    locs = np.array([scales["loc"], scales["loc"] + 1.0])
    wide = {**scales, "loc": locs}
    cdf = module.cdf(x, *shapes, **wide)
    _compare(cdf, dist.cdf(x, *shapes, **wide), d.tests.value_rtol["float64"], f"{name}.cdf broadcast")
    single = module.cdf(x.astype(np.float32), *(np.float32(s) for s in shapes), **{k: np.float32(v) for k, v in scales.items()})
    assert single.dtype == jnp.float32
    _compare(single, dist.cdf(x, *shapes, **scales), d.tests.value_rtol["float32"], f"{name}.cdf float32")
    density = d.density[1]
    jitted = jax.jit(lambda p, *a: getattr(module, density)(p, *a, **scales))(x, *shapes)
    # XLA fuses the jitted formula: the last digits may differ from the eager call's
    _compare(jitted, getattr(module, density)(x, *shapes, **scales), d.tests.value_rtol["float64"], f"{name}.{density} jit")
    mapped = jax.vmap(lambda loc: module.cdf(x[:, 0], *shapes, **{**scales, "loc": loc}))(locs)
    # batched, XLA may round (x - loc) / scale differently by an ulp, and its vectorised kernels may differ
    # from the scalar ones in the last digit: a steep cdf (kstwobign's lower tail, d log F / d log x = 84
    # at x = 0.17) or a point deep in a tail (alpha's 4e-124, by about 600) turns that into more than 1e-14
    _compare(mapped, cdf.T, d.tests.value_rtol["float64"], f"{name}.cdf vmap")


def _references(name, moments=False):
    """The mpmath references of a distribution's methods (moments: of its moments)."""
    path = DATA / f"{name}.json"
    d = BY_NAME[name]
    command = f".venv/bin/python tests/tools/make_stats_references.py {'--moments ' if moments else ''}{name}"
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: run {command}", pytrace=False)
    data = json.loads(path.read_text())
    if data["reference"] != d.reference:
        pytest.fail(f"{path.relative_to(ROOT)} is stale (the spec's reference changed): run {command}", pytrace=False)
    if not moments:
        return data["records"]
    if data.get("moments", {}).get("support") != [d.lower.text, d.upper.text]:
        pytest.fail(f"{path.relative_to(ROOT)} has no moments for the spec's support: run {command}", pytrace=False)
    return data["moments"]["records"]


def _gradient_cases():
    """Derivatives against mpmath for a fixed share of the distributions by default: first order for a
    sixth, second order for a twentieth (they cost most of this file's time, through the special functions'
    rules, which their own suites check at both orders for every spec; a distribution's formula itself is
    checked for every distribution by the value tests), all of them under -m slow. A distribution with
    host methods is differentiated through nested rules (a host density through its cdf formula's second
    derivatives), costly to compile: its checks run under -m slow (_host_slow)."""
    def default(name, order):
        return not BY_NAME[name].host and in_default_share(f"{name}-{order}", 6 if order == "first" else 20)

    return [pytest.param(name, order, id=f"{name}-{order}", marks=() if default(name, order) else pytest.mark.slow)
            for name in NAMES for order in ("first", "second")]


@pytest.mark.parametrize("name, order", _gradient_cases())
def test_derivatives_match_mpmath(name, order):
    """The first derivatives and the diagonal second derivatives of every method, in the point and in
    every continuous parameter (shapes, loc, scale), against mpmath's derivatives of the spec's reference;
    a method's points in one vmapped call. Where the spec makes a method first-order only in an argument
    (second_order_blocked), its second derivative raises NonDifferentiableError."""
    _check_derivatives(name, order, _references(name))


def _moment_cases():
    """Moment derivatives against mpmath: those given by formulas for a fixed eighth of the distributions
    (second order: a twentieth) by default, all of them under -m slow; a distribution with SciPy's own (host)
    moments only under -m slow (each quadrature costs seconds to compile; the quadrature is the core's, the
    same for every distribution, and test_host_moment_* check it by default)."""
    def default(name, order):
        d = BY_NAME[name]
        return not d.host and not d.host_moments and in_default_share(f"{name}-moments-{order}", 8 if order == "first" else 20)

    return [pytest.param(name, order, id=f"{name}-{order}", marks=() if default(name, order) else pytest.mark.slow)
            for name in NAMES for order in ("first", "second")]


@pytest.mark.parametrize("name, order", _moment_cases())
def test_moment_derivatives_match_mpmath(name, order):
    """mean, var, std and entropy: their first and second derivatives in every continuous shape parameter,
    loc and scale, against the mpmath moments of the spec's reference (tests/tools/make_stats_references.py
    --moments: the density's integrals, or the pmf's sums, differentiated by extrapolated differences).
    The median is ppf(0.5), which the method references check. Skipped, visibly, where mpmath resolves none
    of the moments SciPy finds finite (alpha's and levy_l's entropy, kstwo's piecewise density)."""
    references = _references(name, moments=True)
    if not any(m != "median" for m in BY_NAME[name].public_moments):
        pytest.skip(f"{name} has no moment but the median (ppf(0.5): the method references check it)")
    if not references:
        pytest.skip(f"tests/data/distributions/{name}.json: mpmath resolved none of its moments at SciPy's test parameters")
    _check_derivatives(name, order, references)


# Host moments' derivatives that their quadrature's error estimate rejects at SciPy's test parameters (NaN,
# as it must be there, rather than a number it cannot vouch for): (distribution, moment, order, argument) -> why
QUADRATURE_NAN = {
    ("fatiguelife", "entropy", "second", "c"): "c = 29: the quantile jumps from 1/(c z)**2 to (c z)**2 within "
                                               "|u - 1/2| < 0.03, and the 1559 nodes' estimate is 8.7e-7 of the sum",
    ("nct", "entropy", "second", "nc"): "(14, 0.24): the terms' second derivatives (the host density's and "
                                        "nctdtrit's implicit rules) are not smooth to 1e-7: the sum against every "
                                        "other node's is 7.3e-7 of it (the sum is 6e-7 from mpmath's)",
}


def _check_derivatives(name, order, references):
    d = BY_NAME[name]
    module = getattr(jaxsci.stats, name)
    rtol = d.tests.gradient_rtol * (SECOND_ORDER_FACTOR if order == "second" else 1)
    keywords = ("loc", "scale") if d.type == "continuous" else ("loc",)
    by_method = {}
    for record in references:
        if record[order]:
            by_method.setdefault(record["method"], []).append(record)
    failures = []
    for method_name, records in by_method.items():
        names, wanted = list(records[0]["args"]), list(records[0][order])
        positional = len(names) - len(keywords)
        method = getattr(module, method_name)

        def f(*args, method=method, positional=positional):
            return method(*args[:positional], **dict(zip(keywords, args[positional:])))

        positions = tuple(names.index(n) for n in wanted)
        columns = [jnp.array([r["args"][n] for r in records]) for n in names]
        if order == "first":
            got = jax.vmap(jax.grad(f, argnums=positions))(*columns)
        else:
            hessian = jax.vmap(jax.hessian(f, argnums=positions))(*columns)
            got = [hessian[i][i] for i in range(len(positions))]
        for n, values in zip(wanted, got):
            # a vector shape parameter's (poisson_binom's p): the gradient, or the matrix of second derivatives
            for record, value in zip(records, np.asarray(values)):
                expected = np.asarray(record[order][n])
                if not np.all(np.abs(value - expected) <= rtol * np.abs(expected) + 1e-12):
                    failures.append(f"{method_name}{record['args']} d/d{n}: jaxsci {value.tolist()!r}, mpmath {expected.tolist()!r}")


                expected = record[order][n]
                if (name, method_name, order, n) in QUADRATURE_NAN:
                    if not np.isnan(value):
                        failures.append(f"{method_name} d/d{n}: {float(value)!r}, where QUADRATURE_NAN expects NaN: fix it there")
                    continue
                if not abs(float(value) - expected) <= rtol * abs(expected) + 1e-12:
                    failures.append(f"{method_name}{record['args']} d/d{n}: jaxsci {float(value)!r}, mpmath {expected!r}")
        if order == "second":  # first order only, as the spec says: the second derivative raises, never a number
            for n in second_order_blocked(d, method_name):
                with pytest.raises(jaxsci.NonDifferentiableError):
                    jax.hessian(f, argnums=names.index(n))(*(c[0] for c in columns))
    assert not failures, f"{name}: {len(failures)} {order} derivative(s) off (rtol {rtol:g}):\n" + "\n".join(failures)


@pytest.mark.parametrize("name", _host_slow([n for n in NAMES if BY_NAME[n].type == "continuous" and any(
    not_differentiable(BY_NAME[n], m) for m in BY_NAME[n].public_methods)]))
def test_declared_not_differentiable_arguments_raise_with_their_reason(name):
    """Every argument coverage.md lists as not differentiable for a method (a host method's stated reason,
    an integer shape parameter's) raises NonDifferentiableError with that reason, at a reference point."""
    d = BY_NAME[name]
    module = getattr(jaxsci.stats, name)
    for record in {r["method"]: r for r in _references(name)}.values():
        method, args = record["method"], record["args"]
        for n, why in not_differentiable(d, record["method"]).items():
            def moved(value, n=n, method=method, args=args):
                values = {**args, n: value}
                return getattr(module, method)(*list(values.values())[:-2], loc=values["loc"], scale=values["scale"])

            with pytest.raises(jaxsci.NonDifferentiableError, match=re.escape(why[:40])):
                jax.grad(moved)(jnp.float64(args[n]))


@pytest.mark.parametrize("name", [n for n in NAMES if BY_NAME[n].type == "discrete"])
def test_discrete_steps_raise(name):
    """k and loc of pmf, cdf, ...; q and the shapes of ppf and isf; integer shapes (binom's n): a
    tangent raises NonDifferentiableError, never a silent zero. loc of ppf is differentiable (d/dloc = 1)."""
    d = BY_NAME[name]
    module, shapes = getattr(jaxsci.stats, name), [jnp.float64(s) for s in PARAMS[name]]
    for method in (*d.density, "cdf", "logsf"):
        with pytest.raises(jaxsci.NonDifferentiableError, match="'k'"):
            jax.grad(getattr(module, method))(jnp.float64(1.0), *shapes)
        with pytest.raises(jaxsci.NonDifferentiableError, match="'loc'"):
            jax.grad(lambda loc, m=method: getattr(module, m)(2.0, *shapes, loc=loc))(jnp.float64(0.0))
    for method in QUANTILE_METHODS:
        with pytest.raises(jaxsci.NonDifferentiableError, match="'q'"):
            jax.grad(getattr(module, method))(jnp.float64(0.3), *shapes)
        for i, shape in enumerate(d.shapes):
            moved = lambda s, i=i, m=method: getattr(module, m)(0.3, *shapes[:i], s, *shapes[i + 1:])
            with pytest.raises(jaxsci.NonDifferentiableError, match=repr(shape.name)):
                jax.grad(moved)(shapes[i])
        assert jax.grad(lambda loc, m=method: getattr(module, m)(0.3, *shapes, loc=loc))(jnp.float64(2.0)) == 1.0
    for i, shape in enumerate(d.shapes):
        if shape.integer:
            with pytest.raises(jaxsci.NonDifferentiableError, match=repr(shape.name)):
                jax.grad(lambda s, i=i: module.pmf(1.0, *shapes[:i], s, *shapes[i + 1:]))(shapes[i])


def test_every_scipy_distribution_is_covered_or_listed():
    """scipy.stats' distributions (SciPy's _distn_names lists) both ways: each has a spec or is listed in
    specs/uncovered.yaml's stats with its reason (generated/coverage.md lists those), no name is both,
    and, on SciPy 1.17 and later (the list is 1.17's), no listed name is gone from SciPy."""
    from scipy.stats import _continuous_distns, _discrete_distns

    scipys = set(_continuous_distns._distn_names) | set(_discrete_distns._distn_names)
    uncovered = set(load_uncovered(ROOT / "specs", ROOT).get("stats", {}))
    missing = sorted(scipys - set(BY_NAME) - uncovered)
    assert not missing, f"scipy.stats' {', '.join(missing)}: neither specified in specs/stats/ nor listed in specs/uncovered.yaml"
    both = sorted(set(BY_NAME) & uncovered)
    assert not both, f"{', '.join(both)}: specified, but still listed in specs/uncovered.yaml; remove them there"
    if tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 17):
        gone = sorted((set(BY_NAME) | uncovered) - scipys)
        assert not gone, f"{', '.join(gone)}: not a distribution of scipy.stats {scipy.__version__}"
    assert set(jaxsci.stats.__all__) == set(BY_NAME)
    coverage = (ROOT / "generated" / "coverage.md").read_text()
    assert f"{len(BY_NAME)} of scipy.stats' {len(BY_NAME) + len(uncovered)} distributions" in coverage


_GOOD = """\
name: expon
scipy: scipy.stats.expon
type: continuous
summary: An exponential continuous random variable.
support: {lower: 0, upper: inf}
methods:
  logpdf: -x
  cdf: -expm1(-x)
  ppf: -log1p(-q)
reference:
  pdf: exp(-x)
  cdf: 1 - exp(-x)
"""


@pytest.mark.parametrize("change, message", [
    (("cdf: -expm1(-x)", "cdf: ndtrr(x)"), "methods.cdf: unknown function 'ndtrr'; did you mean 'ndtr'?"),
    (("cdf: -expm1(-x)", "cdf: ndtr(x, x)"), "methods.cdf: jaxsci.special.ndtr takes 1 argument(s), got 2"),
    (("ppf: -log1p(-q)", "ppf: -log1p(-x)"), "methods.ppf: unknown name 'x'"),
    (("  ppf: -log1p(-q)\n", ""), "methods needs ppf"),
    (("logpdf: -x", "logpfd: -x"), "unknown method 'logpfd' for a continuous distribution; did you mean 'logpdf'?"),
    (("support: {lower: 0, upper: inf}", "support: {lower: 0, upper: inf}\nshapes: [{name: a}]"),
     "shapes must be SciPy's, in SciPy's order: [], got ['a']"),
    # the point's name is not a shape's; k is a continuous spec's shape name (studentized_range), not a discrete one's
    (("support: {lower: 0, upper: inf}", "support: {lower: 0, upper: inf}\nshapes: [{name: x}]"),
     "shape parameter name 'x' is not allowed"),
    (("support: {lower: 0, upper: inf}", "support: {lower: 0, upper: inf}\nshapes: [{name: k}]"),
     "shapes must be SciPy's, in SciPy's order: [], got ['k']"),
    (("type: continuous", "type: discrete\nshapes: [{name: k}]"), "shape parameter name 'k' is not allowed"),
    (("cdf: 1 - exp(-x)", "cdf: 1 - exq(-x)"), "reference.cdf: 'exq' is neither an mpmath name"),
    (("cdf: -expm1(-x)", "cdf: x.real"), "Attribute is not allowed in a formula"),
    (("cdf: -expm1(-x)", "cdf: gamma.cdf(x)"), "methods.cdf: gamma.cdf takes 2 argument(s) (the point or probability, "
                                              "then the shape parameters, in standard form), got 1"),
    (("cdf: -expm1(-x)", "cdf: gamma.mean(x, 2)"), "methods.cdf: gamma.mean: a formula may call a distribution's pdf, "
                                                   "logpdf, cdf, logcdf, sf, logsf, ppf, isf"),
    (("cdf: -expm1(-x)", "cdf: gama.cdf(x, 2)"), "methods.cdf: gama.cdf: 'gama' is not a scipy.stats distribution"),
    (("cdf: -expm1(-x)", "cdf: gamma.cdf(x, a=2)"), "only calls of named functions with positional arguments"),
    (("cdf: -expm1(-x)", "cdf: ndtr(x, r=1)"), "ndtr() takes no keyword 'r': only a derivative kernel's static integer"),
    (("cdf: -expm1(-x)", "cdf: landau_pdf_dx(x, s=2)"), "landau_pdf_dx() takes no keyword 's' (its static integer arguments: r)"),
    (("cdf: -expm1(-x)", "cdf: landau_pdf_dx(x, r=x)"), "landau_pdf_dx(r=...) must be a non-negative integer literal"),
])
def test_loader_errors_are_located(change, message):
    _assert_located(_GOOD, change, "expon", message)


def _assert_located(spec, change, name, message):
    """The spec with one change fails to load with ``message``, located at specs/stats/<name>.yaml:line."""
    text = spec.replace(*change)
    assert text != spec
    with pytest.raises(SpecError) as info:
        parse_distribution(text, f"specs/stats/{name}.yaml", name, special_arities(SPECS))
    assert message in str(info.value), str(info.value)
    assert str(info.value).startswith(f"specs/stats/{name}.yaml:"), str(info.value)


def test_a_formula_calls_a_distributions_standard_form_method(tmp_path):
    """``name.method(point, *shapes)`` is that distribution's standard-form method (distributions.standard);
    collect_distributions reports, at its line, a call of a distribution without a spec."""
    from generator.distribution import collect_distributions

    text = _GOOD.replace("cdf: -expm1(-x)", "cdf: 1 - expon.sf(x) + 0 * gamma.cdf(x, 2)")
    d = parse_distribution(text, "specs/stats/expon.yaml", "expon", special_arities(SPECS))
    assert d.methods["cdf"].code == ("1 - distributions.standard('expon', 'sf', x) + "
                                     "0 * distributions.standard('gamma', 'cdf', x, 2)")
    assert d.methods["cdf"].uses == ("expon", "gamma")
    (tmp_path / "stats").mkdir()
    (tmp_path / "stats" / "expon.yaml").write_text(text)
    found, errors = collect_distributions(tmp_path, tmp_path, SPECS)
    assert [d.name for d in found] == ["expon"]
    assert [str(e) for e in errors] == ["stats/expon.yaml:8: gamma.<method>: jaxsci.stats has no gamma (no specs/stats/gamma.yaml)"]


def test_a_formula_gives_a_kernels_static_order_by_keyword():
    text = _GOOD.replace("cdf: -expm1(-x)", "cdf: -expm1(-x) + 0 * landau_pdf_dx(x, r=2)")
    d = parse_distribution(text, "specs/stats/expon.yaml", "expon", special_arities(SPECS))
    assert d.methods["cdf"].code == "-jnp.expm1(-x) + 0 * kernels.landau_pdf_dx(x, r=2)"


def test_the_good_spec_loads():
    d = parse_distribution(_GOOD, "specs/stats/expon.yaml", "expon", special_arities(SPECS))
    assert d.methods["cdf"].code == "-jnp.expm1(-x)"  # jax.numpy's, where jaxsci.special has the same name
    assert d.differentiable == ("x", "loc", "scale")


_SHAPE_K = """\
name: NAME
scipy: scipy.stats.NAME
type: TYPE
summary: A distribution with a shape parameter named k.
shapes:
  - name: k
  - name: s
support: {lower: 0, upper: inf}
methods:
  logpdf: log(k) + xlogy(k - 1, x) - (1 + k / s) * log1p(x**s)
  cdf: exp(-(k / s) * log1p(x**(-s)))
  ppf: expm1(-(s / k) * log(q))**(-1 / s)
reference:
  logpdf: log(k) + (k - 1) * log(x) - (1 + k / s) * log1p(x**s)
  cdf: (1 + x**(-s))**(-k / s)
"""


def test_a_shape_may_take_the_other_types_point_name():
    """SciPy's shape names are kept: a continuous distribution's point is x, so its shape may be k (mielke's);
    a discrete distribution's point is k, where the same name is a path:line error."""
    d = parse_distribution(_SHAPE_K.replace("NAME", "mielke").replace("TYPE", "continuous"), "specs/stats/mielke.yaml",
                           "mielke", special_arities(SPECS))
    assert d.differentiable == ("x", "k", "s", "loc", "scale")
    assert d.methods["ppf"].code == "jnp.expm1(-(s / k) * jnp.log(q)) ** (-1 / s)"
    with pytest.raises(SpecError, match=r"^specs/stats/nbinom.yaml:6: shape parameter name 'k' is not allowed in a discrete"):
        parse_distribution(_SHAPE_K.replace("NAME", "nbinom").replace("TYPE", "discrete"), "specs/stats/nbinom.yaml",
                           "nbinom", special_arities(SPECS))


def test_scaffold_writes_a_spec_the_loader_rejects_until_filled_in(tmp_path):
    """`python -m generator new scipy.stats.NAME`: SciPy's shapes, type and summary, and placeholders
    that are path:line errors until a person fills them in; it never overwrites a spec."""
    from generator.distribution import scaffold_distribution
    from generator.errors import SpecErrors
    from generator.scaffold import ScaffoldError

    path = scaffold_distribution("scipy.stats.weibull_min", tmp_path)
    text = path.read_text()
    assert "shapes:\n  - name: c\n" in text and "type: continuous" in text
    with pytest.raises(SpecErrors) as info:
        parse_distribution(text, "specs/stats/weibull_min.yaml", "weibull_min", special_arities(SPECS))
    assert "specs/stats/weibull_min.yaml:14: methods.logpdf is a placeholder" in str(info.value)
    with pytest.raises(ScaffoldError, match="already exists"):
        scaffold_distribution("scipy.stats.weibull_min", tmp_path)
    with pytest.raises(ScaffoldError, match="not a scipy.stats distribution"):
        scaffold_distribution("scipy.stats.ttest_ind", tmp_path)


@pytest.mark.parametrize("name", _host_slow([n for n in NAMES if BY_NAME[n].type == "continuous"
                                             and np.isfinite(getattr(scipy.stats, n).support(*PARAMS[n])[0])]))
def test_outside_the_support_derivatives_are_zero_not_nan(name):
    """Below the support every method is constant (0, -inf, 0 or 1): its derivatives are 0 in every
    argument; the formulas are evaluated inside the support there, so reverse mode sees no 0 * inf.
    The core does this for every distribution alike: a fixed share runs by default, all under -m slow."""
    d = BY_NAME[name]
    module, shapes = getattr(jaxsci.stats, name), [jnp.float64(s) for s in PARAMS[name]]
    below = jnp.float64(getattr(scipy.stats, name).support(*PARAMS[name], loc=0.5, scale=2.0)[0] - 1.0)
    names = ("x", *(s.name for s in d.shapes), "loc", "scale")
    for method in (*d.density, *("cdf", "logcdf", "sf", "logsf")):
        blocked = not_differentiable(d, method)  # these raise NonDifferentiableError everywhere
        positions = tuple(i for i, n in enumerate(names) if n not in blocked)
        if not positions:
            continue
        grads = jax.grad(lambda x, *rest, m=method: getattr(module, m)(x, *rest[:-2], loc=rest[-2], scale=rest[-1]),
                         argnums=positions)(below, *shapes, jnp.float64(0.5), jnp.float64(2.0))
        assert all(float(g) == 0 for g in grads), f"{name}.{method} below its support: gradients {grads}"


_HOST = """\
name: gamma
scipy: scipy.stats.gamma
type: continuous
summary: A gamma continuous random variable.
shapes:
  - name: a
support: {lower: 0, upper: inf}
methods:
  logpdf: xlogy(a - 1, x) - x - gammaln(a)
  cdf:
    host: true
    derivatives:
      a: {not_differentiable: the test's reason}
  ppf: {host: true}
reference:
  logpdf: (a - 1) * log(x) - x - loggamma(a)
  cdf: gammainc(a, 0, x, regularized=True)
"""


@pytest.mark.parametrize("change, message", [
    (("  ppf: {host: true}", "  ppf: {host: false}"), "methods.ppf.host must be true"),
    (("  ppf: {host: true}", "  ppf: {host: true, derivative: {}}"), "unknown key 'derivative' in methods.ppf; did you mean 'derivatives'?"),
    (("      a: {not", "      b: {not"), "methods.cdf.derivatives.b: 'b' is not an argument of cdf (its arguments: x, a)"),
    (("      a: {not_differentiable: the test's reason}", "      a: {reason: none}"), "methods.cdf.derivatives.a is missing required key 'not_differentiable'"),
    (("{not_differentiable: the test's reason}", "{not_differentiable: why, note: more}"), "unknown key 'note' in methods.cdf.derivatives.a"),
    (("    derivatives:\n      a: {not_differentiable: the test's reason}\n", ""),
     "methods.cdf: give derivatives.a (a formula, or {not_differentiable: why})"),
    (("      a: {not_differentiable: the test's reason}", "      a: gammaincc(a, xx)"), "methods.cdf.derivatives.a: unknown name 'xx'"),
    # a host method's rule may call the distribution's own methods, with the point and every shape parameter
    (("      a: {not_differentiable: the test's reason}", "      a: pdf(x)"),
     "methods.cdf.derivatives.a: the distribution's own pdf takes 2 argument(s) (the point and the shape parameters"),
    (("  logpdf: xlogy(a - 1, x) - x - gammaln(a)", "  logpdf: log(pdf(x, a))"), "methods.logpdf: unknown function 'pdf'"),
    (("logpdf: xlogy(a - 1, x) - x - gammaln(a)", "logpdf: gammainc_da(a)"),
     "methods.logpdf: jaxsci.kernels.gammainc_da takes 2 argument(s), got 1"),
    # and jaxsci.kernels' functions, as every formula may
    (("      a: {not_differentiable: the test's reason}", "      a: chndtr_ddf(x, a)"),
     "methods.cdf.derivatives.a: jaxsci.kernels.chndtr_ddf takes 3 argument(s), got 2"),
])
def test_host_method_errors_are_located(change, message):
    """The host-method grammar is as strict as the formulas': unknown keys, arguments and names, and an
    argument the core has no rule for, are path:line errors."""
    _assert_located(_HOST, change, "gamma", message)


def test_a_host_rule_may_call_a_derivative_kernel():
    """A host method's derivative rule may call jaxsci.kernels' functions (nchypergeom_wallenius' odds rules
    do), printed from the kernels module."""
    text = _HOST.replace("      a: {not_differentiable: the test's reason}", "      a: gammainc_da(a, x)")
    d = parse_distribution(text, "specs/stats/gamma.yaml", "gamma", special_arities(SPECS))
    assert d.host["cdf"].derivatives["a"].code == "kernels.gammainc_da(a, x)"


def test_a_blocked_host_argument_raises_with_its_reason_in_every_method_that_uses_it():
    """A host cdf declared not differentiable in ``a``: the cdf, and every method made from it (ppf's
    implicit rule, SciPy's default sf, logcdf and median), raise NonDifferentiableError with the spec's
    reason, and the generator lists it for each; the point stays differentiable (d cdf/dx = pdf,
    d ppf/dq = 1/pdf at the quantile); SciPy's values under jit and vmap. The host path of every
    distribution with host methods, checked by default (their own derivative checks run under -m slow)."""

    d = parse_distribution(_HOST, "specs/stats/gamma.yaml", "gamma", special_arities(SPECS))
    for method in ("cdf", "sf", "logcdf", "ppf", "isf", "median"):
        assert not_differentiable(d, method) == {"a": "the test's reason"}, method
    assert not_differentiable(d, "logpdf") == {}
    dist = _host_gamma()
    a, x = jnp.float64(2.5), jnp.float64(1.7)
    for method, point in (("cdf", x), ("sf", x), ("logcdf", x), ("ppf", 0.3), ("isf", 0.3)):
        with pytest.raises(jaxsci.NonDifferentiableError, match="the test's reason"):
            jax.grad(lambda s, m=method, p=point: getattr(dist, m)(p, s))(a)
    assert np.isclose(jax.grad(dist.cdf)(x, a), scipy.stats.gamma.pdf(1.7, 2.5), rtol=1e-13)
    assert np.isclose(jax.grad(dist.ppf)(jnp.float64(0.3), a), 1 / scipy.stats.gamma.pdf(scipy.stats.gamma.ppf(0.3, 2.5), 2.5),
                      rtol=1e-12)
    points = np.array([0.3, 1.7, 4.0])
    expected = scipy.stats.gamma.cdf(points, 2.5, loc=0.5, scale=2.0)
    _compare(jax.jit(jax.vmap(lambda p: dist.cdf(p, a, loc=0.5, scale=2.0)))(points), expected, 1e-14, "host cdf jit vmap")


def _host_gamma():
    """gamma with a host cdf (not differentiable in a, for the test) and a host ppf, its density a formula."""
    from jaxsci._core import distributions

    return distributions.Continuous(
        name="gamma", shapes=("a",), valid=None, support=lambda a: (0, jnp.inf),
        methods={"logpdf": lambda x, a: (a - 1) * jnp.log(x) - x - jax.scipy.special.gammaln(a)},
        host={"cdf": distributions.Host(blocked={"a": "the test's reason"}), "ppf": distributions.Host()})


@pytest.mark.slow
def test_host_methods_second_order_float32_and_scale():
    """The host rules at second order (d pdf/dx through the density formula), in float32, and with loc and
    scale standardised once in the core (d cdf/d scale = -pdf(x) (x - loc) / scale). Under -m slow: the
    distributions with host methods check the same at SciPy's test parameters there."""
    dist, a = _host_gamma(), jnp.float64(2.5)
    # d pdf/dx = pdf * ((a - 1) / x - 1)
    assert np.isclose(jax.hessian(dist.cdf)(jnp.float64(1.7), a), scipy.stats.gamma.pdf(1.7, 2.5) * (1.5 / 1.7 - 1), rtol=1e-12)
    points = np.array([0.3, 1.7, 4.0])
    single = dist.cdf(points.astype(np.float32), np.float32(2.5), loc=np.float32(0.5), scale=np.float32(2.0))
    assert single.dtype == jnp.float32
    _compare(single, scipy.stats.gamma.cdf(points, 2.5, loc=0.5, scale=2.0), 2e-6, "host cdf float32")
    _compare(jax.vmap(jax.grad(lambda s, p: dist.cdf(p, a, loc=0.5, scale=s)), (None, 0))(jnp.float64(2.0), points),
             -scipy.stats.gamma.pdf(points, 2.5, loc=0.5, scale=2.0) * (points - 0.5) / 2.0, 1e-12, "host cdf d/dscale")



_CORE = """\
name: poisson_binom
scipy: scipy.stats.poisson_binom
type: discrete
summary: A Poisson binomial discrete random variable.
shapes:
  - name: p
    core: 1
valid: core_sum(~((p >= 0) & (p <= 1))) == 0
support: {lower: 0, upper: core_length(p)}
methods:
  pmf:
    let:
      table: bernoulli_sum_pmf(p)
    value: core_sum(where(core_index(table) == k, table, 0))
  cdf: core_sum(where(core_index(bernoulli_sum_pmf(p)) <= k, bernoulli_sum_pmf(p), 0))
  ppf: minimum(core_sum(core_cumsum(bernoulli_sum_pmf(p)) < q), core_length(p))
moments:
  mean: core_sum(p)
reference:
  pmf: "0"
  cdf: "0"
"""


@pytest.mark.parametrize("change, message", [
    (("mean: core_sum(p)", "mean: p"), "moments.mean: 'p' keeps a core axis (p's): reduce it (core_sum, core_length)"),
    (("value: core_sum(where(", "value: (where("), "methods.pmf.value: '(where(core_index(table) == k, table, 0))' keeps a core axis"),
    (("mean: core_sum(p)", "mean: core_sum(p[0])"), "Subscript is not allowed"),
    (("upper: core_length(p)", "upper: core_length(1)"), "support.upper: core_length needs an argument with a core axis"),
    (("    core: 1", "    core: 2"), "shapes[0].core must be 0 or 1"),
    (("valid: core_sum(~((p >= 0) & (p <= 1))) == 0\n", ""), "a shape parameter with a core axis (p) needs valid"),
    (("  ppf: minimum", "  ppf: {host: true}\n  isf: minimum"), "methods.ppf: a host method takes scalar shape parameters; p has a core axis"),
])
def test_core_axis_errors_are_located(change, message):
    """A shape parameter with a core axis (poisson_binom's vector p): a formula must reduce it, the core
    functions need one, and host methods (SciPy's scalar loops) cannot take it; each a path:line error."""
    _assert_located(_CORE, change, "poisson_binom", message)


def test_core_axis_broadcasts_what_has_none():
    """Where a formula meets a value without the core axis (k) and one with it, the former is printed with a
    trailing axis, so that it broadcasts along the core axis as a gufunc's loop dimensions do."""
    d = parse_distribution(_CORE, "specs/stats/poisson_binom.yaml", "poisson_binom", special_arities(SPECS))
    assert d.shapes[0].core == 1
    assert d.methods["pmf"].code == ("distributions.core_sum(jnp.where(distributions.core_index(table) == "
                                     "jnp.expand_dims(k, -1), table, 0))")
    assert d.methods["pmf"].lets == (("table", "distributions.bernoulli_sum_pmf(p)"),)
    assert d.moments["mean"].code == "distributions.core_sum(p)"


def test_vector_shape_broadcasts_as_scipy():
    """poisson_binom's p: its last axis is the trials, its others broadcast with k (SciPy's rule), under vmap
    too; d pmf(k)/dp_i = pmf_(-i)(k - 1) - pmf_(-i)(k), with pmf_(-i) that of the other trials."""
    module = jaxsci.stats.poisson_binom
    p = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.95]])
    k = np.arange(-1.0, 5.0)[:, None]
    _compare(module.pmf(k, p), scipy.stats.poisson_binom.pmf(k, p), 1e-14, "poisson_binom.pmf batched")
    _compare(module.sf(k, p), scipy.stats.poisson_binom.sf(k, p), 1e-12, "poisson_binom.sf batched")
    _compare(jax.vmap(module.cdf, (None, 0))(2.0, p), scipy.stats.poisson_binom.cdf(2.0, p), 1e-14, "poisson_binom.cdf vmap")
    gradient = jax.grad(module.pmf, argnums=1)(2.0, jnp.asarray(p[1]))
    for i in range(3):
        others = np.delete(p[1], i)
        wanted = scipy.stats.poisson_binom.pmf(1, others) - scipy.stats.poisson_binom.pmf(2, others)
        assert np.isclose(gradient[i], wanted, rtol=1e-13), (i, gradient[i], wanted)


def _host_pareto():
    """pareto (formulas) with SciPy's own mean, var and entropy on the host, differentiated by quadrature:
    its tail x**-b makes the k-th moment's quadrature singular, barely integrable as b nears k."""
    from jaxsci._core import distributions

    return distributions.Continuous(
        name="pareto", shapes=("b",), valid=None, support=lambda b: (1, jnp.inf),
        methods={"logpdf": lambda x, b: jnp.log(b) - (b + 1) * jnp.log(x), "cdf": lambda x, b: -jnp.expm1(-b * jnp.log(x)),
                 "sf": lambda x, b: x ** -b, "ppf": lambda q, b: jnp.exp(-jnp.log1p(-q) / b), "isf": lambda q, b: q ** (-1 / b)},
        host_moments={m: distributions.Host() for m in ("mean", "var", "entropy")})


def test_host_moment_derivatives_are_exact_or_nan():
    """A host moment's derivative is its quadrature's: the closed form's where the quadrature resolves it
    (d/db b / (b - 1) = -1 / (b - 1)**2), NaN where its error estimate does not (the tail u**(-1/b) at
    b = 1.001, integrable but beyond the smallest node's reach) and where SciPy's moment is infinite (b = 0.5),
    with SciPy's values, under jit and vmap. The other moments and orders: the slow test below."""
    dist = _host_pareto()
    points = jnp.array([1.001, 0.5, 1.5, 4.0])
    values, grads = jax.jit(jax.vmap(jax.value_and_grad(dist.mean)))(points)
    _compare(values, scipy.stats.pareto.mean(np.asarray(points)), 1e-15, "host mean jit vmap")
    assert np.isnan(grads[:2]).all(), grads
    np.testing.assert_allclose(grads[2:], -1 / (np.asarray(points[2:]) - 1) ** 2, rtol=1e-9)


@pytest.mark.slow
def test_host_moment_derivatives_every_moment_and_order():
    """var and entropy, second order, loc and scale, float32; NaN at second order too where the first
    derivative is NaN (an infinite mean, a tail beyond the nodes' reach), never the 0 of a where's."""
    dist = _host_pareto()
    b = jnp.float64(3.0)
    assert np.isclose(jax.hessian(dist.mean)(b), 2 / (b - 1) ** 3, rtol=1e-8, atol=0)
    for unresolved in (0.5, 1.001):
        assert np.isnan(jax.hessian(dist.mean)(jnp.float64(unresolved))), unresolved
    assert np.isclose(jax.grad(dist.var)(b), -(2 * b**2 - 2 * b - 2) / ((b - 1) ** 3 * (b - 2) ** 2), rtol=1e-9, atol=0)
    assert np.isclose(jax.grad(dist.entropy)(b), -1 / b**2 - 1 / b, rtol=1e-10, atol=0)
    assert np.isclose(jax.hessian(dist.entropy)(b), 2 / b**3 + 1 / b**2, rtol=1e-8, atol=0)
    assert np.isclose(jax.grad(lambda scale: dist.mean(b, loc=0.5, scale=scale))(2.0), 1.5, rtol=1e-15)
    single = jax.grad(dist.entropy)(jnp.float32(3.0))
    assert single.dtype == jnp.float32 and np.isclose(single, -1 / 9 - 1 / 3, rtol=1e-5)


def test_host_moment_discrete_window_and_blocked_parameters():
    """A discrete host moment sums at most 2048 integers from ppf(1e-17): poisson's entropy at mu = 1e5 needs
    about 5000, so its derivative is NaN there (the value is SciPy's own, whose sum does not converge there either:
    3.58, where 0.5 log(2 pi e mu) is 7.17), and at SciPy's test parameter it is mpmath's; a shape parameter
    the pmf is not differentiable in raises the pmf's reason (nchypergeom_fisher's integer M), every other stays
    differentiable (loc: 1; the odds, whose pmf rule is the kernel nchypergeom_fisher_dodds: d mean/d odds is
    var / odds, as for every power-series distribution, JKK 2.2.1); zipfian's a (its pmf's rule the kernel
    zipfian_pmf_da) is mpmath's d/da H(n, a - 1) / H(n, a). The other discrete host moments' derivatives: under
    -m slow."""
    poisson = jaxsci.stats.poisson
    (record,) = [r for r in _references("poisson", moments=True) if r["method"] == "entropy"]
    mu = jnp.array([1e5, record["args"]["mu"]])
    with warnings.catch_warnings():  # SciPy's own sum warns at 1e5 that it did not converge
        warnings.simplefilter("ignore", RuntimeWarning)
        values, grads = jax.vmap(jax.value_and_grad(lambda mu: poisson.entropy(mu, loc=1.0)))(mu)
        _compare(values, scipy.stats.poisson.entropy(np.asarray(mu)), 1e-15, "poisson entropy")
    assert np.isnan(grads[0]), grads
    assert np.isclose(grads[1], record["first"]["mu"], rtol=BY_NAME["poisson"].tests.gradient_rtol, atol=0)
    fisher = jaxsci.stats.nchypergeom_fisher
    odds = jnp.float64(2.5)
    want = scipy.stats.nchypergeom_fisher.var(20, 7, 12, 2.5) / 2.5
    assert np.isclose(jax.grad(fisher.mean, argnums=3)(20.0, 7.0, 12.0, odds), want, rtol=1e-10, atol=0)
    for moment in ("mean", "std", "entropy"):
        with pytest.raises(jaxsci.NonDifferentiableError, match="'M'"):
            jax.grad(getattr(fisher, moment))(jnp.float64(20.0), 7.0, 12.0, 2.5)
    assert jax.grad(lambda loc: fisher.mean(20.0, 7.0, 12.0, 2.5, loc=loc))(jnp.float64(2.0)) == 1.0
    import mpmath

    harmonic = lambda n, a: mpmath.fsum(mpmath.mpf(j) ** -a for j in range(1, n + 1))  # noqa: E731
    with mpmath.workdps(30):
        want = float(mpmath.diff(lambda a: harmonic(10, a - 1) / harmonic(10, a), 1.25))
    assert np.isclose(jax.grad(jaxsci.stats.zipfian.mean)(jnp.float64(1.25), 10.0), want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("change, message", [
    (("  mean: {host: true}", "  mean: {host: false}"), "moments.mean.host must be true"),
    (("  mean: {host: true}", "  mean: {host: true, rule: 1}"), "unknown key 'rule' in moments.mean"),
    (("  mean: {host: true}\n", ""), "moments.var: a host var needs a mean"),
])
def test_host_moment_errors_are_located(change, message):
    text = _GOOD.replace("reference:", "moments:\n  mean: {host: true}\n  var: {host: true}\nreference:").replace(*change)
    with pytest.raises(SpecError) as info:
        parse_distribution(text, "specs/stats/expon.yaml", "expon", special_arities(SPECS))
    assert message in str(info.value), str(info.value)
    assert str(info.value).startswith("specs/stats/expon.yaml:"), str(info.value)


def test_moment_quadrature_quantiles_beyond_scipys_range_are_quiet():
    """ncf's isf raises OverflowError (Boost) at the tanh-sinh quadrature's tiniest probabilities: the call is
    evaluated again point by point (NaN only there, where the quadrature stops), and those failures, which
    the quadrature expects, are neither warned of nor raised under errstate("raise"). Before, one failing
    point made every upper node NaN and the entropy's derivatives NaN. References: mpmath (tests/data)."""
    (record,) = [r for r in _references("ncf", moments=True) if r["method"] == "entropy"]
    shapes = [record["args"][n] for n in ("dfn", "dfd", "nc")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with jaxsci.errstate("raise"):
            got = jax.grad(jaxsci.stats.ncf.entropy, argnums=(0, 1, 2))(*shapes)
    np.testing.assert_allclose(got, [record["first"][n] for n in ("dfn", "dfd", "nc")], rtol=1e-6)
