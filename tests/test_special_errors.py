"""``jaxsci.special.geterr / seterr / errstate``: SciPy's special-function error switches, carried into
the host callbacks (templates/runtime/sferror.py).

gammaln(0) is SciPy's singular error ("scipy.special/lgam: singularity"): inf when ignored (SciPy's
default), a SpecialFunctionWarning with "warn", a SpecialFunctionError raised inside the callback
with "raise" (NaN and jaxsci's own report).
"""
import _thread
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sc

import jaxsci
import jaxsci.special as js
from jaxsci._core import host


# the host path's own behaviour (SciPy's error switches and threads), also on a GPU
pytestmark = pytest.mark.usefixtures("host_path")

@pytest.fixture(autouse=True)
def scipy_defaults():
    """Every test starts and ends with this thread's SciPy settings at SciPy's defaults."""
    saved = sc.geterr()
    yield
    sc.seterr(**saved)


def _special_warnings(record) -> list:
    return [w for w in record if issubclass(w.category, sc.SpecialFunctionWarning)]


def test_the_switches_are_scipys_settings_of_this_thread():
    old = js.seterr(singular="raise", domain="warn")
    assert old == sc.geterr() | {"singular": old["singular"], "domain": old["domain"]}
    assert js.geterr() == sc.geterr() and sc.geterr()["singular"] == "raise" and sc.geterr()["domain"] == "warn"
    with js.errstate(all="ignore"):
        assert set(js.geterr().values()) == {"ignore"}
    assert js.geterr()["singular"] == "raise"
    assert js.seterr(**old)["domain"] == "warn" and js.geterr() == old
    for bad in ({"singular": "loudly"}, {"loudness": "raise"}):  # SciPy's own checks, SciPy's exceptions
        with pytest.raises(Exception) as theirs:
            sc.seterr(**bad)
        with pytest.raises(type(theirs.value)):
            js.seterr(**bad)
        assert js.geterr() == old
    assert js.SpecialFunctionError is sc.SpecialFunctionError and js.SpecialFunctionWarning is sc.SpecialFunctionWarning


@pytest.mark.parametrize("jit", [False, True])
def test_warn_gives_scipys_warning(jit):
    function = jax.jit(js.gammaln) if jit else js.gammaln
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with js.errstate(singular="warn"):
            value = function(jnp.asarray([0.0, 2.5]))
    assert np.isinf(value[0]) and value[1] == np.float64(sc.gammaln(2.5))
    found = _special_warnings(record)
    assert len(found) == 1 and "lgam: singularity" in str(found[0].message)


def test_settings_are_read_when_the_callback_runs_not_when_traced():
    """A function compiled under SciPy's defaults follows the settings of each later call."""
    compiled = jax.jit(js.gammaln)
    x = jnp.zeros(3)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert np.isinf(compiled(x)).all()
        assert not _special_warnings(record)
        with js.errstate(singular="warn"):
            compiled(x).block_until_ready()
        assert len(_special_warnings(record)) == 3
        with js.errstate(singular="raise"):
            raised = compiled(x)
        assert np.isnan(raised).all()
        assert np.isinf(compiled(x)).all()  # the block's exit restored SciPy's default
    assert len(_special_warnings(record)) == 3


def test_raise_gives_nan_and_jaxsci_reports_scipys_error():
    with js.errstate(singular="raise"):
        with pytest.warns(jaxsci.CallbackWarning, match="SciPy raised SpecialFunctionError: scipy.special/lgam: singularity"):
            value = jax.jit(js.gammaln)(jnp.asarray([0.0, 2.5]))
    # SciPy raised for the whole array; the core evaluated it again in halves: NaN only where it raises
    np.testing.assert_allclose(np.asarray(value), [np.nan, sc.gammaln(2.5)], rtol=1e-15)
    with pytest.raises(jaxsci.CallbackError, match="lgam: singularity") as caught:
        with jaxsci.errstate("raise"), js.errstate(all="raise"):
            jax.jit(js.gammaln)(0.0).block_until_ready()
    assert isinstance(caught.value.__cause__, sc.SpecialFunctionError)
    assert isinstance(caught.value.exceptions[0], sc.SpecialFunctionError)
    assert caught.value.exceptions[0].__traceback__ is None


def test_pool_threads_take_the_callers_settings(monkeypatch):
    """A large call is split across jaxsci's pool; SciPy's settings are per thread, so every piece
    must get the caller's (before the core carried them, only the caller's own piece warned)."""
    monkeypatch.setattr(jaxsci.config, "num_threads", 4)
    monkeypatch.setattr(jaxsci.config, "parallel_min_size", 8)
    x = jnp.zeros(64)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with js.errstate(singular="warn"):
            jax.jit(js.gammaln)(x).block_until_ready()
    assert len(_special_warnings(record)) == 64  # SciPy warns once per element, in every piece
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with sc.errstate(singular="warn"):  # SciPy's own switch, in this thread: carried the same way
            jax.jit(js.gammaln)(x).block_until_ready()
    assert len(_special_warnings(record)) == 64
    with js.errstate(singular="raise"), pytest.warns(jaxsci.CallbackWarning, match="SpecialFunctionError"):
        value = jax.jit(js.gammaln)(x)
    assert np.isnan(value).all()
    assert np.isinf(jax.jit(js.gammaln)(x)).all()  # and the pool's threads went back to their own settings


def test_another_threads_settings_do_not_reach_this_threads_callbacks():
    """On CPU a callback runs in the calling thread, with that thread's settings, as SciPy's are."""
    results = {}

    def worker():
        with js.errstate(singular="raise"), jaxsci.errstate("ignore"):
            results["worker"] = np.asarray(jax.jit(js.gammaln)(0.0))  # a callback (eagerly SciPy's error is raised)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert np.isnan(results["worker"])
    assert np.isinf(js.gammaln(0.0))


def test_a_callback_on_a_thread_of_xlas_own_follows_the_latest_settings():
    """A thread not started by Python (as XLA's are) has no caller's settings: it follows the latest
    ones made through jaxsci.special, from any thread."""
    calls = host.HostCalls((("special.gammaln", (), (0,), (np.dtype("float64"),), None, ()),))
    done, results = threading.Event(), {}

    def on_a_foreign_thread():
        results["dummy"] = isinstance(threading.current_thread(), threading._DummyThread)
        results["own"] = sc.geterr()["singular"]
        with jaxsci.errstate("ignore"):
            (results["value"],) = host.evaluate_calls(calls, np.zeros(2))
        results["after"] = sc.geterr()["singular"]
        done.set()

    old = js.seterr(singular="raise")
    try:
        _thread.start_new_thread(on_a_foreign_thread, ())
        assert done.wait(60)
    finally:
        js.seterr(**old)
    assert results["dummy"] and results["own"] == "ignore" and results["after"] == "ignore"
    assert np.isnan(results["value"]).all()  # SciPy raised there: the settings made in this thread reached it


@pytest.mark.parametrize("entry, message", [
    ("geterr: jaxsci._core.sferror.geterrr", "exports.yaml:2: geterr: templates/runtime/sferror.py defines no 'geterrr'; did you mean 'geterr'?"),
    ("geterr: jaxsci._core.nowhere.geterr", "exports.yaml:2: geterr: there is no templates/runtime/nowhere.py"),
    ("geterr: scipy.special.geterr", "exports.yaml:2: geterr: must name an object of templates/runtime/<module>.py"),
    ("gettext: jaxsci._core.sferror.geterr", "exports.yaml:2: scipy.special has no 'gettext'"),
])
def test_exports_yaml_errors_name_the_line(tmp_path, entry, message):
    from generator.errors import SpecError
    from generator.loader import load_exports

    (tmp_path / "exports.yaml").write_text(f"special:\n  {entry}\n")
    with pytest.raises(SpecError) as caught:
        load_exports(tmp_path)
    assert message in str(caught.value)


def test_an_export_that_is_also_a_spec_is_an_error():
    from generator.loader import check_exports
    from specdata import SPEC_BY_NAME

    errors = check_exports({"special": {"gammaln": ("sferror", "geterr", 7)}}, [SPEC_BY_NAME["gammaln"]], "specs/exports.yaml")
    assert [str(e) for e in errors] == ["specs/exports.yaml:7: gammaln is exported from jaxsci._core, but specs/special/gammaln.yaml defines it too"]


def test_an_eager_call_raises_scipys_error_as_scipy_does():
    """Outside every trace no callback is involved: under errstate(...="raise") SciPy's own
    SpecialFunctionError reaches the caller, as it does from SciPy (the betainc family's domain errors
    among them); under jit the outputs are NaN and jaxsci.errstate reports it."""
    cases = [("betainc", (-1.0, 1.0, 0.5)), ("betaincc", (1.0, -1.0, 0.5)), ("betaincinv", (-1.0, 1.0, 0.5)),
             ("betainccinv", (1.0, 1.0, 1.5)), ("gammaln", (0.0,))]
    for name, args in cases:
        with sc.errstate(all="raise"), pytest.raises(sc.SpecialFunctionError):
            getattr(sc, name)(*args)
        with js.errstate(all="raise"), pytest.raises(sc.SpecialFunctionError):
            getattr(js, name)(*args)
        with js.errstate(all="raise"), pytest.warns(jaxsci.CallbackWarning, match="SpecialFunctionError"):
            assert np.isnan(jax.jit(getattr(js, name))(*args))

