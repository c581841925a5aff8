"""Block sums from the (point, node) pairs within the kernel's radius: the band.

Each point visits only the nodes within ``radius * h`` of it along every axis: per point
and axis one ``searchsorted`` gives the range of nodes, the ranks of the pairs inside each
point's box of nodes are unravelled into per-axis node indices, and the kernel values of a
chunk of pairs are scattered into the blocks' grids by one ``bincount``. The work is
proportional to the pairs in reach, not to n times the nodes, so the band is the cheapest
backend when h is small next to the grid's extent, whatever the number of blocks.

Exact for compact kernels; for the Gaussian and the exponential, whose radius keeps terms
down to 1e-17 of the kernel's peak, a block sum misses at most ~2e-17 K_h(0) times its
weight. The pairs' kernel values are kept for replay (:mod:`momkde_core._engine._memo`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..kernels import Kernel
from ._memo import _replay
from ._point_sums import CACHE_CHUNK_ELEMENTS, _as_2d


def _band_pair_estimate(n: int, axes: list[np.ndarray], reach: float) -> float:
    """(point, node) pairs the band would visit if every point were inside the grid (an upper
    bound, in O(1): the exact count needs a search per point)."""
    nodes = 1.0
    for axis in axes:
        step = (axis[-1] - axis[0]) / max(len(axis) - 1, 1)
        nodes *= min(len(axis), 2.0 * reach / step + 1.0)
    return n * nodes


def _band_ranges(X: np.ndarray, axes: list[np.ndarray], reach: float):
    """Per point, the index ranges [lo, hi) of the nodes within ``reach`` along each (sorted)
    axis, and the number of nodes of its box (the product of the range lengths), shape (n,)."""
    los, his = [], []
    slack = reach * 1e-9  # the kernel itself decides at the very edge of its support
    for k, axis in enumerate(axes):
        los.append(np.searchsorted(axis, X[:, k] - reach - slack, side="left"))
        his.append(np.searchsorted(axis, X[:, k] + reach + slack, side="right"))
    counts = np.prod([hi - lo for lo, hi in zip(los, his)], axis=0)
    return los, his, counts


def band_block_sums(
    X: np.ndarray, bounds: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float, w: np.ndarray
) -> np.ndarray:
    """Block sums at 1-D points Y, shape (S, m), from the pairs within the kernel's radius.

    The points are sorted and treated as an (uneven) axis. Each block sum misses at most
    ~2e-17 K_h(0) times its weight (0 for compact kernels): exact relative to values well
    above that, which is what :meth:`score_samples` checks before trusting it.
    """
    y = _as_2d(Y)[:, 0]
    order = np.argsort(y, kind="stable")
    out = np.empty((len(bounds) - 1, len(y)))
    out[:, order] = _band_sums(_as_2d(X), bounds, [y[order]], kernel, h, w)
    return out


def _band_pairs(
    X: np.ndarray,
    axes: list[np.ndarray],
    kernel: Kernel,
    h: float,
    max_elements: int = CACHE_CHUNK_ELEMENTS,
) -> Iterator[tuple]:
    """Yield (a, b, counts, flat node, kernel value) for chunks of points [a, b) holding about
    ``max_elements`` (point, node) pairs within the kernel's radius; point a + j owns the
    next ``counts[j]`` pairs (per-point arrays expand to pairs with ``np.repeat``).
    Replayed by :func:`_replay` for the same data, axes and h."""
    los, his, counts = _band_ranges(X, axes, kernel.radius * h)

    def chunks():
        n, d = X.shape
        shape = tuple(len(a) for a in axes)
        ends = np.cumsum(counts)
        a = 0
        while a < n:
            b = max(a + 1, int(np.searchsorted(ends, ends[a] - counts[a] + max_elements, "right")))
            b = min(b, n)
            part = counts[a:b]
            # rank of each pair inside its point's box, unravelled into per-axis node indices
            rank = np.arange(ends[b - 1] - ends[a] + part[0]) - np.repeat(
                ends[a:b] - ends[a] - part + part[0], part
            )
            sq, flat = 0.0, 0
            for k in reversed(range(d)):
                if k:
                    rank, offset = np.divmod(rank, np.repeat(his[k][a:b] - los[k][a:b], part))
                else:  # what is left of the rank is the offset along the first axis
                    offset = rank
                node = np.repeat(los[k][a:b], part) + offset
                sq = sq + np.square(np.repeat(X[a:b, k], part) - axes[k][node])
                flat = flat + node * int(np.prod(shape[k + 1 :]))
            yield a, b, part, flat, kernel.kernel_sq(sq, h, d)
            a = b

    return _replay(("band", X, axes, kernel, h, max_elements), chunks, int(counts.sum()))


def _band_sums(X, bounds, axes, kernel, h, w, max_elements: int = CACHE_CHUNK_ELEMENTS):
    """Block sums from the (point, node) pairs within the kernel's radius, chunk by chunk,
    each chunk scattered into the result with one bincount."""
    n_blocks = len(bounds) - 1
    n_grid = int(np.prod([len(a) for a in axes]))
    offset = np.repeat(np.arange(n_blocks) * n_grid, np.diff(bounds))  # of each point's block
    out = np.zeros(n_blocks * n_grid)
    for a, b, part, flat, values in _band_pairs(X, axes, kernel, h, max_elements):
        # points are sorted by block: the chunk's pairs land in blocks of points a .. b-1
        first = offset[a]
        span = offset[b - 1] + n_grid - first
        out[first : first + span] += np.bincount(
            np.repeat(offset[a:b] - first, part) + flat,
            values * np.repeat(w[a:b], part),
            minlength=span,
        )
    return out.reshape((n_blocks, *(len(a) for a in axes)))
