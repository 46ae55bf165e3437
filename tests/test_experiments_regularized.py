"""The orchestration of the regularized-online chapter (olearn.experiments.regularized).

Synthetic streams check the protocol (tune on the first half, test on the
second) against a plain loop written here; the USPS four-phase stream checks
the stream sampling, one trial end to end and the storage round trip.
"""
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.base import clone

from olearn import L2ConstrainedPA, ObjectiveRegularizedPA
from olearn.experiments import regularized as er


def _drifting(n=400, d=20, seed=0):
    """Two halves with different separators (a small non-stationary stream)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    u1, u2 = rng.standard_normal(d), rng.standard_normal(d)
    y = np.where(np.arange(n) < n // 2, np.sign(X @ u1), np.sign(X @ u2))
    return X, y


def test_tune_then_test_follows_the_protocol():
    X, y = _drifting()
    half = len(y) // 2
    grid = [{"beta": b} for b in (0.05, 0.2, 1.0, 5.0)]
    tuned = er.tune_then_test(L2ConstrainedPA(), grid, X, y, half)
    # the plain loop: one pass per value on the first half, fewest mistakes wins
    first = [L2ConstrainedPA(**p).fit(X[:half], y[:half]).n_mistakes_ for p in grid]
    assert [m for _, m, _ in tuned.tuning] == first
    assert tuned.params == grid[int(np.argmin(first))]
    # trained on the first half, tested online on the second = one pass over all
    whole = L2ConstrainedPA(**tuned.params).fit(X, y)
    np.testing.assert_array_equal(tuned.test_mistakes, whole.mistakes_[half:])
    np.testing.assert_allclose(tuned.model.coef_, whole.coef_)
    # the second-half record of every value is that value's one-pass run
    second = [int(L2ConstrainedPA(**p).fit(X, y).mistakes_[half:].sum()) for p in grid]
    assert [m for _, _, m in tuned.tuning] == second


def test_ties_go_to_the_first_grid_value():
    X, y = _drifting(seed=1)
    grid = [{"beta": 50.0}, {"beta": 100.0}]   # both far outside PA's norm: same run
    tuned = er.tune_then_test(L2ConstrainedPA(), grid, X, y, len(y) // 2)
    assert tuned.tuning[0][1] == tuned.tuning[1][1]
    assert tuned.params == {"beta": 50.0}


def test_every_grid_is_valid_and_the_headline_is_the_papers_update_on_mistakes():
    X, y = _drifting(n=40)
    for label, (estimator, grid) in er.GRIDS.items():
        assert grid, label
        for params in grid[:2] + grid[-1:]:
            clone(estimator).set_params(**params).fit(X, y)
        # the paper's learners update on mistakes; the ablation " (every round)" is ours;
        # the PA baseline is the PA paper's rule (every round with a positive loss)
        expected = ("round" if label.endswith(er.EVERY_ROUND) or label == "PA"
                    else "mistake")
        if hasattr(estimator, "update_on"):
            assert estimator.update_on == expected, label
    json.dumps(er.settings())                    # the provenance is JSON


def test_pa_mistake_is_mistake_driven_pa():
    # problem 3.1 with alpha = 0 on mistakes only = PA's step on mistakes only
    X, y = _drifting(seed=2)
    estimator, grid = er.GRIDS["PA (mistake)"]
    run = clone(estimator).set_params(**grid[0]).fit(X, y)
    w, mistakes = np.zeros(X.shape[1]), []
    for x, yt in zip(X, y):
        p = yt * (w @ x)
        mistakes.append(p <= 0)
        if p <= 0:
            w = w + (1 - p) / (x @ x) * yt * x
    np.testing.assert_array_equal(run.margins_ <= 0, mistakes)
    np.testing.assert_allclose(run.coef_.ravel(), w, rtol=1e-9, atol=1e-12)


def test_stream_stats_dense_and_sparse_agree():
    X, y = _drifting(n=50)
    X[:, 3] = 0.0
    dense, sparse = er.stream_stats(X, y), er.stream_stats(sp.csr_matrix(X), y)
    assert dense == pytest.approx(sparse)
    assert dense["d_used"] == X.shape[1] - 1
    assert dense["R"] == pytest.approx(np.linalg.norm(X, axis=1).max())


def test_curves_and_intervals():
    rng = np.random.default_rng(0)
    m = rng.random((5, 30)) < 0.2
    curve = er.cumulative_error_curves({("s", "a"): m})[("s", "a")]
    rate = np.cumsum(m, axis=1) / np.arange(1, 31)
    np.testing.assert_allclose(curve["mean"], rate.mean(axis=0))
    low, high = stats.t.interval(0.95, 4, loc=rate[:, -1].mean(),
                                 scale=stats.sem(rate[:, -1]))
    assert curve["low"].iloc[-1] == pytest.approx(low)
    assert curve["high"].iloc[-1] == pytest.approx(high)
    figure2 = pd.DataFrame({"stream": "s", "trial": range(4), "method": "m",
                            "setting": "k", "value": 8, "n_features": 8.0,
                            "test_error": [0.1, 0.2, 0.3, 0.2]})
    row = er.summarize_figure2(figure2).iloc[0]
    assert row["test_error_mean"] == pytest.approx(0.2)
    assert row["n_features_ci95"] == 0.0


def _toy_experiment(n_trials=3, n_rounds=150, seed=0):
    """An Experiment record by hand: two Figure 1 learners and one other on one stream."""
    rng = np.random.default_rng(seed)
    mistakes, runs = {}, []
    for label in ("PA", "NORMA", "PA (mistake)"):
        m = rng.random((n_trials, n_rounds)) < 0.2
        mistakes[(er.USPS, label)] = m
        runs += [{"stream": er.USPS, "trial": 10 + k, "learner": label,
                  "mistakes_digest": er.mistakes_digest(m[k])} for k in range(n_trials)]
    return er.Experiment(stats=pd.DataFrame(), runs=pd.DataFrame(runs), tuning=pd.DataFrame(),
                         figure2=pd.DataFrame(), test_mistakes=mistakes, seconds=1.0)


def test_curve_trials_keep_every_trial_at_the_checkpoints(tmp_path):
    experiment = _toy_experiment()
    table = er.curve_trials(experiment)
    # the Figure 1 learners only, every trial (ids from the runs), round 100 and the last
    assert list(table["learner"].unique()) == ["PA", "NORMA"]
    assert sorted(table["trial"].unique()) == [10, 11, 12]
    assert sorted(table["round"].unique()) == [100, 150]
    for row in table.itertuples():
        m = experiment.test_mistakes[(row.stream, row.learner)][row.trial - 10]
        assert row.mistakes == m[:row.round].sum()
        assert row.cumulative_error == pytest.approx(m[:row.round].mean())
    # their mean at a checkpoint is the mean curve's value there
    curve = er.cumulative_error_curves(experiment.test_mistakes)[(er.USPS, "NORMA")]
    at_100 = table[(table["learner"] == "NORMA") & (table["round"] == 100)]
    assert at_100["cumulative_error"].mean() == pytest.approx(curve["mean"].iloc[99])
    # a stream shorter than a checkpoint keeps its last round only
    short = er.curve_trials(_toy_experiment(n_rounds=60))
    assert sorted(short["round"].unique()) == [60]
    # stored with its provenance and read back; the comparison sees a changed count
    experiment.seconds = 2.0
    er.save_curve_trials(experiment, tmp_path, command="test")
    stored, provenance = er.load_curve_trials(tmp_path)
    assert provenance["trials"] == [10, 11, 12] and provenance["learners"] == ["PA", "NORMA"]
    assert provenance["checkpoints"] == [100, "last"]
    assert set(pd.read_csv(tmp_path / er.CURVE_TRIALS)["stream"]) == {"usps"}
    assert er.compare_curve_trials(experiment, stored)["same"].all()
    stored.loc[5, "mistakes"] += 1
    assert (~er.compare_curve_trials(experiment, stored)["same"]).sum() == 1
    with pytest.raises(FileNotFoundError, match="--store"):
        er.load_curve_trials(tmp_path / "nowhere")


def test_curve_trials_refuse_mistakes_that_are_not_the_runs():
    experiment = _toy_experiment()
    m = experiment.test_mistakes[(er.USPS, "PA")]
    m[1] = ~m[1]
    with pytest.raises(ValueError, match="do not match the experiment's runs"):
        er.curve_trials(experiment)


def test_digest_sees_the_order_of_mistakes():
    a = np.zeros(100, bool)
    a[3] = True
    b = np.zeros(100, bool)
    b[4] = True
    assert er.mistakes_digest(a) != er.mistakes_digest(b)
    assert er.mistakes_digest(a) == er.mistakes_digest(a.copy())


# -- the USPS four-phase stream ----------------------------------------------------
@pytest.fixture(scope="module")
def usps_trial(data_home, require_data, tmp_path_factory, monkeypatch_module):
    require_data(er.USPS)
    monkeypatch_module.setenv("OLEARN_DATA_HOME", str(data_home))
    experiment = er.run(streams=(er.USPS,), trials=[0], n_jobs=1)
    directory = er.save(experiment, tmp_path_factory.mktemp("regularized"), curve_trials=True)
    return experiment, directory


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_four_phase_is_load_four_phase(data_home, require_data, monkeypatch):
    from olearn.datasets import load_four_phase

    require_data(er.USPS)
    monkeypatch.setenv("OLEARN_DATA_HOME", str(data_home))
    for trial in (0, 3):
        mine = er.four_phase(er.USPS, trial)
        ref = load_four_phase(er.USPS, random_state=trial, download=False)
        np.testing.assert_array_equal(mine.X, ref.X)
        np.testing.assert_array_equal(mine.y, ref.y)


def test_one_usps_trial_and_its_storage(usps_trial):
    experiment, directory = usps_trial
    runs = experiment.runs
    assert list(runs["learner"]) == list(er.GRIDS)
    assert (runs["test_rounds"] == 1000).all()
    assert experiment.test_mistakes[(er.USPS, "PA")].shape == (1, 1000)
    # PA's test record is a one-pass run of PA over the whole stream
    X, y, _, _ = er.four_phase(er.USPS, 0)
    from olearn import PA
    pa = PA().fit(X, y)
    assert runs.set_index("learner").loc["PA", "test_mistakes"] == pa.mistakes_[1000:].sum()
    np.testing.assert_allclose(experiment.weights["PA"], np.abs(pa.coef_.ravel()))
    # Figure 2: every sigma for both constrained learners, every k for both methods
    fig2 = experiment.figure2
    counts = fig2.groupby("method").size()
    assert all(counts[label] == len(er.SIGMA_FRACTIONS) for label in er.TRUNCATED)
    assert counts["information gain"] == len(er.K_GRIDS[er.USPS][0])
    # larger sigma keeps fewer features
    l2 = fig2[fig2["method"] == "L2-constrained"]
    assert np.all(np.diff(l2["n_features"].to_numpy()) <= 0)
    # the stored files read back and agree with the run
    stored = er.load(directory)
    runs_cmp, fig2_cmp = er.compare(experiment, stored)
    assert runs_cmp["same"].all() and fig2_cmp["same"].all()
    assert set(stored.curves[er.USPS].columns) >= {f"{l}:mean" for l in er.GRIDS}
    assert set(stored.weights.columns) == set(er.FIGURE3) | {"information gain"}
    assert set(pd.read_csv(directory / "runs.csv")["stream"]) == {"usps"}   # short keys on disk
    assert stored.provenance["trials"] == [0]
    # the per-trial checkpoints: written beside the run, equal to its test mistakes
    table, provenance = er.load_curve_trials(directory)
    assert er.compare_curve_trials(experiment, table)["same"].all()
    assert provenance["git_commit"] == stored.provenance["git_commit"]
    last = table[table["round"] == 1000].set_index("learner")["mistakes"]
    assert set(last.index) == set(er.FIGURE1)
    assert (last == runs.set_index("learner").loc[list(last.index), "test_mistakes"]).all()


def test_save_leaves_the_stored_checkpoints_unless_asked(usps_trial, tmp_path):
    # the experiment page saves its full run without curve_trials: its check then compares
    # the run with the stored file, not with a file it has just written from the same run
    import shutil

    experiment, directory = usps_trial
    folder = tmp_path / "regularized"
    shutil.copytree(directory, folder)
    table = pd.read_csv(folder / er.CURVE_TRIALS)
    table.loc[0, "mistakes"] += 1
    table.to_csv(folder / er.CURVE_TRIALS, index=False)
    record = folder / er.CURVE_TRIALS.replace(".csv", ".provenance.json")
    record.write_text(record.read_text().replace('"command"', '"kept"'))
    before = (folder / er.CURVE_TRIALS).read_bytes(), record.read_bytes()
    er.save(experiment, folder)
    assert ((folder / er.CURVE_TRIALS).read_bytes(), record.read_bytes()) == before
    stored, _ = er.load_curve_trials(folder)
    assert (~er.compare_curve_trials(experiment, stored)["same"]).sum() == 1
    er.save(experiment, folder, curve_trials=True)
    stored, provenance = er.load_curve_trials(folder)
    assert er.compare_curve_trials(experiment, stored)["same"].all() and "command" in provenance


def test_compare_detects_a_changed_record(usps_trial):
    experiment, directory = usps_trial
    stored = er.load(directory)
    stored.runs.loc[stored.runs["learner"] == "PA", "mistakes_digest"] = "0" * 16
    stored.figure2.loc[0, "n_features"] += 1.0
    runs_cmp, fig2_cmp = er.compare(experiment, stored)
    assert list(runs_cmp.loc[~runs_cmp["same"], "learner"]) == ["PA"]
    assert (~fig2_cmp["same"]).sum() == 1
