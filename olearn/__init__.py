"""olearn: online binary classifiers, derived and verified.

One subpackage per model family: :mod:`olearn.linear` (a weight vector),
:mod:`olearn.second_order` (mean and covariance), :mod:`olearn.kernel` (support set
and coefficients). The public API is flat.

Importing olearn compiles nothing: every compiled loop is built (or loaded
from numba's on-disk cache) on its first call.
"""
from .extremal import ExtremalFeatureSelection, chi_square
from .feature_selection import (FeatureSelected, game_theoretic_selection,
                                information_gain, pair_information_gain)
from .kernel import (DUOL, KernelALMA, KernelAggressiveROMMA, KernelPA,
                     KernelPerceptron, KernelROMMA, OnlineSVM)
from .kernel.arow import KernelAROW
from .linear import (ALMA, NORMA, PA, AggressiveROMMA, Averaged, BalancedWinnow,
                     L1ConstrainedPA, L2ConstrainedPA, ModifiedBalancedWinnow,
                     ObjectiveRegularizedPA, Perceptron, PositiveWinnow, ROMMA)
from .second_order import AROW, CW, NAROW, SCW, SOP
from .second_order._sbcw_spardca import SparDCA
from .second_order._sofs import SOFS
from .second_order.bcw import BCW
from .second_order.sbcw import SBCW

__version__ = "0.1.0"
__all__ = sorted([
    # linear
    "ALMA", "AggressiveROMMA", "Averaged", "BalancedWinnow", "L1ConstrainedPA",
    "L2ConstrainedPA", "ModifiedBalancedWinnow", "NORMA", "ObjectiveRegularizedPA", "PA",
    "Perceptron", "PositiveWinnow", "ROMMA",
    # second order
    "AROW", "BCW", "CW", "NAROW", "SBCW", "SCW", "SOFS", "SOP", "SparDCA",
    # kernel
    "DUOL", "KernelALMA", "KernelAROW", "KernelAggressiveROMMA", "KernelPA",
    "KernelPerceptron", "KernelROMMA", "OnlineSVM",
    # feature selection
    "ExtremalFeatureSelection", "FeatureSelected", "chi_square",
    "game_theoretic_selection", "information_gain", "pair_information_gain",
    "__version__",
])
