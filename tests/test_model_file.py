"""olearn.cli._model: model files that load without running code (issue 37, item 7).

Every learner of the command line is saved and loaded back: the copy scores
and goes on learning bit for bit as the original; a pickle (one that would
run code when loaded), a foreign archive, an object array and a model of
another format or version are refused with a clear error.
"""
import io
import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli._learners import learner_names, make_learner
from olearn.cli._model import ModelFileError, load_model, save_model


def rows(n=300, d=12, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.5, format="csr", random_state=seed) * 2.0  # x >= 0: Winnows
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    return sp.csr_matrix(X), y


def roundtrip(est, tmp_path, reading=None):
    path = tmp_path / "model.npz"
    with open(path, "wb") as f:
        save_model(f, est, reading)
    return load_model(path)


@pytest.mark.parametrize("name", learner_names())
def test_every_learner_roundtrips(name, tmp_path):
    X, y = rows()
    est = make_learner(name, {})
    if hasattr(est, "partial_fit"):
        est.partial_fit(X[:200], y[:200], classes=[-1.0, 1.0])
    else:
        est.fit(X[:200], y[:200])
    copy, reading = roundtrip(est, tmp_path, {"shift": 1})
    assert type(copy) is type(est) and reading == {"shift": 1}
    np.testing.assert_array_equal(copy.decision_function(X), est.decision_function(X))
    np.testing.assert_array_equal(copy.predict(X), est.predict(X))
    if hasattr(est, "partial_fit"):   # and it learns on as the original does
        est.partial_fit(X[200:], y[200:])
        copy.partial_fit(X[200:], y[200:])
        np.testing.assert_array_equal(copy.decision_function(X), est.decision_function(X))
        assert getattr(copy, "n_updates_", None) == getattr(est, "n_updates_", None)


def test_a_crafted_pickle_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(Exploit()))
    with pytest.raises(ModelFileError, match="is a pickle.*runs any code"):
        load_model(path)
    assert not marker.exists()
    # the same in a .npy and inside an archive (an object array)
    np.save(tmp_path / "obj.npy", np.array([Exploit()], dtype=object), allow_pickle=True)
    with pytest.raises(ModelFileError, match="pickle"):
        load_model(tmp_path / "obj.npy")
    np.savez(tmp_path / "obj.npz", model=np.array([Exploit()], dtype=object))
    with pytest.raises(ModelFileError, match="pickle|not an olearn model"):
        load_model(tmp_path / "obj.npz")
    assert not marker.exists()


def test_foreign_files_and_other_versions_are_refused(tmp_path):
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ModelFileError, match="cannot be read"):
        load_model(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", w=np.zeros(3))
    with pytest.raises(ModelFileError, match="not an olearn model file"):
        load_model(tmp_path / "other.npz")
    est = olearn.Perceptron().partial_fit(*rows(), classes=[-1.0, 1.0])
    buffer = io.BytesIO()
    save_model(buffer, est)
    with np.load(io.BytesIO(buffer.getvalue())) as archive:
        arrays = dict(archive)
    header = json.loads(arrays["model"].tobytes())
    for key, value, message in [("format_version", 99, "format version 99"),
                                ("olearn_version", "0.0.0", "written by olearn 0.0.0")]:
        changed = dict(header, **{key: value})
        np.savez(tmp_path / "m.npz", **dict(arrays, model=np.frombuffer(
            json.dumps(changed).encode(), np.uint8)))
        with pytest.raises(ModelFileError, match=message):
            load_model(tmp_path / "m.npz")
    changed = json.loads(json.dumps(header))
    changed["estimator"]["__estimator__"] = "os"
    np.savez(tmp_path / "m.npz", **dict(arrays, model=np.frombuffer(
        json.dumps(changed).encode(), np.uint8)))
    with pytest.raises(ModelFileError, match="not an olearn estimator"):
        load_model(tmp_path / "m.npz")


def test_an_attribute_only_pickle_stores_is_refused_at_saving():
    est = olearn.Perceptron().partial_fit(*rows(), classes=[-1.0, 1.0])
    est.extra_ = object()
    with pytest.raises(ModelFileError, match="extra_ is a object.*pickle from Python"):
        save_model(io.BytesIO(), est)


# --- olearn predict ------------------------------------------------------------------
def _svm(tmp_path, X, y, name="data.svm"):
    from sklearn.datasets import dump_svmlight_file
    path = tmp_path / name
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def test_predict_gives_the_model_labels_and_scores(tmp_path, capsys):
    from sklearn.datasets import load_svmlight_file

    from olearn.cli import main
    X, y = rows(2000, 30)
    train, test = _svm(tmp_path, X[:1500], y[:1500]), _svm(tmp_path, X[1500:], y[1500:],
                                                          "test.svm")
    model = tmp_path / "model.npz"
    out = io.StringIO()
    assert main(["train", str(train), "--learner", "AROW", "--param", "covariance=diag",
                 "--save-model", str(model), "--quiet"], out) == 0
    est, reading = load_model(model)
    assert reading["shift"] == 1 and reading["format"] == "libsvm"
    Xt, _ = load_svmlight_file(str(test), n_features=est.n_features_in_)
    labels, scores = tmp_path / "labels.txt", io.StringIO()
    assert main(["predict", str(model), str(test), "--output", str(labels)], out) == 0
    assert main(["predict", str(model), str(test), "--scores"], scores) == 0
    np.testing.assert_array_equal(np.array(labels.read_text().split(), float),
                                  est.predict(Xt))
    written = np.array([float(s) for s in scores.getvalue().split()])
    np.testing.assert_array_equal(written.view(np.int64),
                                  est.decision_function(Xt).view(np.int64))


def test_predict_refuses_a_pickle_and_a_wider_file(tmp_path, capsys):
    from olearn.cli import main
    X, y = rows(400, 10)
    train = _svm(tmp_path, X, y)
    wide = tmp_path / "wide.svm"
    wide.write_text("1 3:1 11:2\n")
    crafted = tmp_path / "model.pkl"
    crafted.write_bytes(pickle.dumps({"coef_": [1.0]}))
    out = io.StringIO()
    assert main(["predict", str(crafted), str(train)], out) == 2
    assert "is a pickle" in capsys.readouterr().err
    model = tmp_path / "model.npz"
    assert main(["train", str(train), "--save-model", str(model), "--quiet"], out) == 0
    output = tmp_path / "out.txt"
    assert main(["predict", str(model), str(wide), "--output", str(output)], out) == 2
    err = capsys.readouterr().err
    assert err.startswith("olearn: error:") and "feature 11" in err and "10 features" in err
    assert not output.exists()
