"""The kernel baselines of the DUOL paper (Zhao, Hoi and Jin 2009, section 4.1).

Each is the kernel form of an olearn linear learner: same rule, same
coefficients (:mod:`olearn.kernel.updates`), with ``w = sum_i dual_coef_i x_i``
when ``kernel="linear"`` (checked in ``tests/test_kernel.py``).  Common
parameters:

kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
    A callable ``kernel(A, B)`` must return the ``(len(A), len(B))`` matrix.
sigma : float, default=8.0
    Width of the Gaussian kernel ``exp(-||x - x'||^2 / (2 sigma^2))`` (the
    paper's ``sigma = 8``; scikit-learn's ``gamma`` is ``1 / (2 sigma^2)``).
    ``2 sigma^2`` and its reciprocal must be finite and non-zero in float64
    (about ``5.3e-155 <= sigma <= 9.5e153``).
degree : int, default=3; coef0 : float, default=1.0
    Polynomial kernel ``(x.x' + coef0)^degree``.
max_support : int or None, default=None
    Budget (ours, not the paper's): keep at most this many support vectors,
    dropping the oldest.
n_epochs, shuffle, random_state, record
    As in :class:`olearn.Perceptron`.

These common parameters and their checks are shared by every kernel learner
(:class:`olearn.kernel.KernelClassifier`, also DUOL, Online-SVM and
KernelAROW).
"""
import math

import numpy as np

from ..base import check_positive
from .core import KernelClassifier, check_choice, check_interval
from .updates import (AGG_ROMMA, ALMA_RULE, HP_ALPHA, HP_B, HP_C, HP_CAPPED,
                      HP_ETA, HP_GAMMA, PA_RULE, PERCEPTRON, ROMMA_RULE)


class KernelPerceptron(KernelClassifier):
    """Kernel Perceptron (Rosenblatt; kernelised as in Kivinen, Smola and
    Williamson 2001): add ``x_t`` with coefficient ``y_t`` when
    ``y_t f(x_t) <= 0``.  See :mod:`olearn.kernel.learners` for the parameters.

    Examples
    --------
    >>> from olearn import KernelPerceptron
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelPerceptron(kernel="rbf", sigma=8.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = PERCEPTRON


class KernelROMMA(KernelClassifier):
    """Kernel ROMMA (Li and Long 1999): ``f <- c f + d k(x_t, .)`` on mistakes,
    with the ``(c, d)`` of :mod:`olearn.linear.romma` computed from
    ``k(x_t, x_t)``, ``f(x_t)`` and ``||f||^2``.  When ``c = 0`` the old support
    vectors are dropped.  See :mod:`olearn.kernel.learners` for the parameters.

    Examples
    --------
    >>> from olearn import KernelROMMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelROMMA(kernel="rbf", sigma=8.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = ROMMA_RULE


class KernelAggressiveROMMA(KernelClassifier):
    """Kernel aggressive ROMMA (agg-ROMMA of the paper): the ROMMA step whenever
    ``y_t f(x_t) < 1``.  See :mod:`olearn.kernel.learners` for the parameters.

    Examples
    --------
    >>> from olearn import KernelAggressiveROMMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelAggressiveROMMA(kernel="rbf", sigma=8.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 5)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = AGG_ROMMA


class KernelALMA(KernelClassifier):
    """Kernel ALMA_2(alpha) (Gentile 2001), the paper's ALMA2(0.9).

    Only ``p = 2`` has a kernel form: for ``p = 2`` the link function
    ``f = grad (1/2)||.||_2^2`` is the identity, so every ``w`` is a linear
    combination of the examples and only inner products ``x.x'`` (kernel values)
    are needed.  For ``p != 2`` the weights are
    ``w_i = sign(theta_i) |theta_i|^(p-1) / ||theta||_p^(p-2)``, a coordinate-wise
    nonlinear map of ``theta = sum eta y x``: ``w`` is no longer in the span of
    the examples and ``w.x`` depends on coordinates, not on inner products.

    Parameters
    ----------
    p : 2
        Kept for the paper's name ALMA_p; any other value raises.
    alpha : float, default=0.9
    B, C : float or None
        As in :class:`olearn.ALMA` (defaults ``1/alpha`` and ``sqrt(2)``); ``C``
        here is ALMA's step scale, not the SVM penalty.
    Other parameters: see :mod:`olearn.kernel.learners`.

    Examples
    --------
    >>> from olearn import KernelALMA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelALMA(p=2, alpha=0.9, kernel="linear").fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = ALMA_RULE

    def __init__(self, p=2, alpha=0.9, B=None, C=None, *, kernel="rbf",
                 sigma=8.0, degree=3, coef0=1.0, max_support=None, n_epochs=1,
                 shuffle=False, random_state=None, record="full"):
        self.p = p
        self.alpha = alpha
        self.B = B
        self.C = C
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0,
                         max_support=max_support, n_epochs=n_epochs,
                         shuffle=shuffle, random_state=random_state,
                         record=record)

    def _check_rule_params(self):
        if self.p != 2 or isinstance(self.p, bool):
            raise ValueError(
                f"KernelALMA needs p=2, got p={self.p!r}: for p != 2 the "
                f"p-norm link makes w a nonlinear function of the examples, "
                f"which has no kernel form (use olearn.ALMA for p > 2).")
        check_positive("alpha", self.alpha)
        check_interval("alpha", self.alpha, 0.0, 1.0, closed_high=True)
        for name in ("B", "C"):
            if getattr(self, name) is not None:
                check_positive(name, getattr(self, name))

    def _hyper(self):
        hp = np.zeros(8)
        alpha = float(self.alpha)
        hp[HP_ALPHA] = alpha
        hp[HP_B] = 1.0 / alpha if self.B is None else float(self.B)
        hp[HP_ETA] = math.sqrt(2.0) if self.C is None else float(self.C)
        return hp

    @property
    def k_(self):
        """Gentile's counter: updates so far plus one."""
        return int(self._st[3])


class KernelPA(KernelClassifier):
    """Kernel Passive-Aggressive PA-I / PA-II (Crammer et al. 2006, eqs. 8-9)
    with ``||x_t||^2 = k(x_t, x_t)``: add ``x_t`` with ``tau_t y_t``.

    Parameters
    ----------
    C : float, default=5.0
        The paper's ``C = 5``.
    variant : {"PA-I", "PA-II", "PA"}, default="PA-I"
    Other parameters: see :mod:`olearn.kernel.learners`.

    Examples
    --------
    >>> from olearn import KernelPA
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = KernelPA(C=5.0, variant="PA-I", kernel="linear").fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = PA_RULE

    def __init__(self, C=5.0, variant="PA-I", *, kernel="rbf", sigma=8.0,
                 degree=3, coef0=1.0, max_support=None, n_epochs=1,
                 shuffle=False, random_state=None, record="full"):
        self.C = C
        self.variant = variant
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0,
                         max_support=max_support, n_epochs=n_epochs,
                         shuffle=shuffle, random_state=random_state,
                         record=record)

    def _check_rule_params(self):
        check_choice("variant", self.variant, ("PA", "PA-I", "PA-II"))
        check_positive("C", self.C)

    def _hyper(self):
        hp = np.zeros(8)
        hp[HP_C] = float(self.C)
        hp[HP_CAPPED] = 1.0 if self.variant == "PA-I" else 0.0
        hp[HP_GAMMA] = 1.0 / (2.0 * self.C) if self.variant == "PA-II" else 0.0
        return hp

