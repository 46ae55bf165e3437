"""The runs behind the scoreboard rows that no other experiment covers (issue 28 item 6).

* Carvalho and Cohen (2006), section 2.2: "in preliminary experiments, we found that the
  Winnow variants performed better if we applied an *augmentation* and a *normalization*
  preprocessing step". :class:`WinnowSteps` is a small reference Winnow (PW, BW, MBW of
  section 2.2) whose two steps can be switched off; with both on it equals olearn's
  compiled Winnows (``tests/test_scoreboard.py`` checks it). :func:`winnow_steps_folds`
  runs it with the report's cross-validation protocol (:func:`single_pass.cross_validate`).
* Carvalho and Cohen, section 7: "We also implemented the external regret minimization
  scheme proposed by Blum [4] (Blum and Mansour 2005). Using a Positive Winnow
  implementation [...] no consistent improvement or deterioration in performance was
  observed". The report gives no detail; our reading (:class:`RegretWinnow`) is Blum and
  Mansour's polynomial-weights external-regret algorithm, ``w_i <- w_i (1 - eta l_i)``,
  over a pool of Positive Winnows that differ in the promotion and demotion factors, each
  expert's loss the 0/1 loss of its online prediction. :func:`regret_folds` compares it
  with Table 3's Positive Winnow on the same folds.
* Shen and Dietterich (2009), abstract and section 4: the regularized learners "decrease
  the influence of old instances and focus on recent ones". :func:`old_influence` measures
  the influence of the first phase of a four-phase stream on the final model: the model
  trained on the whole stream against the one trained without that phase,
  ``||w - w'|| / ||w||``, and the share of the second half's predictions that differ.
* Crammer, Kulesza and Dredze (2009), Lemma 1 (representer theorem): :func:`arow_representer`
  runs AROW in its dual form, with coefficients computed from inner products of the inputs
  only, and returns the largest difference from olearn's AROW (primal) mean and covariance.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin

#: the kinds of :class:`WinnowSteps` (Carvalho and Cohen's sections 2.2.1-2.2.3)
KINDS = ("PW", "BW", "MBW")
#: the preprocessing variants of the section 2.2 run: (augment, normalise)
STEP_VARIANTS = {"both steps": (True, True), "no augmentation": (False, True),
                 "no normalisation": (True, False), "neither step": (False, False)}


# -- Carvalho and Cohen, section 2.2: the Winnows without the two steps --------------
@njit(cache=True)
def _weight(m, e, j, K):
    return math.ldexp(m[j], int(e[j] - K))


@njit(cache=True)
def _row_score(um, ue, vm, ve, kind, data, indices, lo, hi, d, augment, normalise, seen,
               test, theta, K):
    """The score of a row after the section 2.2 steps, in the arithmetic of olearn's
    compiled pass: ``(sum_j x_j (u_j - v_j) + b) / norm - theta`` with ``b`` the always-on
    weight (augmentation) and ``norm = sum_j x_j (+ 1)`` (normalisation), the sum over the
    row's nonzeros (at test time only the features seen in training). The weights are
    ``m 2**e``; the score is returned scaled by ``2**-K``, with ``xsum``."""
    xsum = 0.0
    dot = 0.0
    for p in range(lo, hi):
        x = data[p]
        if x == 0.0:
            continue
        j = indices[p]
        if test and not seen[j]:
            continue
        xsum += x
        w = _weight(um, ue, j, K)
        if kind != 0:
            w -= _weight(vm, ve, j, K)
        dot += x * w
    if augment:
        dot += _weight(um, ue, d, K) - (_weight(vm, ve, d, K) if kind != 0 else 0.0)
    norm = xsum + 1.0 if augment else xsum
    if normalise and norm > 0:
        return dot / norm - math.ldexp(theta, int(-K)), xsum
    return dot - math.ldexp(theta, int(-K)), xsum


@njit(cache=True)
def _score(um, ue, vm, ve, kind, data, indices, lo, hi, d, augment, normalise, seen, test,
           theta):
    """``(scaled score, K, xsum)``: unscaled (``K = 0``) unless a weight of the row is
    above the floating-point range, then scaled by its largest exponent (as olearn)."""
    s, xsum = _row_score(um, ue, vm, ve, kind, data, indices, lo, hi, d, augment, normalise,
                         seen, test, theta, 0)
    if np.isfinite(s):
        return s, 0, xsum
    K = -(2 ** 62)
    for p in range(lo, hi + (1 if augment else 0)):
        j = indices[p] if p < hi else d
        if p < hi and (data[p] == 0.0 or (test and not seen[j])):
            continue
        K = max(K, ue[j], ve[j] if kind != 0 else K)
    s, xsum = _row_score(um, ue, vm, ve, kind, data, indices, lo, hi, d, augment, normalise,
                         seen, test, theta, K)
    return s, K, xsum


@njit(cache=True)
def _scale(m, e, j, factor):
    """``w_j *= factor`` on the exact state ``w_j = m_j 2**e_j`` (mantissa in [0.5, 1))."""
    mant, ex = math.frexp(m[j] * factor)
    m[j] = mant
    e[j] = e[j] + ex if mant != 0.0 else 0


@njit(cache=True)
def _winnow_fit(data, indices, indptr, y, d, kind, alpha, beta, theta, u0, v0, margin,
                augment, normalise):
    um = np.full(d + 1, math.frexp(u0)[0])
    ue = np.full(d + 1, math.frexp(u0)[1], np.int64)
    vm = np.full(d + 1, math.frexp(v0)[0] if kind != 0 else 0.0)
    ve = np.full(d + 1, math.frexp(v0)[1] if kind != 0 else 0, np.int64)
    seen = np.zeros(d + 1, np.bool_)
    mistakes = np.zeros(y.size, np.bool_)
    for i in range(y.size):
        lo, hi = indptr[i], indptr[i + 1]
        for p in range(lo, hi):
            if data[p] != 0.0:
                seen[indices[p]] = True
        s, K, xsum = _score(um, ue, vm, ve, kind, data, indices, lo, hi, d, augment,
                            normalise, seen, False, theta)
        pred = 1.0 if s > 0 else -1.0
        mistakes[i] = pred != y[i]
        update = y[i] * s <= math.ldexp(margin, int(-K)) if kind == 2 else mistakes[i]
        if not update:
            continue
        norm = (xsum + 1.0 if augment else xsum) if normalise else 1.0
        positive = y[i] > 0
        fu = alpha if positive else beta
        fv = beta if positive else alpha
        snorm = norm if positive else -norm
        for p in range(lo, hi + (1 if augment else 0)):
            j = indices[p] if p < hi else d
            x = data[p] if p < hi else 1.0
            if x == 0.0:
                continue
            if kind == 2:     # Table 2: the factors times (1 + y x~_j), (1 - y x~_j)
                xs = x / snorm
                _scale(um, ue, j, fu * (1.0 + xs))
                _scale(vm, ve, j, fv * (1.0 - xs))
            else:
                _scale(um, ue, j, fu)
                if kind == 1:
                    _scale(vm, ve, j, fv)
    return um, ue, vm, ve, seen, mistakes


@njit(cache=True)
def _winnow_scores(data, indices, indptr, d, kind, theta, um, ue, vm, ve, seen, augment,
                   normalise):
    """The scores' signs (+1 / -1 as +-1.0, 0 for a tie): the scaled scores of different
    rows are not comparable."""
    out = np.empty(indptr.size - 1)
    for i in range(out.size):
        out[i] = np.sign(_score(um, ue, vm, ve, kind, data, indices, indptr[i],
                                indptr[i + 1], d, augment, normalise, seen, True, theta)[0])
    return out


def _csr(X):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    if X.nnz and X.data.min() < 0:
        raise ValueError("the Winnows need non-negative features (Carvalho and Cohen, "
                         "section 2.2); shift or one-hot encode the negative columns")
    return X


class WinnowSteps(ClassifierMixin, BaseEstimator):
    """Positive, Balanced or Modified Balanced Winnow (Carvalho and Cohen 2006, section 2.2,
    Table 2) with the *augmentation* (an always-on feature of value 1) and *normalisation*
    (the row scaled to sum 1; at test time the features unseen in training dropped first)
    steps as options. A reference for the section 2.2 run; each weight is kept as a
    mantissa and an exponent (``m 2**e``), so products never overflow or underflow; with
    both steps it equals :class:`olearn.PositiveWinnow`, :class:`olearn.BalancedWinnow` and :class:`olearn.ModifiedBalancedWinnow` (Table 3's parameters by default).

    Without normalisation MBW's factor ``beta (1 - x_j)`` is not defined for ``x_j > 1``
    (the report designs MBW for normalised rows), so ``kind="MBW"`` requires
    ``normalise=True``. Labels are -1 and +1.
    """

    def __init__(self, kind="PW", augment=True, normalise=True, alpha=1.5, beta=0.5,
                 theta=1.0, margin=1.0):
        self.kind = kind
        self.augment = augment
        self.normalise = normalise
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.margin = margin

    def fit(self, X, y):
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r}: use one of {KINDS}")
        if self.kind == "MBW" and not self.normalise:
            raise ValueError("MBW's factors beta (1 - x_j) need normalised rows "
                             "(x_j < 1): use normalise=True or kind='PW'/'BW'")
        X = _csr(X)
        y = np.asarray(y, dtype=np.float64)
        if not set(np.unique(y)) <= {-1.0, 1.0}:
            raise ValueError("WinnowSteps takes labels -1 and +1")
        kind = KINDS.index(self.kind)
        u0, v0 = (1.0, 1.0) if kind == 0 else (2.0, 1.0)   # Table 3's initial weights
        self.n_features_in_ = X.shape[1]
        self._state = _winnow_fit(X.data, X.indices.astype(np.int64), X.indptr, y,
                                  X.shape[1], kind, self.alpha, self.beta, self.theta, u0,
                                  v0, self.margin, self.augment, self.normalise)
        self.mistakes_ = self._state[-1]
        self.classes_ = np.array([-1, 1])
        return self

    def predict(self, X):
        X = _csr(X)
        um, ue, vm, ve, seen, _ = self._state
        signs = _winnow_scores(X.data, X.indices.astype(np.int64), X.indptr,
                               self.n_features_in_, KINDS.index(self.kind), self.theta, um,
                               ue, vm, ve, seen, self.augment, self.normalise)
        return np.where(signs > 0, 1, -1)


def winnow_steps_folds(keys, kinds=("PW", "BW", "MBW")):
    """Carvalho and Cohen's protocol (5 folds, one pass, F1) for every kind and every
    preprocessing variant of :data:`STEP_VARIANTS` (MBW only where it is defined)."""
    from . import single_pass as sp_

    learners = {f"{kind}, {name}": WinnowSteps(kind, augment=a, normalise=n)
                for kind in kinds for name, (a, n) in STEP_VARIANTS.items()
                if kind != "MBW" or n}
    return pd.concat([sp_.cross_validate(key, learners) for key in keys], ignore_index=True)


def paired_changes(folds, pairs):
    """Per data set and pair ``(label, a, b)``: mean F1 of ``a`` minus ``b`` over the folds
    and the 95% half-width of the paired difference: the board's interval for the folds of
    one cross-validation (:func:`olearn.experiments.scoreboard.cv_interval`, corrected for
    the training rows the folds share)."""
    from .scoreboard import cv_interval

    rows = []
    for key, part in folds.groupby("dataset", sort=False):
        wide = part.pivot(index="fold", columns="learner", values="f1")
        for label, a, b in pairs:
            mean, half = cv_interval((wide[a] - wide[b]).to_numpy())
            rows.append(dict(dataset=key, pair=label, change=float(mean), half=float(half)))
    return pd.DataFrame(rows)


# -- Carvalho and Cohen, section 7: external regret over Positive Winnows ------------
#: the pool of :class:`RegretWinnow` (ours: the report does not say what it combined):
#: promotion and demotion factors, Table 3's (1.5, 0.5) among them
REGRET_POOL = tuple((a, b) for a in (1.1, 1.5, 2.0) for b in (0.5, 0.9))


class RegretWinnow(ClassifierMixin, BaseEstimator):
    """External-regret minimisation over Positive Winnows, our reading of Carvalho and
    Cohen's section 7: Blum and Mansour's polynomial weights (their external-regret
    algorithm), ``w_i <- w_i (1 - eta l_{i,t})`` with ``eta = min(sqrt(ln N / T), 1/2)``,
    over the ``N`` experts of ``pool`` (Positive Winnows with these (alpha, beta)), the
    loss ``l_{i,t}`` the 0/1 loss of expert ``i``'s prediction on round ``t`` (before its
    update). The prediction is the weighted majority of the experts with the final weights.
    """

    def __init__(self, pool=REGRET_POOL):
        self.pool = pool

    def fit(self, X, y):
        from ..linear import PositiveWinnow

        self.experts_ = [PositiveWinnow(alpha=a, beta=b).fit(X, y) for a, b in self.pool]
        losses = np.array([np.asarray(e.mistakes_, dtype=float).sum() for e in self.experts_])
        self.eta_ = min(np.sqrt(np.log(len(self.pool)) / max(len(y), 1)), 0.5)
        self.weights_ = (1.0 - self.eta_) ** losses
        self.classes_ = self.experts_[0].classes_
        return self

    def predict(self, X):
        votes = sum(w * np.where(e.predict(X) == self.classes_[1], 1.0, -1.0)
                    for w, e in zip(self.weights_, self.experts_))
        return np.where(votes > 0, self.classes_[1], self.classes_[0])


def regret_folds(keys):
    """Table 3's Positive Winnow and :class:`RegretWinnow` with the report's protocol."""
    from . import single_pass as sp_
    from ..linear import PositiveWinnow

    return pd.concat([sp_.cross_validate(key, {"PW": PositiveWinnow(),
                                               "regret PW": RegretWinnow()})
                      for key in keys], ignore_index=True)


def consistent_change(changes):
    """``(improved, worse, total)``: the data sets where the 95% interval of the paired
    change lies above zero, below zero, and their number."""
    up = int((changes["change"] - changes["half"] > 0).sum())
    down = int((changes["change"] + changes["half"] < 0).sum())
    return up, down, len(changes)


# -- Shen and Dietterich: the influence of old instances -----------------------------
#: PA (the paper's baseline, every margin error), PA on mistakes only (the mistake-driven
#: reference of the paper's regularized learners, ours), the three regularized learners and
#: their every-round variants (ours: PA's update condition)
INFLUENCE_LEARNERS = ("PA", "PA (mistake)", "objective-regularized", "L2-constrained",
                      "L1-constrained", "objective-regularized (every round)",
                      "L2-constrained (every round)", "L1-constrained (every round)")


def old_influence(streams=None, trials=range(40), results=None):
    """For each stream, trial and learner of :data:`INFLUENCE_LEARNERS` (the paper's
    updates, the parameters the stored run ``results/regularized/runs.csv`` tuned for that
    trial): the model trained on the
    whole four-phase stream against the model trained on it without its first phase.
    ``relative_distance = ||w - w'|| / ||w||``; ``changed`` the share of the second half's
    rows whose predicted sign differs. A learner that forgets old instances drives both
    towards zero; PA's model is a sum of its steps, so the first phase stays in it."""
    import json
    from pathlib import Path

    from sklearn.base import clone

    from . import regularized as er
    from .. import datasets

    streams = er.STREAMS if streams is None else streams
    runs = pd.read_csv(Path(results) / "regularized" / "runs.csv")
    rows = []
    for name in streams:
        first = datasets.info(name).four_phase.n_per_phase
        for trial in trials:
            X, y, _, _ = er.four_phase(name, trial)
            X = sp.csr_matrix(X) if sp.issparse(X) else X
            half = len(y) // 2
            for learner in INFLUENCE_LEARNERS:
                hit = runs[(runs["stream"] == er.FILE_KEYS[name]) & (runs["trial"] == trial)
                           & (runs["learner"] == learner)]
                params = json.loads(hit["params"].iloc[0]) if len(hit) else {}
                est = clone(er.GRIDS[learner][0]).set_params(**params)
                w = np.ravel(clone(est).fit(X, y).coef_)
                w_new = np.ravel(clone(est).fit(X[first:], y[first:]).coef_)
                norm = np.linalg.norm(w)
                test = X[half:]
                changed = np.mean(np.sign(test @ w) != np.sign(test @ w_new))
                rows.append(dict(stream=er.FILE_KEYS[name], trial=trial, learner=learner,
                                 params=json.dumps(params, sort_keys=True),
                                 relative_distance=float(np.linalg.norm(w - w_new) / norm)
                                 if norm > 0 else np.nan, changed=float(changed)))
    return pd.DataFrame(rows)


# -- Crammer, Kulesza and Dredze: Lemma 1 (representer theorem) ---------------------
def arow_representer(X, y, r=1.0):
    """AROW (Figure 1, eqs. 7 and 9, ``Sigma_0 = I``, ``mu_0 = 0``) run on the coefficients
    of Lemma 1: ``mu_t = sum_i a_i x_i``, ``Sigma_t = I + sum_ij B_ij x_i x_j'`` over the
    update rounds, ``a`` and ``B`` computed from the inner products ``x_i . x_t`` only.
    Returns the largest absolute difference of the reconstructed mean and covariance from
    olearn's :class:`olearn.AROW` (primal) fitted on the same stream, and the number of
    updates."""
    from ..second_order import AROW

    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    kept, a, B = [], np.zeros(0), np.zeros((0, 0))
    for t, (x, label) in enumerate(zip(X, y)):
        k = X[kept] @ x if kept else np.zeros(0)       # inner products with kept inputs
        m = a @ k                                        # mu . x
        sigma_x = np.r_[B @ k, 1.0]                      # Sigma x in the span of kept + x
        chi = x @ x + k @ B @ k                          # x' Sigma x
        if label * m >= 1:
            continue
        beta = 1.0 / (chi + r)
        alpha = max(0.0, 1.0 - label * m) * beta
        a = np.r_[a, 0.0] + alpha * label * sigma_x
        B = np.pad(B, ((0, 1), (0, 1))) - beta * np.outer(sigma_x, sigma_x)
        kept.append(t)
    Xk = X[kept]
    mu = Xk.T @ a
    Sigma = np.eye(X.shape[1]) + Xk.T @ B @ Xk
    model = AROW(r=r, covariance="full").fit(X, y)
    return dict(mean_diff=float(np.abs(mu - np.ravel(model.coef_)).max()),
                covariance_diff=float(np.abs(Sigma - model.covariance_).max()),
                updates=len(kept))



# -- the stored full run --------------------------------------------------------------
#: where :func:`reproduce` stores its runs (under the book's ``results``)
FOLDER = "missing_claims"
#: the data sets the scoreboard page reruns in quick mode (a second or so) and compares
#: with the stored full run
QUICK_SETS = ("Congressional", "WiscBreast", "Credit")


def reproduce(results, trials=range(40), progress=print):
    """The full runs of this module (about 20 s for Carvalho and Cohen's two, 15-20 min
    for the 40 trials of :func:`old_influence` on this machine), stored with their
    provenance in ``results/missing_claims``."""
    from pathlib import Path

    from . import single_pass as sp_

    folder = Path(results) / FOLDER
    keys = list(sp_.DATASETS)
    progress("section 2.2: the Winnows with and without the steps")
    sp_.save(winnow_steps_folds(keys), folder, "winnow_steps",
             {"datasets": keys, "variants": STEP_VARIANTS, "protocol": "single_pass."
              "cross_validate (5 folds, seed 0), Table 3's parameters"})
    progress("section 7: external regret over Positive Winnows")
    sp_.save(regret_folds(keys), folder, "regret",
             {"datasets": keys, "pool": REGRET_POOL, "protocol": "single_pass.cross_validate"})
    progress("Shen and Dietterich: the influence of the first phase")
    sp_.save(old_influence(trials=trials, results=results), folder, "influence",
             {"trials": list(trials), "learners": INFLUENCE_LEARNERS,
              "parameters": "tuned per trial by the stored regularized/runs.csv"})


def recheck(results, keys=QUICK_SETS):
    """The two stored Carvalho and Cohen runs rerun on ``keys`` (a second or so): the
    largest ``|F1 now - F1 stored|`` over their folds and learners."""
    from pathlib import Path

    worst = 0.0
    index = ["dataset", "learner", "fold"]
    for name, run in (("winnow_steps", winnow_steps_folds), ("regret", regret_folds)):
        stored = pd.read_csv(Path(results) / FOLDER / f"{name}.csv").set_index(index)["f1"]
        now = run(keys).set_index(index)["f1"]
        worst = max(worst, float((now - stored.loc[now.index]).abs().max()))
    return worst


if __name__ == "__main__":
    # python -m olearn.experiments.missing_claims book/results
    import sys

    reproduce(sys.argv[1] if len(sys.argv) > 1 else "book/results")
