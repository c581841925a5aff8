"""Block sums on an evenly spaced 1-D axis or 2-D mesh: the dispatcher of the grid backends.

The plots, integrals and metrics evaluate every block's sum on a mesh.
:func:`block_grid_sums` runs the cheapest of five backends by their price
(:func:`momkde_core._engine._costs.choose_backend`), or the one asked for:

* ``fft``: binning and one batched FFT convolution (:mod:`momkde_core._engine._fft`);
* ``binned``: for the Gaussian in 2-D, the same linear binning summed at the nodes by
  products of the axis factors (:mod:`momkde_core._engine._binned_product`);
* ``separable``: the exact product A_x^T diag(w) A_y per block
  (:mod:`momkde_core._engine._separable`);
* ``band``: the pairs within the kernel's radius (:mod:`momkde_core._engine._band`);
* ``exact``: every point at every node
  (:func:`momkde_core._engine._point_sums.exact_block_sums`).

With ``exact=True`` the nodes where the backend's value may be off by more than 1e-6
relative are recomputed from the points that matter there
(:mod:`momkde_core._engine._exact_tails`). For the binned backend with several blocks, the
blocks' cell tables, which do not depend on which nodes those are, are built on a second
thread while the product runs.
"""

from __future__ import annotations

import numpy as np

from .._columns import bounding_box
from ..kernels import EXP_FLOOR, Kernel
from ._band import _band_sums
from ._binned_product import BAND_FLOOR, binned_product_sums
from ._costs import choose_backend
from ._exact_tails import _plane_tables, _plane_tables_bytes, _redo_faint, _round_off
from ._fft import _fft_sums
from ._point_sums import _as_2d, exact_block_sums
from ._separable import _separable_sums
from ._threads import submit_to_pool

PREPARED_TABLES_BYTES = 2**26  # the blocks' cell tables held at once (_plane_tables_bytes)


def block_grid_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    axes: list[np.ndarray],
    kernel: Kernel,
    h: float,
    weights: np.ndarray | None = None,
    backend: str = "auto",
    exact: bool = False,
    box=None,
) -> np.ndarray:
    """sum_{i in block s} w_i K_h(g - X_i) on the mesh of ``axes`` (1 or 2 evenly spaced axes).

    Returns shape (S, len(axes[0])) in 1-D and (S, len(axes[0]), len(axes[1])) in 2-D.
    ``backend`` is "auto" (the cheapest), "fft", "binned" (the Gaussian in 2-D:
    :mod:`momkde_core._engine._binned_product`), "separable", "band" or "exact".
    ``exact``: every node where the backend's value may be off by more than ``GRID_RTOL``
    (1e-6) relative is recomputed exactly
    (:func:`momkde_core._engine._exact_tails.exact_at_nodes`): with the FFT in 1-D and the
    Gaussian, any node where the Taylor remainder's bound could exceed that
    (:func:`momkde_core._engine._fft._fft_sums`); otherwise the far tails,
    where round-off or the band's cut would leave no correct digit. ``box``: the data's
    ``columns.bounding_box(X, skip_nan=True)`` when the caller has it (2-D).
    """
    X = _as_2d(X)
    axes = [np.asarray(a, dtype=float) for a in axes]
    d = X.shape[1]
    if len(axes) != d or d not in (1, 2):
        raise ValueError(
            f"pdf_grid needs one axis per dimension (d = {d}, got {len(axes)} axes)"
            "; grids exist for d = 1 and d = 2 only"
        )
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    if backend == "auto":
        backend = choose_backend(X, bounds, axes, kernel, h, exact, box)
    if backend == "fft":
        return _fft_sums(X, bounds, axes, kernel, h, w, exact, box)
    if backend == "separable":  # (without exact tails, terms below 4e-18 K_h(0) are dropped)
        return _separable_sums(
            X, bounds, axes, kernel, h, w, floor=EXP_FLOOR if exact else BAND_FLOOR
        )
    if backend == "binned":
        log_norm = kernel.log_norm(2) + 2 * np.log(h)
        if not exact:
            return binned_product_sums(X, bounds, axes, h, w, log_norm, box=box)
        # the binned value is a few per cent off at the threshold, more beyond: the faint
        # nodes are redone exactly. With several blocks, their cell tables and distance
        # maps, which do not depend on which nodes those are, are built meanwhile on a
        # second thread (for one block the thread costs what it saves), while
        # they all fit in PREPARED_TABLES_BYTES (else they are built block by block)
        box = bounding_box(X, skip_nan=True) if box is None else box
        tables = None
        if (
            len(bounds) > 2
            and _plane_tables_bytes(len(X), len(bounds) - 1, axes, h, box) <= PREPARED_TABLES_BYTES
        ):
            tables = submit_to_pool(_plane_tables, X, bounds, w, axes, h, box)
            try:
                sums = binned_product_sums(X, bounds, axes, h, w, log_norm, box=box)
            except BaseException:
                tables.cancel()
                raise
            tables = tables.result()
        else:
            sums = binned_product_sums(X, bounds, axes, h, w, log_norm, box=box)
        _redo_faint(
            sums,
            X,
            bounds,
            w,
            axes,
            kernel,
            h,
            _round_off(w, bounds, kernel, h, d),
            box=box,
            tables=tables,
        )
        return sums
    if backend == "band":
        sums = _band_sums(X, bounds, axes, kernel, h, w)
        if exact and not kernel.compact:  # the band drops terms below 1e-17 K_h(0)
            _redo_faint(
                sums, X, bounds, w, axes, kernel, h, _round_off(w, bounds, kernel, h, d), box=box
            )
        return sums
    if backend == "exact":
        mesh = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
        sums = exact_block_sums(X, bounds, mesh, kernel, h, w)
        return sums.reshape((len(bounds) - 1,) + tuple(len(a) for a in axes))
    raise ValueError(
        f"unknown grid backend {backend!r}; allowed: auto, fft, binned, separable, band, exact"
    )
