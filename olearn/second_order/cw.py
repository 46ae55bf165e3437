"""Confidence-weighted learning: CW (Dredze, Crammer, Pereira ICML 2008;
Crammer, Dredze, Pereira NIPS 2008) and soft CW (Wang, Zhao, Hoi ICML 2012).

Each round makes the smallest change, in KL divergence, to ``N(mu, Sigma)``
such that ``Pr[y_t w.x_t >= 0] >= eta``; with ``phi = Phi^{-1}(eta)`` and
``M = y_t mu.x_t`` (before), ``V = x_t' Sigma x_t``:

``version="variance"`` (Dredze et al. 2008, the version the AROW paper uses)
    the constraint ``y mu.x >= phi x' Sigma x`` (variance, not standard
    deviation); the KKT conditions give ``mu += alpha y Sigma x``,
    ``Sigma^{-1} += 2 alpha phi x x'`` and

        alpha = max(0, (-(1 + 2 phi M) + sqrt((1 + 2 phi M)^2
                        - 8 phi (M - phi V))) / (4 phi V)).

``version="stdev"`` (Crammer et al. 2008, the exact convex form)
    the constraint ``y mu.x >= phi sqrt(x' Sigma x)``, convex in
    ``(mu, Sigma^{1/2})``; with ``psi = 1 + phi^2/2``, ``zeta = 1 + phi^2``:

        alpha = max(0, (-M psi + sqrt(M^2 phi^4 / 4 + V phi^2 zeta)) / (V zeta))
        u     = (-alpha V phi + sqrt(alpha^2 V^2 phi^2 + 4 V))^2 / 4
        beta  = alpha phi / (sqrt(u) + V alpha phi)
        mu   += alpha y Sigma x,   Sigma -= beta Sigma x x' Sigma
        (Sigma^{-1} += alpha phi / sqrt(u) x x').

    The rule is invariant under ``mu -> c mu``, ``Sigma -> c^2 Sigma``
    (``M -> c M``, ``V -> c^2 V`` give ``alpha -> alpha / c``,
    ``sqrt(u) -> c sqrt(u)``, ``beta -> beta / c^2``), and under label noise
    it shrinks ``mu`` and ``Sigma`` together geometrically: left alone they
    underflow (``V`` reaches 1e-308 and the step overflows) after some
    tens of thousands of rounds.  With full covariance the pass rescales
    them by a power of two ``c``, ``c^2`` whenever the largest variance falls
    below ``RENORMALISE_BELOW`` (:func:`._passes.renormalise`): the
    predictions and every later step are those of the unrescaled rule
    (exactly, while the latter is in float64's normal range), but
    ``coef_``, ``covariance_`` and ``margins_`` are then those of the
    rescaled model (same signs, scaled by ``c``, ``c^2``, ``c``).

    The diagonal projection of this rule (``covariance="diag"``, the
    default ``diagonal="precision"``) diverges, whatever the scale of the
    features.  On a mistake with ``|M| >> sqrt(V)`` (``gamma ~ (phi M /
    V)^2``) the full update shrinks ``Sigma`` only along ``x_t``
    (``x' Sigma x`` drops to about ``V^2 / (phi M)^2``); the projection
    shrinks the variance of every feature of ``x_t`` by that factor, so
    ``x' Sigma x`` collapses on the rows that follow (to about its square at
    each mistake) while ``mu`` keeps its size, and a few mistakes later the
    step overflows (within a few hundred rounds of a noise-free
    standard-normal stream).  The learner then raises and says so; the
    variance version, SCW and AROW run on (diagonal or full), and so does
    this rule with full covariance.

SCW (Wang, Zhao, Hoi 2012) adds the loss ``max(0, phi sqrt(x' Sigma x) -
y mu.x)`` to the KL divergence with weight ``C`` (SCW-I) or its square
(SCW-II); the update is the one above with

    SCW-I:  alpha = min(C, max(0, (-M psi + sqrt(M^2 phi^4/4 + V phi^2 zeta))
                                   / (V zeta)))
    SCW-II: n = V + 1/(2C),
            gamma = phi sqrt(phi^2 M^2 V^2 + 4 n V (n + V phi^2)),
            alpha = max(0, (-(2 M n + phi^2 M V) + gamma) / (2 (n^2 + n V phi^2)))

and the same ``u`` and ``beta``, updating when the loss is positive.

Diagonal covariance: see :mod:`olearn.second_order.core` (default: the
projection of the precision update, Dredze et al. 2008, Section 5).
"""
import math

from scipy.special import ndtri  # Phi^-1: scipy.stats.norm.ppf without its 0.27 ms a call

from ..base import check_positive
from . import rules
from .core import SecondOrderClassifier

VERSIONS = ("variance", "stdev")
#: exact CW, full covariance: (mu, Sigma) -> (c mu, c^2 Sigma) when the largest
#: variance falls below this (see :func:`._passes.renormalise`)
RENORMALISE_BELOW = 2.0 ** -128
VARIANTS = ("I", "II")


def check_eta(eta):
    ok = (isinstance(eta, (int, float)) and not isinstance(eta, bool)
          and math.isfinite(eta) and 0.5 < eta < 1.0)
    if not ok:
        raise ValueError(f"eta must be a probability in the open interval "
                         f"(0.5, 1), got {eta!r}.")


class CW(SecondOrderClassifier):
    """Confidence-weighted classifier (see the module docstring).

    Parameters
    ----------
    eta : float, default=0.95
        Required probability of a correct prediction, in (0.5, 1);
        ``phi = Phi^{-1}(eta)``.
    version : {"variance", "stdev"}, default="variance"
        Dredze et al. (2008) variance CW (the AROW paper's baseline) or the
        exact convex CW of Crammer et al. (2008).
    covariance, a, diagonal, n_epochs, shuffle, random_state, n_jobs, record
        As in :class:`olearn.AROW` (``n_jobs``: ours, threads of the full
        sweep).

    Examples
    --------
    >>> from olearn import CW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = CW(eta=0.95, version="variance").fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 3)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, eta=0.95, version="variance", covariance="full", a=1.0,
                 *, diagonal="precision", n_epochs=1, shuffle=False,
                 random_state=None, n_jobs=None, record="full"):
        self.eta = eta
        self.version = version
        self.covariance = covariance
        self.a = a
        self.diagonal = diagonal
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.record = record

    @property
    def _rule(self):
        return rules.CW_VARIANCE if self.version == "variance" else rules.CW_STDEV

    def _check_params(self):
        check_eta(self.eta)
        if self.version not in VERSIONS:
            raise ValueError(f"version must be one of {VERSIONS}, "
                             f"got {self.version!r}.")
        self._check_common()

    def _rule_params(self):
        return (float(ndtri(self.eta)), RENORMALISE_BELOW)


class SCW(SecondOrderClassifier):
    """Soft confidence-weighted classifier, SCW-I or SCW-II (see the module
    docstring).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the loss, ``C > 0``.
    eta : float, default=0.95
        As in :class:`CW`.
    variant : {"I", "II"}, default="I"
        Hinge loss (SCW-I) or squared hinge loss (SCW-II).
    covariance, a, diagonal, n_epochs, shuffle, random_state, n_jobs, record
        As in :class:`olearn.AROW` (``n_jobs``: ours, threads of the full
        sweep).

    Examples
    --------
    >>> from olearn import SCW
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0], [-0.5, -0.5]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = SCW(C=1.0, eta=0.95, variant="I").fit(X, y)   # one online pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (2, 4)
    >>> clf.predict([[2.0, 0.0], [0.0, 2.0]]).tolist()
    [1, -1]
    """

    def __init__(self, C=1.0, eta=0.95, variant="I", covariance="full", a=1.0,
                 *, diagonal="precision", n_epochs=1, shuffle=False,
                 random_state=None, n_jobs=None, record="full"):
        self.C = C
        self.eta = eta
        self.variant = variant
        self.covariance = covariance
        self.a = a
        self.diagonal = diagonal
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.record = record

    @property
    def _rule(self):
        return rules.SCW_I if self.variant == "I" else rules.SCW_II

    def _check_params(self):
        check_positive("C", self.C)
        check_eta(self.eta)
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, "
                             f"got {self.variant!r}.")
        self._check_common()

    def _rule_params(self):
        return (float(ndtri(self.eta)), float(self.C))
