"""Feature selection: the model is a learner on a chosen subset of the features.

- :mod:`olearn.selection.scores`: information gain of single features and of
  pairs, and the 2 x 2 chi-square (batch scores);
- :mod:`olearn.selection.game_theoretic`: the relaxed game (4.20) of Shen and
  Dietterich as one LP;
- :mod:`olearn.selection.feature_selected`: :class:`FeatureSelected`, an
  online learner on features re-selected from the stream so far;
- :mod:`olearn.selection.extremal`: Carvalho and Cohen's extremal feature
  selection (:class:`ExtremalFeatureSelection`).
"""
from .extremal import ExtremalFeatureSelection, extremal_scores, extremal_selection
from .feature_selected import FeatureSelected
from .game_theoretic import game_theoretic_selection
from .scores import binarize, chi_square, information_gain, pair_information_gain

__all__ = ["ExtremalFeatureSelection", "FeatureSelected", "binarize", "chi_square",
           "extremal_scores", "extremal_selection", "game_theoretic_selection",
           "information_gain", "pair_information_gain"]
