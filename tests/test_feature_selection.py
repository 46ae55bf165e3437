"""Feature-selection baselines of section 4 (information gain, game 4.20)."""
import itertools

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import mutual_info_classif
from sklearn.metrics import mutual_info_score

import olearn.selection.feature_selected as fs
from olearn import PA, Averaged, Perceptron
from olearn.selection import (FeatureSelected, game_theoretic_selection,
                              information_gain, pair_information_gain)
from olearn.selection.game_theoretic import _GameLP


def entropy(*probs):
    """Shannon entropy in nats of a distribution given by its probabilities."""
    p = np.array([q for q in probs if q > 0])
    return float(-np.sum(p * np.log(p)))


def binary_data(n=300, d=12, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n)
    X = (rng.random((n, d)) < 0.3).astype(float)
    X[:, 3] = np.where(rng.random(n) < 0.9, y > 0, y < 0)   # informative
    X[:, d - 1] = np.where(rng.random(n) < 0.75, y > 0, y < 0)  # weaker
    return X, y


def stream(n=240, d=10, seed=1):
    """Real-valued stream (grey levels in [-1, 1]) with a few useful pixels."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n)
    X = rng.uniform(-1, 1, size=(n, d))
    X[:, :3] += 0.8 * y[:, np.newaxis] * rng.random((n, 3))
    return np.clip(X, -1, 1), y


# -- information gain -----------------------------------------------------
def test_information_gain_hand_computed():
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1.]])
    y = np.array([1, 0, 0, 0, 1])
    # feature 0 on rows 0,1 (y = 1,0), off rows 2,3,4 (y = 0,0,1)
    ig0 = entropy(.4, .6) - .4 * entropy(.5, .5) - .6 * entropy(1 / 3, 2 / 3)
    # feature 1 on rows 0,3 (y = 1,0), off rows 1,2,4 (y = 0,0,1): same split
    # feature 2 on rows 2,4 (y = 0,1), off rows 0,1,3 (y = 1,0,0)
    ig2 = ig0
    np.testing.assert_allclose(information_gain(X, y), [ig0, ig0, ig2],
                               rtol=1e-12)
    perfect = np.array([[1.], [1.], [0.], [0.]])
    np.testing.assert_allclose(information_gain(perfect, [1, 1, 0, 0]),
                               [np.log(2)], rtol=1e-12)  # nats, = 1 bit
    np.testing.assert_allclose(information_gain(perfect, [1, 0, 1, 0]), [0.0],
                               atol=1e-15)


def test_information_gain_matches_sklearn_mutual_info_in_nats():
    X, y = binary_data()
    expected = mutual_info_classif(X, y, discrete_features=True)
    np.testing.assert_allclose(information_gain(X, y), expected, atol=1e-12)
    np.testing.assert_allclose(information_gain(sp.csr_matrix(X), y), expected,
                               atol=1e-12)
    assert np.argmax(expected) == 3
    # three classes: the same formula
    y3 = np.where(X[:, 0] > 0, 2, y)
    np.testing.assert_allclose(information_gain(X, y3),
                               mutual_info_classif(X, y3,
                                                   discrete_features=True),
                               atol=1e-12)


def test_information_gain_threshold_binarises_real_features():
    X, y = stream()
    for threshold in (0.0, 0.3, -0.5):
        np.testing.assert_allclose(
            information_gain(X, y, threshold=threshold),
            mutual_info_classif((X > threshold).astype(int), y,
                                discrete_features=True), atol=1e-12)
    Xs = sp.csr_matrix(np.where(X > 0.2, X, 0.0))
    np.testing.assert_allclose(information_gain(Xs, y, threshold=0.2),
                               information_gain(X, y, threshold=0.2),
                               atol=1e-12)
    with pytest.raises(ValueError, match="implicit zero"):
        information_gain(Xs, y, threshold=-0.1)


def test_pair_information_gain_is_ig_of_the_joint_feature():
    X, y = binary_data(n=200, d=7, seed=3)
    M = pair_information_gain(X, y)
    for i, j in itertools.product(range(7), repeat=2):
        joint = 2 * X[:, i] + X[:, j]
        assert M[i, j] == pytest.approx(mutual_info_score(y, joint), abs=1e-12)
    np.testing.assert_allclose(np.diag(M), information_gain(X, y), atol=1e-12)
    # M[i, j] >= max(IG_i, IG_j): a pair says at least what one feature says
    ig = information_gain(X, y)
    assert np.all(M >= np.maximum.outer(ig, ig) - 1e-12)
    features = np.array([5, 1, 3])
    np.testing.assert_allclose(pair_information_gain(X, y, features=features),
                               M[np.ix_(features, features)], atol=1e-12)
    np.testing.assert_allclose(pair_information_gain(sp.csr_matrix(X), y), M,
                               atol=1e-12)


# -- the game (4.20) -------------------------------------------------------
def k_smallest_sum(c, k):
    return np.sort(c)[:k].sum()


def brute_force_integer_game(M, k):
    """max over k-subsets S of min over k-subsets T of sum_{S x T} M."""
    d = M.shape[0]
    subsets = [list(s) for s in itertools.combinations(range(d), k)]
    return max(min(M[np.ix_(S, T)].sum() for T in subsets) for S in subsets)


def minmax_value_cvxpy(M, k):
    """The other side of the minimax: min_v (sum of the k largest of M v)."""
    d = M.shape[0]
    v, alpha, beta = cp.Variable(d), cp.Variable(), cp.Variable(d, nonneg=True)
    problem = cp.Problem(cp.Minimize(k * alpha + cp.sum(beta)),
                         [alpha + beta >= M @ v, v >= 0, v <= 1,
                          cp.sum(v) == k])
    problem.solve(solver=cp.CLARABEL)
    return problem.value


@pytest.mark.parametrize("seed", range(4))
def test_game_lp_against_brute_force_and_minimax(seed):
    rng = np.random.default_rng(seed)
    d, k = 5, 2
    if seed % 2:
        M = rng.random((d, d))                      # general reward
    else:
        X, y = binary_data(n=60, d=d, seed=seed)   # pair information gain
        M = pair_information_gain(X, y)
    selected, u, value = game_theoretic_selection(M, k, return_strategy=True)
    assert selected.shape == (k,) and np.all(np.diff(selected) > 0)
    assert np.all(u >= -1e-9) and np.all(u <= 1 + 1e-9)
    assert u.sum() == pytest.approx(k, abs=1e-7)
    # the dual of the inner LP: value = min over v for the returned u
    assert value == pytest.approx(k_smallest_sum(M.T @ u, k), abs=1e-7)
    # relaxation >= integer game; equal to the min-max side (minimax theorem)
    assert value >= brute_force_integer_game(M, k) - 1e-9
    assert value == pytest.approx(minmax_value_cvxpy(M, k), rel=1e-6)
    # selected = the k largest u_i
    assert np.min(u[selected]) >= np.max(np.delete(u, selected)) - 1e-9


def test_game_picks_the_dominant_features():
    s = np.array([0.1, 0.5, 0.05, 0.4, 0.2])
    M = s[:, None] + s[None, :]   # u^T M v = k u.s + k v.s: u takes the top s
    selected, u, value = game_theoretic_selection(M, 2, return_strategy=True)
    np.testing.assert_array_equal(selected, [1, 3])
    np.testing.assert_allclose(u, [0, 1, 0, 1, 0], atol=1e-9)
    assert value == pytest.approx(brute_force_integer_game(M, 2))
    # k = m: everything
    np.testing.assert_array_equal(game_theoretic_selection(M, 5), range(5))


def test_game_warm_start_gives_the_cold_value():
    X, y = stream(n=200, d=12)
    lp = _GameLP()
    for n in (50, 100, 150, 200):
        M = pair_information_gain(X[:n], y[:n])
        u_warm, warm = lp.solve(M, 4)
        _, _, cold = game_theoretic_selection(M, 4, return_strategy=True)
        assert warm == pytest.approx(cold, rel=1e-9)
        assert warm == pytest.approx(k_smallest_sum(M.T @ u_warm, 4), rel=1e-7)


# -- online use -------------------------------------------------------------
def reference_run(X, y, k, refresh, method, threshold=0.0):
    """Plain loop: select from the prefix (public functions), mask, PA."""
    n, d = X.shape
    learner, mistakes = PA(), []
    selected = np.arange(0)
    for start in range(0, n, refresh):
        if start > 0:
            if method == "info_gain":
                ig = information_gain(X[:start], y[:start],
                                      threshold=threshold)
                selected = np.sort(np.argsort(-ig, kind="stable")[:k])
            else:
                M = pair_information_gain(X[:start], y[:start],
                                          threshold=threshold)
                selected = game_theoretic_selection(M, k)
        mask = np.zeros(d)
        mask[selected] = 1.0
        block = slice(start, start + refresh)
        learner.partial_fit(X[block] * mask, y[block], classes=[-1, 1])
    return learner, selected


@pytest.mark.parametrize("method", ["info_gain", "game"])
@pytest.mark.parametrize("threshold", [0.0, 0.4])
def test_feature_selected_matches_a_plain_reference_loop(method, threshold):
    X, y = stream(n=200, d=10)
    est = FeatureSelected(PA(), method=method, k=3, refresh=40,
                          threshold=threshold).fit(X, y)
    ref, selected = reference_run(X, y, 3, 40, method, threshold)
    np.testing.assert_array_equal(est.selected_, selected)
    np.testing.assert_array_equal(est.mistakes_, ref.mistakes_)
    np.testing.assert_allclose(est.margins_, ref.margins_, atol=1e-12)
    np.testing.assert_allclose(est.learner_.coef_, ref.coef_, atol=1e-12)
    assert est.n_mistakes_ == ref.n_mistakes_ == est.mistakes_.sum()
    assert est.n_updates_ == ref.n_updates_
    assert est.n_rounds_ == 200 and est.n_features_selected_ == 3


@pytest.mark.parametrize("sparse", [False, True])
def test_keeping_all_features_is_the_plain_learner(sparse):
    X, y = binary_data(n=150, d=8)
    if sparse:
        X = sp.csr_matrix(X)
    for method in fs.METHODS:
        est = FeatureSelected(PA(C=0.5, variant="PA-I"), method=method, k=8,
                              refresh=7).fit(X, y)
        plain = PA(C=0.5, variant="PA-I").fit(X, y)
        np.testing.assert_array_equal(est.mistakes_, plain.mistakes_)
        np.testing.assert_allclose(est.margins_, plain.margins_)
        np.testing.assert_allclose(est.decision_function(X),
                                   plain.decision_function(X))
        np.testing.assert_array_equal(est.selected_, np.arange(8))


def test_first_block_sees_no_feature():
    X, y = stream(n=30, d=6)
    est = FeatureSelected(PA(), k=2, refresh=10).partial_fit(X[:10], y[:10])
    assert est.n_features_selected_ == 0
    np.testing.assert_array_equal(est.margins_, np.zeros(10))
    assert est.n_updates_ == 0
    est.partial_fit(X[10:11], y[10:11])
    assert est.n_features_selected_ == 2


@pytest.mark.parametrize("method", ["info_gain", "game"])
def test_dense_sparse_chunks_and_repeats_agree(method):
    X, y = binary_data(n=180, d=9, seed=5)
    params = dict(method=method, k=3, refresh=25)
    full = FeatureSelected(PA(), **params).fit(X, y)
    again = FeatureSelected(PA(), **params).fit(X, y)
    sparse = FeatureSelected(PA(), **params).fit(sp.csr_matrix(X), y)
    chunked = FeatureSelected(PA(), **params)
    for lo, hi in [(0, 13), (13, 60), (60, 61), (61, 180)]:
        chunked.partial_fit(X[lo:hi], y[lo:hi], classes=[-1, 1])
    for other in (again, sparse, chunked):
        np.testing.assert_array_equal(other.selected_, full.selected_)
        np.testing.assert_array_equal(other.mistakes_, full.mistakes_)
        np.testing.assert_allclose(other.predict(X), full.predict(X))


def test_game_with_stored_rows_equals_full_pair_counts(monkeypatch):
    X, y = binary_data(n=160, d=9, seed=2)
    full = FeatureSelected(method="game", k=3, refresh=20, n_candidates=5)
    full.fit(sp.csr_matrix(X), y)
    monkeypatch.setattr(fs, "FULL_PAIR_COUNTS_MAX_FEATURES", 4)
    rows = FeatureSelected(method="game", k=3, refresh=20, n_candidates=5)
    rows.fit(sp.csr_matrix(X), y)
    assert rows._counts.mode == "rows" and full._counts.mode == "full"
    np.testing.assert_array_equal(rows.selected_, full.selected_)
    np.testing.assert_array_equal(rows.mistakes_, full.mistakes_)


def test_game_is_played_on_the_top_candidates():
    X, y = binary_data(n=200, d=12, seed=4)
    est = FeatureSelected(method="game", k=2, refresh=200, n_candidates=4)
    est.fit(np.vstack([X, X[:1]]), np.r_[y, y[:1]])   # one selection, at 200
    top4 = np.argsort(-information_gain(X, y), kind="stable")[:4]
    assert set(est.selected_) <= set(top4)
    M = pair_information_gain(X, y, features=np.sort(top4))
    np.testing.assert_array_equal(
        est.selected_, np.sort(top4)[game_theoretic_selection(M, 2)])


@pytest.mark.parametrize("method", ["info_gain", "game"])
def test_selection_finds_the_informative_feature(method):
    X, y = binary_data(n=400, d=12, seed=7)
    est = FeatureSelected(Perceptron(), method=method, k=1, refresh=50)
    est.fit(X, np.where(y > 0, "spam", "ham"))
    np.testing.assert_array_equal(est.selected_, [3])
    assert set(est.predict(X)) <= {"spam", "ham"}
    assert np.mean(est.predict(X) == np.where(y > 0, "spam", "ham")) > 0.85


def test_predictions_use_the_masked_rows_and_wrappers_work():
    X, y = binary_data(n=120, d=8, seed=1)   # the selection changes early
    est = FeatureSelected(Averaged(PA()), k=3, refresh=5, n_epochs=2).fit(X, y)
    assert est.n_rounds_ == 240 and est.mistakes_.shape == (240,)
    mask = np.isin(np.arange(8), est.selected_)
    np.testing.assert_allclose(est.decision_function(X),
                               est.learner_.decision_function(X * mask))
    assert not np.allclose(est.decision_function(X),
                           est.learner_.decision_function(X))


@pytest.mark.parametrize("params, message", [
    (dict(k=0), "k must be a positive integer"),
    (dict(k=-2), "k must be a positive integer"),
    (dict(k=2.5), "k must be a positive integer"),
    (dict(k=11), "exceeds the number of features"),
    (dict(method="chi2"), "method must be one of"),
    (dict(refresh=0), "refresh must be a positive integer"),
    (dict(n_candidates=0), "n_candidates must be a positive integer"),
    (dict(threshold=np.nan), "threshold must be a finite number"),
    (dict(learner="PA"), "learner must be an olearn online learner"),
])
def test_bad_parameters_raise(params, message):
    X, y = stream(n=20, d=10)
    with pytest.raises(ValueError, match=message):
        FeatureSelected(**params).fit(X, y)
    with pytest.raises(ValueError, match=message):
        FeatureSelected(**params).partial_fit(X, y)


def test_bad_inputs_raise():
    X, y = stream(n=20, d=10)
    with pytest.raises(ValueError, match="implicit zero"):
        FeatureSelected(threshold=-0.5, k=2).fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="square"):
        game_theoretic_selection(np.ones((3, 4)), 2)
    with pytest.raises(ValueError, match="exceeds"):
        game_theoretic_selection(np.ones((3, 3)), 4)
    with pytest.raises(ValueError, match="finite"):
        information_gain(X, y, threshold=np.inf)


def test_clone_and_pickle_keep_the_run():
    import pickle

    from sklearn.base import clone

    X, y = stream(n=120, d=8)
    est = FeatureSelected(method="game", k=3, refresh=20).fit(X[:100], y[:100])
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.selected_, est.selected_)
    np.testing.assert_allclose(copy.decision_function(X),
                               est.decision_function(X))
    copy.partial_fit(X[100:], y[100:])   # a cold LP start after unpickling
    est.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(copy.mistakes_, est.mistakes_)
    params = clone(est).get_params()
    assert params["k"] == 3 and params["method"] == "game"


# -- the learner between partial_fit calls: class frozen, parameters followed ------
def test_learner_of_another_class_is_refused_mid_stream():
    """set_params(learner=Perceptron()) on a PA-based run was silently ignored."""
    from olearn.base import FrozenParameterError
    X, y = binary_data(n=120, d=8, seed=3)
    for first in (None, PA()):
        est = FeatureSelected(first, k=3, refresh=10).partial_fit(X[:60], y[:60])
        coef, rounds = est.learner_.coef_.copy(), est.n_rounds_
        est.set_params(learner=Perceptron())
        with pytest.raises(FrozenParameterError, match="learner changed from "
                           "'olearn.linear.pa.PA' to 'olearn.linear.perceptron.Perceptron'"):
            est.partial_fit(X[60:], y[60:])
        np.testing.assert_array_equal(est.learner_.coef_, coef)
        assert est.n_rounds_ == rounds and type(est.learner_) is PA
        est.set_params(learner=first)          # set back: the stream continues
        est.partial_fit(X[60:], y[60:])
        whole = FeatureSelected(first, k=3, refresh=10).fit(X, y)
        np.testing.assert_array_equal(est.mistakes_, whole.mistakes_)
        est.set_params(learner=Perceptron()).fit(X, y)   # fit starts afresh
        assert type(est.learner_) is Perceptron


@pytest.mark.parametrize("bad", [3, PA, "PA", object()])
def test_learner_is_validated_at_every_call(bad):
    X, y = binary_data(n=60, d=6)
    with pytest.raises(ValueError, match="learner must be an olearn online learner"):
        FeatureSelected(bad, k=2).fit(X, y)
    est = FeatureSelected(k=2, refresh=10).partial_fit(X[:30], y[:30])
    est.set_params(learner=bad)
    with pytest.raises(ValueError, match="learner must be an olearn online learner"):
        est.partial_fit(X[30:], y[30:])
    assert est.n_rounds_ == 30


def test_learner_of_the_same_class_is_followed():
    """A new PA (or learner__C) between calls reaches learner_; None means PA()."""
    X, y = binary_data(n=120, d=8, seed=3)
    est = FeatureSelected(PA(), k=3, refresh=10).partial_fit(X[:60], y[:60])
    est.set_params(learner=PA(C=0.5, variant="PA-I")).partial_fit(X[60:90], y[60:90])
    assert (est.learner_.C, est.learner_.variant) == (0.5, "PA-I")
    est.set_params(learner=None).partial_fit(X[90:], y[90:])
    assert est.learner_.get_params() == PA().get_params()
