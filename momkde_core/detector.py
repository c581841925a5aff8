"""Outlier detection with a density estimate, under scikit-learn's outlier-detector contract.

A row is abnormal where the estimated density is low. :class:`OutlierDetector` fits a clone
of any estimator with ``score_samples`` (KDE, MoMKDE, RKDE, SPKDE, scikit-learn's
KernelDensity), scores the training rows and puts the threshold ``offset_`` at their
``contamination`` quantile, as IsolationForest does: on the training data, the stated share
of rows is flagged. A robust estimate matters here because the threshold is learnt from the
contaminated sample itself: a KDE grows bumps on clustered outliers and ranks them as normal,
MoM-KDE does not (as long as they sit in fewer than half of its blocks).

:func:`make_detector` maps the method names of ``momkde score`` and the app to detectors, so
that both use the same estimators with the same settings.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, check_is_fitted

from .bandwidth._robust import MAX_CONTAMINATION
from .estimators import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE
from .estimators._base import _seeded_clone

#: Method names of ``momkde score`` and the app, in the order they are listed.
METHODS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde", "screened_kde")
#: Rows x blocks scored per call: MoM-KDE holds its S block values for every row it scores
#: (S = 4001 and 20 000 rows: 640 MB of float64 at once; in batches, 32 MB whatever the rows).
BATCH_VALUES = 2**22


class OutlierDetector(OutlierMixin, BaseEstimator):
    """Flag the ``contamination`` share of lowest-density rows, with any density estimator.

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``score_samples``, or None
        The density estimator; it is cloned before fitting (``estimator_`` is the fitted
        clone), so the object passed is never modified. None: ``MoMKDE(n_blocks="auto",
        contamination=contamination)``, the robust defaults for the share of outliers stated
        here (it needs a share below 0.5). If the clone has a ``normalize`` parameter
        (MoMKDE), it is set to False: dividing by the integral changes every score by the
        same constant, so no ranking and no flag, and costs hundreds of milliseconds in
        higher dimensions (0.16-0.36 s measured in d = 30, n = 1000, S = 21).
        ``score_samples`` is then MoM-KDE's log density up to that constant.
    contamination : float in (0, 0.5], default 0.1
        The expected share of outliers: the threshold is the ``contamination`` quantile of
        the training scores (``np.percentile(scores, 100 * contamination)``, as
        IsolationForest), so this share of the training rows is flagged, up to ties.
    random_state : int, RandomState or None, default None
        Seeds the estimator it clones (IsolationForest's convention): the default MoM-KDE's
        blocks; for an ``estimator`` given, its ``random_state`` parameter when it has one
        and this is not None (None leaves that estimator's own seed as it is). A fixed value
        makes refits give the same scores.

    Attributes
    ----------
    estimator_ : the fitted clone of ``estimator``.
    offset_ : float, the threshold on ``score_samples``; ``decision_function`` subtracts it.
        -inf when more than the ``contamination`` share of training rows has zero density
        (possible with kernels of bounded support): rows at -inf are then ties at the
        threshold, not flagged.
    n_features_in_ : int, the number of features seen in ``fit`` (the fitted estimator's).
    """

    def __init__(self, estimator=None, contamination: float = 0.1, random_state=None):
        self.estimator = estimator
        self.contamination = contamination
        self.random_state = random_state

    def fit(self, X, y=None) -> OutlierDetector:
        """Fit a clone of the estimator on X (shape (n, d), or (n,) where the estimator
        accepts it) and set the threshold from its scores of X. ``y`` is ignored."""
        _check_contamination(self.contamination)
        if self.estimator is None:
            estimator = _mom_kde(self.contamination, self.random_state)
        elif not callable(getattr(self.estimator, "score_samples", None)):
            raise TypeError(
                f"estimator must have a score_samples method (a density estimator "
                f"such as KDE, MoMKDE or sklearn's KernelDensity); "
                f"{type(self.estimator).__name__} has none"
            )
        else:
            estimator = _seeded_clone(self.estimator, self.random_state)
        if "normalize" in estimator.get_params(deep=False):
            estimator.set_params(normalize=False)
        estimator.fit(X)
        scores = _batched_scores(estimator, X)
        if np.isnan(scores).any():
            raise ValueError(
                f"{type(estimator).__name__}.score_samples gave NaN for "
                f"{int(np.isnan(scores).sum())} training row(s): no threshold "
                "can be set"
            )
        self.estimator_ = estimator
        self.offset_ = _lower_quantile(scores, self.contamination)
        return self

    @property
    def n_features_in_(self) -> int:
        """The number of features seen in ``fit`` (the fitted estimator's)."""
        return self.estimator_.n_features_in_

    def score_samples(self, X) -> np.ndarray:
        """The fitted estimator's log density at X, shape (n,): the lower, the more abnormal."""
        check_is_fitted(self)
        return _batched_scores(self.estimator_, X)

    def decision_function(self, X) -> np.ndarray:
        """``score_samples(X) - offset_``: negative for outliers, 0 on the threshold.

        Rows at the threshold give 0, also when both are -inf (zero density)."""
        scores = self.score_samples(X)
        with np.errstate(invalid="ignore"):
            return np.where(scores == self.offset_, 0.0, scores - self.offset_)

    def predict(self, X) -> np.ndarray:
        """+1 for inliers, -1 for outliers (rows whose ``decision_function`` is negative)."""
        return np.where(self.decision_function(X) < 0, -1, 1)


def make_detector(
    method: str, contamination: float = 0.1, random_state: int | np.random.RandomState | None = None
) -> OutlierDetector:
    """The unfitted detector behind a method name of ``momkde score`` and the app.

    ``mom_kde``: MoMKDE(n_blocks="auto", contamination) (S and h from the stated share);
    ``kde`` and ``rkde``: the KDE and RKDE with the cross-validated bandwidth; ``spkde``:
    SPKDE with the cross-validated bandwidth, told the share; ``screened_kde``:
    ScreenedKDE(contamination) (MoM-KDE's screen, then the cross-validated KDE of the rows
    kept). ``random_state`` seeds the blocks and folds. Raises ValueError, before any work,
    for an unknown method or a contamination outside (0, 0.5] (mom_kde and screened_kde:
    (0, 0.5)).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(METHODS)}")
    _check_contamination(contamination)
    estimator = {
        "kde": lambda: KDE(bandwidth="cv", random_state=random_state),
        "mom_kde": lambda: _mom_kde(contamination, random_state),
        "rkde": lambda: RKDE(bandwidth="cv", random_state=random_state),
        "spkde": lambda: SPKDE(
            bandwidth="cv", contamination=contamination, random_state=random_state
        ),
        "screened_kde": lambda: ScreenedKDE(
            contamination=_below_half(contamination), random_state=random_state
        ),
    }[method]()
    return OutlierDetector(estimator, contamination=contamination)


def _mom_kde(contamination: float, random_state=None) -> MoMKDE:
    """MoMKDE with the robust defaults for ``contamination``; ValueError from 0.5 on."""
    return MoMKDE(
        n_blocks="auto", contamination=_below_half(contamination), random_state=random_state
    )


def _below_half(contamination: float) -> float:
    """``contamination``, or ValueError from 0.5 on (what a median screen needs)."""
    if not contamination < MAX_CONTAMINATION:
        raise ValueError(
            f"MoM-KDE needs a contamination below {MAX_CONTAMINATION} (at one half "
            "no median can tell the outliers from the inliers), got "
            f"{contamination!r}; state a smaller share or wrap another estimator"
        )
    return contamination


def _check_contamination(contamination) -> None:
    """ValueError, worded as scikit-learn's for IsolationForest, unless in (0, 0.5]."""
    ok = (
        isinstance(contamination, Real)
        and not isinstance(contamination, bool)
        and 0.0 < contamination <= MAX_CONTAMINATION
    )
    if not ok:
        raise ValueError(
            "The 'contamination' parameter of OutlierDetector must be a float in "
            f"the range (0.0, 0.5]. Got {contamination!r} instead."
        )


def _batched_scores(estimator, X) -> np.ndarray:
    """``estimator.score_samples(X)`` as floats, computed in batches of rows that keep
    ``n_blocks_`` (MoM-KDE's S; 1 for the others) x rows within :data:`BATCH_VALUES`."""
    n = _num_samples(X)
    step = max(1, BATCH_VALUES // int(getattr(estimator, "n_blocks_", 1)))
    if n <= step:
        return np.asarray(estimator.score_samples(X), dtype=float)
    return np.concatenate(
        [
            np.asarray(
                estimator.score_samples(_safe_indexing(X, slice(lo, min(n, lo + step)))),
                dtype=float,
            )
            for lo in range(0, n, step)
        ]
    )


def _lower_quantile(scores: np.ndarray, share: float) -> float:
    """The ``share`` quantile of the scores (numpy's linear interpolation), with -inf allowed.

    Between a -inf and a finite score numpy's interpolation gives NaN or -inf (depending on
    the position): the quantile is then the finite neighbour, so that every -inf score is
    below it; it is -inf only when both neighbours are.
    """
    with np.errstate(invalid="ignore"):
        q = np.percentile(scores, 100.0 * share)
    if np.isnan(q) or np.isneginf(q):
        q = np.percentile(scores, 100.0 * share, method="higher")
    return float(q)
