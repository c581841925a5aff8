"""The Median-of-Means kernel density estimator (MoM-KDE, the paper's Definition 1)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_is_fitted

from .._blocks import block_labels, shuffled_blocks
from .._engine import selection_frame
from ..bandwidth._robust import check_contamination, estimate_contamination, n_blocks_for
from ..bandwidth._rules import select_bandwidth
from ._base import TINY_BLOCKS, _BaseKDE, _is_int


class MoMKDE(_BaseKDE):
    """Median-of-Means KDE (paper, Definition 1), robust by default.

    The indices are shuffled with ``random_state`` and split into S blocks whose sizes
    differ by at most one (every point is used); each block gives a KDE normalised by its
    own size, and the estimate is their pointwise median, divided by its integral unless
    ``normalize=False`` (on a grid for d <= 2, by importance sampling from the KDE above).
    S = 1 is exactly the KDE. The theory asks for S > 2 |O| blocks (O: outliers).

    Parameters
    ----------
    n_blocks : int or "auto", default "auto"
        S. "auto": S = 2 ceil(contamination n) + 1, the fewest blocks that the expected
        outliers cannot hold a majority of (1, the KDE, when contamination is 0).
    bandwidth : float, array of d floats or {"robust", "cv", "scott", "silverman", "isj"}, \
default "robust"
        h, one h per feature, or its rule (per feature as for :class:`KDE`). "robust": the
        multiple of the per-feature Scott vector with the best leave-own-block-out likelihood
        of this MoM-KDE, trimmed of the contamination share of lowest scores: a spike of
        outliers cannot capture it, as it captures "cv" (:mod:`momkde_core.bandwidth._robust`).
        "isj": the Improved Sheather-Jones bandwidth of the whole sample (Botev et al. 2010),
        1-D data only (:mod:`momkde_core.bandwidth._rules`).
    contamination : float in [0, 0.5) or "auto", default 0.1
        The expected share of outliers, the knob IsolationForest, LOF and SPKDE ask for; it
        sets S (when "auto") and the trimming of "robust". "auto" estimates it from the data
        (a research option with known failure modes: a true minor mode below ~25 % of the mass
        is counted as contamination; see ``docs/reproduction.md``). No labels are read.
    kernel : str, default "gaussian"
    normalize : bool, default True
        Divide the median by its integral (rankings and AUC do not need it). A bool: "no"
        is refused, not read as True.
    random_state : int, RandomState or None
        The shuffle into blocks (and the subsample "robust" uses beyond 2000 points).

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
    :func:`momkde_core.bandwidth._rules.select_bandwidth` says ("robust" ignores them).

    Attributes: ``n_blocks_`` (S used), ``bandwidth_`` (h used), ``contamination_`` (the
    share used), ``block_of_`` (block of each training row, -1 for rows of weight 0),
    ``log_norm_`` (log of the integral of the median that was divided out; a fit warns when
    it is below log 0.5: the median then keeps less than half of the blocks' mass, as with
    blocks of ~2-3 points in 2-D or 3-D, or ~5 points in 5-D, and the density is mostly that
    division),
    ``n_features_in_``, ``feature_names_in_`` (fitted on a DataFrame).
    """

    _median = True

    def __init__(
        self,
        n_blocks="auto",
        bandwidth="robust",
        contamination=0.1,
        kernel: str = "gaussian",
        normalize: bool = True,
        random_state=None,
    ):
        self.n_blocks = n_blocks
        self.bandwidth = bandwidth
        self.contamination = contamination
        self.kernel = kernel
        self.normalize = normalize
        self.random_state = random_state

    @property
    def _normalizes(self) -> bool:
        return bool(self.normalize)

    def _check_params(self, n: int) -> None:
        S = self.n_blocks
        auto = isinstance(S, str) and S == "auto"
        if not auto and (not _is_int(S) or not 1 <= S <= n):
            raise InvalidParameterError(
                f"n_blocks must be 'auto' or an integer between 1 and n "
                f"= {n} (the number of rows), got {S!r}"
            )
        check_contamination(self.contamination)
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError(f"normalize must be True or False, got {self.normalize!r}")

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
                f"{TINY_BLOCKS} points, whose median no longer estimates the density (measured: "
                "worse than the plain KDE on clustered outliers at contamination 0.3 and above); "
                "S > 2|O| cannot be met with usable blocks beyond ~25 % of outliers",
                UserWarning,
                stacklevel=4,
            )
        return {"n_blocks": self.n_blocks_, "contamination": self.contamination_}

    @property
    def block_of_(self) -> np.ndarray:
        """The block of each training row, -1 for the rows of weight 0 (shape (n,)).

        Scattered from the fit's shuffled order when first read: a fit that only draws
        grids or scores never needs it (at n = 1e7 the scatter and the first touch of its
        80 MB cost ~0.2 s here)."""
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
