"""Screen, then refit: a robust density from MoM-KDE used as a detector.

MoM-KDE's median ignores what fewer than half of its blocks hold, which makes it an excellent
*detector* of outliers (its lowest scores are the outlying rows), but as a *density* it pays
for its small blocks with a large bandwidth. :class:`ScreenedKDE` uses each for what it does
well: a screen (by default MoM-KDE at the stated share of outliers) says which rows to set
aside, and a plain KDE with its own bandwidth rule (by default cross-validation) is fitted on
the rows kept. The result is a KDE, with every property of one (exact sampling, the fast grid
path, a bandwidth chosen for the inliers' own structure).

The cut rules (``cut``: "calibrated", "ratio", "share") are described in the Notes of
:class:`ScreenedKDE`; the constants below set the calibrated cut's null samples.

The design study that chose the default, and what it measured against KDE-cv, MoM-KDE, RKDE,
SPKDE, scikit-learn's KernelDensity and KDEpy's ISJ on settings written before any result was
seen, is in ``docs/robust_density.md``.
"""

from __future__ import annotations

import contextlib
import warnings
import zlib

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from .._validation import Rule, is_number
from ..bandwidth._robust import CONTAMINATION
from ..bandwidth._rules import check_numeric_bandwidth, check_rule
from ..kernels import get_kernel
from ._base import _seeded_clone
from ._checks import _base_measure, _validate_data
from ._kde import KDE
from ._mixed import MIXED_CONSTRAINTS, read_mixed, table_of
from ._mom_kde import MoMKDE

#: The cut rules of :class:`ScreenedKDE`.
CUTS: tuple[str, ...] = ("calibrated", "ratio", "share")
#: ``cut="calibrated"``: the null samples drawn per pass.
NULL_SAMPLES = 2
#: ``cut="calibrated"``: a null sample has at most this many rows when the screen has
#: ``n_blocks`` (MoMKDE): its twin keeps the screen's block size with proportionally fewer
#: blocks...
NULL_ROWS = 2000
#: ...but at least this many blocks (a median of fewer blocks is a noisier twin)
NULL_MIN_BLOCKS = 25
#: ``cut="calibrated"``: the null rows of nearest screen density a row's excess is compared with.
NULL_NEIGHBOURS = 50
#: ``cut="calibrated"``: the least excess (log) a row is set aside for.
MIN_EXCESS = float(np.log(2.0))
#: ``cut="calibrated"``, second pass of the first screen: a row whose screen density is below
#: every null row's (beyond the null's range, where clean data's most extreme rows lie too) is
#: set aside only when its excess beats the null's lowest levels' this much more (log)
BEYOND_RANGE_EXCESS = float(np.log(1e8))
#: ``cut="calibrated"``: a screen whose median keeps less than this share of its blocks' mass
#: is not drawn from (rejection would keep fewer than ~1 in 40 candidates); the ratio cut
#: makes the first pass instead.
MIN_SAMPLED_MASS = 0.05
#: ``cut="calibrated"``, default screen: a second screen sized for this many times the stated
#: share (at most ``WIDE_MAX``: blocks of 2 rows) adds the bumps it finds (Notes)
WIDE_FACTOR = 2.0
WIDE_MAX = 0.25
#: ...in rows above this quantile of the pilot's density (not the sparsest rows of the tails)
WIDE_SPARSE = 0.1


class ScreenedKDE(KDE):
    """A KDE fitted on the rows a robust screen keeps (MoM-KDE by default).

    MoM-KDE's median is an excellent detector of outliers but, as a density, pays for its
    small blocks with a large bandwidth. ScreenedKDE uses each for what it does well: the
    screen says which rows to set aside (``cut``), and a plain KDE with its own bandwidth
    rule (by default cross-validation) is fitted on the rows kept. The result is a KDE, with
    every property of one (exact sampling, the fast grid path, a bandwidth chosen for the
    inliers' own structure).

    Parameters
    ----------
    contamination : float in [0, 0.5) or "auto", default 0.1
        The expected share of outliers; state an upper bound (a share understated is the
        screen's blind spot, one overstated costs clean data some of their most extreme rows:
        Notes).
        It sizes the default screen (MoM-KDE with S = 2
        ceil(contamination n) + 1 blocks and its robust bandwidth) and, with
        ``cut="share"``, is the share set aside. "auto" (default screen only): the screen
        estimates it (``MoMKDE(contamination="auto")``, which counts minor modes and tails
        as contamination: ~0.15 on a clean normal sample of 1000). 0: nothing is set aside
        (the plain KDE).
    bandwidth : float, array of d floats or {"cv", "scott", "silverman", "robust", "isj"}, \
default "cv"
        The final KDE's bandwidth rule, applied to the rows kept (and the pilot's, for
        ``cut="ratio"``, applied to all rows).
    kernel : str, default "gaussian"
        The final KDE's kernel (and the default screen's).
    screen : density estimator or None, default None
        Any estimator with ``fit`` and ``score_samples`` (a log density); it is cloned.
        None: ``MoMKDE(contamination=contamination, kernel=kernel, random_state=random_state)``.
        ``cut="calibrated"`` and ``"ratio"`` compare its log density with the pilot KDE's, so
        it must be normalised (MoMKDE's default ``normalize=True``); ``"calibrated"`` also
        draws from it (``sample``) and refits a clone of it (with its fitted ``n_blocks_``,
        ``bandwidth_`` and ``contamination_`` where it has them) on the draws.
    cut : {"calibrated", "ratio", "share"}, default "calibrated"
        How the screen's scores set rows aside (Notes).
    ratio : float > 1, default 10.0
        ``cut="ratio"``: a row is set aside where the pilot KDE exceeds the screen this many
        times (also the first pass of ``"calibrated"`` when the screen cannot be drawn from).
    categorical_features : "from_dtype", None, or list of str, int or bool, \
default "from_dtype"
        Which columns are categorical, as for :class:`KDE` (DataFrame dtypes, or names,
        indices or a mask): the screen, the pilot and the final KDE read them alike.
    categorical_bandwidth : {"cv", "rule"}, float or array of floats, default "cv"
        The categorical columns' bandwidths, as for :class:`KDE`: the screen, the pilot
        and the final KDE choose theirs alike.
    random_state : int, RandomState or None, default None
        The screen's blocks and the calibrated cut's null samples ("cv" draws nothing); a
        ``screen`` of your own gets it when it has a ``random_state`` parameter and this is
        not None (as OutlierDetector does). None: a seed drawn from the rows and their
        weights (a checksum), so that two fits of the same rows in the same order set aside
        the same rows (a ``screen`` of your own then keeps its own ``random_state``). Which
        rows a cluster near the screen's limit loses can still depend on the seed: compare
        a few seeds where it matters (docs/robust_density.md).

    Attributes
    ----------
    inlier_mask_ : ndarray of bool, shape (n,)
        The training rows the final KDE was fitted on (False for rows set aside, and for
        rows of ``sample_weight`` 0).
    screen_ : estimator or None
        The fitted screen; None when nothing was screened (contamination 0, or fewer than 3
        rows).
    contamination_ : float
        The share used (the screen's estimate for "auto").
    bandwidth_ : float or ndarray of shape (d,)
        The final KDE's bandwidth (per feature where they differ).
    log_norm_ : float
        0.0: the final KDE integrates to 1.
    categorical_bandwidth_, is_categorical_, categories_
        With categorical columns: the final KDE's, as for :class:`KDE`.
    n_features_in_ : int
        As for :class:`~momkde_core.KDE`: the number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (d,)
        As for :class:`~momkde_core.KDE`: the column names of a DataFrame fit.

    Raises
    ------
    TypeError
        At fit: a ``screen`` without ``score_samples``, or without ``sample`` for
        ``cut="calibrated"`` (use ``cut="ratio"``).
    ValueError
        At fit: ``contamination="auto"`` with a ``screen`` of your own (state a number).
    momkde_core.InvalidParameterError
        At fit: an unknown ``cut``, a ``ratio`` that is not a finite number above 1, or a
        ``contamination`` outside [0, 0.5).

    Warns
    -----
    UserWarning
        When the screen's median holds less than half of its blocks' mass: its blocks are
        too small to tell a cluster of outliers from sparse inliers, so rows of the inliers'
        tails may be set aside; state a smaller contamination.

    See Also
    --------
    MoMKDE : the default screen, a robust density by itself.
    KDE : the final estimate.
    momkde_core.OutlierDetector : flags the lowest-density rows.

    Notes
    -----
    **Cut rules.** All rules but ``"share"`` compare, at each row, a pilot KDE of all rows
    (the final rule's bandwidth) with the screen: the excess
    ``e_i = log f_pilot(x_i) - log f_screen(x_i)`` is the "bump" an outlier grows on a KDE
    and that the median does not follow.

    - ``"calibrated"`` (default): set aside the rows whose excess is larger than the
      screen's own blocks produce where there are no outliers. A null sample of n rows is
      drawn from a density without the suspects (above ``NULL_ROWS`` (2,000) rows, a
      MoM-KDE screen's null has that many rows, or ``NULL_MIN_BLOCKS`` (25) of its blocks
      if they hold more, in proportionally fewer blocks: the block size, which sets what the
      median ignores, is the screen's); the screen (MoM-KDE: with its fitted S and h) and
      the pilot (its fitted h) are refitted on it, and a row is set aside when its
      excess exceeds the largest null excess among the ``NULL_NEIGHBOURS`` (50) null rows
      of nearest screen density (and ``log 2``). Small blocks give a large excess in sparse
      regions even on clean data (the median of a few kernels there is ~0); matching by the
      screen's density compares a tail row with tail rows and a row inside the inliers'
      mass with rows there, where a cluster's excess of a few-fold stands out. Two passes:
      the null is first drawn from the screen (which ignores what a minority of its blocks
      hold), then from the KDE of the rows the first pass kept (which has the inliers' own
      structure at the pilot's resolution). ``NULL_SAMPLES`` (2) null samples are drawn per
      pass. A screen that cannot be drawn from (its median keeps less than
      ``MIN_SAMPLED_MASS`` (0.05) of its blocks' mass, or no draw is accepted) is replaced
      in the first pass by the ratio cut. Rows where the screen's density is below anything
      drawn from it (the median of small blocks is ~0 beyond the inliers' bulk) are compared
      with the null's lowest levels, and in the second pass of the first screen's cut set
      aside only when their excess beats those levels' ``BEYOND_RANGE_EXCESS`` (10^8) times
      more: a far outlier's excess grows with the square of its distance and it goes, while
      most of the extreme rows of clean data, which lie beyond the null's range too, stay
      (``docs/robust_density.md``).
      With the default screen, a second screen sized for twice the stated share (at most
      0.25) adds the rows where it finds a bump: its calibrated cut sets them aside, the pilot
      exceeds it ``ratio`` times, and the pilot's density there is above its 10 % quantile.
      A cluster that holds more than half of the first screen's blocks (a share understated,
      or stated just right: S = 2 ceil(eps n) + 1 against |O| = eps n rows) enters its median;
      the second screen's blocks are half as large, so it does not, and the last two
      conditions keep its smaller blocks from taking the sparse rows of clean tails.
    - ``"ratio"``: set aside the rows with ``e_i > log ratio`` (a fixed threshold: it also
      takes the rows of sparse inlier regions, and misses clusters that raise the KDE less
      than ``ratio`` times).
    - ``"share"``: set aside the ``contamination`` share of lowest screen scores (as
      :class:`~momkde_core.OutlierDetector` flags): exact when the share is known, and it
      cuts into the inliers' tails when it is overstated, and on clean data.

    At most half of the rows minus one are set aside (a median screen cannot tell a majority
    from the inliers), and at least two are kept for the final bandwidth rule.

    Fewer than 3 rows (of positive weight) are not screened; when the rows kept would all be
    copies of one row, nothing is set aside (a bandwidth rule needs two distinct rows). With
    ``sample_weight``, the screen and the pilot are fitted with the weights, and the final
    KDE with the weights of the rows kept.

    The design study that chose the default cut, with its comparisons against the other
    estimators, is ``docs/robust_density.md``.

    References
    ----------
    - Humbert, Le Bars, Minvielle & Vayatis (2020), "Robust Kernel Density Estimation with
      Median-of-Means principle" (MoM-KDE, the default screen).

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import ScreenedKDE
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, 285), rng.normal(6, 0.01, 15)]  # a tight cluster at 6
    >>> est = ScreenedKDE(contamination=0.05, random_state=0).fit(X)
    >>> int((~est.inlier_mask_[285:]).sum())  # the cluster's rows set aside
    15
    >>> bool(est.pdf([[6.0]])[0] < 1e-3)  # no bump at 6
    True
    >>> type(est.screen_).__name__
    'MoMKDE'
    >>> est.sample(3, random_state=0).shape  # a KDE: exact sampling
    (3, 1)
    """

    _parameter_constraints = {
        "contamination": CONTAMINATION,
        "cut": Rule(
            lambda value, _: isinstance(value, str) and value in CUTS,
            "cut must be one of " + ", ".join(map(repr, CUTS)) + ", got {value!r}",
        ),
        "ratio": Rule(
            lambda value, _: is_number(value) and 1.0 < value < np.inf,
            "ratio must be a finite number above 1, got {value!r}",
        ),
        **MIXED_CONSTRAINTS,
    }

    def __init__(
        self,
        contamination: float | str = 0.1,
        bandwidth: float | ArrayLike | str = "cv",
        kernel: str = "gaussian",
        screen: BaseEstimator | None = None,
        cut: str = "calibrated",
        ratio: float = 10.0,
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | list | None = "from_dtype",
        categorical_bandwidth: str | float | ArrayLike = "cv",
    ):
        self.contamination = contamination
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.screen = screen
        self.cut = cut
        self.ratio = ratio
        self.random_state = random_state
        self.categorical_features = categorical_features
        self.categorical_bandwidth = categorical_bandwidth

    def _check_own_params(self) -> None:
        self._check_parameters(None)
        if self.screen is not None and not callable(getattr(self.screen, "score_samples", None)):
            raise TypeError(
                f"screen must be a density estimator with score_samples (such as "
                f"MoMKDE), got {type(self.screen).__name__}"
            )
        if (
            self.screen is not None
            and self.cut == "calibrated"
            and not callable(getattr(self.screen, "sample", None))
        ):
            raise TypeError(
                f"cut='calibrated' draws from the screen, and "
                f"{type(self.screen).__name__} has no sample(); use cut='ratio'"
            )
        if self.screen is not None and isinstance(self.contamination, str):
            raise ValueError(
                "contamination='auto' needs the default screen (MoM-KDE estimates "
                "the share); state a number with a screen of your own"
            )

    def _fit(self, X, sample_weight) -> None:
        self._check_own_params()
        mixed = read_mixed(self, X, get_kernel(self.kernel).name)
        if mixed is None:
            rows = numbers = _validate_data(self, X, reset=True)
        else:  # a mixed table: the screen and the KDEs read its rows as a DataFrame
            rows = table_of(X)
            numbers = mixed.split(rows, "X")[0]
        d = numbers.shape[1]
        if isinstance(self.bandwidth, str):  # the final rule is checked before the screen runs
            check_rule(self.bandwidth, max(d, 1))
        elif d:
            check_numeric_bandwidth(self.bandwidth, d)
        base, kept = _base_measure(sample_weight, numbers)
        positive = np.ones(len(numbers), bool) if kept is None else kept
        inliers = positive.copy()
        screened = _take(rows, positive)
        seed = _data_seed(screened, base) if self.random_state is None else self.random_state
        inliers[positive] = self._screen_rows(screened, base, seed)
        if isinstance(self.bandwidth, str) and d and not np.ptp(numbers[inliers], axis=0).any():
            inliers = positive.copy()  # copies of one row kept: no rule could run on them
        weight = inliers.astype(float)
        if base is not None:
            weight[positive] *= base
        self.inlier_mask_ = inliers
        # the final KDE on the rows kept (rows of weight 0 are left out of the fit)
        super()._fit(X, None if weight.all() and base is None else weight)

    def _categorical(self) -> dict:
        """The parameters of the categorical columns, for the KDEs and screens it fits."""
        return {
            "categorical_features": self.categorical_features,
            "categorical_bandwidth": self.categorical_bandwidth,
        }

    def _screen_rows(self, X: np.ndarray, base: np.ndarray | None, seed) -> np.ndarray:
        """The mask of the rows to keep, among rows of positive weight X (weights ``base``),
        the default screen's blocks and the null samples drawn with ``seed``."""
        n = len(X)
        eps = self.contamination
        if (not isinstance(eps, str) and eps == 0) or n < 3:
            self.contamination_, self.screen_ = 0.0, None
            return np.ones(n, bool)
        if self.screen is None:
            screen = MoMKDE(
                contamination=eps, kernel=self.kernel, random_state=seed, **self._categorical()
            )
        else:
            screen = _seeded_clone(self.screen, self.random_state)
        weights = None if base is None else base * n
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                screen.fit(X, sample_weight=weights)
            except ValueError as err:  # a median 0 everywhere: nothing to screen with
                if "0 everywhere" not in str(err):
                    raise
                screen = None
        if screen is None:
            warnings.warn(
                f"the screen's median is 0 everywhere on these {n} rows (its blocks are too "
                "small for its bandwidth), so no row is set aside: the fit is the KDE of every "
                "row; state a smaller contamination or give more rows",
                UserWarning,
                stacklevel=4,
            )
            self.contamination_, self.screen_ = float(0.0 if isinstance(eps, str) else eps), None
            return np.ones(n, bool)
        for w in caught:  # a thin median, told as what it means for the cut
            message = str(w.message)
            if "holds only" in message:
                message = (
                    message.split(": most of")[0].replace("the median", "the screen's median", 1)
                    + ": its blocks are too small to tell a cluster of outliers from "
                    "sparse inliers, so rows of the inliers' tails may be set aside; "
                    "state a smaller contamination"
                )
            warnings.warn(message, w.category, stacklevel=4)
        self.screen_ = screen
        # the stated share; "auto" (default screen only): the share the screen estimated
        self.contamination_ = float(screen.contamination_ if isinstance(eps, str) else eps)
        scores = np.asarray(screen.score_samples(X), dtype=float)
        if self.cut == "share":
            excess = -scores  # the lowest scores first
            limit = int(np.floor(self.contamination_ * n))
            candidates = np.ones(n, bool)
        else:
            pilot = KDE(self.bandwidth, self.kernel, random_state=seed, **self._categorical())
            pilot.fit(X, sample_weight=weights)
            pilot_log = pilot.score_samples(X)
            excess = _excess(pilot_log, scores)
            if self.cut == "ratio":
                candidates = excess > np.log(self.ratio)
            else:
                candidates = self._calibrated_cut(
                    X, weights, scores, excess, screen, pilot, seed, BEYOND_RANGE_EXCESS
                )
                candidates |= self._wide_cut(X, weights, pilot, pilot_log, seed)
            limit = n
        return ~_largest(candidates, excess, min(limit, (n - 1) // 2))

    def _wide_cut(self, X, weights, pilot, pilot_log, seed) -> np.ndarray:
        """Bumps a default screen sized for ``WIDE_FACTOR`` times the share finds: rows its
        calibrated cut sets aside where the pilot exceeds it ``ratio`` times and the pilot's
        density is above its ``WIDE_SPARSE`` quantile."""
        wide = min(WIDE_FACTOR * self.contamination_, WIDE_MAX)
        if self.screen is not None or wide <= self.contamination_:
            return np.zeros(len(X), bool)
        screen = MoMKDE(
            contamination=wide, kernel=self.kernel, random_state=seed, **self._categorical()
        )
        with warnings.catch_warnings():  # a thin wide screen is this cut's business
            warnings.simplefilter("ignore")
            try:
                screen.fit(X, sample_weight=weights)
            except ValueError:  # a median 0 everywhere: blocks too small to say anything
                return np.zeros(len(X), bool)
        scores = np.asarray(screen.score_samples(X), dtype=float)
        excess = _excess(pilot_log, scores)
        bump = (pilot_log >= np.quantile(pilot_log, WIDE_SPARSE)) & (excess > np.log(self.ratio))
        if not bump.any():
            return bump
        return bump & self._calibrated_cut(X, weights, scores, excess, screen, pilot, seed)

    def _calibrated_cut(
        self, X, weights, scores, excess, screen, pilot, seed, beyond_range: float = 0.0
    ) -> np.ndarray:
        """The rows whose excess beats the null's at their screen density (two passes; in the
        second, by ``beyond_range`` more (log) beyond the null's range)."""
        rng = np.random.default_rng(check_random_state(seed).randint(2**31))
        h, n = pilot.bandwidth_, len(X)
        first = None
        # a screen is drawn from by rejection, at ~ the share of its blocks' mass its median
        # keeps: below MIN_SAMPLED_MASS (or with no draw accepted) the ratio cut is pass one
        if getattr(screen, "log_norm_", 0.0) >= np.log(MIN_SAMPLED_MASS):
            with contextlib.suppress(ValueError):
                first = _beyond_null(scores, excess, *self._null(screen, screen, h, n, rng))
        if first is None:
            first = excess > np.log(self.ratio)
        keep = ~_largest(first, excess, (n - 1) // 2)
        kept = KDE(h, self.kernel, **self._categorical()).fit(
            _take(X, keep), sample_weight=None if weights is None else weights[keep]
        )
        return _beyond_null(scores, excess, *self._null(kept, screen, h, n, rng), beyond_range)

    def _null(self, source, screen, pilot_h, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """(screen log density, excess) at ``NULL_SAMPLES`` samples from ``source``, the screen
        and the pilot refitted on each with their fitted S, h (and share): samples of n rows,
        or of fewer (``NULL_ROWS``, ``NULL_MIN_BLOCKS``) with proportionally fewer blocks of
        the screen's size."""
        fixed = {
            name: getattr(screen, name + "_")
            for name in ("n_blocks", "bandwidth", "contamination")
            if name in screen.get_params(deep=False) and hasattr(screen, name + "_")
        }
        size = n
        if "n_blocks" in fixed:
            blocks = fixed["n_blocks"]
            size = min(n, max(NULL_ROWS, int(np.ceil(NULL_MIN_BLOCKS * n / blocks))))
            # the nearest count of the screen's parity: an even count's median averages the
            # two middle blocks, and would reach further than an odd screen's
            fixed["n_blocks"] = max(
                1, blocks % 2 + 2 * int(round((blocks * size / n - blocks % 2) / 2))
            )
        levels, excess = [], []
        for _ in range(NULL_SAMPLES):
            draws = source.sample(size, random_state=rng)
            twin = _seeded_clone(screen, int(rng.integers(2**31))).set_params(**fixed)
            with warnings.catch_warnings():  # the screen's own warnings were told once
                warnings.simplefilter("ignore")
                try:
                    twin.fit(draws)
                    level = np.asarray(twin.score_samples(draws), dtype=float)
                except ValueError as err:  # a median 0 everywhere: the twin sees no row
                    if "0 everywhere" not in str(err):
                        raise
                    level = np.full(len(draws), -np.inf)
            levels.append(level)
            pilot = KDE(pilot_h, self.kernel, **self._categorical()).fit(draws)
            excess.append(_excess(pilot.score_samples(draws), level))
        return np.concatenate(levels), np.concatenate(excess)


def _take(X, rows: np.ndarray):
    """The rows of X (an array, or a mixed table's DataFrame) at a boolean mask."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _excess(pilot_log: np.ndarray, screen_log: np.ndarray) -> np.ndarray:
    """log f_pilot - log f_screen, -inf where both are -inf (no evidence either way)."""
    with np.errstate(invalid="ignore"):
        gap = pilot_log - screen_log
    return np.where(np.isnan(gap), -np.inf, gap)


def _largest(candidates: np.ndarray, excess: np.ndarray, limit: int) -> np.ndarray:
    """The mask of at most ``limit`` candidates, those of largest excess."""
    flagged = np.zeros(len(candidates), bool)
    if limit > 0 and candidates.any():
        order = np.argsort(-excess, kind="stable")[:limit]
        flagged[order[candidates[order]]] = True
    return flagged


def _beyond_null(
    levels: np.ndarray,
    excess: np.ndarray,
    null_levels: np.ndarray,
    null_excess: np.ndarray,
    beyond_range: float = 0.0,
) -> np.ndarray:
    """Rows whose excess is above ``MIN_EXCESS`` and above the largest null excess among the
    ``NULL_NEIGHBOURS`` null rows of nearest level (a window of the null sorted by level), by
    ``beyond_range`` more (log) where the level is below every null row's."""
    order = np.argsort(null_levels, kind="stable")
    sorted_levels, sorted_excess = null_levels[order], null_excess[order]
    k = min(NULL_NEIGHBOURS, len(order))
    window_max = sliding_window_view(sorted_excess, k).max(axis=1)
    start = np.clip(np.searchsorted(sorted_levels, levels) - k // 2, 0, len(order) - k)
    bound = window_max[start] + np.where(levels < sorted_levels[0], beyond_range, 0.0)
    return (excess > bound) & (excess > MIN_EXCESS)


def _data_seed(rows, base: np.ndarray | None) -> int:
    """A seed drawn from the rows (an array, or a mixed table's DataFrame) and their weights
    ``base``: a CRC-32 of their bytes, the same for the same rows in the same order.

    Examples
    --------
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> _data_seed(X, None) == _data_seed(X.copy(), None) != _data_seed(X[::-1], None)
    True
    """
    if hasattr(rows, "iloc"):
        data = pd.util.hash_pandas_object(rows, index=False).to_numpy()
    else:
        data = np.ascontiguousarray(rows, dtype=float)
    key = zlib.crc32(data.tobytes())
    return key if base is None else zlib.crc32(np.ascontiguousarray(base).tobytes(), key)
