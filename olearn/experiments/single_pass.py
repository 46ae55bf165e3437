"""Carvalho and Cohen (2006), "Notes on single-pass online learning algorithms":
the protocol of their section 4 (learners of Table 3, one pass, 5-fold
cross-validation, F1), their voting, learning curves and extremal feature
selection.

The paper's PA is mistake-driven (their Table 1: *every* learner updates only
when its prediction is wrong) with the relaxed step of their eq. (1),
``tau = (epsilon - y w.x) / (||x||^2 + gamma)``, ``epsilon = 1``,
``gamma = 0.1``.  olearn's :class:`olearn.PA` updates whenever the hinge loss
is positive (the JMLR rule); :class:`MistakeDrivenPA` below is the paper's rule
(the same step :func:`olearn.linear.pa.pa_tau`, taken only on mistakes).
"""
from numba import njit

from ..base import check_positive
from ..linear.core import LinearClassifier, predict_round, scale_add
from ..linear.pa import pa_tau


@njit(cache=True)
def mistake_driven_pa_pass(X, y, v, z, state, mistakes, margins, gamma, epsilon):
    n_updates = 0
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if y[t] * score <= 0.0:  # Table 1: update on a mistake only
            tau = pa_tau(epsilon - y[t] * score, sq, 0.0, False, gamma)
            if tau != 0.0:
                scale_add(X, t, 1.0, tau * y[t], v, z, state, score, sq)
                n_updates += 1
    return n_updates


class MistakeDrivenPA(LinearClassifier):
    """PA as Carvalho and Cohen run it: eq. (1) step on mistakes only (Table 1).

    ``tau_t = (epsilon - y_t w.x_t) / (||x_t||^2 + gamma)`` when
    ``y_t w.x_t <= 0`` (a zero score counts, as for the Perceptron), no update
    otherwise.  Defaults are the paper's Table 3: ``epsilon = 1, gamma = 0.1``.

    This is the paper's rule, not the JMLR PA (which also updates correct
    predictions with margin below ``epsilon``): in olearn the latter is
    ``PA(epsilon=1, gamma=0.1)``.
    """

    def __init__(self, *, epsilon=1.0, gamma=0.1, n_epochs=1, shuffle=False,
                 random_state=None):
        self.epsilon = epsilon
        self.gamma = gamma
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self):
        check_positive("epsilon", self.epsilon)
        check_positive("gamma", self.gamma, allow_zero=True)

    def _update_rule(self, margins):
        """Rounds on which the update rule fires (for ``Averaged(weights="correct")``)."""
        return margins <= 0.0

    def _learn(self, X, y, mistakes, margins):
        return mistake_driven_pa_pass(X, y, self._v, self._z, self._state,
                                      mistakes, margins, float(self.gamma),
                                      float(self.epsilon))
