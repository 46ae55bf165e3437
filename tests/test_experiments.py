"""The experiment runner: tasks, pairing, parallel backends, cache, summaries, plots."""
import importlib
import os
import sys
import types
import warnings
from pathlib import Path

import joblib
import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone

import olearn
from olearn import PA, Perceptron
from olearn import experiments as ex

matplotlib.use("Agg")

N, D, P = 120, 4, 3
COMPARED = [c for c in ex.TABLE_COLUMNS if c not in ("seconds", "cached")]


def noisy_stream(n=N, d=D, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


X, Y = noisy_stream()
LEARNERS = {"perceptron": Perceptron(), "pa1": PA(C=0.1, variant="PA-I")}


def quiet_run(learners=LEARNERS, X=X, y=Y, n_permutations=P, **kwargs):
    kwargs.setdefault("cache", False)
    kwargs.setdefault("progress", False)
    return ex.run(learners, X, y, n_permutations, **kwargs)


@pytest.fixture(scope="module")
def result():
    return quiet_run()


def same_results(a, b):
    pd.testing.assert_frame_equal(a.table[COMPARED], b.table[COMPARED])
    assert a.curves.keys() == b.curves.keys()
    for label in a.curves:
        np.testing.assert_array_equal(a.curves[label], b.curves[label])


# -- the table and the curves ---------------------------------------------------
def test_table_is_tidy_with_typed_columns(result):
    table = result.table
    assert list(table.columns) == ex.TABLE_COLUMNS
    assert len(table) == len(LEARNERS) * P
    assert list(table["learner"]) == ["perceptron"] * P + ["pa1"] * P
    assert list(table["permutation"]) == list(range(P)) * 2
    for column in ("permutation", "n_rounds", "n_mistakes", "n_updates"):
        assert pd.api.types.is_integer_dtype(table[column]), column
    for column in ("mistake_rate", "n_support", "seconds"):
        assert pd.api.types.is_float_dtype(table[column]), column
    assert (table["n_rounds"] == N).all()
    np.testing.assert_allclose(table["mistake_rate"],
                               table["n_mistakes"] / table["n_rounds"])
    assert table["n_support"].isna().all()  # linear learners have no support set
    assert (table["seconds"] > 0).all() and not table["cached"].any()
    assert result.n_computed == len(table) and result.n_cached == 0
    # the stream is noisy: the orders matter
    assert table.groupby("learner")["n_mistakes"].nunique().min() > 1


def test_every_learner_sees_the_same_documented_permutations(result):
    for p in range(P):
        order = np.random.default_rng([0, p]).permutation(N)
        for label, learner in LEARNERS.items():
            reference = type(learner)(**learner.get_params()).fit(X[order], Y[order])
            row = result.table[(result.table["learner"] == label)
                               & (result.table["permutation"] == p)].iloc[0]
            assert row["n_mistakes"] == reference.n_mistakes_
            assert row["n_updates"] == reference.n_updates_
            np.testing.assert_array_equal(result.mistakes(label)[p],
                                          reference.mistakes_)
            running = np.cumsum(reference.mistakes_) / np.arange(1, N + 1)
            np.testing.assert_allclose(result.curves[label][p], running, rtol=1e-6)
    assert result.curves["pa1"].dtype == np.float32
    np.testing.assert_array_equal(result.rounds["pa1"], np.arange(1, N + 1))


def test_runs_are_reproducible_and_permutations_do_not_depend_on_their_number(result):
    same_results(result, quiet_run())
    shorter = quiet_run(n_permutations=2)
    pd.testing.assert_frame_equal(
        shorter.table[COMPARED],
        result.table[result.table["permutation"] < 2][COMPARED].reset_index(drop=True))
    other_seed = quiet_run(random_state=1)
    assert not np.array_equal(other_seed.table["n_mistakes"], result.table["n_mistakes"])


def test_list_of_learners_is_labelled_by_repr_and_labels_must_be_unique():
    out = quiet_run([Perceptron(), PA(C=0.1, variant="PA-I")], n_permutations=1)
    assert out.learners == ["Perceptron()", "PA(C=0.1, variant='PA-I')"]
    with pytest.raises(ValueError, match="more than once"):
        quiet_run([PA(), PA()])


@pytest.mark.parametrize("kwargs, match", [
    ({"n_permutations": 0}, "n_permutations"),
    ({"random_state": -1}, "random_state"),
    ({"y": Y[:-1]}, "as many rows"),
    ({"n_rounds": N + 1}, "exceeds"),
    ({"learners": {}}, "empty"),
])
def test_bad_arguments_raise_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        quiet_run(**kwargs)


def test_epochs_prefixes_sparse_input_and_support_sizes():
    class SupportPerceptron(Perceptron):
        """A kernel-style learner: its support set is the rounds it updated on."""

        @property
        def n_support_(self):
            return self.n_updates_

    learners = {"two_epochs": PA(n_epochs=2), "support": SupportPerceptron()}
    full = quiet_run(learners)
    table = full.table.set_index("learner")
    assert (table.loc["two_epochs", "n_rounds"] == 2 * N).all()
    assert full.curves["two_epochs"].shape == (P, 2 * N)
    np.testing.assert_array_equal(table.loc["support", "n_support"],
                                  table.loc["support", "n_updates"])

    same_on_csr = quiet_run(learners, X=sp.csr_matrix(X))
    same_results(full, same_on_csr)

    prefix = quiet_run({"perceptron": Perceptron()}, n_rounds=50)
    whole = quiet_run({"perceptron": Perceptron()})
    first_50 = whole.mistakes("perceptron")[:, :50]
    np.testing.assert_array_equal(prefix.mistakes("perceptron"), first_50)
    assert (prefix.table["n_mistakes"] == first_50.sum(axis=1)).all()


def test_long_streams_keep_curves_at_a_log_linear_grid():
    grid = ex.checkpoint_rounds(10_000, 100)
    assert grid[0] == 1 and grid[-1] == 10_000 and len(grid) <= 100
    assert np.all(np.diff(grid) > 0)
    assert np.sum(grid <= 100) >= 15  # a linear grid would put 1 point there
    thinned = quiet_run(curve_points=30)
    rounds = thinned.rounds["pa1"]
    assert len(rounds) <= 30 and rounds[-1] == N
    full = quiet_run()
    np.testing.assert_array_equal(thinned.curves["pa1"],
                                  full.curves["pa1"][:, rounds - 1])


# -- parallel backends --------------------------------------------------------
def test_two_loky_processes_give_the_sequential_result(result):
    same_results(result, quiet_run(n_jobs=2))


def test_a_dask_cluster_runs_the_same_grid(result):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2,
                                  processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        with joblib.parallel_backend("dask"):
            on_dask = quiet_run(n_jobs=-1)
    same_results(result, on_dask)


# -- cache --------------------------------------------------------------------
def test_cache_reuses_finished_tasks_and_invalidates_on_change(tmp_path, monkeypatch):
    cached = dict(cache=True, cache_dir=tmp_path)
    first = quiet_run(**cached)
    assert (first.n_computed, first.n_cached) == (6, 0)
    again = quiet_run(**cached)
    assert (again.n_computed, again.n_cached) == (0, 6)
    assert again.table["cached"].all()
    pd.testing.assert_frame_equal(first.table.drop(columns="cached"),
                                  again.table.drop(columns="cached"))  # seconds too
    same_results(first, again)

    more = quiet_run({**LEARNERS, "pa2": PA(C=0.1, variant="PA-II")},
                     n_permutations=P + 1, **cached)
    assert more.n_computed == (P + 1) + 2  # pa2 everywhere, one new permutation
    assert quiet_run({"pa1": PA(C=0.2, variant="PA-I")}, **cached).n_computed == P
    assert quiet_run({"pa1": LEARNERS["pa1"]}, y=-Y, **cached).n_computed == P
    assert quiet_run({"pa1": LEARNERS["pa1"]}, n_rounds=N - 1, **cached).n_computed == P
    assert quiet_run({"pa1": LEARNERS["pa1"]}, random_state=5, **cached).n_computed == P

    monkeypatch.setattr(olearn, "__version__", "0.0.0-test")
    assert quiet_run(**cached).n_computed == 6
    monkeypatch.undo()

    for path in tmp_path.rglob("*.npz"):  # damaged files are recomputed
        path.write_bytes(b"not a zip file")
    repaired = quiet_run(**cached)
    assert repaired.n_computed == 6
    same_results(first, repaired)


def test_cache_keys_follow_parameters_not_object_identity():
    fingerprint = ex.data_fingerprint(X, Y)
    key = ex.task_key(PA(C=0.1), fingerprint, (0, 0), N)[0]
    assert key == ex.task_key(PA(C=0.1), fingerprint, (0, 0), N)[0]
    assert key != ex.task_key(PA(C=0.1, epsilon=0.5), fingerprint, (0, 0), N)[0]
    assert key != ex.task_key(PA(C=0.1), fingerprint, (0, 1), N)[0]
    assert ex.data_fingerprint(sp.csr_matrix(X), Y) != fingerprint
    assert ex.data_fingerprint(X, Y) == fingerprint


def linear_kernel(A, B):
    return A @ B.T


def scaled_kernel(scale):
    return lambda A, B: scale * (A @ B.T) + (A @ B.T) ** 2


def test_callable_kernels_are_keyed_by_what_they_compute(tmp_path):
    """Two lambdas used to share the entry named ``module.<lambda>``: the
    second run returned the first one's mistakes as cached."""
    cached = dict(cache=True, cache_dir=tmp_path)
    first = quiet_run({"k": olearn.KernelPerceptron(kernel=lambda A, B: A @ B.T)},
                      **cached)
    other = quiet_run({"k": olearn.KernelPerceptron(
        kernel=lambda A, B: (A @ B.T + 1.0) ** 3)}, **cached)
    assert other.n_cached == 0
    assert not other.table["n_mistakes"].equals(first.table["n_mistakes"])
    again = quiet_run({"k": olearn.KernelPerceptron(kernel=lambda A, B: A @ B.T)},
                      **cached)
    assert again.n_cached == P          # the same computation, the same entry
    same_results(first, again)
    # closure values, defaults and the globals read are part of the key
    fingerprint = ex.data_fingerprint(X, Y)
    keys = [ex.task_key(olearn.KernelPerceptron(kernel=k), fingerprint, (0, 0), N)[0]
            for k in (scaled_kernel(1.0), scaled_kernel(2.0), scaled_kernel(1.0),
                      linear_kernel, lambda A, B, c=1.0: c * (A @ B.T),
                      lambda A, B, c=2.0: c * (A @ B.T))]
    assert keys[0] != keys[1] and keys[0] == keys[2]
    assert len(set(keys)) == 5


class CallableKernel:
    def __init__(self, power):
        self.power = power

    def __call__(self, A, B):
        return (A @ B.T) ** self.power


def test_callables_that_cannot_be_keyed_run_uncached(tmp_path):
    cached = dict(cache=True, cache_dir=tmp_path)
    learners = {"k": olearn.KernelPerceptron(kernel=CallableKernel(1))}
    with pytest.warns(UserWarning, match="'k' is not cached: .*CallableKernel"):
        first = quiet_run(learners, **cached)
    with pytest.warns(UserWarning, match="not cached"):
        again = quiet_run({"k": olearn.KernelPerceptron(kernel=CallableKernel(3))},
                          **cached)
    assert first.n_cached == again.n_cached == 0
    assert not list(tmp_path.rglob("*.npz"))


def test_an_entry_copied_over_another_key_is_recomputed(tmp_path):
    cached = dict(cache=True, cache_dir=tmp_path)
    pa = quiet_run({"a": PA(C=0.1, variant="PA-I")}, **cached)
    perceptron = quiet_run({"a": Perceptron()}, **cached)
    fingerprint = ex.data_fingerprint(X, Y)
    store = ex.runner.TaskCache(tmp_path)
    for p in range(P):
        source = store.path(ex.task_key(PA(C=0.1, variant="PA-I"), fingerprint,
                                        (0, p), N)[0])
        target = store.path(ex.task_key(Perceptron(), fingerprint, (0, p), N)[0])
        target.write_bytes(source.read_bytes())
    again = quiet_run({"a": Perceptron()}, **cached)
    assert again.n_cached == 0 and again.n_computed == P
    same_results(perceptron, again)
    assert not again.table["n_mistakes"].equals(pa.table["n_mistakes"])
    assert quiet_run({"a": Perceptron()}, **cached).n_cached == P   # rewritten


# -- the user's code, edited between runs (issue 26 item 3) -------------------
def _write_module(folder, name, source):
    """Write ``folder/name.py`` and (re)import it from source (no stale bytecode)."""
    (folder / f"{name}.py").write_text(source)
    importlib.invalidate_caches()
    if name in sys.modules:
        return importlib.reload(sys.modules[name])
    return importlib.import_module(name)


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    """A folder on sys.path for modules written by the test (forgotten afterwards)."""
    folder = tmp_path / "user_code"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    before = set(sys.modules)
    yield folder
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_kernel_reading_an_edited_module_is_recomputed(tmp_path, user_modules):
    """``lambda A, B: mykernels.k(A, B)`` was keyed by the module's name only: after
    editing mykernels.k, run() returned the old kernel's mistakes marked cached."""
    cached = dict(cache=True, cache_dir=tmp_path / "cache")
    _write_module(user_modules, "h26_kernels", "def k(A, B):\n    return A @ B.T\n")
    caller = _write_module(user_modules, "h26_caller",
                           "import h26_kernels\n"
                           "kernel = lambda A, B: h26_kernels.k(A, B)\n")
    learner = {"k": olearn.KernelPerceptron(kernel=caller.kernel)}
    linear = quiet_run(learner, **cached)
    assert quiet_run(learner, **cached).n_cached == P       # keyed stably
    _write_module(user_modules, "h26_kernels",
                  "def k(A, B):\n    return (A @ B.T + 1.0) ** 3\n")
    cubic = quiet_run(learner, **cached)
    assert cubic.n_cached == 0 and cubic.n_computed == P
    same_results(cubic, quiet_run(learner))
    assert not cubic.table["n_mistakes"].equals(linear.table["n_mistakes"])
    # a helper the module's function calls is in the key too
    helper = ("def power(G):\n    return G ** {p}\n"
              "def k(A, B):\n    return power(A @ B.T + 1.0)\n")
    _write_module(user_modules, "h26_kernels", helper.format(p=3))
    assert quiet_run(learner, **cached).n_computed == P
    _write_module(user_modules, "h26_kernels", helper.format(p=2))
    assert quiet_run(learner, **cached).n_computed == P


LEARNER_SOURCE = """
import numpy as np
from olearn import Perceptron


class Shifted(Perceptron):
    '''A user's Perceptron that learns on the rows shifted by a constant.'''

    def fit(self, X, y):
        return super().fit(np.asarray(X) + {shift}, y)
"""


class Delegating(ClassifierMixin, BaseEstimator):
    """A user's meta-learner: fits a clone of ``learner`` and reports its record."""

    def __init__(self, learner=None):
        self.learner = learner

    def fit(self, X, y):
        fitted = clone(self.learner).fit(X, y)
        self.mistakes_, self.n_updates_ = fitted.mistakes_, fitted.n_updates_
        return self


def test_a_nested_learner_of_an_edited_class_is_recomputed(tmp_path, user_modules):
    """A nested learner of a user-defined class was keyed by its qualified name:
    after editing the class, run() returned the old class's mistakes marked cached."""
    cached = dict(cache=True, cache_dir=tmp_path / "cache")
    module = _write_module(user_modules, "h26_learners", LEARNER_SOURCE.format(shift=1.0))
    first = quiet_run({"s": Delegating(module.Shifted())}, **cached)
    assert quiet_run({"s": Delegating(module.Shifted())}, **cached).n_cached == P
    module = _write_module(user_modules, "h26_learners", LEARNER_SOURCE.format(shift=-3.0))
    edited = quiet_run({"s": Delegating(module.Shifted())}, **cached)
    assert edited.n_cached == 0 and edited.n_computed == P
    same_results(edited, quiet_run({"s": Delegating(module.Shifted())}))
    assert not edited.table["n_mistakes"].equals(first.table["n_mistakes"])
    # the top-level learner of an edited class too
    module = _write_module(user_modules, "h26_learners", LEARNER_SOURCE.format(shift=2.0))
    assert quiet_run({"s": module.Shifted()}, **cached).n_computed == P
    assert quiet_run({"s": module.Shifted()}, **cached).n_cached == P
    module = _write_module(user_modules, "h26_learners", LEARNER_SOURCE.format(shift=5.0))
    assert quiet_run({"s": module.Shifted()}, **cached).n_computed == P


def test_library_code_is_keyed_by_name_and_version():
    """olearn's, numpy's and scikit-learn's code is keyed by name (with olearn's
    source digest or the library's version), not walked."""
    from olearn.experiments import keys

    assert keys.callable_key(np.exp) == {"builtin": "numpy.exp"}
    assert keys.callable_key(np.dot) == {"function": "numpy.dot", "version": np.__version__}
    assert keys.class_key(BaseEstimator) == {
        "class": "sklearn.base.BaseEstimator", "version": sklearn.__version__}
    assert keys.class_key(PA)["source"] == ex.source_digest(PA)
    assert keys.module_key(np) == {"module": "numpy", "version": np.__version__}
    with pytest.raises(ex.runner.UncacheableError, match="module"):
        keys.module_key(types.ModuleType("made_at_run_time"))


def test_a_notebook_function_is_keyed_by_its_code(monkeypatch):
    """A notebook's cells run in ``__main__``, whose launcher (ipykernel_launcher)
    lives in site-packages: its functions are still the user's code."""
    from olearn.experiments import keys

    launcher = types.ModuleType("__main__")
    launcher.__file__ = str(Path(np.__file__).parent.parent / "ipykernel_launcher.py")
    monkeypatch.setitem(sys.modules, "__main__", launcher)
    made = []
    for body in ("A @ B.T", "(A @ B.T) ** 2"):
        namespace = {"__name__": "__main__"}
        exec(f"def k(A, B):\n    return {body}\n", namespace)
        made.append(keys.callable_key(namespace["k"]))
    assert made[0] != made[1] and "code" in made[0]


# -- cache corruption (issue 26 items 8 and 12) ---------------------------------
def _entries(root):
    return sorted(root.rglob("*.npz"))


@pytest.mark.parametrize("damage", ["0 bytes", "directory"])
def test_an_empty_or_directory_entry_is_recomputed_with_a_warning(tmp_path, damage):
    """A 0-byte entry (a crash or a full disk) made every later run() fail with a
    bare EOFError; a directory at an entry's path crashed in os.replace."""
    cached = dict(cache=True, cache_dir=tmp_path)
    first = quiet_run(**cached)
    entries = _entries(tmp_path)
    assert len(entries) == 2 * P
    for path in entries[:2]:
        path.unlink()
        if damage == "0 bytes":
            path.write_bytes(b"")
        else:
            path.mkdir()
    what = "0 bytes" if damage == "0 bytes" else "a directory"
    with pytest.warns(UserWarning, match=f"2 entries of the experiment cache .*{what}"):
        again = quiet_run(**cached)
    assert (again.n_computed, again.n_cached) == (2, 2 * P - 2)
    same_results(first, again)
    assert all(path.is_file() and path.stat().st_size > 0 for path in entries)  # rewritten
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quiet_run(**cached).n_cached == 2 * P


def test_a_directory_that_cannot_be_replaced_is_kept_with_a_warning(tmp_path):
    cached = dict(cache=True, cache_dir=tmp_path)
    quiet_run(**cached)
    path = _entries(tmp_path)[0]
    path.unlink()
    path.mkdir()
    (path / "a user's file").write_text("kept")
    with pytest.warns(UserWarning, match="could not be stored .*a rerun computes"):
        again = quiet_run(**cached)
    assert again.n_computed == 1 and (path / "a user's file").read_text() == "kept"


def test_entries_are_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    """TaskCache.save renamed without fsync: a crash could leave a 0-byte entry."""
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace",
                        lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    ex.runner.TaskCache(tmp_path).save("ab" * 32, {"n_rounds": 1}, np.zeros(1, np.uint8))
    assert calls[:2] == ["fsync", "replace"]


def _unusable_folder(tmp_path, kind):
    if kind == "under a regular file":
        (tmp_path / "a file").write_text("")
        return tmp_path / "a file" / "cache"
    return Path("/proc/olearn-no-such-folder/cache")   # not creatable, even by root


@pytest.mark.parametrize("kind", ["under a regular file", "uncreatable"])
def test_an_unusable_cache_folder_is_refused_before_computing(tmp_path, monkeypatch, kind):
    """Computed the first task, then died with a bare NotADirectoryError or
    FileNotFoundError (the computed work lost)."""
    computed = []
    real_task = ex.runner._run_task
    monkeypatch.setattr(ex.runner, "_run_task",
                        lambda *args: (computed.append(args[0]), real_task(*args))[1])
    folder = _unusable_folder(tmp_path, kind)
    with pytest.raises(OSError) as error:
        quiet_run(cache=True, cache_dir=folder)
    message = str(error.value)
    assert "cache" in message and "cache=False" in message and str(folder) in message
    assert computed == []
    assert quiet_run(cache=False).n_computed == 2 * P    # the fix the message names


# -- summaries ----------------------------------------------------------------
def test_summary_t_interval_matches_scipy():
    rates = {"a": [0.10, 0.20, 0.30, 0.50], "b": [0.2, 0.2, 0.3], "c": [0.4]}
    rows = [{"learner": k, "permutation": p, "mistake_rate": r, "n_mistakes": 10 * r,
             "n_updates": 1.0, "n_support": np.nan, "seconds": 0.5}
            for k, values in rates.items() for p, r in enumerate(values)]
    summary = ex.summarize(pd.DataFrame(rows))
    assert list(summary.index) == ["a", "b", "c"]
    for label in ("a", "b"):
        values = np.array(rates[label])
        low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(),
                                     scale=stats.sem(values))
        row = summary.loc[label]
        assert row["n_permutations"] == len(values)
        assert row["mistake_rate_mean"] == pytest.approx(values.mean())
        assert row["mistake_rate_std"] == pytest.approx(values.std(ddof=1))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert summary.loc["c", "mistake_rate_mean"] == 0.4
    assert np.isnan(summary.loc["c", "ci_low"])  # one permutation: no interval


def test_corrected_resampled_t_plain_case_is_scipys_t_test():
    d = np.random.default_rng(3).normal(0.02, 0.05, size=20)
    mean, half, p = ex.corrected_resampled_t(d, test_to_train=0.0)
    assert mean == pytest.approx(d.mean())
    assert p == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue)
    low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
    assert (mean - half, mean + half) == pytest.approx((low, high))


def test_corrected_resampled_t_widens_by_nadeau_bengio_factor():
    # Nadeau and Bengio: variance s^2 (1/J + n_test/n_train) instead of s^2 / J, so the t
    # statistic is the plain one divided by sqrt(1 + J n_test/n_train)
    d = np.random.default_rng(4).normal(0.03, 0.04, size=20)
    plain = stats.ttest_1samp(d, 0.0)
    for ratio in (0.25, 1.0 / 9):
        mean, half, p = ex.corrected_resampled_t(d, test_to_train=ratio)
        t = plain.statistic / np.sqrt(1 + len(d) * ratio)
        assert p == pytest.approx(2 * stats.t.sf(abs(t), len(d) - 1))
        _, plain_half, _ = ex.corrected_resampled_t(d)
        assert half == pytest.approx(plain_half * np.sqrt(1 + len(d) * ratio))
        assert p > plain.pvalue


def test_corrected_resampled_t_degenerate_and_bad_input():
    assert np.isnan(ex.corrected_resampled_t([0.1, 0.1, 0.1], 0.25)[2])
    assert np.isnan(ex.corrected_resampled_t([0.1])[1])
    with pytest.raises(ValueError, match="finite"):
        ex.corrected_resampled_t([0.1, np.nan, 0.2])
    with pytest.raises(ValueError, match="test_to_train"):
        ex.corrected_resampled_t([0.1, 0.2, 0.3], test_to_train=-0.25)


def test_curve_bands_match_scipy_per_round(result):
    curves = result.curves["pa1"].astype(float)
    mean, low, high = ex.curve_band(curves, "ci95")
    t = 100
    ref = stats.t.interval(0.95, P - 1, loc=curves[:, t].mean(),
                           scale=stats.sem(curves[:, t]))
    assert (low[t], high[t]) == pytest.approx(ref)
    _, low, high = ex.curve_band(curves, "std")
    np.testing.assert_allclose(high - mean, curves.std(axis=0, ddof=1))
    with pytest.raises(ValueError, match="band"):
        ex.curve_band(curves, "iqr")


def test_saved_results_round_trip_and_compare(result, tmp_path):
    ex.save_result(result, tmp_path / "run")
    loaded = ex.load_result(tmp_path / "run")
    pd.testing.assert_frame_equal(loaded.table[COMPARED], result.table[COMPARED],
                                  check_dtype=False)
    pd.testing.assert_frame_equal(loaded.summary(), result.summary())
    assert loaded.provenance["data_fingerprint"] == ex.data_fingerprint(X, Y)
    assert loaded.provenance["learners"]["pa1"]["params"]["C"] == 0.1
    assert loaded.provenance["olearn_version"] == olearn.__version__

    quick = quiet_run(n_permutations=2)
    diff = ex.compare_to_stored(quick, tmp_path / "run", tol=0.02)
    assert list(diff.index) == ["perceptron", "pa1"]
    expected = abs(quick.summary()["mistake_rate_mean"]
                   - result.summary()["mistake_rate_mean"])
    np.testing.assert_allclose(diff["abs_diff"], expected)
    assert list(diff["within_tol"]) == list(expected <= 0.02)
    assert not ex.compare_to_stored(quick, result, tol=0.0)["within_tol"].all()
    with pytest.raises(ValueError, match="not in the stored"):
        ex.compare_to_stored(quiet_run({"new": PA(C=3.0)}, n_permutations=1),
                             result, tol=1.0)


# -- helpers for the book -----------------------------------------------------
@pytest.mark.parametrize("value, quick", [("1", True), ("true", True),
                                          ("0", False), ("", False)])
def test_quick_mode_reads_the_environment(monkeypatch, value, quick):
    monkeypatch.setenv("OLEARN_QUICK", value)
    assert ex.quick_mode() is quick
    assert ex.n_permutations(20, 3) == (3 if quick else 20)


def test_run_dataset_loads_and_transforms(monkeypatch):
    fake = types.ModuleType("olearn.datasets")
    fake.load = lambda name, subset="all": (X[:60], Y[:60]) if subset == "train" else None
    monkeypatch.setitem(sys.modules, "olearn.datasets", fake)
    monkeypatch.setattr(olearn, "datasets", fake, raising=False)
    out = ex.run_dataset("toy", {"p": Perceptron()}, 2, transform=lambda A: 2 * A,
                         load_kwargs={"subset": "train"}, cache=False, progress=False)
    assert (out.table["dataset"] == "toy").all() and (out.table["n_rounds"] == 60).all()
    assert out.provenance["dataset"] == "toy"
    assert out.provenance["data_fingerprint"] == ex.data_fingerprint(2 * X[:60], Y[:60])


def test_progress_bar_reports_on_stderr_unless_silenced(capsys):
    quiet_run(n_permutations=1, progress=True)
    assert "2/2" in capsys.readouterr().err
    quiet_run(n_permutations=1, progress=False)
    assert capsys.readouterr().err == ""


def test_plot_draws_one_line_and_one_band_per_learner(result):
    from olearn.plotting import plot_mistake_curves

    ax = plot_mistake_curves(result, log_x=True)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["perceptron", "pa1"]
    assert len(ax.collections) == 2 and ax.get_xscale() == "log"
    np.testing.assert_allclose(lines[1].get_ydata(),
                               result.curves["pa1"].astype(float).mean(axis=0))
    ax = plot_mistake_curves(result, band=None, max_points=10)
    assert len(ax.collections) == 0 and len(ax.get_lines()[0].get_xdata()) <= 10
    with pytest.raises(ValueError, match="no curves"):
        plot_mistake_curves(ex.Result(table=result.table))


def test_git_provenance_reads_this_checkout(monkeypatch):
    import subprocess
    from pathlib import Path

    from olearn.experiments import runner as experiments

    root = Path(experiments.__file__).resolve().parents[2]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                          text=True)
    if head.returncode == 0:
        assert experiments.git_commit() == head.stdout.strip()
        assert isinstance(experiments.git_dirty(), bool)
    monkeypatch.setattr(experiments, "_git", lambda *args: None)  # no git, or not a checkout
    assert experiments.git_commit() is None and experiments.git_dirty() is None
