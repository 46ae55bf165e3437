"""Shared pytest set-up for olearn's tests."""
import os

os.environ.setdefault("MPLBACKEND", "Agg")
# numba's OpenMP threads (n_jobs > 1) sleep when idle instead of spinning: on the 2 cores that
# make test's workers and the pages' kernels share, spinning threads burnt 4-5 times the CPU
# of the work (200 fits of AROW(n_jobs=2): 1.1 s of CPU, 0.25 s passive); results unchanged.
# Set before numba loads libgomp, which reads it once; the pages' kernels inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# OpenBLAS's threads (numpy's dot, norm, matmul on wide vectors) likewise: with make test's two
# workers on two cores, each worker's or kernel's second BLAS thread only waited for a core;
# book/regularized/theory's real-streams cell (15.6k norms of 47k-wide weights) took 60 s
# with them, 24 s with one thread. Read when numpy loads OpenBLAS; the kernels inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from hypothesis import settings  # noqa: E402

# The first call of a numba function compiles it, so per-example deadlines are meaningless.
settings.register_profile("olearn", deadline=None)
settings.register_profile("ci", settings.get_profile("olearn"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "olearn")


# --- the book pages under nbval: --book-cache, patient kernel starts (tests/book_cache.py);
# --- the CPU per scope and the costliest scopes first (--cpu-report, tests/cpu_costs.py) ---
import book_cache  # noqa: E402
import cpu_costs  # noqa: E402
from cpu_costs import pytest_collection_modifyitems  # noqa: E402,F401


def pytest_addoption(parser):
    book_cache.pytest_addoption(parser)
    cpu_costs.pytest_addoption(parser)


def pytest_configure(config):
    book_cache.pytest_configure(config)
    cpu_costs.pytest_configure(config)
    config.addinivalue_line(
        "markers", "needs_tools(*names): the test runs these system programs (tests/system_tools.py); "
        "absent, it skips naming the Debian packages, or fails in CI")


def pytest_runtest_setup(item):
    """A test marked ``needs_tools`` skips (fails in CI) when one of its programs is absent."""
    marks = list(item.iter_markers(name="needs_tools"))
    if marks:
        import system_tools

        system_tools.require(*[name for mark in marks for name in mark.args])


# --- real data sets (olearn.datasets) -------------------------------------------------
import pytest  # noqa: E402
from pathlib import Path  # noqa: E402

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _same_state(a, b):
    """Equality of two attribute values that may hold arrays (inside tuples or lists)."""
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b))
    return bool(a == b)


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The data home for tests on real data: $OLEARN_DATA_HOME, else ../shared/datasets."""
    return Path(os.environ.get("OLEARN_DATA_HOME") or _SHARED_DATA)


@pytest.fixture(scope="session")
def require_data(data_home):
    """``require_data(name)``: skip the test if the files of data set ``name`` are not in
    ``data_home`` -- or fail it in CI (``CI`` set), where every data set must be present."""
    from olearn import datasets

    def check(name):
        missing = [rel for rel in datasets.info(name).files if not (data_home / rel).is_file()]
        if missing:
            message = f"data set {name!r}: {', '.join(missing)} not found in data home {data_home}"
            if _in_ci():
                pytest.fail(message + " (CI needs every data set; set OLEARN_DATA_HOME)")
            pytest.skip(message)

    return check


@pytest.fixture(scope="session")
def real_data(data_home, require_data):
    """``real_data(name, **load_options)`` loads a registered data set from ``data_home``
    without downloading (after ``require_data(name)``)."""
    from olearn import datasets

    def load(name, **options):
        require_data(name)
        return datasets.load(name, data_home=data_home, download=False, **options)

    return load


# --- the input values a pass refuses (``_values_checked_in_pass``) ---------------------
def _with_fault(X, kind, row):
    """A copy of the dense ``X`` whose row ``row`` fails ``check_values``."""
    import numpy as np
    X = X.copy()
    if kind == "nan":
        X[row, 1] = np.nan
    elif kind == "inf":
        X[row, 2] = -np.inf
    elif kind == "overflow":      # finite values, ||x||^2 overflows
        X[row] = 1e200
    else:                         # "underflow": nonzero, ||x||^2 below 2.2e-308
        X[row] = 0.0
        X[row, 0] = 1e-160
    return X


def _assert_refused_as_upfront(model, X, y, kind, convert, monkeypatch, row=130):
    """The contract of a pass that checks the values itself, on a ``model``
    fitted before: ``X`` with a faulty ``row`` stops the pass there (``_learn``
    returns ``-1 - row``), the error is the one ``check_values`` raises for
    it (``convert``: the input format given to the learner), and the model
    is left exactly as before the call -- for ``partial_fit`` and ``fit``."""
    import copy

    import numpy as np
    import scipy.sparse as sp
    from numpy.testing import assert_array_equal

    from olearn._checks import check_values
    bad = _with_fault(X, kind, row)
    with pytest.raises(ValueError) as expected:
        check_values(sp.csr_matrix(bad))
    assert model._values_checked_in_pass
    state = copy.deepcopy({k: v for k, v in model.__dict__.items()
                           if not k.endswith("_buffer")})
    returned = []
    learn = type(model)._learn
    monkeypatch.setattr(type(model), "_learn",
                        lambda *a: returned.append(learn(*a)) or returned[-1])
    for call in (model.partial_fit, model.fit):
        returned.clear()
        with pytest.raises(type(expected.value)) as got:
            call(convert(bad), y)
        assert str(got.value) == str(expected.value)
        assert returned == [-1 - row]
        assert {k for k in model.__dict__ if not k.endswith("_buffer")} == state.keys()
        for key, value in state.items():
            if isinstance(value, np.ndarray):
                assert_array_equal(model.__dict__[key], value, err_msg=key)
            else:
                assert _same_state(model.__dict__[key], value), key
    monkeypatch.undo()


@pytest.fixture
def with_fault():
    """``with_fault(X, kind, row)``: a copy of the dense ``X`` whose row
    ``row`` fails ``check_values``: ``"nan"``, ``"inf"``, ``"overflow"``
    (finite values whose squared norm overflows) or ``"underflow"`` (a
    nonzero row whose squared norm is below 2.2e-308)."""
    return _with_fault


@pytest.fixture
def assert_refused_as_upfront(monkeypatch):
    """``assert_refused_as_upfront(model, X, y, kind, convert)``: see
    :func:`_assert_refused_as_upfront`."""
    def check(model, X, y, kind, convert, row=130):
        _assert_refused_as_upfront(model, X, y, kind, convert, monkeypatch, row)
    return check
