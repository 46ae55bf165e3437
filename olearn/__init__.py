"""olearn: online binary classifiers, derived and verified.

Importing olearn compiles nothing: every compiled loop is built (or loaded
from numba's on-disk cache) on its first call.
"""
from .averaged import Averaged
from .pa import PA
from .perceptron import Perceptron

__version__ = "0.1.0"
__all__ = ["Averaged", "PA", "Perceptron", "__version__"]
