"""Exact kernel sums on a line from the points inside each node's window, all blocks at once.

:func:`momkde_core._engine._exact_tails.exact_at_nodes` recomputes far-tail nodes exactly: for block s
and node j only the points in the window [lows[s, j], highs[s, j]] matter (beyond it every
term is negligible next to the nearest point's). Per block, the windows are merged into
disjoint intervals, the block's points inside them (few: the data's edges) are collected
and sorted, and each window is then a run of them. Done with numpy that is some twenty
calls per block, which for MoM-KDE's 20 or more blocks cost more than the arithmetic; here
compiled passes (numba: collect and sort, the runs, the pairs' distances, the sums per
window) serve every block, and the kernel itself stays in numpy (every kernel, the same
flushing as everywhere else).
Serial and GIL-free, as :mod:`momkde_core._engine._binning`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import Kernel
from ._binning import blocks_within_rows


@njit(cache=True, nogil=True)
def _collect(x, w, bounds, lows, highs, px, pw, pb):  # pragma: no cover (compiled)
    """Per block s: the points of positive weight inside the union of its windows, sorted,
    into px, pw from pb[s]; returns how many in all (pb[S])."""
    n_blocks, m = lows.shape
    starts = np.empty(m)
    ends = np.empty(m)
    k = 0
    for s in range(n_blocks):
        pb[s] = k
        if bounds[s] == bounds[s + 1]:
            continue
        q = 0  # the merged intervals, by increasing start
        for t in np.argsort(lows[s]):
            lo, hi = lows[s, t], highs[s, t]
            if not lo <= hi:  # an empty window (or NaN) holds no point
                continue
            if q > 0 and lo <= ends[q - 1]:
                ends[q - 1] = max(ends[q - 1], hi)
            else:
                starts[q], ends[q] = lo, hi
                q += 1
        # the widest gap between two intervals: most points (the bulk) are there, and are
        # rejected by two comparisons
        gap_lo, gap_hi, widest = np.inf, -np.inf, -1.0
        for t in range(1, q):
            if starts[t] - ends[t - 1] > widest:
                widest = starts[t] - ends[t - 1]
                gap_lo, gap_hi = ends[t - 1], starts[t]
        k0 = k
        for i in range(bounds[s], bounds[s + 1]):
            v = x[i]
            if gap_lo < v < gap_hi or not w[i] > 0.0:
                continue
            a, b = 0, q  # the number of interval starts <= v, by bisection
            while a < b:
                mid = (a + b) >> 1
                if starts[mid] <= v:
                    a = mid + 1
                else:
                    b = mid
            if a > 0 and v <= ends[a - 1]:
                px[k], pw[k] = v, w[i]
                k += 1
        if k - k0 > 1:
            order = np.argsort(px[k0:k], kind="mergesort")
            px[k0:k] = px[k0:k][order]
            pw[k0:k] = pw[k0:k][order]
    pb[n_blocks] = k
    return k


@njit(cache=True, nogil=True)
def _runs(px, pb, lows, highs, first, count):  # pragma: no cover (compiled)
    """first[s, j], count[s, j]: the run of block s's sorted points inside window (s, j)."""
    n_blocks, m = lows.shape
    for s in range(n_blocks):
        seg = px[pb[s] : pb[s + 1]]
        for j in range(m):
            a = np.searchsorted(seg, lows[s, j], side="left")
            b = np.searchsorted(seg, highs[s, j], side="right")
            first[s, j] = pb[s] + a
            count[s, j] = max(b - a, 0)


@njit(cache=True, nogil=True)
def _pairs(px, pw, nodes, first, count, f0, f1, m, sq, weight):  # pragma: no cover (compiled)
    """The squared distances and weights of the pairs of cells f0..f1 - 1 (cell = s m + j),
    cell by cell. (Each run is sliced and walked from 0: indices the compiler knows are
    non-negative need no wraparound check, and the loop is vectorised.)"""
    k = 0
    for c in range(f0, f1):
        g = nodes[c % m]
        run = count[c]
        if run <= 0:
            continue
        xs, ws = px[first[c] : first[c] + run], pw[first[c] : first[c] + run]
        sq_run, weight_run = sq[k : k + run], weight[k : k + run]
        for t in range(run):
            d = g - xs[t]
            sq_run[t] = d * d
            weight_run[t] = ws[t]
        k += run


@njit(cache=True, nogil=True)
def _cell_sums(values, count, f0, f1, out):  # pragma: no cover (compiled)
    """out[c] = the sum of cell c's run of ``values`` (cells f0..f1 - 1, in order)."""
    k = 0
    for c in range(f0, f1):
        acc = 0.0
        for _ in range(count[c]):
            acc += values[k]
            k += 1
        out[c] = acc


def pair_chunks(counts: np.ndarray, max_pairs: int) -> list[tuple[int, int]]:
    """Consecutive ranges [i0, i1) of items (windows, nodes) with ``counts`` pairs each,
    about ``max_pairs`` pairs per range (an item's pairs are never split), covering every
    item that has a pair: the chunks in which pairs are evaluated with bounded memory (here
    and in the plane, :func:`momkde_core._engine._exact_tails._exact_at_nodes_plane`)."""
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    cuts = np.unique(np.searchsorted(ends, np.arange(0, total, max_pairs), "right"))
    return list(zip(cuts.tolist(), cuts[1:].tolist() + [len(counts)]))


def window_sums(
    x: np.ndarray,
    w: np.ndarray,
    bounds: np.ndarray,
    nodes: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    kernel: Kernel,
    h: float,
    max_pairs: int,
) -> np.ndarray:
    """sum over block s's points of positive weight inside the closed window
    [lows[s, j], highs[s, j]] of w_i K_h(nodes[j] - x_i), shape (S, m).

    ``x``, ``w``: the points and weights, sorted by block (block s is rows bounds[s] to
    bounds[s + 1]); ``lows``, ``highs``: (S, m). The (point, node) pairs are evaluated in
    chunks of about ``max_pairs``.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)  # (strided or a broadcast value: read in place)
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    n_blocks, m = len(bounds) - 1, len(nodes)
    lows = np.ascontiguousarray(lows, dtype=np.float64)
    highs = np.ascontiguousarray(highs, dtype=np.float64)
    ok = (
        len(x) == len(w)
        and lows.shape == highs.shape == (n_blocks, m)
        and len(bounds)
        and blocks_within_rows(bounds, len(x))
    )
    if not ok:
        raise ValueError(
            "window_sums needs one weight per point, block bounds within the "
            "points and one window per block and node"
        )
    px, pw = np.empty(len(x)), np.empty(len(x))  # (pages are touched only where written)
    pb = np.zeros(n_blocks + 1, dtype=np.int64)
    _collect(x, w, bounds, lows, highs, px, pw, pb)
    first = np.empty((n_blocks, m), dtype=np.int64)
    count = np.empty((n_blocks, m), dtype=np.int64)
    _runs(px, pb, lows, highs, first, count)
    out = np.zeros(n_blocks * m)
    first, count = first.ravel(), count.ravel()
    nodes = np.ascontiguousarray(nodes, dtype=np.float64)
    for f0, f1 in pair_chunks(count, max_pairs):
        total = int(count[f0:f1].sum())
        if not total:
            continue
        sq, weight = np.empty(total), np.empty(total)
        _pairs(px, pw, nodes, first, count, f0, f1, m, sq, weight)
        values = kernel.kernel_sq(sq, h, 1)
        values *= weight
        _cell_sums(values, count, f0, f1, out)
    return out.reshape(n_blocks, m)
