"""olearn.experiments.kernel_demos and olearn.plotting.kernel (the kernels part's figures)."""
import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest

from olearn import DUOL, KernelPerceptron
from olearn.bounds import duol_updates
from olearn.experiments.kernel_demos import first_double_update, moons_stream, round_cost
from olearn.plotting.kernel import (plot_boundaries, plot_double_update, plot_dual_account,
                                    plot_round_cost)


def test_first_double_update_moves_exactly_the_two_weights():
    X, y = moons_stream(200)
    before, after, t, b = first_double_update(DUOL(sigma=0.5), X, y)
    assert after.n_double_updates_ == 1 and before.n_double_updates_ == 0
    g0, g1 = np.abs(before.dual_coef_.ravel()), np.abs(after.dual_coef_.ravel())
    moved = np.flatnonzero(g1[:-1] != g0)
    assert moved.tolist() == [b]
    assert np.isclose(g1[-1], min(5.0, 1 / (1 - 0.2)))
    assert np.isclose(g1[b], min(5.0, g0[b] + 1 / (1 - 0.2)))
    # the same round replayed by the bounds module names the same auxiliary example
    u = duol_updates(X[:t + 1], y[:t + 1], DUOL(sigma=0.5))
    assert int(u[u["double"]]["b"].iloc[0]) == b


def test_first_double_update_raises_without_one():
    X, y = moons_stream(40)
    with pytest.raises(ValueError, match="no double update"):
        first_double_update(DUOL(sigma=0.5, rho=0.999), X, y)


def test_round_cost_continues_the_stream():
    X, y = moons_stream(301)
    table = round_cost({"Perceptron": KernelPerceptron(sigma=0.5)}, X, y, chunk=100, repeats=2)
    assert len(table) == 3 and (table["us_per_round"] > 0).all()
    full = KernelPerceptron(sigma=0.5).fit(X, y)
    assert table["support"].iloc[-1] <= full.n_support_
    assert table["support"].is_monotonic_increasing


def test_figures_draw():
    X, y = moons_stream(120)
    models = {"Perceptron": KernelPerceptron(sigma=0.5).fit(X, y), "DUOL": DUOL(sigma=0.5).fit(X, y)}
    fig = plot_boundaries(models, X, y, ncols=2, n=30)
    assert "mistakes" in fig.axes[0].get_title()
    before, after, t, b = first_double_update(DUOL(sigma=0.5), X, y)
    left, right = plot_double_update(before, after, X[t], b, n=30)
    assert len(right.patches) == 2 * after.n_support_
    plot_dual_account(duol_updates(X, y, DUOL(sigma=0.5)), 0.2)
    ax = plot_round_cost(round_cost(models, X, y, chunk=50, repeats=1), load=(1.0, 2.0, 3.0))
    assert "load average 1.00" in ax.get_title()


def test_single_vs_double_margins():
    import copy

    X, y = moons_stream(200)
    before, after, t, b = first_double_update(DUOL(sigma=0.5), X, y)
    single = copy.deepcopy(before).set_params(rho=0.999)
    single.partial_fit(X[t:t + 1], y[t:t + 1])
    from olearn.plotting.kernel import plot_single_vs_double

    _, margins = plot_single_vs_double(before, single, after, X[t], y[t], b, n=30)
    assert np.isclose(margins[0], before.scores_[b])
    assert np.isclose(margins[2], after.scores_[b])
    assert margins[1] < margins[0] < margins[2]     # single hurts x_b, double repairs it


def test_dual_gain_figure_marks_the_gains():
    from olearn.kernel.updates import dual_gain, duol_exact_step
    from olearn.plotting.kernel import plot_dual_gain

    args = (1.1, 1.2, 1.0, 1.0, -0.6)
    exact = duol_exact_step(*args, 5.0, 4.0)
    ax = plot_dual_gain(*args, 5.0, 4.0, points={"exact": exact, "paper": (1.25, 1.25)}, n=20)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].endswith(f"{dual_gain(*exact, *args):.3f}")
