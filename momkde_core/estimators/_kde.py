"""The kernel density estimator (KDE).

:class:`KDE` is the classical estimator f(x) = 1/(n h^d) sum_i K((x - X_i)/h), with the
bandwidth rules of :mod:`momkde_core.bandwidth`. It is the baseline the robust estimators
are measured against, and the final estimate of :class:`~momkde_core.ScreenedKDE`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._blocks import equal_weights
from ._base import _BaseKDE
from ._mixed import MIXED_CONSTRAINTS


class KDE(_BaseKDE):
    """Kernel density estimator f(x) = 1/(n h^d) sum_i K((x - X_i)/h) (the MoM-KDE paper, eq. 1).

    The classical estimator: a kernel of bandwidth h on every row, each weighing 1/n. It is
    not robust: a cluster of outliers grows a bump of its own, which :class:`MoMKDE` ignores.

    Parameters
    ----------
    bandwidth : float, array of d floats or {"scott", "silverman", "cv", "robust", "isj"}, \
default "scott"
        h, one h per feature, or the rule that picks them. "scott" and "silverman" are per
        feature (each feature's standard deviation times the rule's factor); "cv", "robust"
        and "isj" search a scalar multiple of the per-feature Scott vector (in 1-D: of
        Scott's h). "robust" is chosen as for MoM-KDE with an expected contamination of 0.1
        (:mod:`momkde_core.bandwidth._robust`): the KDE with a bandwidth a spike cannot
        capture. "isj": the Improved Sheather-Jones bandwidth (Botev et al. 2010), 1-D data
        only (:mod:`momkde_core.bandwidth._isj`).
    kernel : str, default "gaussian"
        gaussian, tophat (uniform), epanechnikov, linear (triangular), cosine, exponential.
    categorical_features : "from_dtype", None, or list of str, int or bool, \
default "from_dtype"
        Which columns are categorical, as scikit-learn's HistGradientBoosting reads them: in
        a DataFrame, object, string, category and bool columns are unordered and an ordered
        Categorical is ordered; column names, indices or a boolean mask override; None: every
        column continuous. Numpy input is continuous unless named here. Categorical columns
        enter a product kernel (Aitchison-Aitken, unordered; Wang-van Ryzin, ordered; as
        statsmodels' ``KDEMultivariate``): ``pdf`` is then a density over the continuous
        columns times a probability over the levels. A level unseen at fit gets the kernel's
        off-level value; a missing value is a level of its own (unordered columns; in an
        ordered one a ValueError). Needs ``kernel="gaussian"``
        (:mod:`momkde_core.estimators._mixed`).
    categorical_bandwidth : {"cv", "rule"}, float or array of floats, default "cv"
        The categorical columns' bandwidths lambda: "cv", the leave-one-out likelihood with
        the continuous bandwidths fixed (deterministic; on at most 1000 rows); "rule",
        lambda_max n^(-2/(d_c+4)) (lambda_max: (c-1)/c for c levels unordered, 1/2 ordered;
        d_c continuous columns); a number, or one per categorical column, in (0, 1)
        (unordered: at most (c-1)/c, uniform over the levels). The default was chosen on
        planted mixed tables (``benchmarks/studies/mixed_defaults.py``,
        ``docs/guide/robust-density.md``).
    random_state : int, RandomState or None, default None
        The blocks of ``bandwidth="robust"`` (``"cv"`` draws nothing at random).

    Attributes
    ----------
    bandwidth_ : float or ndarray of shape (d,)
        The bandwidth used: a float when every feature has the same h, else an array of
        length d.
    log_norm_ : float
        0.0: the KDE integrates to 1 (for MoM-KDE, the log of the integral divided out).
    categorical_bandwidth_ : ndarray of shape (n_categorical,)
        The categorical columns' bandwidths lambda (set only when X has categorical
        columns, as are the two attributes below).
    is_categorical_ : ndarray of bool of shape (d,)
        Which features are categorical.
    categories_ : list of ndarray
        The levels of each categorical feature, in its code order (NaN: the missing level).
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (d,)
        The column names, when fitted on a DataFrame with string column names.

    See Also
    --------
    MoMKDE : the Median-of-Means KDE, robust to a minority of outliers.
    ScreenedKDE : a KDE fitted on the rows a robust screen keeps.
    RKDE : Kim & Scott's robust KDE.
    SPKDE : Vandermeulen & Scott's scaled and projected KDE.

    Notes
    -----
    With H = (h_1, ..., h_d), f(x) = 1/(n prod_j h_j) sum_i K((x - X_i) / H) (division per
    feature). With ``sample_weight`` w, f(x) = sum_i w_i K_h(x - X_i) / sum_i w_i.

    All four estimators compute in a frame where no magnitude over- or underflows (data of
    magnitude 1e-300 .. 1e300, h = 1e-90, d = 200; :mod:`momkde_core._engine._scaling`) and
    map the results back exactly; beyond the limits that remain (a feature spanning more
    than 1e100 bandwidths, a density above float64's range in ``pdf``) they raise a
    ValueError naming them. Parameters of the wrong type (``bandwidth=True``,
    ``normalize="no"``, ``n_blocks=3.0``) raise :class:`~momkde_core.InvalidParameterError`
    (a ValueError and a TypeError, as scikit-learn's).

    References
    ----------
    - Humbert, Le Bars, Minvielle & Vayatis (2020), "Robust Kernel Density Estimation with
      Median-of-Means principle", eq. 1 (the KDE).
    - Botev, Grotowski & Kroese (2010), "Kernel density estimation via diffusion", Annals of
      Statistics 38 (the Improved Sheather-Jones bandwidth).

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import KDE
    >>> X = np.random.default_rng(0).standard_normal((300, 1))
    >>> kde = KDE().fit(X)  # Scott's rule
    >>> round(kde.bandwidth_, 2)
    0.33
    >>> round(float(kde.pdf([0.0])[0]), 2)  # the standard normal's peak is 0.40
    0.35
    >>> kde.pdf_grid(np.linspace(-4, 4, 161)).shape
    (161,)
    >>> kde.sample(3, random_state=0).shape
    (3, 1)

    One bandwidth per feature:

    >>> X2 = np.random.default_rng(0).standard_normal((300, 2))
    >>> KDE(bandwidth=[0.2, 1.0]).fit(X2).bandwidth_.tolist()
    [0.2, 1.0]
    """

    _parameter_constraints = dict(MIXED_CONSTRAINTS)

    def __init__(
        self,
        bandwidth: float | ArrayLike | str = "scott",
        kernel: str = "gaussian",
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | list | None = "from_dtype",
        categorical_bandwidth: str | float | ArrayLike = "cv",
    ):
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.random_state = random_state
        self.categorical_features = categorical_features
        self.categorical_bandwidth = categorical_bandwidth

    def _fit_weights(self, X, base):
        n = len(X)
        if base is None:
            return (X, np.array([0, n]), *equal_weights(n))
        return X, np.array([0, n]), np.log(base), base
