"""Figures of the part "Kernels and double updating" (the pages book/duol/).  Matplotlib is
imported on first use; the models are olearn's kernel learners, the data come from
:mod:`olearn.experiments.kernel_demos` and :func:`olearn.bounds.duol_updates`.
"""
import numpy as np

LABEL_COLORS = {-1: "tab:blue", 1: "tab:red"}


def _axes(ax, ncols=1, figsize=None):
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax
    _, ax = plt.subplots(1, ncols, figsize=figsize)
    return ax


def _grid(X, n=120, pad=0.5):
    lo, hi = X.min(0) - pad, X.max(0) + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n))
    return gx, gy, np.column_stack([gx.ravel(), gy.ravel()])


def _points(ax, X, y, **style):
    for label, color in LABEL_COLORS.items():
        keep = y == label
        ax.scatter(X[keep, 0], X[keep, 1], s=10, color=color, alpha=0.6, **style)


def plot_boundary(model, X, y, ax=None, title=None, n=120):
    """The score ``f`` of a fitted kernel learner over the plane (colours, clipped to
    [-1, 1] after dividing by its largest absolute value on the grid), its zero line,
    the stream ``(X, y)`` and the support vectors (black rings)."""
    ax = _axes(ax)
    gx, gy, grid = _grid(X, n)
    z = model.decision_function(grid).reshape(gx.shape)
    scale = max(np.abs(z).max(), 1e-300)
    ax.contourf(gx, gy, z / scale, levels=np.linspace(-1, 1, 11), cmap="coolwarm", alpha=0.45)
    ax.contour(gx, gy, z, levels=[0.0], colors="k", linewidths=1.5)
    _points(ax, X, y)
    sv = model.support_vectors_
    ax.scatter(sv[:, 0], sv[:, 1], s=22, facecolors="none", edgecolors="k", linewidths=0.6)
    ax.set_xticks([])
    ax.set_yticks([])
    if title is not None:
        ax.set_title(title, fontsize=9)
    return ax


def plot_boundaries(models, X, y, ncols=4, n=120):
    """One :func:`plot_boundary` panel per fitted learner of ``models`` ({name: model}),
    titled with its mistakes and support size on the stream."""
    import matplotlib.pyplot as plt

    nrows = int(np.ceil(len(models) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 3.0 * nrows))
    for ax, (name, model) in zip(np.ravel(axes), models.items()):
        plot_boundary(model, X, y, ax=ax, n=n,
                      title=f"{name}\n{model.n_mistakes_} mistakes, |S| = {model.n_support_}")
    for ax in np.ravel(axes)[len(models):]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_double_update(before, after, x_a, b, axes=None, n=120, pad=0.8):
    """DUOL's double update in the support set.

    Left: the input space; every support vector is a disc of area proportional to
    its weight ``gamma_i`` after the update (colour = label), with a grey ring for
    its weight before; the two weights that move (the new example ``x_a`` and the
    auxiliary example ``x_b``) are annotated; the zero line of ``f`` before (dashed)
    and after (solid).  Right: every coefficient ``gamma_i`` before and after.
    """
    axes = _axes(axes, 2, (11, 4.3))
    left, right = axes
    sv = after.support_vectors_
    g1 = np.abs(after.dual_coef_.ravel())
    lab = np.sign(after.dual_coef_.ravel()).astype(int)
    g0 = np.r_[np.abs(before.dual_coef_.ravel()), 0.0]
    gx, gy, grid = _grid(sv, n, pad)
    for model, style in ((before, "--"), (after, "-")):
        z = model.decision_function(grid).reshape(gx.shape)
        left.contour(gx, gy, z, levels=[0.0], colors="k", linestyles=style, linewidths=1.3)
    size = 320.0 / max(g1.max(), 1e-12)
    for label, color in LABEL_COLORS.items():
        keep = lab == label
        left.scatter(sv[keep, 0], sv[keep, 1], s=size * g1[keep], color=color, alpha=0.55)
    left.scatter(sv[:, 0], sv[:, 1], s=size * g0, facecolors="none", edgecolors="0.4",
                 linewidths=0.8)
    a = sv.shape[0] - 1
    for i, name, offset in ((a, "new $x_a$", (25, -45)), (b, "auxiliary $x_b$", (-110, 35))):
        left.annotate(f"{name}\n$\\gamma$: {g0[i]:.2f} $\\to$ {g1[i]:.2f}", sv[i],
                      xytext=offset, textcoords="offset points", fontsize=8,
                      arrowprops=dict(arrowstyle="-", color="k", lw=0.7),
                      bbox=dict(boxstyle="round", fc="white", ec="0.6", alpha=0.9))
    left.plot(*np.c_[sv[a], sv[b]], color="green", lw=1.0, ls=":")
    left.set(xlabel="$x_1$", ylabel="$x_2$",
             title="support set: disc = $\\gamma_i$ after, ring = before;\n"
                   "$f = 0$ before (dashed) and after (solid)")
    idx = np.arange(g1.size)
    right.bar(idx - 0.2, g0, width=0.4, color="0.7", label="before")
    right.bar(idx + 0.2, g1, width=0.4, color=[LABEL_COLORS[v] for v in lab], label="after")
    for i in (a, b):
        right.annotate("a" if i == a else "b", (i, g1[i]), ha="center", va="bottom", fontsize=9)
    right.set(xlabel="support vector $i$ (order of arrival)", ylabel="$\\gamma_i$",
              title="the coefficients: only $\\gamma_a$ and $\\gamma_b$ change")
    right.legend(fontsize=8)
    return axes


def plot_dual_account(updates, rho, axes=None):
    """The proof gap of Theorem 3, drawn on a stream.

    ``updates`` is :func:`olearn.bounds.duol_updates`.  Left: the dual objective
    ``D`` after each update (the sum of the gains ``h``) against the round, beside
    the proof's account ``M_s / 2 + M_d / (1 - rho)`` (gains it credits to the
    mistakes); the margin-error updates that lower ``D`` are marked.  Right: the
    gain of every update against its margin ``y_t f(x_t)``; a single update with
    ``k(x, x) = 1`` gains ``1/2 - y_t f(x_t)`` (grey line), negative for margins
    in (1/2, 1).
    """
    axes = _axes(axes, 2, (11, 4.0))
    left, right = axes
    u = updates
    D = np.cumsum(u["h_step"].to_numpy())
    mistake, double = u["mistake"].to_numpy(), u["double"].to_numpy()
    credit = np.cumsum(np.where(mistake, np.where(double, 1.0 / (1.0 - rho), 0.5), 0.0))
    t = u["t"].to_numpy() + 1
    left.plot(t, D, color="k", label="dual $D$ (sum of the gains $h$)")
    left.plot(t, credit, color="tab:green", ls="--",
              label="proof's account: $M_s/2 + M_d/(1-\\rho)$")
    neg = (~mistake) & (u["h_step"].to_numpy() < 0)
    left.scatter(t[neg], D[neg], s=12, color="tab:orange", zorder=3,
                 label="margin-error update with $h < 0$")
    left.set(xlabel="round $t$", ylabel="dual objective", title="the dual along the stream")
    left.legend(fontsize=8)
    kinds = [("mistake, single", mistake & ~double, "tab:blue"),
             ("mistake, double", mistake & double, "tab:purple"),
             ("margin error, single", ~mistake & ~double, "tab:orange"),
             ("margin error, double", ~mistake & double, "tab:red")]
    margin = u["margin"].to_numpy()
    for name, keep, color in kinds:
        if keep.any():
            right.scatter(margin[keep], u["h_step"].to_numpy()[keep], s=12, color=color,
                          label=name)
    m = np.linspace(min(margin.min(), 0.0), 1.0, 50)
    right.plot(m, 0.5 - m, color="0.5", lw=1, label="single step: $1/2 - y_t f(x_t)$")
    right.axhline(0.0, color="k", lw=0.6)
    right.axvspan(0.5, 1.0, color="tab:orange", alpha=0.08)
    right.set(xlabel="margin $y_t f(x_t)$ before the update", ylabel="gain $h$ of the update",
              title="gain against margin")
    right.legend(fontsize=7)
    return axes


def plot_round_cost(table, ax=None, load=None):
    """Microseconds per round against the support size (:func:`olearn.experiments.
    kernel_demos.round_cost`), one line per learner, log-log; ``load`` (the load
    averages) goes into the title: the times are this machine's, at that load."""
    ax = _axes(ax, 1, (6.5, 4.2))
    for name, part in table.groupby("learner", sort=False):
        ax.plot(part["support"], part["us_per_round"], marker="o", ms=3, label=name)
    from matplotlib.ticker import NullFormatter

    ax.set(xscale="log", yscale="log", xlabel="support size $|S|$",
           ylabel="microseconds per round")
    ax.xaxis.set_minor_formatter(NullFormatter())
    title = "cost per round, measured on this machine"
    if load is not None:
        title += "\n(load average " + ", ".join(f"{v:.2f}" for v in load) + ")"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_single_vs_double(before, single, double, x_a, y_a, b, axes=None, n=150):
    """Three panels over the plane: DUOL before a round, after a single update (the new
    example added with ``gamma_a = 1``) and after its double update.  Colours: the score;
    black line: ``f = 0``; dots: the support vectors before the round; star: the new
    example ``x_a``; green square: the auxiliary example ``x_b``, whose margin
    ``y_b f(x_b)`` is in each title.  Returns the axes and the three margins."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    sv = before.support_vectors_
    lab = np.sign(before.dual_coef_.ravel())
    x_b, y_b = sv[b], lab[b]
    everything = np.vstack([sv, np.asarray(x_a)[None]])
    gx, gy, grid = _grid(everything, n, pad=1.0)
    margins = []
    for ax, (title, model) in zip(axes, [("before round t", before), ("single update", single),
                                         ("DUOL double update", double)]):
        z = model.decision_function(grid).reshape(gx.shape)
        ax.contourf(gx, gy, z, levels=np.linspace(-3, 3, 13), cmap="coolwarm", extend="both",
                    alpha=0.6)
        ax.contour(gx, gy, z, levels=[0.0], colors="k")
        ax.scatter(sv[:, 0], sv[:, 1], c=lab, cmap="coolwarm", edgecolors="k", s=25)
        ax.scatter(*x_a, marker="*", s=300, c=LABEL_COLORS[int(y_a)], edgecolors="k",
                   label="new example $x_a$")
        ax.scatter(*x_b, marker="s", s=140, facecolors="none", edgecolors="lime",
                   linewidths=2.5, label="auxiliary $x_b$")
        margins.append(float(y_b * model.decision_function(x_b[None])[0]))
        ax.set_title(f"{title}\n$y_b f(x_b)$ = {margins[-1]:.2f}")
    axes[0].legend(loc="lower left", fontsize=8)
    return axes, margins


def plot_dual_gain(la, lb, sa, sb, wab, C, ub, points=None, ax=None, n=200):
    """Contours of the dual gain ``h(gamma_a, dgamma_b)`` of a double update (Lemma 1,
    :func:`olearn.kernel.updates.dual_gain`) over the box ``[0, C] x [0, ub]``, with
    named points ``{label: (gamma_a, dgamma_b)}`` marked and their gains in the legend."""
    from ..kernel.updates import dual_gain

    ax = _axes(ax, 1, (5.5, 4.5))
    ga, gb = np.meshgrid(np.linspace(0, C, n), np.linspace(0, ub, n))
    h = np.vectorize(dual_gain)(ga, gb, la, lb, sa, sb, wab)
    filled = ax.contourf(ga, gb, h, levels=20, cmap="viridis")
    ax.contour(ga, gb, h, levels=[0.0], colors="w", linewidths=1.2, linestyles="--")
    ax.figure.colorbar(filled, ax=ax, label="dual gain $h$")
    markers = iter("o^sDv")
    for label, (x, y) in (points or {}).items():
        ax.scatter([x], [y], marker=next(markers), s=70, edgecolors="k", zorder=3,
                   label=f"{label}: $h$ = {dual_gain(x, y, la, lb, sa, sb, wab):.3f}")
    ax.set(xlabel="$\\gamma_a$ (new example)", ylabel="$\\Delta\\gamma_b$ (auxiliary example)",
           title="dual gain of a double update over the box")
    if points:
        ax.legend(fontsize=8, loc="upper right")
    return ax
