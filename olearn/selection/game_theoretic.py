"""Game-theoretic feature selection: the relaxed game (4.20) of Shen and Dietterich (2009).

The learner (row player) picks a feature ``i`` and predicts the label from
``x_i``; the environment (column player) picks ``j``; the reward ``M(i, j)`` is
the information gain of the pair ``(x_i, x_j)`` (one of the choices the paper
suggests): ``M[i, j] = I(y; (b_i, b_j))`` (:func:`olearn.pair_information_gain`),
so ``M`` is symmetric and ``M[i, i] = IG(i)``.  The relaxed problem

    max_u min_v u^T M v   s.t.  0 <= u, v <= 1,  sum u = sum v = k

becomes one LP: for fixed ``u`` the inner minimum of ``c . v`` with
``c = M^T u`` over ``{0 <= v <= 1, sum v = k}`` (the sum of the ``k``
smallest ``c_j``) equals, by LP duality,

    max_{lam, mu}  k lam - sum_j mu_j   s.t.  lam - mu_j <= c_j,  mu >= 0,

so the game is the LP

    max_{u, lam, mu}  k lam - sum_j mu_j
    s.t.  lam - mu_j <= (M^T u)_j,  mu >= 0,  0 <= u <= 1,  sum u = k.

The ``k`` features with the largest ``u_i`` are selected (ties: larger
``M[i, i]``, then lower index).

The LP is solved with HiGHS through ``highspy`` (a dependency of cvxpy) rather
than through a cvxpy model: an online run solves it after every block, the
previous optimal basis warm-starts the next solve (the statistics change
little between blocks), and cvxpy's per-solve compilation alone costs more
than the warm solve.  The tests check the LP against a cvxpy model of the
equivalent min-max form and against brute force.
"""
import numbers

import highspy
import numpy as np
from sklearn.utils.validation import check_array


class _GameLP:
    """The relaxed game (4.20) as one LP, solved with HiGHS; warm-started.

    Columns ``u_0..u_{m-1}, lam, mu_0..mu_{m-1}``; rows ``j < m``:
    ``-(M^T u)_j + lam - mu_j <= 0``; row ``m``: ``sum u = k``; HiGHS
    minimises ``-(k lam - sum mu)``.
    """

    def __init__(self):
        self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.setOptionValue("presolve", "off")  # small dense LP
        self._basis = None
        self._m = None

    def solve(self, M, k):
        """Optimal ``u`` (m,) and the game value ``max_u min_v u^T M v``."""
        m = M.shape[0]
        inf = highspy.kHighsInf
        cost = np.r_[np.zeros(m), -float(k), np.ones(m)]
        col_lower = np.r_[np.zeros(m), -inf, np.zeros(m)]
        col_upper = np.r_[np.ones(m), inf, np.full(m, inf)]
        row_lower = np.r_[np.full(m, -inf), float(k)]
        row_upper = np.r_[np.zeros(m), float(k)]
        # column u_i holds -M[i, j] in row j and 1 in row m (zeros dropped)
        u_cols = np.empty((m, m + 1))
        u_cols[:, :m] = -M
        u_cols[:, m] = 1.0
        nonzero = u_cols != 0.0
        counts = np.r_[nonzero.sum(axis=1), m, np.ones(m, dtype=np.intp)]
        start = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int32)
        index = np.r_[np.nonzero(nonzero)[1], np.arange(m),
                      np.arange(m)].astype(np.int32)
        value = np.r_[u_cols[nonzero], np.ones(m), -np.ones(m)]
        h = self._highs
        h.passModel(2 * m + 1, m + 1, value.size,
                    int(highspy.MatrixFormat.kColwise),
                    int(highspy.ObjSense.kMinimize), 0.0, cost, col_lower,
                    col_upper, row_lower, row_upper, start, index, value,
                    np.zeros(2 * m + 1, dtype=np.int32))  # continuous
        if self._basis is not None and self._m == m:
            h.setBasis(self._basis)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS did not solve the game LP: "
                               f"{h.modelStatusToString(status)}.")
        self._basis, self._m = h.getBasis(), m
        u = np.clip(np.asarray(h.getSolution().col_value[:m]), 0.0, 1.0)
        return u, -h.getInfo().objective_function_value


def _top_k_strategy(u, M, k):
    """The ``k`` largest ``u_i`` (ties: larger ``M[i, i]``, then lower i)."""
    order = np.lexsort((np.arange(u.size), -np.diag(M), -np.round(u, 9)))
    return np.sort(order[:k])


def _check_k(k, n_features):
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}.")
    if k > n_features:
        raise ValueError(f"k={k} exceeds the number of features, "
                         f"{n_features}.")


def game_theoretic_selection(M, k, *, return_strategy=False):
    """Select ``k`` features by the relaxed game (4.20) (see :mod:`olearn.selection.game_theoretic`).

    Parameters
    ----------
    M : array, shape (m, m)
        Reward matrix, e.g. :func:`pair_information_gain`.
    k : int
        Number of features to select, ``1 <= k <= m``.
    return_strategy : bool, default=False
        Also return the learner's relaxed strategy ``u`` and the game value.

    Returns
    -------
    selected : ndarray of int, shape (k,)
        The ``k`` indices with the largest ``u_i``, in increasing order.
    u : ndarray, shape (m,)   (only with ``return_strategy``)
    value : float             (only with ``return_strategy``)
        ``max_u min_v u^T M v`` over the relaxed constraints.
    """
    M = check_array(M, dtype=np.float64)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be square, got shape {M.shape}.")
    _check_k(k, M.shape[0])
    u, value = _GameLP().solve(M, k)
    selected = _top_k_strategy(u, M, k)
    return (selected, u, value) if return_strategy else selected

