"""Binning of every block's points on a regular grid in one compiled pass (numba).

The FFT backend (:mod:`momkde_core._engine._fft`) convolves per-cell sums with the kernel. Those
sums are a scatter-add over all n points, which numpy can only do with one ``bincount`` per
moment after materialising each moment's n weights: four to six passes over n-long
temporaries for what is, compiled, one pass that reads each point once (memory speed).

Two schemes, on a grid of ``sizes`` cells per axis whose cell k along an axis starts at
``(k - shift) * step`` from the origin (``offset = shift - origin / step``):

* **Taylor moments** (the Gaussian in 1-D): each point goes to the nearest cell centre c
  (``shift`` 0.5) and adds ``w t^j``, j = 0..order, with t = (x - c) / step in [-1/2, 1/2].
* **Linear binning** (any kernel, d = 1 or 2): the weight is split between the 2^d corners
  of the point's cell by the products of (1 - f) and f, f the offsets in the cell.

Points outside the grid (beyond the kernel's reach of every node) are left out; a block's
cells are summed in the order of its points. The kernels are serial and release the GIL:
numba's own parallel threading layer cannot be entered from several threads at once, as
the app's sessions would (the FFT that follows uses both cores).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _bin_1d(
    x, bounds, w, inv_step, offset, top, order, out, left_out
):  # pragma: no cover (compiled)
    """1-D: Taylor moments 0..order at the nearest node, or linear binning if order < 0,
    into ``out`` of shape (S, cells, moments): a point's moments are adjacent (one cache
    line, where a row per moment touches one line per moment)."""
    for s in range(len(bounds) - 1):
        skipped = 0
        for i in range(bounds[s], bounds[s + 1]):
            pos = x[i] * inv_step + offset
            if not (pos >= 0.0 and pos < top):  # (false for NaN too: never an index)
                skipped += 1
                continue
            c = int(pos)
            f = pos - c
            if order < 0:
                out[s, c, 0] += w[i] * (1.0 - f)
                out[s, c + 1, 0] += w[i] * f
                continue
            t = f - 0.5
            m = w[i]
            cell = out[s, c]
            cell[0] += m
            if order == 3:  # (the engine's order, unrolled: no loop overhead per moment)
                m *= t
                cell[1] += m
                m *= t
                cell[2] += m
                cell[3] += m * t
                continue
            for j in range(1, order + 1):
                m *= t
                cell[j] += m
        left_out[s] = skipped


@njit(cache=True, nogil=True)
def _linear_2d(
    x, y, bounds, w, inv_x, off_x, top_x, inv_y, off_y, top_y, out, left_out
):  # pragma: no cover (compiled)
    """2-D linear binning: the weight split between the four corners of the point's cell."""
    for s in range(len(bounds) - 1):
        skipped = 0
        for i in range(bounds[s], bounds[s + 1]):
            px = x[i] * inv_x + off_x
            py = y[i] * inv_y + off_y
            if not (px >= 0.0 and px < top_x and py >= 0.0 and py < top_y):
                skipped += 1
                continue
            cx, cy = int(px), int(py)
            fx, fy = px - cx, py - cy
            wx0, wx1 = w[i] * (1.0 - fx), w[i] * fx
            out[s, 0, cx, cy] += wx0 * (1.0 - fy)
            out[s, 0, cx, cy + 1] += wx0 * fy
            out[s, 0, cx + 1, cy] += wx1 * (1.0 - fy)
            out[s, 0, cx + 1, cy + 1] += wx1 * fy
        left_out[s] = skipped


def blocks_within_rows(bounds: np.ndarray, n_rows: int) -> bool:
    """Whether block bounds are non-decreasing and within ``n_rows`` rows: the layout the
    compiled loops index without checks."""
    return len(bounds) == 0 or (
        bounds[0] >= 0 and bounds[-1] <= n_rows and bool(np.all(np.diff(bounds) >= 0))
    )


def bin_blocks(
    X: np.ndarray,
    bounds: np.ndarray,
    w: np.ndarray,
    steps: list[float],
    origins: list[float],
    sizes: list[int],
    taylor_order: int | None,
    left_out: np.ndarray | None = None,
    padded: list[int] | None = None,
) -> np.ndarray:
    """Per block, the binned sums on the grid, shape (S, moments, *sizes), or
    (S, moments, *padded) with zeros beyond ``sizes`` (``padded`` >= sizes per axis: the
    FFT lengths, so that the transform needs no padded copy). In 1-D a strided view of
    an (S, cells, moments) array (see :func:`_bin_1d`).

    ``X`` (n, d), sorted by block (block s is rows ``bounds[s]:bounds[s+1]``), ``w`` the
    points' weights; per axis the cell ``steps``, the ``origins`` (the coordinate of the
    first cell's node) and the number of nodes ``sizes``. ``taylor_order``: bin the moments
    0..order of the offsets to the nearest node (d = 1), or None for linear binning
    (one moment: the weight split between the cell's corners). ``left_out`` (int64, one
    per block) receives how many of each block's points were left out (beyond the grid,
    or NaN).
    """
    d = X.shape[1]
    n_blocks = len(bounds) - 1
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    # the compiled loops do not check indices: the layout is checked here, once
    if not (
        len(steps) == len(origins) == len(sizes) == d
        and len(w) == len(X)
        and blocks_within_rows(bounds, len(X))
    ):
        raise ValueError(
            "bin_blocks needs one step, origin and size per feature, one weight "
            "per row and non-decreasing block bounds within the rows"
        )
    if taylor_order is not None and d != 1:
        raise ValueError("Taylor moments are binned in 1-D only")
    w = np.asarray(w, dtype=np.float64)  # (strided or a broadcast value: read in place)
    moments = 1 if taylor_order is None else taylor_order + 1
    if padded is not None and not (len(padded) == d and all(p >= z for p, z in zip(padded, sizes))):
        raise ValueError("bin_blocks' padded shape must be at least sizes on every axis")
    shape = sizes if padded is None else padded
    # (1-D: binned as (S, cells, moments), returned as (S, moments, cells): see _bin_1d)
    out = np.zeros((n_blocks, *shape, moments) if d == 1 else (n_blocks, moments, *shape))
    shift = 0.0 if taylor_order is None else 0.5
    inv = [1.0 / step for step in steps]
    offsets = [shift - origin / step for origin, step in zip(origins, steps)]
    # the first position beyond the grid: a nearest node must exist, a cell must have its
    # upper corner on the grid
    tops = [float(size) if taylor_order is not None else float(size - 1) for size in sizes]
    columns = [np.ascontiguousarray(X[:, k], dtype=np.float64) for k in range(d)]
    if left_out is None:
        left_out = np.empty(n_blocks, dtype=np.int64)
    elif left_out.shape != (n_blocks,) or left_out.dtype != np.int64:
        raise ValueError("bin_blocks' left_out must be an int64 array of one entry per block")
    if d == 1:
        _bin_1d(
            columns[0],
            bounds,
            w,
            inv[0],
            offsets[0],
            tops[0],
            -1 if taylor_order is None else taylor_order,
            out,
            left_out,
        )
        out = out.transpose(0, 2, 1)  # (a strided view: the FFT reads it as it is)
    else:
        _linear_2d(
            columns[0],
            columns[1],
            bounds,
            w,
            inv[0],
            offsets[0],
            tops[0],
            inv[1],
            offsets[1],
            tops[1],
            out,
            left_out,
        )
    return out
