"""Littlestone's mistake bound for Positive Winnow, with the paper's preprocessing.

Littlestone (1988, Winnow2) learns a monotone disjunction of ``k`` of ``n``
boolean features with ``O(k log n)`` mistakes.  olearn's
:class:`~olearn.PositiveWinnow` is the Carvalho-Cohen (2006) variant: each row
is augmented with an always-on feature ``b`` and normalised by ``a_t = 1 +
s_t`` (``s_t`` = number of active features), so on a 0/1 row with active set
``A_t`` it predicts positive iff ``sum_{j in A_t + b} u_j > theta a_t``: the
classic test with a threshold that grows with the row.  The proof carries
over with ``a_t`` in place of 1 (see ``book/single_pass/winnow_bound``).

Statement (0/1 rows, ``alpha > 1``, ``0 < beta < 1``, initial weight
``theta0``, threshold ``theta``; ``a_max``, ``a_min`` the largest and smallest
``a_t``; ``n`` the features active in some row; a competitor disjunction
``R`` of ``k`` features, with ``A+`` the positive rows with no feature of
``R`` active and ``n_r-`` the negative rows where ``r`` in ``R`` is active):

* promotions: ``M+ <= P = A+ + sum_r max(0, floor(1 + (ln(theta a_max /
  theta0) + n_r- ln(1/beta)) / ln alpha))``;
* demotions: ``M- <= ((n + 1) theta0 / ((1 - beta) theta) + (alpha - 1) /
  (1 - beta) a_max P) / a_min``;
* ``M = M+ + M- <= P + that``.

On a noise-free disjunction (``A+ = 0``, every ``n_r- = 0``) with ``a_t = 1``
(no augmentation), ``alpha = 2``, ``beta = 1/2``, ``theta = n``, ``theta0 = 1``
this is the textbook ``2 + 3 k (1 + log2 n)``.

:func:`balanced_winnow_bound` is the Balanced form's bound: a relative-entropy
potential argument (Littlestone 1989; Grove, Littlestone and Schuurmans 2001)
for olearn's :class:`~olearn.BalancedWinnow` on 0/1 rows with
``alpha + beta <= 2``; see its docstring.
"""
import math

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..linear.winnow import PositiveWinnow
from ._common import finished_run, make_check, refuse_degenerate

#: slack on the floor of the promotion count (float rounding at a tie)
_FLOOR_SLACK = 1e-9


def disjunction_stream(n_rows, n_features, k=5, p=None, noise=0.0,
                       random_state=0):
    """A 0/1 stream labelled by the disjunction of its first ``k`` features.

    Every feature is on with probability ``p`` (default ``1 - 2**(-1/k)``,
    so that half of the rows are positive); ``y = +1`` iff one of features
    ``0..k-1`` is on, then a fraction ``noise`` of the labels is flipped.
    Returns ``X`` (CSR, float 0/1), ``y`` (+-1) and the relevant indices.
    """
    if not int(n_rows) >= 1:
        raise ValueError(f"n_rows must be >= 1, got {n_rows}: pass n_rows >= 1.")
    if not 0 < k <= n_features:
        raise ValueError(f"k must be in 1..n_features={n_features}, got {k}.")
    rng = np.random.default_rng(random_state)
    p = 1.0 - 2.0 ** (-1.0 / k) if p is None else float(p)
    if not 0.0 < p <= 1.0:
        raise ValueError(f"p must be in (0, 1], got {p}.")
    X = sp.random(n_rows, n_features, density=p, format="csr",
                  random_state=rng, data_rvs=np.ones)
    relevant = np.arange(k)
    y = np.where(np.asarray(X[:, relevant].sum(axis=1)).ravel() > 0, 1, -1)
    flip = rng.random(n_rows) < noise
    y[flip] = -y[flip]
    return X, y, relevant


def winnow_bound(run, X, y, relevant):
    """Mistakes of a finished :class:`~olearn.PositiveWinnow` run against its bound.

    ``observed`` is the run's mistakes ``M = M+ + M-`` (promotions on positive
    rows, demotions on negative ones: Positive Winnow updates exactly on its
    sign errors); ``bound`` the statement of the module docstring for the
    competitor disjunction ``relevant``.  ``terms`` holds both parts, the
    data quantities and the replay deviation.

    Parameters
    ----------
    run : olearn.PositiveWinnow
        Fitted in one pass over ``(X, y)`` (``n_epochs=1, shuffle=False``).
    X : 0/1 matrix, the stream in the order the run saw it.
    y : its labels (original coding).
    relevant : sequence of feature indices
        The competitor disjunction ``R`` (any set: label noise and a wrong
        set only enter through ``A+`` and ``n_r-``).

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``), an unfitted run, an empty stream
    (``ValueError``).  Two cases that are degenerate for the linear bounds are
    not here, deliberately: a stream of zero rows only (Winnow's always-on
    feature is a feature: such a run learns, and its bound is finite and can
    be tight, ``tests/test_bounds_winnow.py``) and a disjunction on in no
    positive row (then ``A+`` counts every positive row, the bound stays
    finite; with no positive row it is the demotion bound alone).
    """
    stream = finished_run(run, X, y, PositiveWinnow, zero_rows=True)
    Xb = _binary_rows(stream.X)
    relevant = np.unique(np.asarray(relevant, dtype=np.int64).ravel())
    d = Xb.shape[1]
    if relevant.size == 0 or relevant.min() < 0 or relevant.max() >= d:
        raise ValueError(f"relevant must be nonempty indices in 0..{d - 1}, "
                         f"got {relevant.tolist()}.")
    alpha, beta = float(run.alpha), float(run.beta)
    theta, theta0 = float(run.theta), float(run.theta0)
    yp = stream.y
    mistakes = np.asarray(run.mistakes_, dtype=bool)
    promoted, demoted = mistakes & (yp > 0), mistakes & (yp < 0)

    # replay: log u_j = log theta0 + (promotions with j) ln alpha + (demotions) ln beta
    counts = np.concatenate([
        Xb.T @ promoted.astype(float) * math.log(alpha)
        + Xb.T @ demoted.astype(float) * math.log(beta),
        [promoted.sum() * math.log(alpha) + demoted.sum() * math.log(beta)]])
    deviation = float(np.max(np.abs(run.log_u_ - math.log(theta0) - counts)))
    if deviation > 1e-8 * max(1.0, float(np.abs(counts).max(initial=0.0))):
        raise ValueError(
            f"The run's weights are not those its record implies for this "
            f"stream (max deviation of log u: {deviation:.3g}): pass the X, y "
            f"the run saw, in the same order, from one pass.")

    terms = _data_terms(Xb, yp, relevant, alpha, beta, theta, theta0)
    promotion_bound = terms["promotion_bound"]
    m_pos, m_neg = int(promoted.sum()), int(demoted.sum())
    return make_check(
        "Positive Winnow: M <= P + (W0/((1-beta) theta) + (alpha-1)/(1-beta) "
        "a_max P)/a_min (Littlestone 1988, with augmentation and normalisation)",
        m_pos + m_neg, promotion_bound + terms["demotion_bound"],
        promotions=m_pos, demotions=m_neg, k=int(relevant.size), **terms,
        alpha=alpha, beta=beta, theta=theta, theta0=theta0,
        rounds=int(run.n_rounds_), replay_deviation=deviation)



def _binary_rows(X):
    Xb = sp.csr_matrix(X, dtype=np.float64)
    Xb.eliminate_zeros()
    if Xb.nnz and not np.all(Xb.data == 1.0):
        raise ValueError("The Winnow bound is for 0/1 rows (Littlestone's "
                         "boolean features); binarise X first, e.g. (X > 0).")
    return Xb


def _promotion_caps(n_neg, a_max, alpha, beta, theta, theta0):
    """Per relevant feature: the most promotions it can receive (the proof's step 1)."""
    return np.maximum(0.0, np.floor(
        1.0 + (math.log(theta * a_max / theta0) + n_neg * math.log(1.0 / beta))
        / math.log(alpha) + _FLOOR_SLACK))


def _data_terms(Xb, yp, relevant, alpha, beta, theta, theta0):
    """The bound's ingredients: they depend on the stream and ``R`` only."""
    a = 1.0 + np.diff(Xb.indptr).astype(float)
    a_max, a_min = float(a.max()), float(a.min())
    n_active = int(np.count_nonzero(np.diff(Xb.tocsc().indptr)))
    on_relevant = Xb[:, relevant].toarray() > 0
    a_pos = int(np.count_nonzero((yp > 0) & ~on_relevant.any(axis=1)))
    n_neg = on_relevant[yp < 0].sum(axis=0)
    caps = _promotion_caps(n_neg, a_max, alpha, beta, theta, theta0)
    promotion_bound = a_pos + float(caps.sum())
    weight0 = (n_active + 1) * theta0  # the features seen and the always-on one
    demotion_bound = (weight0 / ((1.0 - beta) * theta)
                      + (alpha - 1.0) / (1.0 - beta) * a_max * promotion_bound) / a_min
    return dict(promotion_bound=promotion_bound, demotion_bound=demotion_bound,
                n_active_features=n_active, a_max=a_max, a_min=a_min,
                initial_weight=weight0, uncovered_positives=a_pos,
                relevant_on_negatives=int(n_neg.sum()))


def greedy_disjunction(X, y, estimator, max_k=50):
    """A competitor disjunction for :func:`winnow_bound`, chosen greedily.

    Starting from the empty set, adds the feature that lowers the promotion
    bound ``P`` most (it covers uncovered positive rows and costs its own cap,
    which grows with the negative rows where it is on), until no feature
    lowers ``P`` or ``max_k`` are chosen.  ``estimator`` gives ``alpha``,
    ``beta``, ``theta``, ``theta0``.  The bound holds for any set; this one
    only makes it smaller.  Returns the sorted indices.  Another estimator
    than a :class:`~olearn.PositiveWinnow` raises ``TypeError``; an empty
    stream, one of zero rows only, or one without a positive row (no
    disjunction covers anything) ``ValueError``.
    """
    refuse_degenerate(1, learner=estimator, learner_type=PositiveWinnow)
    Xb = _binary_rows(X)
    refuse_degenerate(Xb.shape[0], np.diff(Xb.indptr))
    labels = np.unique(np.asarray(y))
    if labels.size < 2:
        raise ValueError(f"y has one label only ({labels.tolist()}): a disjunction needs "
                         f"positive and negative rows to be chosen. Pass both classes.")
    yp = np.where(np.asarray(y) == labels[-1], 1.0, -1.0)
    a_max = 1.0 + float(np.diff(Xb.indptr).max())
    n_neg = np.asarray(Xb[yp < 0].sum(axis=0)).ravel()
    caps = _promotion_caps(n_neg, a_max, float(estimator.alpha),
                           float(estimator.beta), float(estimator.theta),
                           float(estimator.theta0))
    uncovered = yp > 0
    chosen = []
    for _ in range(max_k):
        gain = np.asarray(Xb[uncovered].sum(axis=0)).ravel() - caps
        gain[chosen] = -np.inf
        j = int(np.argmax(gain))
        if not gain[j] > 0:
            break
        chosen.append(j)
        uncovered &= ~(Xb[:, j].toarray().ravel() > 0)
    if not chosen:  # the bound needs a nonempty R: the best single feature
        chosen = [int(np.argmax(np.asarray(Xb[yp > 0].sum(axis=0)).ravel() - caps))]
    return np.array(sorted(chosen))


def mistakes_against_d(dims=(50, 200, 1000, 5000), k=5, n_rows=3000,
                       random_state=0):
    """Mistakes of one pass of Positive Winnow, Balanced Winnow and the
    Perceptron on :func:`disjunction_stream` for each number of features ``d``,
    with Positive Winnow's bound (the relevant set as competitor).

    All learners use their defaults; the Perceptron gets the same always-on
    feature Winnow adds (a disjunction needs a threshold).  Returns a
    DataFrame with columns ``d, learner, mistakes`` (``learner`` includes
    ``"PW bound"``).  No ``dims``: an empty frame (nothing was run); ``n_rows <
    1`` raises ``ValueError`` (:func:`disjunction_stream`).
    """
    import pandas as pd

    from ..linear.perceptron import Perceptron
    from ..linear.winnow import BalancedWinnow

    rows = []
    for d in dims:
        X, y, relevant = disjunction_stream(n_rows, d, k=k,
                                            random_state=random_state)
        pw = PositiveWinnow().fit(X, y)
        check = winnow_bound(pw, X, y, relevant)
        augmented = sp.hstack([X, np.ones((n_rows, 1))], format="csr")
        rows += [(d, "Positive Winnow", check.observed),
                 (d, "PW bound", check.bound),
                 (d, "Balanced Winnow", BalancedWinnow().fit(X, y).n_mistakes_),
                 (d, "Perceptron", Perceptron().fit(augmented, y).n_mistakes_)]
    return pd.DataFrame(rows, columns=["d", "learner", "mistakes"])


# -- Balanced Winnow ------------------------------------------------------------------
def balanced_winnow_bound(run, X, y, relevant=None, *, competitor=None, gamma=None,
                          outside_assumption=False):
    """Mistakes of a finished :class:`~olearn.BalancedWinnow` run against a potential bound.

    The theorem (``book/single_pass/winnow_bound``, "The Balanced form"): 0/1
    rows, augmented and normalised as the library does, so the row ``t`` with
    active set ``S_t`` (its features and the always-on one, ``a_t = |S_t|``)
    is predicted positive iff ``sum_{S_t} (u_j - v_j) > theta a_t``;
    ``alpha > 1``, ``0 < beta < 1`` and **alpha + beta <= 2** (the paper's
    defaults 1.5, 0.5 have ``alpha + beta = 2``).  For any competitor
    ``mu+, mu- >= 0`` on the augmented features, with

    * ``h_t = ln(alpha) mu+(S_t) - ln(1/beta) mu-(S_t) - (alpha - 1) theta a_t`` (``y_t = +1``),
    * ``h_t = ln(alpha) mu-(S_t) - ln(1/beta) mu+(S_t) + (1 - beta) theta a_t`` (``y_t = -1``),
    * ``Phi_0 = sum_j D(mu+_j, theta0+) + D(mu-_j, theta0-)`` over the ``n``
      features on in some row and the always-on one, ``D(m, w) = m ln(m/w) - m + w``,

    and any ``gamma > 0``: ``M <= (Phi_0 + sum_t max(0, gamma - h_t)) / gamma``.

    Parameters
    ----------
    run : olearn.BalancedWinnow
        Fitted in one pass over ``(X, y)`` (not the Modified form: its factors
        depend on ``x~`` and it updates on margin errors).
    X : 0/1 matrix, the stream in the order the run saw it.
    y : its labels (original coding).
    relevant : sequence of feature indices, optional
        A competitor disjunction: ``mu+ = c`` on ``relevant``, 0 elsewhere;
        the scale ``c`` is chosen on a grid to minimise the bound (each ``c``
        gives a valid bound, so their minimum is one).
    competitor : array of length ``n_features + 1``, or of shape ``(2, n_features + 1)``, optional
        Instead of ``relevant``: a signed competitor ``z`` on the augmented
        features (last entry the always-on one), ``mu+ = max(z, 0)``,
        ``mu- = max(-z, 0)``; or the pair ``(mu+, mu-)`` itself, two rows of
        non-negative numbers (the theorem allows ``mu+_j`` and ``mu-_j`` both
        positive on one feature, which a signed vector cannot express).
    gamma : float > 0, optional
        The margin; by default the ``gamma`` minimising the bound (the bound
        is piecewise monotone between the ``h_t``, so the minimum is at one
        of them).
    outside_assumption : bool, default=False
        Evaluate the right-hand side even when ``alpha + beta > 2`` (e.g. the
        EG+- case ``beta = 1/alpha``), where it is *not* a theorem: the
        proof's step fails there (:func:`balanced_winnow_steps`).  The
        check's name then says so and ``terms["assumption_holds"]`` is False.

    Notes
    -----
    Degenerate runs raise (:func:`olearn.bounds._common.refuse_degenerate`):
    another learner (``TypeError``, the Modified form too), an unfitted run,
    an empty stream, ``gamma <= 0`` (``ValueError``).  Deliberately taken: a
    stream of zero rows only (the always-on pair learns; the bound is finite
    and can be tight, ``tests/test_bounds_winnow.py``) and a competitor with no
    positive margin ``y_t (mu+ - mu-).x~_t`` (``mu = 0`` included: then
    ``h_t = (1 - beta) theta a_t > 0`` on the negative rows, and with
    ``alpha + beta <= 2`` the bound is at least the number of positive rows, a
    finite, valid and on all-negative streams tight bound).
    """
    from ..linear.winnow import BalancedWinnow, ModifiedBalancedWinnow

    if isinstance(run, ModifiedBalancedWinnow):
        raise TypeError("This bound is about BalancedWinnow; got a "
                        "ModifiedBalancedWinnow (its factors alpha (1 + x~_j), "
                        "beta (1 - x~_j) and margin updates are not covered). Pass "
                        "a BalancedWinnow run.")
    stream = finished_run(run, X, y, BalancedWinnow, zero_rows=True)
    Xb = _binary_rows(stream.X)
    d = Xb.shape[1]
    alpha, beta, theta = float(run.alpha), float(run.beta), float(run.theta)
    pos0, neg0 = float(run.theta0_pos), float(run.theta0_neg)
    assumption_holds = alpha + beta <= 2.0 * (1.0 + 1e-12)
    if not assumption_holds and not outside_assumption:
        raise ValueError(
            f"The Balanced Winnow bound needs alpha + beta <= 2 (the total "
            f"weight change of an update is then controlled by the threshold); "
            f"got alpha + beta = {alpha + beta:.6g}. Use e.g. beta = 2 - alpha.")
    yp = stream.y
    mistakes = np.asarray(run.mistakes_, dtype=bool)
    promoted, demoted = mistakes & (yp > 0), mistakes & (yp < 0)

    # replay: u_j = theta0+ alpha^p_j beta^q_j, v_j = theta0- beta^p_j alpha^q_j
    p = np.concatenate([Xb.T @ promoted.astype(float), [promoted.sum()]])
    q = np.concatenate([Xb.T @ demoted.astype(float), [demoted.sum()]])
    la, lb = math.log(alpha), math.log(beta)
    log_u = math.log(pos0) + p * la + q * lb
    log_v = math.log(neg0) + p * lb + q * la
    scale = max(1.0, float(np.abs(log_u).max()), float(np.abs(log_v).max()))
    deviation = float(max(np.max(np.abs(run.log_u_ - log_u)),
                          np.max(np.abs(run.log_v_ - log_v))))
    if deviation > 1e-8 * scale:
        raise ValueError(
            f"The run's weights are not those its record implies for this "
            f"stream (max deviation of log u, log v: {deviation:.3g}): pass the "
            f"X, y the run saw, in the same order, from one pass.")

    Xa = sp.hstack([Xb, np.ones((Xb.shape[0], 1))], format="csr")
    a = np.asarray(Xa.sum(axis=1)).ravel()
    active = np.concatenate([np.diff(Xb.tocsc().indptr) > 0, [True]])
    if (relevant is None) == (competitor is None):
        raise ValueError("Pass exactly one of relevant (a disjunction) or "
                         "competitor (a signed vector of length n_features + 1, or "
                         "the pair (mu+, mu-) as an array of shape (2, n_features + 1)).")
    if competitor is not None:
        z = np.asarray(competitor, dtype=np.float64)
        if z.ndim == 2:
            if z.shape != (2, d + 1) or not np.all(np.isfinite(z)) or (z < 0).any():
                raise ValueError(f"A competitor pair (mu+, mu-) must be an array of shape "
                                 f"(2, {d + 1}) of finite non-negative numbers (the "
                                 f"features and the always-on one, last); got shape "
                                 f"{z.shape}.")
        else:
            z = z.ravel()
            if z.shape != (d + 1,) or not np.all(np.isfinite(z)):
                raise ValueError(f"competitor must be {d + 1} finite numbers (the "
                                 f"features and the always-on one, last) or a pair of "
                                 f"shape (2, {d + 1}); got shape {z.shape}.")
        candidates = [z]
    else:
        relevant = np.unique(np.asarray(relevant, dtype=np.int64).ravel())
        if relevant.size == 0 or relevant.min() < 0 or relevant.max() >= d:
            raise ValueError(f"relevant must be nonempty indices in 0..{d - 1}, "
                             f"got {relevant.tolist()}.")
        base = np.zeros(d + 1)
        base[relevant] = 1.0
        # the scale a relevant weight needs to beat the threshold, then a grid around it
        c0 = ((alpha - 1.0) * theta * float(a.max()) + 1.0) / la
        candidates = [c * base for c in c0 * np.geomspace(0.25, 64.0, 97)]
    if gamma is not None and not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma}: pass gamma > 0 (or None for the "
                         f"best one).")

    best = None
    for z in candidates:
        terms = _balanced_terms(Xa, yp, a, active, z, alpha, beta, theta, pos0,
                                neg0, gamma)
        if best is None or terms["bound"] < best["bound"]:
            best = terms
    bound = best.pop("bound")
    m_pos, m_neg = int(promoted.sum()), int(demoted.sum())
    name = ("Balanced Winnow: M <= (Phi_0 + sum_t (gamma - h_t)_+) / gamma "
            "(relative-entropy potential; alpha + beta <= 2, augmentation and "
            "normalisation on 0/1 rows)")
    if not assumption_holds:
        name += f" EVALUATED OUTSIDE ITS ASSUMPTION (alpha + beta = {alpha + beta:.6g}): not a theorem"
    return make_check(
        name, m_pos + m_neg, bound, promotions=m_pos, demotions=m_neg,
        assumption_holds=assumption_holds,
        **best, a_max=float(a.max()), a_min=float(a.min()),
        n_active_features=int(active.sum() - 1), alpha=alpha, beta=beta,
        theta=theta, theta0_pos=pos0, theta0_neg=neg0,
        rounds=int(run.n_rounds_), replay_deviation=deviation)


def _relative_entropy(m, w):
    """``D(m, w) = m ln(m/w) - m + w`` (unnormalised; ``D(0, w) = w``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m > 0, m * np.log(m / w) - m + w, w)


def _balanced_terms(Xa, yp, a, active, z, alpha, beta, theta, pos0, neg0, gamma):
    """``h_t``, ``Phi_0`` and the bound for one competitor (and the best ``gamma``).

    ``z`` is a signed vector (``mu+ = max(z, 0)``, ``mu- = max(-z, 0)``) or the pair
    ``(mu+, mu-)`` as two rows."""
    if z.ndim == 2:
        mu_pos, mu_neg = z[0], z[1]
    else:
        mu_pos, mu_neg = np.maximum(z, 0.0), np.maximum(-z, 0.0)
    la, lib = math.log(alpha), math.log(1.0 / beta)
    on_pos, on_neg = Xa @ mu_pos, Xa @ mu_neg
    h = np.where(yp > 0,
                 la * on_pos - lib * on_neg - (alpha - 1.0) * theta * a,
                 la * on_neg - lib * on_pos + (1.0 - beta) * theta * a)
    # the weights that never change drop out of the potential's decrease, but a
    # competitor weight on one of them still costs its D in Phi_0
    keep = active | (mu_pos > 0) | (mu_neg > 0)
    phi0 = float(_relative_entropy(mu_pos[keep], pos0).sum()
                 + _relative_entropy(mu_neg[keep], neg0).sum())
    if gamma is None:
        # (Phi_0 + sum (g - h)_+)/g is monotone between consecutive h_t: try them all
        hs = np.sort(h[h > 0])
        if hs.size == 0:
            g, bound = 1.0, phi0 + float(np.maximum(0.0, 1.0 - h).sum())
        else:
            below = np.searchsorted(hs, hs, side="right")  # h_t <= g among the positive ones
            neg_part = float(np.maximum(0.0, -h[h <= 0]).sum())
            csum = np.cumsum(hs)
            values = (phi0 + neg_part + (h <= 0).sum() * hs
                      + below * hs - csum[below - 1]) / hs
            i = int(np.argmin(values))
            g, bound = float(hs[i]), float(values[i])
    else:
        g = float(gamma)
        bound = (phi0 + float(np.maximum(0.0, g - h).sum())) / g
    return dict(bound=bound, gamma=g, initial_potential=phi0,
                hinge=float(np.maximum(0.0, g - h).sum()),
                rows_below_gamma=int(np.count_nonzero(h < g)),
                competitor_l1=float(mu_pos.sum() + mu_neg.sum()), h_min=float(h.min()))


def balanced_winnow_steps(run, X, y):
    """The step of the Balanced Winnow proof on every mistake round of a finished run.

    The proof needs, on a promotion (``y = +1``, ``U - V <= theta a``),
    ``(alpha - 1) U - (1 - beta) V <= (alpha - 1) theta a`` and, on a demotion
    (``y = -1``, ``U - V > theta a``), ``(1 - beta) U - (alpha - 1) V >= (1 - beta) theta a``,
    where ``U``, ``V`` are the sums of ``u``, ``v`` over the row's active set
    (the always-on feature included, ``a`` of them) *before* the update.  Both
    follow from ``alpha - 1 <= 1 - beta`` (``alpha + beta <= 2``).  Returns a
    DataFrame with one row per mistake: ``t``, ``y``, ``U``, ``V``, ``a`` and
    ``excess``, the amount by which the needed inequality fails (``<= 0``:
    it holds).  With ``beta = 1/alpha`` (EG+-) the promotion excess is
    ``(alpha - 1)(U - V - theta a) + (alpha - 1)^2 V / alpha``, positive
    whenever ``V`` is large enough.  Another learner (the Modified form
    too) raises ``TypeError``; an unfitted run or an empty stream ``ValueError``
    (:func:`olearn.bounds._common.refuse_degenerate`); zero rows are taken (the
    always-on pair learns from them).
    """
    from ..linear.winnow import BalancedWinnow, ModifiedBalancedWinnow

    if isinstance(run, ModifiedBalancedWinnow):
        raise TypeError("The proof's step is about BalancedWinnow; got a "
                        "ModifiedBalancedWinnow (its factors depend on x~). Pass a "
                        "BalancedWinnow run.")
    stream = finished_run(run, X, y, BalancedWinnow, zero_rows=True)
    Xb = _binary_rows(stream.X)
    Xa = np.asarray(sp.hstack([Xb, np.ones((Xb.shape[0], 1))], format="csr").todense())
    alpha, beta, theta = float(run.alpha), float(run.beta), float(run.theta)
    yp = stream.y
    mistakes = np.asarray(run.mistakes_, dtype=bool)
    promoted, demoted = mistakes & (yp > 0), mistakes & (yp < 0)
    # counts of promotions and demotions of each weight before round t
    p = np.cumsum(Xa * promoted[:, None], axis=0) - Xa * promoted[:, None]
    q = np.cumsum(Xa * demoted[:, None], axis=0) - Xa * demoted[:, None]
    la, lb = math.log(alpha), math.log(beta)
    log_u = math.log(run.theta0_pos) + p * la + q * lb
    log_v = math.log(run.theta0_neg) + p * lb + q * la
    # the replay must end at the run's weights
    last_u = log_u[-1] + Xa[-1] * (promoted[-1] * la + demoted[-1] * lb)
    deviation = float(np.max(np.abs(run.log_u_ - last_u)))
    if deviation > 1e-8 * max(1.0, float(np.abs(last_u).max())):
        raise ValueError(f"The run's weights are not those its record implies for this "
                         f"stream (max deviation of log u: {deviation:.3g}).")
    rows = np.flatnonzero(mistakes)
    U = (np.exp(log_u[rows]) * Xa[rows]).sum(axis=1)
    V = (np.exp(log_v[rows]) * Xa[rows]).sum(axis=1)
    a = Xa[rows].sum(axis=1)
    excess = np.where(yp[rows] > 0,
                      (alpha - 1) * U - (1 - beta) * V - (alpha - 1) * theta * a,
                      (1 - beta) * theta * a - (1 - beta) * U + (alpha - 1) * V)
    return pd.DataFrame({"t": rows, "y": yp[rows].astype(int), "U": U, "V": V, "a": a,
                         "excess": excess})
