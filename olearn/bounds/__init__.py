"""Mistake and loss bounds evaluated on finished runs.

Most bounds are functions ``<bound>(run, X, y, u, ...)`` of a fitted learner,
the stream it saw (in order, one pass from ``w = 0``) and a competitor ``u``
(a vector, a moving competitor, kernel coefficients; a disjunction for the
Winnows); :func:`theorem3` replays DUOL on ``(X, y)`` itself.  Every
``*_bound``, the regret lemmas and :func:`theorem3` return a
:class:`BoundCheck` (``observed``, ``bound``, ``holds``, ``terms``); the
other functions are the streams, competitors and per-round traces the checks
use.  Shared pieces live in ``_common``; a new family adds one module and one
import line below.
"""
import types as _types

from ._common import BoundCheck, checks_frame, svm_competitor
from .alma import alma_bound
from .arow import arow_bound, arow_lemma_trace, arow_regret_lemma
from .duol import (assert_theorems_1_2, duol_updates, proposition1, svm_bracket,
                   theorem3)
from .kernel_lemma import kernel_regret_lemma, svm_dual_competitor
from .norma import norma_bound, norma_mistake_bound
from .oco import regret_lemma
from .perceptron_pa import optimal_gamma, pa_bound, pa_mistake_bound, perceptron_bound
from .regularized import (drifting_stream, l1_constrained_bound,
                          l2_constrained_bound, objective_regularized_bound,
                          proof_step_slacks, round_terms)
from .sop import sop_bound
from .winnow import (balanced_winnow_bound, balanced_winnow_steps, disjunction_stream,
                     greedy_disjunction, mistakes_against_d, winnow_bound)

__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_")
                 and not isinstance(value, _types.ModuleType))
