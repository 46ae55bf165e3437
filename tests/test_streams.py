"""olearn.datasets.streams: permutations, label noise and the four-phase stream of
"Online large-margin learning with regularization", section 4."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from olearn import datasets
from olearn.datasets import streams

# (start, end) of P(P1), P(P2), P(N1), P(N2) in each phase, as the paper states them
PAPER_SCHEDULE = {
    1: {"P1": (0.7, 0.5), "P2": (0.0, 0.0), "N1": (0.3, 0.5), "N2": (0.0, 0.0)},
    2: {"P1": (0.5, 0.3), "P2": (0.0, 0.2), "N1": (0.5, 0.5), "N2": (0.0, 0.0)},
    3: {"P1": (0.0, 0.0), "P2": (0.5, 0.5), "N1": (0.2, 0.0), "N2": (0.3, 0.5)},
    4: {"P1": (0.0, 0.0), "P2": (0.5, 0.3), "N1": (0.0, 0.0), "N2": (0.5, 0.7)},
}
CLASSES = ("P1", "P2", "N1", "N2")


# ------------------------------------------------------------------------ permutations
def test_permutations_are_reproducible_permutations():
    orders = datasets.permutations(50, 20, random_state=3)
    assert orders.shape == (20, 50) and orders.dtype == np.int64
    assert all(sorted(row) == list(range(50)) for row in orders.tolist())
    assert np.array_equal(orders, datasets.permutations(50, 20, random_state=3))
    assert not np.array_equal(orders, datasets.permutations(50, 20, random_state=4))
    assert len({tuple(row) for row in orders.tolist()}) == 20
    # Row k is the runner's permutation k, whatever the number of rows.
    from olearn.experiments import run  # noqa: F401  (same convention)
    for k in (0, 7):
        expected = np.random.default_rng([3, k]).permutation(50)
        assert np.array_equal(orders[k], expected)
    assert np.array_equal(datasets.permutations(50, 2, random_state=3), orders[:2])
    with pytest.raises(ValueError):
        datasets.permutations(5, 2, random_state=np.random.default_rng(1))


@pytest.mark.parametrize("n, n_perm", [(0, 3), (5, 0), (-1, 2), (2.5, 1), (3, True)])
def test_permutations_refuse_bad_sizes(n, n_perm):
    with pytest.raises(ValueError):
        datasets.permutations(n, n_perm)


# ------------------------------------------------------------------------- label noise
@given(n=st.integers(2, 300), rate=st.floats(0.0, 1.0), seed=st.integers(0, 2**16))
def test_label_noise_flips_exactly_round_rate_n(n, rate, seed):
    y = np.where(np.arange(n) % 3 == 0, 1, -1)
    noisy = datasets.label_noise(y, rate, random_state=seed)
    assert noisy.dtype == y.dtype and set(np.unique(noisy)) <= {-1, 1}
    assert (noisy != y).sum() == round(rate * n)
    assert np.array_equal(noisy, datasets.label_noise(y, rate, random_state=seed))


def test_label_noise_works_for_any_two_labels_and_copies():
    y = np.array(["spam", "ham", "ham", "spam", "ham"])
    noisy = datasets.label_noise(y, 1.0, random_state=0)
    assert noisy.tolist() == ["ham", "spam", "spam", "ham", "spam"]
    assert y.tolist() == ["spam", "ham", "ham", "spam", "ham"]  # input untouched
    zero_one = np.array([0, 1] * 50)
    assert (datasets.label_noise(zero_one, 0.1, random_state=1) != zero_one).sum() == 10
    same = datasets.label_noise(zero_one, 0.0)
    assert np.array_equal(same, zero_one) and same is not zero_one


@pytest.mark.parametrize("rate", [-0.1, 1.5, float("nan"), float("inf"), "0.1", None, True])
def test_label_noise_refuses_rates_outside_0_1(rate):
    with pytest.raises(ValueError, match="rate"):
        datasets.label_noise([1, -1, 1], rate)


def test_label_noise_needs_two_classes():
    with pytest.raises(ValueError, match="two classes"):
        datasets.label_noise([1, 1, 1, 1], 0.5)
    with pytest.raises(ValueError, match="two classes"):
        datasets.label_noise([0, 1, 2, 1], 0.5)
    assert datasets.label_noise([1, 1, 1], 0.0).tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="one-dimensional"):
        datasets.label_noise(np.ones((2, 2)), 0.5)


# ------------------------------------------------------------------- four-phase stream
def test_schedule_matches_the_paper_at_every_phase_start_and_end():
    n = 11
    probabilities = datasets.four_phase_probabilities(n)
    assert probabilities.shape == (4 * n, 4)
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    for phase, schedule in PAPER_SCHEDULE.items():
        block = probabilities[(phase - 1) * n: phase * n]
        for k, cls in enumerate(CLASSES):
            start, end = schedule[cls]
            assert block[0, k] == pytest.approx(start) and block[-1, k] == pytest.approx(end)
            assert np.allclose(block[:, k], np.linspace(start, end, n))  # linear in position
            if start == end == 0.0:
                assert np.all(block[:, k] == 0.0)


def _synthetic_pool(per_class=30000):
    """Pool with the four classes plus an unused one; X's single column is the row id."""
    labels = np.repeat(np.array(["a", "b", "c", "d", "other"]), per_class)
    X = np.arange(len(labels), dtype=np.float64)[:, None]
    return X, labels


def test_empirical_class_frequencies_follow_the_schedule():
    X, labels = _synthetic_pool()
    n = 20000
    stream = datasets.four_phase_stream(X, labels, "a", "b", "c", "d", n, random_state=0)
    assert stream.X.shape == (4 * n, 1) and len(stream.y) == 4 * n
    assert np.array_equal(stream.phase, np.repeat([1, 2, 3, 4], n))
    source = stream.source_class
    assert "other" not in set(source)
    names = dict(zip(CLASSES, "abcd"))
    for phase, schedule in PAPER_SCHEDULE.items():
        block = source[stream.phase == phase]
        halves = (block[: n // 2], block[n // 2:])
        for cls, (start, end) in schedule.items():
            if start == end == 0.0:
                assert not np.any(block == names[cls])  # exactly zero probability
                continue
            # mean over the phase is (start + end) / 2; over each half it is 1/4 and 3/4 of the way
            assert np.mean(block == names[cls]) == pytest.approx((start + end) / 2, abs=0.012)
            assert np.mean(halves[0] == names[cls]) == pytest.approx(0.75 * start + 0.25 * end, abs=0.015)
            assert np.mean(halves[1] == names[cls]) == pytest.approx(0.25 * start + 0.75 * end, abs=0.015)
    assert np.array_equal(stream.y, np.where(np.isin(source, ["a", "b"]), 1, -1))
    # rows really come from their class, drawn without replacement (pools are big enough)
    rows = stream.X[:, 0].astype(int)
    assert np.array_equal(labels[rows], source)
    assert len(np.unique(rows)) == len(rows)


def test_small_pools_are_used_up_before_any_instance_repeats():
    labels = np.array([1] * 7 + [2] * 5 + [3] * 9 + [4] * 3)
    X = sp.csr_matrix(np.arange(len(labels), dtype=np.float64)[:, None] + 1.0)
    stream = datasets.four_phase_stream(X, labels, 1, 2, 3, 4, 40, random_state=5)
    assert sp.isspmatrix_csr(stream.X) and stream.X.shape == (160, 1)
    rows = stream.X.toarray()[:, 0].astype(int) - 1
    for cls in (1, 2, 3, 4):
        order = rows[stream.source_class == cls]
        size = int((labels == cls).sum())
        used = np.bincount(order, minlength=len(labels))[labels == cls]
        # every instance is used len(order) // size times, some once more (the last pass)
        assert used.min() == len(order) // size and used.max() - used.min() <= 1
        for start in range(0, len(order), size):  # each pass visits distinct instances
            chunk = order[start:start + size]
            assert len(np.unique(chunk)) == len(chunk)


def test_stream_is_reproducible():
    X, labels = _synthetic_pool(2000)
    one = datasets.four_phase_stream(X, labels, "a", "b", "c", "d", 300, random_state=42)
    two = datasets.four_phase_stream(X, labels, "a", "b", "c", "d", 300, random_state=42)
    three = datasets.four_phase_stream(X, labels, "a", "b", "c", "d", 300, random_state=43)
    assert all(np.array_equal(u, v) for u, v in zip(one, two))
    assert not np.array_equal(one.X, three.X)


def test_stream_input_errors():
    X, labels = _synthetic_pool(10)
    with pytest.raises(ValueError, match="different"):
        datasets.four_phase_stream(X, labels, "a", "a", "c", "d", 10)
    with pytest.raises(ValueError, match="does not occur"):
        datasets.four_phase_stream(X, labels, "a", "b", "c", "zzz", 10)
    with pytest.raises(ValueError, match="rows"):
        datasets.four_phase_stream(X[:5], labels, "a", "b", "c", "d", 10)
    with pytest.raises(ValueError, match="n_per_phase"):
        datasets.four_phase_stream(X, labels, "a", "b", "c", "d", 0)
    with pytest.raises(TypeError, match="random_state"):
        datasets.four_phase_stream(X, labels, "a", "b", "c", "d", 5, random_state="seed")


def test_draw_never_picks_a_zero_probability_class():
    probabilities = np.array([[0.7, 0.0, 0.3, 0.0], [0.0, 0.5, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0]] * 2000)
    drawn = streams._draw_classes(probabilities, np.random.default_rng(0))
    assert set(drawn[0::3]) == {0, 2} and set(drawn[1::3]) == {1, 3} and set(drawn[2::3]) == {3}


# ------------------------------------------------------------------ the paper's pools
def test_four_phase_names():
    assert datasets.four_phase_names() == [
        "20newsgroups-baseball-hockey-vs-autos-motorcycles",
        "20newsgroups-crypt-electronics-vs-guns-mideast",
        "usps-3-7-vs-8-9",
    ]


def test_load_four_phase_usps(require_data, data_home):
    require_data("usps-3-7-vs-8-9")
    stream = datasets.load_four_phase("usps-3-7-vs-8-9", random_state=0, data_home=data_home)
    X, y, phase, source = stream
    assert X.shape == (2000, 256) and np.bincount(phase).tolist() == [0, 500, 500, 500, 500]
    assert set(source[phase == 1]) <= {3, 8} and set(source[phase == 4]) <= {7, 9}
    assert np.array_equal(y, np.where(np.isin(source, [3, 7]), 1, -1))
    again = datasets.load_four_phase("usps-3-7-vs-8-9", random_state=0, data_home=data_home)
    assert np.array_equal(again.X, X)
    short = datasets.load_four_phase("usps-3-7-vs-8-9", random_state=1, n_per_phase=50,
                                     data_home=data_home)
    assert short.X.shape == (200, 256)


def test_load_four_phase_newsgroups(require_data, data_home):
    require_data("20newsgroups-baseball-hockey-vs-autos-motorcycles")
    stream = datasets.load_four_phase("20newsgroups-baseball-hockey-vs-autos-motorcycles",
                                      random_state=0, data_home=data_home)
    assert stream.X.shape[0] == 3200 and sp.isspmatrix_csr(stream.X)
    assert set(stream.source_class[stream.phase == 1]) <= {"rec.sport.baseball", "rec.autos"}
    assert set(stream.source_class[stream.phase == 3]) <= {
        "rec.sport.hockey", "rec.autos", "rec.motorcycles"}
