"""The estimators' grid methods: the density and each block's sum on a 1-D grid or a 2-D
mesh, by the engine's grid backends (:func:`momkde_core._engine.block_grid_sums`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from .._validation import InvalidParameterError, is_bool
from ._checks import _finite_density


class _GridMethods:
    """``pdf_grid`` and ``block_pdf_grid`` of every estimator (a mixin of
    :class:`~momkde_core.estimators._base._BaseKDE`): they read the fit held in ``_fitted``
    (:class:`~momkde_core._blocks.FittedBlocks`), its frame ``_frame``, ``log_norm_`` and
    ``n_features_in_``."""

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
        if self._mixed is not None:
            raise ValueError(
                "grids are for continuous features, and this fit has categorical columns: "
                "use pdf or score_samples at the rows you need"
            )
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
