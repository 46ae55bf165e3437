"""Passive-Aggressive learners (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer 2006).

Each round solves (eqs. 2, 8 and 9 of the JMLR paper)

    PA:     w_{t+1} = argmin_w 1/2 ||w - w_t||^2                  s.t. l(w; x_t, y_t) = 0
    PA-I:   w_{t+1} = argmin_w 1/2 ||w - w_t||^2 + C xi            s.t. l <= xi, xi >= 0
    PA-II:  w_{t+1} = argmin_w 1/2 ||w - w_t||^2 + C xi^2          s.t. l <= xi

with the hinge loss ``l(w; x, y) = max(0, epsilon - y w.x)`` (``epsilon = 1``
in the JMLR paper).  The Lagrangian gives ``w_{t+1} = w_t + tau_t y_t x_t`` with

    PA:    tau = l_t / ||x_t||^2
    PA-I:  tau = min(C, l_t / ||x_t||^2)
    PA-II: tau = l_t / (||x_t||^2 + 1 / (2C)).

Carvalho and Cohen (2006, eq. 1) write PA with an insensitivity ``epsilon``
and a relaxation ``gamma >= 0``: ``tau = l_t / (||x_t||^2 + gamma)``, which is
PA for ``gamma = 0`` and PA-II for ``gamma = 1/(2C)``.

When to update (``update_on``).  The JMLR rule (``"round"``, the default)
solves the round's program on every round, so ``w`` moves whenever the hinge
loss is positive, a correct prediction with margin below ``epsilon``
included.  Carvalho and Cohen run every learner mistake-driven (their
Table 1): ``update_on="mistake"`` takes the same step only when
``y_t w_t.x_t <= 0`` (a mistake, or a tie at score 0, as for the
Perceptron); their PA is ``PA(update_on="mistake", epsilon=1, gamma=0.1)``.
"""
from numba import njit

from ..base import check_positive
from .._rows import row_axpy, row_has_nonzero
from .core import (DRIFT_RATIO, HUGE, SCALE, SQNORM, SUM_SCALE, TINY, UPDATE_ON,
                   LinearClassifier, exact_sqnorm, predict_round, refused_row)

VARIANTS = ("PA", "PA-I", "PA-II")


@njit(cache=True)
def pa_tau(loss, sq, C, capped, gamma):
    """Step size ``tau_t``: ``l / (||x||^2 + gamma)``, capped at ``C`` for PA-I.

    A zero row cannot change the margin; it gets ``tau = 0``.
    """
    if loss <= 0.0 or sq + gamma <= 0.0:
        return 0.0
    tau = loss / (sq + gamma)
    return min(C, tau) if capped else tau


@njit(cache=True)
def pa_pass(X, y, v, z, state, mistakes, margins,
            C, capped, gamma, epsilon, on_mistake):
    n_updates = 0
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        if on_mistake and y[t] * score > 0.0:  # update_on="mistake": correct
            continue
        tau = pa_tau(max(0.0, epsilon - y[t] * score), sq, C, capped, gamma)
        if tau != 0.0:
            # scale_add(X, t, 1.0, tau * y[t], ...) spelled out (see olearn.linear)
            b = tau * y[t]
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
            # with gamma > 0 an all-zero row gets tau > 0 but changes nothing
            if sq > 0.0 or row_has_nonzero(X, t):
                n_updates += 1
    return n_updates if refused < 0 else -1 - refused


class PA(LinearClassifier):
    """Passive-Aggressive classifier: PA, PA-I or PA-II (see the module docstring).

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness of PA-I (cap on ``tau``) and PA-II (``1/(2C)`` in the
        denominator); unused by plain PA.
    variant : {"PA", "PA-I", "PA-II"}, default="PA"
    epsilon : float, default=1.0
        Margin required by the hinge loss ``max(0, epsilon - y w.x)``
        (Carvalho and Cohen's insensitivity parameter); must be > 0 (with
        ``epsilon = 0`` the loss is 0 at ``w = 0`` and PA would never update).
    gamma : float or None, default=None
        Carvalho and Cohen's relaxation: ``tau = l / (||x||^2 + gamma)``.
        Only with ``variant="PA"`` (``gamma=0`` is plain PA); ``gamma = 1/(2C)``
        reproduces PA-II.
    update_on : {"round", "mistake"}, default="round"
        ``"round"``: the JMLR paper's rule, an update whenever the hinge loss
        is positive.  ``"mistake"``: Carvalho and Cohen's setting (2006,
        Table 1), the same step only on rounds with ``y_t w_t.x_t <= 0`` (a
        tie at score 0 included); their PA is
        ``PA(update_on="mistake", epsilon=1.0, gamma=0.1)``.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import PA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = PA(C=0.5, variant="PA-I").fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 5)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, C=1.0, variant="PA", *, epsilon=1.0, gamma=None,
                 update_on="round", n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.C = C
        self.variant = variant
        self.epsilon = epsilon
        self.gamma = gamma
        self.update_on = update_on
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, "
                             f"got {self.variant!r}.")
        check_positive("C", self.C)
        # epsilon = 0: the loss max(0, -y w.x) is 0 at w = 0, PA never moves
        check_positive("epsilon", self.epsilon)
        if self.gamma is not None:
            if self.variant != "PA":
                raise ValueError(
                    f"gamma is the relaxation of plain PA (Carvalho and "
                    f"Cohen, eq. 1); with variant={self.variant!r} use C.")
            check_positive("gamma", self.gamma, allow_zero=True)
        if not isinstance(self.update_on, str) or self.update_on not in UPDATE_ON:
            raise ValueError(f"update_on must be one of {UPDATE_ON}, "
                             f"got {self.update_on!r}.")

    def _rule(self):
        """``(C, capped, gamma)`` of :func:`pa_tau` for this variant."""
        if self.variant == "PA-I":
            return float(self.C), True, 0.0
        if self.variant == "PA-II":
            return float(self.C), False, 1.0 / (2.0 * self.C)
        return float(self.C), False, float(self.gamma or 0.0)

    def _update_rule(self, margins):
        """Rounds on which the rule fires, from the margins ``y_t w_t.x_t``
        (for ``Averaged(weights="correct")``): a positive hinge loss, or with
        ``update_on="mistake"`` a mistake or tie."""
        if self.update_on == "mistake":
            return margins <= 0.0
        return margins < self.epsilon

    def _learn(self, X, y, mistakes, margins):
        C, capped, gamma = self._rule()
        return pa_pass(X, y, self._v, self._z, self._state, mistakes, margins,
                       C, capped, gamma, float(self.epsilon),
                       self.update_on == "mistake")

