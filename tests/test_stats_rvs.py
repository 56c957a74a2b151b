"""jaxsci.stats' rvs: samples against SciPy's cdf, their implicit reparameterization gradients, and SciPy's
size rule, for every distribution spec (specs/stats/).

A continuous sample's derivative in a parameter theta is dx/dtheta = -(dF/dtheta)(x; theta) / f(x; theta)
(Figurnov, Mohamed and Mnih, "Implicit Reparameterization Gradients", NeurIPS 2018). The references here
are that formula, evaluated independently of rvs from the distribution's own cdf and pdf with jax.grad;
the second derivative is its total derivative along the sample, g_x * g + g_theta with g = dx/dtheta.

The distributional checks (Kolmogorov-Smirnov against SciPy's cdf, chi-square against SciPy's pmf for
discrete ones) run at 10^5 samples for every distribution under -m slow, and at 10^4 for a fixed few
by default; the sampling code is the core's, shared by all.
"""
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats

import jaxsci
import jaxsci.stats
from generator import ROOT
from generator.distribution import collect_distributions, not_differentiable, second_order_blocked
from specdata import SPECS
from scipy.stats._distr_params import distcont, distdiscrete

DISTRIBUTIONS, _ = collect_distributions(ROOT / "specs", ROOT, SPECS)
BY_NAME = {d.name: d for d in DISTRIBUTIONS}
NAMES = sorted(BY_NAME)
CONTINUOUS = [n for n in NAMES if BY_NAME[n].type == "continuous"]
DISCRETE = [n for n in NAMES if BY_NAME[n].type == "discrete"]
PARAMS = dict(distcont + distdiscrete)
# The default share of the distributional check: an exact sampler (gamma), ppf of a uniform (t, a host
# ppf) and a discrete distribution; every distribution under -m slow.
DEFAULT_DISTRIBUTIONAL = ("gamma", "t", "poisson")
P_VALUE = 1e-4  # the keys are fixed, so each check is deterministic; a wrong distribution gives p ~ 0 at 10^5
LOC, SCALE = 0.75, 2.5


def _key(*parts):
    """A fixed key per test and distribution, the same on every run."""
    return jax.random.key(zlib.crc32("/".join(parts).encode()))


# Samples a slow check takes where each costs milliseconds: these draw through SciPy's generic ppf, a root
# search on the cdf per sample (irwinhall's B-spline, 4 ms each, 400 s for 10^5; vonmises' series, 3.6 ms;
# gausshyper's quadrature, 14 ms); studentized_range's is a root search over a two-dimensional quadrature
# (about 60 ms a sample, and its cdf for the test 5 ms); a few thousand still tell a wrong distribution
FEWER_SAMPLES = {"irwinhall": 2000, "vonmises": 3000, "vonmises_line": 3000, "gausshyper": 3000,
                 "studentized_range": 10**3}


def _distributional_cases():
    return [pytest.param(n, 10**4 if n in DEFAULT_DISTRIBUTIONAL else FEWER_SAMPLES.get(n, 10**5),
                         marks=() if n in DEFAULT_DISTRIBUTIONAL else pytest.mark.slow, id=n) for n in NAMES] + \
        [pytest.param(n, 10**5, marks=pytest.mark.slow, id=f"{n}-1e5") for n in DEFAULT_DISTRIBUTIONAL]


@pytest.mark.parametrize("name, count", _distributional_cases())
def test_samples_follow_scipys_distribution(name, count):
    """Kolmogorov-Smirnov against SciPy's cdf (continuous); for a discrete distribution, a chi-square test of
    the counts against SciPy's pmf, over the values with an expected count of at least 5 and the rest pooled."""
    d = BY_NAME[name]
    dist, module, shapes = getattr(scipy.stats, name), getattr(jaxsci.stats, name), PARAMS[name]
    scales = {"loc": LOC, "scale": SCALE} if d.type == "continuous" else {"loc": 1.0}
    x = np.asarray(module.rvs(_key(name, "ks"), *shapes, **scales, size=count))
    assert x.shape == (count,) and x.dtype == np.float64 and np.isfinite(x).all(), f"{name}: {x.dtype}, {x[~np.isfinite(x)]}"
    if d.type == "continuous":
        p = scipy.stats.kstest(x, dist(*shapes, **scales).cdf).pvalue
    else:
        assert (x == np.round(x)).all(), f"{name}: non-integer samples {x[x != np.round(x)][:5]}"
        values, counts = np.unique(x, return_counts=True)
        lower, upper = dist.ppf([1e-9, 1 - 1e-9], *shapes, **scales)
        support = np.arange(lower, upper + 1)
        expected = dist.pmf(support, *shapes, **scales) * count
        observed = np.array([counts[values == k].sum() for k in support])
        assert observed.sum() >= count - 5, f"{name}: samples outside [{lower}, {upper}]"
        big = expected >= 5
        expected = np.append(expected[big], expected[~big].sum() + (count - expected.sum()))
        observed = np.append(observed[big], count - observed[big].sum())
        p = scipy.stats.chisquare(observed[expected > 0], expected[expected > 0]).pvalue
    assert p > P_VALUE, f"{name}: p = {p:.3g} at {count} samples"


def _implicit(module, x, theta, position):
    """-(dF/dtheta) / f at the points x, from the cdf and pdf alone; theta = (*shapes, loc, scale)."""
    def cdf(point, *arguments):
        return module.cdf(point, *arguments[:-2], loc=arguments[-2], scale=arguments[-1])

    def pdf(point, *arguments):
        return module.pdf(point, *arguments[:-2], loc=arguments[-2], scale=arguments[-1])

    along = (0,) + (None,) * len(theta)
    return -jax.vmap(jax.grad(cdf, argnums=1 + position), along)(x, *theta) / pdf(x, *theta)


def _gradient_cases():
    """By default weibull_min's, at both orders: the custom_jvp rule is the core's, the same for every
    distribution and whichever sampler drew the sample (the default KS test checks gamma's exact sampler);
    every distribution at both orders under -m slow."""
    default = {("weibull_min", "first"), ("weibull_min", "second")}
    return [pytest.param(n, order, id=f"{n}-{order}", marks=() if (n, order) in default else pytest.mark.slow)
            for n in CONTINUOUS for order in ("first", "second")]


@pytest.mark.parametrize("name, order", _gradient_cases())
def test_gradients_are_the_implicit_reparameterization(name, order):
    """The first and second derivatives of three samples in every continuous shape parameter, loc and scale,
    against the implicit formula from the cdf and pdf; an integer shape parameter (kstwo's n) raises."""
    module = getattr(jaxsci.stats, name)
    theta = tuple(jnp.float64(v) for v in (*PARAMS[name], LOC, SCALE))
    names = [s.name for s in BY_NAME[name].shapes] + ["loc", "scale"]
    key = _key(name, "grad")

    def sample(*theta):
        return module.rvs(key, *theta[:-2], loc=theta[-2], scale=theta[-1], size=3)

    x = sample(*theta)
    # a parameter the spec declares not differentiable for rvs (a host cdf's, an integer's) raises instead;
    # where the density has no derivative in x, the implicit formula has none along the sample: first order only
    first_only = second_order_blocked(BY_NAME[name], "rvs") if order == "second" else {}
    # the implicit formula's own second derivative in loc and scale needs the density's in x (the cdf is first
    # order only there): no reference to compare the sample's with (which is 0, the sample being affine in them)
    unreferenced = second_order_blocked(BY_NAME[name], "cdf") if order == "second" else {}
    failures = []
    for position, parameter in enumerate(names):
        if parameter in not_differentiable(BY_NAME[name], "rvs") or parameter in first_only:
            moved = lambda t, position=position: sample(*theta[:position], t, *theta[position + 1:])
            with pytest.raises(jaxsci.NonDifferentiableError, match=repr(parameter)):
                (jax.jacfwd(jax.jacfwd(moved)) if parameter in first_only else jax.jacfwd(moved))(theta[position])
            continue
        if parameter in unreferenced:
            continue
        def along(t, f, position=position):
            """f's derivative in theta[position], at theta with theta[position] = t."""
            moved = lambda u: f(*theta[:position], u, *theta[position + 1:])
            return jax.jvp(moved, (t,), (jnp.ones_like(t),))[1]

        if order == "first":
            got = along(theta[position], sample)
            wanted = _implicit(module, x, theta, position)
            rtol = 1e-9
        else:
            got = jax.jvp(lambda t: along(t, sample), (theta[position],), (jnp.float64(1.0),))[1]
            # d/dtheta g(x(theta), theta) = g_x g + g_theta, with g the implicit first derivative
            g = _implicit(module, x, theta, position)
            g_x = jax.jvp(lambda p: _implicit(module, p, theta, position), (x,), (jnp.ones_like(x),))[1]
            g_theta = along(theta[position], lambda *t: _implicit(module, x, t, position))
            wanted = g_x * g + g_theta
            rtol = 1e-7
        got, wanted = np.asarray(got), np.asarray(wanted)
        bad = ~(np.abs(got - wanted) <= rtol * np.abs(wanted) + 1e-12)
        failures += [f"x = {xi!r}, d/d{parameter}: rvs {a!r}, implicit formula {b!r}"
                     for xi, a, b in zip(np.asarray(x)[bad], got[bad], wanted[bad])]
    assert not failures, f"{name} {order} order:\n" + "\n".join(failures)


def test_a_blocked_shape_leaves_the_others_differentiable():
    """A sample's implicit gradient moves only the shapes that have a tangent: with a host cdf declared not
    differentiable in a, the sample is differentiable in b (through the sf's formula), and raises in a only."""
    from jaxsci._core import distributions
    from jaxsci import special

    beta = distributions.Continuous(
        name="beta", shapes=("a", "b"), valid=None, support=lambda a, b: (0, 1),
        methods={"logpdf": lambda x, a, b: special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b),
                 "sf": lambda x, a, b: special.betaincc(a, b, x)},
        host={"cdf": distributions.Host(blocked={"a": "the test's reason"}), "ppf": distributions.Host()})
    key, a, b = _key("beta", "blocked"), jnp.float64(2.0), jnp.float64(3.0)
    x = beta.rvs(key, a, b, size=3)
    # dx/db = -(dF/db) / f = (dS/db) / f
    d_sf = jax.vmap(jax.grad(lambda p, t: special.betaincc(a, t, p), argnums=1), (0, None))(x, b)
    np.testing.assert_allclose(jax.jacfwd(lambda t: beta.rvs(key, a, t, size=3))(b), d_sf / beta.pdf(x, a, b), rtol=1e-10)
    with pytest.raises(jaxsci.NonDifferentiableError, match="the test's reason"):
        jax.jacfwd(lambda t: beta.rvs(key, t, b, size=3))(a)


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_samples_raise_under_grad(name):
    """A discrete sample is a step function of every parameter: a tangent on a shape or loc raises."""
    module, shapes = getattr(jaxsci.stats, name), [jnp.float64(s) for s in PARAMS[name]]
    key = _key(name, "steps")
    for i, shape in enumerate(BY_NAME[name].shapes):
        with pytest.raises(jaxsci.NonDifferentiableError, match=repr(shape.name)):
            jax.grad(lambda s, i=i: module.rvs(key, *shapes[:i], s, *shapes[i + 1:]))(shapes[i])
    with pytest.raises(jaxsci.NonDifferentiableError, match="'loc'"):
        jax.grad(lambda loc: module.rvs(key, *shapes, loc=loc))(jnp.float64(0.0))


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n == "weibull_min" else pytest.mark.slow, id=n)
                                  for n in NAMES])
def test_size_dtype_jit_vmap(name):
    """SciPy's size rule, the parameters' dtype (float32 stays float32), NaN for invalid parameters, and
    the same samples eagerly, under jit and under vmap over keys. The core does this for every
    distribution alike: weibull_min by default (poisson's KS test draws a discrete one), all under -m slow."""
    d = BY_NAME[name]
    module, shapes = getattr(jaxsci.stats, name), PARAMS[name]
    key = _key(name, "size")
    locs = np.array([0.0, 1.0])
    assert module.rvs(key, *shapes).shape == ()
    assert module.rvs(key, *shapes, size=5).shape == (5,)
    assert module.rvs(key, *shapes, loc=locs).shape == (2,)
    assert module.rvs(key, *shapes, loc=locs, size=(3, 2)).shape == (3, 2)
    with pytest.raises(ValueError, match="does not match the parameters' broadcast shape"):
        module.rvs(key, *shapes, loc=locs, size=3)
    single = module.rvs(key, *(np.float32(s) for s in shapes), loc=np.float32(0.5), size=4)
    assert single.dtype == jnp.float32 and np.isfinite(np.asarray(single)).all()
    eager = module.rvs(key, *shapes, loc=locs, size=(3, 2))
    jitted = jax.jit(lambda k, *s: module.rvs(k, *s, loc=locs, size=(3, 2)))(key, *shapes)
    np.testing.assert_allclose(jitted, eager, rtol=1e-12)
    keys = jax.random.split(key, 3)
    mapped = jax.vmap(lambda k: module.rvs(k, *shapes, size=2))(keys)
    np.testing.assert_allclose(mapped, np.stack([module.rvs(k, *shapes, size=2) for k in keys]), rtol=1e-12)
    scales = {"scale": -1.0} if d.type == "continuous" else {"loc": np.nan}
    assert np.isnan(np.asarray(module.rvs(key, *shapes, **scales, size=2))).all()


_SPEC = """\
name: gamma
scipy: scipy.stats.gamma
type: continuous
summary: A gamma continuous random variable.
shapes: [{name: a}]
support: {lower: 0, upper: inf}
methods:
  logpdf: xlogy(a - 1, x) - x - gammaln(a)
  cdf: gammainc(a, x)
  ppf: gammaincinv(a, q)
sampler: SAMPLER
reference:
  logpdf: (a - 1) * log(x) - x - loggamma(a)
  cdf: gammainc(a, 0, x, regularized=True)
"""


@pytest.mark.parametrize("sampler, message", [
    ("random_gamma(a, a)", "sampler: random_gamma takes 1 argument(s) (jax.random.gamma's parameters), got 2"),
    ("random_gama(a)", "sampler: unknown function 'random_gama'; did you mean 'random_gamma'?"),
    ("gammaln(a)", "sampler: 'gammaln(a)' draws nothing"),
    ("random_gamma(x)", "sampler: unknown name 'x'"),
    ("{let: {keys: random_gamma(a)}, value: keys}", "sampler.let: 'keys' must be a new name"),
    ("{let: {g: gammaln(a)}, value: g}", "sampler.value: 'g' draws nothing"),
])
def test_sampler_errors_are_located(sampler, message):
    from generator.distribution import parse_distribution, special_arities
    from generator.errors import SpecError

    with pytest.raises(SpecError) as info:
        parse_distribution(_SPEC.replace("SAMPLER", sampler), "specs/stats/gamma.yaml", "gamma", special_arities(SPECS))
    assert message in str(info.value) and str(info.value).startswith("specs/stats/gamma.yaml:11:"), str(info.value)


def test_a_sampler_prints_one_key_per_draw():
    from generator.distribution import parse_distribution, special_arities

    spec = _SPEC.replace("SAMPLER", "random_gamma(a) / (random_gamma(a) + random_exponential())")
    code = parse_distribution(spec, "specs/stats/gamma.yaml", "gamma", special_arities(SPECS)).sampler
    assert code.draws == 3
    assert code.code == ("jax.random.gamma(keys[0], a, shape, dtype) / (jax.random.gamma(keys[1], a, shape, dtype) + "
                         "jax.random.exponential(keys[2], shape, dtype))")
    # a let draws once for every use of its name; the draws are numbered through the lets and the value
    spec = _SPEC.replace("SAMPLER", "{let: {c: 2 * a, v: random_gamma(c)}, value: v / (v + random_gamma(a))}")
    code = parse_distribution(spec, "specs/stats/gamma.yaml", "gamma", special_arities(SPECS)).sampler
    assert code.draws == 2
    assert code.lets == (("c", "2 * a"), ("v", "jax.random.gamma(keys[0], c, shape, dtype)"))
    assert code.code == "v / (v + jax.random.gamma(keys[1], a, shape, dtype))"
