"""The shared base of the density estimators: fit, evaluation and sampling over one engine.

KDE, MoM-KDE, RKDE and SPKDE (and ScreenedKDE, a KDE) are subclasses of ``_BaseKDE``. Each
reduces, after ``fit``, to the same representation: the data sorted into blocks, a log
weight per point, and a rule to combine the block sums (one block: the sum itself; MoM-KDE:
the pointwise median, divided by its integral). Evaluation at points and on grids is then
shared (:mod:`momkde_core._engine`), so an improvement there speeds up all four. The
public methods of ``_BaseKDE`` are those every estimator has, documented once here:
``fit``, ``score_samples``, ``pdf``, ``score``, ``pdf_grid``, ``block_pdf_grid``,
``block_score_samples`` and ``sample``.

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
from numbers import Number
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._blocks import FittedBlocks, log_integral
from .._engine import LOG_SAFE_LINEAR, PEAK_LIMIT, Frame, GramOperator, working_frame
from .._validation import InvalidParameterError, Rule, check_parameters, is_bool, is_int, is_number
from ..bandwidth._rules import select_bandwidth
from ..kernels import Kernel, get_kernel

LOGGER = logging.getLogger("momkde_core.estimators")  # one logger for the four estimators
TINY_BLOCKS = 2  # MoM-KDE warns when its blocks hold fewer points than this on average
THIN_MEDIAN = 0.5  # ... and when its median holds less than this share of the blocks' mass
MAX_SAMPLE_ROUNDS = 100  # sample() gives up after this many rounds without an accepted draw


def _validate_data(est: BaseEstimator, X, *, reset: bool) -> np.ndarray:
    """X as a float (n, d) array, checked by scikit-learn's ``validate_data``.

    ``reset`` (fit) sets ``n_features_in_`` and, for a DataFrame, ``feature_names_in_``;
    otherwise (scoring) another number of features, or reordered, renamed or missing columns
    raise scikit-learn's ValueError. A 1-D X is one feature. A value that is no number
    raises scikit-learn's TypeError (in an object array) or ValueError, with the shape asked
    for added; NaN and inf raise a ValueError naming the rows to fix. Fitting needs a row.
    """
    what, name = ("X" if reset else "Y"), type(est).__name__
    expected = (
        "(n,) or (n, d)"
        if reset
        else f"(m, {est.n_features_in_}): {name} was fitted on {est.n_features_in_} feature(s)"
    )
    try:  # (ensure_2d=False leaves the feature count to us: 1-D is one feature)
        arr = validate_data(
            est,
            X,
            reset=reset,
            ensure_2d=False,
            dtype=np.float64,
            ensure_all_finite=False,
            ensure_min_samples=0,
            ensure_min_features=1,
        )
    except TypeError as err:
        raise TypeError(f"{what} must be a numeric array of shape {expected}: {err}") from None
    except ValueError as err:
        raise ValueError(
            f"{str(err).rstrip()} ({what} must be a numeric array of shape {expected})"
        ) from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{what} must have shape {expected}, got {arr.ndim} dimensions")
    if reset:
        est.n_features_in_ = arr.shape[1]
    elif arr.shape[1] != est.n_features_in_:  # scikit-learn's message, and what was expected
        raise ValueError(
            f"X has {arr.shape[1]} features, but {name} is expecting "
            f"{est.n_features_in_} features as input ({what} must be a numeric "
            f"array of shape {expected})"
        )
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
        raise ValueError(
            f"{what} contains {kind} values in {len(rows)} row(s) (first: row "
            f"{rows[0]}); all values must be finite: drop or impute those rows"
        )
    return arr


def _base_measure(sample_weight, X: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(the weights of the rows with a positive weight divided by their sum, those rows as a
    boolean mask), or (None, None) without weights. Rows of weight 0 are left out of the fit
    altogether (the same fit as without them, as scikit-learn's contract asks)."""
    if sample_weight is None:
        return None, None
    w = _checked_weights(sample_weight, len(X))
    kept = w > 0
    if not kept.any():
        raise ValueError(
            "sample_weight is zero for every row: at least one weight must be positive"
        )
    return w[kept] / w[kept].sum(), kept


def _checked_weights(sample_weight, n: int) -> np.ndarray:
    """``sample_weight`` as n non-negative float64 weights: a number is every row's weight;
    an array (numbers, finite: scikit-learn's ``check_array``) must be 1-D of length n."""
    if isinstance(sample_weight, Number):
        w = np.full(n, sample_weight, dtype=np.float64)
    else:
        w = check_array(
            sample_weight, ensure_2d=False, dtype=np.float64, input_name="sample_weight"
        )
        if w.ndim != 1:
            raise ValueError(
                f"Sample weights must be 1D array or scalar, got {w.ndim}D array. Expected "
                f"either a scalar value or a 1D array of length {n}."
            )
        if w.shape != (n,):
            raise ValueError(f"sample_weight.shape == {w.shape}, expected {(n,)}!")
    if (w < 0).any():
        raise ValueError("Negative values in data passed to `sample_weight`.")
    return w


class _BaseKDE(BaseEstimator):
    """Shared fit / evaluation for estimators of the form combine_s sum_{i in s} w_i K_h.

    Private: its public methods are those of every estimator (:class:`~momkde_core.KDE`,
    :class:`~momkde_core.MoMKDE`, :class:`~momkde_core.RKDE`, :class:`~momkde_core.SPKDE`,
    :class:`~momkde_core.ScreenedKDE`) and are documented here once.

    Subclasses implement ``_fit_weights(X, base)``, returning (X sorted by block, block
    bounds, log weights per point, the same weights in linear space; both None when each
    block's rows weigh one over its size: built on first use), where ``base`` is None or
    the sample weights (positive, summing to 1); ``_median`` (default False: the single
    block) combines the blocks by their pointwise median. The fit is held in a
    :class:`~momkde_core._blocks.FittedBlocks` (``_fitted``). ``_kept`` is the mask of the
    rows of positive weight (None: all). ``_row_attributes`` names fitted per-row attributes
    and their value for the rows of weight 0, which the fit never sees.
    ``_parameter_constraints`` declares the subclass's own parameters' constraints
    (:mod:`momkde_core._validation`), checked at fit before any costly work.
    """

    _normalizes = False
    _median = False
    _row_attributes: dict[str, float] = {}
    _gram_scale = 1.0  # the kernel scale (times h) whose values the fit holds in linear space
    _peak_limit = PEAK_LIMIT  # ... and the range its peak must stay in (scaling.working_frame)
    _parameter_constraints: dict[str, Rule | tuple[Rule, ...]] = {}

    def _check_parameters(self, n: int | None) -> None:
        """Check the parameters against the class's ``_parameter_constraints``, for n rows
        (None: before the rows are known)."""
        check_parameters(self._parameter_constraints, {**self.get_params(deep=False), "n": n})

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """Keyword arguments of ``select_bandwidth`` for this estimator (the "robust" rule's
        blocks and contamination); by default "robust" assumes its own default share."""
        return {}

    def _forget_fit(self) -> None:
        """Remove every fitted attribute (public ones end with "_"): the estimator is unfitted."""
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            delattr(self, name)

    def _fit(self, X, sample_weight) -> None:
        X = _validate_data(self, X, reset=True)
        self._kernel: Kernel = get_kernel(self.kernel)
        base, kept = _base_measure(sample_weight, X)
        self._kept = kept
        if kept is not None:
            X = X[kept]
        self._check_parameters(len(X))
        H = select_bandwidth(
            X,
            self.bandwidth,
            self._kernel,
            random_state=self.random_state,
            weights=base,
            per_feature=True,
            **self._bandwidth_options(X),
        )
        self.bandwidth_ = float(H[0]) if np.all(H == H[0]) else H
        self._frame: Frame = working_frame(X, H, self._kernel, self._gram_scale, self._peak_limit)
        fitted_X, bounds, log_w, w = self._fit_weights(self._frame.inner(X), base)
        self._fitted = FittedBlocks(
            fitted_X,
            bounds,
            self._kernel,
            self._frame.h,
            self._frame,
            median=self._median,
            weighted=base is not None,
            log_w_values=log_w,
            w_values=w,
        )
        if kept is not None and not kept.all():
            for name, fill in self._row_attributes.items():
                values = getattr(self, name)
                full = np.full(len(kept), fill, dtype=values.dtype)
                full[kept] = values
                setattr(self, name, full)
        self.log_norm_ = 0.0
        fitted = self._fitted
        if self._normalizes and fitted.n_blocks > 1:
            seed = check_random_state(self.random_state).randint(2**31)
            self.log_norm_ = log_integral(fitted, np.random.default_rng(seed))
            # below SAFE_LINEAR the median is made of flushed or underflowed terms, and dividing
            # by it would overflow: numerically, there is no density to normalise
            if not LOG_SAFE_LINEAR <= self.log_norm_ < np.inf:
                raise ValueError(
                    f"the median of the {fitted.n_blocks} block KDEs is 0 everywhere (no point "
                    "is covered by a majority of blocks): use fewer blocks or a larger bandwidth"
                )
            if self.log_norm_ < np.log(THIN_MEDIAN):
                warnings.warn(
                    f"the median of the {fitted.n_blocks} block KDEs holds only "
                    f"{100 * np.exp(self.log_norm_):.2g} % of their mass (blocks of "
                    f"{len(fitted.X) / fitted.n_blocks:.1f} points in {self.n_features_in_}-D): "
                    "most of this density is the division by that integral, and it no longer "
                    "follows the data; use fewer blocks (a smaller contamination)",
                    UserWarning,
                    stacklevel=3,
                )

    def fit(self, X: ArrayLike, y: object = None, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the estimator on the rows of X.

        The bandwidth is chosen by its rule (or checked), the rows are sorted into the
        estimator's blocks and weighted, and the fitted attributes (ending in ``_``) are set.

        Parameters
        ----------
        X : array-like of shape (n,) or (n, d)
            The training rows, finite numbers; a 1-D X is one feature. A DataFrame (with
            string column names) sets ``feature_names_in_``.
        y : None
            Ignored; present for scikit-learn's API.
        sample_weight : array-like of shape (n,), default None
            Non-negative weights of the rows (None: equal). The estimate is that of the
            weighted empirical measure sum_i w_i delta_{X_i} / sum w; rows of weight 0 are
            left out. For KDE, integer weights give the fit on the sample with each row
            repeated that many times (with a numeric bandwidth: the rules see weights as
            :func:`momkde_core.bandwidth.select_bandwidth` says); what they mean for the
            other estimators is in each class's docstring.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        momkde_core.InvalidParameterError
            A parameter of the wrong type or value (``bandwidth=True``, ``normalize="no"``,
            ``n_blocks=3.0``): both a ValueError and a TypeError, as scikit-learn's. Parameters are checked before any costly work (before "cv").
        ValueError
            X has no row, is not of shape (n,) or (n, d), or holds NaN or inf (the message
            names the rows to fix); every ``sample_weight`` is 0; or a feature spans more than
            1e100 bandwidths (the frame's limit, see :class:`~momkde_core.KDE`).
        TypeError
            X holds values that are no numbers (in an object array).

        See Also
        --------
        score_samples : the log density of the fitted estimate.
        sample : draws from it.

        Notes
        -----
        A fit that fails leaves the estimator unfitted (never half-updated): earlier
        fitted attributes are removed first, and parameters are checked before "cv".

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE
        >>> X = np.random.default_rng(0).standard_normal((300, 2))
        >>> kde = KDE(bandwidth=0.4).fit(X)
        >>> kde.bandwidth_, kde.n_features_in_
        (0.4, 2)

        Integer weights fit the sample with each row repeated that many times:

        >>> w = np.arange(300) % 3  # 0, 1 or 2 copies of each row
        >>> weighted = KDE(bandwidth=0.4).fit(X, sample_weight=w)
        >>> repeated = KDE(bandwidth=0.4).fit(np.repeat(X, w, axis=0))
        >>> bool(np.allclose(weighted.score_samples(X[:5]), repeated.score_samples(X[:5])))
        True

        Bad input is refused with what to fix:

        >>> KDE().fit([[0.0], [np.nan]])
        Traceback (most recent call last):
        ...
        ValueError: X contains NaN values in 1 row(s) (first: row 1); all values must be finite...
        """
        self._forget_fit()
        try:
            self._fit(X, sample_weight)
        except Exception:
            self._forget_fit()
            raise
        return self

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

    def block_score_samples(self, Y: ArrayLike) -> np.ndarray:
        """Log of each block's weighted kernel sum at the rows of Y, unnormalised.

        Parameters
        ----------
        Y : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit.

        Returns
        -------
        block_log_sums : ndarray of shape (n_blocks, m)
            Row s: the log of block s's weighted kernel sum at Y (for MoM-KDE, block s's KDE,
            before the median is divided by its integral); -inf out of reach of the kernels.
            One row for KDE, RKDE and SPKDE (their one block).

        See Also
        --------
        block_pdf_grid : the same sums on a grid.
        score_samples : the log density, which combines them.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE, MoMKDE
        >>> X = np.random.default_rng(0).standard_normal(300)
        >>> MoMKDE(n_blocks=5, bandwidth=0.5, random_state=0).fit(X).block_score_samples(
        ...     [0.0, 1.0, 2.0]
        ... ).shape
        (5, 3)
        >>> kde = KDE(bandwidth=0.5).fit(X)  # one block: its sum is the density
        >>> bool(np.allclose(kde.block_score_samples(X[:5])[0], kde.score_samples(X[:5])))
        True
        """
        Z, near = self._check_query(Y)
        return self._to_outer_logs(self._fitted.block_log_sums(Z[near]), near)

    def score_samples(self, Y: ArrayLike) -> np.ndarray:
        """Log of the estimated density at the rows of Y.

        scikit-learn's convention for density estimators (the higher, the more typical a
        point). Computed in log space, so a point far in the tails gets a finite log density
        where :meth:`pdf` underflows to 0.

        Parameters
        ----------
        Y : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit (the same number; for a fit on a
            DataFrame, the same column names in the same order). A 1-D Y is m points of one
            feature.

        Returns
        -------
        log_density : ndarray of shape (m,)
            The log density at each row of Y; -inf where the density is 0.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            Y has another number of features than the fit (or reordered, renamed or missing
            columns), or holds NaN or inf.

        See Also
        --------
        pdf : the density itself.
        score : the total log-likelihood.
        pdf_grid : the density on a grid, the fast path.

        Notes
        -----
        Exact (to ~1e-12 relative) at every point, by the cheapest sums that are exact there:
        in 1-D with a small h, the pairs within the kernel's radius (trusted where above
        1e-5 of the kernel's peak, so the dropped terms, below ~2e-17 of it, cannot matter;
        everywhere for a compact kernel, which drops nothing); in d <= 2, linear sums over
        all points (trusted above 1e-290, where no term was lost to underflow); else, and for
        the points left, log space, which never underflows.

        The sums run in the fit's frame (:mod:`momkde_core._engine._scaling`); points whose
        coordinates there exceed 1e150 (beyond every kernel's reach, e.g. 1e300 for data of
        scale 1) score -inf: their density underflows to 0.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE
        >>> X = np.random.default_rng(0).standard_normal(300)
        >>> kde = KDE(bandwidth=0.5).fit(X)
        >>> kde.score_samples([-1.0, 0.0, 1.0]).shape
        (3,)
        >>> bool(np.isfinite(kde.score_samples([100.0])[0]))  # where pdf underflows to 0
        True
        >>> float(kde.pdf([100.0])[0])
        0.0
        >>> float(kde.score_samples([1e300])[0])  # beyond every kernel's reach
        -inf
        """
        Z, near = self._check_query(Y)
        return self._to_outer_logs(self._fitted.log_values(Z[near]) - self.log_norm_, near)

    def pdf(self, Y: ArrayLike) -> np.ndarray:
        """The estimated density at the rows of Y.

        The exponential of :meth:`score_samples`.

        Parameters
        ----------
        Y : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit.

        Returns
        -------
        density : ndarray of shape (m,)
            The density at each row of Y, non-negative.

        Raises
        ------
        ValueError
            Where the density exceeds float64's range (~1.8e308: data of spread ~1e-300 in
            2-D and more); :meth:`score_samples` gives its log. Also for Y as in
            :meth:`score_samples`.

        See Also
        --------
        score_samples : its log, finite where the density underflows.
        pdf_grid : the density on a grid, the fast path.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE
        >>> X = np.random.default_rng(0).standard_normal((300, 2))
        >>> density = KDE(bandwidth=0.5).fit(X).pdf([[0.0, 0.0], [3.0, 3.0]])
        >>> density.shape, bool((density >= 0).all())
        ((2,), True)
        >>> bool(density[0] > density[1])  # the centre of the data is denser
        True
        """
        with np.errstate(over="ignore"):  # (an overflow is the ValueError that follows)
            return _finite_density(np.exp(self.score_samples(Y)))

    def score(self, X: ArrayLike, y: object = None) -> float:
        """Total log-likelihood of the rows of X under the estimate.

        scikit-learn's convention for density estimators (what ``GridSearchCV`` maximises by
        default): the sum of :meth:`score_samples` over the rows.

        Parameters
        ----------
        X : array-like of shape (m,) or (m, d)
            The rows, with the features of the fit.
        y : None
            Ignored; present for scikit-learn's API.

        Returns
        -------
        log_likelihood : float
            The sum of the log densities at the rows of X (-inf if one of them is 0).

        See Also
        --------
        score_samples : the log density row by row.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE
        >>> X = np.random.default_rng(0).standard_normal(300)
        >>> kde = KDE(bandwidth=0.5).fit(X[:200])
        >>> bool(np.isclose(kde.score(X[200:]), kde.score_samples(X[200:]).sum()))
        True
        """
        return float(np.sum(self.score_samples(X)))

    def block_pdf_grid(self, xs: ArrayLike, ys: ArrayLike | None = None) -> np.ndarray:
        """Each block's weighted kernel sum on a 1-D grid or a 2-D mesh.

        For MoM-KDE these are the S block KDEs whose median is the estimate (before it is
        divided by its integral): the mechanism a plot can show.

        Parameters
        ----------
        xs : array-like of shape (nx,)
            The grid's first axis (the only one for a fit on one feature).
        ys : array-like of shape (ny,), default None
            The second axis, for a fit on two features (mesh with indexing "ij").

        Returns
        -------
        block_sums : ndarray of shape (n_blocks, nx) or (n_blocks, nx, ny)
            Block s's weighted kernel sum at each node (one block for KDE, RKDE and SPKDE).

        Raises
        ------
        ValueError
            Not one axis per feature, or an axis that is not a non-empty finite 1-D array.

        See Also
        --------
        pdf_grid : the estimate on the grid (for MoM-KDE: the median of these, normalised).
        block_score_samples : the blocks' log sums at points.

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import MoMKDE
        >>> X = np.random.default_rng(0).standard_normal(300)
        >>> mom = MoMKDE(n_blocks=5, bandwidth=0.5, random_state=0).fit(X)
        >>> xs = np.linspace(-4, 4, 81)
        >>> blocks = mom.block_pdf_grid(xs)
        >>> blocks.shape
        (5, 81)
        >>> median = np.median(blocks, axis=0) / np.exp(mom.log_norm_)  # the estimate
        >>> bool(np.allclose(median, mom.pdf_grid(xs, exact_tails=False)))
        True
        """
        sums, _, _, nears = self._grid_sums(xs, ys)
        return self._to_outer_grid(sums, nears, 0.0)

    def _grid_axes(self, xs, ys) -> list[np.ndarray]:
        """The axes as 1-D float arrays, one per feature, checked."""
        check_is_fitted(self, "bandwidth_")
        given = [xs] if ys is None else [xs, ys]
        if len(given) != self.n_features_in_:
            raise ValueError(
                f"pdf_grid takes one axis per feature: the estimator was fitted on "
                f"{self.n_features_in_} feature(s), got {len(given)} axis/axes"
            )
        axes = []
        for name, axis in zip(("xs", "ys"), given):
            try:
                axis = np.asarray(axis, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a 1-D array of numbers, got {axis!r}") from None
            if axis.ndim != 1:
                raise ValueError(
                    f"{name} must be a 1-D array (one grid axis), got shape {axis.shape}"
                )
            if not np.isfinite(axis).all() or axis.size == 0:
                raise ValueError("grid axes must be non-empty and finite")
            axes.append(axis)
        return axes

    def _grid_sums(
        self, xs, ys, exact: bool = False
    ) -> tuple[np.ndarray, list[np.ndarray], str, list[np.ndarray]]:
        """(block sums on the nodes within reach, those nodes' axes in the frame, the engine
        backend that computed them, per axis the mask of those nodes); ``exact``: see
        :func:`momkde_core._engine._grid_sums.block_grid_sums`."""
        inner = [self._frame.inner_axis(a, k) for k, a in enumerate(self._grid_axes(xs, ys))]
        axes, nears = [z for z, _ in inner], [near for _, near in inner]
        if any(a.size == 0 for a in axes):
            return (
                np.zeros((self._fitted.n_blocks,) + tuple(len(a) for a in axes)),
                axes,
                "none",
                nears,
            )
        sums, backend = self._fitted.grid_sums(axes, exact)
        return sums, axes, backend, nears

    def _to_outer_grid(
        self, values: np.ndarray, nears: list[np.ndarray], log_factor: float
    ) -> np.ndarray:
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

    def pdf_grid(
        self, xs: ArrayLike, ys: ArrayLike | None = None, exact_tails: bool = True
    ) -> np.ndarray:
        """Density on evenly spaced xs (1-D) or on the mesh of xs and ys (2-D, indexing "ij").

        The fast path for plots and integrals: binned FFT, binned products (2-D Gaussian),
        banded or exact separable sums, within 1e-3 of the peak of :meth:`pdf`. Unevenly
        spaced axes are evaluated exactly.

        Parameters
        ----------
        xs : array-like of shape (nx,)
            The grid's first axis, a 1-D array (a 2-D array is refused, not flattened); the
            only one for a fit on one feature.
        ys : array-like of shape (ny,), default None
            The second axis, for a fit on two features.
        exact_tails : bool, default True
            Recompute exactly, from the points that matter there, the nodes where the fast
            path loses digits (Notes). False skips the recomputation, for uses that such
            values cannot move (a maximum, JS, L1, a plot).

        Returns
        -------
        density : ndarray of shape (nx,) or (nx, ny)
            The density at each node, non-negative.

        Raises
        ------
        ValueError
            Not one axis per feature (a fit on more than two features has no grid), or an
            axis that is not a non-empty finite 1-D array; a density beyond float64's range
            (as :meth:`pdf`).
        momkde_core.InvalidParameterError
            ``exact_tails`` is not True or False.

        See Also
        --------
        pdf : the density at any points, exact.
        block_pdf_grid : each block's sum on the grid.

        Notes
        -----
        ``exact_tails=True`` recomputes: in 1-D with the Gaussian, every node where the
        binned value could be off by more than 1e-6 relative, which makes every node exact to
        1e-6 relative (the FFT bins Taylor moments and bounds its error at each node);
        otherwise the far tails, the nodes below 1e-7 of the peak, where FFT round-off or the
        band's cut would leave no correct digit (and KL(f || f_hat) would be infinite).
        Between 1e-7 and 1e-3 of the peak a linearly binned value (2-D) is up to ~1 % off
        relative (the exact separable product, when the engine picks it, is exact).

        Per-feature bandwidths map each axis through the fit's frame
        (:mod:`momkde_core._engine._scaling`).

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE
        >>> X = np.random.default_rng(0).standard_normal(300)
        >>> kde = KDE(bandwidth=0.5).fit(X)
        >>> xs = np.linspace(-6, 6, 241)
        >>> grid = kde.pdf_grid(xs)
        >>> grid.shape
        (241,)
        >>> round(float(grid.sum() * (xs[1] - xs[0])), 2)  # it integrates to 1
        1.0
        >>> bool(np.allclose(grid, kde.pdf(xs), rtol=1e-6, atol=0))  # 1-D Gaussian: exact
        True

        On two features, the mesh of two axes:

        >>> X2 = np.random.default_rng(0).standard_normal((300, 2))
        >>> kde2 = KDE(bandwidth=0.5).fit(X2)
        >>> kde2.pdf_grid(np.linspace(-4, 4, 41), np.linspace(-4, 4, 51)).shape
        (41, 51)
        """
        if not is_bool(exact_tails):
            raise InvalidParameterError(f"exact_tails must be True or False, got {exact_tails!r}")
        sums, _, _, nears = self._grid_sums(xs, ys, exact=exact_tails)
        return self._to_outer_grid(self._fitted.combine(sums), nears, -self.log_norm_)

    def sample(
        self,
        n_samples: int = 1,
        random_state: int | np.random.RandomState | np.random.Generator | None = None,
    ) -> np.ndarray:
        """Independent draws from the estimated density.

        Exact for every estimator: MoM-KDE's draws follow its median divided by its integral
        (Notes), as KDE's, RKDE's and SPKDE's follow their weighted sums.

        Parameters
        ----------
        n_samples : int, default 1
            The number of draws (0 gives an empty array).
        random_state : int, RandomState, numpy Generator or None, default None
            The source of randomness; None: numpy's global state.

        Returns
        -------
        draws : ndarray of shape (n_samples, d)
            The draws, in the data's units.

        Raises
        ------
        momkde_core.InvalidParameterError
            ``n_samples`` is not a non-negative integer.
        ValueError
            No draw was accepted in ``MAX_SAMPLE_ROUNDS`` (100) rounds (the median of the
            block KDEs is almost 0 where they hold their mass: use fewer blocks or a larger
            bandwidth), or draws fall beyond float64's range (data within a few bandwidths of
            it: rescale the data).

        See Also
        --------
        pdf : the density the draws follow.

        Notes
        -----
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

        Examples
        --------
        >>> import numpy as np
        >>> from momkde_core import KDE, MoMKDE
        >>> X = np.random.default_rng(0).standard_normal((300, 2))
        >>> KDE(bandwidth=0.5).fit(X).sample(4, random_state=0).shape
        (4, 2)
        >>> mom = MoMKDE(n_blocks=5, bandwidth=0.5, random_state=0).fit(X)
        >>> draws = mom.sample(500, random_state=np.random.default_rng(0))
        >>> draws.shape, bool(np.isfinite(draws).all())
        ((500, 2), True)
        """
        check_is_fitted(self, "bandwidth_")
        if not is_int(n_samples) or n_samples < 0:
            raise InvalidParameterError(
                f"n_samples must be a non-negative integer, got {n_samples!r}"
            )
        rng = (
            random_state
            if isinstance(random_state, np.random.Generator)
            else np.random.default_rng(check_random_state(random_state).randint(2**31))
        )
        fitted = self._fitted
        S = fitted.n_blocks
        log_bound = np.log(S / (S // 2 + 1))
        kept, missing, idle = [], n_samples, 0
        while missing:
            draws = fitted.sample_block_mean(missing if S == 1 else 2 * missing + 16, rng)
            if S > 1:
                logs = fitted.block_log_sums(draws)
                with np.errstate(invalid="ignore"):  # -inf - -inf where q is 0: rejected
                    log_accept = (
                        fitted.combine_log(logs) - logsumexp(logs, axis=0) + np.log(S) - log_bound
                    )
                draws = draws[np.log(rng.random(len(draws))) < log_accept][:missing]
            idle = 0 if len(draws) else idle + 1
            if idle == MAX_SAMPLE_ROUNDS:
                raise ValueError(
                    "no draw was accepted in 100 rounds: the median of the block "
                    "KDEs is almost 0 where they hold their mass; use fewer blocks "
                    "or a larger bandwidth"
                )
            kept.append(draws)
            missing -= len(draws)
        draws = (
            self._frame.outer(np.concatenate(kept)) if kept else np.empty((0, self.n_features_in_))
        )
        if not np.isfinite(draws).all():
            raise ValueError(
                "some draws fall beyond float64's range (~1.8e308): the data sit "
                "within a few bandwidths of it; rescale the data"
            )
        return draws


def _seeded_clone(estimator: BaseEstimator, random_state) -> BaseEstimator:
    """A clone of ``estimator``, its ``random_state`` parameter set to ``random_state`` when it
    has one and ``random_state`` is not None (None leaves the estimator's own seed), as a
    meta-estimator seeds what it clones (OutlierDetector, ScreenedKDE's screen)."""
    twin = clone(estimator)
    if random_state is not None and "random_state" in twin.get_params(deep=False):
        twin.set_params(random_state=random_state)
    return twin


def _finite_density(values: np.ndarray) -> np.ndarray:
    """``values`` if finite; else ValueError (a density beyond float64's range)."""
    if np.isposinf(values).any():
        raise ValueError(
            "the density exceeds float64's range (~1.8e308) at some points (data "
            "of tiny spread, or a tiny bandwidth, in several dimensions): use "
            "score_samples (its log), or rescale the data"
        )
    return values


def _log_start(est: BaseEstimator, gram: GramOperator) -> None:
    """With ``verbose``, log the size of the fit and how its Gram products are computed."""
    if est.verbose:
        LOGGER.info(
            "%s: %d points in %d-D, Gram products by the %s path",
            type(est).__name__,
            *gram.X.shape,
            gram.method,
        )


def _iteration_logger(est: BaseEstimator, stage: str):
    """The solvers' ``progress`` callable: with ``verbose``, each iteration's objective is
    logged at INFO level on the ``momkde_core.estimators`` logger (shown once logging is
    configured, e.g. ``logging.basicConfig(level=logging.INFO)``); None (no cost) otherwise."""
    if not est.verbose:
        return None
    name = type(est).__name__

    def progress(n_iter: int, objective: float) -> None:
        LOGGER.info(
            "%s %s: iteration %d (max_iter %d), objective %.10g",
            name,
            stage,
            n_iter,
            est.max_iter,
            objective,
        )

    return progress


#: The constraints of the iterative solvers' parameters (RKDE, SPKDE).
_ITERATIONS = {
    "max_iter": Rule(
        lambda value, _: is_int(value) and value >= 1,
        "max_iter must be a positive integer, got {value!r}",
    ),
    "tol": Rule(
        lambda value, _: is_number(value) and value > 0,
        "tol must be a positive number, got {value!r}",
    ),
}


def _one_block(X: np.ndarray, weights: np.ndarray):
    """One block holding every point, with log and linear weights (zero weight: -inf)."""
    with np.errstate(divide="ignore"):
        return X, np.array([0, len(X)]), np.log(weights), weights
