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
from ._common import make_check, refuse_degenerate

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
    """Replay ``duol`` (default ``DUOL()``) on ``(X, y)`` in order; one row per update.

    Another learner than an (unfitted or fitted, it is cloned) :class:`~olearn.DUOL`
    raises ``TypeError``, an empty stream ``ValueError``
    (:func:`olearn.bounds._common.refuse_degenerate`); zero rows are points of the RKHS
    like any other (``k(0, 0) = 1`` for the Gaussian kernel).
    """
    duol = duol if duol is not None else DUOL()
    refuse_degenerate(len(y), learner=duol, learner_type=DUOL)
    est = clone(duol)
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
    ``updates`` must be a frame of :func:`duol_updates` (``TypeError``) with at least
    one update (``ValueError``).
    """
    needed = {"h_step", "dual_increase", "thm1_applies", "thm2_applies", "thm1_bound",
              "thm2_bound", "delta_max", "double", "mistake"}
    if not isinstance(updates, pd.DataFrame) or (len(updates)
                                                 and not needed <= set(updates.columns)):
        raise TypeError("assert_theorems_1_2 takes the frame of duol_updates(X, y, duol); "
                        f"got a {type(updates).__name__} without its columns. Pass "
                        f"duol_updates(X, y, duol).")
    if len(updates) == 0:
        raise ValueError("The frame has no update: nothing to check. Pass "
                         "duol_updates(X, y, duol) of a stream of at least one round.")
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
    and the primal value of SVC's function without its intercept.  An empty
    stream raises ``ValueError``; zero rows are points of the RKHS like any other.
    """
    refuse_degenerate(len(y))
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


def exact_bracket(X, y, C, kernel="rbf", sigma=8.0, degree=3, coef0=1.0, tol=1e-10,
                  max_sweeps=20_000):
    """Bracket ``P* = min_f ||f||^2/2 + C sum l(y f(x))`` (f without bias) to ``tol``.

    Exact coordinate ascent on the bias-free dual ``max_{0 <= alpha <= C} sum alpha -
    ||sum alpha_i y_i k(x_i, .)||^2 / 2`` (each coordinate maximised in closed form,
    ``alpha_i <- clip(alpha_i + (1 - y_i f(x_i)) / k(x_i, x_i), 0, C)``), stopped when the
    primal value of ``f_alpha`` and the dual value of ``alpha`` differ by at most ``tol``
    (relative) or after ``max_sweeps`` sweeps (a wider bracket): both are certified, the dual value by weak duality a lower bound of ``P*``
    and the primal value, of a function of the space, an upper bound. Returns
    ``(lower, upper)``. For small streams (``O(n^2)`` memory; a sweep costs ``O(n^2)``).
    """
    K = kernel_matrix(X, X, kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
    y = np.asarray(y)
    ypm = np.where(y == np.unique(y)[-1], 1.0, -1.0)
    Q = K * np.outer(ypm, ypm)
    alpha = np.zeros(len(ypm))
    grad = np.ones(len(ypm))                     # 1 - y_i f(x_i)
    lower = upper = 0.0
    for _ in range(max_sweeps):
        for i in range(len(ypm)):
            if Q[i, i] <= 0.0:
                continue
            new = min(C, max(0.0, alpha[i] + grad[i] / Q[i, i]))
            if new != alpha[i]:
                grad -= (new - alpha[i]) * Q[:, i]
                alpha[i] = new
        margins = 1.0 - grad
        norm2 = float(alpha @ (1.0 - grad)) if alpha.any() else 0.0
        lower = float(alpha.sum() - 0.5 * norm2)
        upper = float(0.5 * norm2 + C * np.maximum(0.0, 1.0 - margins).sum())
        if upper - lower <= tol * max(1.0, abs(upper)):
            break
    # after max_sweeps the bracket is wider than tol but still certified (both sides are)
    return lower, upper


#: the counting rules of a mistake: ``"zero"`` counts ``y f(x) <= 0`` (the paper's analysis,
#: where a zero score is a mistake), ``"strict"`` only ``y f(x) < 0``
COUNTS = ("zero", "strict")


def _mistakes(updates, count):
    if count not in COUNTS:
        raise ValueError(f"count={count!r}: use one of {COUNTS}")
    return updates["margin"] <= 0.0 if count == "zero" else updates["margin"] < 0.0


def _bracket(X, y, est, updates, exact):
    C = float(est.C)
    if exact:
        lower, upper = exact_bracket(X, y, C, est.kernel, est.sigma, est.degree, est.coef0)
    else:
        lower, upper = svm_bracket(X, y, C, est.kernel, est.sigma, est.degree, est.coef0)
    return lower, upper, max(lower, updates.attrs["final_dual"])


def theorem3(X, y, duol=None, updates=None, count="zero", exact=False):
    """Theorem 3 on ``(X, y)`` in order (see the module docstring); a BoundCheck.

    ``count`` the rule of a mistake (:data:`COUNTS`; the paper's analysis: ``"zero"``);
    ``exact`` brackets ``P*`` by :func:`exact_bracket` (small streams) instead of SVC.
    ``holds`` uses the largest lower bound of ``P*``; the term ``refuted`` is true when the
    bound fails even with the upper bound of ``P*``: then it fails for the true minimum,
    and the run is a counterexample to the theorem.  Another learner than a
    :class:`~olearn.DUOL` raises ``TypeError``, an empty stream ``ValueError``;
    zero rows are points of the RKHS like any other.
    """
    est = duol if duol is not None else DUOL()
    refuse_degenerate(len(y), learner=est, learner_type=DUOL)
    if updates is None:
        updates = duol_updates(X, y, est)
    rho = float(est.rho)
    lower, upper, best_lower = _bracket(X, y, est, updates, exact)
    mistake = _mistakes(updates, count)
    M = int(mistake.sum())
    Md = int((mistake & updates["double"]).sum())
    factor = (1 + rho) / (1 - rho)
    with_upper = 2 * upper - factor * Md
    refuted = bool(M > with_upper + ROUNDOFF * max(1.0, abs(with_upper)))
    return make_check("DUOL mistakes (Zhao, Hoi, Jin 2009, Thm 3)", M,
                      2 * best_lower - factor * Md, M_d=Md,
                      P_lower_svc=lower, P_lower_duol_dual=updates.attrs["final_dual"],
                      P_upper_svc=upper, bound_with_upper=with_upper, refuted=refuted,
                      count=count)


def margin_error_charge(updates, rho):
    """The charge ``B`` of the corrected Theorem 3 (:func:`theorem3_corrected`), by part.

    With ``g = 1/(1-rho)`` and ``m_t = y_t f(x_t)`` before the update:

    * a single update on a margin error (``0 < m_t < 1``) gains ``l_t - s_t/2 >= 1/2 - m_t``,
      so it is charged ``(2 m_t - 1)^+``;
    * a double update whose step is capped by ``C`` (``dgamma_b < g``) gains at least
      ``g l_t - g^2/2``: charged ``g^2`` on a mistake, ``(g^2 - 2 g l_t)^+`` on a margin error;
    * every other update is charged nothing (a single update on a mistake gains at least 1/2,
      a full double update at least ``g l_t``).
    """
    g = 1.0 / (1.0 - rho)
    m = updates["margin"].to_numpy()
    double = updates["double"].to_numpy()
    mistake = m <= 0.0
    capped = double & (updates.get("dgamma_b", pd.Series(np.nan, index=updates.index))
                       .to_numpy() < g * (1 - 1e-12))
    loss = 1.0 - m
    single_me = np.where(~double & ~mistake, np.maximum(0.0, 2 * m - 1), 0.0)
    capped_mistake = np.where(capped & mistake, g * g, 0.0)
    capped_me = np.where(capped & ~mistake, np.maximum(0.0, g * g - 2 * g * loss), 0.0)
    return {"single margin errors": float(single_me.sum()),
            "capped double mistakes": float(capped_mistake.sum()),
            "capped double margin errors": float(capped_me.sum()),
            "n single margin errors charged": int((single_me > 0).sum()),
            "n capped double updates": int(capped.sum())}


def theorem3_corrected(X, y, duol=None, updates=None, exact=False):
    """The corrected Theorem 3 (the book's; ``book/duol/theory``), a BoundCheck:

    ``M <= 2 P* - (1+rho)/(1-rho) M_d + B``, ``M`` the mistakes ``y f(x) <= 0``, ``M_d``
    those with a double update and ``B`` the charge of :func:`margin_error_charge`, under
    ``k(x, x) <= 1`` and ``C >= 1/(1-rho)``. Without margin-error updates and with ``C``
    large enough for every double step (the paper's hypothesis), ``B = 0``: the paper's bound.
    """
    est = duol if duol is not None else DUOL()
    C, rho = float(est.C), float(est.rho)
    if C < 1.0 / (1.0 - rho):
        raise ValueError(f"the corrected Theorem 3 needs C >= 1/(1-rho) = {1 / (1 - rho):.4g} "
                         f"(got C={C}); raise C")
    if updates is None:
        updates = duol_updates(X, y, est)
    if (updates["s_a"] > 1 + 1e-12).any():
        raise ValueError("the corrected Theorem 3 needs k(x, x) <= 1 on every example "
                         "(the Gaussian kernel has it); rescale the kernel")
    lower, upper, best_lower = _bracket(X, y, est, updates, exact)
    mistake = updates["margin"] <= 0.0
    M = int(mistake.sum())
    Md = int((mistake & updates["double"]).sum())
    charge = margin_error_charge(updates, rho)
    B = (charge["single margin errors"] + charge["capped double mistakes"]
         + charge["capped double margin errors"])
    factor = (1 + rho) / (1 - rho)
    return make_check("DUOL mistakes, Thm 3 with the margin-error charge (ours)", M,
                      2 * best_lower - factor * Md + B, M_d=Md, B=B, **charge,
                      P_lower=best_lower, P_upper=upper,
                      paper_bound=2 * best_lower - factor * Md)


def search_theorem3(n_streams=500, n_points=7, n_positions=3, seed=3, rho=0.2, C=5.0,
                    sigma=1.0, gaps=(1.1, 1.4), stop_at_first=False):
    """Random small streams on a line, each checked against Theorem 3 under both counts.

    Stream ``i`` (generator ``default_rng([seed, i])``): ``n_positions`` points on a line,
    the first at 0 and each next one a distance drawn uniformly in ``gaps`` further (in
    units of ``sigma``), each with a random label +-1; ``n_points`` examples, each at one of
    the points drawn at random (streams with one label only are skipped); DUOL with a
    Gaussian kernel. ``stop_at_first`` stops at the first stream that refutes the theorem. ``P*`` is bracketed exactly (:func:`exact_bracket`).
    One row per stream: the mistakes under each count, ``M_d``, the bracket, whether
    Theorem 3 is refuted (fails for the upper bound of ``P*``) under each count, and whether
    the corrected theorem holds (:func:`theorem3_corrected`).
    """
    rows = []
    est = DUOL(C=C, rho=rho, sigma=sigma)
    for i in range(n_streams):
        rng = np.random.default_rng([seed, i])
        where = sigma * np.concatenate([[0.0], np.cumsum(rng.uniform(*gaps, n_positions - 1))])
        label = rng.choice([-1, 1], n_positions)
        idx = rng.integers(0, n_positions, n_points)
        X, y = where[idx][:, None], label[idx]
        if np.unique(y).size < 2:
            continue
        updates = duol_updates(X, y, est)
        zero = theorem3(X, y, est, updates=updates, exact=True)
        strict = theorem3(X, y, est, updates=updates, count="strict", exact=True)
        fixed = theorem3_corrected(X, y, est, updates=updates, exact=True)
        rows.append({"stream": i, "x": X[:, 0].round(4).tolist(), "y": y.tolist(),
                     "M (y f <= 0)": zero.observed, "M (y f < 0)": strict.observed,
                     "M_d": zero.terms["M_d"], "P* lower": zero.terms["P_lower_svc"],
                     "P* upper": zero.terms["P_upper_svc"],
                     "refuted (y f <= 0)": zero.terms["refuted"],
                     "refuted (y f < 0)": strict.terms["refuted"],
                     "corrected bound": fixed.bound, "corrected holds": fixed.holds})
        if stop_at_first and zero.terms["refuted"]:
            break
    return pd.DataFrame(rows)


def proposition1(X, y, learner=None):
    """Proposition 1 on a kernel Perceptron run: one row per update with ``y f(x) < 0``.

    Columns ``t``, ``margin``, ``min_conflict`` (``min_i y_i y_a k(x_i, x_a)``
    over the support vectors before the update), ``n_hurt`` (support vectors
    whose score drops) and ``holds`` (``min_conflict < 0``).  Another learner
    than a :class:`~olearn.KernelPerceptron` raises ``TypeError``, an empty
    stream ``ValueError``; zero rows are points of the RKHS like any other.
    """
    learner = learner if learner is not None else KernelPerceptron()
    refuse_degenerate(len(y), learner=learner, learner_type=KernelPerceptron)
    est = clone(learner)
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
