"""Figures of the book, drawn from olearn's own classes (matplotlib is imported on first use).

This module draws experiment results (mistake curves); one module per part of the book
draws its figures: :mod:`olearn.plotting.second_order` (CW, AROW and the family),
:mod:`olearn.plotting.scale` (BCW and SBCW), :mod:`olearn.plotting.kernel` (the kernel
learners and DUOL) and :mod:`olearn.plotting.winnow` (Winnow and the single-pass paper).
"""
import numpy as np

from ..experiments.runner import checkpoint_rounds, curve_band


def plot_mistake_curves(result, ax=None, band="ci95", log_x=False,
                        learners=None, max_points=2000, alpha=0.2):
    """Mean cumulative mistake rate ``M_t / t`` of each learner, with a band.

    Parameters
    ----------
    result : olearn.experiments.Result
    ax : matplotlib Axes or None
        Drawn into a new figure when None.
    band : {"ci95", "std", None}
        Shade the 95% t-interval of the mean over the permutations, or
        mean +- one standard deviation, or nothing.
    log_x : bool
        Logarithmic round axis.
    learners : list of labels or None
        Which learners (default all, in the order they were run).
    max_points : int
        Draw at most this many rounds per curve (a log + linear grid).

    Returns the Axes, one line per learner.
    """
    import matplotlib.pyplot as plt

    if not result.curves:
        raise ValueError("this result has no curves (a result read by "
                         "load_result keeps only its table).")

    if ax is None:
        _, ax = plt.subplots()
    for label in learners if learners is not None else list(result.curves):
        rounds = np.asarray(result.rounds[label])
        keep = np.searchsorted(rounds, checkpoint_rounds(rounds[-1], max_points))
        keep = np.unique(np.minimum(keep, rounds.size - 1))
        mean, low, high = curve_band(result.curves[label][:, keep], band)
        (line,) = ax.plot(rounds[keep], mean, label=label)
        if low is not None:
            ax.fill_between(rounds[keep], low, high, color=line.get_color(),
                            alpha=alpha, linewidth=0)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel("round $t$")
    ax.set_ylabel("cumulative mistake rate $M_t / t$")
    ax.legend()
    return ax
