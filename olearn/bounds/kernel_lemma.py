"""The regret lemma in a reproducing-kernel Hilbert space, on a finished kernel run.

The kernel Perceptron, kernel PA and DUOL (Zhao, Hoi and Jin 2009) keep
``f_t = sum_i a_i k(x_i, .)`` and change the coefficients of one or two
examples per round.  In the RKHS ``H`` of the kernel each change is a step of
online mirror descent with the Euclidean regularizer ``||f||_H^2 / 2`` on the
hinge losses of the changed examples: ``eta_t g_t = -sum_i da_i k(x_i, .)``
(``da_i = dgamma_i y_i``, ``dgamma_i >= 0`` the weight added to example ``i``).
For a competitor ``u = sum_j beta_j k(x_j, .)`` the lemma of the book's OCO
part is the identity

    sum_t <eta_t g_t, f_t - u>_H = ||u||^2/2 - ||f_{T+1} - u||^2/2 + sum_t s_t,
    s_t = ||eta_t g_t||_H^2 / 2

(nothing grows, nothing is projected), every term computed from the Gram
matrix.  Read as dual ascent (Shalev-Shwartz and Singer 2006), the same
telescoping gives, with ``gamma_i = y_i a_i`` and the SVM dual
``D(gamma) = sum_i gamma_i - ||f||^2/2``,

    D(gamma_{T+1}) = ||u||^2/2 - ||f_{T+1} - u||^2/2 + sum_i gamma_i (1 - y_i u(x_i)),

so ``0 <= gamma_i <= C`` and ``1 - y u(x) <= max(0, 1 - y u(x))`` give weak
duality ``D <= ||u||^2/2 + C sum_t max(0, 1 - y_t u(x_t)) = P(u)``: the
inequality DUOL's Theorem 3 (and the kernel PA's bound) start from.
:func:`kernel_regret_lemma` replays the run, checks that the replay *is* the
run, and returns every term.
"""
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..kernel.duol import DUOL
from ..kernel.kernels import kernel_matrix
from ..kernel.learners import KernelPA, KernelPerceptron
from ._common import make_check, refuse_degenerate

#: largest difference allowed between the replay's and the run's coefficients and scores
TOLERANCE = 1e-9


def _kernel(run):
    return dict(kernel=run.kernel, sigma=run.sigma, degree=run.degree, coef0=run.coef0)


def kernel_regret_lemma(run, X, y, beta):
    """The OMD lemma's terms in the RKHS for a finished kernel run and ``u = sum beta_j k(x_j, .)``.

    ``run`` is a fitted :class:`~olearn.KernelPerceptron`, :class:`~olearn.KernelPA` or
    :class:`~olearn.DUOL` (no budget, one pass in order) and ``(X, y)`` the stream it saw;
    ``beta`` holds one coefficient per row of ``X`` (e.g. an SVM's ``alpha_i y_i``).
    ``observed`` is the linear regret ``sum_t <eta_t g_t, f_t - u>``, ``bound`` the
    lemma's ``||u||^2/2 + stability``; ``terms`` also hold the final distance, the identity
    gap, the dual objective ``D`` of the final coefficients, the competitor's term
    ``sum_i gamma_i (1 - y_i u(x_i))``, the box ``C`` (the largest ``gamma_i`` when the
    learner has none), the competitor's primal value ``P(u)`` with that box and the sum of the
    per-round dual gains (equal to ``D``).  Raises ``TypeError`` for another learner and
    ``ValueError`` when the replay differs from the run, for an unfitted run and an empty
    stream (:func:`olearn.bounds._common.refuse_degenerate`).  Zero rows are points like
    any other in the RKHS (``k(0, 0) = 1`` for the Gaussian kernel) and any ``beta`` is
    taken (the lemma is an identity for every ``u``): both give finite terms.
    """
    refuse_degenerate(1, learner=run, learner_type=(KernelPerceptron, KernelPA, DUOL))
    check_is_fitted(run, "n_rounds_")
    refuse_degenerate(len(y))
    if run.max_support is not None:
        raise ValueError("A budget (max_support) removes support vectors, which is not a "
                         "step of mirror descent: fit with max_support=None.")
    if getattr(run, "shuffle", False) or run.n_rounds_ != len(y):
        raise ValueError(f"The lemma is for one pass in order over the stream given: the run "
                         f"made {run.n_rounds_} rounds (shuffle={run.shuffle}) on a stream of "
                         f"{len(y)} examples.")
    y = np.asarray(y).ravel()
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=float)
    classes = run.classes_
    ypm = np.where(y == classes[1], 1.0, -1.0)
    T = len(y)
    beta = np.asarray(beta, dtype=float).ravel()
    if beta.shape != (T,):
        raise ValueError(f"beta must hold one coefficient per row of X ({T}); got {beta.size}.")
    K = kernel_matrix(X, X, **_kernel(run))
    u_at = K @ beta                                    # u(x_i) on every row
    est = clone(run)
    a = np.zeros(T)                                    # f_t = sum_i a_i k(x_i, .)
    rows = []                                          # stream row of each support vector
    linear = stability = gains = 0.0
    score_gap = 0.0
    for t in range(T):
        score = float(K[t] @ a)
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=classes)
        score_gap = max(score_gap, abs(ypm[t] * score - float(est.margins_[-1])))
        if est.n_support_ > len(rows):
            rows.append(t)
        new = np.zeros(T)
        new[rows] = est.dual_coef_.ravel()
        changed = np.flatnonzero(new != a)
        if changed.size == 0:
            continue
        step = new[changed] - a[changed]               # -eta_t g_t, on the changed examples
        f_t = K[changed] @ a
        s_t = 0.5 * float(step @ K[np.ix_(changed, changed)] @ step)
        linear += -float(step @ (f_t - u_at[changed]))
        stability += s_t
        gains += float(step @ (ypm[changed] - f_t)) - s_t   # dgamma (1 - y f) - s_t
        a = new
    same_size = len(rows) == run.n_support_
    coef_gap = (float(np.max(np.abs(a[rows] - run.dual_coef_.ravel()), initial=0.0))
                if same_size else np.inf)
    if not same_size or coef_gap > TOLERANCE * max(1.0, np.abs(a).max()) \
            or score_gap > TOLERANCE * max(1.0, np.abs(a).sum()):
        raise ValueError(f"The replay is not the run (coefficients within {coef_gap:.3g}, "
                         f"scores within {score_gap:.3g}): pass the X, y the run saw, in the "
                         f"same order, from one pass.")
    initial = 0.5 * float(beta @ u_at)
    diff = a - beta
    final = 0.5 * float(diff @ K @ diff)
    gamma = ypm * a
    dual = float(gamma.sum() - 0.5 * a @ K @ a)
    competitor = float(gamma @ (1.0 - ypm * u_at))
    # the box of the weak duality: C where the steps are capped by it (PA-I, DUOL), else the
    # largest weight the run gave an example (the Perceptron's 1, PA's and PA-II's tau)
    capped = isinstance(run, DUOL) or (isinstance(run, KernelPA) and run.variant == "PA-I")
    box = float(run.C) if capped else float(gamma.max(initial=0.0))
    hinge_u = np.maximum(0.0, 1.0 - ypm * u_at)
    return make_check(
        f"OMD regret lemma in the RKHS, {type(run).__name__} (Euclidean regularizer "
        "||f||^2/2): sum <eta g, f - u> <= ||u||^2/2 + stability",
        linear, initial + stability,
        linear_regret=linear, initial=initial, final=final, stability=stability,
        identity_gap=abs(linear - (initial - final + stability)),
        dual=dual, sum_of_gains=gains, competitor_term=competitor,
        min_gamma=float(gamma.min(initial=0.0)), max_gamma=float(gamma.max(initial=0.0)),
        C=box, competitor_hinge=float(hinge_u.sum()),
        primal=initial + box * float(hinge_u.sum()),
        updates=int(len(rows)), mistakes=int(np.count_nonzero(run.margins_ <= 0)),
        max_coef_diff=coef_gap, max_score_diff=score_gap)


def svm_dual_competitor(X, y, C, kernel="rbf", sigma=8.0, degree=3, coef0=1.0, sweeps=20):
    """``beta_i = alpha_i y_i`` of a bias-free kernel SVM with box ``C``, for the competitor ``u``.

    scikit-learn's ``SVC`` (libsvm) on the precomputed Gram matrix, its intercept dropped and
    its ``alpha`` refined by ``sweeps`` sweeps of exact coordinate ascent on the bias-free dual
    ``max_{0 <= alpha <= C} sum alpha - ||sum alpha_i y_i k(x_i, .)||^2 / 2``, so that
    ``u = sum_i beta_i k(x_i, .)`` has no bias, like the online learners' functions. Any
    ``beta`` is a valid competitor of the lemma; a better-converged one is a stronger one.
    An empty stream raises ``ValueError``; zero rows are points of the RKHS like any other.
    """
    refuse_degenerate(len(y))
    from sklearn.svm import SVC

    K = kernel_matrix(X, X, kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
    y = np.asarray(y)
    ypm = np.where(y == np.unique(y)[-1], 1.0, -1.0)
    svc = SVC(C=C, kernel="precomputed", tol=1e-6).fit(K, ypm)
    alpha = np.zeros(len(ypm))
    alpha[svc.support_] = np.abs(svc.dual_coef_.ravel())
    # SVC's alpha is feasible for the bias-free dual (no equality constraint there); a few
    # sweeps of exact coordinate ascent on that dual adapt it to a function without bias
    Q = K * np.outer(ypm, ypm)
    grad = 1.0 - Q @ alpha                              # 1 - y_i f(x_i)
    for _ in range(sweeps):
        for i in np.flatnonzero(np.diag(Q) > 0.0):
            new = min(C, max(0.0, alpha[i] + grad[i] / Q[i, i]))
            if new != alpha[i]:
                grad -= (new - alpha[i]) * Q[:, i]
                alpha[i] = new
    return alpha * ypm
