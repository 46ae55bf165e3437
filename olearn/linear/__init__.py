"""Linear learners: the model is one weight vector ``w`` (stored as ``v * z``).

Perceptron, PA / PA-I / PA-II, ROMMA and aggressive ROMMA, ALMA, NORMA, voting
(:class:`Averaged`) and the regularized Passive-Aggressive learners of Shen and
Dietterich. The shared state and compiled helpers are in :mod:`olearn.linear.core`.
"""
from .alma import ALMA
from .averaged import Averaged
from .core import (SCALE, SQNORM, SUM_SCALE, LinearClassifier, move_coord,
                   predict_round, rescale, scale_add)
from .norma import NORMA
from .pa import PA
from .perceptron import Perceptron
from .regularized import L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA
from .romma import AggressiveROMMA, ROMMA

__all__ = ["ALMA", "AggressiveROMMA", "Averaged", "L1ConstrainedPA",
           "L2ConstrainedPA", "LinearClassifier", "NORMA", "ObjectiveRegularizedPA",
           "PA", "Perceptron", "ROMMA"]
from .winnow import BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow

__all__ += ["BalancedWinnow", "ModifiedBalancedWinnow", "PositiveWinnow"]
