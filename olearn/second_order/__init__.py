"""Second-order learners: the model is a mean ``mu`` and a covariance ``Sigma``
(full matrix or diagonal). CW, AROW, SCW, SOP, NAROW, BCW and SBCW live here."""
from .arow import AROW, NAROW
from .cw import CW, SCW
from .sop import SOP

__all__ = ["AROW", "CW", "NAROW", "SCW", "SOP"]
