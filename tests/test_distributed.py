"""Iterative parameter mixing on a Dask LocalCluster (issue 38, section 4).

Two single-threaded worker processes on 127.0.0.1 (no network beyond loopback); small
streams (the machine is shared).  The serial reference below is written from the
paper's Figure 3 with the learners' public ``partial_fit``; only putting a mixed
vector back into a learner uses olearn's ``set_model``.
"""
import copy
import io
import os
import pickle
import signal
import threading

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from distributed import Client, LocalCluster, get_task_stream

from olearn import AROW, PA, Averaged, BalancedWinnow, KernelPerceptron, Perceptron
from olearn.distributed import IterativeParameterMixing as IPM
from olearn.distributed import SchedulerUnreachableError, UnmixableLearnerError, set_model


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster:
        with Client(cluster) as c:   # the default client: estimators without client=
            yield c


def stream(n=600, d=20, seed=0, sparse=True):
    rng = np.random.default_rng(seed)
    X = (sp.random(n, d, density=0.3, random_state=seed, format="csr") if sparse
         else rng.standard_normal((n, d)))
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    return X, y


def split(X, y, S):
    cuts = np.linspace(0, X.shape[0], S + 1).astype(int)
    return ([X[a:b] for a, b in zip(cuts[:-1], cuts[1:])],
            [y[a:b] for a, b in zip(cuts[:-1], cuts[1:])])


def serial_ipm(learner, Xs, ys, n_epochs, mixing):
    """McDonald et al.'s Figure 3, serially: each shard one pass from the mix, then mix."""
    classes = np.unique(np.concatenate(ys))
    current = copy.deepcopy(learner).set_params(record="counts")
    for epoch in range(n_epochs):
        outs = []
        for X, y in zip(Xs, ys):
            a = copy.deepcopy(current)
            before = 0 if epoch == 0 else a.n_mistakes_
            a.partial_fit(X, y, classes=classes) if epoch == 0 else a.partial_fit(X, y)
            outs.append((a, a.n_mistakes_ - before))
        m = np.array([k for _, k in outs], float)
        mu = m / m.sum() if mixing == "mistakes" and m.sum() else np.full(len(outs),
                                                                          1 / len(outs))
        if mixing == "confidence":   # diagonal Gaussians: precisions averaged
            prec = mu[0] / outs[0][0].covariance_
            wsum = mu[0] * outs[0][0].coef_.ravel() / outs[0][0].covariance_
            for k in range(1, len(outs)):
                prec = prec + mu[k] / outs[k][0].covariance_
                wsum = wsum + mu[k] * outs[k][0].coef_.ravel() / outs[k][0].covariance_
            model = ("gaussian", (1 / prec) * wsum, 1 / prec)
        else:
            w = mu[0] * outs[0][0].coef_.ravel()
            for k in range(1, len(outs)):
                w = w + mu[k] * outs[k][0].coef_.ravel()
            if hasattr(outs[0][0], "covariance_"):
                s = mu[0] * outs[0][0].covariance_
                for k in range(1, len(outs)):
                    s = s + mu[k] * outs[k][0].covariance_
                model = ("gaussian", w, s)
            else:
                model = ("linear", w)
        current = outs[0][0] if len(outs) == 1 else set_model(outs[0][0], model)
    return current


@pytest.mark.parametrize("learner", [Perceptron(), PA(C=0.5, variant="PA-I"),
                                     AROW(r=0.5, covariance="diag")],
                         ids=["Perceptron", "PA-I", "AROW-diag"])
def test_one_shard_equals_fit_bit_for_bit(client, learner):
    X, y = stream()
    ipm = IPM(learner, n_epochs=3).fit([X], [y])
    ref = clone_with(learner, n_epochs=3).fit(X, y)
    assert np.array_equal(ipm.coef_, ref.coef_)
    assert ipm.n_mistakes_.sum() == ref.n_mistakes_
    assert ipm.n_mistakes_.shape == (3, 1)
    assert np.array_equal(ipm.decision_function(X), ref.decision_function(X))
    # one matrix, cut into n_shards=1: the same
    assert np.array_equal(IPM(learner, n_epochs=3).fit(X, y).coef_, ref.coef_)


def clone_with(learner, **params):
    return copy.deepcopy(learner).set_params(**params)


@pytest.mark.parametrize("learner,mixing", [
    (Perceptron(), "uniform"), (Perceptron(), "mistakes"),
    (PA(variant="PA-II"), "mistakes"), (AROW(covariance="diag"), "confidence"),
    (AROW(covariance="diag"), "uniform")])
def test_shards_equal_the_serial_reference(client, learner, mixing):
    X, y = stream(seed=1)
    Xs, ys = split(X, y, 3)
    ipm = IPM(learner, n_epochs=3, mixing=mixing).fit(Xs, ys)
    ref = serial_ipm(learner, Xs, ys, 3, mixing)
    assert np.array_equal(ipm.coef_, ref.coef_)
    if hasattr(ref, "covariance_"):
        assert np.array_equal(ipm.learner_.covariance_, ref.covariance_)
    assert ipm.n_mistakes_.shape == (3, 3)
    assert ipm.learner_.n_mistakes_ == ipm.n_mistakes_.sum()
    # the mix is not the serial learner: S shards differ from one (the test can fail)
    assert not np.array_equal(ipm.coef_, clone_with(learner, n_epochs=3).fit(X, y).coef_)


def test_result_does_not_depend_on_where_shards_ran(client):
    X, y = stream(seed=2)
    Xs, ys = split(X, y, 4)
    a = IPM(Perceptron(), n_epochs=2, mixing="mistakes").fit(Xs, ys)
    # other placement: reversed worker order through a fresh client on the same cluster
    with Client(client.scheduler.address, set_as_default=False) as other:
        b = IPM(Perceptron(), n_epochs=2, mixing="mistakes", client=other).fit(Xs, ys)
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.n_mistakes_, b.n_mistakes_)


def test_partial_fit_is_one_more_epoch(client):
    X, y = stream(seed=3)
    Xs, ys = split(X, y, 2)
    two = IPM(Perceptron(), n_epochs=2).fit(Xs, ys)
    step = IPM(Perceptron(), n_epochs=1).fit(Xs, ys).partial_fit(Xs, ys)
    assert np.array_equal(two.coef_, step.coef_)
    assert np.array_equal(two.n_mistakes_, step.n_mistakes_)


def test_files_and_dask_arrays_are_shards(client, tmp_path):
    from sklearn.datasets import dump_svmlight_file
    import dask.array as da
    X, y = stream(seed=4)
    Xs, ys = split(X, y, 2)
    paths = []
    for k, (a, b) in enumerate(zip(Xs, ys)):
        paths.append(tmp_path / f"shard-{k}.svm")
        dump_svmlight_file(a, b, str(paths[-1]), zero_based=False)
    from olearn.datasets import read_libsvm
    read = [read_libsvm(p, n_features=X.shape[1]) for p in paths]  # %.16g in the files
    ref = IPM(Perceptron(), n_epochs=2).fit([r[0] for r in read], [r[1] for r in read])
    from_files = IPM(Perceptron(), n_epochs=2, n_features=X.shape[1]).fit(
        [str(p) for p in paths])
    assert np.array_equal(from_files.coef_, ref.coef_)
    csv = []
    for k, (a, b) in enumerate(zip(Xs, ys)):
        csv.append(tmp_path / f"shard-{k}.csv")
        np.savetxt(csv[-1], np.column_stack([b, a.toarray()]), delimiter=",",
                   fmt="%.17g")
    assert np.array_equal(IPM(Perceptron(), n_epochs=2).fit(csv).coef_,
                          IPM(Perceptron(), n_epochs=2).fit(Xs, ys).coef_)
    dense = X.toarray()
    dX = da.from_array(dense, chunks=(X.shape[0] // 2, 7))   # row blocks; columns rechunked
    dy = da.from_array(y, chunks=X.shape[0] // 2)
    from_dask = IPM(Perceptron(), n_epochs=2).fit(dX, dy)
    assert np.array_equal(from_dask.coef_, IPM(Perceptron(), n_epochs=2).fit(
        [d.toarray() for d in Xs], ys).coef_)


def frame_stream(seed, cuts=(0, 150, 380, 600)):
    """A stream as pandas chunks of unequal lengths (an int and a float column set) and
    the dask dataframe whose partitions are these chunks (lengths and divisions unknown
    to dask)."""
    import dask.dataframe as dd
    X, y = stream(seed=seed, sparse=False)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    df["f3"] = np.round(4 * df["f3"]).astype(np.int64)       # a column of integers
    df.insert(5, "label", y)                                  # the label among them
    chunks = [df.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ddf = dd.from_map(lambda k: chunks[k], range(len(chunks)), divisions=None)
    return ddf, chunks


def test_dask_dataframe_partitions_are_shards(client):
    ddf, chunks = frame_stream(seed=11)
    assert ddf.npartitions == 3 and not ddf.known_divisions
    dense = [np.asarray(c.drop(columns="label"), dtype=np.float64) for c in chunks]
    labels = [c["label"].to_numpy() for c in chunks]
    ref = IPM(Perceptron(), n_epochs=2, mixing="mistakes").fit(dense, labels)
    by_name = IPM(Perceptron(), n_epochs=2, mixing="mistakes").fit(ddf, y="label")
    by_series = IPM(Perceptron(), n_epochs=2, mixing="mistakes").fit(
        ddf.drop(columns="label"), ddf["label"])
    for est in (by_name, by_series):
        assert np.array_equal(est.coef_, ref.coef_)
        assert np.array_equal(est.n_mistakes_, ref.n_mistakes_)
        assert est.n_mistakes_.shape == (2, 3) and est.n_features_in_ == 20
    # the order of the partitions is the order of the shards (the test can fail)
    other = IPM(Perceptron(), n_epochs=2, mixing="mistakes").fit(dense[::-1], labels[::-1])
    assert not np.array_equal(other.coef_, ref.coef_)


@pytest.mark.parametrize("case", ["non-numeric", "no-label", "labels", "empty",
                                  "partitions"])
def test_dask_dataframe_bad_input_is_refused_before_training(client, case):
    ddf, _ = frame_stream(seed=12)
    y = "label"
    if case == "non-numeric":
        ddf = ddf.assign(colour="red")
        match = r"non-numeric columns: colour .*encode them as numbers"
    elif case == "no-label":
        y, match = "target", r"y='target' is not a column .*pass the name of the label"
    elif case == "labels":
        ddf = ddf.assign(label=ddf["label"].where(ddf["f0"] < 1.5, 0))
        match = "two classes, but the shards hold 3 classes"
    elif case == "empty":
        ddf = ddf.map_partitions(lambda d: d[d.index >= 150])   # partition 0 empties
        match = r"partition 0 of the dask dataframe is empty .*X.partitions\[keep\]"
    else:
        y = ddf["label"].repartition(npartitions=2)
        ddf = ddf.drop(columns="label")
        match = "y has 2 partitions but the dask dataframe X has 3"
    with get_task_stream(client) as tasks:
        with pytest.raises(ValueError, match=match):
            IPM(Perceptron()).fit(ddf, y)
    assert _no_epoch_ran(tasks)
    if case == "empty":   # the fix the message names works
        keep = [k for k, n in enumerate(ddf.map_partitions(len).compute()) if n]
        assert IPM(Perceptron()).fit(ddf.partitions[keep], y).n_mistakes_.shape == (1, 2)


def test_progress_one_line_per_epoch(client):
    X, y = stream(seed=5)
    lines = []
    IPM(Perceptron(), n_epochs=3, progress=lines.append).fit(*split(X, y, 2))
    assert len(lines) == 3
    assert lines[1].startswith("epoch 2/3: mistakes per shard [")
    assert "weights [0.500, 0.500]" in lines[0] and "communication" in lines[0]


def test_pickled_estimator_predicts_the_same(client):
    X, y = stream(seed=6)
    ipm = IPM(AROW(covariance="diag"), n_epochs=2, mixing="confidence",
              client=client).fit(*split(X, y, 2))
    back = pickle.loads(pickle.dumps(ipm))
    assert back.client is None
    assert np.array_equal(back.decision_function(X), ipm.decision_function(X))
    assert np.array_equal(back.n_mistakes_, ipm.n_mistakes_)


def _no_epoch_ran(tasks):
    return not any("_epoch" in entry["key"] for entry in tasks.data)


@pytest.mark.parametrize("case", ["width", "empty", "labels", "y-list", "kernel",
                                  "winnow", "averaged", "confidence-linear",
                                  "learner-epochs", "shuffle"])
def test_bad_input_is_refused_before_training(client, case):
    X, y = stream(seed=7)
    Xs, ys = split(X, y, 2)
    learner, match = Perceptron(), None
    if case == "width":
        Xs[1] = sp.hstack([Xs[1], sp.csr_matrix((Xs[1].shape[0], 1))]).tocsr()
        match = "shard 1 has 21 features but shard 0 has 20"
    elif case == "empty":
        Xs[1], ys[1] = Xs[1][:0], ys[1][:0]
        match = "shard 1 is empty"
    elif case == "labels":
        ys[1] = ys[1].copy()
        ys[1][0] = 7
        match = "two classes, but the shards hold 3 classes"
    elif case == "y-list":
        ys = ys[0]
        match = "y must be a list of as many label vectors"
    elif case == "kernel":
        learner, match = KernelPerceptron(), ("refuses kernel learners .*Use a "
                                              "mixable learner: .*Perceptron")
    elif case == "winnow":
        learner, match = BalancedWinnow(), "multiplicative"
    elif case == "averaged":
        learner, match = Averaged(Perceptron()), "cannot mix Averaged"
    elif case == "confidence-linear":
        match = "mixing='confidence' combines Gaussians"
    elif case == "learner-epochs":
        learner, match = Perceptron(n_epochs=2), "set the learner's n_epochs=1"
    elif case == "shuffle":
        learner, match = Perceptron(shuffle=True), "set shuffle=False"
    mixing = "confidence" if case == "confidence-linear" else "uniform"
    with get_task_stream(client) as tasks:
        with pytest.raises(ValueError, match=match):
            IPM(learner, n_epochs=2, mixing=mixing).fit(Xs, ys)
    assert _no_epoch_ran(tasks)
    if case in ("kernel", "winnow", "averaged"):
        with pytest.raises(UnmixableLearnerError):
            IPM(learner).fit(Xs, ys)


def test_the_refusal_names_exactly_the_learners_that_are_accepted():
    """The learners the refusal message names are those check_mixable accepts: every
    public olearn learner constructible without arguments is named if and only if it is
    accepted, by the family the message gives it (a hand-kept list drifted once:
    L2ConstrainedPA and ObjectiveRegularizedPA were accepted but not named)."""
    import re

    import olearn
    from olearn.distributed import _mixing

    with pytest.raises(UnmixableLearnerError) as refused:
        _mixing.check_mixable(KernelPerceptron(), "uniform")
    found = re.search(r"Use a mixable learner: (.*) \(a weight vector\) or (.*) "
                      r"\(mean and covariance\)\.$", str(refused.value))
    named = {kind: set(found.group(k).split(", "))
             for k, kind in ((1, "linear"), (2, "gaussian"))}
    assert {"Perceptron", "PA", "L2ConstrainedPA", "ObjectiveRegularizedPA"} <= named["linear"]
    assert {"AROW", "SOP"} <= named["gaussian"]
    tried = 0
    for name in olearn.__all__:
        cls = getattr(olearn, name)
        if not isinstance(cls, type):
            continue
        try:
            learner = cls()
        except TypeError:        # Averaged, FeatureSelected: they wrap a learner
            continue
        tried += 1
        try:
            kind = _mixing.check_mixable(learner, "uniform")
        except UnmixableLearnerError:
            kind = None
        assert (name in named.get(kind, set())) == (kind is not None), name
        assert not any(name in names for k, names in named.items() if k != kind), name
    assert tried > 20
    # the module docstring names them too
    for name in named["linear"] | named["gaussian"]:
        assert name in _mixing.__doc__.split("Kernel learners")[0], name


def test_unreachable_scheduler_names_the_fix():
    X, y = stream(seed=8)
    with pytest.raises(SchedulerUnreachableError, match="cannot reach the Dask scheduler "
                                                        "tcp://127.0.0.1:9.*dask worker"):
        IPM(Perceptron(), scheduler="tcp://127.0.0.1:9").fit(*split(X, y, 2))


def test_a_worker_killed_mid_epoch_leaves_the_same_model(client):
    # AROW with a full covariance: an epoch of 1,500 rows at d = 400 (about 0.1 s of
    # compute on an idle machine; at d = 120 an epoch, 35 ms, could end before the
    # kill) lasts long enough for the kill to land inside it
    X, y = stream(n=3000, d=400, seed=9, sparse=False)
    Xs, ys = split(X, y, 2)
    learner = AROW(covariance="full")
    clean = IPM(learner, n_epochs=3).fit(Xs, ys)
    victim = sorted(client.scheduler_info()["workers"])[0]
    pid = client.run(os.getpid, workers=[victim])[victim]

    def kill(line):
        if line.startswith("epoch 1/"):   # SIGKILL the worker 50 ms into epoch 2
            threading.Timer(0.05, os.kill, (pid, signal.SIGKILL)).start()

    faulty = IPM(learner, n_epochs=3, progress=kill).fit(Xs, ys)
    assert faulty.n_recomputed_ >= 1
    assert np.array_equal(faulty.coef_, clean.coef_)
    assert np.array_equal(faulty.learner_.covariance_, clean.learner_.covariance_)
    client.wait_for_workers(2, timeout=60)


def test_check_estimator_one_shard(client):
    from sklearn.utils.estimator_checks import check_estimator
    check_estimator(IPM(Perceptron()))


def test_command_line_local_workers(tmp_path):
    from sklearn.datasets import dump_svmlight_file
    from olearn.cli import main
    X, y = stream(seed=10)
    Xs, ys = split(X, y, 2)
    paths = []
    for k, (a, b) in enumerate(zip(Xs, ys)):
        paths.append(str(tmp_path / f"shard-{k}.svm"))
        dump_svmlight_file(a, b, str(paths[-1]), zero_based=False)
    out = io.StringIO()
    model = tmp_path / "m.npz"
    assert main(["train", *paths, "--local-workers", "2", "--n-epochs", "2",
                 "--n-features", str(X.shape[1]), "--save-model", str(model)],
                out=out) == 0
    text = out.getvalue()
    assert text.count("epoch ") >= 2 and "mistakes per shard" in text
    from olearn.cli._model import load_model
    ipm, _ = load_model(str(model))       # the mixed learner, in the safe model format
    from olearn.datasets import read_libsvm
    read = [read_libsvm(p, n_features=X.shape[1]) for p in paths]  # %.16g in the files
    ref = serial_ipm(Perceptron(), [r[0] for r in read], [r[1] for r in read], 2, "uniform")
    assert np.array_equal(ipm.coef_, ref.coef_)
