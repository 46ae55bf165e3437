"""The estimators as scikit-learn estimators and as online learners.

scikit-learn's estimator checks; any two labels; the online record (mistakes
and margins before each update, against pure-numpy reference loops written
here); dense and CSR input giving the same model; bad input rejected with a
plain ValueError before any compiled code runs; the PA step sizes.
"""
import importlib
import pkgutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle as sk_shuffle
from sklearn.utils.estimator_checks import (check_classifiers_train,
                                            parametrize_with_checks)

import olearn
from olearn import (PA, BalancedWinnow, ExtremalFeatureSelection, FeatureSelected,
                    Perceptron)

PA_BLOBS_REASON = (
    "plain PA (hard margin, no bias) reaches 0.79 training accuracy on the "
    "standardised blobs of this check, below its 0.83 threshold; "
    "test_plain_pa_blobs_accuracy pins this down")


def expected_failed_checks(estimator):
    if isinstance(estimator, FeatureSelected):   # all features kept: the learner's run
        estimator = estimator.learner if estimator.learner is not None else PA()
    if (isinstance(estimator, PA) and estimator.variant == "PA"
            and estimator.gamma is None):
        return {"check_classifiers_train": PA_BLOBS_REASON}
    return {}


@parametrize_with_checks(
    [Perceptron(), PA(), PA(variant="PA-I"), PA(variant="PA-II"),
     # the meta-estimators: on the checks' narrow data FeatureSelected keeps every
     # feature; EFS is tagged binary-only and positive_only (its Winnow needs x >= 0)
     FeatureSelected(), FeatureSelected(PA(variant="PA-I"), method="game"),
     ExtremalFeatureSelection(), ExtremalFeatureSelection(learner=BalancedWinnow())],
    expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def blobs_problem():
    """The binary problem of ``check_classifiers_train`` (scikit-learn 1.9)."""
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = sk_shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    return X[y != 2], y[y != 2]


def test_plain_pa_blobs_accuracy():
    """The one exempted check: plain PA scores 0.79 there, the others pass it."""
    X, y = blobs_problem()
    accuracy = PA().fit(X, y).score(X, y)
    assert 0.79 <= accuracy < 0.83
    with pytest.raises(AssertionError):
        check_classifiers_train("PA", PA())
    for est in (PA(variant="PA-I"), PA(variant="PA-II"), Perceptron()):
        assert est.fit(X, y).score(X, y) > 0.83
        check_classifiers_train(type(est).__name__, est)


# -- data and pure-numpy references ---------------------------------------------
def stream(n=300, d=8, noise=0.1, seed=0):
    """Gaussian rows labelled by a random hyperplane, some labels flipped (±1)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[rng.random(n) < noise] *= -1
    return X, y


def with_index_dtype(X, dtype):
    """CSR copy of ``X`` with index arrays of ``dtype`` (scipy would downcast)."""
    X = X.copy()
    X.indices, X.indptr = X.indices.astype(dtype), X.indptr.astype(dtype)
    return X


def sparse_stream(n=300, d=60, density=0.1, seed=1):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed,
                  data_rvs=rng.standard_normal)
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return X, y


def reference_perceptron(X, y):
    """Rosenblatt's loop: predict sign(w.x) (0 counts as -1), add y x when y w.x <= 0."""
    w = np.zeros(X.shape[1])
    mistakes, margins = [], []
    for x, label in zip(X, y):
        score = w @ x
        mistakes.append((score > 0) != (label > 0))
        margins.append(label * score)
        if label * score <= 0:
            w = w + label * x
    return w, np.array(mistakes), np.array(margins)


def reference_pa(X, y, step, epsilon=1.0):
    """PA loop with ``tau = step(loss, ||x||^2)``, loss ``max(0, epsilon - y w.x)``."""
    w = np.zeros(X.shape[1])
    mistakes, margins = [], []
    for x, label in zip(X, y):
        score = w @ x
        mistakes.append((score > 0) != (label > 0))
        margins.append(label * score)
        loss = max(0.0, epsilon - label * score)
        w = w + step(loss, x @ x) * label * x
    return w, np.array(mistakes), np.array(margins)


PA_STEPS = {
    "PA": lambda C: lambda loss, sq: loss / sq,
    "PA-I": lambda C: lambda loss, sq: min(C, loss / sq),
    "PA-II": lambda C: lambda loss, sq: loss / (sq + 1 / (2 * C)),
}

LEARNERS = [Perceptron, PA, lambda: PA(variant="PA-I", C=0.5),
            lambda: PA(variant="PA-II", C=0.5)]
LEARNER_IDS = ["Perceptron", "PA", "PA-I", "PA-II"]


def assert_same_model(a, b):
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.mistakes_, b.mistakes_)
    assert_array_equal(a.margins_, b.margins_)
    assert (a.n_rounds_, a.n_mistakes_, a.n_updates_) == (
        b.n_rounds_, b.n_mistakes_, b.n_updates_)


# -- labels ---------------------------------------------------------------------
@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
@pytest.mark.parametrize("labels", [("neg", "pos"), (0, 1), (3, 7),
                                    (False, True), (-1, 1)],
                         ids=["str", "01", "37", "bool", "pm1"])
def test_any_two_labels_give_the_pm1_model(make, labels):
    X, y_pm = stream()
    y = np.where(y_pm > 0, labels[1], labels[0])
    reference = make().fit(X, y_pm)
    model = make().fit(X, y)
    assert_array_equal(model.classes_, labels)
    assert_same_model(model, reference)
    assert_array_equal(model.decision_function(X), reference.decision_function(X))
    expected = np.where(reference.decision_function(X) > 0, labels[1], labels[0])
    assert_array_equal(model.predict(X), expected)
    assert model.predict(X).dtype == np.asarray(y).dtype


def test_list_of_string_labels():
    X, y_pm = stream()
    y = ["spam" if v > 0 else "ham" for v in y_pm]
    model = Perceptron().fit(X, y)
    assert list(model.classes_) == ["ham", "spam"]
    assert_array_equal(model.coef_, Perceptron().fit(X, y_pm).coef_)


@pytest.mark.parametrize("method", ["fit", "partial_fit", "classes"])
def test_three_classes_rejected_naming_them(method):
    X, _ = stream(n=30)
    y = np.array(["cat", "dog", "emu"] * 10)
    model = PA()
    with pytest.raises(ValueError, match="binary|two classes") as info:
        if method == "fit":
            model.fit(X, y)
        elif method == "partial_fit":
            model.partial_fit(X, y)
        else:
            model.partial_fit(X, y[y != "emu"][:1].repeat(30),
                              classes=["cat", "dog", "emu"])
    for label in ("cat", "dog", "emu"):
        assert label in str(info.value)


def test_one_class_rejected():
    X, _ = stream(n=20)
    with pytest.raises(ValueError, match="two classes.*only 1"):
        Perceptron().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="two classes.*only 1"):
        Perceptron().partial_fit(X, np.ones(20))


def test_partial_fit_with_classes_learns_from_one_label_batches():
    X, y_pm = stream()
    y = np.where(y_pm > 0, "b", "a")
    order = np.argsort(y, kind="stable")  # all "a" rows, then all "b" rows
    X, y = X[order], y[order]
    n_a = int(np.sum(y == "a"))
    model = PA(variant="PA-I").partial_fit(X[:n_a], y[:n_a], classes=["a", "b"])
    model.partial_fit(X[n_a:], y[n_a:])
    assert_same_model(model, PA(variant="PA-I").fit(X, y))


def test_partial_fit_rejects_unknown_label():
    X, y = stream()
    model = Perceptron().partial_fit(X[:10], y[:10], classes=[-1, 1])
    coef, rounds = model.coef_.copy(), model.n_rounds_
    with pytest.raises(ValueError, match="not among the classes"):
        model.partial_fit(X[10:20], np.where(y[10:20] > 0, 2, -1))
    with pytest.raises(ValueError, match="differs from the classes"):
        model.partial_fit(X[10:20], y[10:20], classes=[0, 1])
    assert_array_equal(model.coef_, coef)
    assert model.n_rounds_ == rounds


# -- the online record ----------------------------------------------------------
def test_perceptron_record_matches_reference_loop():
    X, y = stream()
    w, mistakes, margins = reference_perceptron(X, y)
    model = Perceptron().fit(X, y)
    assert_array_equal(model.mistakes_, mistakes)
    assert_allclose(model.margins_, margins, rtol=1e-12, atol=1e-12)
    assert_allclose(model.coef_[0], w, rtol=1e-12)
    assert model.n_mistakes_ == mistakes.sum() == model.mistakes_.sum()
    # The Perceptron updates on mistakes and on zero scores (the first round).
    assert model.n_updates_ == np.sum(margins <= 0)
    assert model.mistakes_.dtype == bool


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("C", [0.05, 1.0])
def test_pa_record_matches_reference_loop(variant, C):
    X, y = stream()
    w, mistakes, margins = reference_pa(X, y, PA_STEPS[variant](C))
    model = PA(C=C, variant=variant).fit(X, y)
    assert_array_equal(model.mistakes_, mistakes)
    assert_allclose(model.margins_, margins, rtol=1e-12, atol=1e-12)
    assert_allclose(model.coef_[0], w, rtol=1e-12)
    assert model.n_updates_ == np.sum(margins < 1.0)


@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
def test_partial_fit_continues_and_fit_resets(make):
    X, y = stream()
    half = 137
    whole = make().fit(X, y)
    halves = make().partial_fit(X[:half], y[:half]).partial_fit(X[half:], y[half:])
    assert_same_model(halves, whole)
    assert len(halves.mistakes_) == len(halves.margins_) == X.shape[0]
    assert halves.n_mistakes_ == halves.mistakes_.sum()

    many = make()
    for start in range(0, X.shape[0], 7):  # many small calls: the record grows
        many.partial_fit(X[start:start + 7], y[start:start + 7], classes=[-1, 1])
        assert len(many.mistakes_) == many.n_rounds_ == min(start + 7, X.shape[0])
    assert_same_model(many, whole)

    halves.fit(X[:half], y[:half])  # fit starts afresh
    assert_same_model(halves, make().fit(X[:half], y[:half]))
    assert len(halves.mistakes_) == half


@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
def test_epochs_and_shuffle(make):
    X, y = stream(n=100)
    model = make().set_params(n_epochs=3).fit(X, y)
    assert model.n_rounds_ == len(model.mistakes_) == 300
    passes = make().fit(X, y).partial_fit(X, y).partial_fit(X, y)
    assert_same_model(model, passes)

    shuffled = make().set_params(shuffle=True, random_state=3).fit(X, y)
    again = make().set_params(shuffle=True, random_state=3).fit(X, y)
    other = make().set_params(shuffle=True, random_state=4).fit(X, y)
    assert_same_model(shuffled, again)
    assert not np.array_equal(shuffled.margins_, make().fit(X, y).margins_)
    assert not np.array_equal(shuffled.margins_, other.margins_)

    rng = np.random.RandomState(5)
    epochs = make().set_params(n_epochs=2, shuffle=True, random_state=rng).fit(X, y)
    assert epochs.n_rounds_ == 200
    first, second = epochs.margins_[:100], epochs.margins_[100:]
    assert not np.array_equal(first, second)  # a fresh permutation per pass


# -- dense and sparse -----------------------------------------------------------
@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
def test_csr_gives_the_dense_model(make):
    X, y = sparse_stream()
    dense = make().fit(X.toarray(), y)
    assert dense.n_updates_ > 10
    for index_dtype in (np.int32, np.int64):
        csr = with_index_dtype(X, index_dtype)
        assert csr.indices.dtype == csr.indptr.dtype == index_dtype
        assert_same_model(make().fit(csr, y), dense)
    for converted in (X.tocsc(), X.tocoo(), sp.csr_array(X)):
        assert_same_model(make().fit(converted, y), dense)
    model = make().fit(X, y)
    # same model; the two matrix products may round differently
    assert_allclose(model.decision_function(X), dense.decision_function(X.toarray()),
                    rtol=1e-12, atol=1e-12)
    assert_array_equal(model.predict(X.tocsc()), dense.predict(X.toarray()))


def test_int64_indices_reach_the_compiled_loop_as_int32(monkeypatch):
    """The int64 case above runs the CSR loop of 32-bit indices (one specialisation
    a loop: :func:`olearn.base.narrow_index_width`), on a copy of the indices."""
    X, y = sparse_stream()
    X64 = with_index_dtype(X, np.int64)
    seen = []
    learn = Perceptron._learn
    monkeypatch.setattr(Perceptron, "_learn", lambda self, rows, *a: seen.append(
        (rows[1].dtype, rows[2].dtype)) or learn(self, rows, *a))
    Perceptron().fit(X64, y)
    assert seen == [(np.dtype(np.int32), np.dtype(np.int32))]
    assert X64.indices.dtype == X64.indptr.dtype == np.int64   # the caller's matrix untouched


@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
def test_unsorted_and_duplicate_csr_entries(make):
    X, y = sparse_stream()
    dense = make().fit(X.toarray(), y)

    # each row's entries in reverse column order
    data, indices = X.data.copy(), X.indices.copy()
    for i in range(X.shape[0]):
        row = slice(X.indptr[i], X.indptr[i + 1])
        data[row], indices[row] = data[row][::-1], indices[row][::-1]
    unsorted = sp.csr_matrix((data, indices, X.indptr.copy()), shape=X.shape)
    assert not unsorted.has_sorted_indices
    assert_same_model(make().fit(unsorted, y), dense)

    # every entry split in two stored entries of the same column, to be summed
    counts = np.diff(X.indptr)
    parts = 0.25 * X.data
    dup_data = np.column_stack([X.data - parts, parts]).ravel()
    dup_indices = np.repeat(X.indices, 2)
    dup_indptr = np.concatenate([[0], np.cumsum(2 * counts)])
    duplicated = sp.csr_matrix((dup_data, dup_indices, dup_indptr), shape=X.shape)
    assert duplicated.nnz == 2 * X.nnz
    summed = duplicated.toarray()
    assert_allclose(summed, X.toarray(), rtol=1e-15)
    stored = duplicated.data.copy()
    model = make().fit(duplicated, y)
    assert_same_model(model, make().fit(summed, y))
    assert_allclose(model.decision_function(duplicated),
                    make().fit(summed, y).decision_function(summed),
                    rtol=1e-12, atol=1e-12)
    assert_array_equal(duplicated.data, stored)  # the caller's matrix is untouched
    assert duplicated.nnz == 2 * X.nnz


def test_csr_path_does_not_densify():
    """2,000 x 5,000,000 with 10 nonzeros a row: a dense copy would need 80 GB."""
    n, d, k = 2_000, 5_000_000, 10
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.standard_normal(n * k), rng.integers(0, d, n * k),
                       np.arange(0, n * k + 1, k)), shape=(n, d))
    X.sum_duplicates()
    y = np.where(rng.random(n) < 0.5, 1, -1)
    tracemalloc.start()
    try:
        model = PA(variant="PA-I").fit(X, y)
        scores = model.decision_function(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.n_rounds_ == n and scores.shape == (n,)
    weight_bytes = 8 * d
    assert peak < 4 * weight_bytes  # the weights, a scaled copy, small change


# -- bad input --------------------------------------------------------------------
def _nan(X):
    X = X.copy()
    X[3, 2] = np.nan
    return X


def _inf(X):
    X = X.copy()
    X[3, 2] = np.inf
    return X


X_OK, Y_OK = stream(n=20, d=5)
FIT_ERRORS = {  # name: (X, y, fragment of the message)
    "nan": (_nan(X_OK), Y_OK, "NaN"),
    "inf": (_inf(X_OK), Y_OK, "infinity"),
    "nan-csr": (sp.csr_matrix(_nan(X_OK)), Y_OK, "NaN"),
    "inf-csr": (sp.csr_matrix(_inf(X_OK)), Y_OK, "infinity"),
    "empty": (np.zeros((0, 5)), np.zeros(0), "0 sample"),
    "no-features": (np.zeros((20, 0)), Y_OK, "0 feature"),
    "strings": (np.array([["a", "b"]] * 20), Y_OK, "could not convert string"),
    "none-objects": (np.array([[None, 1.0]] * 20, dtype=object), Y_OK, "NaN"),
    "lengths": (X_OK, Y_OK[:-1], "inconsistent numbers of samples"),
    "3-D": (X_OK.reshape(20, 5, 1), Y_OK, "dim 3"),
    "1-D": (X_OK[:, 0], Y_OK, "Expected 2D array"),
    "continuous-y": (X_OK, np.linspace(0, 1, 20), "Unknown label type: continuous"),
    "nan-y": (X_OK, np.where(Y_OK > 0, 1.0, np.nan), "NaN"),
    "2-D-y": (X_OK, np.column_stack([Y_OK, Y_OK]), "1d array"),
}
#: faults in the values of X, which the linear learners' passes test on each
#: row before using it (``_values_checked_in_pass``), instead of a scan before
VALUE_ERRORS = ("nan", "inf", "nan-csr", "inf-csr", "none-objects")
BAD_PARAMS = {
    "C=0": (PA(C=0), "C must be a finite number > 0"),
    "C<0": (PA(C=-1.0, variant="PA-I"), "C must be a finite number > 0"),
    "C=nan": (PA(C=np.nan, variant="PA-II"), "C must be a finite number > 0"),
    "C=inf": (PA(C=np.inf, variant="PA-I"), "C must be a finite number > 0"),
    "C=str": (PA(C="1", variant="PA-I"), "C must be a finite number > 0"),
    "variant": (PA(variant="PA-III"), "variant must be one of"),
    "epsilon<0": (PA(epsilon=-0.1), "epsilon must be a finite number > 0"),
    "gamma<0": (PA(gamma=-1.0), "gamma must be a finite number >= 0"),
    "gamma+PA-I": (PA(variant="PA-I", gamma=0.5), "gamma is the relaxation of plain PA"),
    "n_epochs=0": (Perceptron(n_epochs=0), "n_epochs must be a positive integer"),
    "n_epochs=1.5": (PA(n_epochs=1.5), "n_epochs must be a positive integer"),
    "n_epochs=True": (PA(n_epochs=True), "n_epochs must be a positive integer"),
}


@pytest.fixture
def no_compiled_code(monkeypatch):
    """Make reaching a learner's compiled pass an error (not a ValueError)."""
    def reached(self, *args):
        raise AssertionError("compiled code ran on invalid input")
    for cls in (Perceptron, PA):
        monkeypatch.setattr(cls, "_learn", reached)


@pytest.mark.parametrize("make", [Perceptron, lambda: PA(variant="PA-I")],
                         ids=["Perceptron", "PA-I"])
@pytest.mark.parametrize("case", [c for c in FIT_ERRORS if c not in VALUE_ERRORS])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_bad_input_raises_before_compiled_code(make, case, method, no_compiled_code):
    X, y, fragment = FIT_ERRORS[case]
    with pytest.raises(ValueError, match=fragment):
        if method == "fit":
            make().fit(X, y)
        else:
            make().partial_fit(X, y, classes=[-1, 1])



@pytest.mark.parametrize("make", [Perceptron, lambda: PA(variant="PA-I")],
                         ids=["Perceptron", "PA-I"])
@pytest.mark.parametrize("case", VALUE_ERRORS)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_bad_values_are_refused_by_the_pass(make, case, method, monkeypatch):
    """The same error as the up-front check, the pass stops at the faulty row
    (it returns ``-1 - t``), and the estimator is left as before the call."""
    X, y, fragment = FIT_ERRORS[case]
    model = make()
    assert model._values_checked_in_pass
    returned = []
    learn = type(model)._learn
    monkeypatch.setattr(type(model), "_learn",
                        lambda *a: returned.append(learn(*a)) or returned[-1])
    before = dict(model.__dict__)
    with pytest.raises(ValueError, match=fragment):
        if method == "fit":
            model.fit(X, y)
        else:
            model.partial_fit(X, y, classes=[-1, 1])
    bad_rows = np.flatnonzero(~np.isfinite(np.asarray(
        X.toarray() if sp.issparse(X) else X, dtype=float)).all(axis=1))
    assert returned == [-1 - bad_rows[0]]
    assert model.__dict__.keys() == before.keys()   # not fitted


@pytest.mark.parametrize("case", BAD_PARAMS)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_bad_params_raise_before_compiled_code(case, method, no_compiled_code):
    model, fragment = BAD_PARAMS[case]
    with pytest.raises(ValueError, match=fragment):
        getattr(model, method)(X_OK, Y_OK)


@pytest.mark.parametrize("make", [Perceptron, lambda: PA(variant="PA-II")],
                         ids=["Perceptron", "PA-II"])
def test_bad_input_to_a_fitted_model(make, monkeypatch):
    X, y = stream(n=40, d=5)
    model = make().fit(X, y)
    coef, rounds = model.coef_.copy(), model.n_rounds_
    monkeypatch.setattr(type(model), "_learn",
                        lambda *a: pytest.fail("compiled code ran on invalid input"))
    with pytest.raises(ValueError, match="X has 4 features, but .* expecting 5"):
        model.partial_fit(X[:, :4], y)
    for method in (model.predict, model.decision_function):
        with pytest.raises(ValueError, match="X has 6 features, but .* expecting 5"):
            method(np.hstack([X, X[:, :1]]))
        with pytest.raises(ValueError, match="X has 4 features"):
            method(sp.csr_matrix(X[:, :4]))
        with pytest.raises(ValueError, match="infinity"):
            method(_inf(X))
        with pytest.raises(ValueError, match="0 sample"):
            method(np.zeros((0, 5)))
    assert_array_equal(model.coef_, coef)
    assert model.n_rounds_ == rounds
    monkeypatch.undo()   # values are checked by the pass, which stops at the row
    state = {k: (v.copy() if isinstance(v, np.ndarray) else v)
             for k, v in model.__dict__.items()}
    for call in (model.partial_fit, model.fit):
        with pytest.raises(ValueError, match="NaN"):
            call(_nan(X), y)
        assert model.__dict__.keys() == state.keys()
        for key, value in state.items():   # the buffers are scratch past n_rounds_
            if not key.endswith("_buffer"):
                assert_array_equal(model.__dict__[key], value, err_msg=key)


# -- other input forms ------------------------------------------------------------
@pytest.mark.parametrize("make", LEARNERS, ids=LEARNER_IDS)
def test_float32_list_and_dataframe_input(make):
    X, y = stream()
    X32 = X.astype(np.float32)
    reference = make().fit(X32.astype(np.float64), y)
    assert_same_model(make().fit(X32, y), reference)
    assert_same_model(make().fit(sp.csr_matrix(X32), y), reference)
    assert_same_model(make().fit(X32.tolist(), y.tolist()), reference)

    frame = pd.DataFrame(X32.astype(np.float64), columns=[f"f{j}" for j in range(X.shape[1])])
    model = make().fit(frame, pd.Series(y))
    assert_same_model(model, reference)
    assert list(model.feature_names_in_) == list(frame.columns)
    assert_array_equal(model.predict(frame), reference.predict(X32))


# -- PA step sizes: gamma (Carvalho and Cohen) and epsilon ------------------------
@pytest.mark.parametrize("gamma", [0.0, 0.3, 4.0])
def test_pa_gamma_matches_reference(gamma):
    X, y = stream()
    w, mistakes, margins = reference_pa(X, y, lambda loss, sq: loss / (sq + gamma))
    model = PA(gamma=gamma).fit(X, y)
    assert_array_equal(model.mistakes_, mistakes)
    assert_allclose(model.margins_, margins, rtol=1e-12, atol=1e-12)
    assert_allclose(model.coef_[0], w, rtol=1e-12)


@pytest.mark.parametrize("C", [0.01, 0.7, 10.0])
def test_pa_gamma_half_inverse_C_is_pa2(C):
    X, y = stream()
    assert_same_model(PA(gamma=1 / (2 * C)).fit(X, y),
                      PA(C=C, variant="PA-II").fit(X, y))
    assert_same_model(PA(gamma=0.0).fit(X, y), PA().fit(X, y))


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("epsilon", [0.25, 3.0])   # 0 is refused (test_hardening)
def test_pa_epsilon_enters_the_loss(variant, epsilon):
    X, y = stream()
    C = 0.2
    w, mistakes, margins = reference_pa(X, y, PA_STEPS[variant](C), epsilon)
    model = PA(C=C, variant=variant, epsilon=epsilon).fit(X, y)
    assert_array_equal(model.mistakes_, mistakes)
    assert_allclose(model.margins_, margins, rtol=1e-12, atol=1e-12)
    assert_allclose(model.coef_[0], w, rtol=1e-12)
    assert model.n_updates_ == np.sum(margins < epsilon)


def test_zero_row_leaves_pa_unchanged():
    X, y = stream(n=50)
    X[20] = 0.0
    for variant in ("PA", "PA-I", "PA-II"):
        model = PA(variant=variant).fit(X, y)
        before = PA(variant=variant).fit(X[:20], y[:20])
        after = PA(variant=variant).fit(X[:21], y[:21])
        assert_array_equal(before.coef_, after.coef_)
        assert np.all(np.isfinite(model.coef_))


# -- numba ------------------------------------------------------------------------
def test_compiled_functions_are_cached_on_disk():
    from numba.core.dispatcher import Dispatcher
    dispatchers = {}
    for info in pkgutil.walk_packages(olearn.__path__, "olearn."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.__module__ == info.name:
                dispatchers[f"{info.name}.{name}"] = obj
    for required in ("olearn.linear.perceptron.perceptron_pass", "olearn.linear.pa.pa_pass",
                     "olearn.linear.core.predict_round", "olearn.linear.core.scale_add"):
        assert required in dispatchers
    # inline="always" functions are compiled into their (cached) callers, never on their own
    uncached = [name for name, f in dispatchers.items()
                if type(f._cache).__name__ == "NullCache"
                and f.targetoptions.get("inline") != "always"]
    assert not uncached, f"@njit without cache=True: {uncached}"
