"""DUOL: Double Updating Online Learning (Zhao, Hoi and Jin, NIPS 2009).

Algorithm 1 (Figure 1 of the paper).  On a round with hinge loss
``l_t = max(0, 1 - y_t f(x_t)) > 0`` the example joins the support set.
Among the support vectors with ``f_i = y_i f(x_i) <= 0`` the one with the most
negative ``w_i = y_i y_t k(x_i, x_t)`` is the *auxiliary example* ``b``; if
``w_b <= -rho`` both weights change (the double update):

    gamma_t = min(C, 1/(1 - rho)),   gamma_b = min(C, hat gamma_b + 1/(1 - rho)),

else only the new one, ``gamma_t = min(C, 1)``.  The classifier is
``f(x) = sum_i gamma_i y_i k(x_i, x)``; the scores ``f_i`` of all support
vectors are updated incrementally, O(|S|) per update (plus one kernel row for
``x_b``).  The step sizes are those of Theorem 1 (``gamma_a = dgamma_b =
1/(1 - rho)`` maximises the lower bound of the dual gain), which assumes
``k(x, x) <= 1`` -- true for the Gaussian kernel.

``update="exact"`` (ours, not the paper's) takes instead the maximiser of the
dual gain ``h(gamma_a, dgamma_b)`` of Lemma 1, eq. (6), over the box
``[0, C] x [0, C - hat gamma_b]``, in closed form by cases
(:func:`olearn.kernel.updates.duol_exact_step`); it uses the actual
``k(x_a, x_a)``, ``k(x_b, x_b)``, ``k(x_a, x_b)`` and scores, so it stays the
exact dual ascent step for kernels with ``k(x, x) != 1`` (e.g. polynomial).
"""
import numpy as np

from ..base import check_positive
from .core import KernelClassifier, check_choice, check_interval
from .updates import DUOL_RULE, HP_C, HP_EXACT, HP_RHO, SQNORM, SUMGAMMA


class DUOL(KernelClassifier):
    """Double Updating Online Learning (Algorithm 1 of Zhao, Hoi and Jin 2009).

    Parameters
    ----------
    C : float, default=5.0
        Upper bound of every weight ``gamma_i`` (the paper's ``C = 5``).
    rho : float in [0, 1), default=0.2
        Conflict threshold: the auxiliary example needs ``y_b y_t k(x_b, x_t) <= -rho``.
    update : {"paper", "exact"}, default="paper"
        ``"paper"``: Algorithm 1's step sizes; ``"exact"`` (ours): the maximiser
        of Lemma 1's dual gain (see the module docstring).
    kernel, sigma, degree, coef0, max_support, n_epochs, shuffle, random_state
        As in :mod:`olearn.kernel.learners` (``sigma = 8``, the paper's).

    Attributes
    ----------
    support_vectors_, dual_coef_, n_support_
        The support set and ``y_i gamma_i``.
    n_double_updates_ : int
        Updates that found an auxiliary example (``M_d`` counts the mistakes
        among them).
    scores_ : array
        The maintained ``f_i = y_i f(x_i)`` of the support vectors.

    Examples
    --------
    >>> from olearn import DUOL
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = DUOL(C=5.0, rho=0.2, kernel="rbf", sigma=8.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (5, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = DUOL_RULE

    def __init__(self, C=5.0, rho=0.2, *, update="paper", kernel="rbf",
                 sigma=8.0, degree=3, coef0=1.0, max_support=None, n_epochs=1,
                 shuffle=False, random_state=None, record="full"):
        self.C = C
        self.rho = rho
        self.update = update
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0,
                         max_support=max_support, n_epochs=n_epochs,
                         shuffle=shuffle, random_state=random_state,
                         record=record)

    def _check_rule_params(self):
        check_positive("C", self.C)
        check_interval("rho", self.rho, 0.0, 1.0)
        check_choice("update", self.update, ("paper", "exact"))

    def _hyper(self):
        hp = np.zeros(8)
        hp[HP_C] = float(self.C)
        hp[HP_RHO] = float(self.rho)
        hp[HP_EXACT] = 1.0 if self.update == "exact" else 0.0
        return hp

    @property
    def scores_(self):
        n = int(self._size[0])
        return self._f[:n].copy()

    @property
    def dual_objective_(self):
        """``D = sum_i gamma_i - ||f||^2 / 2`` (the SVM dual of Lemma 1's proof)."""
        return float(self._st[SUMGAMMA] - 0.5 * self._st[SQNORM])

    def _model_arrays(self):
        n = int(self._size[0])
        return (self._beta[:n], self._f[:n], self._st)
