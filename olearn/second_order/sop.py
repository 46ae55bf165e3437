"""The second-order Perceptron (Cesa-Bianchi, Conconi, Gentile, SIAM J.
Comput. 2005, Figure 2).

SOP keeps the correlation matrix of the mistaken rows ``A = a I + sum x x'``
and ``v = sum y x`` over past mistakes, and predicts with the current row
already in the matrix:

    f_t = x_t' (A + x_t x_t')^{-1} v.

With ``Sigma = A^{-1}`` (``Sigma_0 = I / a``), ``mu = Sigma v``,
``m_t = mu.x_t`` and ``chi_t = x_t' Sigma x_t`` this is
``f_t = m_t / (1 + chi_t)`` (Sherman-Morrison), whose sign is the sign of
``m_t``.  On a mistake (``y_t f_t <= 0``) ``A`` receives ``x_t x_t'`` and ``v``
receives ``y_t x_t``:

    mu    <- mu + (y_t - m_t) / (1 + chi_t) Sigma x_t
    Sigma <- Sigma - Sigma x_t x_t' Sigma / (1 + chi_t).

``covariance="diag"`` (for high-dimensional data, as the AROW paper's
footnote 2 does for every learner) runs these formulas with the diagonal of
``Sigma`` and keeps the diagonal of ``A`` (see :mod:`.core`).
"""
from ..base import check_positive
from . import rules
from .core import SecondOrderClassifier


class SOP(SecondOrderClassifier):
    """Second-order Perceptron (see the module docstring).

    Parameters
    ----------
    a : float, default=1.0
        The paper's ``a > 0``: ``A_0 = a I``, so ``Sigma_0 = I / a``.
    covariance : {"full", "diag"}, default="full"
    diagonal, n_epochs, shuffle, random_state, n_jobs, record
        As in :class:`olearn.AROW` (``n_jobs``: ours, threads of the full
        sweep).

    Examples
    --------
    >>> from olearn import SOP
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = SOP(a=1.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = rules.SOP

    def __init__(self, a=1.0, covariance="full", *, diagonal="precision",
                 n_epochs=1, shuffle=False, random_state=None, n_jobs=None,
                 record="full"):
        self.a = a
        self.covariance = covariance
        self.diagonal = diagonal
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.record = record

    def _sigma0(self):
        return 1.0 / float(self.a)

    def _check_params(self):
        self._check_common()

    def _rule_params(self):
        return (0.0,)
