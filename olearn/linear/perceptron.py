"""The Perceptron (Rosenblatt 1958; mistake bound of Freund and Schapire 1999)."""
from numba import njit

from .._rows import row_axpy, row_has_nonzero
from .core import SCALE, SQNORM, SUM_SCALE, LinearClassifier, predict_round


@njit(cache=True)
def perceptron_step(score, y):
    """Coefficient ``b`` of ``w <- w + b x_t``: ``y_t`` if ``y_t w.x_t <= 0``.

    A zero score counts as a mistake for the update (as in scikit-learn and in
    the analysis), so the first example always moves ``w = 0``.
    """
    return y if y * score <= 0.0 else 0.0


@njit(cache=True)
def perceptron_pass(X, y, v, z, state, mistakes, margins):
    n_updates = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        b = perceptron_step(score, y[t])
        if b != 0.0:
            # scale_add(X, t, 1.0, b, ...) spelled out (see olearn.linear)
            state[SQNORM] = max(0.0, state[SQNORM] + 2.0 * b * score + b * b * sq)
            step = b / state[SCALE]
            row_axpy(X, t, step, v)
            if z.shape[0]:
                row_axpy(X, t, step * state[SUM_SCALE], z)
            # an all-zero row changes nothing and is not an update
            if sq > 0.0 or row_has_nonzero(X, t):
                n_updates += 1
    return n_updates


class Perceptron(LinearClassifier):
    """Rosenblatt's Perceptron: ``w_{t+1} = w_t + y_t x_t`` when ``y_t w_t.x_t <= 0``.

    No bias and no learning rate (the update is scale-free from ``w_1 = 0``);
    add a constant feature for an intercept.  Freund and Schapire (1999,
    Theorem 2) bound the number of updates by ``min_u ((R + D_u) / gamma)^2``
    with ``D_u`` the hinge deviations of ``u`` at margin ``gamma``; see
    :func:`olearn.bounds.perceptron_bound`.

    Parameters
    ----------
    n_epochs : int, default=1
        Passes over the data in ``fit`` (``partial_fit`` always makes one).
    shuffle : bool, default=False
        Permute the rows before every pass in ``fit``.
    random_state : int, RandomState or None
        Seed of the permutations.
    record : {"full", "counts"}, default="full"
        ``"full"`` keeps the per-round record ``mistakes_`` and ``margins_``
        (9 bytes per round, growing without end on an endless stream);
        ``"counts"`` keeps only ``n_rounds_``, ``n_mistakes_`` and
        ``n_updates_`` (constant memory), and reading ``mistakes_`` or
        ``margins_`` then raises an ``AttributeError`` saying so.  It cannot
        change between ``partial_fit`` calls.
    """

    def __init__(self, *, n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _learn(self, X, y, mistakes, margins):
        return perceptron_pass(X, y, self._v, self._z, self._state,
                               mistakes, margins)
