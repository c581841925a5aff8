"""The log of the median over blocks of the weighted Gaussian sums (or the mean of their logs),
at many query points.

MoM-KDE's score at a point y is median_s F_s(y), F_s(y) = sum_{i in block s} w_i K_h(y - X_i),
over S blocks of nearly equal sizes (S = 2 ceil(eps n) + 1: thousands of blocks of a few
rows). Scoring m points costs n m kernel terms, and the general path
(:func:`momkde_core._engine._point_sums.block_log_sums`) then spends more on gathering each
block's few terms than on the terms themselves, and more again on the median of S values
laid along a strided axis.

Here the rows are laid out by slot (:func:`momkde_core._engine._point_sums.slot_layout`):
slot k holds the k-th row of every block, so that block s's sum is the sum over k of
row s of slot k. For a tile of queries, each slot is one matrix product of the augmented
rows [x_i / h^2, log w_i - |x_i|^2 / 2h^2 - log c, 1] and [y_j, 1, -|y_j|^2 / 2h^2] (both
centred on the data's mean), an exponential, and a dense add into the S x tile
accumulator, all in a core's cache; the median is then taken along contiguous rows. Tiles
run on the kept pool's threads with BLAS on one thread.

Exactness: the sums are those of the BLAS expansion of the squared distances (relative
round-off of a few ulps times the exponent, as :func:`block_log_sums`' linear path). Terms
below e^-700 are counted as e^-700 (~1e-304), so a block sum moves by at most its size times
1e-304: nothing next to a median of at least 1e-280 (a relative 1e-20 per row of a block).
The median is taken as exact wherever it is at least 1e-280; a block sum that is not exact
is below 1e-280 + size x 1e-304, and so stays on its side of the median. The queries where it is
not are redone in log space over all blocks (:func:`block_log_sums` and the exact median of
logs). The mean of the logs needs every block's sum: it is taken as exact where each is at
least 1e-280, and the other queries are redone in log space the same way.
"""

from __future__ import annotations

import numpy as np

from ..kernels import EXP_FLOOR, Kernel
from ._point_sums import LOG_SAFE_FAST, augmented_rows, block_log_sums, slot_layout
from ._threads import map_on_pool, one_blas_thread

TILE_ELEMENTS = 2**16  # block sums per tile (S x queries): 512 KiB, a core's L2 cache
PADDING_LOG = -1e30  # the log weight of a slot's padding row: its terms are exactly 0
SAFE_FAST = float(np.exp(LOG_SAFE_FAST))  # the smallest block sum taken as exact
#: What :func:`median_log_sums` takes over the blocks: MoM-KDE's median, or the mean of the
#: blocks' logs (the default detector's score).
STATISTICS = ("median", "mean_log")


def median_log_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    Y: np.ndarray,
    kernel: Kernel,
    h: float,
    log_weights: np.ndarray | None = None,
    statistic: str = "median",
) -> np.ndarray:
    """log median_s F_s(Y_j) for each query, shape (m,), for a separable (Gaussian) kernel;
    with ``statistic="mean_log"``, the mean over the blocks of log F_s(Y_j) instead.

    ``X`` is sorted by block (block s is ``X[bounds[s]:bounds[s + 1]]``, every block non-empty),
    ``log_weights`` the rows' log weights (None: 0). The median of an even number of blocks
    is the mean of the two middle sums, as :func:`numpy.median`. -inf where the median is 0
    (or, for the mean of the logs, where a block's sum is 0).
    """
    if not kernel.separable:
        raise ValueError(f"median_log_sums needs a separable kernel, got {kernel.name!r}")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    n, d = X.shape
    m = len(Y)
    sizes = np.diff(bounds)
    if not (sizes > 0).all():
        raise ValueError("median_log_sums needs non-empty blocks")
    n_blocks = len(sizes)
    left, right_rows = augmented_rows(X, Y, kernel, h, log_weights)
    rows, padding = slot_layout(bounds[:-1], sizes)
    slots = np.take(left, rows.ravel(), axis=0).reshape(*rows.shape, d + 2)
    slots[padding] = 0.0
    slots[padding, d] = PADDING_LOG
    right = np.ascontiguousarray(right_rows.T)
    out = np.empty(m)
    cols = max(1, TILE_ELEMENTS // n_blocks)

    def work(j0: int) -> None:
        j1 = min(m, j0 + cols)
        block = np.ascontiguousarray(right[:, j0:j1])
        acc = np.zeros((n_blocks, j1 - j0))
        part = np.empty_like(acc)
        for slot in slots:
            np.matmul(slot, block, out=part)
            # (terms below e^-700 count as e^-700: exp and the adds then never meet a
            # subnormal number, many times slower; the sums move by at most size x 1e-304)
            np.maximum(part, EXP_FLOOR, out=part)
            np.exp(part, out=part)
            acc += part
        if statistic == "mean_log":
            # exact where every block's sum is (see the module's note); NaN marks the redo
            with np.errstate(divide="ignore"):
                mean = np.log(acc).mean(axis=0)
            out[j0:j1] = np.where(acc.min(axis=0) >= SAFE_FAST, mean, np.nan)
            return
        # (the blocks laid along the last axis: a partition along it is the fast one)
        middle = median(np.ascontiguousarray(acc.T), axis=1)
        with np.errstate(divide="ignore"):
            out[j0:j1] = np.log(middle)

    with one_blas_thread():
        map_on_pool(work, range(0, m, cols))
    redo = np.flatnonzero(~(out >= LOG_SAFE_FAST) if statistic == "median" else np.isnan(out))
    if redo.size:
        logs = block_log_sums(X, bounds, Y[redo], kernel, h, log_weights)
        out[redo] = median(logs, log=True) if statistic == "median" else logs.mean(axis=0)
    return out


def median(
    values: np.ndarray, axis: int = 0, *, log: bool = False, count: int | None = None
) -> np.ndarray:
    """The median along ``axis``, as :func:`numpy.median` computes it: the middle value, or
    the mean of the two middle values for an even count.

    ``log``: the values are logs, and so is the result: the log of the median of their
    exps, computed in log space (exact; -inf where the upper middle value is -inf).
    ``count``: the median of the ``count`` smallest values along the axis (the others sort
    last, such as a +inf put in place of a value to leave out); by default all of them.
    A partition along the last axis of a C-ordered array is the fast one: lay many blocks
    there.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.array([[3.0, 1.0], [1.0, 4.0], [2.0, 9.0], [8.0, 5.0]])
    >>> median(values), np.median(values, axis=0)
    (array([2.5, 4.5]), array([2.5, 4.5]))
    >>> median(values, count=3)  # the 3 smallest of each column
    array([2., 4.])
    >>> np.exp(median(np.log(values), log=True))
    array([2.5, 4.5])
    """
    n = values.shape[axis] if count is None else count
    lo, hi = (n - 1) // 2, n // 2  # the middle order statistics
    # (a repeated kth makes numpy's partition several times slower)
    part = np.partition(values, [lo] if lo == hi else [lo, hi], axis=axis)
    low, high = np.take(part, lo, axis=axis), np.take(part, hi, axis=axis)
    if lo == hi:
        return low
    if not log:
        return (low + high) / 2.0
    with np.errstate(invalid="ignore"):
        both = np.logaddexp(low, high) - np.log(2.0)
    return np.where(np.isneginf(high), -np.inf, both)
