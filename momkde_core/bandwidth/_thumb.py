"""Scott's and Silverman's rules of thumb, per feature or pooled, with sample weights.

The rules use the factors of :class:`scipy.stats.gaussian_kde` (Scott: n^(-1/(d+4));
Silverman: (n (d + 2) / 4)^(-1/(d+4))) times a standard deviation, so in 1-D they give
exactly gaussian_kde's bandwidth. The estimators use them **per feature** (sigma_j, so
features of scale 1 and 1000 each get their own h: gaussian_kde with the diagonal of its
covariance), and "cv", "robust" and "isj" search a scalar multiple c of that per-feature
Scott vector (``select_bandwidth(per_feature=True)``); ``per_feature=False`` gives one h
for all features from the pooled deviation sqrt(mean of the per-feature variances), as the
app and the experiments share it between estimators. Variances are computed on data scaled
by a power of two where needed (exactly), so magnitudes from 1e-300 to 1e300 neither
overflow nor underflow. They target the Gaussian kernel. With sample weights they follow
gaussian_kde's ``weights`` too: n becomes the effective size n_eff = (sum w)^2 / sum w^2 and
the variances are the weighted ones with the unbiased correction 1 / (1 - sum p_i^2),
p = w / sum w (reliability weights: scaling every weight by a constant changes nothing).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._columns import per_column

SAFE_EXPONENT = 256  # features with max |x| in [2^-256, 2^256] are used as they are


def _feature_variances(
    X: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(per-feature variances of X scaled by 2^-e_j, the exponents e_j).

    Features whose largest magnitude is outside [2^-256, 2^256] are scaled by a power of two
    first (e_j: the binary exponent of that magnitude; 0 otherwise), so no square over- or
    underflows; the scaling is exact, so var_j 2^(2 e_j) is the variance numpy would give
    wherever numpy's does not overflow. ``weights`` (summing to 1): the unbiased weighted
    variances of ``numpy.cov(aweights=)``.
    """
    peak = per_column(np.max, np.abs(X))
    exps = np.frexp(peak)[1]
    exps = np.where(
        (peak > 0) & ((peak > 2.0**SAFE_EXPONENT) | (peak < 2.0**-SAFE_EXPONENT)), exps, 0
    )
    W = np.ldexp(X, -exps) if exps.any() else X
    if weights is None:
        return np.var(W, axis=0, ddof=1), exps
    centred = W - weights @ W
    return weights @ np.square(centred) / (1.0 - weights @ weights), exps


def feature_std(X: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-feature standard deviations (internal).

    ddof=1, weighted as :func:`pooled_std`; safe from over- and underflow at any magnitude
    (1e-300 .. 1e300).
    """
    var, exps = _feature_variances(X, weights)
    return np.ldexp(np.sqrt(var), exps)


def pooled_std(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The pooled standard deviation sqrt(mean of per-feature variances) (internal).

    The scale of the isotropic rules of thumb; with ``weights`` (summing to 1) the unbiased
    weighted variances of ``numpy.cov(aweights=)``. Safe at any magnitude
    (:func:`feature_std`).
    """
    var, exps = _feature_variances(X, weights)
    if not exps.any():
        return float(np.sqrt(np.mean(var)))
    std = np.ldexp(np.sqrt(var), exps)
    top = std.max()  # relative to the largest deviation, no square over- or underflows
    return float(top * np.sqrt(np.mean(np.square(std / top)))) if top > 0 else 0.0


def effective_size(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The sample size n, or with ``weights`` (summing to 1) Kish's effective size 1 / sum w^2
    (internal)."""
    return float(len(X)) if weights is None else 1.0 / float(weights @ weights)


def _scott_factor(X: np.ndarray, weights: np.ndarray | None) -> float:
    return effective_size(X, weights) ** (-1.0 / (X.shape[1] + 4))


def _silverman_factor(X: np.ndarray, weights: np.ndarray | None) -> float:
    d = X.shape[1]
    return (effective_size(X, weights) * (d + 2) / 4.0) ** (-1.0 / (d + 4))


def scott(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Scott's rule of thumb, isotropic: one bandwidth for all features.

    ``sigma * n^(-1/(d+4))``, sigma the pooled standard deviation (the square root of the
    mean of the per-feature variances, ddof=1). In 1-D this is exactly the bandwidth of
    :class:`scipy.stats.gaussian_kde` (its ``factor`` times the standard deviation). It
    targets the Gaussian kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1 (the estimators normalise ``sample_weight`` so); None:
        equal weights.

    Returns
    -------
    h : float
        The bandwidth.

    See Also
    --------
    silverman : The same with Silverman's factor.
    rule_of_thumb : The per-feature rule the estimators use.
    select_bandwidth : Resolves the ``bandwidth`` parameter of the estimators.

    Notes
    -----
    With sample weights the rule follows gaussian_kde's ``weights``: n becomes the effective
    size ``n_eff = (sum w)^2 / sum w^2`` (Kish's) and the variances are the weighted ones with
    the unbiased correction ``1 / (1 - sum p_i^2)``, ``p = w / sum w`` (reliability weights:
    once the weights are normalised, scaling every weight by a constant changes nothing).
    Variances are computed on data scaled by a power of two where needed (exactly), so
    magnitudes from 1e-300 to 1e300 neither overflow nor underflow.

    References
    ----------
    D. W. Scott. Multivariate Density Estimation: Theory, Practice, and Visualization.
    Wiley, 1992.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import gaussian_kde
    >>> from momkde_core.bandwidth import scott
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(scott(X), 2)
    0.33
    >>> bool(np.isclose(scott(X), gaussian_kde(X[:, 0]).factor * X.std(ddof=1)))
    True
    """
    return pooled_std(X, weights) * _scott_factor(X, weights)


def silverman(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Silverman's rule of thumb, isotropic: one bandwidth for all features.

    ``sigma * (n (d + 2) / 4)^(-1/(d+4))``, sigma the pooled standard deviation (as
    :func:`scott`). In 1-D this is exactly the bandwidth of :class:`scipy.stats.gaussian_kde`
    with ``bw_method="silverman"``. It targets the Gaussian kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1; None: equal weights.

    Returns
    -------
    h : float
        The bandwidth.

    See Also
    --------
    scott : The same with Scott's factor.
    rule_of_thumb : The per-feature rule the estimators use.

    Notes
    -----
    Weights enter as in :func:`scott`: n becomes the effective size
    ``n_eff = (sum w)^2 / sum w^2`` and the variances are the unbiased weighted ones, as with
    gaussian_kde's ``weights``.

    References
    ----------
    B. W. Silverman. Density Estimation for Statistics and Data Analysis. Chapman & Hall,
    1986.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import gaussian_kde
    >>> from momkde_core.bandwidth import silverman
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(silverman(X), 2)
    0.35
    >>> kde = gaussian_kde(X[:, 0], bw_method="silverman")
    >>> bool(np.isclose(silverman(X), kde.factor * X.std(ddof=1)))
    True
    """
    return pooled_std(X, weights) * _silverman_factor(X, weights)


def rule_of_thumb(
    X: np.ndarray, rule: str, weights: np.ndarray | None = None, per_feature: bool = True
) -> np.ndarray:
    """Scott's or Silverman's rule, one bandwidth per feature.

    Per feature, sigma_j (the feature's standard deviation) times the rule's factor, so
    features of scale 1 and 1000 each get their own h (gaussian_kde with the diagonal of its
    covariance); in 1-D exactly the isotropic rule (:func:`scott`, :func:`silverman`).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    rule : {"scott", "silverman"}
        The rule ("scott", else Silverman's factor).
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1 (None: equal), entering as in :func:`scott`.
    per_feature : bool, default True
        False: the isotropic rule (pooled standard deviation) repeated d times.

    Returns
    -------
    h : ndarray of shape (d,)
        The bandwidths.

    Raises
    ------
    ValueError
        When every feature has zero spread (no two distinct points).

    Warns
    -----
    UserWarning
        When some feature has zero spread (constant) among others: it gets the isotropic
        value.

    See Also
    --------
    select_bandwidth : Resolves the ``bandwidth`` parameter of the estimators.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.bandwidth import rule_of_thumb
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 1000.0]
    >>> h = rule_of_thumb(X, "scott")
    >>> h.shape
    (2,)
    >>> bool(500 < h[1] / h[0] < 2000)
    True
    >>> h_iso = rule_of_thumb(X, "scott", per_feature=False)
    >>> bool(h_iso[0] == h_iso[1])
    True
    """
    factor = (_scott_factor if rule == "scott" else _silverman_factor)(X, weights)
    pooled = pooled_std(X, weights) * factor
    if not per_column(np.ptp, X).any():
        raise ValueError(
            f"bandwidth={rule!r} needs at least 2 distinct points "
            "(the data have zero spread); pass a positive number instead"
        )
    d = X.shape[1]
    if not per_feature:
        return np.full(d, pooled)
    h = feature_std(X, weights) * factor
    flat = np.flatnonzero(per_column(np.ptp, X) == 0.0)
    if flat.size:
        warnings.warn(
            f"feature(s) {flat.tolist()} have zero spread (constant): their "
            f"bandwidth is the isotropic {rule} value {pooled:.3g}",
            UserWarning,
            stacklevel=4,
        )
        h[flat] = pooled
    return h
