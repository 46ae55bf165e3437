"""Kernel learners: the model is a support set with signed coefficients.
The kernel baselines of the DUOL paper and DUOL itself live here."""
