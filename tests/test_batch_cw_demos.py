"""The measured demonstrations of the BCW/SBCW pages (olearn.experiments.batch_cw_demos)
and their figures (olearn.plotting.scale)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from olearn import BCW, SBCW  # noqa: E402
from olearn.plotting import scale as plotting_scale  # noqa: E402
from olearn.experiments import batch_cw_demos as demo  # noqa: E402


def _stream(n=60, d=30, seed=0):
    rng = np.random.default_rng(seed)
    signal = rng.standard_normal((n, 5))
    y = np.where(signal @ rng.uniform(1, 2, 5) > 0, 1.0, -1.0)
    noise = sp.random(n, d - 5, density=0.1, random_state=seed, format="csr")
    return sp.hstack([sp.csr_matrix(signal), noise]).tocsr(), y


def test_batch_path_is_bcw_batch_by_batch():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((24, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    path, model = demo.batch_path(X, y, 8, C=0.5)
    assert len(path) == 4 and np.allclose(path[0][1], np.eye(3))
    ref = BCW(C=0.5, batch_size=8).fit(X, y)
    assert np.allclose(path[-1][0], ref.coef_[0]) and np.allclose(path[-1][1], ref.covariance_)
    _, axes = plt.subplots(1, 2)
    plotting_scale.plot_batch_path(path, X, y, 8, axes=axes)
    plt.close("all")


def test_cutting_plane_trace_is_sbcw_fit():
    X, y = _stream()
    params = dict(C=0.5, r=2, m_iter=4, tol=0)
    trace = demo.cutting_plane_trace(SBCW(**params), X, y)
    model = SBCW(**params).fit(X, y)
    assert [list(s["group"]) for s in trace] == [list(g) for g in model.groups_]
    last = trace[-1]
    carrying = [k for k, a in enumerate(last["norms"]) if a > last["S"]]
    nonzero = [k for k, m in enumerate(model._mu_blocks) if np.any(m != 0)]
    assert carrying == nonzero
    plotting_scale.plot_cutting_plane(trace)
    plt.close("all")


def test_whitened_leverage_levels_off_at_d_over_n():
    X = np.random.default_rng(2).standard_normal((50, 4))
    lev = demo.whitened_leverage(X, [1e-3, 1.0, 1e4])
    assert lev[0] < lev[1] < lev[2] and abs(lev[2] - 4 / 50) < 1e-4


def test_time_sigma_branches_frame():
    frame = demo.time_sigma_branches(d=20, sizes=(5, 40), repeats=1)
    assert set(frame.branch) == {"inverse", "woodbury"} and len(frame) == 4
    assert (frame[["formula_s", "library_s"]] > 0).all().all()
    plotting_scale.plot_sigma_branch_times(frame)
    plt.close("all")


def test_warm_start_terms_start_at_the_previous_mean():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 6))
    y = np.where(X @ rng.standard_normal(6) > 0, 1, -1)
    model = SBCW(r=2, tol=0, m_iter=2, step="exact", n_inner_passes=100, sigma=0.05, C=0.1)
    model.partial_fit(X[:100], y[:100])
    mu_hat = [m.copy() for m in model._mu_blocks]
    model.partial_fit(X[100:], y[100:])
    z0, w, ptr = demo.warm_start_terms(mu_hat, model)
    assert z0.shape == w.shape and ptr[-1] == w.size
    # primal and dual of the Bregman form meet; without -z0.w they would not
    assert abs(model.primal_[-1] - model.theta_[-1]) < 1e-7 * abs(model.primal_[-1])
    assert abs(z0 @ w) > 1e-3
