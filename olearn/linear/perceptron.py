"""The Perceptron (Rosenblatt 1958; mistake bound of Freund and Schapire 1999)."""
from numba import njit

from .._rows import row_axpy, row_has_nonzero
from .core import (DRIFT_RATIO, HUGE, SCALE, SQNORM, SUM_SCALE, TINY, LinearClassifier,
                   exact_sqnorm, predict_round, refused_row)


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
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        b = perceptron_step(score, y[t])
        if b != 0.0:
            # scale_add(X, t, 1.0, b, ...) spelled out (see olearn.linear)
            cross = 2.0 * b * score
            tracked = state[SQNORM] + b * b * sq
            state[SQNORM] = max(0.0, tracked + cross)
            drifts = tracked + abs(cross) > DRIFT_RATIO * state[SQNORM]
            step = b / state[SCALE]
            row_axpy(X, t, step, v)
            if z.shape[0]:
                row_axpy(X, t, step * state[SUM_SCALE], z)
            if drifts:
                state[SQNORM] = exact_sqnorm(v, state)
            # an all-zero row changes nothing and is not an update
            if sq > 0.0 or row_has_nonzero(X, t):
                n_updates += 1
    return n_updates if refused < 0 else -1 - refused


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

    Examples
    --------
    >>> from olearn import Perceptron
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = Perceptron().fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
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
