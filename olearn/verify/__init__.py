"""Independent formulations of per-round updates, to check the closed forms.

For a learner whose update is the argmin of a per-round convex program, the
family module writes that program in cvxpy (``<rule>_program``) and a
``check_<family>`` helper compares it with the library's compiled update on
random rounds.  Shared pieces live in ``_common``; a new family adds one
module and one import line below.
"""
import types as _types

from ._common import ProgramSolution, library_step, start_from
from .duol import check_duol_exact, duol_dual_program, random_duol_instance
from .pa import check_pa, pa_program, random_pa_round
from .sparse_cw import (check_bcw_mean, check_grad_omega_star, check_sigma_kkt,
                        check_subproblem, check_theorem1, omega_star_numerical,
                        sigma_program, subproblem_program, svm_program)
from .romma import check_romma, random_romma_round, romma_program
from .second_order import (arow_covariance_closed_form, arow_covariance_program,
                           arow_mean_program, check_second_order,
                           cw_variance_program, stdev_program)
from .regularized import (check_l1_constrained, check_l2_constrained,
                          check_objective_regularized, l1_constrained_program,
                          l2_constrained_program, objective_regularized_program,
                          random_constrained_round, random_objective_round)

__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_")
                 and not isinstance(value, _types.ModuleType))
