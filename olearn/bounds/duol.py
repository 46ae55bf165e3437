"""DUOL's theory checked on real streams (Zhao, Hoi and Jin 2009).

* :func:`duol_updates` replays a DUOL run round by round and returns one row
  per update: the dual gain ``h`` of the algorithm's step (Lemma 1, eq. 6)
  computed from the kernel values, the increase of the dual objective
  ``D = sum gamma_i - ||f||^2 / 2`` tracked by the learner (they must be equal:
  Lemma 1 is an identity), the exact maximum ``Delta_t`` of ``h`` over the box
  (eq. 5), and the lower bounds of Theorem 1 (``1/(1-rho)``, under
  ``C > hat gamma_b + 1/(1-rho)``) and Theorem 2
  (``1/2 + min((1+rho)^2, (C - hat gamma_b)^2)/2``, under ``C >= 1``) on the
  rounds where their hypotheses hold (a mistake, ``y_a f(x_a) <= 0``, with an
  auxiliary example).
  A *double update* is, as in Algorithm 1, a round that found an auxiliary
  example, also when its weight is already ``gamma_b = C`` and cannot grow
  (``dgamma_b = 0``); the count equals the learner's ``n_double_updates_``.
* :func:`theorem3` evaluates the mistake bound
  ``M <= 2 min_f (||f||^2/2 + C sum_t l(y_t f(x_t))) - (1+rho)/(1-rho) M_d``
  with the minimum bracketed by a batch SVM (scikit-learn's ``SVC``, libsvm):
  the value of its dual coefficients in the bias-free dual is a lower bound of
  the minimum (weak duality), the primal value of its function without the
  bias an upper bound; DUOL's own final dual objective is another lower bound.
  The check uses the largest lower bound, the strictest form.
* :func:`proposition1` checks Proposition 1 on every update with
  ``y_a f(x_a) < 0``: some support vector ``x_i`` has
  ``y_i y_a k(x_i, x_a) < 0``, so its score drops by ``beta`` times that.
"""
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone

from ..kernel.duol import DUOL
from ..kernel.kernels import kernel_matrix
from ..kernel.learners import KernelPerceptron
from ..kernel.updates import dual_gain, duol_exact_step
from ._common import make_check

#: relative tolerance of the asserted inequalities (float round-off)
ROUNDOFF = 1e-9


def _kernel(est):
    return dict(kernel=est.kernel, sigma=est.sigma, degree=est.degree,
                coef0=est.coef0)


def _rows(X, idx):
    return X[idx] if not sp.issparse(X) else X[idx]


def _auxiliary(xa, ya, sv, beta, f, kern):
    """Algorithm 1, lines 8-15, recomputed: the support vector with ``f_i <= 0``
    and the most negative ``y_i y_a k(x_i, x_a)`` (-1 if there is none)."""
    if beta.size == 0:
        return -1
    w = np.sign(beta) * ya * kernel_matrix(xa, sv, **kern)[0]
    w = np.where((f <= 0.0) & (w < 0.0), w, np.inf)
    b = int(np.argmin(w))
    return b if np.isfinite(w[b]) else -1


def duol_updates(X, y, duol=None):
    """Replay ``duol`` (default ``DUOL()``) on ``(X, y)`` in order; one row per update."""
    est = clone(duol if duol is not None else DUOL())
    y = np.asarray(y)
    classes = np.unique(y)
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=float)
    kern = _kernel(est)
    C, rho = float(est.C), float(est.rho)
    rows = []
    if est.max_support is not None:
        raise ValueError("duol_updates replays DUOL without a budget "
                         "(max_support=None): a budget removes support vectors.")
    for t in range(y.shape[0]):
        first = t == 0
        if not first:
            n0 = est.n_support_
            beta0 = est.dual_coef_.ravel().copy()
            f0 = est.scores_
            D0 = est.dual_objective_
            sv0 = est.support_vectors_
        else:
            n0, beta0, f0, D0 = 0, np.zeros(0), np.zeros(0), 0.0
        nd0 = 0 if first else est.n_double_updates_
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=classes)
        if est.n_support_ == n0:
            continue
        margin = float(est.margins_[-1])
        ya = 1.0 if y[t] == classes[1] else -1.0
        beta1 = est.dual_coef_.ravel()
        ga = abs(beta1[-1])
        xa = X[t:t + 1]
        sa = kernel_matrix(xa, xa, **kern)[0, 0]
        # Algorithm 1 makes a double update whenever it finds an auxiliary
        # example, also when that one is already at gamma_b = C and its weight
        # cannot grow (dgamma_b = 0): the learner counts it, and so do we
        double = est.n_double_updates_ > nd0
        row = {"t": t, "margin": margin, "mistake": margin <= 0.0,
               "double": double, "gamma_a": ga}
        la = 1.0 - margin
        if double:
            b = _auxiliary(xa, ya, sv0, beta0, f0, kern)
            changed = np.flatnonzero(beta1[:n0] != beta0)
            if b < 0 or (changed.size and changed[0] != b):
                raise RuntimeError(
                    f"round {t}: the auxiliary example recomputed here ({b}) is "
                    f"not the one DUOL changed ({changed.tolist()}).")
            sv = sv0
            xb = sv[b:b + 1]
            yb = float(np.sign(beta1[b]))
            gb_hat = abs(beta0[b])
            dgb = abs(beta1[b]) - gb_hat
            sb = kernel_matrix(xb, xb, **kern)[0, 0]
            wab = ya * yb * kernel_matrix(xa, xb, **kern)[0, 0]
            lb = 1.0 - f0[b]
            h = dual_gain(ga, dgb, la, lb, sa, sb, wab)
            e_a, e_b = duol_exact_step(la, lb, sa, sb, wab, C, C - gb_hat)
            delta = dual_gain(e_a, e_b, la, lb, sa, sb, wab)
            row.update(b=b, gamma_b_hat=gb_hat, dgamma_b=dgb, wab=wab,
                       f_b=f0[b], s_a=sa, s_b=sb)
            hyp = margin <= 0.0 and f0[b] <= 0.0 and wab <= -rho and sa <= 1 + 1e-12 \
                and sb <= 1 + 1e-12
            row["thm1_applies"] = bool(hyp and C > gb_hat + 1.0 / (1.0 - rho))
            row["thm2_applies"] = bool(hyp and C >= 1.0)
            row["thm2_bound"] = 0.5 + 0.5 * min((1 + rho) ** 2, (C - gb_hat) ** 2)
        else:
            h = ga * la - 0.5 * sa * ga * ga
            delta = min(C, la / sa) * la - 0.5 * sa * min(C, la / sa) ** 2 if sa > 0 else 0.0
            row.update(thm1_applies=False, thm2_applies=False, thm2_bound=np.nan,
                       s_a=sa)
        row["thm1_bound"] = 1.0 / (1.0 - rho)
        row["h_step"] = h
        row["dual_increase"] = est.dual_objective_ - D0
        row["delta_max"] = delta
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["final_dual"] = est.dual_objective_
    out.attrs["n_mistakes"] = int(est.n_mistakes_)
    out.attrs["estimator"] = est
    return out


def assert_theorems_1_2(updates):
    """Assert Lemma 1's identity on every update and Theorems 1-2 where they apply.

    Returns a one-row summary (counts and the smallest slack of each bound).
    """
    u = updates
    scale = np.maximum(1.0, np.abs(u["h_step"]))
    lemma = np.abs(u["h_step"] - u["dual_increase"]) <= 1e-7 * scale
    assert lemma.all(), f"Lemma 1 identity fails on {int((~lemma).sum())} updates"
    t1 = u[u["thm1_applies"]]
    slack1 = t1["h_step"] - t1["thm1_bound"]
    assert (slack1 >= -ROUNDOFF * t1["thm1_bound"]).all(), "Theorem 1 fails"
    assert (t1["delta_max"] >= t1["h_step"] - 1e-9).all()
    t2 = u[u["thm2_applies"]]
    slack2 = t2["delta_max"] - t2["thm2_bound"]
    assert (slack2 >= -ROUNDOFF * t2["thm2_bound"]).all(), "Theorem 2 fails"
    return pd.DataFrame([{
        "updates": len(u), "double updates": int(u["double"].sum()),
        "mistakes": int(u["mistake"].sum()),
        "Thm 1 applies": len(t1), "Thm 1 min slack": float(slack1.min()) if len(t1) else np.nan,
        "Thm 2 applies": len(t2), "Thm 2 min slack": float(slack2.min()) if len(t2) else np.nan,
        "margin-error updates with h < 0": int(((~u["mistake"]) & (u["h_step"] < 0)).sum()),
    }])


def svm_bracket(X, y, C, kernel="rbf", sigma=8.0, degree=3, coef0=1.0):
    """Bracket ``P* = min_f ||f||^2/2 + C sum l(y f(x))`` (f without bias) with SVC.

    Returns ``(lower, upper)``: the bias-free dual value of SVC's coefficients
    and the primal value of SVC's function without its intercept.
    """
    from sklearn.svm import SVC

    K = kernel_matrix(X, X, kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
    y = np.asarray(y)
    ypm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    svc = SVC(C=C, kernel="precomputed", tol=1e-6).fit(K, ypm)
    alpha = np.zeros(y.shape[0])
    alpha[svc.support_] = np.abs(svc.dual_coef_.ravel())
    coef = alpha * ypm
    Kc = K @ coef
    norm2 = float(coef @ Kc)
    lower = float(alpha.sum() - 0.5 * norm2)
    upper = float(0.5 * norm2 + C * np.maximum(0.0, 1.0 - ypm * Kc).sum())
    return lower, upper


def theorem3(X, y, duol=None, updates=None):
    """Theorem 3 on ``(X, y)`` in order (see the module docstring); a BoundCheck."""
    est = duol if duol is not None else DUOL()
    if updates is None:
        updates = duol_updates(X, y, est)
    C, rho = float(est.C), float(est.rho)
    lower, upper = svm_bracket(X, y, C, est.kernel, est.sigma, est.degree, est.coef0)
    final_dual = updates.attrs["final_dual"]
    best_lower = max(lower, final_dual)
    M = int(updates["mistake"].sum())  # the theorem counts y f(x) <= 0
    Md = int((updates["mistake"] & updates["double"]).sum())
    factor = (1 + rho) / (1 - rho)
    return make_check("DUOL mistakes (Zhao, Hoi, Jin 2009, Thm 3)", M,
                      2 * best_lower - factor * Md, M_d=Md,
                      P_lower_svc=lower, P_lower_duol_dual=final_dual,
                      P_upper_svc=upper, bound_with_upper=2 * upper - factor * Md)


def proposition1(X, y, learner=None):
    """Proposition 1 on a kernel Perceptron run: one row per update with ``y f(x) < 0``.

    Columns ``t``, ``margin``, ``min_conflict`` (``min_i y_i y_a k(x_i, x_a)``
    over the support vectors before the update), ``n_hurt`` (support vectors
    whose score drops) and ``holds`` (``min_conflict < 0``).
    """
    est = clone(learner if learner is not None else KernelPerceptron())
    est.fit(X, y)
    y = np.asarray(y)
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    margins = est.margins_
    sv_rounds = np.flatnonzero(margins <= 0.0)  # the Perceptron's updates
    K = kernel_matrix(X[sv_rounds], X[sv_rounds], **_kernel(est))
    rows = []
    for j, t in enumerate(sv_rounds):
        if margins[t] >= 0.0 or j == 0:
            continue
        w = ypm[sv_rounds[:j]] * ypm[t] * K[:j, j]
        rows.append({"t": int(t), "margin": float(margins[t]),
                     "min_conflict": float(w.min()), "n_hurt": int((w < 0).sum()),
                     "n_support": j, "holds": bool(w.min() < 0)})
    return pd.DataFrame(rows)
