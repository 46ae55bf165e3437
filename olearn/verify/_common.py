"""Shared pieces of the verifiers: solving a per-round program, one library round.

A verifier compares a learner's closed-form update with the argmin of the
convex program the paper says the update solves.  The program side is written
in cvxpy by each family module; the library side is :func:`library_step`,
which runs one round through the real compiled code.
"""
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..linear import SCALE, SQNORM, LinearClassifier

SOLVER = cp.CLARABEL
#: Clarabel's stopping tolerances for the verifiers (its defaults are 1e-8).
SOLVER_OPTIONS = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11,
                  "tol_feas": 1e-11, "tol_ktratio": 1e-9, "max_iter": 500}


@dataclass(frozen=True)
class ProgramSolution:
    """The argmin of a per-round program.

    Attributes
    ----------
    w : ndarray of shape (n_features,)
        The minimiser ``w_{t+1}``.
    objective : float
        The optimal value.
    status : str
        cvxpy's status; always ``"optimal"`` (any other status raises).
    slack : float or None
        The optimal slack ``xi`` for programs that have one.
    """

    w: np.ndarray
    objective: float
    status: str
    slack: float | None = None


def solve_program(problem, w, slack=None):
    """Solve ``problem`` with Clarabel at tight tolerances; return the solution.

    ``w`` (and ``slack``) are the problem's cvxpy variables.  An infeasible
    program raises ``ValueError``; any status other than optimal (including
    ``"optimal_inaccurate"``) raises ``RuntimeError``.  Every solve starts
    cold: a warm-started Clarabel object reused across rounds of very
    different scales was seen to fail on a well-posed round.
    """
    problem.solve(solver=SOLVER, warm_start=False, **SOLVER_OPTIONS)
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        raise ValueError("The per-round program is infeasible (for PA: the "
                         "example is the zero vector but has a positive "
                         "loss).")
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{SOLVER} stopped with status {problem.status!r}.")
    return ProgramSolution(
        w=np.asarray(w.value, dtype=np.float64).ravel().copy(),
        objective=float(problem.value), status=problem.status,
        slack=None if slack is None else float(slack.value))


def as_example(w, x, y):
    """Check one round's ``(w, x, y)``: float vectors of equal length, y = +-1.

    ``x`` may be a 1-D array, a ``(1, d)`` array or a 1-row sparse matrix;
    it is returned as a dense 1-D array (for the program side).
    """
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"w must be a 1-D vector, got shape {w.shape}.")
    x_dense = x.toarray() if sp.issparse(x) else np.asarray(x, np.float64)
    if x_dense.ndim == 2 and x_dense.shape[0] == 1:
        x_dense = x_dense[0]
    if x_dense.shape != w.shape:
        raise ValueError(f"x must be one example with {w.size} features, "
                         f"got shape {np.shape(x)}.")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(x_dense))):
        raise ValueError("w and x must be finite.")
    if y not in (-1, 1):
        raise ValueError(f"y must be -1 or +1, got {y!r}.")
    return w, x_dense.astype(np.float64), float(y)


def start_from(learner, w):
    """A fresh clone of a linear ``learner`` whose model is ``w``; empty record.

    The clone has classes ``[-1, 1]`` (so its internal +-1 coding is the label
    itself) and ``w = s v`` stored as ``s = 1, v = w`` with ``||w||^2`` in its
    state, exactly as :class:`olearn.linear.LinearClassifier` keeps it after
    a round.  The learner's parameters are validated as ``fit`` would.
    """
    if not isinstance(learner, LinearClassifier):
        raise TypeError(f"start_from needs an olearn linear learner, got "
                        f"{type(learner).__name__}.")
    w = np.asarray(w, dtype=np.float64).ravel()
    est = clone(learner)
    est._check_run_params()
    est.classes_ = np.array([-1, 1])
    est.n_features_in_ = w.size
    est._init_state(w.size)
    est._reset_record()
    est._v[:] = w
    est._state[SCALE] = 1.0
    est._state[SQNORM] = w @ w
    return est


def library_step(learner, w, x, y):
    """``w_{t+1}`` computed by the library: one round of ``learner`` from ``w``.

    The learner is cloned and started at ``w`` (:func:`start_from`), then
    ``partial_fit`` runs the single example ``(x, y)`` through the compiled
    pass.  ``x`` may be a 1-D array, a ``(1, d)`` array or a 1-row CSR
    matrix (the sparse path of the compiled code); ``y`` is -1 or +1.
    Returns ``coef_.ravel()`` after the round.
    """
    as_example(w, x, y)
    est = start_from(learner, w)
    X = x if sp.issparse(x) else np.asarray(x, np.float64).reshape(1, -1)
    est.partial_fit(X, np.array([y]))
    return est.coef_.ravel().copy()


def random_example(rng, dims=(1, 2, 5, 10, 30)):
    """A random ``(w, x, y)`` with scales spread over two decades each way.

    ``x`` has norm log-uniform in ``[0.1, 10]`` and ``w`` entries of scale
    log-uniform in ``[0.1, 10]``; ``y`` is a fair +-1.
    """
    d = int(rng.choice(dims))
    x = rng.standard_normal(d)
    x *= 10.0 ** rng.uniform(-1.0, 1.0) / np.linalg.norm(x)
    w = rng.standard_normal(d) * 10.0 ** rng.uniform(-1.0, 1.0)
    y = float(rng.choice([-1.0, 1.0]))
    return w, x, y


def with_margin(w, x, y, margin):
    """Move ``w`` along ``x`` so that ``y w.x = margin`` (other directions kept)."""
    return w + (margin - y * (w @ x)) * y * x / (x @ x)
