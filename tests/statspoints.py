"""The points tests/test_stats.py compares jaxsci.stats with scipy.stats at, shared with
tests/tools/make_stats_references.py, which records the mpmath value wherever SciPy's own is off there."""
import numpy as np
import scipy.stats

PROBABILITIES = np.array([1e-12, 1e-3, 0.05, 0.3, 0.5, 0.8, 0.99, 1 - 1e-9])
# the (loc, scale) pairs of the value comparison: the standard form, and a moved and stretched one
VALUE_SCALES = ((0, 1), (0.75, 2.5))


def scales(d, loc=0.75, scale=2.5):
    return {"loc": loc, "scale": scale} if d.type == "continuous" else {"loc": float(loc != 0)}


def scipy_values(dist, method, point, *shapes, **at):
    """SciPy's method at the points, as ``getattr(dist, method)(point, *shapes, **at)``; where that raises
    (norminvgauss' ppf at q = 1 - 1e-9: ValueError, its root search finds no bracket), each point alone, NaN
    where that one raises: (values, where SciPy raised). Ordinary and edge points (non-finite ones, and
    probabilities outside (0, 1)) are evaluated apart: with such a point in the array, SciPy's
    norminvgauss.isf (SciPy 1.17) returns the first point's value at every other point."""
    if np.ndim(point) == 1:
        point = np.asarray(point, np.float64)
        with np.errstate(invalid="ignore"):
            edge = ~np.isfinite(point) | ((point <= 0) | (point >= 1) if method in ("ppf", "isf") else False)
        if 0 < edge.sum() < point.size:
            values, raised = np.empty(point.shape), np.empty(point.shape, bool)
            for part in (~edge, edge):
                values[part], raised[part] = scipy_values(dist, method, point[part], *shapes, **at)
            return values, raised
    try:
        values = np.asarray(getattr(dist, method)(point, *shapes, **at), np.float64)
        return values, np.zeros(values.shape, bool)
    except (ValueError, RuntimeError, ArithmeticError):
        pass
    values, raised = [], []
    for x in np.atleast_1d(point):
        try:
            values.append(float(getattr(dist, method)(x, *shapes, **at)))
            raised.append(False)
        except (ValueError, RuntimeError, ArithmeticError):
            values.append(np.nan)
            raised.append(True)
    return np.array(values).reshape(np.shape(point)), np.array(raised).reshape(np.shape(point))


def points(d, shapes, at):
    """Points across the support (SciPy's quantiles), its edges, outside it, and NaN."""
    dist = getattr(scipy.stats, d.name)
    inner = scipy_values(dist, "ppf", PROBABILITIES, *shapes, **at)[0]  # NaN where SciPy raises (already a point)
    lower, upper = dist.support(*shapes, **at)
    if d.type == "discrete":
        start = lower if np.isfinite(lower) else at["loc"] - 6  # an unbounded support (dlaplace): its centre
        edges = np.arange(start - 2, min(upper, start + 12) + 2, 0.5)
    else:
        # just inside the lower end; a normal number, as XLA on CPU flushes subnormals to zero
        inside = np.nextafter(lower, np.inf) if lower != 0 else 1e-300
        edges = [lower, upper, lower - 1.0, upper + 1.0, inside, at["loc"]]
    return np.concatenate([inner, edges, [-np.inf, np.inf, np.nan]])
