"""Regularized Passive-Aggressive learners (Shen and Dietterich, SDM 2009).

Each round projects (in a regularized sense) the current ``w_t`` onto the
margin constraint ``y_t w.x_t >= 1`` of the example just seen:

    (3.1)   w_{t+1} = argmin_w 1/2 ||w - w_t||^2 + alpha/2 ||w||^2   s.t. y_t w.x_t >= 1
    (3.9)   w_{t+1} = argmin_w 1/2 ||w - w_t||^2   s.t. y_t w.x_t >= 1, ||w||_2 <= beta
    (3.10)  w_{t+1} = argmin_w 1/2 ||w - w_t||^2   s.t. y_t w.x_t >= 1, ||w||_1 <= beta

The closed forms below were re-derived from the Lagrangians (the stored text
of Lemmas 3.1 and 3.2 is garbled; the appendix proof of Lemma 3.2 is
readable and agrees).  Write ``p = y_t w_t.x_t``, ``q = ||x_t||^2``,
``n = ||w_t||^2``.

Lemma 3.1 (problem 3.1).  ``L = 1/2||w - w_t||^2 + alpha/2||w||^2
+ tau (1 - y w.x)``; ``dL/dw = 0`` gives (3.3)

    w_{t+1} = (w_t + tau y_t x_t) / (1 + alpha),

and complementary slackness (``y w.x = 1`` or ``tau = 0``)

    tau = max(0, (1 + alpha - p) / q).

The paper prints ``tau = (l_t + alpha) / ||x_t||^2`` with the hinge loss
``l_t``; it is the same on the paper's update rounds (mistakes, where
``l_t = 1 - p``), but not when ``p > 1``: then the constraint can be inactive
(``p >= 1 + alpha``) and ``tau = 0``.  ``w`` shrinks by ``1/(1 + alpha)`` on
every round the program is solved, even with ``tau = 0`` -- O(nnz(x_t)) thanks
to the scaled representation ``w = s v`` (:mod:`olearn.linear`).

Lemma 3.2 (problem 3.9).  With multipliers ``tau, lambda >= 0``,
``dL/dw = 0`` gives (5.21) ``w = (w_t + tau y x) / Z``, ``Z = 1 + 2 lambda >= 1``.
If ``p < 1`` the margin constraint is active (``tau = (Z - p) / q``, 5.22) and

* ``lambda = 0``: the PA step ``tau = (1 - p)/q``, valid iff it stays in the
  ball, ``n + (1 - p^2)/q <= beta^2``;
* ``lambda > 0``: ``||w|| = beta`` and ``y w.x = 1`` give
  ``Z^2 (beta^2 q - 1) = n q - p^2``, valid iff that ``Z > 1`` -- exactly the
  complement of the first case, so

      Z = max(1, sqrt((n q - p^2) / (beta^2 q - 1))),   tau = (Z - p) / q.

The paper's lemma covers these (its rounds are mistakes and ``w_t`` always
lies in the ball).  For an arbitrary ``w_t`` (``n > beta^2``, ``p >= 1``) the
norm constraint alone may be active: ``tau = 0``, ``Z = sqrt(n)/beta`` if
then ``p/Z >= 1``, else both are active with the ``Z`` above.

Infeasible rounds (all three programs).  ``max_{||w||_2 <= beta} y w.x
= beta ||x||`` and ``max_{||w||_1 <= beta} y w.x = beta ||x||_inf``.  When
this is below 1 the program has no feasible point; the convention (the limit
the problem implies, see :mod:`olearn.linear._l1ball`): among the points of the
ball with the largest margin take the one closest to ``w_t``.  For L2 that is
``w = beta y x / ||x||`` (also the exact solution when ``beta ||x|| = 1``:
the feasible set is that single point; and the ``tau -> inf`` limit of
``P_ball(w_t + tau y x)``), an O(d) round since ``w`` is replaced.  A zero row
has margin 0 for every ``w``: the constrained learners keep ``P_ball(w_t)``
(``= w_t`` in a run), the objective-regularized one only shrinks.

Problem (3.10) has no closed form; :func:`olearn.linear._l1ball.project_l1_halfspace`
solves it exactly (a one-dimensional Newton search over the margin multiplier
around an exact L1-ball projection, warm-started).

When to update.  Section 2 of the paper updates "when the classifier makes an
error", and its bounds (Theorems 3.1-3.4) count mistakes and use ``l_t >= 1``
on update rounds.  ``update_on="mistake"`` (the default, the paper's
algorithm) solves the round's program only when ``y_t w_t.x_t <= 0`` (a
mistake, or a tie at score 0).  ``update_on="round"`` is an ablation --
ours, not the paper's: it solves the program on every round (a constrained
learner is then passive exactly when ``w_t`` is feasible: margin >= 1 and
inside the ball, as PA; the objective-regularized one shrinks ``w`` on every
round).

Feature truncation (section 3.3, Theorems 3.3-3.4).  With
``truncate_sigma=sigma`` every round that changes ``w`` ends with
``w_{t+1} = w'' - v_t``: sort the nonzero weights by ``|w_j|`` (ties: lower
index first) and zero the first ``k`` with ``sum_{i<=k} w_i^2 <= sigma <
sum_{i<=k+1} w_i^2``, as in the proof of Theorem 3.3.  Predictions use the
truncated ``w``.  Cost per truncation: O(d + k log k) for
:class:`ObjectiveRegularizedPA` and :class:`L2ConstrainedPA` (a scan for the
``k`` nonzeros, then a sort, skipped when no ``w_j^2`` is <= sigma; one pass
over the 3200 x 36524 four-phase 20 Newsgroups stream, every round updating,
took 0.75 s with sigma = 1e-4 and 0.12 s with sigma = 0), O(k log k) for
:class:`L1ConstrainedPA`, which tracks its support.  ``support_sizes_``
then records the number of nonzero weights after each round
(``truncate_sigma=0.0`` records it without changing the model: only exact
zeros are dropped).

``n_updates_`` counts the rounds on which the program changed ``w``: for
:class:`ObjectiveRegularizedPA` the solved rounds with ``tau > 0`` or (with
``alpha > 0``) ``w_t != 0``; for the constrained learners the solved rounds
where ``w_t`` was not feasible (margin < 1 or outside the ball) and the
solution differs from it (an infeasible round counts, a zero row inside the
ball does not).
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from ._l1ball import FEASIBLE, project_l1_halfspace
from ..base import FrozenParameterError, check_positive
from .core import (HUGE, SCALE, SQNORM, TINY, UPDATE_ON, LinearClassifier, move_coord,
                   predict_round, refused_row, scale_add)
_NORM_SLACK = 1e-12          # relative rounding allowance on ||w|| <= beta


# -- row access --------------------------------------------------------------
def row_gather(X, t, idx, val):
    """Write the nonzeros of row ``t`` into ``idx``/``val``; return their count."""


@overload(row_gather, inline="always")
def _row_gather(X, t, idx, val):
    if isinstance(X, types.BaseTuple):
        def impl(X, t, idx, val):
            data, indices, indptr = X
            n = 0
            for k in range(np.uintp(indptr[t]), np.uintp(indptr[t + 1])):
                if data[k] != 0.0:
                    idx[n] = indices[k]
                    val[n] = data[k]
                    n += 1
            return n
        return impl

    def impl(X, t, idx, val):
        n = 0
        for j in range(X.shape[1]):
            if X[t, j] != 0.0:
                idx[n] = j
                val[n] = X[t, j]
                n += 1
        return n
    return impl


# -- the per-round rules ------------------------------------------------------
@njit(cache=True)
def objective_regularized_step(p, q, alpha):
    """Lemma 3.1: ``w <- (w + tau y x)/(1 + alpha)``, returned as ``(a, tau/(1+alpha))``.

    ``tau = max(0, (1 + alpha - p)/q)`` (eq. 3.3 and the KKT conditions);
    a zero row cannot meet the margin and gets ``tau = 0``.
    """
    tau = max(0.0, (1.0 + alpha - p) / q) if q > 0.0 else 0.0
    return 1.0 / (1.0 + alpha), tau / (1.0 + alpha)


@njit(cache=True)
def l2_constrained_step(p, q, n, beta):
    """Lemma 3.2: ``w <- (w + tau y x)/Z`` as ``(1/Z, tau/Z)`` (eqs. 5.21, 5.22).

    ``Z = max(1, sqrt((n q - p^2)/(beta^2 q - 1)))``, ``tau = (Z - p)/q`` when
    the margin is violated; the norm-only case, the infeasible convention
    (``beta ||x|| <= 1``: ``w = beta y x/||x||``) and zero rows as in the
    module docstring.  ``(1, 0)`` means ``w_t`` is already the solution.
    """
    b2 = beta * beta
    if q <= 0.0:
        return (beta / np.sqrt(n), 0.0) if n > b2 else (1.0, 0.0)
    if b2 * q <= 1.0:
        return 0.0, beta / np.sqrt(q)
    if p >= 1.0:
        if n <= b2:
            return 1.0, 0.0
        shrink = np.sqrt(n) / beta
        if p >= shrink:
            return 1.0 / shrink, 0.0
    Z = max(1.0, np.sqrt(max(0.0, n * q - p * p) / (b2 * q - 1.0)))
    return 1.0 / Z, (Z - p) / (q * Z)


# -- feature truncation (section 3.3) ----------------------------------------
@njit(cache=True)
def nonzero_coords(v, idx):
    """Indices of the nonzeros of ``v`` into ``idx``; return their count (O(d))."""
    n = 0
    for j in range(v.shape[0]):
        if v[j] != 0.0:
            idx[n] = j
            n += 1
    return n


@njit(cache=True)
def truncate_smallest(idx, n, v, z, state, sigma, keys):
    """Zero the smallest weights whose squares sum to at most ``sigma`` (Thm 3.3).

    ``idx[:n]`` lists the nonzero coordinates in increasing order (ties in
    ``|w_j|`` go lower index first); it is compacted to the survivors.
    Returns the number of survivors.  O(n log n).
    """
    s = state[SCALE]
    smallest = np.inf
    for c in range(n):
        w = s * v[idx[c]]
        keys[c] = w * w
        smallest = min(smallest, keys[c])
    if smallest > sigma:      # nothing to drop (always so for sigma = 0): skip the sort
        return n
    order = np.argsort(keys[:n], kind="mergesort")
    total = 0.0
    for r in range(n):
        c = order[r]
        total += keys[c]
        if total > sigma:
            break
        move_coord(idx[c], 0.0, v, z, state)
        keys[c] = -1.0
    kept = 0
    for c in range(n):
        if keys[c] >= 0.0:
            idx[kept] = idx[c]
            kept += 1
    return kept


@njit(cache=True)
def _truncate_all(v, z, state, sigma, idx, keys):
    return truncate_smallest(idx, nonzero_coords(v, idx), v, z, state, sigma,
                             keys)


# -- the pass loops ------------------------------------------------------------
@njit(cache=True)
def objective_regularized_pass(X, y, v, z, state, mistakes, margins, alpha,
                               on_mistake, sigma, sizes, idx, keys):
    n_updates = 0
    size = nonzero_coords(v, idx) if sizes.shape[0] else 0
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        p = y[t] * score
        if not (on_mistake and p > 0.0):
            a, b = objective_regularized_step(p, sq, alpha)
            # a change: a step (tau > 0 needs a nonzero row) or a shrinkage
            # of a nonzero w (alpha > 0)
            if b != 0.0 or (a != 1.0 and state[SQNORM] > 0.0):
                scale_add(X, t, a, b * y[t], v, z, state, score, sq)
                n_updates += 1
                if sigma >= 0.0:
                    size = _truncate_all(v, z, state, sigma, idx, keys)
        if sizes.shape[0]:
            sizes[t] = size
    return n_updates if refused < 0 else -1 - refused


@njit(cache=True)
def l2_constrained_pass(X, y, v, z, state, mistakes, margins, beta,
                        on_mistake, sigma, sizes, idx, keys):
    n_updates = 0
    size = nonzero_coords(v, idx) if sizes.shape[0] else 0
    in_ball = beta * beta * (1.0 + _NORM_SLACK)
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        p = y[t] * score
        if not (on_mistake and p > 0.0) and (p < 1.0 or state[SQNORM] > in_ball):
            a, b = l2_constrained_step(p, sq, max(state[SQNORM], 0.0), beta)
            if a != 1.0 or b != 0.0:
                scale_add(X, t, a, b * y[t], v, z, state, score, sq)
                if a < 1.0:           # the solution lies on the sphere
                    state[SQNORM] = beta * beta
                n_updates += 1
                if sigma >= 0.0:
                    size = _truncate_all(v, z, state, sigma, idx, keys)
        if sizes.shape[0]:
            sizes[t] = size
    return n_updates if refused < 0 else -1 - refused


@njit(cache=True)
def l1_constrained_update(X, t, y, v, z, state, beta, aux, supp, cand, mark,
                          work):
    """Problem (3.10) on round ``t``, on ``supp(w_t) | supp(x_t)`` only.

    ``supp[:aux[2]]`` lists the nonzeros of ``w``; ``aux = [||w||_1, theta,
    |supp|]``.  Returns True if ``w`` changed (a projection can leave it as it is).
    """
    wt, a, out, scratch = work[0], work[1], work[2], work[3]
    nx = row_gather(X, t, cand, a)
    for c in range(nx):
        mark[cand[c]] = c
        a[c] *= y
    n = nx
    for i in range(int(aux[2])):
        j = supp[i]
        if mark[j] < 0:
            cand[n] = j
            n += 1
    for c in range(nx):
        mark[cand[c]] = -1
    s = state[SCALE]
    for c in range(n):
        wt[c] = s * v[cand[c]]
    status, tau, theta = project_l1_halfspace(wt, a, n, nx, beta, aux[1], out,
                                              scratch)
    if status == FEASIBLE:
        return False
    if theta > 0.0:
        aux[1] = theta
    kept = 0
    l1 = 0.0
    changed = False
    for c in range(n):
        if out[c] != wt[c]:
            move_coord(cand[c], out[c], v, z, state)
            changed = True
        if out[c] != 0.0:
            supp[kept] = cand[c]
            kept += 1
            l1 += abs(out[c])
    aux[0] = l1
    aux[2] = kept
    return changed


@njit(cache=True)
def l1_constrained_pass(X, y, v, z, state, mistakes, margins, beta,
                        on_mistake, sigma, sizes, aux, supp, cand, mark, work):
    n_updates = 0
    in_ball = beta * (1.0 + _NORM_SLACK)
    refused = -1  # the row the pass refused, if any
    for t in range(y.shape[0]):
        score, sq = predict_round(X, t, y[t], v, state, mistakes, margins)
        if not TINY <= sq <= HUGE:  # rare: check_values' tests, in the pass
            if refused_row(X, t, sq):
                refused = t
                break
        p = y[t] * score
        violated = (p < 1.0 and sq > 0.0) or aux[0] > in_ball
        if not (on_mistake and p > 0.0) and violated:
            if l1_constrained_update(X, t, y[t], v, z, state, beta, aux, supp,
                                     cand, mark, work):
                n_updates += 1
                if sigma >= 0.0:
                    n = int(aux[2])
                    supp[:n].sort()
                    kept = truncate_smallest(supp, n, v, z, state, sigma,
                                             work[3])
                    l1 = 0.0
                    for i in range(kept):
                        l1 += abs(state[SCALE] * v[supp[i]])
                    aux[0] = l1
                    aux[2] = kept
        if sizes.shape[0]:
            sizes[t] = int(aux[2])
    return n_updates if refused < 0 else -1 - refused


# -- estimators ------------------------------------------------------------------
class _RegularizedPA(LinearClassifier):
    """Shared parameters, validation and the ``support_sizes_`` record."""

    _per_round_record = ("support_sizes_",)

    def _check_frozen(self):
        # support_sizes_ covers every round or none: truncation cannot be
        # switched on (or off) between partial_fit calls (its value can change)
        super()._check_frozen()
        was = self.__dict__.get("_truncating")
        if was is not None and was != (self.truncate_sigma is not None):
            raise FrozenParameterError(
                f"{type(self).__name__}: truncate_sigma changed from "
                f"{'a number' if was else 'None'} to {self.truncate_sigma!r} "
                f"between partial_fit calls; truncation (and support_sizes_, "
                f"which must cover every round) cannot be switched "
                f"{'off' if was else 'on'} mid-stream. Call fit to start "
                f"afresh with it {'off' if was else 'on'}.")

    def _check_common(self):
        if self.update_on not in UPDATE_ON:
            raise ValueError(f"update_on must be one of {UPDATE_ON}, "
                             f"got {self.update_on!r}.")
        if self.truncate_sigma is not None:
            check_positive("truncate_sigma", self.truncate_sigma,
                           allow_zero=True)

    def _reset_record(self):
        super()._reset_record()
        self._truncating = self.truncate_sigma is not None
        self._size_buffer = np.zeros(0, dtype=np.int64)
        if self._full_record():
            self.support_sizes_ = (None if self.truncate_sigma is None
                                   else self._size_buffer)
        else:
            self.__dict__.pop("support_sizes_", None)

    def _pass_options(self, n_rounds):
        """``(on_mistake, sigma, sizes)`` for the compiled pass."""
        sigma = -1.0 if self.truncate_sigma is None else float(self.truncate_sigma)
        if sigma < 0.0:
            return self.update_on == "mistake", sigma, np.zeros(0, np.int64)
        if not self._full_record():
            return self.update_on == "mistake", sigma, np.zeros(n_rounds, np.int64)
        start, stop = self.n_rounds_, self.n_rounds_ + n_rounds
        if stop > self._size_buffer.shape[0]:
            self._size_buffer = np.resize(self._size_buffer,
                                          max(stop, 2 * self._size_buffer.shape[0]))
        self.support_sizes_ = self._size_buffer[:stop]
        return self.update_on == "mistake", sigma, self._size_buffer[start:stop]

    def _scratch(self):
        d = self._v.shape[0]
        return np.zeros(d, dtype=np.int64), np.zeros(d)


class ObjectiveRegularizedPA(_RegularizedPA):
    """Objective-regularized Passive-Aggressive (Shen and Dietterich 2009, eq. 3.1).

    Each round solves ``min_w 1/2||w - w_t||^2 + alpha/2 ||w||^2`` s.t.
    ``y_t w.x_t >= 1``, whose solution (Lemma 3.1, re-derived in the module
    docstring) is ``w_{t+1} = (w_t + tau y_t x_t)/(1 + alpha)`` with
    ``tau = max(0, (1 + alpha - y_t w_t.x_t)/||x_t||^2)``: old active
    examples fade geometrically.  O(nnz(x_t)) per round.

    Parameters
    ----------
    alpha : float, default=0.01
        Shrinkage rate ``alpha >= 0`` (``alpha = 0`` is PA with margin 1).
    update_on : {"mistake", "round"}, default="mistake"
        ``"mistake"``: solve the program only on mistakes (``y_t w_t.x_t <= 0``,
        a tie at score 0 included), the paper's update condition (section 2)
        and algorithm.  ``"round"``: solve it on every round, an ablation --
        ours, not the paper's (the learner then also shrinks ``w`` on rounds
        with zero loss).
    truncate_sigma : float or None, default=None
        Feature truncation of section 3.3 after each update (module docstring).
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Attributes
    ----------
    support_sizes_ : ndarray of int or None
        Nonzero weights after each round (only with ``truncate_sigma``).

    Examples
    --------
    >>> from olearn import ObjectiveRegularizedPA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = ObjectiveRegularizedPA(alpha=0.01).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, alpha=0.01, *, update_on="mistake", truncate_sigma=None,
                 n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.alpha = alpha
        self.update_on = update_on
        self.truncate_sigma = truncate_sigma
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("alpha", self.alpha, allow_zero=True)
        self._check_common()

    def _learn(self, X, y, mistakes, margins):
        on_mistake, sigma, sizes = self._pass_options(y.shape[0])
        idx, keys = self._scratch()
        return objective_regularized_pass(
            X, y, self._v, self._z, self._state, mistakes, margins,
            float(self.alpha), on_mistake, sigma, sizes, idx, keys)


class L2ConstrainedPA(_RegularizedPA):
    """L2-norm constrained Passive-Aggressive (Shen and Dietterich 2009, eq. 3.9).

    Each round projects ``w_t`` onto ``{w : y_t w.x_t >= 1, ||w||_2 <= beta}``
    in closed form (Lemma 3.2, re-derived in the module docstring):
    ``w_{t+1} = (w_t + tau y_t x_t)/Z`` with
    ``Z = max(1, sqrt((||w_t||^2 ||x_t||^2 - (w_t.x_t)^2)/(beta^2 ||x_t||^2 - 1)))``
    and ``tau = (Z - y_t w_t.x_t)/||x_t||^2``: a PA step until ``w`` reaches the
    sphere, then a step that also shrinks.  O(nnz(x_t)) per round using
    ``||w||^2`` from the state; an infeasible round (``beta ||x_t|| < 1``) sets
    ``w = beta y_t x_t/||x_t||`` (the convention of the module docstring), O(d).

    Parameters
    ----------
    beta : float, default=1.0
        Radius of the L2 ball (a round is feasible iff ``beta ||x_t|| >= 1``).
    update_on, truncate_sigma, n_epochs, shuffle, random_state, record
        As in :class:`ObjectiveRegularizedPA`.

    Examples
    --------
    >>> from olearn import L2ConstrainedPA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = L2ConstrainedPA(beta=2.0).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, beta=1.0, *, update_on="mistake", truncate_sigma=None,
                 n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.beta = beta
        self.update_on = update_on
        self.truncate_sigma = truncate_sigma
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("beta", self.beta)
        self._check_common()

    def _learn(self, X, y, mistakes, margins):
        on_mistake, sigma, sizes = self._pass_options(y.shape[0])
        idx, keys = self._scratch()
        return l2_constrained_pass(
            X, y, self._v, self._z, self._state, mistakes, margins,
            float(self.beta), on_mistake, sigma, sizes, idx, keys)


class L1ConstrainedPA(_RegularizedPA):
    """L1-norm constrained Passive-Aggressive (Shen and Dietterich 2009, eq. 3.10).

    Each round projects ``w_t`` onto ``{w : y_t w.x_t >= 1, ||w||_1 <= beta}``
    exactly (:mod:`olearn.linear._l1ball`: Newton search over the margin multiplier
    around an exact, warm-started L1-ball projection), only on rounds where
    ``w_t`` violates a constraint.  The projection soft-thresholds every
    nonzero weight, so an update costs ``O(|supp(w_t)| + nnz(x_t))`` per Newton
    step (the support is tracked; never O(d) per round, O(d) once per call
    to rebuild it).  An infeasible round (``beta ||x_t||_inf < 1``) moves to
    the point of the ball with the largest margin closest to ``w_t``.  The
    paper solved the QP with a package (< 10 minutes for 3200 20 Newsgroups
    examples); this takes well under a second.

    Parameters
    ----------
    beta : float, default=1.0
        Radius of the L1 ball (with 0/1 features, ``beta >= 1`` makes every
        nonzero row feasible).
    update_on, truncate_sigma, n_epochs, shuffle, random_state, record
        As in :class:`ObjectiveRegularizedPA`.

    Examples
    --------
    >>> from olearn import L1ConstrainedPA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = L1ConstrainedPA(beta=2.0).fit(X, y)          # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, beta=1.0, *, update_on="mistake", truncate_sigma=None,
                 n_epochs=1, shuffle=False, random_state=None,
                 record="full"):
        self.beta = beta
        self.update_on = update_on
        self.truncate_sigma = truncate_sigma
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _check_params(self):
        check_positive("beta", self.beta)
        self._check_common()

    def _init_state(self, n_features):
        super()._init_state(n_features)
        self._theta = 0.0
        self._carry = None

    def _learn(self, X, y, mistakes, margins):
        on_mistake, sigma, sizes = self._pass_options(y.shape[0])
        d = self._v.shape[0]
        # The support (in the order the pass keeps it: the order of the sums
        # of the projection) and ||w||_1 are carried from the previous call,
        # so that a stream cut into partial_fit calls learns bit for bit as
        # one call; they are rebuilt from v (O(d) once per call) when v or
        # its scale is not what the previous call left (a state set from
        # outside, a call that failed and was rolled back).
        carry = self.__dict__.get("_carry")
        if (carry is not None and carry[0].shape == self._v.shape
                and carry[1] == self._state[SCALE] and np.array_equal(carry[0], self._v)):
            aux, supp = carry[2].copy(), carry[3].copy()
            aux[1] = self._theta
        else:
            supp = np.flatnonzero(self._v).astype(np.int64)
            supp = np.concatenate([supp, np.zeros(d - supp.shape[0], np.int64)])
            l1 = float(np.abs(self._state[SCALE] * self._v).sum())
            aux = np.array([l1, self._theta, float(np.count_nonzero(self._v))])
        cand = np.zeros(d, dtype=np.int64)
        mark = np.full(d, -1, dtype=np.int64)
        work = np.zeros((4, d))
        n_updates = l1_constrained_pass(
            X, y, self._v, self._z, self._state, mistakes, margins,
            float(self.beta), on_mistake, sigma, sizes, aux, supp, cand, mark,
            work)
        self._theta = float(aux[1])
        self._carry = (None if n_updates < 0 else
                       (self._v.copy(), float(self._state[SCALE]), aux, supp))
        return n_updates
