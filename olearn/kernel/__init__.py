"""Kernel learners: the model is a support set with signed coefficients.
The kernel baselines of the DUOL paper and DUOL itself live here.

Kernel functions and the compiled kernel row are in :mod:`olearn.kernel.kernels`;
the support-set state and the compiled pass in :mod:`olearn.kernel.core`.
"""
from .arow import KernelAROW
from .core import KernelClassifier, NumericRangeWarning, kernel_pass
from .duol import DUOL
from .kernels import kernel_matrix
from .learners import (KernelALMA, KernelAggressiveROMMA, KernelPA,
                       KernelPerceptron, KernelROMMA)
from .online_svm import OnlineSVM

__all__ = ["DUOL", "KernelALMA", "KernelAROW", "KernelAggressiveROMMA",
           "KernelClassifier", "KernelPA", "KernelPerceptron", "KernelROMMA",
           "NumericRangeWarning", "OnlineSVM", "kernel_matrix", "kernel_pass"]
