"""The Median-of-Means kernel density estimator (MoM-KDE, the paper's Definition 1).

:class:`MoMKDE` splits the rows into S blocks, fits a KDE on each and takes their pointwise
median, divided by its integral: outliers that fall in fewer than half of the blocks cannot
move it. Its defaults choose S and h from the expected share of outliers alone
(:mod:`momkde_core.bandwidth`), without labels.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from .._blocks import block_labels, shuffled_blocks
from .._engine import selection_frame
from .._validation import Rule, is_auto, is_bool, is_int
from ..bandwidth import estimate_contamination, n_blocks_for, select_bandwidth
from ..bandwidth._robust import CONTAMINATION
from ._base import TINY_BLOCKS, _BaseKDE
from ._mixed import MIXED_CONSTRAINTS


class MoMKDE(_BaseKDE):
    """Median-of-Means KDE (paper, Definition 1), robust by default.

    The indices are shuffled with ``random_state`` and split into S blocks whose sizes
    differ by at most one (every point is used); each block gives a KDE normalised by its
    own size, and the estimate is their pointwise median, divided by its integral unless
    ``normalize=False`` (on a grid for d <= 2, by importance sampling from the KDE above).
    S = 1 is exactly the KDE. The theory asks for S > 2 |O| blocks (O: outliers): outliers
    in fewer than half of the blocks cannot move the median.

    Parameters
    ----------
    n_blocks : int or "auto", default "auto"
        S, an integer between 1 and n. "auto": S = 2 ceil(contamination n) + 1, the fewest
        blocks that the expected outliers cannot hold a majority of (1, the KDE, when
        contamination is 0).
    bandwidth : float, array of d floats or {"robust", "cv", "scott", "silverman", "isj"}, \
default "robust"
        h, one h per feature, or its rule (per feature as for :class:`KDE`). "robust": the
        multiple of the per-feature Scott vector with the best leave-own-block-out likelihood
        of this MoM-KDE, trimmed of the contamination share of lowest scores: a spike of
        outliers cannot capture it, as it captures "cv" (:mod:`momkde_core.bandwidth._robust`).
        "isj": the Improved Sheather-Jones bandwidth of the whole sample (Botev et al. 2010),
        1-D data only (:mod:`momkde_core.bandwidth._isj`).
    contamination : float in [0, 0.5) or "auto", default 0.1
        The expected share of outliers, the knob IsolationForest, LOF and SPKDE ask for; it
        sets S (when "auto") and the trimming of "robust". "auto" estimates it from the data
        (a research option with known failure modes: a true minor mode below ~25 % of the mass
        is counted as contamination; see ``docs/reproduction.md``). No labels are read.
    kernel : str, default "gaussian"
        The kernel's name, as for :class:`KDE`.
    normalize : bool, default True
        Divide the median by its integral (rankings and AUC do not need it). A bool: "no"
        is refused, not read as True.
    categorical_features : "from_dtype", None, or list of str, int or bool, \
default "from_dtype"
        Which columns are categorical, as for :class:`KDE` (DataFrame dtypes, or names,
        indices or a mask): MoM-KDE is then the median of the blocks' mixed KDEs, divided
        by its integral over the continuous part and the levels.
    categorical_bandwidth : {"cv", "rule"}, float or array of floats, default "cv"
        The categorical columns' bandwidths, as for :class:`KDE`.
    random_state : int, RandomState or None, default None
        The shuffle into blocks (and the subsample "robust" uses beyond 2000 points, and the
        draws that estimate the median's integral by importance sampling).

    Attributes
    ----------
    n_blocks_ : int
        S used.
    bandwidth_ : float or ndarray of shape (d,)
        h used (an array when the features' h differ).
    contamination_ : float
        The share used (the estimate, for "auto").
    block_of_ : ndarray of shape (n,)
        The block of each training row, -1 for rows of weight 0.
    log_norm_ : float
        The log of the integral of the median that was divided out (0.0 with
        ``normalize=False`` or S = 1).
    categorical_bandwidth_, is_categorical_, categories_
        With categorical columns: as for :class:`KDE`.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (d,)
        The column names, when fitted on a DataFrame with string column names.

    Raises
    ------
    ValueError
        At fit, when the median of the block KDEs is 0 everywhere (no point is covered by a
        majority of blocks): use fewer blocks or a larger bandwidth.

    Warns
    -----
    UserWarning
        At fit, when the blocks hold fewer than 2 points on average: their median no longer
        estimates the density, and S > 2|O| cannot be met with usable blocks beyond ~25 % of
        outliers. And when ``log_norm_`` is below log 0.5: the median then keeps less than
        half of the blocks' mass, as with blocks of ~2-3 points in 2-D or 3-D, or ~5 points
        in 5-D, and the density is mostly that division; use fewer blocks (a smaller
        contamination).

    See Also
    --------
    KDE : the plain KDE (S = 1).
    ScreenedKDE : MoM-KDE as a screen, then a KDE of the rows it keeps.
    momkde_core.OutlierDetector : flags the lowest-density rows, with MoM-KDE by default.

    Notes
    -----
    Sample weights: a row is never split, it stays in one block, and block s's KDE is
    sum_{i in s} w_i K_h(x - X_i) / sum_{i in s} w_i (its rows weighted by their share of
    the block's weight). So integer weights give exactly the MoM-KDE of the sample with
    each row repeated w_i times *in its own block*; the blocks are cut from the shuffled
    rows of positive weight as without weights (S and the sizes count rows, not weight),
    so a row of weight 1000 still sways a single block: one block's KDE, outvoted by the
    median like any outlier's. That is the point of the choice: a weight never makes a
    point a majority. (Repeating a row instead would spread its copies over many blocks,
    and a random shuffle of the copies is not a function of the weights.) "auto" S counts
    the rows of positive weight; the bandwidth rules see the weights as
    :func:`momkde_core.bandwidth.select_bandwidth` says ("robust" ignores them).

    Measured (``docs/reproduction.md``, "Choosing S and h without an oracle"): with blocks
    of fewer than 2 points the median is worse than the plain KDE on clustered outliers at
    contamination 0.3 and above, hence the warning.

    References
    ----------
    - Humbert, Le Bars, Minvielle & Vayatis (2020), "Robust Kernel Density Estimation with
      Median-of-Means principle", Definition 1.
    - Botev, Grotowski & Kroese (2010), "Kernel density estimation via diffusion", Annals of
      Statistics 38 (the Improved Sheather-Jones bandwidth).

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import KDE, MoMKDE, make_contaminated
    >>> data = make_contaminated("thin_gaussian", n_inliers=300, ratio=0.1, random_state=0)
    >>> mom = MoMKDE(contamination=0.1, random_state=0).fit(data.X)
    >>> mom.n_blocks_  # 2 ceil(0.1 n) + 1 for n = 333 rows
    69
    >>> mom.block_of_.shape
    (333,)

    The outliers form a spike at 3, between the inliers' modes at 0 and 6: a KDE of the same
    bandwidth grows a bump there, the median leaves it out.

    >>> kde = KDE(bandwidth=mom.bandwidth_).fit(data.X)
    >>> bool(kde.pdf([3.0])[0] > 1000 * mom.pdf([3.0])[0])
    True
    >>> xs = np.linspace(-4, 10, 281)
    >>> round(float(mom.pdf_grid(xs).sum() * (xs[1] - xs[0])), 2)  # normalised
    1.0
    """

    _median = True
    _parameter_constraints = {
        "n_blocks": (
            Rule(
                lambda S, _: is_auto(S) or (is_int(S) and S >= 1),
                "n_blocks must be 'auto' or an integer between 1 and n = {n} (the number of "
                "rows), got {value!r}",
            ),
            Rule(
                lambda S, context: is_auto(S) or S <= context["n"],
                "n_blocks must be 'auto' or an integer between 1 and n = {n} (the number of "
                "rows), got {value!r}: {value} blocks need at least {value} rows, and the fit "
                "has n_samples = {n}; use fewer blocks, or 'auto'",
            ),
        ),
        "contamination": CONTAMINATION,
        "normalize": Rule(
            lambda value, _: is_bool(value), "normalize must be True or False, got {value!r}"
        ),
        **MIXED_CONSTRAINTS,
    }

    def __init__(
        self,
        n_blocks: int | str = "auto",
        bandwidth: float | ArrayLike | str = "robust",
        contamination: float | str = 0.1,
        kernel: str = "gaussian",
        normalize: bool = True,
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | list | None = "from_dtype",
        categorical_bandwidth: str | float | ArrayLike = "cv",
    ):
        self.n_blocks = n_blocks
        self.bandwidth = bandwidth
        self.contamination = contamination
        self.kernel = kernel
        self.normalize = normalize
        self.random_state = random_state
        self.categorical_features = categorical_features
        self.categorical_bandwidth = categorical_bandwidth

    @property
    def _normalizes(self) -> bool:
        return bool(self.normalize)

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """Resolve the contamination and S (both may need the data) for "robust" and the fit."""
        eps = self.contamination
        if isinstance(eps, str) and not np.ptp(X, axis=0).any():
            eps = 0.0  # "auto" on one row or identical rows: nothing stands out
        elif isinstance(eps, str):  # "auto": on the data in units of their Scott bandwidths
            frame = selection_frame(X, select_bandwidth(X, "scott", self._kernel, per_feature=True))
            eps = estimate_contamination(
                frame.inner(X), self._kernel, frame.h, random_state=self.random_state
            )
        self.contamination_ = float(eps)
        self.n_blocks_ = (
            n_blocks_for(len(X), self.contamination_)
            if isinstance(self.n_blocks, str)
            else int(self.n_blocks)
        )
        if self.n_blocks_ > 1 and len(X) < TINY_BLOCKS * self.n_blocks_:
            warnings.warn(
                f"{self.n_blocks_} blocks for {len(X)} points: blocks of fewer than "
                f"{TINY_BLOCKS} points ({len(X) / self.n_blocks_:.2g} on average), whose median no longer estimates the density; use fewer blocks (see "
                'docs/guide/robust-density.md, "What the defaults reach")',
                UserWarning,
                stacklevel=4,
            )
        return {"n_blocks": self.n_blocks_, "contamination": self.contamination_}

    @property
    def block_of_(self) -> np.ndarray:
        """The block of each training row, -1 for the rows of weight 0, shape (n,).

        Scattered from the fit's shuffled order when first read: a fit that only draws grids
        or scores never needs it, and at large n the scatter and its memory are not free.
        """
        check_is_fitted(self, "bandwidth_")
        blocks = self._blocks  # (one read: a concurrent first read may replace it)
        if blocks[0] == "order":
            labels = block_labels(*blocks[1:])
            if self._kept is not None:  # the rows of weight 0, which the fit never saw
                full = np.full(len(self._kept), -1, dtype=np.intp)
                full[self._kept] = labels
                labels = full
            blocks = ("labels", labels)
            self._blocks = blocks  # (the order is no longer kept)
        return blocks[1]

    def _fit_weights(self, X, base):
        X, bounds, log_w, w, order = shuffled_blocks(X, self.n_blocks_, self.random_state, base)
        self._blocks = ("order", order, bounds)  # block_of_ is built from it when read
        return X, bounds, log_w, w
