"""olearn: online binary classifiers, derived and verified.

One subpackage per model family: :mod:`olearn.linear` (a weight vector),
:mod:`olearn.second_order` (mean and covariance), :mod:`olearn.kernel` (support set
and coefficients), :mod:`olearn.selection` (a learner on chosen features). The
public API is flat: ``olearn.AROW``, ``from olearn import PA``.  The distributed
learner imports flat too (``from olearn import IterativeParameterMixing``) but is not
in ``__all__``: it needs a Dask cluster to fit, while every estimator of ``__all__``
runs in one process (``tests/test_contract.py`` runs each estimator class of ``__all__``).
``__all__`` also lists the feature-scoring functions (``chi_square``, ``information_gain``,
``pair_information_gain``), the feature-selection function ``game_theoretic_selection``
(it returns the indices of the chosen features) and ``__version__``.

Importing olearn imports nothing else and compiles nothing: a name is imported
from its family on first use (PEP 562 ``__getattr__``), so a page that uses the
linear learners does not pay for scikit-learn's feature selection, HiGHS or the
kernel and second-order modules, and every compiled loop is built (or loaded
from numba's on-disk cache) on its first call.
"""
import importlib

__version__ = "0.2.0"

#: public name -> module defining it (imported on first access)
_EXPORTS = {
    # linear
    **dict.fromkeys(
        ["ALMA", "AggressiveROMMA", "Averaged", "BalancedWinnow", "L1ConstrainedPA",
         "L2ConstrainedPA", "ModifiedBalancedWinnow", "NORMA", "ObjectiveRegularizedPA",
         "PA", "Perceptron", "PositiveWinnow", "ROMMA"], "olearn.linear"),
    # second order
    **dict.fromkeys(["AROW", "CW", "NAROW", "SCW", "SOP"], "olearn.second_order"),
    "BCW": "olearn.second_order.bcw",
    "SBCW": "olearn.second_order.sbcw",
    "SOFS": "olearn.second_order._sofs",
    "SparDCA": "olearn.second_order._sbcw_spardca",
    # kernel
    **dict.fromkeys(
        ["DUOL", "KernelALMA", "KernelAggressiveROMMA", "KernelPA", "KernelPerceptron",
         "KernelROMMA", "OnlineSVM"], "olearn.kernel"),
    "KernelAROW": "olearn.kernel.arow",
    # feature selection
    **dict.fromkeys(
        ["ExtremalFeatureSelection", "FeatureSelected", "chi_square",
         "game_theoretic_selection", "information_gain", "pair_information_gain"],
        "olearn.selection"),
}

#: public names imported flat but left out of ``__all__`` (they need a Dask cluster to fit);
#: their module imports dask only when a cluster is used
_EXPORTS_NOT_IN_ALL = {"IterativeParameterMixing": "olearn.distributed"}

#: subpackages and modules reachable as attributes (``olearn.linear``) after ``import olearn``
_SUBMODULES = ("bounds", "catalog", "datasets", "distributed", "experiments", "kernel",
               "linear", "oco", "plotting", "second_order", "selection", "verify")

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name):
    if name in _EXPORTS or name in _EXPORTS_NOT_IN_ALL:
        module = _EXPORTS.get(name) or _EXPORTS_NOT_IN_ALL[name]
        value = getattr(importlib.import_module(module), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_EXPORTS_NOT_IN_ALL) | set(_SUBMODULES))
