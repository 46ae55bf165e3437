"""DUOL's two-variable dual (Lemma 1 of Zhao, Hoi and Jin 2009) in cvxpy.

Lemma 1: adjusting the weights of the new example ``a`` and of the auxiliary
example ``b`` improves the SVM dual by

    h(gamma_a, dgamma_b) = gamma_a l_a + dgamma_b l_b - s_a gamma_a^2 / 2
                           - s_b dgamma_b^2 / 2 - w_ab gamma_a dgamma_b      (eq. 6)

with ``l = 1 - y f(x)``, ``s_a = k(x_a, x_a)``, ``s_b = k(x_b, x_b)``,
``w_ab = y_a y_b k(x_a, x_b)``, over ``0 <= gamma_a <= C``,
``0 <= dgamma_b <= C - hat gamma_b`` (eq. 5).  :func:`duol_dual_program` solves
that program with cvxpy; :func:`check_duol_exact` compares it with the closed
form of ``DUOL(update="exact")`` (:func:`olearn.kernel.updates.duol_exact_step`)
on random instances built from real kernel values, for a normalised kernel
(Gaussian, ``k(x, x) = 1``) and an unnormalised one (polynomial).
"""
import cvxpy as cp
import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from ..kernel.kernels import kernel_matrix
from ..kernel.updates import dual_gain, duol_exact_step
from ._common import SOLVER, SOLVER_OPTIONS

KERNELS = {"rbf": {"kernel": "rbf", "sigma": 1.0},
           "poly": {"kernel": "poly", "degree": 2, "coef0": 1.0}}


def duol_dual_program(la, lb, sa, sb, wab, C, ub):
    """``argmax h`` of eq. (6) over the box of eq. (5); returns ``(gamma_a, dgamma_b, h)``."""
    Q = np.array([[sa, wab], [wab, sb]], dtype=float)
    z = cp.Variable(2)
    objective = (np.array([la, lb]) @ z
                 - 0.5 * cp.quad_form(z, cp.psd_wrap(Q)))
    problem = cp.Problem(cp.Maximize(objective),
                         [z >= 0, z[0] <= C, z[1] <= ub])
    problem.solve(solver=SOLVER, **SOLVER_OPTIONS)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{SOLVER} stopped with status {problem.status!r}.")
    ga, gb = (float(v) for v in z.value)
    return ga, gb, float(problem.value)


def random_duol_instance(rng, kernel="rbf", d=5, singular=False):
    """A random instance ``(la, lb, sa, sb, wab, C, ub)`` from real kernel values.

    Two points ``x_a, x_b`` with labels of opposite-ish orientation, scores
    ``y f(x)`` drawn in ``[-3, 1)`` (so ``l > 0``), ``C`` log-uniform in
    ``[0.1, 10]`` and ``hat gamma_b`` uniform in ``[0, C]``: the box is active
    in some instances and not in others.  ``singular=True`` takes
    ``x_b = x_a``, so that ``s_a s_b = w_ab^2`` and ``h`` is not strictly
    concave: linear along the null direction of its quadratic part (two
    random points never give such an instance).
    """
    params = KERNELS[kernel]
    X = rng.normal(size=(2, d)) * rng.uniform(0.2, 1.5)
    if singular:
        X[1] = X[0]
    K = kernel_matrix(X, X, **params)
    ya, yb = 1.0, rng.choice([-1.0, 1.0])
    sa, sb, wab = K[0, 0], K[1, 1], ya * yb * K[0, 1]
    la, lb = 1.0 - rng.uniform(-3.0, 1.0), 1.0 - rng.uniform(-3.0, 1.0)
    C = 10.0 ** rng.uniform(-1.0, 1.0)
    ub = C - rng.uniform(0.0, C)
    return la, lb, sa, sb, wab, C, ub


def check_duol_exact(kernel="rbf", n_instances=100, random_state=0, singular=False):
    """Closed form vs cvxpy on random instances; one row per instance.

    ``singular=True``: instances with ``x_b = x_a`` (see :func:`random_duol_instance`).

    Columns: the instance, ``ga_lib, gb_lib, ga_cvx, gb_cvx``, the gains
    ``h_lib, h_cvx``, ``max_abs_diff`` (of the maximisers), ``gain_diff``
    (``h_cvx - h_lib``, >= 0 up to solver tolerance) and which constraints of
    the box are active at the solution (``active``).
    """
    rng = check_random_state(random_state)
    rows = []
    for _ in range(n_instances):
        la, lb, sa, sb, wab, C, ub = random_duol_instance(rng, kernel, singular=singular)
        ga, gb = duol_exact_step(la, lb, sa, sb, wab, C, ub)
        ga_c, gb_c, h_c = duol_dual_program(la, lb, sa, sb, wab, C, ub)
        h = dual_gain(ga, gb, la, lb, sa, sb, wab)
        tol = 1e-7
        active = [name for name, hit in (("ga=0", ga <= tol),
                                         ("ga=C", ga >= C - tol),
                                         ("dgb=0", gb <= tol),
                                         ("dgb=ub", gb >= ub - tol)) if hit]
        rows.append({"kernel": kernel, "la": la, "lb": lb, "sa": sa, "sb": sb,
                     "wab": wab, "C": C, "ub": ub, "ga_lib": ga, "gb_lib": gb,
                     "ga_cvx": ga_c, "gb_cvx": gb_c, "h_lib": h, "h_cvx": h_c,
                     "max_abs_diff": max(abs(ga - ga_c), abs(gb - gb_c)),
                     "gain_diff": h_c - h,
                     "active": ",".join(active) or "interior"})
    return pd.DataFrame(rows)
