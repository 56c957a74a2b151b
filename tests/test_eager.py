"""``exact=True`` and the like (a static argument's ``eager`` value): SciPy's own result for concrete
inputs, a clear TypeError for traced ones."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from specdata import params, rng_for, sample, spec_cases, SPECS

EAGER = [(case, arg) for spec in SPECS for arg in spec.args if arg.eager is not None
         for case in spec_cases(spec)[:1]]


def _call(case, arg, traced, value):
    args, kwargs = case._full(traced)
    names = [a.name for a in case.spec.args if not a.keyword_only]
    if arg.name in names:
        args[names.index(arg.name)] = value
    else:
        kwargs[arg.name] = value
    return args, kwargs


def _outcome(function, args, kwargs):
    """What a call gives: its value as an object array and its type, or the type of what it raises
    (SciPy's comb(exact=True) takes scalars only, and jaxsci must fail the same way)."""
    try:
        value = function(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception's type is what is compared
        return "raises", type(exc)
    return type(value), np.asarray(value, dtype=object).tolist()


@pytest.mark.parametrize("case, arg", params(EAGER, ids=lambda item: f"{item[0].id}-{item[1].name}"))
def test_eager_value_returns_scipys_result(case, arg):
    arrays = sample(case, ((3,),), "float64", rng_for(case.id, "eager"))
    scalars = [int(a[0]) if a.dtype.kind in "iu" else float(a[0]) for a in arrays]
    for traced, scipy_traced in ((arrays, arrays), (scalars, scalars), ([jnp.asarray(a) for a in arrays], arrays)):
        args, kwargs = _call(case, arg, traced, arg.eager)
        scipy_args, scipy_kwargs = _call(case, arg, scipy_traced, arg.eager)
        assert _outcome(case.function(), args, kwargs) == _outcome(case.scipy(), scipy_args, scipy_kwargs)


@pytest.mark.parametrize("case, arg", params(EAGER, ids=lambda item: f"{item[0].id}-{item[1].name}"))
def test_eager_value_refuses_traced_inputs(case, arg):
    arrays = sample(case, ((3,),), "float64", rng_for(case.id, "eager"))

    def f(*traced):
        args, kwargs = _call(case, arg, traced, arg.eager)
        return case.function()(*args, **kwargs)

    with pytest.raises(TypeError, match=f"{arg.name}={arg.eager!r} needs concrete inputs"):
        jax.jit(f)(*arrays)
