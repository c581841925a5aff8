"""The kernel density estimator (KDE)."""

from __future__ import annotations

import numpy as np

from .._blocks import equal_weights
from ._base import _BaseKDE


class KDE(_BaseKDE):
    """Kernel density estimator f(x) = 1/(n h^d) sum_i K((x - X_i)/h) (the MoM-KDE paper, eq. 1).

    Parameters
    ----------
    bandwidth : float, array of d floats or {"scott", "silverman", "cv", "robust", "isj"}, \
default "scott"
        h, one h per feature, or the rule that picks them. "scott" and "silverman" are per
        feature (each feature's standard deviation times the rule's factor); "cv", "robust"
        and "isj" search a scalar multiple of the per-feature Scott vector (in 1-D: of
        Scott's h, as before). "robust" is chosen as for MoM-KDE with an expected
        contamination of 0.1 (:mod:`momkde_core.bandwidth._robust`): the KDE with a bandwidth
        a spike cannot capture. "isj": the Improved Sheather-Jones bandwidth (Botev et al.
        2010), 1-D data only (:mod:`momkde_core.bandwidth._rules`). With H = (h_1, ..., h_d),
        f(x) = 1/(n prod_j h_j) sum_i K((x - X_i) / H) (division per feature).
    kernel : str, default "gaussian"
        gaussian, tophat (uniform), epanechnikov, linear (triangular), cosine, exponential.
    random_state : int, numpy RandomState or None
        Shuffles the folds of ``bandwidth="cv"``.

    Notes
    -----
    With ``sample_weight`` w, f(x) = sum_i w_i K_h(x - X_i) / sum_i w_i.

    Attributes: ``bandwidth_`` (a float when every feature has the same h, else an array
    of length d), ``n_features_in_``, ``feature_names_in_`` (when fitted on a DataFrame with
    string column names).

    All four estimators compute in a frame where no magnitude over- or underflows (data of
    magnitude 1e-300 .. 1e300, h = 1e-90, d = 200; :mod:`momkde_core._engine._scaling`) and map the
    results back exactly; beyond the limits that remain (a feature spanning more than 1e100
    bandwidths, a density above float64's range in ``pdf``) they raise a ValueError naming
    them. Parameters of the wrong type (``bandwidth=True``, ``normalize="no"``,
    ``n_blocks=3.0``) raise scikit-learn's InvalidParameterError (a ValueError and a
    TypeError).
    """

    def __init__(self, bandwidth="scott", kernel: str = "gaussian", random_state=None):
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.random_state = random_state

    def _fit_weights(self, X, base):
        n = len(X)
        if base is None:
            return (X, np.array([0, n]), *equal_weights(n))
        return X, np.array([0, n]), np.log(base), base
