"""One contract for every estimator of ``olearn.__all__`` (issue 16, item 18).

The estimators are discovered from ``olearn.__all__``, so a learner added
later is held to the same contract without anyone remembering: hostile
inputs get a clear error (never a crash, a hang or a silent wrong model),
the API behaves alike everywhere (``record``, ``random_state``, ``shuffle``,
``partial_fit``, pickling), and a huge full covariance is refused up front.

``SMALL`` gives a constructor where the defaults do not fit the tiny problem
(the default constructor is still tried, in ``test_default_constructor``).
Checks that fail today because another helper's item of issue 16 is not yet
merged are marked ``xfail(strict=True)`` naming the item and the branch: once
merged the strict xfail fails, and the mark is removed.
"""
import inspect
import pickle
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

import olearn
from olearn.base import FrozenParameterError, OnlineClassifier

#: every estimator class of the public API
ESTIMATORS = [getattr(olearn, name) for name in olearn.__all__
              if inspect.isclass(getattr(olearn, name))
              and issubclass(getattr(olearn, name), BaseEstimator)]
NAMES = [cls.__name__ for cls in ESTIMATORS]

#: constructors for the tiny problem (5 features) where the defaults do not fit
SMALL = {
    "SBCW": dict(r=2),
    "ExtremalFeatureSelection": dict(n_features=2),
    "FeatureSelected": dict(k=3, refresh=10),
    # fit draws its visiting order from random_state (None by default): fixed, so
    # that two fits of the same data can be compared
    "SparDCA": dict(random_state=0),
}

N_ROWS, N_FEATURES = 40, 5


def xfail(reason, item, branch):
    return pytest.mark.xfail(strict=True, reason=f"issue 16 item {item}: "
                             f"{reason}, fixed on branch {branch}")


#: the checks expected to fail until the named branch is merged:
#: {test name: {estimator name: mark}}
_SPARDCA_OWN_VALIDATION = "SparDCA skips the validation every other estimator runs"
PENDING = {}


def pending(test, cls):
    mark = PENDING.get(test, {}).get(cls.__name__)
    return pytest.param(cls, marks=mark, id=cls.__name__) if mark else \
        pytest.param(cls, id=cls.__name__)


def each(test, classes=None):
    return [pending(test, cls) for cls in (classes or ESTIMATORS)]


#: fed non-negative data although untagged: ExtremalFeatureSelection's default
#: Winnow needs x >= 0 without the positive_only tag (item 17, wt-linear;
#: test_default_constructor holds it to the tag or to any X meanwhile)
NON_NEGATIVE = {"ExtremalFeatureSelection"}


def positive_only(cls):
    est = make(cls)
    try:
        return est.__sklearn_tags__().input_tags.positive_only
    except AttributeError:
        return False


def make(cls, **params):
    return cls(**{**SMALL.get(cls.__name__, {}), **params})


def data(cls, n=N_ROWS, d=N_FEATURES, seed=0, tagged_only=False):
    """Tiny stream; non-negative for learners that need it."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ np.arange(1.0, d + 1) > 0, 1, 0)
    if positive_only(cls) or (cls.__name__ in NON_NEGATIVE and not tagged_only):
        X = np.abs(X) + 0.1 * y[:, None]
    return X, y


def incremental(cls):
    return hasattr(cls, "partial_fit")


def params_of(cls):
    return make(cls).get_params(deep=False)


# -- construction --------------------------------------------------------------
@pytest.mark.parametrize("cls", each("test_default_constructor"))
def test_default_constructor(cls):
    X, y = data(cls, tagged_only=True)
    est = cls().fit(X, y)
    assert est.predict(X).shape == (N_ROWS,)


# -- non-finite and extreme values ---------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("cls", each("test_nonfinite_values_refused"))
def test_nonfinite_values_refused(cls, bad):
    X, y = data(cls)
    Xb = X.copy()
    Xb[7, 2] = bad
    for method in ("fit", "partial_fit"):
        if hasattr(cls, method):
            with pytest.raises(ValueError, match="NaN|infinity|inf"):
                getattr(make(cls), method)(Xb, y)
    est = make(cls).fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity|inf"):
        est.decision_function(Xb)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
@pytest.mark.parametrize("cls", each("test_extreme_scales_refused_or_learned"))
def test_extreme_scales_refused_or_learned(cls, scale):
    """Features scaled to 1e-300 or 1e300: a clear error naming the fix
    (rescale), unless the learner is scale invariant and learns the same
    model -- never a silent model that learned nothing."""
    X, y = data(cls)
    try:
        est = make(cls).fit(X * scale, y)
    except ValueError as error:
        assert "scale" in str(error).lower()
        return
    reference = make(cls).fit(X, y)
    assert_array_equal(est.predict(X * scale), reference.predict(X))


# -- malformed CSR ---------------------------------------------------------------
def broken_csr(X, kind):
    X = sp.csr_matrix(X)
    if kind == "column too large":
        X.indices[3] = X.shape[1] + 4
    elif kind == "negative column":
        X.indices[3] = -1
    elif kind == "indptr":
        X.indptr[2] = X.nnz + 50
    return X


def malformed_csr_checks(name, kind):
    cls = getattr(olearn, name)
    X, y = data(cls)
    Xb = broken_csr(X, kind)
    for method in ("fit", "partial_fit"):
        if hasattr(cls, method):
            with pytest.raises(ValueError):
                getattr(make(cls), method)(Xb, y)
    est = make(cls).fit(X, y)
    with pytest.raises(ValueError):
        est.decision_function(Xb)
    with pytest.raises(ValueError):
        est.predict(Xb)


#: estimators that crash the interpreter on a malformed CSR today: checked in
#: a subprocess, so that the crash is a failure (an xfail) and not an abort
CRASHES = set()


@pytest.mark.parametrize("kind", ["column too large", "negative column", "indptr"])
@pytest.mark.parametrize("cls", each("test_malformed_csr_refused"))
def test_malformed_csr_refused(cls, kind):
    if cls.__name__ not in CRASHES:
        malformed_csr_checks(cls.__name__, kind)
        return
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"import test_contract as t; "
            f"t.malformed_csr_checks({cls.__name__!r}, {kind!r})")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("cls", each("test_csr_duplicates_score_as_dense"))
def test_csr_duplicates_score_as_dense(cls):
    """A CSR row with a duplicated entry is the row with their sum (item 5)."""
    X, y = data(cls)
    est = make(cls).fit(X, y)
    dense = X[:6].copy()
    cols, vals = [], []
    for i in range(6):
        for j in range(N_FEATURES):
            half = dense[i, j] / 2.0        # exact: each entry split in two
            cols += [j, j]
            vals += [half, dense[i, j] - half]
    indptr = np.arange(0, 2 * N_FEATURES * 6 + 1, 2 * N_FEATURES)
    dup = sp.csr_matrix((np.array(vals), np.array(cols), indptr), shape=dense.shape)
    assert not dup.has_canonical_format
    assert_array_equal(dup.toarray(), dense)
    canonical = sp.csr_matrix(dense)
    assert_array_equal(est.decision_function(dup), est.decision_function(canonical))
    np.testing.assert_allclose(est.decision_function(dup),
                               est.decision_function(dense), rtol=1e-12, atol=1e-12)


# -- empty input, classes ---------------------------------------------------------
@pytest.mark.parametrize("cls", each("test_empty_input_refused"))
def test_empty_input_refused(cls):
    X, y = data(cls)
    for method in ("fit", "partial_fit"):
        if hasattr(cls, method):
            with pytest.raises(ValueError):
                getattr(make(cls), method)(X[:0], y[:0])


@pytest.mark.parametrize("cls", each("test_one_class_refused"))
def test_one_class_refused(cls):
    X, y = data(cls)
    with pytest.raises(ValueError, match="class"):
        make(cls).fit(X, np.ones(N_ROWS, dtype=int))


@pytest.mark.parametrize("cls", each("test_three_classes_refused"))
def test_three_classes_refused(cls):
    X, y = data(cls)
    with pytest.raises(ValueError, match="[Bb]inary|two classes|3"):
        make(cls).fit(X, np.arange(N_ROWS) % 3)


@pytest.mark.parametrize("cls", each("test_not_fitted"))
def test_not_fitted(cls):
    X, _ = data(cls)
    for method in ("predict", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(make(cls), method)(X)


# -- dtypes ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.int64, bool])
@pytest.mark.parametrize("cls", each("test_dtypes_learn_as_float64"))
def test_dtypes_learn_as_float64(cls, dtype):
    X, y = data(cls)
    X = np.abs(X) * 3 if dtype is not np.float32 else X
    Xd = X.astype(dtype)
    est = make(cls).fit(Xd, y)
    reference = make(cls).fit(Xd.astype(np.float64), y)
    assert_array_equal(est.decision_function(Xd), reference.decision_function(Xd))


@pytest.mark.parametrize("cls", each("test_strings_refused"))
def test_strings_refused(cls):
    X, y = data(cls)
    Xs = X.astype(object)
    Xs[3, 1] = "abc"
    for method in ("fit", "partial_fit"):
        if hasattr(cls, method):
            with pytest.raises(ValueError, match="[Ss]tring|float|number|numeric"):
                getattr(make(cls), method)(Xs, y)


# -- run parameters (item 11) -------------------------------------------------------
@pytest.mark.parametrize("seed", [-1, 2**40, 1.5, "zero"])
@pytest.mark.parametrize("cls", each("test_bad_random_state_named",
                                     [c for c in ESTIMATORS
                                      if "random_state" in params_of(c)]))
def test_bad_random_state_named(cls, seed):
    X, y = data(cls)
    with pytest.raises(ValueError, match="random_state"):
        make(cls, random_state=seed).fit(X, y)
    if incremental(cls):
        est = make(cls).partial_fit(X[:20], y[:20])
        est.set_params(random_state=seed)
        with pytest.raises(ValueError, match="random_state"):
            est.partial_fit(X[20:], y[20:])


@pytest.mark.parametrize("shuffle", ["yes", 1, None])
@pytest.mark.parametrize("cls", each("test_shuffle_must_be_a_bool",
                                     [c for c in ESTIMATORS
                                      if "shuffle" in params_of(c)]))
def test_shuffle_must_be_a_bool(cls, shuffle):
    X, y = data(cls)
    with pytest.raises(ValueError, match="shuffle"):
        make(cls, shuffle=shuffle).fit(X, y)
    make(cls, shuffle=np.bool_(True), random_state=0).fit(X, y)


# -- parameter changes between partial_fit calls -------------------------------------
INCREMENTAL = [c for c in ESTIMATORS if incremental(c)]


@pytest.mark.parametrize("cls", each("test_frozen_parameters_refused", INCREMENTAL))
def test_frozen_parameters_refused(cls):
    """Every parameter the fitted state cannot follow raises
    FrozenParameterError when changed between partial_fit calls."""
    X, y = data(cls)
    frozen = ("record",) if "record" in params_of(cls) else ()
    frozen += tuple(getattr(cls, "_frozen_params", ()))
    for name in frozen:
        est = make(cls).partial_fit(X[:20], y[:20])
        value = est.get_params()[name]
        other = {"full": "counts", "counts": "full"}.get(value) if name == "record" \
            else _another_value(cls, name, value)
        if other is None:
            continue
        est.set_params(**{name: other})
        with pytest.raises(FrozenParameterError, match=name):
            est.partial_fit(X[20:], y[20:])


def _another_value(cls, name, value):
    """A valid value different from ``value`` (fitting from scratch accepts it)."""
    X, y = data(cls)
    for other in _candidates(value):
        if type(other) is type(value) and other == value:
            continue
        try:
            make(cls, **{name: other}).fit(X, y)
        except (ValueError, TypeError):
            continue
        return other
    return None


def _candidates(value):
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, (int, float)):
        return [value * 2 + 1, value / 2, 3, 0.5, 2.0]
    if isinstance(value, str):
        return ["full", "diagonal", "precision", "covariance", "stdev", "variance",
                "PA-I", "PA-II", "gaussian", "linear", "poly", "game", "info_gain"]
    return []


@pytest.mark.parametrize("cls", each("test_invalid_parameters_refused_mid_stream",
                                     INCREMENTAL))
def test_invalid_parameters_refused_mid_stream(cls):
    """A NaN for any float hyper-parameter, set between partial_fit calls, is
    refused (never learned with)."""
    X, y = data(cls)
    floats = [k for k, v in params_of(cls).items()
              if isinstance(v, float) and not isinstance(v, bool)]
    for name in floats:
        est = make(cls).partial_fit(X[:20], y[:20])
        est.set_params(**{name: np.nan})
        with pytest.raises(ValueError):
            est.partial_fit(X[20:], y[20:])
    est = make(cls).partial_fit(X[:20], y[:20])
    if "n_epochs" in params_of(cls):
        est.set_params(n_epochs=0)
        with pytest.raises(ValueError, match="n_epochs"):
            est.partial_fit(X[20:], y[20:])


# -- pickling mid-stream ------------------------------------------------------------
@pytest.mark.parametrize("cls", each("test_pickle_mid_stream", INCREMENTAL))
def test_pickle_mid_stream(cls):
    X, y = data(cls)
    straight = make(cls).partial_fit(X[:20], y[:20])
    copy = pickle.loads(pickle.dumps(make(cls).partial_fit(X[:20], y[:20])))
    straight.partial_fit(X[20:], y[20:])
    copy.partial_fit(X[20:], y[20:])
    assert_array_equal(copy.decision_function(X), straight.decision_function(X))
    if hasattr(straight, "n_mistakes_"):
        assert copy.n_mistakes_ == straight.n_mistakes_


# -- record (item 13) ------------------------------------------------------------------
RECORDING = [c for c in ESTIMATORS if issubclass(c, OnlineClassifier)
             or "record" in params_of(c)]
LACKS_RECORD = {}


def _record_marks(test, extra=None):
    marks = dict(PENDING.get(test, {}))
    for name, (branch, what) in LACKS_RECORD.items():
        marks.setdefault(name, xfail(f"record= missing on {what}", 13,
                                     f"wt-{branch}"))
    marks.update(extra or {})
    PENDING[test] = marks


_record_marks("test_every_estimator_takes_record")
_record_marks("test_counts_equal_the_full_record")
_record_marks("test_counts_memory_is_flat")


def _recording_learner(cls, **params):
    """``cls`` with ``params``; for Averaged the record is its learner's."""
    if cls.__name__ == "Averaged":
        return make(cls, learner=olearn.Perceptron(**params))
    return make(cls, **params)


@pytest.mark.parametrize("cls", each("test_every_estimator_takes_record",
                                     [c for c in ESTIMATORS
                                      if c.__name__ != "ExtremalFeatureSelection"]))
def test_every_estimator_takes_record(cls):
    est = _recording_learner(cls)
    if cls.__name__ == "Averaged":
        est = est.learner
    assert est.get_params()["record"] == "full"


@pytest.mark.parametrize("cls", each("test_counts_equal_the_full_record",
                                     [c for c in ESTIMATORS
                                      if c.__name__ != "ExtremalFeatureSelection"]))
def test_counts_equal_the_full_record(cls):
    X, y = data(cls)
    full = _recording_learner(cls).fit(X, y)
    counts = _recording_learner(cls, record="counts").fit(X, y)
    if incremental(cls):
        full.partial_fit(X, y)
        counts.partial_fit(X, y)
    assert counts.n_mistakes_ == full.n_mistakes_ == int(full.mistakes_.sum())
    assert counts.n_updates_ == full.n_updates_
    assert counts.n_rounds_ == full.n_rounds_
    assert_array_equal(counts.decision_function(X), full.decision_function(X))
    with pytest.raises(AttributeError, match="record='counts'"):
        counts.margins_


@pytest.mark.parametrize("cls", each("test_counts_memory_is_flat",
                                     [c for c in INCREMENTAL
                                      if c.__name__ != "ExtremalFeatureSelection"]))
def test_counts_memory_is_flat(cls):
    """With record="counts" nothing that grows per round or per call is
    kept: after 100 and after 300 calls the estimator holds the same
    per-round buffers and lists (the model itself -- a support set -- may grow)."""
    X, y = data(cls, n=5)
    y[:2] = [0, 1]
    est = _recording_learner(cls, record="counts")

    def record_sizes(e):
        sizes = {}
        for name, value in vars(e).items():
            if isinstance(value, BaseEstimator):
                sizes.update({f"{name}.{k}": v for k, v in record_sizes(value).items()})
            elif name.endswith("_buffer") or name == "_call_scratch" or \
                    isinstance(value, list):
                sizes[name] = len(value) if not isinstance(value, np.ndarray) \
                    else value.size
        return sizes

    for _ in range(100):
        est.partial_fit(X, y, classes=[0, 1])
    before = record_sizes(est)
    for _ in range(200):
        est.partial_fit(X, y, classes=[0, 1])
    assert est.n_rounds_ == 1500
    assert record_sizes(est) == before
    assert not any(name in vars(est) for name in ("mistakes_", "margins_"))


def test_counts_memory_flat_over_a_million_rounds():
    """10^6 rounds in 1,000 calls: the traced allocations stay flat."""
    X, y = data(olearn.PA, n=1000)
    est = olearn.PA(record="counts").partial_fit(X, y, classes=[0, 1])
    tracemalloc.start()
    try:
        for _ in range(50):
            est.partial_fit(X, y)
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(949):
            est.partial_fit(X, y)
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert est.n_rounds_ == 10**6
    assert end - start < 64 * 1024


# -- a failing round leaves the model as it was (item 7) -----------------------------
def _overflow_cases():
    """Estimators and parameters driven to a non-finite step on a row whose
    squared norm (4e-308) is still normal: steps ~ loss / ||x||^2 overflow."""
    return {
        "PA": dict(epsilon=10.0),
        "AROW": dict(a=1e300),
        "SOP": dict(a=1e-300),
        "NAROW": dict(a=1e300),
        "SOFS": dict(r=1e-300),
        "ObjectiveRegularizedPA": dict(),
        "L2ConstrainedPA": dict(),
        "ROMMA": dict(),
        "AggressiveROMMA": dict(),
    }


@pytest.mark.parametrize("cls", each("test_nonfinite_round_keeps_the_prefix",
                                     INCREMENTAL))
def test_nonfinite_round_keeps_the_prefix(cls):
    """Drive every estimator towards overflow (a row of squared norm 4e-308,
    then huge rows, with huge step parameters where it has them).  If a call
    raises NonFiniteModelError, the model is the one of the rounds before the
    failing one: it predicts as a fresh learner fed the same prefix."""
    X, y = data(cls, n=60)
    params = _overflow_cases().get(cls.__name__, {})
    X[45] *= np.sqrt(4e-308 / (X[45] @ X[45]))
    X[50:] *= 1e150
    calls = [(0, 30), (30, 60)]
    est = make(cls, **params)
    for lo, hi in calls:
        try:
            est.partial_fit(X[lo:hi], y[lo:hi], classes=[0, 1])
        except olearn.base.NonFiniteModelError as error:
            k = est.n_rounds_
            assert error.round == k + 1 and error.row == k - lo
            scores = est.decision_function(X[:30])
            assert np.isfinite(scores).all()
            if k == 0:    # nothing learned: the freshly initialised model
                return
            reference = make(cls, **params)
            for a, b in calls:
                if min(b, k) > a:
                    reference.partial_fit(X[a:min(b, k)], y[a:min(b, k)],
                                          classes=[0, 1])
            assert_array_equal(est.predict(X[:30]), reference.predict(X[:30]))
            assert_array_equal(scores, reference.decision_function(X[:30]))
            return
        except ValueError as error:      # refused up front, naming the fix
            assert "scale" in str(error).lower(), error
            return
    assert not np.isnan(est.decision_function(X[:30])).any()


def test_some_estimators_are_driven_to_overflow():
    """The test above is not vacuous: several learners do fail mid-stream."""
    failing = []
    for name in _overflow_cases():
        cls = getattr(olearn, name)
        X, y = data(cls, n=60)
        X[45] *= np.sqrt(4e-308 / (X[45] @ X[45]))
        try:
            make(cls, **_overflow_cases()[name]).fit(X, y)
        except olearn.base.NonFiniteModelError:
            failing.append(name)
    assert len(failing) >= 3, failing


# -- huge full covariance ---------------------------------------------------------
FULL_COVARIANCE = [c for c in ESTIMATORS if params_of(c).get("covariance") == "full"
                   or "max_covariance_bytes" in params_of(c)]


@pytest.mark.parametrize("cls", each("test_huge_full_covariance_refused_up_front",
                                     FULL_COVARIANCE))
def test_huge_full_covariance_refused_up_front(cls):
    """d = 10^6 features: a d x d float64 matrix is 8 TB; refused with a clear
    error before numpy tries to allocate it."""
    d = 10**6
    X = sp.csr_matrix((np.ones(4), (np.arange(4), np.arange(4))), shape=(4, d))
    y = np.array([0, 1, 0, 1])
    with pytest.raises((MemoryError, ValueError), match="GiB|GB|bytes|memory"):
        make(cls).fit(X, y)


# =====================================================================================
# -- cache corruption (issue 26 items 8 and 16; h26-cache) -----------------------------
# Every estimator runs through the experiment cache; an entry left damaged by a crash
# or a full disk (0 bytes, garbage, a directory at its path) is recomputed, identically
# and with a warning, never a bare EOFError, a crash in os.replace or a stale result.
CACHE_DAMAGES = {"0 bytes": lambda path: path.write_bytes(b""),
                 "garbage": lambda path: path.write_bytes(b"PK\x03\x04 not an npz"),
                 "directory": lambda path: (path.unlink(), path.mkdir())}


@pytest.mark.parametrize("cls", each("test_damaged_cache_entries_are_recomputed"))
def test_damaged_cache_entries_are_recomputed(cls, tmp_path):
    import warnings

    from olearn import experiments

    X, y = data(cls, n=20)
    run = dict(n_permutations=2, cache=True, cache_dir=tmp_path, progress=False)
    if not hasattr(make(cls).fit(X, y), "mistakes_"):    # not an online learner
        with pytest.raises(ValueError, match="no mistakes_"):
            experiments.run({"est": make(cls)}, X, y, **run)
        return
    first = experiments.run({"est": make(cls)}, X, y, **run)
    entries = sorted(tmp_path.rglob("*.npz"))
    assert first.n_computed == 2 and len(entries) == 2, "not cached with its defaults"
    for damage, spoil in CACHE_DAMAGES.items():
        spoil(entries[0])
        with pytest.warns(UserWarning, match="experiment cache .* recomputed"):
            again = experiments.run({"est": make(cls)}, X, y, **run)
        assert (again.n_computed, again.n_cached) == (1, 1), damage
        assert_array_equal(again.mistakes("est"), first.mistakes("est"))
        assert entries[0].is_file() and entries[0].stat().st_size > 0, damage
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert experiments.run({"est": make(cls)}, X, y, **run).n_cached == 2


# -- output paths (issue 26 items 7, 11, 16) ------------------------------------------
# Every estimator, learned by the command line (``olearn train``) and saved
# with --save-model: the model file is written whole or not at all (a stop
# while writing leaves the previous file), an output path naming an input
# or a missing folder is refused before anything is learned, and the saved
# model predicts as the learner it pickles.
def _cli_case(cls, tmp_path):
    """A CSV file of the tiny stream and the ``--param`` options of ``SMALL``."""
    X, y = data(cls)
    path = tmp_path / "train.csv"
    path.write_text("".join(",".join(repr(float(v)) for v in [label, *row]) + "\n"
                            for label, row in zip(y, X)))
    params = []
    for key, value in SMALL.get(cls.__name__, {}).items():
        params += ["--param", f"{key}={value!r}"]
    return X, path, ["train", str(path), "--learner", cls.__name__, "--quiet", *params]


def _cli(argv):
    import io
    from olearn.cli import main
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


@pytest.mark.parametrize("cls", each("test_output_paths_saved_whole", ESTIMATORS))
def test_output_paths_saved_whole(cls, tmp_path, monkeypatch):
    X, path, argv = _cli_case(cls, tmp_path)
    model = tmp_path / "model.pkl"
    assert _cli(argv + ["--save-model", str(model)])[0] == 0
    from olearn.cli._model import load_model
    saved, _ = load_model(str(model))   # the safe .npz + JSON model file
    assert type(saved) is cls and saved.predict(X).shape == (N_ROWS,)
    before = model.read_bytes()

    def stopped(f, est, reading=None):
        f.write(before[: len(before) // 2])
        raise SystemExit(143)   # what a SIGTERM raises in the command line
    monkeypatch.setattr("olearn.cli._train.save_model", stopped)
    with pytest.raises(SystemExit):
        _cli(argv + ["--save-model", str(model)])
    assert model.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pkl", "train.csv"]


@pytest.mark.parametrize("cls", each("test_output_paths_refused_before_learning",
                                     ESTIMATORS))
def test_output_paths_refused_before_learning(cls, tmp_path, capsys):
    X, path, argv = _cli_case(cls, tmp_path)
    data_before = path.read_bytes()
    for option in ("--save-model", "--save-record"):
        for target, message in [(path, "input file"),
                                (tmp_path / "no" / "m.pkl", "does not exist"),
                                (tmp_path, "is a folder")]:
            code, text = _cli(argv + [option, str(target)])
            err = capsys.readouterr().err
            assert code == 2 and err.startswith("olearn: error: ") and message in err
            assert text == ""    # nothing read, nothing learned
    assert path.read_bytes() == data_before


# -- exact Winnow ties (issue 26, items 6 and 16) ------------------------------------
#: the multiplicative learners: an initial weight ``theta0`` (or ``theta0_pos``
#: and ``theta0_neg``) and a threshold ``theta``, discovered by those names
EXACT_TIES = [c for c in ESTIMATORS if "theta" in params_of(c)
              and any(name.startswith("theta0") for name in params_of(c))]


def _tie_params(cls, theta0=3.0):
    """Initial weights with a 0 score on every row: ``theta = theta0``
    (``theta0_pos - theta0_neg = theta0 / 2`` with a negative model, exact),
    MBW's margin 0."""
    names = params_of(cls)
    if "theta0" in names:
        params = dict(theta0=theta0, theta=theta0)
    else:
        params = dict(theta0_pos=theta0, theta0_neg=theta0 / 2, theta=theta0 / 2)
    if "margin" in names:
        params["margin"] = 0.0
    return params


def test_exact_ties_case_covers_the_winnows():
    assert {"PositiveWinnow", "BalancedWinnow",
            "ModifiedBalancedWinnow"} <= {c.__name__ for c in EXACT_TIES}


@pytest.mark.parametrize("theta0", [3.0, 0.1, 1e-300, 1e300])
@pytest.mark.parametrize("cls", each("test_exact_winnow_ties", EXACT_TIES))
def test_exact_winnow_ties(cls, theta0):
    """The model starts from ``theta0`` exactly, so a row scored at the
    threshold scores 0, predicts the negative class and is a mistake for a
    positive label (a rounded ``exp(log theta0)`` predicted positive); the
    voted learner (:class:`olearn.Averaged`) starts from the same tie."""
    X = np.array([[1.0, 0.0, 1.0, 1.0, 0.0]])
    for est in (make(cls, **_tie_params(cls, theta0)),
                olearn.Averaged(make(cls, **_tie_params(cls, theta0)))):
        assert est.partial_fit(X, [0], classes=[0, 1]).mistakes_.tolist() == [False]
        fresh = make(cls, **_tie_params(cls, theta0)).partial_fit(X, [1], classes=[0, 1])
        assert fresh.mistakes_.tolist() == [True] and fresh.margins_[0] == 0.0


# ===============================================================================
# Issue 26, item 16 (h26-second-order): extreme single features per diagonal rule
# ===============================================================================
#: every estimator with a choice of diagonal projection, in each reading and
#: with a full covariance where it has one
DIAGONAL_RULES = [c for c in ESTIMATORS if "diagonal" in params_of(c)]


def _diagonal_layouts(cls):
    params = params_of(cls)
    out = [dict(covariance="diag", diagonal=d) for d in ("precision", "covariance")]
    if "covariance" in params:
        out.append(dict(covariance="full"))
    return [pytest.param(cls, layout, id=f"{cls.__name__}-{'-'.join(layout.values())}")
            for layout in out]


DIAGONAL_CASES = [case for cls in DIAGONAL_RULES for case in _diagonal_layouts(cls)]


def _variances(est):
    Sigma = np.asarray(est.covariance_)
    return np.diag(Sigma) if Sigma.ndim == 2 else Sigma


def test_there_are_diagonal_rules():
    """The tests below are not vacuous: the second-order learners are found."""
    assert {"AROW", "CW", "SCW", "SOP", "NAROW"} <= {c.__name__ for c in DIAGONAL_RULES}


@pytest.mark.parametrize("value", [1e8, -1.2e10, 3e12])
@pytest.mark.parametrize("cls,layout", DIAGONAL_CASES)
def test_extreme_single_feature_keeps_every_variance_positive(cls, layout, value):
    """One row whose single nonzero value (an unscaled id or timestamp) carries
    all of ``x' Sigma x``: every variance stays positive (the covariance
    reading once cancelled it to 0 or to -2.2e-16), and every later row using
    that feature keeps ``x' Sigma x > 0``, so it can still be learned; or the
    learner refuses the row with a clear error, keeping its model."""
    X, y = data(cls, n=30)
    X[10] = 0.0
    X[10, 0] = value
    est = make(cls, **layout)
    try:
        est.fit(X, y)
    except (ValueError, FloatingPointError) as error:
        assert "row" in str(error) and "Scale" in str(error), error
        return
    Sigma = _variances(est)
    assert np.isfinite(Sigma).all() and (Sigma > 0).all(), Sigma
    full = np.asarray(est.covariance_)
    for x in X[11:]:
        chi = x @ full @ x if full.ndim == 2 else (full * x) @ x
        assert chi > 0, (x, chi)


@pytest.mark.parametrize("cls,layout", DIAGONAL_CASES)
def test_extreme_single_feature_then_learns_as_the_precision_reading(cls, layout):
    """After the extreme row the learner goes on learning from rows that use
    the feature at a large scale: its mistakes are those of the paper's
    (precision) projection, up to a few, not every later row."""
    rng = np.random.default_rng(1)
    X = np.column_stack([np.abs(rng.standard_normal(201)) * 1e8,
                         np.abs(rng.standard_normal(201))])
    X[0] = [-8335519708.024438, 0.5]
    y = np.ones(201, dtype=int)
    try:
        est = make(cls, **layout).partial_fit(X, y, classes=[0, 1])
        ref = make(cls, covariance="diag", diagonal="precision").partial_fit(
            X, y, classes=[0, 1])
    except (ValueError, FloatingPointError) as error:
        assert "row" in str(error), error
        return
    assert (_variances(est) > 0).all()
    assert est.n_mistakes_ <= ref.n_mistakes_ + 5, (est.n_mistakes_, ref.n_mistakes_)


# -- the experiment cache is never stale (issue 36, item 1) ---------------------------
# Fifteen kinds of edit between two runs of one kernel learner, each made as a
# user would (editing a module and reloading it, or changing a value in place).
# After the edit, run() must recompute (or, for what the key cannot account
# for, run uncached with one warning): never return the old mistakes as cached.
# Each case makes the kernel linear at step 0 and cubic at step 1, so that a
# stale answer is visible in the mistakes as well as in the counts.
def _write(folder, name, source):
    import importlib

    path = folder / (name.replace(".", "/") + ".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    importlib.invalidate_caches()
    if name in sys.modules:
        return importlib.reload(sys.modules[name])
    return importlib.import_module(name)


def _power(A, B, p):
    return (A @ B.T + (p > 1)) ** p


def _edit_closure(folder, step, monkeypatch):
    def make_kernel(p):
        return lambda A, B: _power(A, B, p)
    return make_kernel([1, 3][step]), {}


def _edit_partial(folder, step, monkeypatch):
    import functools
    return functools.partial(_power, p=[1, 3][step]), {}


def _default_kernel(A, B, p=1):
    return _power(A, B, p)


def _edit_default(folder, step, monkeypatch):
    # the same function object, its default changed in place
    monkeypatch.setattr(_default_kernel, "__defaults__", ([1, 3][step],))
    return _default_kernel, {}


_WEIGHTS = np.array([1.0])


def _edit_global_array(folder, step, monkeypatch):
    _WEIGHTS[0] = [1.0, 3.0][step]          # in place: the same array object
    return (lambda A, B: _power(A, B, int(_WEIGHTS[0]))), {}


class _Settings:
    power = 1


def _edit_class_attribute(folder, step, monkeypatch):
    monkeypatch.setattr(_Settings, "power", [1, 3][step])
    return (lambda A, B: _power(A, B, _Settings.power)), {}


def _edit_base_class_method(folder, step, monkeypatch):
    if step == 0:
        _write(folder, "h36_base", "class Root:\n    def power(self):\n        return 1\n"
                                   "class Base(Root):\n    pass\n")
        _write(folder, "h36_sub", "import numpy as np\nfrom h36_base import Base\n"
                                  "class Sub(Base):\n    pass\n"
                                  "def k(A, B):\n    p = Sub().power()\n"
                                  "    return (A @ B.T + (p > 1)) ** p\n")
    else:     # a method added to the base class, in its own module
        monkeypatch.setattr(sys.modules["h36_base"].Base, "power",
                            lambda self: 3, raising=False)
    return sys.modules["h36_sub"].k, {}


def _edit_main_lambda(folder, step, monkeypatch):
    main = sys.modules["__main__"]
    if step == 0:
        monkeypatch.setattr(main, "H36_POWER", 1, raising=False)
        namespace = vars(main)
        exec("h36_kernel = lambda A, B: (A @ B.T + (H36_POWER > 1)) ** H36_POWER",
             namespace)
        monkeypatch.setattr(main, "h36_kernel", namespace["h36_kernel"])
    else:
        monkeypatch.setattr(main, "H36_POWER", 3)
    return main.h36_kernel, {}


def _edit_dataclass_default(folder, step, monkeypatch):
    module = _write(folder, "h36_settings",
                    "from dataclasses import dataclass\n@dataclass\nclass Settings:\n"
                    f"    power: int = {[1, 3][step]}\n"
                    "def k(A, B):\n    p = Settings().power\n"
                    "    return (A @ B.T + (p > 1)) ** p\n")
    return module.k, {}


_HELPER = "def k(A, B):\n    return (A @ B.T + {c}) ** {p}\n"


def _helper(folder, step):
    _write(folder, "h36_helper", _HELPER.format(c=[0, 1][step], p=[1, 3][step]))


def _edit_top_level_import(folder, step, monkeypatch):
    _helper(folder, step)
    module = _write(folder, "h36_top", "import h36_helper\n"
                                       "kernel = lambda A, B: h36_helper.k(A, B)\n")
    return module.kernel, {}


def _edit_local_import(folder, step, monkeypatch):
    _helper(folder, step)       # the battery's hm_local.py
    module = _write(folder, "h36_local", "def kernel(A, B):\n"
                                         "    from h36_helper import k\n"
                                         "    return k(A, B)\n")
    return module.kernel, {}


def _edit_nested_package(folder, step, monkeypatch):
    if step == 0:
        for init in ("h36_pkg/__init__", "h36_pkg/sub/__init__"):
            (folder / init).parent.mkdir(parents=True, exist_ok=True)
            (folder / f"{init}.py").write_text("")
    _write(folder, "h36_pkg.sub.deep", _HELPER.format(c=[0, 1][step], p=[1, 3][step]))
    module = _write(folder, "h36_nested", "import h36_pkg.sub.deep\n"
                                          "kernel = lambda A, B: h36_pkg.sub.deep.k(A, B)\n")
    return module.kernel, {}


def _edit_getattr(folder, step, monkeypatch):
    _helper(folder, step)
    module = _write(folder, "h36_getattr", "import h36_helper\nNAME = 'k'\n"
                                           "def kernel(A, B):\n"
                                           "    return getattr(h36_helper, NAME)(A, B)\n")
    return module.kernel, {}


def _edit_data_file(folder, step, monkeypatch):
    path = folder / "power.txt"
    path.write_text(str([1, 3][step]))
    module = _write(folder, "h36_file", f"PATH = {str(path)!r}\n"
                                        "def kernel(A, B):\n"
                                        "    with open(PATH) as f:\n"
                                        "        p = int(f.read())\n"
                                        "    return (A @ B.T + (p > 1)) ** p\n")
    return module.kernel, {"depends_on": [path]}


def _edit_environment(folder, step, monkeypatch):
    from olearn.experiments import Env

    monkeypatch.setenv("H36_POWER", str([1, 3][step]))
    module = _write(folder, "h36_env", "import os\n"
                                       "def kernel(A, B):\n"
                                       "    p = int(os.environ['H36_POWER'])\n"
                                       "    return (A @ B.T + (p > 1)) ** p\n")
    return module.kernel, {"depends_on": [Env("H36_POWER")]}


def _edit_registered_data(folder, step, monkeypatch):
    """A new registered version of a data file the code reads through
    olearn.datasets (here only named: the registry's checksum changes)."""
    import dataclasses

    from olearn.datasets import _registry
    if step == 1:
        path = sorted(_registry.FILES)[0]
        monkeypatch.setitem(_registry.FILES, path, dataclasses.replace(
            _registry.FILES[path], sha256="0" * 64))
    module = _write(folder, "h36_data", "def kernel(A, B):\n"
                                        "    from olearn import datasets\n"
                                        "    datasets.info\n"
                                        "    return A @ B.T\n")
    return module.kernel, {}


EDITS = {
    "closure": _edit_closure, "partial": _edit_partial, "default argument": _edit_default,
    "global array in place": _edit_global_array, "class attribute": _edit_class_attribute,
    "method added to a base class": _edit_base_class_method,
    "lambda in __main__": _edit_main_lambda, "dataclass default": _edit_dataclass_default,
    "top-level import": _edit_top_level_import, "local import": _edit_local_import,
    "nested package attribute": _edit_nested_package, "getattr": _edit_getattr,
    "data file": _edit_data_file, "environment variable": _edit_environment,
    "olearn data set": _edit_registered_data,
}


@pytest.fixture
def user_code(tmp_path, monkeypatch):
    """A folder on sys.path for the test's modules (forgotten afterwards)."""
    folder = tmp_path / "user_code"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    yield folder
    for name in [n for n in sys.modules if n.startswith("h36_")]:
        del sys.modules[name]


def test_fifteen_kinds_of_edit():
    assert len(EDITS) == 15


@pytest.mark.parametrize("kind", list(EDITS))
def test_an_edit_is_never_served_from_the_cache(kind, tmp_path, user_code, monkeypatch):
    import warnings

    from olearn import experiments

    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 4))
    y = np.where(X @ rng.standard_normal(4) + 0.5 * rng.standard_normal(80) > 0, 1, 0)
    run = dict(n_permutations=2, cache=True, cache_dir=tmp_path / "cache", progress=False)

    def learners(kernel):
        return {"k": olearn.KernelPerceptron(kernel=kernel)}

    kernel, extra = EDITS[kind](user_code, 0, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # keyed, without a warning
        first = experiments.run(learners(kernel), X, y, **run, **extra)
        assert experiments.run(learners(kernel), X, y, **run, **extra).n_cached == 2
    kernel, extra = EDITS[kind](user_code, 1, monkeypatch)
    edited = experiments.run(learners(kernel), X, y, **run, **extra)
    assert (edited.n_cached, edited.n_computed) == (0, 2), "stale results served"
    fresh = experiments.run(learners(kernel), X, y, 2, cache=False, progress=False)
    assert_array_equal(edited.mistakes("k"), fresh.mistakes("k"))
    if kind != "olearn data set":           # the edit changes what is computed
        assert not np.array_equal(edited.mistakes("k"), first.mistakes("k"))
    assert experiments.run(learners(kernel), X, y, **run, **extra).n_cached == 2


UNACCOUNTABLE = {
    # names reached on a branch the run does not take (defined later, perhaps)
    "undefined global": "def kernel(A, B):\n    if A.shape[0] < 0:\n"
                        "        return H36_NOT_DEFINED(A, B)\n    return A @ B.T\n",
    "import by a computed name": "import importlib\nNAME = 'h36_helper'\n"
                                 "def kernel(A, B):\n"
                                 "    return importlib.import_module(NAME).k(A, B)\n",
    "eval": "def kernel(A, B):\n    return eval('A @ B.T')\n",
    "unimportable local import": "def kernel(A, B):\n    if A.shape[0] < 0:\n"
                                 "        import h36_missing\n    return A @ B.T\n",
}


@pytest.mark.parametrize("kind", list(UNACCOUNTABLE))
def test_a_name_the_key_cannot_account_for_runs_uncached_with_one_warning(
        kind, tmp_path, user_code):
    """``experiments/keys.py`` dropped a name it could not resolve from the
    function's globals: such a task was cached, and served stale after an edit."""
    from olearn import experiments

    _helper(user_code, 0)
    module = _write(user_code, "h36_unaccountable", UNACCOUNTABLE[kind])
    X, y = data(olearn.KernelPerceptron, n=20)
    run = dict(n_permutations=2, cache=True, cache_dir=tmp_path / "cache", progress=False)
    learner = {"k": olearn.KernelPerceptron(kernel=module.kernel)}
    for _ in range(2):
        with pytest.warns(UserWarning, match="'k' is not cached") as caught:
            result = experiments.run(learner, X, y, **run)
        assert len([w for w in caught if "not cached" in str(w.message)]) == 1
        assert result.n_cached == 0 and result.n_computed == 2
    assert not list((tmp_path / "cache").rglob("*.npz"))


# -- fitted attributes depend only on what was fitted (issue 36, item 7) -------------
def _fitted_attributes(est):
    """``{name: value}`` of every public fitted attribute (``name_``) readable now."""
    import copy
    import warnings

    out = {}
    for name in dir(est):
        if not name.endswith("_") or name.startswith("_") or name.endswith("__"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                value = getattr(est, name)
            except (AttributeError, NotFittedError):
                continue
        if isinstance(value, BaseEstimator):     # a fitted inner learner
            out[name] = (repr(value), _fitted_attributes(value))
        elif not callable(value):                # methods (norm_squared_) are not state
            out[name] = copy.deepcopy(value)
    return out


def _same(a, b):
    if sp.issparse(a) or sp.issparse(b):
        return sp.issparse(a) and sp.issparse(b) and (a != b).nnz == 0
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            assert_array_equal(a, b)
        except AssertionError:
            return False
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:
        return repr(a) == repr(b)


@pytest.mark.parametrize("cls", each("test_fitted_attributes_ignore_later_parameters"))
def test_fitted_attributes_ignore_later_parameters(cls):
    """``covariance_`` of AROW, CW and SOP fitted with a full covariance was
    recomputed through the *current* ``covariance`` parameter: after
    ``set_params(covariance="diagonal")`` it returned another matrix (0.14 off)."""
    X, y = data(cls)
    params = params_of(cls)
    if isinstance(params.get("covariance"), str):   # the reported case: full, then another
        params = {**params, "covariance": "full"}
    est = make(cls, **params).fit(X, y)
    fitted = _fitted_attributes(est)
    assert fitted, "no fitted attribute found"
    for name, value in est.get_params(deep=False).items():
        for other in _candidates(value) + [None]:
            est.set_params(**{name: other})
            now = _fitted_attributes(est)
            changed = [k for k in fitted if k not in now or not _same(fitted[k], now[k])]
            assert not changed, f"{name}={other!r} changed {changed}"
            est.set_params(**{name: value})


# -- chunking never changes the model or the record (issue 36, item 5) -----------------
#: besides the defaults: settings whose state carried between calls matters
CHUNK_CASES = {"L1ConstrainedPA": [dict(beta=5.0)], "L2ConstrainedPA": [dict(beta=2.0)]}
#: wall-clock timings, not learned state
_TIMINGS = ("time_", "times_")
#: learners whose partial_fit call is a batch by definition (the papers' online-batch
#: setting: BCW and SBCW solve one problem per batch, SparDCA's partial_fit adds the
#: call's rows as new dual coordinates): cutting the stream otherwise is another input
BATCH_PER_CALL = {"BCW", "SBCW", "SparDCA"}


def _chunk_stream(cls, sparse):
    """200 rows x 30 features, 70% zeros, a noisy linear labelling."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 30)) * (rng.random((200, 30)) < 0.3)
    y = np.where(X @ rng.standard_normal(30) + 0.3 * rng.standard_normal(200) > 0, 1, 0)
    if positive_only(cls) or cls.__name__ in NON_NEGATIVE:
        X = np.abs(X) + 0.1 * y[:, None] * (X != 0)
    return (sp.csr_matrix(X) if sparse else X), y


def _chunk_cases():
    for cls in INCREMENTAL:
        if cls.__name__ in BATCH_PER_CALL:
            continue
        for params in [{}] + CHUNK_CASES.get(cls.__name__, []):
            for sparse in (False, True):
                yield pytest.param(cls, params, sparse, id=f"{cls.__name__}-"
                                   f"{params or 'default'}-{'csr' if sparse else 'dense'}")


@pytest.mark.parametrize("cls,params,sparse", list(_chunk_cases()))
def test_chunking_changes_no_fitted_attribute(cls, params, sparse):
    """L1ConstrainedPA's margins_ and coef_ differed in the last bits with how
    the rows were cut into partial_fit calls (the support and ||w||_1 were
    rebuilt in another order at each call), so --stream and a whole-file run
    saved different --save-record files."""
    X, y = _chunk_stream(cls, sparse)
    whole = make(cls, **params).partial_fit(X, y, classes=[0, 1])
    expected = {k: v for k, v in _fitted_attributes(whole).items()
                if not k.endswith(_TIMINGS)}
    for cuts in ([1] * 5 + [7, 13, 50], [64, 64, 64]):
        est = make(cls, **params)
        start = 0
        for size in cuts + [len(y)]:
            if start < len(y):
                est.partial_fit(X[start:start + size], y[start:start + size], classes=[0, 1])
            start += size
        got = _fitted_attributes(est)
        changed = [k for k in expected if k not in got or not _same(expected[k], got[k])]
        assert not changed, f"cut {cuts}: {changed} differ"


# -- the layout never changes a score (issue 36, item 6) ------------------------------
@pytest.mark.parametrize("cls", each("test_layout_changes_no_score"))
def test_layout_changes_no_score(cls):
    """AROW, CW, SOP, NAROW, SCW and SBCW scored one dense row, one CSR row and
    the same row inside a CSR matrix differently by 2-4e-16 (BLAS's order of
    the sums against the CSR loop's), so a tie could flip ``predict``: one
    summation order (the features in turn) for every layout. The kernel
    learners scored ``K(X, S) @ coef`` through BLAS (order set by the layout,
    the number of rows and the host): now each row as a round of fit scores
    it, the kernel row with the features in turn, then the support vectors in
    turn. int64 CSR indices and a CSR row inside a larger matrix are held to
    it too."""
    X, y = _chunk_stream(cls, sparse=False)
    est = make(cls).fit(X, y)
    Z = X[:40]
    reference = est.decision_function(Z)
    int64 = sp.csr_matrix(Z)
    int64.indices = int64.indices.astype(np.int64)
    int64.indptr = int64.indptr.astype(np.int64)
    layouts = {
        "CSR matrix": est.decision_function(sp.csr_matrix(Z)),
        "CSR matrix, int64 indices": est.decision_function(int64),
        "dense rows one by one": np.concatenate([est.decision_function(Z[i:i + 1])
                                                 for i in range(len(Z))]),
        "CSR rows one by one": np.concatenate([
            est.decision_function(sp.csr_matrix(Z[i:i + 1])) for i in range(len(Z))]),
        "Fortran-ordered": est.decision_function(np.asfortranarray(Z)),
        "inside a larger matrix": est.decision_function(np.vstack([Z, X[40:48]]))[:40],
        "inside a larger CSR matrix": est.decision_function(
            sp.csr_matrix(np.vstack([X[48:50], Z, X[40:48]])))[2:42],
    }
    for layout, scores in layouts.items():
        assert_array_equal(np.asarray(scores).ravel(), reference, err_msg=layout)


# -- Winnow scores beyond float64 (issue 36, item 8) ----------------------------------
WINNOWS = [c for c in ESTIMATORS if c.__name__ in ("BalancedWinnow", "ModifiedBalancedWinnow")]


@pytest.mark.parametrize("voted", [False, True])
@pytest.mark.parametrize("cls", WINNOWS, ids=lambda c: c.__name__)
def test_winnow_scores_beyond_float64_raise_and_predict_keeps_the_sign(cls, voted):
    """alpha=1e6, beta=1e-6, theta=1e300: decision_function returned +-inf for
    2,355 of 3,000 rows, silently."""
    from olearn.base import NonFiniteModelError

    rng = np.random.default_rng(0)
    X = rng.random((3000, 8)) * 1e300
    y = rng.integers(0, 2, 3000)
    est = cls(alpha=1e6, beta=1e-6, theta=1e300)
    est = olearn.Averaged(est) if voted else est
    est.fit(X, y)
    exact = est.learner_ if voted else est
    scores = (exact._averaged_decision(X) if voted else exact._decision(X))
    assert np.isinf(scores).any()     # the exact scores are beyond float64
    with pytest.raises(NonFiniteModelError, match="beyond float64.*predict gives"):
        est.decision_function(X)
    assert_array_equal(est.predict(X), est.classes_[(scores > 0).astype(int)])
    finite = ~np.isinf(scores)
    if finite.any():
        assert np.isfinite(est.decision_function(X[finite])).all()


def test_winnow_overflow_case_reaches_infinity():
    """The stream above does reach scores beyond float64 (so the test is not empty)."""
    rng = np.random.default_rng(0)
    X = rng.random((3000, 8)) * 1e300
    y = rng.integers(0, 2, 3000)
    for cls in WINNOWS:
        est = cls(alpha=1e6, beta=1e-6, theta=1e300).fit(X, y)
        assert np.isinf(est._decision(X)).any(), cls.__name__


# -- SparDCA's dual_coef_ after partial_fit (issue 36, not yet covered) ----------------
def test_spardca_dual_coef_is_dropped_by_any_partial_fit():
    """Decided (see SparDCA's docstring): the dual vector of fit's rows does not
    describe the problem once partial_fit adds rows, so it is removed, not kept
    stale; a fit brings it back, one entry per row."""
    X, y = data(olearn.SparDCA, n=60)
    est = make(olearn.SparDCA).fit(X[:40], y[:40])
    assert est.dual_coef_.shape == (40,)
    est.partial_fit(X[40:], y[40:])
    assert not hasattr(est, "dual_coef_")
    assert "removes it, also a valid one" in " ".join(olearn.SparDCA.__doc__.split())
    assert make(olearn.SparDCA).fit(X, y).dual_coef_.shape == (60,)
