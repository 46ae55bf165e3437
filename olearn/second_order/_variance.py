"""A variance after the covariance update, in a form that cannot cross zero.

Both layouts shrink each variance on an update round by
``Sigma_jj <- Sigma_jj - beta s_j^2`` (``s = Sigma x``; diagonal:
``s_j = Sigma_jj x_j``), with ``beta = gamma / (1 + gamma chi)`` and
``chi = x' Sigma x`` (:mod:`.core`).  In exact arithmetic the result is
positive: ``s_j^2 <= Sigma_jj chi`` (Cauchy-Schwarz in the inner product of
``Sigma``; for a diagonal ``Sigma``, ``Sigma_jj x_j^2`` is one of the
nonnegative terms of ``chi``), so with ``share_j = s_j^2 / Sigma_jj <= chi``

    Sigma_jj - beta s_j^2 = Sigma_jj (1 - beta share_j)
                          = Sigma_jj ((1 - beta chi) + beta (chi - share_j))
                          = Sigma_jj (q + beta (chi - share_j)),
    q = 1 - beta chi = 1 / (1 + gamma chi) > 0.

In floating point the first form cancels when one feature carries nearly all
of ``chi`` (``beta share_j`` close to 1): with ``Sigma_0 = I`` and ``r = 1``
(AROW) a feature of -8.3e9 left ``Sigma_jj = -2.2e-16`` where the exact
value is 1.4e-20, and a feature of 1e8 left exactly 0 where it is 1e-16
(issue 26, item 1).  The last form is a sum of two
nonnegative terms, ``q > 0`` computed as a quotient of positive numbers and
``beta max(0, chi - share_j)`` (the clamp only undoes rounding in ``chi``,
and only raises the value), times ``Sigma_jj > 0``: it is at least
``Sigma_jj q > 0`` (barring underflow, which the passes refuse) and equals
the exact value in exact arithmetic.  Its only error is the rounding of
``chi`` and ``share_j`` (an absolute error of a few ``eps chi`` on
``chi - share_j``), never a cancellation against ``Sigma_jj``.

The passes keep the plain form where it keeps at least half of ``Sigma_jj``
(there the subtraction loses nothing: the results are those of the plain
form, bit for bit) and call :func:`shrunk_variance` otherwise.
"""
from numba import njit


@njit(cache=True, error_model="numpy", fastmath=False)
def shrunk_variance(sigma, share, beta, chi, gamma):
    """``sigma (1 - beta share)`` as ``sigma (q + beta max(0, chi - share))``
    with ``q = 1 / (1 + gamma chi)``: positive for ``sigma > 0``,
    ``gamma, beta >= 0`` and a finite ``gamma chi`` (see the module)."""
    return sigma * (1.0 / (1.0 + gamma * chi) + beta * max(chi - share, 0.0))
