"""The shared base of the density estimators: fit, evaluation and sampling over one engine.

KDE, MoM-KDE, RKDE and SPKDE (and ScreenedKDE, a KDE) are subclasses of ``_BaseKDE``. Each
reduces, after ``fit``, to the same representation: the data sorted into blocks, a log
weight per point, and a rule to combine the block sums (one block: the sum itself; MoM-KDE:
the pointwise median, divided by its integral). Evaluation at points and on grids is then
shared (:mod:`momkde_core._engine`), so an improvement there speeds up all four. The
public methods of ``_BaseKDE`` are those every estimator has, documented once:
``fit``, ``score_samples``, ``pdf``, ``score`` and ``block_score_samples`` here,
``pdf_grid`` and ``block_pdf_grid`` in :mod:`~momkde_core.estimators._grids`, ``sample`` in
:mod:`~momkde_core.estimators._sampling` (mixins).

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

import warnings
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._blocks import FittedBlocks, log_integral
from .._engine import LOG_SAFE_LINEAR, PEAK_LIMIT, Frame, working_frame
from .._validation import Rule, check_parameters
from ..bandwidth import select_bandwidth
from ..bandwidth._rules import BANDWIDTH_CONSTRAINTS
from ..kernels import KERNEL_CONSTRAINTS, Kernel, get_kernel
from ._checks import _base_measure, _finite_density, _validate_data
from ._grids import _GridMethods
from ._mixed import (
    MixedColumns,
    choose_lambdas,
    mixed_log_integral,
    query_table,
    read_mixed,
)
from ._sampling import _SampleMethods

TINY_BLOCKS = 2  # MoM-KDE warns when its blocks hold fewer points than this on average
THIN_MEDIAN = 0.5  # ... and when its median holds less than this share of the blocks' mass


class _BaseKDE(_GridMethods, _SampleMethods, BaseEstimator):
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
    (:mod:`momkde_core._validation`), checked at fit before any costly work;
    ``_shared_constraints`` those of ``kernel`` and ``bandwidth``, checked first. The grid
    methods come from :class:`~momkde_core.estimators._grids._GridMethods`, the checks of X
    and the weights from :mod:`momkde_core.estimators._checks`.
    """

    _normalizes = False
    _median = False
    _mixed: MixedColumns | None = None  # a fit with categorical columns (module _mixed)
    _row_attributes: dict[str, float] = {}
    _gram_scale = 1.0  # the kernel scale (times h) whose values the fit holds in linear space
    _peak_limit = PEAK_LIMIT  # ... and the range its peak must stay in (scaling.working_frame)
    _parameter_constraints: dict[str, Rule | tuple[Rule, ...]] = {}
    #: The constraints of the parameters every estimator has, checked before X is read.
    _shared_constraints: dict[str, Rule | tuple[Rule, ...]] = {
        "kernel": KERNEL_CONSTRAINTS,
        "bandwidth": BANDWIDTH_CONSTRAINTS,
    }

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
        check_parameters(self._shared_constraints, self.get_params(deep=False))
        self._mixed = read_mixed(self, X, get_kernel(self.kernel).name)
        if self._mixed is None:
            X = _validate_data(self, X, reset=True)
        else:  # the continuous columns, and the levels' codes (module _mixed)
            X, codes = self._mixed.split(X, "X")
        self._kernel: Kernel = get_kernel(self.kernel)
        base, kept = _base_measure(sample_weight, X)
        self._kept = kept
        if kept is not None:
            X = X[kept]
        self._check_parameters(len(X))
        options = self._bandwidth_options(X)
        H = (
            select_bandwidth(
                X,
                self.bandwidth,
                self._kernel,
                random_state=self.random_state,
                weights=base,
                per_feature=True,
                **options,
            )
            if X.shape[1]
            else np.empty(0)  # (categorical columns only)
        )
        self.bandwidth_ = float(H[0]) if len(H) and np.all(H == H[0]) else H
        if self._mixed is not None:
            X, H = self._embed_fit(X, codes if kept is None else codes[kept], H, base)
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
            rng = np.random.default_rng(seed)
            self.log_norm_ = (
                log_integral(fitted, rng)
                if self._mixed is None
                else mixed_log_integral(fitted, self._mixed, self._frame, rng)
            )
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

    def _embed_fit(self, X, codes, H, base) -> tuple[np.ndarray, np.ndarray]:
        """The fit's rows and bandwidths with the categorical columns embedded (their
        bandwidths chosen first): the mixed product kernel as a Gaussian (module _mixed)."""
        mixed = self._mixed
        mixed.lambdas = choose_lambdas(mixed, self.categorical_bandwidth, X, codes, H, base)
        self.categorical_bandwidth_ = mixed.lambdas
        self.is_categorical_ = mixed.kinds != "c"
        self.categories_ = [np.asarray(c.labels(np.arange(c.n_levels))) for c in mixed.discrete]
        return (
            np.hstack([X, mixed.embed(codes)]),
            np.concatenate([H, np.ones(mixed.n_embedded)]),
        )

    def _query_rows(self, X) -> np.ndarray:
        """The queries as the fit's rows: a float array (the embedded levels appended for a
        mixed fit)."""
        if self._mixed is None:
            return _validate_data(self, X, reset=False)
        Xc, codes = self._mixed.split(query_table(self, self._mixed, X), "X")
        return np.hstack([Xc, self._mixed.embed(codes)])

    def fit(self, X: ArrayLike, y: object = None, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the estimator on the rows of X.

        The bandwidth is chosen by its rule (or checked), the rows are sorted into the
        estimator's blocks and weighted, and the fitted attributes (ending in ``_``) are set.

        Parameters
        ----------
        X : array-like of shape (n,) or (n, d)
            The training rows, finite numbers; a 1-D X is one feature. A DataFrame (with
            string column names) sets ``feature_names_in_``. For the estimators with
            ``categorical_features`` (KDE, MoMKDE, ScreenedKDE), a DataFrame's text,
            category and bool columns are categorical (module
            :mod:`momkde_core.estimators._mixed`).
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

    def _check_query(self, X) -> tuple[np.ndarray, np.ndarray]:
        """(the queries in the fit's frame, mask of those within reach of the kernels)."""
        check_is_fitted(self, "bandwidth_")
        return self._frame.inner_queries(self._query_rows(X))

    def _to_outer_logs(self, logs: np.ndarray, near: np.ndarray) -> np.ndarray:
        """Log values computed inside the frame at the queries ``near`` (last axis), as log
        values in the data's units at all queries (-inf out of reach)."""
        if self._mixed is not None:  # the discrete kernels' constants (module _mixed)
            logs = logs + self._mixed.log_factor
        if self._frame.identity and near.all():
            return logs
        out = np.full(logs.shape[:-1] + near.shape, -np.inf)
        out[..., near] = logs + self._frame.log_jacobian
        return out

    def block_score_samples(self, X: ArrayLike) -> np.ndarray:
        """Log of each block's weighted kernel sum at the rows of X, unnormalised.

        Parameters
        ----------
        X : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit.

        Returns
        -------
        block_log_sums : ndarray of shape (n_blocks, m)
            Row s: the log of block s's weighted kernel sum at X (for MoM-KDE, block s's KDE,
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
        Z, near = self._check_query(X)
        return self._to_outer_logs(self._fitted.block_log_sums(Z[near]), near)

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        """Log of the estimated density at the rows of X.

        scikit-learn's convention for density estimators (the higher, the more typical a
        point). Computed in log space, so a point far in the tails gets a finite log density
        where :meth:`pdf` underflows to 0.

        Parameters
        ----------
        X : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit (the same number; for a fit on a
            DataFrame, the same column names in the same order). A 1-D X is m points of one
            feature.

        Returns
        -------
        log_density : ndarray of shape (m,)
            The log density at each row of X; -inf where the density is 0.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            X has another number of features than the fit (or reordered, renamed or missing
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
        Z, near = self._check_query(X)
        return self._to_outer_logs(self._fitted.log_values(Z[near]) - self.log_norm_, near)

    def pdf(self, X: ArrayLike) -> np.ndarray:
        """The estimated density at the rows of X.

        The exponential of :meth:`score_samples`.

        Parameters
        ----------
        X : array-like of shape (m,) or (m, d)
            The query points, with the features of the fit.

        Returns
        -------
        density : ndarray of shape (m,)
            The density at each row of X, non-negative.

        Raises
        ------
        ValueError
            Where the density exceeds float64's range (~1.8e308: data of spread ~1e-300 in
            2-D and more); :meth:`score_samples` gives its log. Also for X as in
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
            return _finite_density(np.exp(self.score_samples(X)))

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


def _seeded_clone(estimator: BaseEstimator, random_state) -> BaseEstimator:
    """A clone of ``estimator``, its ``random_state`` parameter set to ``random_state`` when it
    has one and ``random_state`` is not None (None leaves the estimator's own seed), as a
    meta-estimator seeds what it clones (OutlierDetector, ScreenedKDE's screen)."""
    twin = clone(estimator)
    if random_state is not None and "random_state" in twin.get_params(deep=False):
        twin.set_params(random_state=random_state)
    return twin
