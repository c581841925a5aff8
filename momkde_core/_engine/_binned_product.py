"""Gaussian block sums on a 2-D mesh from linearly binned points, by products (numba + BLAS).

The FFT backend (:mod:`momkde_core._engine._fft`) bins the points linearly on cells of h / 16
and convolves the whole binning grid (the data's range plus the kernel's reach around every
node, ~1 million cells on the wide grids users draw) only to read the nodes back: most
of the transforms' work is for cells that are no node. The Gaussian kernel is a product of
one factor per axis, so the same binned sums can be taken straight at the nodes:

    F_s(g_i, g_j) = sum over cells (a, b) of H_s[a, b] k(g_i - c_a) k(g_j - c_b),

with H_s block s's linear binning (each point's weight split between the four corners of
its cell) on cells covering only the data within the kernel's reach of the mesh. Grouped
by the cell's column a, that is K_x^T G_s with G_s[a, j] = sum_b H_s[a, b] k(g_j - c_b): a
row of G_s gathers, per point, the two rows of K_y (the factors from the corners of its
cell to the mesh's y nodes) split between its cell's two columns. A point costs the width
of K_y's band (factors below e^-40 of 1 are dropped: 4e-18 of a term) instead of the whole
mesh, and no exponential; the product K_x^T G_s is one BLAS call per block.

The result is the linearly binned sum, as the FFT's (within (1/16)^2 / 4 < 1e-3 of the
peak: (delta / h)^2 / 8 per axis, at a point in its cell's centre), without its round-off;
all terms are positive, so a node's value is as accurate relative to itself as the binning
allows (up to ~1 % where the density is 1e-7 to 1e-3 of
its peak; below 1e-7 the engine recomputes the nodes exactly when asked).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._columns import bounding_box
from ..kernels import KERNELS
from ._axis_factors import gaussian_factors
from ._binning import blocks_within_rows
from ._threads import one_blas_thread

# cells of h / 16 (the Gaussian's cells_per_bandwidth): linear binning errs by (1/16)^2 / 4
# of the peak
CELLS_PER_BANDWIDTH = KERNELS["gaussian"].cells_per_bandwidth
BAND_FLOOR = -40.0  # axis factors below e^-40 (4e-18) are dropped from the products
BAND_RADIUS = float(np.sqrt(-2.0 * BAND_FLOOR))  # ... beyond this many bandwidths
MAX_GATHERED = 2**21  # gathered rows held at once (16 MiB of float64)
NODE_CHUNK = 16  # nodes of x per product: the fastest of 8, 16, 32, 64 and all the nodes in
# one product (``benchmarks/bench_grid_speed.py``), on one BLAS thread


@njit(cache=True, nogil=True)
def _gather_rows(
    x, y, bounds, w, inv_x, off_x, top_x, inv_y, off_y, top_y, ky, first, last, out
):  # pragma: no cover (compiled)
    """G_s (``out[s]``, cells of x by mesh nodes of y): per point, its cell's two K_y rows
    mixed by its y offset, times its weight split by its x offset between the cell's two
    columns; only the columns ``first..last`` where either K_y row is nonzero. (The band is sliced
    and walked from 0: an index the compiler knows is non-negative needs no wraparound
    check, and the loop is vectorised, which indexing from ``first`` prevents.)"""
    for s in range(len(bounds) - 1):
        g = out[s]
        for i in range(bounds[s], bounds[s + 1]):
            px = x[i] * inv_x + off_x
            py = y[i] * inv_y + off_y
            if not (px >= 0.0 and px < top_x and py >= 0.0 and py < top_y):  # (NaN too)
                continue
            cx, cy = int(px), int(py)
            fx, fy = px - cx, py - cy
            right = w[i] * fx
            left = w[i] * (1.0 - fx)
            j0 = min(first[cy], first[cy + 1])
            j1 = max(last[cy], last[cy + 1]) + 1
            if j1 <= j0:
                continue
            low, high = ky[cy, j0:j1], ky[cy + 1, j0:j1]
            g_left, g_right = g[cx, j0:j1], g[cx + 1, j0:j1]
            for t in range(j1 - j0):
                v = low[t] * (1.0 - fy) + high[t] * fy
                g_left[t] += left * v
                g_right[t] += right * v


def binning_cells(
    X: np.ndarray,
    axes: list[np.ndarray],
    h: float,
    reach: float,
    box: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[tuple[float, float, int]] | None:
    """Per axis (origin, step, corners) of the binning cells: steps of h / 16 over the
    data's range clipped to ``reach`` beyond the mesh (points farther from every node add
    nothing the product keeps); None when no point lies within reach of the mesh.
    ``box``: the data's ``bounding_box(X, skip_nan=True)`` when the caller has it."""
    if not len(X):
        return None
    # (NaN rows are skipped, as the binning pass leaves them out)
    lows, highs = bounding_box(X, skip_nan=True) if box is None else box
    cells = []
    for k, axis in enumerate(axes):
        lo = max(float(lows[k]), float(axis[0]) - reach)
        hi = min(float(highs[k]), float(axis[-1]) + reach)
        if not lo <= hi:
            return None
        step = h / CELLS_PER_BANDWIDTH
        # a cell of margin on both sides: a point at lo or hi stays inside after rounding
        cells.append((lo - step, step, int((hi - lo) / step) + 4))
    return cells


def _band(factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the first and last column of a nonzero entry (an empty row: first > last)."""
    nonzero = factors != 0
    any_row = nonzero.any(axis=1)
    width = factors.shape[1]
    first = np.where(any_row, nonzero.argmax(axis=1), width)
    last = np.where(any_row, width - 1 - nonzero[:, ::-1].argmax(axis=1), -1)
    return first.astype(np.int64), last.astype(np.int64)


def binned_product_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    axes: list[np.ndarray],
    h: float,
    w: np.ndarray,
    log_norm: float,
    max_elements: int = MAX_GATHERED,
    box: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Per block, the linearly binned Gaussian sums on the mesh of two evenly spaced
    ``axes``, shape (S, len(axes[0]), len(axes[1])); ``log_norm`` the log of the kernel's
    normalising divisor (the factors are exp(-t^2 / 2)). Blocks go in batches whose
    gathered rows (cells x nodes of y each) hold at most ``max_elements`` values (at least
    one block per batch). ``box``: as for :func:`binning_cells`. The products K_x^T G_s
    skip the cells beyond each run of nodes' reach, and run on one BLAS thread: a second
    one would then spin on the core that the exact tails' threads need
    (:mod:`momkde_core._engine._threads`)."""
    n_blocks = len(bounds) - 1
    # the compiled loop does not check indices: the layout is checked here, once
    if not (
        X.ndim == 2
        and X.shape[1] == 2
        and len(axes) == 2
        and len(w) == len(X)
        and blocks_within_rows(bounds, len(X))
    ):
        raise ValueError(
            "binned_product_sums needs (n, 2) points, two axes, one weight per "
            "row and non-decreasing block bounds within the rows"
        )
    out = np.zeros((n_blocks, len(axes[0]), len(axes[1])))
    cells = binning_cells(X, axes, h, BAND_RADIUS * h, box)
    if cells is None:
        return out
    (x0, step_x, mx), (y0, step_y, my) = cells
    corners_x = x0 + step_x * np.arange(mx)
    corners_y = y0 + step_y * np.arange(my)
    kx = gaussian_factors(corners_x, axes[0], h, BAND_FLOOR)
    ky = gaussian_factors(corners_y, axes[1], h, BAND_FLOOR)
    first, last = _band(ky)
    # the products K_x^T G_s by runs of NODE_CHUNK nodes of x, each over the cells where
    # its factors are nonzero (the band: 2 x 8.9 h of cells, against the data's range)
    cell_first, cell_last = _band(kx.T)
    spans = []
    for j0 in range(0, len(axes[0]), NODE_CHUNK):
        j1 = min(len(axes[0]), j0 + NODE_CHUNK)
        c0, c1 = int(cell_first[j0:j1].min()), int(cell_last[j0:j1].max()) + 1
        if c0 < c1:  # (else these nodes are beyond every cell's reach: 0)
            spans.append((j0, j1, c0, c1))
    x, y = (np.ascontiguousarray(X[:, k], dtype=np.float64) for k in range(2))
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)  # (strided or a broadcast value: read in place)
    # blocks in batches whose gathered rows hold at most max_elements values
    per = max(1, max_elements // (mx * len(axes[1])))
    gathered = np.empty((min(per, n_blocks), mx, len(axes[1])))
    for lo in range(0, n_blocks, per):
        hi = min(n_blocks, lo + per)
        rows = gathered[: hi - lo]
        rows.fill(0.0)
        _gather_rows(
            x,
            y,
            bounds[lo : hi + 1],
            w,
            1.0 / step_x,
            -x0 / step_x,
            float(mx - 1),
            1.0 / step_y,
            -y0 / step_y,
            float(my - 1),
            ky,
            first,
            last,
            rows,
        )
        with one_blas_thread(wait=False):
            for j0, j1, c0, c1 in spans:
                np.matmul(kx[c0:c1, j0:j1].T, rows[:, c0:c1], out=out[lo:hi, j0:j1])
    out *= np.exp(-log_norm)
    return out
