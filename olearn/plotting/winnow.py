"""Figures of the Winnow pages (book/single_pass/winnow*): one call per figure."""
import matplotlib.pyplot as plt
import numpy as np

_STYLE = {"Positive Winnow": dict(color="C0", marker="o"),
          "Balanced Winnow": dict(color="C2", marker="s"),
          "PW bound": dict(color="C0", ls="--"),
          "Perceptron": dict(color="C3", marker="^")}


def plot_mistakes_vs_d(frame, ax=None):
    """Mistakes against the number of features ``d`` (log axis), one line per
    learner of :func:`olearn.bounds.winnow.mistakes_against_d`."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.6))
    for name, part in frame.groupby("learner", sort=False):
        ax.plot(part.d, part.mistakes, label=name, **_STYLE.get(name, {}))
    ax.set_xscale("log")
    ax.set_xlabel("number of features d (k = 5 relevant)")
    ax.set_ylabel("mistakes in one pass")
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def plot_weight_paths(log_w_mult, w_add, relevant, ax=None):
    """Weights against the round: multiplicative (log scale) beside additive.

    ``log_w_mult`` and ``w_add`` are arrays ``(rounds + 1, d)``; the columns
    in ``relevant`` are drawn in colour, the others in grey.
    """
    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(9, 3.2))
    mask = np.zeros(w_add.shape[1], bool)
    mask[relevant] = True
    for a, w, title in ((ax[0], np.exp(log_w_mult), "Positive Winnow: u_j (log scale)"),
                        (ax[1], w_add, "Perceptron: w_j")):
        a.plot(w[:, ~mask], color="0.75", lw=0.6)
        a.plot(w[:, mask], lw=1.6)
        a.set_title(title, fontsize=10)
        a.set_xlabel("round t")
    ax[0].set_yscale("log")
    ax[0].figure.tight_layout()
    return ax[0].figure


def plot_normalisation(u, theta, ax=None, extent=4.0):
    """What augmentation and normalisation do to Positive Winnow on two features.

    Left: the raw rule ``u1 x1 + u2 x2 > theta`` (no always-on feature, no
    normalisation).  Right: the paper's rule ``<[x, 1], u> / (1 + x1 + x2) >
    theta``, which is the linear rule ``(u1 - theta) x1 + (u2 - theta) x2 +
    (u_b - theta) > 0``: positive weights below ``theta`` vote for the
    negative class.  ``u = (u1, u2, u_b)``.
    """
    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    g = np.linspace(0.0, extent, 300)
    x1, x2 = np.meshgrid(g, g)
    raw = u[0] * x1 + u[1] * x2 - theta
    normalised = (u[0] * x1 + u[1] * x2 + u[2]) / (1.0 + x1 + x2) - theta
    for a, s, title in ((ax[0], raw, "raw: u.x > theta"),
                        (ax[1], normalised, "augmented, normalised: <x~, u> > theta")):
        a.contourf(x1, x2, s > 0, levels=[-0.5, 0.5, 1.5], colors=["#f4c7c3", "#c6dbef"])
        a.contour(x1, x2, s, levels=[0.0], colors="k")
        a.set_title(title, fontsize=10)
        a.set_xlabel("x1")
    ax[0].set_ylabel("x2")
    ax[0].figure.tight_layout()
    return ax[0].figure


def plot_efs(efs, ax=None):
    """MBW test error against the features kept, one panel per data set: EFS
    for each ``P`` (solid) and the batch rankings IG and CHI (dashed)."""
    sets = list(dict.fromkeys(efs.dataset))
    if ax is None:
        _, ax = plt.subplots(1, len(sets), figsize=(4.6 * len(sets), 3.3))
    for a, key in zip(np.atleast_1d(ax), sets):
        for method, part in efs[efs.dataset == key].groupby("method", sort=False):
            a.plot(part.k, part.error, marker=".", label=method,
                   ls="--" if method in ("IG", "CHI") else "-")
        a.set_xscale("log")
        a.set_title(key)
        a.set_xlabel("features kept k")
    first = np.atleast_1d(ax)[0]
    first.set_ylabel("MBW test error (%)")
    first.legend(fontsize=8)
    first.figure.tight_layout()
    return first.figure


def plot_curves(curves, metric, ylabel, learners, ax=None):
    """A learning curve per data set: ``metric`` against training examples seen."""
    sets = list(dict.fromkeys(curves.dataset))
    if ax is None:
        _, ax = plt.subplots(1, len(sets), figsize=(4.6 * len(sets), 3.3))
    for a, key in zip(np.atleast_1d(ax), sets):
        for name in learners:
            part = curves[(curves.dataset == key) & (curves.learner == name)]
            a.plot(part.examples, part[metric], label=name)
        a.set_xscale("log")
        a.set_title(key)
        a.set_xlabel("training examples seen")
    first = np.atleast_1d(ax)[0]
    first.set_ylabel(ylabel)
    first.legend(fontsize=8)
    first.figure.tight_layout()
    return first.figure


def plot_vote_vs_last(frame, ax=None):
    """Test error against examples seen for a learner's last hypothesis and its
    vote; ``frame`` has columns ``examples, model, error``."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.4))
    for name, part in frame.groupby("model", sort=False):
        ax.plot(part.examples, part.error, marker=".", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("training examples seen")
    ax.set_ylabel("test error (%)")
    ax.legend(fontsize=8)
    ax.figure.tight_layout()
    return ax.figure


def with_dashes(frame, decimals=1):
    """``frame`` as text for display: numbers to ``decimals`` places, a dash
    where a value is missing (a paper that gives no value), strings as given."""
    import pandas as pd

    def cell(v):
        if isinstance(v, str):
            return v
        if v is None or pd.isna(v):
            return "\u2014"
        text = f"{v:.{decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return frame.apply(lambda column: column.map(cell))


def plot_ours_vs_paper(ours, paper, ax=None):
    """Our F1 against the paper's, one point per (data set, learner) cell,
    one marker per learner; the dotted diagonal is perfect agreement."""
    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 4.4))
    markers = "os^vD<>ph*"
    for i, name in enumerate(ours.columns):
        p = paper[name].reindex(ours.index)
        ax.scatter(p, ours[name], marker=markers[i % len(markers)], label=name, s=28)
    ax.plot([0, 100], [0, 100], "k:", lw=1)
    ax.set_xlabel("F1 in the paper (%)")
    ax.set_ylabel("F1 ours (%)")
    ax.legend(fontsize=7, ncol=2)
    ax.figure.tight_layout()
    return ax.figure
