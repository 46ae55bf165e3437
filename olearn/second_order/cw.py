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

from numba import njit
from scipy.stats import norm

from ..base import check_positive
from .core import SecondOrderClassifier

VERSIONS = ("variance", "stdev")
VARIANTS = ("I", "II")


@njit(cache=True)
def cw_variance_step(m, chi, y, phi):
    """Variance CW round (Dredze et al. 2008): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0:
        return m, 0.0, 0.0, 0.0
    b = 1.0 + 2.0 * phi * M
    alpha = (-b + math.sqrt(max(0.0, b * b - 8.0 * phi * (M - phi * V)))) \
        / (4.0 * phi * V)
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma = 2.0 * alpha * phi
    return m, alpha * y, gamma, gamma / (1.0 + gamma * V)


@njit(cache=True)
def _stdev_cov(alpha, V, phi):
    """``(gamma, beta)`` of the exact (stdev) CW / SCW covariance update."""
    w = alpha * V * phi
    # sqrt(u) = (-w + sqrt(w^2 + 4V)) / 2, written without the cancellation
    su = 2.0 * V / (w + math.sqrt(w * w + 4.0 * V))
    return alpha * phi / su, alpha * phi / (su + w)


@njit(cache=True)
def _stdev_alpha(M, V, phi):
    psi = 1.0 + 0.5 * phi * phi
    zeta = 1.0 + phi * phi
    return (-M * psi + math.sqrt(M * M * phi ** 4 / 4.0 + V * phi * phi * zeta)) \
        / (V * zeta)


@njit(cache=True)
def cw_stdev_step(m, chi, y, phi):
    """Exact convex CW round (Crammer et al. 2008): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0:
        return m, 0.0, 0.0, 0.0
    alpha = _stdev_alpha(M, V, phi)
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


@njit(cache=True)
def scw1_step(m, chi, y, phi, C):
    """SCW-I round (Wang, Zhao, Hoi 2012): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0 or phi * math.sqrt(V) - M <= 0.0:
        return m, 0.0, 0.0, 0.0
    alpha = min(C, max(0.0, _stdev_alpha(M, V, phi)))
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


@njit(cache=True)
def scw2_step(m, chi, y, phi, C):
    """SCW-II round (Wang, Zhao, Hoi 2012): ``(f, alpha, gamma, beta)``."""
    M = y * m
    V = chi
    if V <= 0.0 or phi * math.sqrt(V) - M <= 0.0:
        return m, 0.0, 0.0, 0.0
    n = V + 1.0 / (2.0 * C)
    g = phi * math.sqrt(phi * phi * M * M * V * V + 4.0 * n * V * (n + V * phi * phi))
    alpha = max(0.0, (-(2.0 * M * n + phi * phi * M * V) + g)
                / (2.0 * (n * n + n * V * phi * phi)))
    if alpha <= 0.0:
        return m, 0.0, 0.0, 0.0
    gamma, beta = _stdev_cov(alpha, V, phi)
    return m, alpha * y, gamma, beta


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
        return 1 if self.version == "variance" else 2

    def _check_params(self):
        check_eta(self.eta)
        if self.version not in VERSIONS:
            raise ValueError(f"version must be one of {VERSIONS}, "
                             f"got {self.version!r}.")
        self._check_common()

    def _rule_params(self):
        return (float(norm.ppf(self.eta)),)


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
        return 3 if self.variant == "I" else 4

    def _check_params(self):
        check_positive("C", self.C)
        check_eta(self.eta)
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, "
                             f"got {self.variant!r}.")
        self._check_common()

    def _rule_params(self):
        return (float(norm.ppf(self.eta)), float(self.C))
