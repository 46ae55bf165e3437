"""Online mirror descent with the mirror map as a parameter (the book's OCO part).

A didactic, pure-Python loop (slow, dense, for the book and the tests; the
learners themselves are the compiled classes of :mod:`olearn.linear` and
:mod:`olearn.second_order`).  One round of online mirror descent (OMD) on the
linearised loss ``<g_t, w>`` with the regularizer (mirror map) ``psi_t`` is::

    theta_{t+1} = grad psi_t(w_t) - eta_t g_t,                        (OMD step)
    w_{t+1}     = P_t(grad psi_t^*(theta_{t+1}))                       (projection / prox)

with ``P_t`` the identity for the plain learners, a Bregman projection for
the constrained ones and the proximal map of a composite term for the
regularized ones.  ``eta_t`` may be a vector (a step per coordinate).  With
``c_t = theta_{t+1} - grad psi_t(w_{t+1})`` (zero without ``P_t``) and the
Bregman divergence ``D_t(a, b) = psi_t(a) - psi_t(b) - <grad psi_t(b), a - b>``
the three-point identity gives, for every ``u`` and every round, exactly::

    <eta_t g_t, w_t - u> = D_t(u, w_t) - D_t(u, w_{t+1})
                           + [<eta_t g_t, w_t - w_{t+1}> - D_t(w_{t+1}, w_t)]
                           - <c_t, w_{t+1} - u>,

and summed over the rounds (the regret lemma of the book's OCO part)::

    sum_t <eta_t g_t, w_t - u> = D_1(u, w_1) - D_end(u, w_{T+1})
        + sum (growth of D at the point where psi changes)
        + sum_t stability_t - sum_t <c_t, w_{t+1} - u>.

:func:`omd` runs the loop and returns every term, so a page can assert the
identity to round-off and read the lemma's bound off it.  A *rule* (one per
learner, below) decides from ``(w_t, x_t, y_t)`` whether the round is a
mistake, the step ``eta_t g_t`` and the projection; the *mirror* carries
``psi_t``.
"""
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Euclidean", "Entropic", "Quadratic", "OMDRun", "omd", "perceptron_rule",
           "pa_rule", "winnow_rule", "arow_rule", "norma_rule",
           "objective_regularized_rule", "l2_constrained_rule", "romma_rule", "winnow_row",
           "kernel_omd"]


# -- mirror maps ---------------------------------------------------------------
class Euclidean:
    """``psi(w) = ||w||^2 / 2``: ``grad psi`` is the identity, OMD is gradient descent."""

    name = "Euclidean"

    def psi(self, w):
        return 0.5 * float(w @ w)

    def grad(self, w):
        return w.copy()

    def grad_inverse(self, theta):
        return theta.copy()

    def grow(self, x):
        """A fixed regularizer: nothing grows."""


class Entropic:
    """``psi(w) = sum_j (w_j ln w_j - w_j)`` on ``w > 0``: ``grad psi = ln``, OMD is
    the (unnormalised) exponentiated gradient; its Bregman divergence is the
    unnormalised relative entropy ``sum_j a_j ln(a_j/b_j) - a_j + b_j``."""

    name = "entropic"

    def psi(self, w):
        w = np.asarray(w, dtype=float)
        return float(np.sum(np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0) - w))

    def grad(self, w):
        return np.log(w)

    def grad_inverse(self, theta):
        return np.exp(theta)

    def grow(self, x):
        """A fixed regularizer: nothing grows."""


class Quadratic:
    """``psi_t(w) = w' A_t w / 2`` with ``A_1 = I / a`` and ``A`` growing by
    ``x x' / r`` (``diagonal=False``) or ``diag(x^2) / r`` (``diagonal=True``)
    on each update round: AROW's inverse covariance ``Sigma_t^{-1}``."""

    def __init__(self, d, a=1.0, r=1.0, diagonal=False):
        self.r = float(r)
        self.diagonal = diagonal
        self.A = np.full(d, 1.0 / a) if diagonal else np.eye(d) / a
        self.name = "quadratic (diagonal)" if diagonal else "quadratic (full)"

    def psi(self, w):
        return 0.5 * float(w @ (self.A * w if self.diagonal else self.A @ w))

    def grad(self, w):
        return self.A * w if self.diagonal else self.A @ w

    def grad_inverse(self, theta):
        return theta / self.A if self.diagonal else np.linalg.solve(self.A, theta)

    def grow(self, x):
        if self.diagonal:
            self.A = self.A + x * x / self.r
        else:
            self.A = self.A + np.outer(x, x) / self.r


def bregman(mirror, a, b):
    """``D(a, b) = psi(a) - psi(b) - <grad psi(b), a - b>`` of the mirror's current ``psi``."""
    return mirror.psi(a) - mirror.psi(b) - float(mirror.grad(b) @ (a - b))


# -- the loop --------------------------------------------------------------------
@dataclass
class OMDRun:
    """One OMD run: the weights, the record and the regret lemma's terms for ``u``.

    ``linear_regret`` is ``sum_t <eta_t g_t, w_t - u>``; the identity
    ``linear_regret == initial - final + growth + stability - correction``
    holds to round-off (``identity_gap``), and dropping ``-final <= 0`` and
    ``-correction <= 0`` (Bregman projections onto sets holding ``u``) is the
    lemma's bound ``linear_regret <= initial + growth + stability``.
    ``per_round`` holds, for every update round ``t``, the three per-round terms
    (``linear``, ``stability``, ``correction``) and ``w_next_sq = ||w_{t+1}||^2``.
    """

    w: np.ndarray
    mistakes: np.ndarray
    updates: np.ndarray
    linear_regret: float = 0.0
    initial: float = 0.0
    final: float = 0.0
    growth: float = 0.0
    stability: float = 0.0
    correction: float = 0.0
    per_round: dict = field(default_factory=dict)

    @property
    def identity_gap(self):
        """``|linear_regret - (initial - final + growth + stability - correction)|``."""
        return abs(self.linear_regret - (self.initial - self.final + self.growth
                                         + self.stability - self.correction))

    @property
    def lemma_bound(self):
        """The lemma's right-hand side ``initial + growth + stability``."""
        return self.initial + self.growth + self.stability

    def terms(self):
        """The lemma's terms as a dict (for a table row)."""
        return {"linear regret": self.linear_regret, "D_1(u, w_1)": self.initial,
                "D(u, w_T+1)": self.final, "growth": self.growth,
                "stability": self.stability, "correction": self.correction,
                "lemma bound": self.lemma_bound, "identity gap": self.identity_gap}


def omd(X, y, mirror, rule, w1, u=None):
    """Run OMD with ``mirror`` and ``rule`` from ``w1`` over the rows of ``X``.

    ``rule(w, x, y, mirror)`` returns ``(mistake, step, grow, project)``:
    whether the round is a mistake, the vector ``eta_t g_t`` (``None``: no
    update), when the regularizer grows (``"before"`` the step, ``"after"`` it,
    or ``None``) and a map ``P_t`` applied to the OMD point (``None``: the
    identity).  ``u`` is the competitor of the lemma's terms (default 0).
    """
    X = np.asarray(X, dtype=float)
    w = np.array(w1, dtype=float)
    u = np.zeros_like(w) if u is None else np.asarray(u, dtype=float)
    run = OMDRun(w=w, mistakes=np.zeros(len(y), bool), updates=np.zeros(len(y), bool))
    run.initial = bregman(mirror, u, w)
    record = {"t": [], "linear": [], "stability": [], "correction": [], "w_next_sq": []}
    for t in range(len(y)):
        mistake, step, grow, project = rule(w, X[t], y[t], mirror)
        run.mistakes[t] = mistake
        if step is None:
            continue
        run.updates[t] = True
        if grow == "before":
            before = bregman(mirror, u, w)
            mirror.grow(X[t])
            run.growth += bregman(mirror, u, w) - before
        theta = mirror.grad(w) - step
        w_next = mirror.grad_inverse(theta)
        if project is not None:
            w_next = project(w_next)
        c = theta - mirror.grad(w_next)
        terms = (float(step @ (w - u)),
                 float(step @ (w - w_next)) - bregman(mirror, w_next, w),
                 float(c @ (w_next - u)))
        run.linear_regret += terms[0]
        run.stability += terms[1]
        run.correction += terms[2]
        for key, value in zip(record, (t, *terms, float(w_next @ w_next))):
            record[key].append(value)
        w = w_next
        if grow == "after":
            before = bregman(mirror, u, w)
            mirror.grow(X[t])
            run.growth += bregman(mirror, u, w) - before
    run.w = w
    run.final = bregman(mirror, u, w)
    run.per_round = {key: np.asarray(value) for key, value in record.items()}
    return run


def _wrong(score, y):
    """A mistake as olearn's ``mistakes_`` records it (a zero score predicts -1)."""
    return (1 if score > 0 else -1) != y


# -- rules: one per family --------------------------------------------------------
def perceptron_rule(w, x, y, mirror):
    """Perceptron: on a mistake (``y w.x <= 0``) ``eta g = -y x`` (``eta = 1``)."""
    update = y * (w @ x) <= 0
    return _wrong(w @ x, y), (-y * x if update else None), None, None


def pa_rule(C=np.inf, variant="PA"):
    """PA, PA-I, PA-II: on ``l_t > 0``, ``g = -y x`` and ``eta = tau_t``."""
    def rule(w, x, y, mirror):
        loss = max(0.0, 1.0 - y * (w @ x))
        sq = float(x @ x)
        if loss <= 0 or sq == 0:
            return _wrong(w @ x, y), None, None, None
        tau = loss / (sq + (0.5 / C if variant == "PA-II" else 0.0))
        tau = min(C, tau) if variant == "PA-I" else tau
        return _wrong(w @ x, y), -tau * y * x, None, None
    return rule


def winnow_row(x):
    """Carvalho and Cohen's preprocessing: ``(x~, z)``, the augmented row normalised to sum 1
    and the indicator ``z`` of its nonzero entries (the coordinates an update touches)."""
    aug = np.append(x, 1.0)
    return aug / aug.sum(), (aug != 0).astype(float)


def winnow_rule(alpha, beta, theta, balanced=False, tie=1e-12):
    """Positive / Balanced Winnow as EG (EG+-) on the indicator row ``z``.

    ``w`` is ``u`` (Positive) or ``(u, v)`` (Balanced).  On a mistake,
    ``g = -y z`` on ``u`` (and ``+y z`` on ``v``); the step is ``ln alpha``
    where the weight is promoted and ``ln(1/beta)`` where it is demoted, so
    ``ln u_j += ln alpha`` or ``ln beta`` exactly as the multiplicative rule.
    A score within ``tie`` of the threshold counts as a tie (score 0, predicts -1).
    """
    a, b = np.log(alpha), np.log(1.0 / beta)

    def rule(w, x, y, mirror):
        xt, z = winnow_row(x)
        n = len(z)
        net = w[:n] - w[n:] if balanced else w
        # the score <x~, net> - theta summed as the library sums it (nonzeros in order,
        # the always-on weight last, one division), so that ties break alike
        dot = xsum = 0.0
        for j in np.flatnonzero(x):
            dot += x[j] * net[j]
            xsum += x[j]
        score = (dot + net[-1]) / (xsum + 1.0) - theta
        if abs(score) < tie:      # weights on a lattice (beta = 1/alpha) make exact ties, which
            score = 0.0           # exp(log w) misses by round-off; the library's products hit them
        wrong = _wrong(score, y)
        if not wrong:
            return False, None, None, None
        step_u = -a * z if y > 0 else b * z         # eta_t g_t on u, g_t = -y z
        if not balanced:
            return True, step_u, None, None
        step_v = (b if y > 0 else -a) * z           # v: demoted if y > 0, promoted if y < 0
        return True, np.concatenate([step_u, step_v]), None, None
    return rule


def arow_rule(r=1.0):
    """AROW: on ``y mu.x < 1``, the squared hinge's gradient ``-l_t y x`` with step ``1/r``
    and ``A`` grown by ``x x'/r`` *before* the step (full covariance), or the hinge's
    ``-y x`` with step ``l_t / (chi_t + r)`` and ``A`` grown *after* it (diagonal)."""
    def rule(w, x, y, mirror):
        m = w @ x
        loss = max(0.0, 1.0 - y * m)
        if loss <= 0:
            return _wrong(m, y), None, None, None
        if mirror.diagonal:
            chi = float(x @ (x / mirror.A))
            return _wrong(m, y), -loss / (chi + r) * y * x, "after", None
        return _wrong(m, y), -(loss / r) * y * x, "before", None
    return rule


def norma_rule(eta, lam, rho):
    """NORMA: gradient descent on ``lam/2 ||w||^2 + max(0, rho - y w.x)`` at ``w_t``."""
    def rule(w, x, y, mirror):
        m = w @ x
        g = lam * w - (y * x if y * m < rho else 0.0)
        return _wrong(m, y), eta * g, None, None
    return rule


def objective_regularized_rule(alpha):
    """Shen and Dietterich's objective-regularized PA as a composite (proximal) step:
    on a mistake the gradient step ``tau y x`` of the hinge at margin ``1 + alpha``, then the
    prox of ``alpha/2 ||w||^2``, ``w -> w / (1 + alpha)``."""
    def rule(w, x, y, mirror):
        p, q = y * (w @ x), float(x @ x)
        if p > 0 or q == 0:
            return _wrong(w @ x, y), None, None, None
        tau = max(0.0, (1.0 + alpha - p) / q)
        return _wrong(w @ x, y), -tau * y * x, None, (lambda v: v / (1.0 + alpha))
    return rule


def l2_constrained_rule(beta):
    """Shen and Dietterich's L2-constrained PA (its regular case ``beta ||x|| > 1``) as a
    projected step: on a mistake the gradient step ``tau y x`` with ``tau = (Z - p)/q``,
    then the Euclidean projection onto the ball ``||w|| <= beta``."""
    def rule(w, x, y, mirror):
        p, q, n = y * (w @ x), float(x @ x), float(w @ w)
        if p > 0 or q == 0:
            return _wrong(w @ x, y), None, None, None
        Z = max(1.0, np.sqrt(max(0.0, n * q - p * p) / (beta * beta * q - 1.0)))
        tau = (Z - p) / q

        def project(v):
            return v / max(1.0, np.linalg.norm(v) / beta)
        return _wrong(w @ x, y), -tau * y * x, None, project
    return rule


def romma_rule(w, x, y, mirror):
    """Mistake-driven ROMMA as a projected step: on a mistake (``y w.x <= 0``) the hinge
    step ``eta y x`` with ``eta = W (1 - y s) / (X W - s^2)`` (``s = w.x``, ``X = ||x||^2``,
    ``W = ||w||^2``), then the Euclidean projection onto ``H_t = {v : v.w >= W}``, which
    holds every vector with margin 1 on the past mistakes.  From ``w = 0`` the step is
    ``y x / X`` (nothing to project).  A zero row leaves ``w`` unchanged."""
    s, q, n = float(w @ x), float(x @ x), float(w @ w)
    if y * s > 0 or q == 0:
        return _wrong(s, y), None, None, None
    if n == 0:
        return _wrong(s, y), -(1.0 / q) * y * x, None, None
    denominator = q * n - s * s
    if denominator <= 1e-12 * q * n:
        raise ValueError("x_t is parallel to w_t with the opposite label: the examples are "
                         "not linearly separable and ROMMA's two constraints are disjoint; "
                         "use olearn.ROMMA, which restarts from the newest constraint")
    eta = n * (1.0 - y * s) / denominator
    w_t = w.copy()

    def project(v):                     # Euclidean projection onto {v : v.w_t >= W}
        return v + max(0.0, n - float(v @ w_t)) / n * w_t
    return _wrong(s, y), -eta * y * x, None, project


def kernel_omd(K, y, step):
    """Euclidean OMD in the RKHS of a kernel with Gram matrix ``K`` (in the stream's order).

    ``f_t = sum_{s<t} a_s k(x_s, .)``; ``step(score, y, k_tt)`` returns ``tau_t``
    (0: no update) and ``f_{t+1} = f_t + tau_t y_t k(x_t, .)``.  Returns the
    coefficients ``a`` and the scores ``f_t(x_t)``.
    """
    a = np.zeros(len(y))
    scores = np.zeros(len(y))
    for t in range(len(y)):
        scores[t] = a[:t] @ K[:t, t]
        a[t] = step(scores[t], y[t], K[t, t]) * y[t]
    return a, scores
