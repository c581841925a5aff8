"""Outlier detection with a density estimate, under scikit-learn's outlier-detector contract.

A row is abnormal where the estimated density is low. :class:`OutlierDetector` fits a clone
of any estimator with ``score_samples`` (KDE, MoMKDE, RKDE, SPKDE, scikit-learn's
KernelDensity), scores the training rows and puts the threshold ``offset_`` at their
``contamination`` quantile, as IsolationForest does: on the training data, the stated share
of rows is flagged. A robust estimate matters here because the threshold is learnt from the
contaminated sample itself: a KDE grows bumps on clustered outliers and ranks them as normal,
MoM-KDE does not (as long as they sit in fewer than half of its blocks). The default
detector fits ``MoMKDE(n_blocks=21, bandwidth="scott")`` and scores a row by the mean of its
21 block KDEs' log densities (:mod:`momkde_core._block_mean`); it needs no share of outliers
to rank the rows.

:func:`make_detector` maps the method names of ``momkde score`` and the app (the registry's
:data:`~momkde_core.methods.DETECTOR_METHODS`) to detectors, built by
:func:`~momkde_core.methods.build_estimator`, so that both use the same estimators with the
same settings.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from ._block_mean import block_log_mean
from ._explain import DEFAULT_PERMUTATIONS, MAX_AUTO_EXACT, explain_log_density, most_blamed
from ._rows import batched_scores, n_rows, take_rows
from ._validation import is_int, is_number
from .bandwidth import MAX_CONTAMINATION
from .estimators._base import _seeded_clone
from .methods import ALIASES, DEFAULT_DETECTOR, DETECTOR_METHODS, build_estimator

__all__ = [
    "DEFAULT_PERMUTATIONS",
    "MAX_AUTO_EXACT",
    "OutlierDetector",
    "make_detector",
    "most_blamed",
]

#: the threshold is set from the scores of at most this many training rows (drawn uniformly)
THRESHOLD_ROWS = 20_000
#: ``max_samples="auto"`` with the default estimator: it is fitted on at most this many
#: training rows, 128 for each of its 21 blocks (the option adopted by the rule fixed
#: beforehand in ``benchmarks/adbench_rules.py``: on ADBench it ranks as the full fit does,
#: docs/anomaly.md), so that its cost per scored row does not grow with the training size.
DEFAULT_MAX_SAMPLES: int | None = 21 * 128


class OutlierDetector(OutlierMixin, BaseEstimator):
    """Flag the ``contamination`` share of lowest-density rows, with any density estimator.

    A row is abnormal where the estimated density is low. The detector fits a clone of the
    estimator, scores the training rows and puts the threshold ``offset_`` at their
    ``contamination`` quantile, as IsolationForest does: on the training data, the stated
    share of rows is flagged. A robust estimate matters because the threshold is learnt from
    the contaminated sample itself: a KDE grows bumps on clustered outliers and ranks them
    as normal, MoM-KDE does not (as long as they sit in fewer than half of its blocks).

    Parameters
    ----------
    estimator : estimator with ``fit`` and ``score_samples``, or None, default None
        The density estimator (KDE, MoMKDE, RKDE, SPKDE, ScreenedKDE, scikit-learn's
        KernelDensity, ...); it is cloned before fitting (``estimator_`` is the fitted
        clone), so the object passed is never modified. None: ``MoMKDE(n_blocks=21,
        bandwidth="scott")`` (the registry's :data:`~momkde_core.methods.DEFAULT_DETECTOR`),
        21 block KDEs at Scott's per-feature bandwidth (one block per row on fewer than 21
        rows), a row scored by the mean of their log densities rather than by their median
        (``scoring_``); its ranking reads no share of outliers, so ``contamination`` only
        sets the threshold. It was chosen on ADBench's public outlier-detection benchmark
        among candidates fixed beforehand, in two rounds (docs/anomaly.md): on its 21
        development sets it has the best mean AUC-ROC of the usual label-free detectors
        (IsolationForest, ECOD, COPOD, HBOS, KNN, LOF), not the best mean average precision
        or average rank (HBOS's). The mean of
        the logs is pulled down by every block in which the row has no near neighbour, so
        a cluster of fewer than 21 rows lifts its own scores in about the share of blocks
        it sits in; for larger clusters of a known share, pass ``MoMKDE(n_blocks="auto",
        contamination=share)`` (``make_detector("mom_kde")``), whose median outvotes them.
        If the clone has a ``normalize`` parameter (MoMKDE), it is set to False: dividing
        by the integral changes every score by the same constant, so no ranking and no
        flag, and computing that integral is costly in higher dimensions.
    contamination : float in (0, 0.5], default 0.1
        The expected share of outliers: the threshold is the ``contamination`` quantile of
        the training scores (``np.percentile(scores, 100 * contamination)``, as
        IsolationForest), so this share of the training rows is flagged, up to ties.
    random_state : int, RandomState or None, default None
        Seeds the estimator it clones (IsolationForest's convention): the default MoM-KDE's
        blocks; for an ``estimator`` given, its ``random_state`` parameter when it has one
        and this is not None (None leaves that estimator's own seed as it is). A fixed value
        makes refits give the same scores.
    max_samples : "auto", int, float or None, default "auto"
        The training rows the estimator is fitted on, drawn uniformly without replacement
        (seeded by ``random_state``), as IsolationForest's ``max_samples``: an int, at most
        that many; a float in (0, 1], that share of the rows; None, every row. "auto": at
        most :data:`DEFAULT_MAX_SAMPLES` (2,688) for the default estimator, whose cost per
        scored row then stays the same for any training size, and every row for an
        estimator given. The threshold is set from the scores of the training rows (see
        Notes), whichever were fitted.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator``.
    offset_ : float
        The threshold on ``score_samples`` (the ``contamination`` quantile of the training
        rows' scores; see Notes); ``decision_function`` subtracts it. -inf when
        more than the ``contamination`` share of training rows has zero density (possible
        with kernels of bounded support): rows at -inf are then ties at the threshold, not
        flagged.
    scoring_ : {"block_log_mean", "estimator"}
        What ``score_samples`` is: for the default estimator, the mean over its blocks of
        the block KDEs' log densities; for an estimator given, its own ``score_samples``.
    n_features_in_ : int
        The number of features seen in ``fit`` (the fitted estimator's).

    See Also
    --------
    make_detector : the detectors of ``momkde score`` and the app, by name.
    momkde_core.MoMKDE : the default estimator.
    sklearn.ensemble.IsolationForest : the same contract and threshold convention.

    Notes
    -----
    The training rows, and the rows of later calls, are scored in batches that keep
    ``n_blocks_`` (MoM-KDE's S; 1 for the others) x rows within 2**22 values (32 MB of
    float64), so that MoM-KDE's S block values per row never fill the memory.

    With more than :data:`THRESHOLD_ROWS` (20,000) training rows, ``offset_`` is the
    ``contamination`` quantile of the scores of that many training rows drawn uniformly at
    random (seeded by ``random_state``), so that a fit costs what scoring 20,000 rows costs
    whatever n is. The share of training rows flagged is then the contamination up to the
    sampling error of that quantile: a standard deviation of sqrt(c (1 - c) / 20000), 0.2 %
    at c = 0.1.

    Examples
    --------
    The outliers of the thin Gaussian scheme form a tight cluster between the inliers'
    modes:

    >>> from momkde_core import KDE, OutlierDetector, make_contaminated
    >>> data = make_contaminated("thin_gaussian", n_inliers=300, ratio=0.1, random_state=0)
    >>> detector = OutlierDetector(contamination=0.1, random_state=0).fit(data.X)
    >>> labels = detector.predict(data.X)  # -1: outlier
    >>> int((labels == -1).sum()), data.n_outliers  # the stated share of the 333 rows
    (34, 33)
    >>> bool((labels[data.is_outlier] == -1).all())  # the default flags the whole cluster
    True

    A KDE with a cross-validated bandwidth grows a bump on the cluster and flags none of it:

    >>> kde = OutlierDetector(KDE(bandwidth="cv"), contamination=0.1, random_state=0)
    >>> int((kde.fit(data.X).predict(data.X)[data.is_outlier] == -1).sum())
    0
    """

    _parameter_constraints: dict = {  # (scikit-learn's constraints, checked in fit)
        "estimator": [HasMethods(["fit", "score_samples"]), None],
        "contamination": [Interval(Real, 0.0, MAX_CONTAMINATION, closed="right")],
        "random_state": ["random_state"],
        "max_samples": "no_validation",  # (resolved with the rows at hand: _fit_rows)
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        contamination: float = 0.1,
        random_state: int | np.random.RandomState | None = None,
        max_samples: int | float | str | None = "auto",
    ):
        self.estimator = estimator
        self.contamination = contamination
        self.random_state = random_state
        self.max_samples = max_samples

    def fit(self, X: ArrayLike, y: object = None) -> OutlierDetector:
        """Fit a clone of the estimator on X and set the threshold from its scores of X.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) where the estimator accepts it
            The training rows, outliers included.
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        self : OutlierDetector
            The fitted detector.

        Raises
        ------
        ValueError
            A parameter outside its declared constraints (``_parameter_constraints``:
            ``contamination`` outside (0, 0.5], an ``estimator`` without ``fit`` and
            ``score_samples``; scikit-learn's InvalidParameterError, also a TypeError); the
            estimator's score of a training row is NaN (no threshold can be set); and
            whatever the estimator's ``fit`` raises for X.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import OutlierDetector, make_contaminated
        >>> data = make_contaminated("uniform", n_inliers=200, ratio=0.1, random_state=0)
        >>> detector = OutlierDetector(contamination=0.1, random_state=0).fit(data.X)
        >>> type(detector.estimator_).__name__, detector.estimator_.normalize
        ('MoMKDE', False)
        >>> bool(np.isfinite(detector.offset_)), detector.n_features_in_
        (True, 1)
        """
        self._validate_params()
        n = n_rows(X)
        fit_rows = _fit_rows(self.max_samples, n, self.estimator is None)
        X_fit = X
        if fit_rows < n:  # a uniform sample of the training rows, seeded by random_state
            chosen = check_random_state(self.random_state).choice(n, fit_rows, replace=False)
            X_fit = take_rows(X, np.sort(chosen))
        if self.estimator is None:
            estimator = build_estimator(
                DEFAULT_DETECTOR, contamination=self.contamination, random_state=self.random_state
            )
            if 0 < fit_rows < estimator.n_blocks:  # (a block per row: a median of kernels)
                estimator.set_params(n_blocks=fit_rows)
        else:
            estimator = _seeded_clone(self.estimator, self.random_state)
        if "normalize" in estimator.get_params(deep=False):
            estimator.set_params(normalize=False)
        estimator.fit(X_fit)
        score = block_log_mean if self.estimator is None else None
        if n > THRESHOLD_ROWS:  # the quantile of a uniform sample of the training rows
            rows = check_random_state(self.random_state).choice(n, THRESHOLD_ROWS, replace=False)
            scores = batched_scores(estimator, take_rows(X, np.sort(rows)), score)
        else:
            scores = batched_scores(estimator, X, score)
        if np.isnan(scores).any():
            raise ValueError(
                f"{type(estimator).__name__}.score_samples gave NaN for "
                f"{int(np.isnan(scores).sum())} training row(s): no threshold "
                "can be set"
            )
        self.estimator_ = estimator
        self.scoring_ = "block_log_mean" if score is not None else "estimator"
        self.offset_ = _lower_quantile(scores, self.contamination)
        return self

    @property
    def n_features_in_(self) -> int:
        """The number of features seen in ``fit`` (the fitted estimator's)."""
        return self.estimator_.n_features_in_

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        """The log density at X (for the default, the mean of its block KDEs' log
        densities): the lower, the more abnormal.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) where the estimator accepts it
            The rows to score, with the features of the fit.

        Returns
        -------
        scores : ndarray of shape (n,)
            The fitted estimator's log density (up to a constant where it is not divided by
            its integral, as MoM-KDE here); for the default, the mean over its 21 blocks of
            their log densities (``scoring_``).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.

        See Also
        --------
        decision_function : the scores minus the threshold.

        Examples
        --------
        >>> from momkde_core import OutlierDetector, make_contaminated
        >>> data = make_contaminated("uniform", n_inliers=200, ratio=0.1, random_state=0)
        >>> detector = OutlierDetector(random_state=0).fit(data.X)
        >>> detector.score_samples(data.X[:5]).shape
        (5,)
        """
        check_is_fitted(self)
        default = self.scoring_ == "block_log_mean"
        return batched_scores(self.estimator_, X, block_log_mean if default else None)

    def explain(
        self,
        X: ArrayLike,
        *,
        method: str = "auto",
        n_permutations: int = DEFAULT_PERMUTATIONS,
        random_state: int | np.random.RandomState | None = None,
    ) -> np.ndarray:
        """Each feature's share of each row's abnormality, in nats: which features to blame.

        A row's abnormality is -log f(x), minus its :meth:`score_samples`. It is split
        among the features by their Shapley values in the game v(S) = -log f_S(x), f_S the
        fitted estimate's marginal density over the features in S (v of no feature: 0).
        A feature's contribution is how much v grows, on average, when it joins the other
        features, over every order in which they can join; so **the contributions of a
        row sum to its abnormality -log f(x)** (to round-off), the largest is the feature
        most to blame, and a negative one makes the row more typical. A contribution of
        c nats means that the feature divides the density by about e^c.

        The marginals come from the fitted estimate, not from refits: with the Gaussian
        kernel (a product of one factor per feature) a block KDE's marginal over S keeps
        the same rows and drops the other features' factors. For the default, whose score
        is the mean of its blocks' log densities, v(S) = -mean_b log f_{b,S}(x) over its
        blocks b, the blocks' marginals combined the same way (its Shapley values are the
        mean of the blocks'). For a MoM-KDE given, f_S is the median over the blocks of the block
        KDEs' marginals: what the median estimate restricted to S means here. KDE,
        RKDE, SPKDE and ScreenedKDE are (weighted) KDEs of one block, explained the same
        way. A categorical column of a mixed table is one feature like any other, its factor
        the discrete kernel (summing to 1 over the levels; an ordered column's, over all
        integers): a row with an impossible pair of levels blames both columns.

        Parameters
        ----------
        X : array-like of shape (n, d)
            The rows to explain, with the features of the fit (in the fit's units).
        method : {"auto", "exact", "permutation"}, default "auto"
            "exact": the Shapley values from all 2^d subsets (up to 16 features);
            "permutation": their estimate from ``n_permutations`` orders of the features
            drawn at random (each with its reverse), unbiased and still summing to -log
            f(x) exactly; "auto": exact up to 10 features, sampled above. At d = 10 and
            the default 256 orders, the sampled values' mean absolute error was 0.8 % of
            the mean absolute contribution on flagged rows (0.07 nats of 9.4;
            docs/guide/outlier-detection.md).
        n_permutations : int, default 256
            The orders sampled by the "permutation" method; its error falls as one over
            the square root of this.
        random_state : int, RandomState or None, default None
            Seeds the orders sampled (a fixed value gives the same values on every call).

        Returns
        -------
        contributions : ndarray of shape (n, d)
            Row i, column j: feature j's contribution to row i's abnormality, in nats. A
            row of density 0 (beyond every kernel's reach) has +inf on the features out
            of reach and NaN on the others: no finite split exists.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            An estimator that is not one of momkde's kernel estimators (such as
            scikit-learn's KernelDensity), a kernel other than the Gaussian (its marginals
            are not the blocks with factors dropped), ``method="exact"`` above 16
            features, a bad ``method`` or ``n_permutations``, or X unlike the fit's rows.

        See Also
        --------
        score_samples : minus the abnormality that the contributions split.

        Notes
        -----
        What it cannot tell: a row abnormal only through many weak features gets many
        small contributions, none clearly to blame; and clustered outliers that the
        estimate has learnt as normal (in more than half of a MoM-KDE's blocks; for the
        default, in a large share of its blocks) are not abnormal to it, so their
        contributions say little. The values are in the
        detector's units: a feature rescaled by a factor a (its bandwidth with it, as
        Scott's rule does) shifts its contributions by log a.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import OutlierDetector
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((500, 3))
        >>> detector = OutlierDetector(random_state=0).fit(X)
        >>> rows = [[0.0, 0.0, 0.0], [0.0, 5.0, 0.0]]  # a typical row, feature 1 shifted
        >>> blame = detector.explain(rows)
        >>> blame.shape, int(np.argmax(blame[1]))
        ((2, 3), 1)
        >>> bool(np.allclose(blame.sum(axis=1), -detector.score_samples(rows)))
        True
        """
        check_is_fitted(self)
        return explain_log_density(
            self.estimator_,
            X,
            combine="mean_log" if self.scoring_ == "block_log_mean" else "median",
            method=method,
            n_permutations=n_permutations,
            random_state=random_state,
        )

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """``score_samples(X) - offset_``: negative for outliers, 0 on the threshold.

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) where the estimator accepts it
            The rows to score, with the features of the fit.

        Returns
        -------
        decision : ndarray of shape (n,)
            The score minus the threshold. Rows at the threshold give 0, also when both are
            -inf (zero density).

        See Also
        --------
        predict : the sign of this, as labels.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import OutlierDetector, make_contaminated
        >>> data = make_contaminated("uniform", n_inliers=200, ratio=0.1, random_state=0)
        >>> detector = OutlierDetector(contamination=0.1, random_state=0).fit(data.X)
        >>> decision = detector.decision_function(data.X)
        >>> decision.shape
        (222,)
        >>> bool(np.array_equal(decision < 0, detector.predict(data.X) == -1))
        True
        """
        scores = self.score_samples(X)
        with np.errstate(invalid="ignore"):
            return np.where(scores == self.offset_, 0.0, scores - self.offset_)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """+1 for inliers, -1 for outliers (rows whose ``decision_function`` is negative).

        Parameters
        ----------
        X : array-like of shape (n, d), or (n,) where the estimator accepts it
            The rows to label, with the features of the fit.

        Returns
        -------
        labels : ndarray of shape (n,)
            -1 for the rows whose ``decision_function`` is negative, +1 for the others.

        See Also
        --------
        decision_function : the signed distance to the threshold.

        Examples
        --------
        >>> from momkde_core import OutlierDetector, make_contaminated
        >>> data = make_contaminated("uniform", n_inliers=200, ratio=0.1, random_state=0)
        >>> detector = OutlierDetector(contamination=0.1, random_state=0).fit(data.X)
        >>> sorted(set(detector.predict(data.X).tolist()))
        [-1, 1]
        >>> detector.predict([[-1000.0], [0.0]]).tolist()  # far away, then on a mode
        [-1, 1]
        """
        return np.where(self.decision_function(X) < 0, -1, 1)


def make_detector(
    method: str = DEFAULT_DETECTOR,
    contamination: float = 0.1,
    random_state: int | np.random.RandomState | None = None,
) -> OutlierDetector:
    """The unfitted detector behind a method name of ``momkde score`` and the app.

    Both use this function, so a method name means the same estimator with the same settings
    in each.

    Parameters
    ----------
    method : {"mom_kde_21", "kde", "mom_kde", "rkde", "spkde", "screened_kde"}, \
default "mom_kde_21"
        One of :data:`~momkde_core.methods.DETECTOR_METHODS` (a former name of
        :data:`~momkde_core.methods.ALIASES` means the method that replaced it, as
        ``momkde score --method`` reads it); the estimator is the registry's
        (:func:`~momkde_core.methods.build_estimator`). ``mom_kde_21``:
        ``OutlierDetector()`` itself, whose estimator is MoMKDE(n_blocks=21,
        bandwidth="scott") (one block per row on fewer than 21 rows), scored by the mean of
        its blocks' log densities;
        ``mom_kde``:
        MoMKDE(n_blocks="auto", contamination) (S and h from the stated share); ``kde`` and
        ``rkde``: the KDE and RKDE with the cross-validated bandwidth; ``spkde``: SPKDE with
        the cross-validated bandwidth, told the share; ``screened_kde``:
        ScreenedKDE(contamination) (MoM-KDE's screen, then the cross-validated KDE of the
        rows kept).
    contamination : float in (0, 0.5], default 0.1
        The expected share of outliers: the detector's threshold (and what ``mom_kde``,
        ``spkde`` and ``screened_kde`` are told). ``mom_kde`` and ``screened_kde`` need it in
        (0, 0.5).
    random_state : int, RandomState or None, default None
        Seeds the blocks and folds.

    Returns
    -------
    detector : OutlierDetector
        Unfitted, its ``estimator`` set for ``method``.

    Raises
    ------
    ValueError
        Before any work: an unknown method, or a contamination outside (0, 0.5]
        (mom_kde and screened_kde: (0, 0.5)).

    See Also
    --------
    OutlierDetector : the detector returned.

    Examples
    --------
    >>> from momkde_core import make_detector
    >>> detector = make_detector("mom_kde", contamination=0.1, random_state=0)
    >>> type(detector.estimator).__name__, detector.contamination
    ('MoMKDE', 0.1)
    >>> make_detector("rkde").estimator.bandwidth
    'cv'
    >>> make_detector("mom_kde_auto").estimator.n_blocks  # mom_kde's former name
    'auto'
    >>> make_detector().estimator is None  # OutlierDetector()'s own default estimator
    True
    >>> make_detector("lof")
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'lof'; allowed: mom_kde_21, kde, mom_kde, rkde, spkde, screened_kde
    """
    method = ALIASES.get(method, method)  # a former name means the method that replaced it
    if method not in DETECTOR_METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(DETECTOR_METHODS)}")
    OutlierDetector(contamination=contamination)._validate_params()  # before any work
    if method == DEFAULT_DETECTOR:  # OutlierDetector's own default (a block per row on few rows)
        return OutlierDetector(contamination=contamination, random_state=random_state)
    estimator = build_estimator(method, contamination=contamination, random_state=random_state)
    return OutlierDetector(estimator, contamination=contamination)


def _fit_rows(max_samples, n: int, default_estimator: bool) -> int:
    """The number of training rows the estimator is fitted on (``max_samples`` resolved);
    ValueError for a value that is none of "auto", None, an integer >= 1 or a float in
    (0, 1]."""
    if isinstance(max_samples, str) and max_samples == "auto":
        cap = DEFAULT_MAX_SAMPLES if default_estimator else None
    elif max_samples is None:
        cap = None
    elif is_int(max_samples):
        if max_samples < 1:
            raise ValueError(f"max_samples must be at least 1, got {max_samples!r}")
        cap = int(max_samples)
    elif is_number(max_samples):
        if not 0.0 < max_samples <= 1.0:
            raise ValueError(f"a float max_samples must be in (0, 1], got {max_samples!r}")
        cap = max(1, int(max_samples * n))
    else:
        raise ValueError(
            f"max_samples must be 'auto', None, an integer >= 1 or a float in (0, 1], "
            f"got {max_samples!r}"
        )
    return n if cap is None else min(n, cap)


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
