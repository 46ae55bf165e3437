"""Figures of the part "Second-order learning at scale" (BCW, SBCW) and of the
Tan et al. (2016) reproduction pages.  Matplotlib is imported on first use;
the data come from :mod:`olearn.experiments.batch_cw_demos` or stored runs.
"""
import numpy as np


def _axes(ax, ncols=1, figsize=None):
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    _, ax = plt.subplots(1, ncols, figsize=figsize)
    return ax


def gaussian_ellipse(ax, mu, Sigma, scale=1.0, **style):
    """Draw the contour ``(w - mu)' Sigma^{-1} (w - mu) = scale^2`` of a 2-D Gaussian."""
    lam, V = np.linalg.eigh(np.asarray(Sigma)[:2, :2])
    angle = np.linspace(0, 2 * np.pi, 200)
    circle = np.stack([np.cos(angle), np.sin(angle)])
    points = (V * (scale * np.sqrt(lam))) @ circle + np.asarray(mu)[:2, None]
    return ax.plot(points[0], points[1], **style)


def plot_batch_path(path, X, y, batch_size, axes=None):
    """Two panels: the rows of each batch with the separating line of the mean
    learned after it (left); ``N(mu, Sigma)`` in weight space before the first
    batch and after each batch, with the path of the mean (right).

    ``path`` is the list of :func:`olearn.experiments.batch_cw_demos.batch_path`.
    """
    axes = _axes(axes, 2, (10, 4.3))
    left, right = axes
    colors = [f"C{k}" for k in range(10)]
    n_batches = len(path) - 1
    lim = 1.1 * np.abs(X).max()
    for h in range(n_batches):
        rows = slice(h * batch_size, (h + 1) * batch_size)
        Xb, yb = X[rows], y[rows]
        left.scatter(Xb[yb > 0, 0], Xb[yb > 0, 1], marker="+", color=colors[h + 1], s=40)
        left.scatter(Xb[yb < 0, 0], Xb[yb < 0, 1], marker="o", facecolors="none",
                     edgecolors=colors[h + 1], s=25)
        mu = path[h + 1][0]
        grid = np.linspace(-lim, lim, 2)
        if abs(mu[1]) > 1e-12:
            left.plot(grid, -mu[0] * grid / mu[1], color=colors[h + 1],
                      label=f"after batch {h + 1}")
        else:
            left.axvline(0, color=colors[h + 1], label=f"after batch {h + 1}")
    left.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal", xlabel="$x_1$",
             ylabel="$x_2$", title=r"rows and the line $\mu\cdot x = 0$")
    left.legend(fontsize=7, loc="lower left")
    for h, (mu, Sigma) in enumerate(path):
        label = "prior $N(0, I)$" if h == 0 else f"after batch {h}"
        gaussian_ellipse(right, mu, Sigma, color=colors[h], label=label,
                         linestyle="--" if h == 0 else "-")
        right.scatter(*mu[:2], color=colors[h], zorder=3, s=15)
    means = np.array([mu[:2] for mu, _ in path])
    right.plot(means[:, 0], means[:, 1], color="k", lw=0.8, zorder=2)
    right.set(aspect="equal", xlabel="$w_1$", ylabel="$w_2$",
              title=r"$N(\mu, \Sigma)$ over weights (1-sd contour)")
    right.legend(fontsize=7, loc="best")
    return axes


def plot_sigma_branch_times(frame, axes=None):
    """Seconds of the two forms of eq. (6) against the batch size ``N_h``:
    the paper's count (``Sigma`` only, left) and the library's step (with
    ``Upsilon``, right); a vertical line at ``N_h = d``, where
    ``sigma_method="auto"`` switches branch.  ``frame`` from
    :func:`olearn.experiments.batch_cw_demos.time_sigma_branches`."""
    axes = _axes(axes, 2, (10, 3.6))
    d = int(frame["d"].iloc[0])
    for ax, column, title in zip(axes, ("formula_s", "library_s"),
                                 (r"$\Sigma$ alone (the paper's count)",
                                  r"library: $\Sigma$ and its square root (eigh)")):
        for branch, marker in (("inverse", "o-"), ("woodbury", "s-")):
            part = frame[frame.branch == branch]
            ax.loglog(part["N_h"], part[column], marker, label=branch, ms=4)
        ax.axvline(d, color="grey", linestyle=":", label=f"$N_h = d = {d}$")
        ax.set(xlabel="batch size $N_h$", ylabel="seconds (best of repeats)", title=title)
        ax.legend(fontsize=8)
    return axes


def plot_cutting_plane(trace, n_show=None, axes=None):
    """SBCW's group selection on one batch: the scores ``s_j^2`` of eq. (14)
    at each iteration (one row of bars per iteration, the group it adds
    highlighted; left) and the group norms ``||z_k||`` after the last
    subproblem against the threshold ``S`` below which a group gets no
    weight (right).  ``trace`` from
    :func:`olearn.experiments.batch_cw_demos.cutting_plane_trace`."""
    import matplotlib.pyplot as plt

    if axes is None:
        fig = plt.figure(figsize=(10, 1.2 + 1.1 * len(trace)))
        grid = fig.add_gridspec(len(trace), 2, width_ratios=(2.2, 1))
        left = [fig.add_subplot(grid[t, 0]) for t in range(len(trace))]
        right = fig.add_subplot(grid[:, 1])
    else:
        left, right = axes
    d = trace[0]["scores"].size
    n_show = d if n_show is None else n_show
    features = np.arange(n_show)
    for t, (ax, step) in enumerate(zip(left, trace)):
        scores = step["scores"][:n_show]
        colors = ["lightgrey"] * n_show
        for j in step["group"]:
            if j < n_show:
                colors[j] = f"C{t}"
        ax.bar(features, scores, color=colors, width=0.8)
        ax.set_ylabel(f"t = {t + 1}", rotation=0, ha="right", va="center")
        ax.set_yticks([])
        if t < len(trace) - 1:
            ax.set_xticks([])
    left[0].set_title(r"scores $s_j^2$ of eq. (14); colour: the group added")
    left[-1].set_xlabel("feature $j$")
    last = trace[-1]
    K = last["norms"].size
    right.bar(np.arange(1, K + 1), last["norms"], color=[f"C{k}" for k in range(K)])
    right.axhline(last["S"], color="k", linestyle="--", label=r"threshold $S$")
    right.set(xlabel="group $k$ (order added)", ylabel=r"$\|z_k\|$",
              title="weight only above $S$")
    right.set_xticks(np.arange(1, K + 1))
    right.legend(fontsize=8)
    return left, right


def plot_saturation(Cs, leverage, d_over_n, norms, S, raw_sq=None, axes=None):
    """Why SBCW's weight stays on few groups: ``C x' Sigma x`` against ``C``
    levelling off at ``d / N`` (left: the step of Algorithms 1 and 3 stops
    depending on ``C`` and the duals sit at their bound; ``raw_sq``, the mean
    ``||x||^2``, draws the un-whitened ``C ||x||^2``), and the group norms
    ``||z_k||`` with the threshold ``S`` (right)."""
    axes = _axes(axes, 2, (10, 3.6))
    left, right = axes
    left.loglog(Cs, leverage, "o-", label=r"mean $C\,x_i^\top\Sigma x_i$")
    if raw_sq is not None:
        left.loglog(Cs, np.asarray(Cs) * raw_sq, ":", color="grey",
                    label=r"mean $C\,\|x_i\|^2$ (no whitening)")
    left.axhline(d_over_n, color="k", linestyle="--", label="$r/N_h$ (mean leverage)")
    left.set(xlabel="$C$", ylabel=r"$C\|\hat x_i\|^2$", title="the whitened step saturates")
    left.legend(fontsize=8)
    K = len(norms)
    right.bar(np.arange(1, K + 1), norms, color=[f"C{k}" for k in range(K)])
    right.axhline(S, color="k", linestyle="--", label=r"threshold $S$")
    right.set(xlabel="group $k$ (order added)", ylabel=r"$\|z_k\|$",
              title="groups with weight")
    right.set_xticks(np.arange(1, K + 1))
    right.legend(fontsize=8)
    return axes


def plot_error_time(summary, datasets=None, axes=None):
    """Test error against training time (log) per data set, one point per
    learner, from :func:`olearn.experiments.sparse_cw.summarize_table2`."""
    names = list(summary.index.get_level_values("dataset").unique()
                 if datasets is None else datasets)
    axes = np.atleast_1d(_axes(axes, len(names), (3.2 * len(names), 3.4)))
    for ax, name in zip(axes, names):
        part = summary.xs(name, level="dataset")
        for k, (learner, row) in enumerate(part.iterrows()):
            marker = "*" if learner.startswith("BCW") else "o"
            ax.scatter(row["time"], row["error_mean"], marker=marker,
                       s=90 if marker == "*" else 30, color=f"C{k % 10}", label=learner)
        ax.set_xscale("log")
        ax.set(title=name, xlabel="training time (s)")
    axes[0].set_ylabel("test error")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return axes
