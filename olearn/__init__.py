"""olearn: online binary classifiers, derived and verified.

Importing olearn compiles nothing: every compiled loop is built (or loaded
from numba's on-disk cache) on its first call.
"""
from .feature_selection import (FeatureSelected, game_theoretic_selection,
                                information_gain, pair_information_gain)
from .kernel import (DUOL, KernelALMA, KernelAggressiveROMMA, KernelPA,
                     KernelPerceptron, KernelROMMA, OnlineSVM)
from .linear import (ALMA, NORMA, PA, AggressiveROMMA, Averaged, L1ConstrainedPA,
                     L2ConstrainedPA, ObjectiveRegularizedPA, Perceptron, ROMMA)
from .second_order import AROW, CW, NAROW, SCW, SOP
from .kernel.arow import KernelAROW
from .linear import BalancedWinnow, ModifiedBalancedWinnow, PositiveWinnow
from .extremal import ExtremalFeatureSelection, chi_square

from .second_order.bcw import BCW
from .second_order.sbcw import SBCW
from .second_order._sofs import SOFS
from .second_order._sbcw_spardca import SparDCA
from .kernel.arow import KernelAROW

__version__ = "0.1.0"
__all__ = ["ALMA", "AggressiveROMMA", "Averaged", "DUOL", "FeatureSelected",
           "KernelALMA", "KernelAggressiveROMMA", "KernelPA", "KernelPerceptron",
           "KernelROMMA", "OnlineSVM",
           "L1ConstrainedPA", "L2ConstrainedPA", "NORMA",
           "ObjectiveRegularizedPA", "PA", "Perceptron", "ROMMA", "__version__",
           "BCW", "SBCW", "SOFS", "SparDCA",
           "game_theoretic_selection", "information_gain",
           "pair_information_gain"]
__all__ += ["AROW", "CW", "NAROW", "SCW", "SOP"]
__all__ += ["BalancedWinnow", "ExtremalFeatureSelection", "ModifiedBalancedWinnow",
            "PositiveWinnow", "chi_square"]
__all__ += ["AROW", "CW", "KernelAROW", "NAROW", "SCW", "SOP"]
__all__ += ["AROW", "CW", "KernelAROW", "NAROW", "SCW", "SOP"]
__all__ += ["BalancedWinnow", "ExtremalFeatureSelection", "ModifiedBalancedWinnow",
            "PositiveWinnow", "chi_square"]
