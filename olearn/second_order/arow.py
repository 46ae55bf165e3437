"""AROW (Crammer, Kulesza, Dredze, NIPS 2009) and NAROW (Orabona, Crammer, NIPS 2010).

AROW (Figure 1 of the AROW paper) minimises on each round objective (1),

    C(mu, Sigma) = KL(N(mu, Sigma) || N(mu_{t-1}, Sigma_{t-1}))
                   + 1/(2r) max(0, 1 - y_t mu.x_t)^2 + 1/(2r) x_t' Sigma x_t,

which splits into a mean part and a covariance part.  With
``m_t = mu_{t-1}.x_t`` and ``chi_t = x_t' Sigma_{t-1} x_t``, when
``y_t m_t < 1``:

    beta_t  = 1 / (chi_t + r)
    alpha_t = max(0, 1 - y_t m_t) beta_t                         (eq. 7)
    mu_t    = mu_{t-1} + alpha_t y_t Sigma_{t-1} x_t
    Sigma_t = Sigma_{t-1} - beta_t Sigma_{t-1} x_t x_t' Sigma_{t-1}   (eq. 9)

i.e. ``Sigma_t^{-1} = Sigma_{t-1}^{-1} + x_t x_t' / r`` (eq. 8).  The paper
starts from ``Sigma_0 = I``; ``a`` generalises it to ``a I`` (``a=1`` is the
paper).

NAROW (Orabona and Crammer 2010) belongs to their framework in which the
learner keeps ``A_t = A_{t-1} + x_t x_t' / r_t`` and ``theta_t = theta_{t-1} +
y_t x_t`` on update rounds, predicts with ``x_t`` already in the matrix,
``f_t = x_t' A_t^{-1} theta_{t-1} = m_t r_t / (r_t + chi_t)``, updates when
``y_t f_t < 1``, and sets the regulariser adaptively,

    r_t = chi_t / (b chi_t - 1)   if chi_t > 1/b,     r_t = +infinity otherwise.

With ``mu = A^{-1} theta`` and ``Sigma = A^{-1}`` (``Sigma_0 = a I``) the
update is ``mu += (y_t r_t - m_t)/(r_t + chi_t) Sigma x_t`` and
``Sigma -= Sigma x x' Sigma / (r_t + chi_t)``.  The case ``chi_t <= 1/b``
(``r_t = +infinity``) keeps ``Sigma`` fixed ("fixed second-order
information") but still moves the mean: ``theta`` receives ``y_t x_t``, so
``mu += y_t Sigma x_t``, a Perceptron step in the metric ``Sigma``.  Writing
``r_t = -infinity`` there, or plugging ``r_t = +infinity`` into AROW's
``alpha_t = max(0, 1 - y m)/(chi + r)``, gives a zero step instead: the mean
stops learning once ``chi_t <= 1/b``.  The paper's text is not among our
sources, but the first author's own implementation confirms this reading:
``narow_train.m`` of his DOGMA MATLAB toolbox (copy at
https://github.com/denizyuret/dogma) sets ``r_t = inf`` when ``chi < 1/b``
(its parameter ``a`` is our ``b``; at ``chi = 1/b`` its formula also gives
``inf``), predicts with ``r_t m_t/(chi_t + r_t)`` otherwise, and on every
round with ``y_t f_t < 1`` adds ``y_t x_t`` to ``theta`` and, only when
``r_t < inf``, applies the rank-one update to ``Sigma``; the mean is
``Sigma theta``.  That is the rule implemented here (checked against a
NumPy transcription of the framework in ``tests/test_second_order.py``);
DOGMA starts from ``Sigma_0 = I`` (``a = 1`` here).  The chapter shows the
difference on a stream.
"""
from ..base import check_positive
from . import rules
from .core import SecondOrderClassifier


class AROW(SecondOrderClassifier):
    """Adaptive Regularization of Weight vectors (AROW paper, Figure 1).

    Parameters
    ----------
    r : float, default=1.0
        Regularisation ``r > 0`` (``lambda_1 = lambda_2 = 1/(2r)`` in eq. 1).
    covariance : {"full", "diag"}, default="full"
        Full d x d ``Sigma`` or its diagonal (the paper's footnote 2 for
        high-dimensional data); see :mod:`olearn.second_order.core`.
    a : float, default=1.0
        ``Sigma_0 = a I`` (the paper: ``a = 1``).
    diagonal : {"precision", "covariance"}, default="precision"
        The diagonal projection (only with ``covariance="diag"``):
        ``"precision"`` is the one of Dredze et al. that the paper follows,
        ``"covariance"`` projects the update of ``Sigma`` (ours, not the paper's).
    n_epochs, shuffle, random_state
        As in :class:`olearn.Perceptron`.
    n_jobs : int or None, default=None
        Ours, not the paper's (it does not change the model): threads of
        the full-covariance sweep. ``None`` or ``1`` is the serial sweep;
        an int ``>= 2`` (capped at numba's ``NUMBA_NUM_THREADS``) or ``-1``
        (all of them) runs :func:`olearn.second_order.core.sweep_parallel`
        with that many numba threads for the call (numba's thread count is
        restored afterwards). The results differ from the serial sweep only
        by the order in which terms of ``Sigma x`` are added (rounding).
        May change between ``partial_fit`` calls. Ignored with
        ``covariance="diag"``.
    record : {"full", "counts"}, default="full"
        ``"full"`` keeps the per-round record ``mistakes_`` and ``margins_``
        (9 bytes per round, growing without end on an endless stream);
        ``"counts"`` keeps only ``n_rounds_``, ``n_mistakes_`` and
        ``n_updates_`` (constant memory), and reading ``mistakes_`` or
        ``margins_`` then raises an ``AttributeError`` saying so.  It cannot
        change between ``partial_fit`` calls.

    Attributes
    ----------
    coef_ : the mean ``mu``, shape (1, n_features)
    covariance_ : ``Sigma`` (d x d, exactly symmetric) or its diagonal

    Examples
    --------
    >>> from olearn import AROW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = AROW(r=1.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 6)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = rules.AROW

    def __init__(self, r=1.0, covariance="full", a=1.0, *,
                 diagonal="precision", n_epochs=1, shuffle=False,
                 random_state=None, n_jobs=None, record="full"):
        self.r = r
        self.covariance = covariance
        self.a = a
        self.diagonal = diagonal
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.record = record

    def _check_params(self):
        check_positive("r", self.r)
        self._check_common()

    def _rule_params(self):
        return (float(self.r),)


class NAROW(SecondOrderClassifier):
    """NAROW (Orabona and Crammer 2010): AROW's second-order update with the
    adaptive ``r_t = chi_t / (b chi_t - 1)`` (``+infinity`` when
    ``chi_t <= 1/b``); see the module docstring for the case ``r_t = +inf``.

    Parameters
    ----------
    b : float, default=1.0
        ``b > 0``.
    covariance, a, diagonal, n_epochs, shuffle, random_state, n_jobs, record
        As in :class:`AROW` (``n_jobs``: ours, threads of the full sweep).

    Examples
    --------
    >>> from olearn import NAROW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = NAROW(b=1.0).fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    _rule = rules.NAROW

    def __init__(self, b=1.0, covariance="full", a=1.0, *,
                 diagonal="precision", n_epochs=1, shuffle=False,
                 random_state=None, n_jobs=None, record="full"):
        self.b = b
        self.covariance = covariance
        self.a = a
        self.diagonal = diagonal
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.record = record

    def _check_params(self):
        check_positive("b", self.b)
        self._check_common()

    def _rule_params(self):
        return (float(self.b),)
