"""olearn.plotting.second_order and the Table 1 bookkeeping of olearn.experiments.arow
(the figures and tables of the second-order pages)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from olearn import AROW, CW, NAROW, SOP  # noqa: E402
from olearn.experiments import arow as ex  # noqa: E402
from olearn.plotting.second_order import (plot_diagonal_readings,  # noqa: E402
                                          plot_family_evolution, snapshots)


def _stream(n=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    return X, np.where(X @ np.array([1.0, 0.3]) > 0, 1, -1)


def test_snapshots_are_the_learners_states_after_each_prefix():
    X, y = _stream()
    for est in (AROW(r=1.0), CW(eta=0.9), SOP(a=2.0), NAROW(b=1.0), AROW(covariance="diag")):
        snaps = snapshots(est, X, y, stops=(0, 1, 7, 60))
        assert [t for t, _, _ in snaps] == [0, 1, 7, 60]
        assert np.allclose(snaps[0][1], 0) and np.allclose(snaps[0][2], est._sigma0() * np.eye(2))
        for t, mu, S in snaps[1:]:
            ref = type(est)(**est.get_params()).partial_fit(X[:t], y[:t], classes=[-1, 1])
            cov = ref.covariance_
            assert np.allclose(mu, ref.coef_.ravel())
            assert np.allclose(S, np.diag(cov) if cov.ndim == 1 else cov)


def test_family_and_diagonal_figures_draw_one_panel_per_learner():
    X, y = _stream()
    fig, axes = plt.subplots(1, 3)
    plot_family_evolution({"a": AROW(), "c": CW(), "s": SOP()}, X, y, (0, 5, 60), axes=axes)
    assert all(len(ax.lines) >= 3 for ax in axes)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2)
    plot_diagonal_readings(np.eye(2), np.eye(2) / 2, [0.5, 0.5], [0.5, 0.5], axes=axes)
    assert all(len(ax.lines) == 3 for ax in axes)
    plt.close(fig)


def _table():
    rows = []
    for task, kind in (("usps-3-vs-5", "ocr-split"), ("usps-1-vs-2", "ocr-split")):
        for noise in (0.0, 0.3):
            for k, learner in enumerate(ex.LEARNERS):
                grid = ex.GRIDS[learner][1]
                rows.append({"task": task, "kind": kind, "noise": noise, "learner": learner,
                             "accuracy": 0.9 - 0.01 * k, "value": grid[0] if noise else grid[-1]})
    return pd.DataFrame(rows)


def test_side_by_side_deviation_is_ours_minus_paper():
    ranks = ex.mean_ranks(_table())
    side = ex.side_by_side(ranks)
    assert list(side.columns[:3]) == [("AROW", "paper"), ("AROW", "ours"), ("AROW", "deviation")]
    for learner in ex.LEARNERS:
        assert np.allclose(side[(learner, "deviation")].dropna(),
                           (ranks[learner] - ex.PAPER_TABLE1[learner]).dropna())


def test_family_table_counts_and_grid_edges():
    table = _table()
    families, tasks = ex.family_table(table)
    assert families.loc["total", "ours: tasks"] == len(tasks) == 2
    assert families.loc["total", "paper: tasks"] == 130
    edges = ex.grid_edges(table, noise=0.3)
    assert (edges["share at smallest"] == 1.0).all() and (edges["share at largest"] == 0.0).all()
