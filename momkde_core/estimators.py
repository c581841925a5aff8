"""KDE, MoM-KDE, RKDE and SPKDE on one engine, as scikit-learn estimators.

Each estimator reduces, after ``fit``, to the same representation: the data sorted into
blocks, a log weight per point, and a rule to combine the block sums (one block: the sum
itself; MoM-KDE: the pointwise median, divided by its integral). Evaluation at points and on
grids is then shared (:mod:`momkde_core.engine`), so an improvement there speeds up all four.

They follow scikit-learn's estimator contract (``sklearn.utils.estimator_checks`` passes
but for one deliberate difference: a 1-D X is read as one feature, where scikit-learn asks
for a ValueError): input is checked by scikit-learn's ``validate_data`` (``n_features_in_``,
``feature_names_in_`` for a DataFrame), ``fit`` takes ``sample_weight`` and ``sample``
draws from the estimate.

References
----------
- Humbert, Le Bars, Minvielle & Vayatis (2020), "Robust Kernel Density Estimation with
  Median-of-Means principle" (MoM-KDE, Definition 1).
- Kim & Scott (2012), "Robust Kernel Density Estimation", JMLR 13 (RKDE and its KIRWLS
  algorithm, kernelised iteratively re-weighted least squares).
- Vandermeulen & Scott (2014), "Robust Kernel Density Estimation by Scaling and Projection
  in Hilbert Space", NeurIPS (SPKDE).
"""

from __future__ import annotations

import logging
import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .bandwidth import select_bandwidth
from .engine import (LOG_SAFE_LINEAR, GramOperator, backend_costs, band_block_sums,
                     band_pays_off, block_grid_sums, block_log_sums, exact_block_sums,
                     exact_price, is_evenly_spaced)
from .kernels import Kernel, get_kernel
from .normalize import log_integral
from .robust import (DEFAULT_PERCENTILES, SCALE_SOURCES, kirwls_with_params, loss_parameters,
                     scale_residuals, spkde_weights)
from .robust_defaults import check_contamination, estimate_contamination, n_blocks_for
from .scaling import PEAK_LIMIT, PEAK_LIMIT_FLOAT32, Frame, selection_frame, working_frame

LOGGER = logging.getLogger(__name__)
TINY_BLOCKS = 2  # MoM-KDE warns when its blocks hold fewer points than this on average
THIN_MEDIAN = 0.5  # ... and when its median holds less than this share of the blocks' mass
MAX_SAMPLE_ROUNDS = 100  # sample() gives up after this many rounds without an accepted draw
MEDIAN_TILE_ELEMENTS = 2**16  # block sums per tile of the grid median (512 KiB: a core's L2)
LABEL_LOOP_BLOCKS = 256  # MoM-KDE labels up to this many blocks one block at a time


def _validate_data(est: BaseEstimator, X, *, reset: bool) -> np.ndarray:
    """X as a float (n, d) array, checked by scikit-learn's ``validate_data``.

    ``reset`` (fit) sets ``n_features_in_`` and, for a DataFrame, ``feature_names_in_``;
    otherwise (scoring) another number of features, or reordered, renamed or missing columns
    raise scikit-learn's ValueError. A 1-D X is one feature. A value that is no number
    raises scikit-learn's TypeError (in an object array) or ValueError, with the shape asked
    for added; NaN and inf raise a ValueError naming the rows to fix. Fitting needs a row.
    """
    what, name = ("X" if reset else "Y"), type(est).__name__
    expected = "(n,) or (n, d)" if reset else \
        f"(m, {est.n_features_in_}): {name} was fitted on {est.n_features_in_} feature(s)"
    try:  # (ensure_2d=False leaves the feature count to us: 1-D is one feature)
        arr = validate_data(est, X, reset=reset, ensure_2d=False, dtype=np.float64,
                            ensure_all_finite=False, ensure_min_samples=0, ensure_min_features=1)
    except TypeError as err:
        raise TypeError(f"{what} must be a numeric array of shape {expected}: {err}") from None
    except ValueError as err:
        raise ValueError(f"{str(err).rstrip()} ({what} must be a numeric array of shape "
                         f"{expected})") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{what} must have shape {expected}, got {arr.ndim} dimensions")
    if reset:
        est.n_features_in_ = arr.shape[1]
    elif arr.shape[1] != est.n_features_in_:  # scikit-learn's message, and what was expected
        raise ValueError(f"X has {arr.shape[1]} features, but {name} is expecting "
                         f"{est.n_features_in_} features as input ({what} must be a numeric "
                         f"array of shape {expected})")
    if reset and not len(arr):
        raise ValueError(f"{what} has 0 row(s) (shape {arr.shape}); at least 1 is needed")
    # one pass in the common case: a NaN or inf makes the sum non-finite (a sum that merely
    # overflows goes to the element-wise check, which finds nothing)
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    bad = np.zeros(0, dtype=bool) if np.isfinite(total) else ~np.isfinite(arr)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        kind = "NaN" if np.isnan(arr).any() else "inf"
        raise ValueError(f"{what} contains {kind} values in {len(rows)} row(s) (first: row "
                         f"{rows[0]}); all values must be finite: drop or impute those rows")
    return arr


def _log_median(values: np.ndarray) -> np.ndarray:
    """log of the median over axis 0 of exp(values), computed in log space (exact)."""
    s = values.shape[0]
    if s == 1:
        return values[0]
    part = np.partition(values, [(s - 1) // 2, s // 2], axis=0)
    lo, hi = part[(s - 1) // 2], part[s // 2]
    if s % 2:
        return lo
    with np.errstate(invalid="ignore"):
        both = np.logaddexp(lo, hi) - np.log(2.0)
    return np.where(np.isneginf(hi), -np.inf, both)


def _grid_median(values: np.ndarray) -> np.ndarray:
    """Median over axis 0 of non-negative block sums, sorting only where it can be non-zero.

    Where at most (S - 1) // 2 of the S blocks are non-zero, both middle order statistics are
    zeros, so the median is exactly 0 without a partition: on grids far from the data, or
    with many small blocks and a small bandwidth, that is most nodes. The live nodes are
    selected in cache-sized tiles of nodes, each tile's blocks laid along the last axis
    (a partition along a strided axis 0 is 2-3x slower for hundreds of blocks).
    """
    s = values.shape[0]
    flat = values.reshape(s, -1)
    out = np.zeros(flat.shape[1])
    # the middle order statistic(s) of each live column: what np.median computes, bit for
    # bit (the middle value, or the mean of the two middle values for even S)
    middle = [(s - 1) // 2] if s % 2 else [s // 2 - 1, s // 2]
    step = max(1, MEDIAN_TILE_ELEMENTS // s)
    for a in range(0, flat.shape[1], step):
        tile = flat[:, a:a + step]
        # (a sum of the comparisons into int32: np.count_nonzero along an axis casts
        # them to intp first, 2x slower)
        live = (tile != 0).sum(axis=0, dtype=np.int32) > (s - 1) // 2
        if live.any():
            part = np.partition(tile.T[live], middle, axis=1)
            out[a:a + step][live] = (part[:, middle[0]] if s % 2 else
                                     (part[:, middle[0]] + part[:, middle[1]]) / 2.0)
    return out.reshape(values.shape[1:])


def _base_measure(sample_weight, X: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(the weights of the rows with a positive weight divided by their sum, those rows as a
    boolean mask), or (None, None) without weights. Rows of weight 0 are left out of the fit
    altogether (the same fit as without them, as scikit-learn's contract asks)."""
    if sample_weight is None:
        return None, None
    w = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    kept = w > 0
    if not kept.any():  # (scikit-learn 1.6 lets all-zero weights through)
        raise ValueError("sample_weight is 0 for every row: at least one weight must be positive")
    return w[kept] / w[kept].sum(), kept


class _BaseKDE(BaseEstimator):
    """Shared fit / evaluation for estimators of the form combine_s sum_{i in s} w_i K_h.

    Subclasses implement ``_fit_weights(X, base)``, returning (X sorted by block, block
    bounds, log weights per point, the same weights in linear space; both None when each
    block's rows weigh one over its size: built on first use), where ``base`` is None or
    the sample weights (positive, summing to 1), and may override ``_combine`` (default:
    the single block). ``_kept`` is the mask of the rows of positive weight (None: all).
    ``_row_attributes`` names fitted per-row attributes and their value for the rows of
    weight 0, which the fit never sees.
    """

    _normalizes = False
    _row_attributes: dict[str, float] = {}
    _gram_scale = 1.0  # the kernel scale (times h) whose values the fit holds in linear space
    _peak_limit = PEAK_LIMIT  # ... and the range its peak must stay in (scaling.working_frame)

    def _check_params(self, n: int) -> None:
        """Validate the subclass's own parameters for n rows (before any costly work)."""

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """Keyword arguments of ``select_bandwidth`` for this estimator (the "robust" rule's
        blocks and contamination); by default "robust" assumes its own default share."""
        return {}

    @property
    def _log_w(self) -> np.ndarray:
        """log of the points' weights, in the block order of ``_X``. A fit may leave it out
        (None: MoM-KDE without weights, one value per block): it is then built on first
        use, -log of the block's size per row, as an n-long array that a fit drawing only
        grids never reads (at n = 1e7 its first touch of 80 MB costs ~0.2 s here)."""
        if self._log_w_values is None:
            sizes = np.diff(self._bounds)
            self._log_w_values = np.repeat(-np.log(sizes), sizes)
        return self._log_w_values

    def _block_weights_per_block(self) -> np.ndarray:
        """One over each block's size (as exp(-log size): the values of ``_w``), when the fit
        gave each block's rows equal weights (``_equal_in_blocks``)."""
        return np.exp(-np.log(np.diff(self._bounds)))

    @property
    def _w(self) -> np.ndarray:
        """The points' weights in linear space (exp of ``_log_w``), built on first use when
        the fit left them out, as ``_log_w``."""
        if self._w_values is None:
            self._w_values = np.repeat(self._block_weights_per_block(), np.diff(self._bounds))
        return self._w_values

    def _grid_weights(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(the weights the grid engine sums with, a factor per block to multiply its sums
        by, or None). Without per-row weights (one value per block: MoM-KDE without
        weights) the engine sums unit weights, a read-only view of one value, and each
        block's sums are scaled by its weight after: no n-long weights on the grid path
        (whether or not ``_w`` was built since: a grid does not depend on what ran before)."""
        if self._equal_in_blocks:
            return np.broadcast_to(1.0, len(self._X)), self._block_weights_per_block()
        return self._w_values, None

    def _forget_fit(self) -> None:
        """Remove every fitted attribute (public ones end with "_"), so the estimator is unfitted."""
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            delattr(self, name)

    def _fit(self, X, sample_weight) -> None:
        X = _validate_data(self, X, reset=True)
        self._kernel: Kernel = get_kernel(self.kernel)
        base, kept = _base_measure(sample_weight, X)
        self._kept = kept
        if kept is not None:
            X = X[kept]
        self._check_params(len(X))
        H = select_bandwidth(X, self.bandwidth, self._kernel, random_state=self.random_state,
                             weights=base, per_feature=True, **self._bandwidth_options(X))
        self.bandwidth_ = float(H[0]) if np.all(H == H[0]) else H
        self._frame: Frame = working_frame(X, H, self._kernel, self._gram_scale,
                                           self._peak_limit)
        self._h = self._frame.h  # the scalar bandwidth of the engine, inside the frame
        self._weighted = base is not None
        self._X, self._bounds, self._log_w_values, self._w_values = self._fit_weights(
            self._frame.inner(X), base)
        self._equal_in_blocks = self._w_values is None  # see _grid_weights
        if kept is not None and not kept.all():
            for name, fill in self._row_attributes.items():
                values = getattr(self, name)
                full = np.full(len(kept), fill, dtype=values.dtype)
                full[kept] = values
                setattr(self, name, full)
        self.log_norm_ = 0.0
        if self._normalizes and len(self._bounds) > 2:
            seed = check_random_state(self.random_state).randint(2**31)
            self.log_norm_ = log_integral(self, np.random.default_rng(seed))
            # below 1e-290 the median is made of flushed or underflowed terms, and dividing
            # by it would overflow: numerically, there is no density to normalise
            if not LOG_SAFE_LINEAR <= self.log_norm_ < np.inf:
                raise ValueError(
                    f"the median of the {self._n_blocks} block KDEs is 0 everywhere (no point "
                    "is covered by a majority of blocks): use fewer blocks or a larger bandwidth")
            if self.log_norm_ < np.log(THIN_MEDIAN):
                warnings.warn(
                    f"the median of the {self._n_blocks} block KDEs holds only "
                    f"{100 * np.exp(self.log_norm_):.2g} % of their mass (blocks of "
                    f"{len(self._X) / self._n_blocks:.1f} points in {self.n_features_in_}-D): "
                    "most of this density is the division by that integral, and it no longer "
                    "follows the data; use fewer blocks (a smaller contamination)",
                    UserWarning, stacklevel=3)

    def fit(self, X, y=None, sample_weight=None):
        """Fit on X of shape (n,) or (n, d) (a DataFrame sets ``feature_names_in_``); ``y``
        is ignored. Returns self.

        ``sample_weight``: non-negative weights of the rows, shape (n,) (None: equal). The
        estimate is that of the weighted empirical measure sum_i w_i delta_{X_i} / sum w;
        rows of weight 0 are left out. For KDE, integer weights give the fit on the sample
        with each row repeated that many times (with a numeric bandwidth: the rules see
        weights as :func:`momkde_core.bandwidth.select_bandwidth` says); what they mean for
        the other estimators is in each class's docstring.

        A fit that fails leaves the estimator unfitted (never half-updated): earlier
        fitted attributes are removed first, and parameters are checked before "cv".
        """
        self._forget_fit()
        try:
            self._fit(X, sample_weight)
        except Exception:
            self._forget_fit()
            raise
        return self

    @property
    def _n_blocks(self) -> int:
        return len(self._bounds) - 1

    def _combine_log(self, block_logs: np.ndarray) -> np.ndarray:
        return block_logs[0]

    def _combine(self, block_values: np.ndarray) -> np.ndarray:
        return block_values[0]

    def _check_query(self, Y) -> tuple[np.ndarray, np.ndarray]:
        """(the queries in the fit's frame, mask of those within reach of the kernels)."""
        check_is_fitted(self, "bandwidth_")
        return self._frame.inner_queries(_validate_data(self, Y, reset=False))

    def _to_outer_logs(self, logs: np.ndarray, near: np.ndarray) -> np.ndarray:
        """Log values computed inside the frame at the queries ``near`` (last axis), as log
        values in the data's units at all queries (-inf out of reach)."""
        if self._frame.identity and near.all():
            return logs
        out = np.full(logs.shape[:-1] + near.shape, -np.inf)
        out[..., near] = logs + self._frame.log_jacobian
        return out

    def block_score_samples(self, Y) -> np.ndarray:
        """log of each block's weighted kernel sum at Y, shape (n_blocks, m), unnormalised."""
        Z, near = self._check_query(Y)
        return self._to_outer_logs(block_log_sums(self._X, self._bounds, Z[near], self._kernel,
                                                  self._h, self._log_w), near)

    def score_samples(self, Y) -> np.ndarray:
        """log density at Y (scikit-learn's convention): shape (m,), -inf where pdf is 0.

        Exact (to ~1e-12 relative) at every point, by the cheapest sums that are exact there:
        in 1-D with a small h, the pairs within the kernel's radius (trusted where above
        1e-5 of the kernel's peak, so the dropped terms, below ~2e-17 of it, cannot matter;
        everywhere for a compact kernel, which drops nothing);
        in d <= 2, linear sums over all points (trusted above 1e-290, where no term was lost
        to underflow); else, and for the points left, log space, which never underflows.
        The sums run in the fit's frame (:mod:`momkde_core.scaling`); points whose
        coordinates there exceed 1e150 (beyond every kernel's reach, e.g. 1e300 for data of
        scale 1) score -inf: their density underflows to 0.
        """
        Z, near = self._check_query(Y)
        return self._to_outer_logs(self._inner_score_samples(Z[near]) - self.log_norm_, near)

    def _inner_score_samples(self, Y: np.ndarray) -> np.ndarray:
        """log of the combined block sums at Y, in the frame (not normalised)."""
        out = np.full(len(Y), -np.inf)
        todo = np.arange(len(Y))
        args = (self._X, self._bounds)
        stages = []
        if self.n_features_in_ == 1 and band_pays_off(self._X, Y, self._kernel, self._h):
            peak = self._kernel.log_kernel_sq(np.zeros(1), self._h, 1)[0]
            stages.append((band_block_sums,
                           -np.inf if self._kernel.compact else peak + np.log(1e-5)))
        if self.n_features_in_ <= 2:
            stages.append((exact_block_sums, LOG_SAFE_LINEAR))
        for block_sums, trusted_above in stages:
            with np.errstate(divide="ignore"):
                logs = np.log(self._combine(block_sums(*args, Y[todo], self._kernel,
                                                       self._h, self._w)))
            ok = logs >= trusted_above
            out[todo[ok]] = logs[ok]
            todo = todo[~ok]
            if not todo.size:
                return out
        out[todo] = self._combine_log(block_log_sums(*args, Y[todo], self._kernel,
                                                     self._h, self._log_w))
        return out

    def pdf(self, Y) -> np.ndarray:
        """Density at Y (shape (m,) or (m, d)), shape (m,), non-negative.

        ValueError where the density exceeds float64's range (~1.8e308: data of spread
        ~1e-300 in 2-D and more); :meth:`score_samples` gives its log."""
        with np.errstate(over="ignore"):  # (an overflow is the ValueError that follows)
            return _finite_density(np.exp(self.score_samples(Y)))

    def score(self, X, y=None) -> float:
        """Total log-likelihood of X (scikit-learn's convention for density estimators)."""
        return float(np.sum(self.score_samples(X)))

    def block_pdf_grid(self, xs, ys=None) -> np.ndarray:
        """Each block's weighted kernel sum on the grid, shape (n_blocks, len(xs)[, len(ys)]).

        For MoM-KDE these are the S block KDEs whose median is the estimate (before it is
        divided by its integral): the mechanism a plot can show.
        """
        sums, _, _, nears = self._grid_sums(xs, ys)
        return self._to_outer_grid(sums, nears, 0.0)

    def _grid_axes(self, xs, ys) -> list[np.ndarray]:
        """The axes as 1-D float arrays, one per feature, checked."""
        check_is_fitted(self, "bandwidth_")
        given = [xs] if ys is None else [xs, ys]
        if len(given) != self.n_features_in_:
            raise ValueError(f"pdf_grid takes one axis per feature: the estimator was fitted on "
                             f"{self.n_features_in_} feature(s), got {len(given)} axis/axes")
        axes = []
        for name, axis in zip(("xs", "ys"), given):
            try:
                axis = np.asarray(axis, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a 1-D array of numbers, got {axis!r}") from None
            if axis.ndim != 1:
                raise ValueError(f"{name} must be a 1-D array (one grid axis), got shape "
                                 f"{axis.shape}")
            if not np.isfinite(axis).all() or axis.size == 0:
                raise ValueError("grid axes must be non-empty and finite")
            axes.append(axis)
        return axes

    def _grid_sums(self, xs, ys, exact: bool = False
                   ) -> tuple[np.ndarray, list[np.ndarray], str, list[np.ndarray]]:
        """(block sums on the nodes within reach, those nodes' axes in the frame, the engine
        backend that computed them, per axis the mask of those nodes); ``exact``: see
        :func:`momkde_core.engine.block_grid_sums`."""
        inner = [self._frame.inner_axis(a, k) for k, a in enumerate(self._grid_axes(xs, ys))]
        axes, nears = [z for z, _ in inner], [near for _, near in inner]
        if any(a.size == 0 for a in axes):
            return np.zeros((self._n_blocks,) + tuple(len(a) for a in axes)), axes, "none", nears
        sums, backend = self._inner_grid_sums(axes, exact)
        return sums, axes, backend, nears

    def _grid_plan(self, axes: list[np.ndarray], exact: bool = False
                   ) -> tuple[str, float, tuple | None]:
        """(the backend that computes the block sums on the mesh of ``axes`` in the frame, its
        price in the engine's units (:func:`momkde_core.engine.backend_costs`), the data's box
        for it): the cheapest backend on evenly spaced axes in d <= 2, else the exact sums."""
        if self.n_features_in_ <= 2 and all(is_evenly_spaced(a) for a in axes):
            box = self._frame.box  # (the backends' prices and the binned product need it)
            costs = backend_costs(self._X, self._bounds, axes, self._kernel, self._h, exact, box)
            backend = min(costs, key=costs.get)
            return backend, costs[backend], box
        return "exact", exact_price(len(self._X), int(np.prod([len(a) for a in axes]))), None

    def _inner_grid_sums(self, axes: list[np.ndarray], exact: bool = False,
                         plan: tuple[str, float, tuple | None] | None = None
                         ) -> tuple[np.ndarray, str]:
        """(block sums on the mesh of ``axes``, in the frame; the backend that computed them).
        ``plan``: :meth:`_grid_plan` for the same axes and ``exact``, when the caller has it."""
        backend, _, box = self._grid_plan(axes, exact) if plan is None else plan
        weights, block_factors = self._grid_weights()
        sums = block_grid_sums(self._X, self._bounds, axes, self._kernel, self._h,
                               weights, backend=backend, exact=exact, box=box)
        if block_factors is not None:
            sums *= block_factors.reshape((-1,) + (1,) * len(axes))
        return sums, backend

    def _to_outer_grid(self, values: np.ndarray, nears: list[np.ndarray],
                       log_factor: float) -> np.ndarray:
        """Grid values computed inside the frame on the nodes within reach, times
        exp(``log_factor``), as values in the data's units on the whole grid (0 elsewhere)."""
        lead = values.ndim - len(nears)
        if self._frame.identity and all(near.all() for near in nears):
            return values * np.exp(log_factor)
        with np.errstate(divide="ignore", over="ignore"):
            scaled = np.exp(np.log(values) + (log_factor + self._frame.log_jacobian))
        out = np.zeros(values.shape[:lead] + tuple(len(near) for near in nears))
        out[(Ellipsis,) + np.ix_(*nears)] = scaled
        return _finite_density(out)

    def pdf_grid(self, xs, ys=None, exact_tails: bool = True) -> np.ndarray:
        """Density on evenly spaced xs (1-D) or on the mesh of xs and ys (2-D, indexing "ij").

        The fast path for plots and integrals: binned FFT, binned products (2-D Gaussian),
        banded or exact separable sums, within 1e-3 of the peak of :meth:`pdf`. Unevenly
        spaced axes are evaluated exactly. ``exact_tails`` (default) recomputes exactly,
        from the points that matter there: in 1-D with the Gaussian every node where the
        binned value could be off by more than 1e-6 relative, which makes every node exact
        to 1e-6 relative (the FFT bins Taylor moments and bounds its error at each node);
        otherwise the far tails, the nodes below 1e-7 of the peak, where FFT round-off or
        the band's cut would leave no correct digit (and KL(f || f_hat) would be infinite).
        Between 1e-7 and 1e-3 of the peak a linearly binned value (2-D) is up to ~1 %
        off relative (the exact separable product, when the engine picks it, is exact).
        ``exact_tails=False`` skips the recomputation, for uses that such values cannot
        move (a maximum, JS, L1, a plot). ``xs`` and ``ys`` are 1-D arrays (a 2-D array is
        refused, not flattened); per-feature bandwidths map each axis through the fit's frame
        (:mod:`momkde_core.scaling`).
        """
        if not isinstance(exact_tails, (bool, np.bool_)):
            raise InvalidParameterError(f"exact_tails must be True or False, got {exact_tails!r}")
        sums, _, _, nears = self._grid_sums(xs, ys, exact=exact_tails)
        return self._to_outer_grid(self._combine(sums), nears, -self.log_norm_)

    def sample(self, n_samples: int = 1, random_state=None) -> np.ndarray:
        """``n_samples`` independent draws from the estimated density, shape (n_samples, d).

        A draw picks a block uniformly (KDE, RKDE, SPKDE: their one block), a row of it with
        probability its weight in the block, and adds h times a draw from the kernel: a
        uniform direction times a radius from the kernel's radial law
        (:meth:`Kernel.sample_radius`; for the Gaussian, a standard normal vector, as
        scikit-learn's ``KernelDensity.sample``). That samples q = (1/S) sum_s f_s, the
        mean of the block densities f_s: the estimate itself when S = 1.

        MoM-KDE (S > 1) keeps a draw x with probability median_s f_s(x) / (M q(x)),
        M = S / (floor(S/2) + 1) < 2 (rejection sampling): the kept draws follow the median
        divided by its integral *exactly* (with ``normalize=False`` too: the integral never
        enters), because median <= M q everywhere. Proof: sort the S values
        f_(1) <= ... <= f_(S) at x and let k = floor(S/2) + 1. S odd: the median is f_(k)
        and the k values f_(k), ..., f_(S) are each at least f_(k), so
        sum_s f_s >= k median. S even (k = S/2 + 1 >= 2): the median is
        (f_(k-1) + f_(k)) / 2 and sum_s f_s >= f_(k-1) + (k - 1) f_(k)
        = k (f_(k-1) + f_(k)) / 2 + (k/2 - 1)(f_(k) - f_(k-1)) >= k median. So
        median <= sum_s f_s / k = M q. A draw is kept with probability (integral of the
        median) / M, about 1/2 or more.

        ``random_state``: int, RandomState, numpy Generator or None (numpy's global state).
        """
        check_is_fitted(self, "bandwidth_")
        if not _is_int(n_samples) or n_samples < 0:
            raise InvalidParameterError(f"n_samples must be a non-negative integer, got {n_samples!r}")
        rng = random_state if isinstance(random_state, np.random.Generator) else \
            np.random.default_rng(check_random_state(random_state).randint(2**31))
        S = self._n_blocks
        log_bound = np.log(S / (S // 2 + 1))
        kept, missing, idle = [], n_samples, 0
        while missing:
            draws = self._sample_block_mean(missing if S == 1 else 2 * missing + 16, rng)
            if S > 1:
                logs = block_log_sums(self._X, self._bounds, draws, self._kernel,
                                      self._h, self._log_w)
                with np.errstate(invalid="ignore"):  # -inf - -inf where q is 0: rejected
                    log_accept = _log_median(logs) - logsumexp(logs, axis=0) + np.log(S) \
                        - log_bound
                draws = draws[np.log(rng.random(len(draws))) < log_accept][:missing]
            idle = 0 if len(draws) else idle + 1
            if idle == MAX_SAMPLE_ROUNDS:
                raise ValueError("no draw was accepted in 100 rounds: the median of the block "
                                 "KDEs is almost 0 where they hold their mass; use fewer blocks "
                                 "or a larger bandwidth")
            kept.append(draws)
            missing -= len(draws)
        draws = self._frame.outer(np.concatenate(kept)) if kept else \
            np.empty((0, self.n_features_in_))
        if not np.isfinite(draws).all():
            raise ValueError("some draws fall beyond float64's range (~1.8e308): the data sit "
                             "within a few bandwidths of it; rescale the data")
        return draws

    def _sample_block_mean(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws from q = (1/S) sum_s f_s (each block's weights sum to 1, so row i
        is picked with probability w_i / S), plus h times kernel noise, in the frame."""
        n, d = self._X.shape
        rows = rng.choice(n, size, p=self._w / self._w.sum())
        directions = rng.standard_normal((size, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        radii = self._kernel.sample_radius(d, size, rng)
        return self._X[rows] + self._h * radii[:, None] * directions


def _seeded_clone(estimator: BaseEstimator, random_state) -> BaseEstimator:
    """A clone of ``estimator``, its ``random_state`` parameter set to ``random_state`` when it
    has one and ``random_state`` is not None (None leaves the estimator's own seed), as a
    meta-estimator seeds what it clones (OutlierDetector, ScreenedKDE's screen)."""
    twin = clone(estimator)
    if random_state is not None and "random_state" in twin.get_params(deep=False):
        twin.set_params(random_state=random_state)
    return twin


def _equal_weights(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(log weights, weights) of n rows weighing 1/n each, as read-only views of one value:
    no n-long arrays (the weights are exp of the log, to the bit)."""
    return np.broadcast_to(-np.log(n), n), np.broadcast_to(np.exp(-np.log(n)), n)


def _finite_density(values: np.ndarray) -> np.ndarray:
    """``values`` if finite; else ValueError (a density beyond float64's range)."""
    if np.isposinf(values).any():
        raise ValueError("the density exceeds float64's range (~1.8e308) at some points (data "
                         "of tiny spread, or a tiny bandwidth, in several dimensions): use "
                         "score_samples (its log), or rescale the data")
    return values


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
        contamination of 0.1 (:mod:`momkde_core.robust_defaults`): the KDE with a bandwidth
        a spike cannot capture. "isj": the Improved Sheather-Jones bandwidth (Botev et al.
        2010), 1-D data only (:mod:`momkde_core.bandwidth`). With H = (h_1, ..., h_d),
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
    magnitude 1e-300 .. 1e300, h = 1e-90, d = 200; :mod:`momkde_core.scaling`) and map the
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
            return (X, np.array([0, n]), *_equal_weights(n))
        return X, np.array([0, n]), np.log(base), base


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
        outliers cannot capture it, as it captures "cv" (:mod:`momkde_core.robust_defaults`).
        "isj": the Improved Sheather-Jones bandwidth of the whole sample (Botev et al. 2010),
        1-D data only (:mod:`momkde_core.bandwidth`).
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
    :func:`momkde_core.bandwidth.select_bandwidth` says ("robust" ignores them).

    Attributes: ``n_blocks_`` (S used), ``bandwidth_`` (h used), ``contamination_`` (the
    share used), ``block_of_`` (block of each training row, -1 for rows of weight 0),
    ``log_norm_`` (log of the integral of the median that was divided out; a fit warns when
    it is below log 0.5: the median then keeps less than half of the blocks' mass, as with
    blocks of ~2-3 points in 2-D or 3-D, or ~5 points in 5-D, and the density is mostly that
    division),
    ``n_features_in_``, ``feature_names_in_`` (fitted on a DataFrame).
    """

    def __init__(self, n_blocks="auto", bandwidth="robust", contamination=0.1,
                 kernel: str = "gaussian", normalize: bool = True, random_state=None):
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
            raise InvalidParameterError(f"n_blocks must be 'auto' or an integer between 1 and n "
                                        f"= {n} (the number of rows), got {S!r}")
        check_contamination(self.contamination)
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError(f"normalize must be True or False, got "
                                        f"{self.normalize!r}")

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """Resolve the contamination and S (both may need the data) for "robust" and the fit."""
        eps = self.contamination
        if isinstance(eps, str) and not np.ptp(X, axis=0).any():
            eps = 0.0  # "auto" on one row or identical rows: nothing stands out
        elif isinstance(eps, str):  # "auto": on the data in units of their Scott bandwidths
            frame = selection_frame(X, select_bandwidth(X, "scott", self._kernel,
                                                        per_feature=True))
            eps = estimate_contamination(frame.inner(X), self._kernel, frame.h,
                                         random_state=self.random_state)
        self.contamination_ = float(eps)
        self.n_blocks_ = (n_blocks_for(len(X), self.contamination_)
                          if isinstance(self.n_blocks, str) else int(self.n_blocks))
        if self.n_blocks_ > 1 and len(X) < TINY_BLOCKS * self.n_blocks_:
            warnings.warn(
                f"{self.n_blocks_} blocks for {len(X)} points: blocks of fewer than "
                f"{TINY_BLOCKS} points, whose median no longer estimates the density (measured: "
                "worse than the plain KDE on clustered outliers at contamination 0.3 and above); "
                "S > 2|O| cannot be met with usable blocks beyond ~25 % of outliers",
                UserWarning, stacklevel=4)
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
            _, order, bounds = blocks
            labels = np.zeros(bounds[-1], dtype=np.intp)
            if order is not None and len(bounds) - 1 <= LABEL_LOOP_BLOCKS:
                for s in range(1, len(bounds) - 1):  # block by block: no n-long temporary
                    labels[order[bounds[s]:bounds[s + 1]]] = s
            elif order is not None:
                labels[order] = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
            if self._kept is not None:  # the rows of weight 0, which the fit never saw
                full = np.full(len(self._kept), -1, dtype=np.intp)
                full[self._kept] = labels
                labels = full
            blocks = ("labels", labels)
            self._blocks = blocks  # (the order is no longer kept)
        return blocks[1]

    def _fit_weights(self, X, base):
        n = len(X)
        S = self.n_blocks_
        # one block keeps the data order, so that its sums are the KDE's to the last bit
        order = None if S == 1 else check_random_state(self.random_state).permutation(n)
        # consecutive runs of the shuffled order, sizes differing by at most one (the first
        # n % S blocks take one more point), as numpy.array_split would cut them
        sizes = np.full(S, n // S) + (np.arange(S) < n % S)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        self._blocks = ("order", order, bounds)  # block_of_ is built from it when read
        if base is None and S == 1:  # the KDE's weights, so that its sums are the KDE's
            log_w, w = _equal_weights(n)
        elif base is None:  # each row weighs 1 / its block's size: built when first read
            log_w = w = None  # (see _log_w, _w and _grid_weights)
        else:  # each row's share of its block's weight
            w = base if order is None else base[order]
            log_w = np.log(w) - np.repeat(np.log(np.add.reduceat(w, bounds[:-1])), sizes)
            w = np.exp(log_w)
        # (np.take gathers rows ~2x faster than X[order] on (n, d) arrays, same values)
        return (X if order is None else np.take(X, order, axis=0)), bounds, log_w, w

    def _combine_log(self, block_logs):
        return _log_median(block_logs)

    def _combine(self, block_values):
        return _grid_median(block_values)


class RKDE(_BaseKDE):
    """Robust KDE of Kim & Scott (2012): an M-estimator in the kernel's feature space.

    f = sum_i w_i k_h(., X_i) minimises J(f) = (1/n) sum_i rho(||Phi(X_i) - f||_H), the
    M-estimation objective in the RKHS (their definition of RKDE; the MoM-KDE paper,
    section 5, restates it); the weights come from their KIRWLS algorithm: from w = 1/n,
    repeat

    (a) r_i = ||Phi(X_i) - f||_H = sqrt(k(X_i, X_i) - 2 (G w)_i + w'G w), the feature-space
        residual expanded with the kernel trick (G: the Gram matrix of k_h),
    (b) w_i = phi(r_i) / sum_j phi(r_j) with phi(r) = psi(r)/r, the re-weighting step,

    until the relative change of J(w) = mean rho(r_i) is below ``tol``.

    Hampel's a, b, c (Huber's a: the first) are ``percentiles`` of residuals chosen by
    ``scale_from``:

    - ``"absolute"`` (default), the RKDE author's own choice: the residuals of the
      absolute-loss RKDE (rho(r) = |r|, psi = 1, phi(r) = 1/r) run by KIRWLS to convergence
      from w = 1/n, and percentiles (50, 95, 100) by default: a = the median, b = the 95th
      percentile, c = the largest residual. This is what ``parameter_select`` does in Kim's
      MATLAB code ``robkde.m`` (JooSeuk Kim, 2011; public copy: GitHub
      churchilln/oppni-code-nwc, addons/rkde_code/robkde.m, commit 0c00625ae3c5): l. 67
      ``w = 1./normdiff;`` iterated until ``abs(J - J_old) < J_old*tol`` (l. 74, tol 1e-8),
      then l. 79-88 ``sort_norm = sort(normdiff, 'descend'); ... a = sort_norm(floor(n/2));
      b = sort_norm(floor(n/20)); c = max(normdiff);`` (Huber: a only). numpy's interpolated
      percentiles differ from those order statistics by at most two ranks. The Hampel
      KIRWLS then restarts from w = 1/n (l. 26), as here.
    - ``"kde"``: the residuals of the plain KDE (w = 1/n), percentiles (50, 75, 95) by
      default: this project's earlier choice. With ``percentiles=(100, 100, 100)`` no point
      is down-weighted and RKDE is the KDE.

    ``percentiles=None`` takes the default of ``scale_from``. Hampel's psi is 0 from r = c
    on, r = c included (as the MATLAB ``psi2.m``, l. 17 and 22: ``i4 = (in >=c); ...
    out(i4) = 0;``): with c = the largest absolute-loss residual, a point whose residual
    reaches c at some iteration gets weight 0 at the next. (The MoM-KDE authors' Python code, lminvielle/mom-kde
    libs/kde_lib.py ``rkde``, also takes the absolute-loss residuals but at percentiles
    (50, 75, 95), and after at most 100 iterations.)
    Measured (ratio 0.2, 500 or 1000 inliers, h from 0.05 to 0.5): on the adversarial
    scheme (a tight outlier cluster) the KDE's residuals make the cluster's points the best
    fitted ones, so ``"kde"`` concentrates weight on it (39-81 % of the weight on 20 % of
    outliers); ``"absolute"`` leaves it at about its share (20-21 %): its a is above most
    of the KDE's residuals and n w_i stays in [0.79, 1.06] (in [0.93, 1.01] for h <= 0.3):
    it stops feeding the cluster but does not down-weight it either, RKDE ~ the KDE. On scattered (uniform)
    outliers ``"absolute"`` down-weights less than ``"kde"`` (6-11 % against 5-8 %): b at
    the 95th percentile and c at the maximum leave 5 % of the points on the descending
    part of psi.

    Every update is element-wise: each point keeps its own weight (the MoM-KDE authors'
    Python ``psi`` concatenates the points by loss segment and so mixes them up; Kim's
    MATLAB indexes them in place).
    The feature-space view needs a positive-definite kernel (gaussian, exponential); with
    the others the squared residuals are clipped at 0.

    Sample weights are the base measure: J(f) = sum_i p_i rho(||Phi(X_i) - f||_H) with
    p = w / sum w in place of 1/n (the M-estimator of the weighted empirical measure, Kim &
    Scott's definition with that measure), KIRWLS starts from w = p and updates
    w_i = p_i phi(r_i) / sum_j p_j phi(r_j). For given a, b, c that is exactly RKDE on the
    sample with each row repeated w_i times. a, b, c are read from the residuals of the rows
    of positive weight, each row once (unit weights are then the unweighted fit to the bit;
    with repeated rows the percentiles would count copies: the one difference). The
    weights' effect is then the robust one: a heavy row pulls f towards itself only as far
    as its residual lets it.

    ``bandwidth``: a number, one per feature, or a rule, as for :class:`KDE` ("scott",
    "silverman", "cv", "robust", "isj").

    ``verbose``: when true, the fit logs (INFO, logger ``momkde_core.estimators``) its size,
    its Gram path (dense or grid, :class:`~momkde_core.engine.GramOperator`) and each
    iteration's objective: a long fit (n in the tens of thousands) shows its progress.

    Attributes: ``weights_`` (on the simplex, in the order of the training rows; 0 for rows
    of weight 0), ``n_iter_``, ``objective_`` (J at each iteration), ``loss_params_`` (a, b,
    c; Huber: (a,)), ``scale_n_iter_`` (iterations of the absolute-loss KIRWLS; 0 for
    ``"kde"``), ``n_features_in_``, ``feature_names_in_`` (fitted on a DataFrame).
    """

    _row_attributes = {"weights_": 0.0}

    def __init__(self, bandwidth="scott", kernel: str = "gaussian", loss: str = "hampel",
                 scale_from: str = "absolute", percentiles=None, max_iter: int = 100,
                 tol: float = 1e-8, random_state=None, verbose: int = 0):
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.loss = loss
        self.scale_from = scale_from
        self.percentiles = percentiles
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _percentiles(self) -> np.ndarray:
        q = DEFAULT_PERCENTILES[self.scale_from] if self.percentiles is None \
            else self.percentiles
        return np.asarray(q, dtype=float).ravel()

    def _check_params(self, n: int) -> None:
        if not isinstance(self.loss, str) or self.loss not in ("hampel", "huber"):
            raise InvalidParameterError(f"unknown loss {self.loss!r}; allowed: 'hampel', 'huber'")
        if not isinstance(self.scale_from, str) or self.scale_from not in SCALE_SOURCES:
            raise InvalidParameterError(f"unknown scale_from {self.scale_from!r}; allowed: "
                             + ", ".join(map(repr, SCALE_SOURCES)))
        try:
            q = self._percentiles()
        except (TypeError, ValueError):
            q = np.array([np.nan])
        if q.size != 3 or not np.all((q >= 0) & (q <= 100)) or np.any(np.diff(q) < 0):
            raise InvalidParameterError("percentiles must be None or three non-decreasing numbers in "
                             f"[0, 100] (Hampel's a, b, c), got {self.percentiles!r}")
        _check_iterations(self.max_iter, self.tol)

    def _fit_weights(self, X, base):
        gram = GramOperator(X, self._kernel, self._h)
        _log_start(self, gram)
        residuals, self.scale_n_iter_ = scale_residuals(
            gram, self.scale_from, self.max_iter, self.tol, base,
            _iteration_logger(self, "absolute-loss KIRWLS (scale)"))
        self.loss_params_ = loss_parameters(residuals, self.loss, self._percentiles())
        self.weights_, self.n_iter_, self.objective_ = kirwls_with_params(
            gram, self.loss, self.loss_params_, self.max_iter, self.tol, base,
            _iteration_logger(self, f"{self.loss} KIRWLS"))
        if not self._frame.identity:  # residuals scale as sqrt(density), J as a density
            jacobian = np.exp(self._frame.log_jacobian)
            self.loss_params_ = tuple(p * np.sqrt(jacobian) for p in self.loss_params_)
            self.objective_ = self.objective_ * jacobian
        return _one_block(X, self.weights_)


class SPKDE(_BaseKDE):
    """Scaled and projected KDE of Vandermeulen & Scott (2014).

    g = sum_i a_i k_h(., X_i) with a on the simplex minimises ||beta f_KDE - g||_{L2}
    (their definition of SPKDE: scale the KDE by beta, then project it onto the convex hull
    of the kernels in L2), beta = 1 / (1 - contamination) > 1. Expanding the norm gives
    the quadratic program min_a a'Q a - 2 beta a'Q 1/n over the simplex, with
    Q_ij = <k_h(., X_i), k_h(., X_j)>_{L2} = K_{sqrt(2) h}(X_i - X_j) for the Gaussian.
    It is solved by accelerated projected gradient (FISTA) with exact Euclidean projection
    onto the simplex and step 1/L, L = 2 max row sum of Q >= 2 lambda_max(Q), stopping when
    the relative change of the objective is below ``tol``. The closed-form L2 Gram matrix
    needs the Gaussian kernel.

    Sample weights are the base measure: f_KDE is the weighted KDE sum_i p_i k_h(., X_i),
    p = w / sum w, so the QP's target becomes beta p and integer weights give exactly the
    SPKDE of the sample with each row repeated w_i times (the same QP).

    ``bandwidth``: a number, one per feature, or a rule, as for :class:`KDE` ("scott",
    "silverman", "cv", "robust", "isj").

    ``verbose``: when true, the fit logs (INFO, logger ``momkde_core.estimators``) its size,
    its Gram path (dense or grid, :class:`~momkde_core.engine.GramOperator`) and each
    iteration's objective: a long fit (n in the tens of thousands) shows its progress.

    Attributes: ``weights_`` (a, in the order of the training rows; 0 for rows of weight
    0), ``beta_``, ``n_iter_``, ``n_features_in_``, ``feature_names_in_`` (fitted on a
    DataFrame).
    """

    _row_attributes = {"weights_": 0.0}
    _gram_scale = float(np.sqrt(2.0))  # the L2 Gram matrix: a Gaussian of bandwidth sqrt(2) h
    _peak_limit = PEAK_LIMIT_FLOAT32  # ... held in float32

    def __init__(self, bandwidth="scott", contamination: float = 0.1, beta=None,
                 kernel: str = "gaussian", max_iter: int = 1000, tol: float = 1e-5,
                 random_state=None, verbose: int = 0):
        self.bandwidth = bandwidth
        self.contamination = contamination
        self.beta = beta
        self.kernel = kernel
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self, n: int) -> None:
        if self._kernel.name != "gaussian":
            raise ValueError(f"SPKDE needs kernel='gaussian' (its L2 Gram matrix is a Gaussian of "
                             f"bandwidth sqrt(2) h), got kernel={self.kernel!r}")
        if self.beta is None:
            eps = self.contamination
            if not _is_number(eps) or not 0.0 <= eps < 1.0:
                raise InvalidParameterError(f"contamination must be a number in [0, 1), got "
                                            f"{eps!r}")
        elif not _is_number(self.beta) or not self.beta >= 1.0 or not np.isfinite(self.beta):
            raise InvalidParameterError(f"beta must be a finite number >= 1, got {self.beta!r}")
        _check_iterations(self.max_iter, self.tol)

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """"robust" trims the stated contamination (when it is below 1/2 and beta is not set)."""
        eps = self.contamination
        return {"contamination": eps} if self.beta is None and eps < 0.5 else {}

    def _fit_weights(self, X, base):
        self.beta_ = 1.0 / (1.0 - float(self.contamination)) if self.beta is None \
            else float(self.beta)
        gram = GramOperator(X, self._kernel, self._gram_scale * self._h, dtype=np.float32)
        _log_start(self, gram)
        self.weights_, self.n_iter_ = spkde_weights(gram, self.beta_, self.max_iter, self.tol,
                                                    base, _iteration_logger(self, "FISTA"))
        return _one_block(X, self.weights_)


def _log_start(est: BaseEstimator, gram: GramOperator) -> None:
    """With ``verbose``, log the size of the fit and how its Gram products are computed."""
    if est.verbose:
        LOGGER.info("%s: %d points in %d-D, Gram products by the %s path", type(est).__name__,
                    *gram.X.shape, gram.method)


def _iteration_logger(est: BaseEstimator, stage: str):
    """The solvers' ``progress`` callable: with ``verbose``, each iteration's objective is
    logged at INFO level on the ``momkde_core.estimators`` logger (shown once logging is
    configured, e.g. ``logging.basicConfig(level=logging.INFO)``); None (no cost) otherwise."""
    if not est.verbose:
        return None
    name = type(est).__name__

    def progress(n_iter: int, objective: float) -> None:
        LOGGER.info("%s %s: iteration %d (max_iter %d), objective %.10g", name, stage, n_iter,
                    est.max_iter, objective)

    return progress


def _check_iterations(max_iter, tol) -> None:
    if not _is_int(max_iter) or max_iter < 1:
        raise InvalidParameterError(f"max_iter must be a positive integer, got {max_iter!r}")
    if not _is_number(tol) or not tol > 0:
        raise InvalidParameterError(f"tol must be a positive number, got {tol!r}")


def _is_int(value) -> bool:
    """An integer, not a bool (True is an Integral in Python, but no count)."""
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _is_number(value) -> bool:
    """A real number, not a bool."""
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def _one_block(X: np.ndarray, weights: np.ndarray):
    """One block holding every point, with log and linear weights (zero weight: -inf)."""
    with np.errstate(divide="ignore"):
        return X, np.array([0, len(X)]), np.log(weights), weights
