"""Bandwidth selection: rules of thumb, likelihood cross-validation, Improved Sheather-Jones,
and the robust rule behind MoM-KDE's defaults.

Layer 3 of the package (``docs/architecture.md``). :func:`select_bandwidth` resolves the
``bandwidth`` parameter of every estimator (``_rules``); the rules themselves are in
``_thumb`` (Scott, Silverman), ``_loo_cv`` (the "cv" rule: leave-one-out likelihood,
deterministic), ``_cv`` (the k-fold search "cv" made before, and its binned sums), ``_isj`` (Improved
Sheather-Jones) and ``_robust`` (the leave-own-block-out search and S from the expected
share of outliers).

``RULES`` names the rules a ``bandwidth`` parameter accepts: ("scott", "silverman", "cv",
"robust", "isj"). ``MAX_CONTAMINATION`` = 0.5 bounds the expected share of outliers, exclusive:
at 1/2 no median can tell the outliers from the inliers.
"""

from ._cv import cv_grid, cv_scores, kfold_cv_bandwidth
from ._isj import isj
from ._loo_cv import cv_bandwidth, loo_scores
from ._robust import (
    MAX_CONTAMINATION,
    estimate_contamination,
    leave_own_block_out_scores,
    n_blocks_for,
    robust_bandwidth,
)
from ._rules import RULES, select_bandwidth
from ._thumb import rule_of_thumb, scott, silverman

__all__ = [
    "MAX_CONTAMINATION",
    "RULES",
    "cv_bandwidth",
    "cv_grid",
    "cv_scores",
    "estimate_contamination",
    "isj",
    "kfold_cv_bandwidth",
    "leave_own_block_out_scores",
    "loo_scores",
    "n_blocks_for",
    "robust_bandwidth",
    "rule_of_thumb",
    "scott",
    "select_bandwidth",
    "silverman",
]
