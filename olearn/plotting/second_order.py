"""Figures of the part "Second-order learners" (AROW, CW, SCW, SOP, NAROW).

Every figure is drawn from the library's own learners: the functions take
fitted states or estimators and only draw.  Matplotlib is imported on first use.
"""
import numpy as np
from sklearn.base import clone

from .scale import gaussian_ellipse


def _axes(ax, ncols=1, figsize=None):
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    _, ax = plt.subplots(1, ncols, figsize=figsize)
    return ax


def snapshots(estimator, X, y, stops):
    """``[(t, mu_t, Sigma_t)]``: a fresh clone of ``estimator`` after the first
    ``t`` rows of ``(X, y)`` for each ``t`` in ``stops`` (``t = 0``: the start,
    ``mu = 0`` and ``Sigma`` the learner's initial covariance).  A diagonal
    covariance is returned as a diagonal matrix."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    classes = np.unique(y)
    # an all-zero row changes no learner: its state is the start
    start = clone(estimator).partial_fit(np.zeros((1, X.shape[1])), classes[:1], classes=classes)
    est = clone(estimator)
    est.partial_fit(X[:1], y[:1], classes=classes)
    out, seen = [], None
    for t in sorted(stops):
        if t == 0:
            S = start.covariance_
            out.append((0, start.coef_.ravel().copy(), np.diag(S) if S.ndim == 1 else S.copy()))
            continue
        if seen is None:
            seen = 1
        if t > seen:
            est.partial_fit(X[seen:t], y[seen:t])
            seen = t
        S = est.covariance_
        out.append((t, est.coef_.ravel().copy(), np.diag(S) if S.ndim == 1 else S.copy()))
    return out


def plot_gaussian_evolution(snaps, ax=None, colours=None, title=None, mean=True):
    """One-standard-deviation ellipses of ``N(mu_t, Sigma_t)`` for each snapshot
    of :func:`snapshots`, lighter for earlier rounds."""
    ax = _axes(ax)
    colours = colours or ["0.7", "tab:blue", "tab:orange", "tab:red", "tab:purple"]
    for (t, mu, S), colour in zip(snaps, colours):
        gaussian_ellipse(ax, mu, S, color=colour, label=f"after {t} rounds")
        if mean:
            ax.plot(*mu[:2], "o", color=colour, ms=3)
    ax.set_aspect("equal")
    ax.set_xlabel("$w_1$")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_family_evolution(estimators, X, y, stops, axes=None):
    """One panel per learner of ``estimators`` (a dict name -> estimator): the
    ellipses of its Gaussian after the rounds ``stops`` of the same stream."""
    axes = _axes(axes, len(estimators), figsize=(2.7 * len(estimators), 2.9))
    limit = 0.0
    for ax, (name, est) in zip(np.atleast_1d(axes), estimators.items()):
        snaps = snapshots(est, X, y, stops)
        plot_gaussian_evolution(snaps, ax=ax, title=name)
        limit = max(limit, max(np.abs(mu).max() + np.sqrt(np.diag(S)).max() for _, mu, S in snaps))
    for ax in np.atleast_1d(axes):
        ax.set(xlim=(-limit, limit), ylim=(-limit, limit))
    np.atleast_1d(axes)[0].set_ylabel("$w_2$")
    np.atleast_1d(axes)[0].legend(fontsize=6, loc="lower left")
    return axes


def plot_round(mu, Sigma, mu_next, Sigma_next, x, y, ax=None, pa_step=None):
    """One round in weight space: ``N(mu, Sigma)`` before and after, the step of
    the mean, the line ``y w.x = 1`` and, if given, a first-order step for
    comparison (``pa_step``: the weight vector a PA-type learner lands on)."""
    ax = _axes(ax)
    gaussian_ellipse(ax, mu, Sigma, color="0.5", label="before")
    gaussian_ellipse(ax, mu_next, Sigma_next, color="tab:red", label="after")
    ax.annotate("", mu_next[:2], mu[:2], arrowprops=dict(arrowstyle="->", color="tab:red", lw=1.5))
    if pa_step is not None:
        ax.annotate("", pa_step[:2], mu[:2], arrowprops=dict(arrowstyle="->", color="tab:blue", lw=1.2,
                                                             linestyle="--"))
        ax.plot(*pa_step[:2], "o", color="tab:blue", ms=4, label="first-order step")
    lim = np.abs(np.r_[mu[:2], mu_next[:2]]).max() + 1.6 * np.sqrt(np.diag(Sigma)[:2].max())
    grid = np.linspace(-lim, lim, 2)
    if abs(x[1]) > 1e-12:
        ax.plot(grid, (y - x[0] * grid) / x[1], color="tab:green", lw=0.9,
                label=r"$y_t\,\mathbf{w}\cdot\mathbf{x}_t = 1$")
    else:
        ax.axvline(y / x[0], color="tab:green", lw=0.9, label=r"$y_t\,\mathbf{w}\cdot\mathbf{x}_t = 1$")
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal", xlabel="$w_1$", ylabel="$w_2$")
    ax.legend(fontsize=7, loc="lower left")
    return ax


def plot_diagonal_readings(Sigma_before, Sigma_full, diag_precision, diag_covariance, axes=None):
    """Two panels, the two diagonal projections of one update: the full update's
    ellipse beside the axis-aligned ellipse of each reading (left: keep the
    diagonal of the precision ``Sigma^{-1}``, right: of the covariance)."""
    axes = _axes(axes, 2, figsize=(7.2, 3.4))
    zero = np.zeros(2)
    for ax, diag, name in ((axes[0], diag_precision, "precision reading:\n"
                            r"$1/\Sigma_{jj} \leftarrow 1/\Sigma_{jj} + \gamma_t x_{tj}^2$"),
                           (axes[1], diag_covariance, "covariance reading:\n"
                            r"$\Sigma_{jj} \leftarrow \Sigma_{jj} - \beta_t(\Sigma_{jj}x_{tj})^2$")):
        gaussian_ellipse(ax, zero, Sigma_before, color="0.7", label="before")
        gaussian_ellipse(ax, zero, Sigma_full, color="k", label="full update")
        gaussian_ellipse(ax, zero, np.diag(diag), color="tab:red", lw=2, label="diagonal learner")
        lim = 1.15 * np.sqrt(np.diag(Sigma_before).max())
        ax.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal", xlabel="$w_1$")
        ax.set_title(name, fontsize=9)
    axes[0].set_ylabel("$w_2$")
    axes[0].legend(fontsize=7, loc="lower left")
    return axes


def plot_lemma4(trace, ax=None):
    """Lemma 4 of the AROW paper along a run (:func:`olearn.bounds.arow_lemma_trace`):
    the running sum of ``v_t / (v_t + r)`` and the log-determinant."""
    ax = _axes(ax)
    ax.plot(trace["t"], trace["lemma4_lhs"], label=r"$\sum_s v_s/(v_s + r)$")
    ax.plot(trace["t"], trace["lemma4_rhs"], label=r"$\log\det(\Sigma_1\Sigma_{t+1}^{-1})$")
    ax.set_xlabel("round $t$")
    ax.legend(fontsize=8)
    return ax


def plot_bound_vs_r(sweep, ax=None):
    """Observed mistakes and the Theorem 2 bound against ``r`` (a frame with
    columns ``r``, ``mistakes``, ``bound``), log-log."""
    ax = _axes(ax)
    ax.plot(sweep["r"], sweep["bound"], "o-", label="bound")
    ax.plot(sweep["r"], sweep["mistakes"], "s-", label="mistakes $M$")
    ax.set(xscale="log", yscale="log", xlabel="$r$")
    ax.legend(fontsize=8)
    return ax


# -- the AROW paper's figures (stored runs of olearn.experiments.arow) -------------------
def plot_figure2a(curves, learners, ax=None):
    """Figure 2(a): mean test accuracy against training examples, with a band
    of two standard errors over the runs (full: solid, diagonal: dashed)."""
    ax = _axes(ax)
    mean = curves.groupby(["learner", "examples"])["accuracy"].mean().unstack("learner")
    sem = curves.groupby(["learner", "examples"])["accuracy"].sem().unstack("learner")
    for label in learners:
        style = "-" if "full" in label else ("--" if "diag" in label else ":")
        ax.plot(mean.index, mean[label], style, label=label)
        ax.fill_between(mean.index, mean[label] - 2 * sem[label], mean[label] + 2 * sem[label], alpha=0.15)
    ax.set(xlabel="training examples", ylabel="test accuracy (clean labels)")
    ax.legend(fontsize=8, ncol=2)
    return ax


def plot_figure2b(table, ax=None):
    """Figure 2(b): mistakes against the clean labels, one bar per learner and noise level."""
    ax = _axes(ax)
    table.plot.bar(ax=ax, rot=30)
    ax.set_ylabel("mistakes vs clean labels")
    return ax


def plot_figure3(table, noise_levels=(0.0, 0.1, 0.3), axes=None):
    """Figure 3: per-task accuracy of AROW (y) against CW (x), one panel per
    noise level, markers by kind of task."""
    axes = _axes(axes, len(noise_levels), figsize=(10, 3.4))
    for ax, noise in zip(axes, noise_levels):
        part = table[table["noise"] == noise].pivot_table(index=["task", "kind"], columns="learner",
                                                          values="accuracy")
        for kind, marker in (("ocr-split", "o"), ("ocr-cv", "s"), ("text", "^")):
            p = part.xs(kind, level="kind")
            ax.scatter(p["CW"], p["AROW"], marker=marker, s=14, label=kind)
        lo = min(part["CW"].min(), part["AROW"].min())
        ax.plot([lo, 1], [lo, 1], "k-", lw=0.8)
        ax.set_title(f"noise {noise:.0%}")
        ax.set_xlabel("CW accuracy")
    axes[0].set_ylabel("AROW accuracy")
    axes[0].legend(fontsize=7)
    return axes
