"""Bandwidth selection by name: :func:`select_bandwidth` resolves the ``bandwidth`` parameter
of every estimator, a number, one per feature, or a rule.

The rules: Scott's and Silverman's rules of thumb (:mod:`momkde_core.bandwidth._thumb`),
leave-one-out likelihood cross-validation, "cv" (:mod:`momkde_core.bandwidth._loo_cv`), the Improved
Sheather-Jones bandwidth, "isj" (:mod:`momkde_core.bandwidth._isj`), and "robust", the
bandwidth that a spike of outliers cannot capture: the trimmed leave-own-block-out
likelihood of MoM-KDE with S = 2 ceil(eps n) + 1 blocks (or the estimator's own S), eps the
expected contamination (:mod:`momkde_core.bandwidth._robust`).
"""

from __future__ import annotations

import numpy as np

from .._columns import per_column
from .._engine import selection_frame
from .._validation import InvalidParameterError, Rule, is_bool
from ..kernels import Kernel
from ._cv import kfold_cv_bandwidth
from ._isj import isj
from ._loo_cv import cv_bandwidth
from ._robust import n_blocks_for, robust_bandwidth
from ._thumb import rule_of_thumb

RULES = ("scott", "silverman", "cv", "robust", "isj")
ROBUST_CONTAMINATION = 0.1  # the share "robust" assumes for estimators that state none


def select_bandwidth(
    X: np.ndarray,
    bandwidth: float | np.ndarray | str,
    kernel: Kernel,
    n_folds: int | None = None,
    random_state: int | np.random.RandomState | None = None,
    n_blocks: int | None = None,
    contamination: float = ROBUST_CONTAMINATION,
    weights: np.ndarray | None = None,
    per_feature: bool = False,
) -> float | np.ndarray:
    """Resolve the ``bandwidth`` parameter of an estimator for the data X.

    A number or an array is checked and returned; a rule name (one of :data:`RULES`:
    "scott", "silverman", "cv", "robust", "isj"; case-insensitive) is computed on X.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    bandwidth : float, ndarray of shape (d,) or str
        A positive finite number, an array of d positive finite numbers (one per feature),
        or one of :data:`RULES`.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`), used by "cv" and "robust".
    n_folds : int, optional
        "cv" only. None (default): the leave-one-out search (:func:`cv_bandwidth`), which
        draws nothing at random. A number: the former shuffled k-fold search on a grid of
        25 (:func:`kfold_cv_bandwidth`, the paper's; the experiment runner uses it with 5
        folds, as its stored tables were computed).
    random_state : int, RandomState or None, default None
        The blocks and the subsample of "robust"; the folds of "cv" with ``n_folds``.
    n_blocks : int, optional
        "robust" only: the blocks of the MoM-KDE it scores (default:
        ``2 ceil(contamination n) + 1``, :func:`n_blocks_for`).
    contamination : float, default 0.1
        "robust" only: the expected share of outliers, the share of lowest scores it trims
        (0.1 is what "robust" assumes for estimators that state none).
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal); they enter "scott", "silverman", "cv" and "isj"
        (as gaussian_kde's ``weights``, :func:`scott`). "robust" ignores them: it scores the
        median of block KDEs, in which each row counts once whatever its weight (a heavy row
        cannot outvote the blocks).
    per_feature : bool, default False
        False (one h shared by all features, as the app and the experiments compare
        estimators): a float; the rules use the pooled standard deviation. True (what the
        estimators use): an array of shape (d,); "scott" and "silverman" are per feature
        (:func:`rule_of_thumb`), and "cv", "robust" and "isj" search a scalar multiple c of
        the per-feature Scott vector (each feature in units of its own Scott bandwidth; in
        1-D exactly the search on the data).

    Returns
    -------
    h : float or ndarray of shape (d,)
        A float when ``per_feature=False``, else one bandwidth per feature.

    Raises
    ------
    InvalidParameterError
        For an unknown rule name, or a numeric ``bandwidth`` that is not positive and
        finite (:class:`momkde_core.InvalidParameterError`, a ``ValueError`` and a
        ``TypeError``).
    ValueError
        For a per-feature array with ``per_feature=False``, "isj" with d > 1, or a rule on
        fewer than 2 rows or on data of zero spread; and the errors of the rules.

    See Also
    --------
    scott, silverman, rule_of_thumb, cv_bandwidth, kfold_cv_bandwidth, isj, robust_bandwidth :
        The rules.

    Notes
    -----
    The searches ("cv", "robust", "isj") run in the frame of
    :func:`momkde_core._engine._scaling.selection_frame`, so data of any magnitude
    (1e-300 .. 1e300) select the bandwidth they would at magnitude 1, scaled.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import select_bandwidth
    >>> kernel = get_kernel("gaussian")
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(select_bandwidth(X, "scott", kernel), 2)
    0.33
    >>> select_bandwidth(X, 0.5, kernel)
    0.5
    >>> select_bandwidth(X, "silverman", kernel, per_feature=True).shape
    (1,)
    >>> h = select_bandwidth(X, "cv", kernel)
    >>> bool(0.05 < h < 1.0)
    True
    >>> h_tiny = select_bandwidth(X * 1e-200, "cv", kernel)
    >>> bool(np.isclose(h_tiny, h * 1e-200))
    True
    """
    d = X.shape[1]
    if not isinstance(bandwidth, str):
        H = check_numeric_bandwidth(bandwidth, d)
        if per_feature:
            return np.broadcast_to(H, (d,)).astype(float)
        if not np.all(H == H[0]):
            raise ValueError("a per-feature bandwidth needs per_feature=True")
        return float(H[0])
    rule = check_rule(bandwidth, d)
    if len(X) < 2:
        raise ValueError(
            f"bandwidth={bandwidth!r} needs at least 2 distinct points, got "
            f"{len(X)} row (n_samples = {len(X)}); pass a positive number "
            "instead"
        )
    if not per_column(np.ptp, X).any():  # (exactly: weighted variances can round to 1e-33)
        raise ValueError(
            f"bandwidth={bandwidth!r} needs at least 2 distinct points "
            "(the data have zero spread); pass a positive number instead"
        )
    if rule in ("scott", "silverman"):
        H = rule_of_thumb(X, rule, weights, per_feature)
    else:
        frame = selection_frame(X, rule_of_thumb(X, "scott", weights, per_feature))
        Z = frame.inner(X)
        if rule == "isj":
            h = isj(Z[:, 0], weights)
        elif rule == "robust":
            S = n_blocks_for(len(X), contamination) if n_blocks is None else n_blocks
            h = robust_bandwidth(Z, S, contamination, kernel, frame.h, random_state=random_state)
        else:
            h = (
                cv_bandwidth(Z, kernel, frame.h, weights)
                if n_folds is None
                else kfold_cv_bandwidth(Z, kernel, frame.h, n_folds, random_state, weights)
            )
        H = frame.outer_bandwidth(h)
    return np.broadcast_to(H, (d,)).astype(float) if per_feature else float(H[0])


def _names_a_rule(value, _) -> bool:
    return not isinstance(value, str) or value.lower() in RULES


def _positive_numbers(value, _) -> bool:
    """A positive finite number or a 1-D array of them (their count is checked with the
    data: :func:`check_numeric_bandwidth`)."""
    if isinstance(value, str):
        return True
    if is_bool(value):
        return False
    try:
        H = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return (
        H.dtype.kind in "iuf"
        and H.ndim <= 1
        and H.size > 0
        and bool(np.all(np.isfinite(H) & (H > 0)))
    )


#: The ``bandwidth`` parameter's constraints (the estimators' tables): a rule's name, or
#: positive finite numbers (one, or one per feature).
BANDWIDTH_CONSTRAINTS = (
    Rule(
        _names_a_rule,
        "unknown bandwidth rule {value!r}; allowed: a positive number or one of "
        + ", ".join(RULES),
    ),
    Rule(
        _positive_numbers,
        "bandwidth must be a positive finite number, an array of such numbers (one per "
        "feature) or one of " + ", ".join(RULES) + ", got {value!r}",
    ),
)


def check_rule(bandwidth: str, d: int) -> str:
    """The rule named by ``bandwidth`` (lower case) for data with d features (internal).

    Raises InvalidParameterError for an unknown name and ValueError for "isj" in d > 1.
    """
    BANDWIDTH_CONSTRAINTS[0].check(bandwidth, {})
    rule = bandwidth.lower()
    if rule == "isj" and d != 1:
        raise ValueError(
            f"bandwidth='isj' (Improved Sheather-Jones) is defined for 1-D "
            f"data only, got {d} features; use 'scott', "
            "'silverman', 'cv', 'robust' or a number in d > 1"
        )
    return rule


def check_numeric_bandwidth(bandwidth, d: int) -> np.ndarray:
    """A numeric ``bandwidth`` as an array of shape (1,) or (d,) (internal).

    ``bandwidth`` is a number, or an array of d numbers, one per feature;
    InvalidParameterError (a ValueError and a TypeError) unless every value is a positive
    finite number (booleans are not numbers here).
    """
    message = (
        f"bandwidth must be a positive finite number, an array of such numbers (one "
        f"per feature: {d}) or one of {', '.join(RULES)}, got {bandwidth!r}"
    )
    if isinstance(bandwidth, (bool, np.bool_)):
        raise InvalidParameterError(message)
    try:
        H = np.asarray(bandwidth)
    except (TypeError, ValueError):
        raise InvalidParameterError(message) from None
    if (
        H.dtype.kind not in "iuf"
        or H.ndim > 1
        or H.ndim == 1
        and len(H) not in (1, d)
        or H.size == 0
    ):
        raise InvalidParameterError(message)
    H = np.atleast_1d(H.astype(float))
    if not np.all(np.isfinite(H) & (H > 0)):
        raise InvalidParameterError(message)
    return H
