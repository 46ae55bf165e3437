"""The running streams (olearn.datasets.running) and the practitioners' experiment."""
import numpy as np
import pandas as pd
import pytest

import olearn
from olearn.datasets import running
from olearn.experiments import practitioners as pr


@pytest.fixture(scope="module")
def streams():
    return running.running_streams()


def test_running_streams_are_defined_once_and_fixed(streams):
    assert tuple(streams) == running.NAMES == ("spambase", "usps-3-vs-5")
    spam, usps = streams["spambase"], streams["usps-3-vs-5"]
    assert (len(spam.y_train), len(spam.y_test), spam.n_features) == (3451, 1150, 57)
    assert (len(usps.y_train), len(usps.y_test), usps.n_features) == (1214, 326, 256)
    for s in streams.values():
        assert set(np.unique(s.y_train)) == set(np.unique(s.y_test)) == {-1, 1}
        norms = np.linalg.norm(s.X_train, axis=1)
        assert np.allclose(norms[norms > 0], 1.0)            # unit rows
        assert np.abs(s.X_train).max() <= 1.0
        assert not s.X_train.flags.writeable                 # shared, so read-only
    # a second call gives the same arrays (no re-drawn split or order)
    again = running.running_stream("spambase")
    assert running.fingerprint(again) == running.fingerprint(spam)


def test_split_is_stratified_and_disjoint(streams):
    X, y = olearn.datasets.load("spambase")
    y = np.where(np.asarray(y) == 1, 1, -1)
    train, test = running._spambase_split(y)
    assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == len(y)
    assert abs(np.mean(y[test] == 1) - np.mean(y == 1)) < 1e-3


def test_stream_order_is_the_runners_pairing(streams):
    s = streams["usps-3-vs-5"]
    X, y = s.stream(permutation=3)
    rows = np.random.default_rng([0, 3]).permutation(len(s.y_train))
    assert np.array_equal(X, s.X_train[rows]) and np.array_equal(y, s.y_train[rows])


def test_scaler_is_fitted_on_the_training_part_only():
    rng = np.random.default_rng(0)
    X_train, X_test = rng.normal(size=(20, 3)), 10 * rng.normal(size=(5, 3))
    A, B = running.preprocess(X_train, X_test)
    scale = np.abs(X_train).max(axis=0)
    expected = (X_test / scale) / np.linalg.norm(X_test / scale, axis=1, keepdims=True)
    assert np.allclose(B, expected)


def test_unknown_stream_names_the_choices():
    with pytest.raises(ValueError, match="usps-3-vs-5"):
        running.running_stream("mnist")


def test_every_public_learner_class_is_in_the_experiment():
    import inspect
    classes = {n for n in olearn.__all__ if inspect.isclass(getattr(olearn, n, None))}
    assert set(pr.learners()) == classes


def test_model_bytes_counts_the_model_not_the_record():
    X = np.random.default_rng(0).normal(size=(500, 7))
    y = np.sign(X[:, 0])
    model = olearn.Perceptron().fit(X, y)
    assert model.mistakes_.nbytes == 500                 # the record exists ...
    assert pr.model_bytes(model) < 500                    # ... and is not counted
    assert pr.model_bytes(model) >= 7 * 8                 # the weight vector is
    arow = olearn.AROW().fit(X, y)
    assert pr.model_bytes(arow) >= 7 * 7 * 8              # a full covariance


def test_winnow_does_not_run_on_signed_pixels(streams):
    assert pr.not_run_reason("BalancedWinnow", streams["usps-3-vs-5"])
    assert pr.not_run_reason("BalancedWinnow", streams["spambase"]) is None
    assert pr.not_run_reason("AROW", streams["usps-3-vs-5"]) is None


def _summary():
    rows = [("s", "A", 0.10, 0.050, 2.0, 1000, 1), ("s", "B", 0.12, 0.060, 0.001, 100, 1),
            ("s", "C", 0.05, 0.065, 0.5, 50, 1), ("s", "D", 0.01, 0.300, 0.0001, 10, 10)]
    table = pd.DataFrame(rows, columns=["stream", "learner", "mistake_rate", "test_error",
                                        "seconds", "model_bytes", "passes"])
    return table.set_index(["stream", "learner"])


def test_guide_picks_from_the_learners_within_the_tolerance():
    guide = pr.guide(_summary(), within=0.02).loc["s"]["learner"]
    assert guide["lowest test error"] == "A"
    assert guide["within 2 points of it, fastest"] == "B"
    assert guide["within 2 points of it, smallest"] == "C"
    assert guide["fewest online mistakes"] == "C"         # D makes ten passes: not compared
    assert guide["fastest of all"] == "D"


def test_quick_check_finds_a_changed_count(streams):
    names = {"usps-3-vs-5": ["Perceptron"]}
    now = pr.run(n_permutations=1, names=names, progress=False)
    prov = {"streams": {n: {"data_fingerprint": running.fingerprint(s)} for n, s in streams.items()},
            "learners": {"Perceptron": pr._jsonable(pr.learners()["Perceptron"])}}
    assert pr.check_quick(now, now.copy(), prov)["same"].all()
    tampered = now.copy()
    tampered.loc[0, "test_mistakes"] += 1
    assert not pr.check_quick(now, tampered, prov)["same"].any()


def test_on_running_streams_gives_the_stored_protocols_numbers(streams):
    table = pr.on_running_streams({"P": olearn.Perceptron(), "W": olearn.BalancedWinnow()})
    now = pr.run(n_permutations=1, names=["Perceptron"], progress=False).set_index("stream")
    for name in streams:
        assert table.loc["P", (name, "test %")] == pytest.approx(
            100 * now.loc[name, "test_error"])
        assert table.loc["P", (name, "online %")] == pytest.approx(
            100 * now.loc[name, "mistake_rate"])
    assert np.isnan(table.loc["W", ("usps-3-vs-5", "test %")])
    assert table.loc["W", ("spambase", "test %")] > 0


def test_sigma_is_chosen_without_the_test_set(streams):
    # issue 40: the width was picked by the error on the test set the page reports. The
    # choice now reads a validation quarter of the training part only: with every test
    # array replaced by NaN, the validation table (and so the choice) is unchanged.
    import dataclasses

    blind = {name: dataclasses.replace(s, X_test=np.full_like(s.X_test, np.nan),
                                       y_test=np.zeros_like(s.y_test))
             for name, s in streams.items()}
    table = pr.sigma_table(pr.SIGMA_CANDIDATES, streams=blind, on="validation")
    assert np.isfinite(table.to_numpy()).all()
    assert pr.choose_sigma(streams=blind) == pr.KERNEL_SIGMA
    X_fit, y_fit, X_val, y_val = pr.validation_split(streams["spambase"])
    assert len(y_val) == round(pr.VALIDATION_FRACTION * len(streams["spambase"].y_train))
    assert len(y_fit) + len(y_val) == len(streams["spambase"].y_train)
    with pytest.raises(ValueError, match="validation"):
        pr.sigma_table(on="train")


def test_every_gaussian_kernel_learner_runs_with_the_chosen_sigma():
    # issue 40: KernelAROW kept sigma = 8 while the page said every Gaussian kernel learner
    # runs with the chosen width
    for name, est in pr.learners().items():
        params = est.get_params(deep=False)
        if params.get("kernel") == "rbf":
            assert params["sigma"] == pr.KERNEL_SIGMA, name
