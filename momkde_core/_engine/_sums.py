"""The numeric heart shared by every estimator: per-block, optionally weighted kernel sums.

All four estimators are (medians of) weighted kernel sums
``F_s(y) = sum_{i in block s} w_i K_h(y - X_i)``. This module computes them two ways:

* :func:`block_log_sums`, exactly, at arbitrary points in any dimension. Work is chunked so
  memory stays bounded (an ``n x m`` matrix is never allocated for large ``n``), squared
  distances come from BLAS, and sums are taken in log space (log-sum-exp per block), so
  that d = 64 never underflows. For the Gaussian at many pairs the log terms come from one
  augmented BLAS product per tile and are summed in linear space on both cores; only the
  queries whose sums underflow are redone in log space.
* :func:`block_grid_sums`, on an evenly spaced 1-D axis or 2-D mesh (the plots, integrals
  and metrics). It picks the cheapest of five backends: binning of all S blocks in one
  compiled pass (:mod:`momkde_core._engine._binning`) followed by one batched FFT convolution
  (:func:`_fft_sums`: Taylor moments of each cell for the Gaussian in 1-D, with a bound of
  the error at every node; linear binning refined
  to ~1e-3 of the peak otherwise), for the Gaussian in 2-D the same linear binning summed
  at the nodes by products of the axis factors (:mod:`momkde_core._engine._binned_product`: no
  transform of the whole binning grid) or an exact separable product
  (``A_x^T diag(w) A_y`` per block, a BLAS matrix product, the factors by the recurrence of
  :mod:`momkde_core._engine._axis_factors`; many small blocks in one batched product), the exact
  chunked sum, or the
  *band*: each point visits only the nodes within the kernel's radius (exact for compact
  kernels; for the Gaussian it drops terms below 1e-17 of the kernel's peak), which is the
  cheapest when h is small next to the grid's extent, whatever S is. With ``exact=True``
  the nodes where the binned value may be off by more than 1e-6 relative are recomputed by
  :func:`exact_at_nodes` from the points that matter there.

Data are passed sorted by block: block ``s`` is ``X[bounds[s]:bounds[s + 1]]``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np
from scipy import fft as sp_fft
from scipy import sparse, special

from .._columns import bounding_box
from .._config import chunk_elements, memo_bytes, n_threads
from ..kernels import EXP_FLOOR, Kernel, exp_in_place, flushed_exp
from ._axis_factors import gaussian_factors
from ._binned_product import (
    BAND_FLOOR,
    BAND_RADIUS,
    MAX_GATHERED,
    binned_product_sums,
    binning_cells,
)
from ._binning import bin_blocks
from ._disc_pairs import MAX_DISTANCE_CELLS, MESH_TILE, DiscPairs
from ._tail_windows import pair_chunks, window_sums
from ._threads import map_on_pool, one_blas_thread, submit_to_pool

CACHE_CHUNK_ELEMENTS = 2**16  # 0.5 MiB: fits in a core's L2 cache
LOG_SAFE_LINEAR = np.log(1e-290)  # linear sums above this lost nothing to flushed terms
LOG_SAFE_FAST = np.log(1e-280)  # the same for the BLAS path (n e^-708 is below 1e-17 of it)
FAST_GAUSSIAN_PAIRS = 2**22  # block_log_sums takes the BLAS linear path from this many pairs
MAX_FFT_ELEMENTS = 2**24  # cap on the FFT backend's grid x moments; batches of blocks hold 1/8
FFT_THREADED_ELEMENTS = 2**20  # scipy.fft runs a batch on n_threads() from this many elements
TAYLOR_ORDER = 3  # the Gaussian 1-D FFT bins the moments of order 0..3 of each cell
TAYLOR_CELLS_PER_BANDWIDTH = 20.0  # cells of at most h / 20 for those moments
MAX_CELL_TABLE = 2**22  # blocks x cells of exact_at_nodes' occupancy tables (32 MiB of int64)
WINDOW_BUDGET = 23.0  # exact_at_nodes drops terms below e^-23 / n of a node's nearest term
GRID_RTOL = 1e-6  # exact grids: nodes where the binned value may be off by more are redone
FFT_ROUNDOFF = 1e-13  # bound on an FFT convolution's absolute error / (K_h(0) x weight)
MAX_CACHED_PAIRS = 2**22  # kernel values of one evaluation are kept up to this many (n = 2048)
SEPARABLE_BATCH_POINTS = 64  # blocks up to this size share one batched separable product
REDO_UNITS_PER_NODE = 2e3  # backend_costs' price of an exact far-tail node in the plane
UNDERFLOW_UNITS_PER_NODE = 1e4  # ... and of one underflowing there, per block (log space)
PREPARED_TABLES_BYTES = 2**26  # the blocks' cell tables held at once (_plane_tables_bytes)
PLANE_THREADED_NODES = 256  # tiled exact tails on the pool's threads from this many nodes
EXACT_UNITS_PER_PAIR = 30.0  # backend_costs' price of one kernel term summed exactly
UNDERFLOW_BANDWIDTHS = float(np.sqrt(2 * 745.0))  # exp(-r^2 / 2h^2) is 0 beyond this r / h
_MEMO: OrderedDict = OrderedDict()  # key -> (list of chunks, bytes), least recently used first
_MEMO_LOCK = threading.Lock()


def _as_2d(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    return a[:, None] if a.ndim == 1 else a


def _sq_dists(A: np.ndarray, B: np.ndarray, a_sq: np.ndarray, b_sq: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between rows of A and B (given their squared norms)."""
    if A.shape[1] == 1:
        return np.square(A[:, :1] - B[:, 0])
    sq = A @ B.T
    sq *= -2.0
    sq += a_sq[:, None]
    sq += b_sq
    return np.maximum(sq, 0.0, out=sq)


def block_log_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    Y: np.ndarray,
    kernel: Kernel,
    h: float,
    log_weights: np.ndarray | None = None,
    max_elements: int | None = None,
    linear_first: bool = False,
) -> np.ndarray:
    """log sum_{i in block s} w_i K_h(Y_j - X_i) for every block s and query j, shape (S, m).

    Exact, in any dimension, with memory bounded by ``max_elements`` per working matrix.
    ``log_weights`` (shape (n,)) default to 0 (unit weights). A block with no point within
    the kernel's support of ``Y_j`` gives ``-inf``. ``linear_first`` sums in linear space
    (:func:`exact_block_sums`, ~3x faster) and redoes in log space only the queries where
    some block sum is below 1e-290 (terms may have been lost there): worth it in low
    dimension, where kernels rarely underflow.
    """
    X, Y = _as_2d(X), _as_2d(Y)
    bounds = np.asarray(bounds, dtype=np.intp)
    max_elements = max_elements or chunk_elements()
    if kernel.separable and len(X) * len(Y) >= FAST_GAUSSIAN_PAIRS:
        return _gaussian_log_sums(X, bounds, Y, kernel, h, log_weights, max_elements)
    if linear_first:
        w = np.ones(len(X)) if log_weights is None else np.exp(log_weights)
        with np.errstate(divide="ignore"):
            out = np.log(exact_block_sums(X, bounds, Y, kernel, h, w))
        redo = np.flatnonzero((out < LOG_SAFE_LINEAR).any(axis=0))
        if redo.size:
            out[:, redo] = block_log_sums(X, bounds, Y[redo], kernel, h, log_weights, max_elements)
        return out
    return _log_space_sums(X, bounds, Y, kernel, h, log_weights, max_elements)


def block_shifted_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    Y: np.ndarray,
    kernel: Kernel,
    h: float,
    log_weights: np.ndarray | None = None,
    max_elements: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(shift, sums): per query j, ``shift[j]`` the largest log term max_i log(w_i K_h(Y_j -
    X_i)), and sums[s, j] = sum_{i in block s} w_i K_h(Y_j - X_i) exp(-shift[j]), shape
    (S, m), in linear space: log of a block sum is log(sums) + shift wherever it is within
    ~e^-700 of the query's largest term (0 below that).

    For statistics over the blocks that scale with each query's sums and that such terms
    cannot move: a median, a mixture, an importance-sampling ratio. Terms are taken per
    query in chunks of all points (at most ``max_elements`` per chunk), exponentiated
    after the shift (:func:`momkde_core.kernels.exp_in_place`) and summed per block by one
    sparse product: ~3x faster than :func:`block_log_sums`' log-sum-exp per block.
    """
    X, Y = _as_2d(X), _as_2d(Y)
    n, d = X.shape
    m = len(Y)
    n_blocks = len(bounds) - 1
    shift = np.full(m, -np.inf)
    out = np.zeros((n_blocks, m))
    if not n or not m:
        return shift, out
    members = _block_members(bounds, np.ones(n))
    center = X.mean(axis=0)
    Xc, Yc = X - center, Y - center  # (centred: the BLAS expansion does not cancel)
    x_sq, y_sq = np.einsum("ij,ij->i", Xc, Xc), np.einsum("ij,ij->i", Yc, Yc)
    step = max(1, (max_elements or chunk_elements()) // n)
    for j0 in range(0, m, step):
        j1 = min(m, j0 + step)
        log_k = kernel.log_kernel_sq(_sq_dists(Xc, Yc[j0:j1], x_sq, y_sq[j0:j1]), h, d)
        if log_weights is not None:
            log_k += log_weights[:, None]
        peak = log_k.max(axis=0)
        shift[j0:j1] = peak
        safe = np.where(np.isfinite(peak), peak, 0.0)  # (no term: sums 0, shift -inf)
        log_k -= safe
        exp_in_place(log_k)
        out[:, j0:j1] = members @ log_k
    return shift, out


def _block_members(bounds: np.ndarray, w: np.ndarray) -> sparse.csr_matrix:
    """The (S x n) sparse matrix of block memberships times the points' weights ``w``:
    a product with it sums a matrix's rows block by block in one C-level pass."""
    n_blocks = len(bounds) - 1
    return sparse.csr_matrix(
        (w, (np.repeat(np.arange(n_blocks), np.diff(bounds)), np.arange(len(w)))),
        shape=(n_blocks, len(w)),
    )


def _log_space_sums(X, bounds, Y, kernel, h, log_weights, max_elements) -> np.ndarray:
    """:func:`block_log_sums` in log space throughout (log-sum-exp per block and chunk)."""
    out = np.full((len(bounds) - 1, len(Y)), -np.inf)
    # replayed for the same points and h (MoM-KDE refitted for another S with the same seed:
    # the oracle's and the rule's candidates), hence copied before they are summed in place
    chunks = _replay(
        ("log", X, Y, kernel, h, max_elements),
        lambda: _log_kernel_chunks(X, Y, kernel, h, max_elements),
        len(X) * len(Y),
    )
    for a, b, j0, j1, log_k in chunks:
        first = int(np.searchsorted(bounds, a, side="right") - 1)
        last = int(np.searchsorted(bounds, b - 1, side="right") - 1)
        segments = [
            (s, max(bounds[s], a) - a, min(bounds[s + 1], b) - a)
            for s in range(first, last + 1)
            if bounds[s + 1] > bounds[s]
        ]
        log_k = log_k.copy() if log_weights is None else log_k + log_weights[a:b, None]
        _accumulate_segments(out, log_k, segments, j0, j1)
    return out


def _gaussian_log_sums(X, bounds, Y, kernel, h, log_weights, max_elements) -> np.ndarray:
    """:func:`block_log_sums` for the Gaussian at many pairs: linear sums from BLAS, checked.

    log(w_i K_h(y - x_i)) = a_i + b_j + x_i.y_j / h^2 (a_i = log w_i - |x_i|^2 / 2h^2 - log
    of the constant, b_j = -|y_j|^2 / 2h^2, both sets centred on the data's mean) is one
    matrix product of the augmented rows [x_i / h^2, a_i, 1] and [y_j, 1, b_j]; then an
    exponential and one sum per block's run of rows, in cache-sized tiles spread over
    the kept pool's threads (BLAS on one thread each). Terms below e^-708 are subnormal or 0:
    n of them are below 1e-17 of a sum above 1e-280, and a query where some block sum is
    below that is redone in log space; if most of the first queries need it (high
    dimension, small h) all of them are.
    """
    n, d = X.shape
    m = len(Y)
    center = X.mean(axis=0)
    Xc, Yc = X - center, Y - center
    inv = 1.0 / (h * h)
    left = np.empty((n, d + 2))
    np.multiply(Xc, inv, out=left[:, :d])
    left[:, d] = -0.5 * inv * np.einsum("ij,ij->i", Xc, Xc) - kernel.log_norm(d) - d * np.log(h)
    if log_weights is not None:
        left[:, d] += log_weights
    left[:, d + 1] = 1.0
    right = np.empty((m, d + 2))
    right[:, :d] = Yc
    right[:, d] = 1.0
    right[:, d + 1] = -0.5 * inv * np.einsum("ij,ij->i", Yc, Yc)
    rows = 1024
    cols = max(1, CACHE_CHUNK_ELEMENTS * 2 // rows)
    tiles = []  # per run of rows: (a, b, block ids, starts of their runs within [a, b))
    for a in range(0, n, rows):
        b = min(n, a + rows)
        first = int(np.searchsorted(bounds, a, side="right") - 1)
        last = int(np.searchsorted(bounds, b - 1, side="right") - 1)
        ids = np.array([s for s in range(first, last + 1) if bounds[s + 1] > bounds[s]])
        starts = np.maximum(bounds[ids], a) - a
        tiles.append((a, b, ids, starts))
    out = np.full((len(bounds) - 1, m), -np.inf)

    def work(j0: int, j1: int) -> None:
        acc = np.zeros((len(bounds) - 1, j1 - j0))
        buf = np.empty((rows, j1 - j0))
        block = right[j0:j1].T.copy()
        for a, b, ids, starts in tiles:
            part = buf[: b - a]
            np.matmul(left[a:b], block, out=part)
            np.exp(part, out=part)
            if len(ids) == 1:
                acc[ids[0]] += part.sum(axis=0)
            else:
                acc[ids] += np.add.reduceat(part, starts, axis=0)
        with np.errstate(divide="ignore"):
            out[:, j0:j1] = np.log(acc)

    spans = [(j0, min(m, j0 + cols)) for j0 in range(0, m, cols)]
    probe = spans[: n_threads()]
    filled = np.diff(bounds) > 0  # (an empty block is -inf, rightly)
    # (the limit is process-wide and held under one lock, see momkde_core.threads: so
    # these tiles, which use both cores themselves, run one call at a time)
    with one_blas_thread():
        map_on_pool(lambda s: work(*s), probe)
        done = probe[-1][1]
        if (out[filled, :done] < LOG_SAFE_FAST).any(axis=0).mean() <= 0.5:
            map_on_pool(lambda s: work(*s), spans[len(probe) :])
            done = m
    redo = np.flatnonzero((out[filled, :done] < LOG_SAFE_FAST).any(axis=0))
    redo = np.concatenate([redo, np.arange(done, m)])
    if redo.size:
        out[:, redo] = _log_space_sums(X, bounds, Y[redo], kernel, h, log_weights, max_elements)
    return out


def _log_kernel_chunks(X: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float, max_elements: int):
    """Yield (a, b, j0, j1, log K_h(Y[j0:j1] - X[a:b])) with the points along axis 0.

    The chunks cover X x Y with at most ``max_elements`` entries each; each block of X stays
    a contiguous run of rows. Centring both sets on X's mean keeps the BLAS expansion
    ||x||^2 + ||y||^2 - 2 x.y from cancelling.
    """
    n, d = X.shape
    m = len(Y)
    if n == 0 or m == 0:
        return
    center = X.mean(axis=0)
    Xc, Yc = X - center, Y - center
    x_sq, y_sq = np.einsum("ij,ij->i", Xc, Xc), np.einsum("ij,ij->i", Yc, Yc)
    n_chunk = int(min(n, max(1024, max_elements // min(m, 64))))  # few queries: more rows
    m_chunk = int(max(1, max_elements // n_chunk))
    for a in range(0, n, n_chunk):
        b = min(n, a + n_chunk)
        for j0 in range(0, m, m_chunk):
            j1 = min(m, j0 + m_chunk)
            sq = _sq_dists(Xc[a:b], Yc[j0:j1], x_sq[a:b], y_sq[j0:j1])
            yield a, b, j0, j1, kernel.log_kernel_sq(sq, h, d)


def _accumulate_segments(
    out: np.ndarray, log_k: np.ndarray, segments: list, j0: int, j1: int
) -> None:
    """out[s, j0:j1] = logaddexp(out[s, j0:j1], logsumexp of log_k's rows of segment s).

    ``log_k`` has the points along axis 0. Up to 64 segments: one max-shifted reduction each.
    Many of similar lengths (MoM-KDE's blocks): all at once by slot (:func:`_slot_log_sums`);
    many of unlike lengths: with ``reduceat`` over all segments at once, so no Python loop
    runs per block. ``log_k`` is overwritten.
    """
    if len(segments) <= 64:
        for s, lo, hi in segments:
            part = log_k[lo:hi]
            peak = part.max(axis=0)
            safe = np.where(np.isfinite(peak), peak, 0.0)
            part -= safe
            exp_in_place(part)
            with np.errstate(divide="ignore"):
                val = np.log(part.sum(axis=0)) + safe
            np.logaddexp(out[s, j0:j1], val, out=out[s, j0:j1])
        return
    ids = np.array([s for s, _, _ in segments])
    starts = np.array([lo for _, lo, _ in segments])
    lengths = np.array([hi - lo for _, lo, hi in segments])
    slots = int(lengths.max())
    if slots * len(segments) <= 2 * len(log_k):  # sizes alike (MoM-KDE's blocks): by slot
        out[ids, j0:j1] = np.logaddexp(out[ids, j0:j1], _slot_log_sums(log_k, starts, lengths))
        return
    out[ids, j0:j1] = np.logaddexp(out[ids, j0:j1], _reduceat_log_sums(log_k, starts, lengths))


def _reduceat_log_sums(log_k: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """logsumexp of the consecutive runs of ``log_k``'s rows (axis 0) that start at
    ``starts`` and have ``lengths`` (>= 1, covering the rows from starts[0] on), each
    shifted by its maximum: ``reduceat`` over all runs at once. ``log_k`` is overwritten."""
    peak = np.maximum.reduceat(log_k, starts, axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    log_k -= np.repeat(safe, lengths, axis=0)
    exp_in_place(log_k)
    with np.errstate(divide="ignore"):
        return np.log(np.add.reduceat(log_k, starts, axis=0)) + safe


def slot_layout(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segments of similar lengths (MoM-KDE's blocks) laid out by slot: (index, padding),
    shape (largest length, segments). index[k, s] is the k-th row of segment s; where the
    segment has no k-th row, padding[k, s] holds and index[k, s] is its last row (some
    valid row to read, to be masked). Segments of length >= 1."""
    rank = np.arange(int(lengths.max(initial=1)))[:, None]
    padding = rank >= lengths[None, :]
    index = starts[None, :] + np.minimum(rank, lengths[None, :] - 1)
    return index, padding


def _slot_log_sums(log_k: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """logsumexp of the rows of each segment (rows starts[s] .. starts[s] + lengths[s] - 1
    of ``log_k``), shape (segments, columns), for segments of similar lengths: the rows are
    laid out by slot (:func:`slot_layout`), padded with -inf, so the maxima and sums run
    along the first axis over long contiguous rows. numpy's ``reduceat`` along axis 0 takes
    ~13 ns per entry for hundreds of segments of ~5 rows; this, ~2."""
    rows, padding = slot_layout(starts, lengths)
    laid = np.take(log_k, rows.ravel(), axis=0).reshape(*rows.shape, -1)
    laid[padding] = -np.inf
    peak = laid.max(axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    laid -= safe
    exp_in_place(laid)
    with np.errstate(divide="ignore"):
        return np.log(laid.sum(axis=0)) + safe


def is_evenly_spaced(axis: np.ndarray) -> bool:
    """True when ``axis`` is strictly increasing with constant spacing (to 1e-6)."""
    axis = np.asarray(axis, dtype=float)
    if axis.ndim != 1 or len(axis) < 2:
        return False
    steps = np.diff(axis)
    # (|step - step_0| <= 1e-6 |step_0| for all, as np.allclose would say, in two reductions)
    return bool(steps[0] > 0 and np.abs(steps - steps[0]).max() <= 1e-6 * steps[0])


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
    (1e-6) relative is recomputed exactly (:func:`exact_at_nodes`): with the FFT in 1-D
    and the Gaussian that is every node (see :func:`_fft_sums`); otherwise the far tails,
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
        # second thread (for one block, measured, the thread costs what it saves), while
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


def exact_block_sums(
    X: np.ndarray,
    bounds: np.ndarray,
    Y: np.ndarray,
    kernel: Kernel,
    h: float,
    w: np.ndarray,
    max_elements: int = CACHE_CHUNK_ELEMENTS,
) -> np.ndarray:
    """Exact block sums at points Y in linear space, shape (S, m): the grids' exact path.

    The kernel matrix of a chunk is multiplied by the sparse (S x n) matrix of block
    memberships times weights: one C-level pass whatever S is, where per-block reductions
    would loop over thousands of tiny blocks. Kernel values below e^-700 (~1e-304) are
    flushed to 0 (:func:`flushed_exp`), so sums below ~1e-290 are not exact: use
    :func:`block_log_sums` there. Chunks are cache-sized: these few element-wise passes run
    ~1.6x faster on 0.5 MiB than on 16 MiB temporaries.
    """
    n_blocks = len(bounds) - 1
    members = _block_members(bounds, w)
    out = np.zeros((n_blocks, len(Y)))
    X, Y = _as_2d(X), _as_2d(Y)

    def chunks():
        for a, b, j0, j1, log_k in _log_kernel_chunks(X, Y, kernel, h, max_elements):
            yield a, b, j0, j1, flushed_exp(log_k)

    key = ("exact", X, Y, kernel, h, max_elements)
    rows, part = None, None
    for a, b, j0, j1, k in _replay(key, chunks, len(X) * len(Y)):
        if rows != (a, b):  # chunks run row-major: slice the memberships once per row range
            rows, part = (a, b), members[:, a:b]
        out[:, j0:j1] += part @ k
    return out


def _replay(key: tuple, make_chunks: Callable[[], Iterator[tuple]], size: int) -> Iterator[tuple]:
    """The chunks of kernel values ``make_chunks()`` yields, replayed when a recent evaluation
    had the same key (one is kept when ``size`` <= MAX_CACHED_PAIRS; the least recently used
    ones are dropped beyond the ``memo_size`` knob in all; :func:`replay_limits` sets other limits).

    ``key`` is (kind, data, queries or grid axes, kernel, h, chunk size); the arrays enter
    it through a digest of their bytes. MoM-KDE for several S on the same data and h (the
    oracle's candidates, the S rule, a slider over S) shuffles the points once per seed, so
    its fits differ only in the block boundaries and share all the kernel values.
    Consumers must not modify the chunks.
    """
    if size > _limits()[0]:
        yield from make_chunks()
        return
    key = _memo_key(key)
    with _MEMO_LOCK:  # the app evaluates in several threads
        cached = _MEMO.get(key)
        if cached is not None:
            _MEMO.move_to_end(key)
    if cached is not None:
        yield from cached[0]
        return
    chunks = []
    for chunk in make_chunks():
        chunks.append(chunk)
        yield chunk
    size = sum(a.nbytes for chunk in chunks for a in chunk if isinstance(a, np.ndarray))
    with _MEMO_LOCK:
        _MEMO[key] = (chunks, size)
        _trim_memo()


_LIMITS = threading.local()  # this thread's (max pairs, max bytes), set by replay_limits


def _limits() -> tuple[int, int]:
    """The replay limits of the calling thread: (kernel values kept per evaluation, bytes
    kept in all); MAX_CACHED_PAIRS and the ``memo_size`` knob (:func:`momkde_core.config_context`)
    unless within
    :func:`replay_limits`."""
    return getattr(_LIMITS, "value", (MAX_CACHED_PAIRS, memo_bytes()))


def with_callers_replay_limits(fn: Callable) -> Callable:
    """``fn`` wrapped to run, in whichever thread calls it, within the replay limits of the
    thread that wraps it (the limits are per thread: a worker thread would otherwise take
    the defaults, and trim a caller's larger memo to them)."""
    limits = _limits()

    def run(*args, **kwargs):
        with replay_limits(*limits):
            return fn(*args, **kwargs)

    return run


@contextmanager
def replay_limits(max_pairs: int, max_bytes: int) -> Iterator[None]:
    """Within the block (in the calling thread only), keep evaluations of up to
    ``max_pairs`` kernel values for replay, and up to ``max_bytes`` in all
    (:func:`_replay`); on exit the thread's previous limits are back and the kept
    evaluations are trimmed to them. Results are the same bit for bit: a replay yields the
    very chunks that were computed. For a task that refits one sample many times, such as
    the experiment runner's (the oracle's 20 values of S on n up to ~5000 points)."""
    saved = getattr(_LIMITS, "value", None)
    _LIMITS.value = (max_pairs, max_bytes)
    try:
        yield
    finally:
        if saved is None:
            del _LIMITS.value
        else:
            _LIMITS.value = saved
        with _MEMO_LOCK:
            _trim_memo()


def _trim_memo() -> None:
    """Drop the least recently used evaluations beyond the calling thread's byte limit
    (the caller holds the lock)."""
    max_bytes = _limits()[1]
    while sum(b for _, b in _MEMO.values()) > max_bytes:
        _MEMO.popitem(last=False)


def _memo_key(key: tuple) -> tuple:
    """``key`` with every array replaced by (shape, digest of its bytes) and the kernel by
    its name, so that equal inputs give equal keys."""

    def part(item):
        if isinstance(item, np.ndarray):
            digest = hashlib.blake2b(np.ascontiguousarray(item).tobytes(), digest_size=16)
            return item.shape, digest.digest()
        if isinstance(item, (list, tuple)):
            return tuple(part(i) for i in item)
        return getattr(item, "name", item)

    return tuple(part(item) for item in key)


def _taylor(kernel: Kernel, d: int) -> bool:
    """Whether the FFT backend bins Taylor moments (the Gaussian in 1-D) or bins linearly."""
    return kernel.hermite_derivatives and d == 1


def _fft_plan(axes: list[np.ndarray], kernel: Kernel, h: float) -> list[tuple[int, int, float]]:
    """Per axis: (refinement k, margin L in fine cells, fine spacing) for the FFT backend."""
    per_h = TAYLOR_CELLS_PER_BANDWIDTH if _taylor(kernel, len(axes)) else kernel.cells_per_bandwidth
    plan = []
    for axis in axes:
        step = (axis[-1] - axis[0]) / (len(axis) - 1)
        refine = max(1, int(np.ceil(step * per_h / h)))
        fine = step / refine
        plan.append((refine, int(np.ceil(kernel.radius * h / fine)) + 1, fine))
    return plan


def _fft_shape(axes, plan) -> tuple[list[int], list[int]]:
    """(binning grid sizes, FFT lengths from scipy.fft.next_fast_len) per axis: the binning
    grid spans the nodes plus L fine cells on each side; a circular convolution of length
    >= size + L is exact on the nodes."""
    sizes = _fft_sizes(axes, plan)
    lengths = [sp_fft.next_fast_len(s + L, real=True) for s, (_, L, _) in zip(sizes, plan)]
    return sizes, lengths


def _fft_sizes(axes, plan) -> list[int]:
    """The binning grid's size per axis (Python ints: unbounded when the nodes lie
    astronomically many bandwidths apart, which :func:`choose_backend` checks first)."""
    return [(len(a) - 1) * k + 1 + 2 * L for a, (k, L, _) in zip(axes, plan)]


def exact_price(n: int, n_nodes: int) -> float:
    """:func:`backend_costs`' price of the exact backend: every one of ``n`` points' kernel
    terms at each of ``n_nodes`` nodes."""
    return EXACT_UNITS_PER_PAIR * n * n_nodes


def choose_backend(X, bounds, axes, kernel, h, exact: bool = False, box=None) -> str:
    """The cheapest exact-enough backend of :func:`backend_costs`."""
    costs = backend_costs(X, bounds, axes, kernel, h, exact, box)
    return min(costs, key=costs.get)


def backend_costs(X, bounds, axes, kernel, h, exact: bool = False, box=None) -> dict[str, float]:
    """The price of each exact-enough backend, from operation counts weighted by their measured
    cost (one unit is about 0.1-0.25 ns on a 2020s core; ``benchmarks/bench_core.py`` and
    ``benchmarks/bench_grid_speed.py`` time them). ``exact``: the far tails will be
    recomputed (see :func:`block_grid_sums`), which in the plane costs the binned backends
    ~60 ns per point, ~0.5 ms per block (its cell table and distance transform) and
    ~0.2 us per block and faint node (estimated: the nodes beyond the data's bounding box)
    and ~1.5-2 us per block and node beyond ~38.6 h of every point (redone in log space),
    as measured. ``box``: ``columns.bounding_box(X, skip_nan=True)`` when the caller has
    it (a pass over the data: ~0.25 ms at n = 1e5 in 2-D)."""
    n, d = X.shape
    if box is None and d == 2 and n and (exact or kernel.separable):
        box = bounding_box(X, skip_nan=True)
    n_blocks = len(bounds) - 1
    n_grid = int(np.prod([len(a) for a in axes]))
    costs = {"exact": exact_price(n, n_grid)}
    even = all(is_evenly_spaced(a) for a in axes)
    if even:
        # (a replayed band costs less, but the choice must not depend on what ran before:
        # the same call gives the same result whatever the history)
        pairs = _band_pair_estimate(n, axes, kernel.radius * h)
        costs["band"] = 100.0 * pairs + 12.0 * n_blocks * n_grid
    if kernel.separable and d == 2:
        widest = _batch_width(bounds)
        if widest:  # one batched product
            products, overhead = n_blocks * widest, 6e5
        else:  # a product per block
            products, overhead = n, 6e5 * n_blocks
        costs["separable"] = (
            0.1 * products * n_grid + 30.0 * n * sum(len(a) for a in axes) + overhead
        )
        if even:
            cells = binning_cells(X, axes, h, BAND_RADIUS * h, box)
            columns = float(cells[0][2]) if cells else 0.0
            if columns * len(axes[1]) <= MAX_GATHERED:  # one block's rows fit in a batch
                step_y = (axes[1][-1] - axes[1][0]) / max(len(axes[1]) - 1, 1)
                band = min(len(axes[1]), 2.0 * BAND_RADIUS * h / step_y + 2.0)
                costs["binned"] = (
                    10.0 * n * band
                    + 2.0 * n_blocks * columns * len(axes[1])
                    + 0.3 * n_blocks * columns * n_grid
                    + 2e5
                )
    if kernel.cells_per_bandwidth is not None and even:
        plan = _fft_plan(axes, kernel, h)
        moments = TAYLOR_ORDER + 1 if _taylor(kernel, d) else 1
        fits = (
            float(np.prod([float(s) for s in _fft_sizes(axes, plan)])) * moments <= MAX_FFT_ELEMENTS
        )
        cells = float(np.prod(_fft_shape(axes, plan)[1])) if fits else np.inf
        if cells * moments <= MAX_FFT_ELEMENTS:  # (blocks are binned and convolved in batches)
            costs["fft"] = (
                10.0 * n * (moments + 2**d)
                + 4.0 * n_blocks * cells * moments
                + 6.0 * n_blocks * cells * np.log2(cells + 2)
            )
    if exact and d == 2 and n:
        lows, highs = box

        def within(reach: float) -> int:  # nodes within ``reach`` of the box on both axes
            return int(
                np.prod(
                    [
                        np.count_nonzero((a >= lo - reach) & (a <= hi + reach))
                        for a, lo, hi in zip(axes, lows, highs)
                    ]
                )
            )

        # beyond ~38.6 h of every point a sum underflows and is redone in log space from
        # the pairs within its reach (exact_at_nodes): ~1.5-2 us per block and node, as
        # measured on 128 x 128 grids spanning +-30 and +-60 (n = 1e4, 1e5; S = 1, 20)
        underflow = n_grid - within(UNDERFLOW_BANDWIDTHS * h)
        redo = 600.0 * n + n_blocks * (
            5e6
            + REDO_UNITS_PER_NODE * (n_grid - within(0.0))
            + UNDERFLOW_UNITS_PER_NODE * underflow
        )
        for name in ("fft", "binned") if kernel.compact else ("fft", "binned", "band"):
            if name in costs:
                costs[name] += redo
    return costs


def _hermite(u: np.ndarray, order: int) -> list[np.ndarray]:
    """Probabilists' Hermite polynomials He_0 .. He_order at u (He_j K is (-h)^j K^(j))."""
    he = [np.ones_like(u), u.copy()]
    for j in range(1, order):
        he.append(u * he[j] - j * he[j - 1])
    return he[: order + 1]


def _circular(kern: np.ndarray, margins: list[int], lengths: list[int]) -> np.ndarray:
    """A kernel sampled at offsets -L..L per axis, laid out for a circular convolution."""
    out = np.zeros(lengths)
    index = np.ix_(*[np.arange(-L, L + 1) % N for L, N in zip(margins, lengths)])
    out[index] = kern
    return out


_SPECTRA: OrderedDict = OrderedDict()  # the last few kernel spectra of the FFT backend


def _fft_kernels(kernel: Kernel, h: float, plan, lengths) -> tuple[np.ndarray, np.ndarray | None]:
    """(spectra of the kernels to convolve the binned moments with, shape (moments, ...);
    the spectrum of the Taylor remainder's bound kernel, or None for linear binning).
    The last 8 are kept (read-only): a redraw or a sweep asks for the same ones."""
    key = (kernel.name, float(h), tuple(plan), tuple(lengths))
    with _MEMO_LOCK:
        cached = _SPECTRA.get(key)
    if cached is None:
        cached = _make_fft_kernels(kernel, h, plan, lengths)
        for a in cached:
            if a is not None:
                a.flags.writeable = False
        with _MEMO_LOCK:
            _SPECTRA[key] = cached
            while len(_SPECTRA) > 8:
                _SPECTRA.popitem(last=False)
    return cached


def _make_fft_kernels(kernel: Kernel, h: float, plan, lengths):
    """:func:`_fft_kernels`, computed."""
    d = len(plan)
    margins = [L for _, L, _ in plan]
    axes = tuple(range(-d, 0))
    if not _taylor(kernel, d):
        offsets = [np.arange(-L, L + 1) * fine for _, L, fine in plan]
        sq = sum(np.square(g) for g in np.meshgrid(*offsets, indexing="ij"))
        kern = _circular(kernel.kernel_sq(sq, h, d), margins, lengths)
        return sp_fft.rfftn(kern, axes=axes)[None], None
    ((_, L, fine),) = plan
    y = np.arange(-L, L + 1) * fine
    u = y / h
    peak = np.exp(-kernel.log_norm(1)) / h
    base = peak * np.exp(-0.5 * u * u)
    ratio = fine / h
    kernels = [
        ratio**j / special.factorial(j) * he * base
        for j, he in enumerate(_hermite(u, TAYLOR_ORDER))
    ]
    # the remainder of the Taylor expansion: |t fine|^(p+1) / (p+1)! max |K^(p+1)| over the
    # cell, |t| <= 1/2; the max over the cell is taken on 9 samples, with a 10 % margin
    p1 = TAYLOR_ORDER + 1
    shifts = np.linspace(-0.5, 0.5, 9) * ratio
    worst = np.max(
        [np.abs(_hermite(u - s, p1)[p1]) * np.exp(-0.5 * (u - s) ** 2) for s in shifts], axis=0
    )
    bound = 1.1 * (ratio / 2) ** p1 / special.factorial(p1) * peak * worst
    spectra = sp_fft.rfftn(np.stack([_circular(k, margins, lengths) for k in kernels]), axes=axes)
    return spectra, sp_fft.rfftn(_circular(bound, margins, lengths), axes=axes)


def _fft_sums(X, bounds, axes, kernel, h, w, exact: bool = False, box=None):
    """Binned block sums on the nodes by one batched FFT convolution (the binning:
    :func:`momkde_core._engine._binning.bin_blocks`).

    Gaussian, 1-D: the moments of order 0..3 of each cell are convolved with the kernel's
    scaled derivatives (fine / h)^j / j! He_j(y / h) K_h(y) (a Taylor expansion of
    K_h(g - c - t fine) in t), on cells of at most h / 20: the remainder is below
    1.1 (1/40)^4 / 24 max |He_4| K_h, about 5e-8 of a node's value near the data. The
    remainder is bounded at every node by convolving the largest block's cell masses with
    its bound kernel; ``exact`` recomputes, from the points that matter there
    (:func:`exact_at_nodes`), every node where that bound or the FFT's round-off (taken as
    1e-13 K_h(0) times the block's weight) could exceed ``GRID_RTOL`` (1e-6) of the value.
    Other kernels and 2-D: linear binning (error (fine / h)^2 / 8 of the peak per axis,
    twice that in the plane), and
    ``exact`` recomputes the nodes where round-off could exceed GRID_RTOL of the value.
    """
    d = X.shape[1]
    n_blocks = len(bounds) - 1
    taylor = _taylor(kernel, d)
    plan = _fft_plan(axes, kernel, h)
    sizes, lengths = _fft_shape(axes, plan)
    origins = [axis[0] - L * fine for axis, (_, L, fine) in zip(axes, plan)]
    spectra, bound_spectrum = _fft_kernels(kernel, h, plan, lengths)
    fft_axes = tuple(range(-d, 0))
    picks = tuple(slice(L, L + (len(a) - 1) * k + 1, k) for a, (k, L, _) in zip(axes, plan))
    out = np.empty((n_blocks, *(len(a) for a in axes)))
    moments = TAYLOR_ORDER + 1 if taylor else 1
    # blocks in batches, binned and convolved in turn: memory is bounded by the batch
    step = max(1, MAX_FFT_ELEMENTS // 8 // (int(np.prod(lengths)) * moments))
    heaviest = np.zeros(sizes) if taylor else None
    occupied = np.zeros((n_blocks, *sizes), dtype=bool) if taylor else None
    left_out = np.empty(n_blocks, dtype=np.int64)  # per block: points beyond the grid
    for lo in range(0, n_blocks, step):
        hi = min(n_blocks, lo + step)
        # binned straight into arrays of the FFT lengths (zeros beyond the grid): the
        # transform then pads nothing (a copy of every batch otherwise)
        binned = bin_blocks(
            X[bounds[lo] : bounds[hi]],
            bounds[lo : hi + 1] - bounds[lo],
            w[bounds[lo] : bounds[hi]],
            [fine for _, _, fine in plan],
            origins,
            sizes,
            TAYLOR_ORDER if taylor else None,
            left_out[lo:hi],
            lengths,
        )
        if taylor:
            grid = (slice(None), 0, *(slice(0, z) for z in sizes))
            np.maximum(heaviest, binned[grid].max(axis=0), out=heaviest)
            occupied[lo:hi] = binned[grid] != 0
        workers = n_threads() if binned.size >= FFT_THREADED_ELEMENTS else 1
        spec = sp_fft.rfftn(binned, axes=fft_axes, workers=workers)
        del binned
        spec *= spectra
        conv = sp_fft.irfftn(spec.sum(axis=1), s=lengths, axes=fft_axes, workers=workers)
        out[lo:hi] = conv[(slice(None), *picks)]
    if not exact:
        return np.maximum(out, 0.0)
    trust = _lower_median(out)
    slack = _round_off(w, bounds, kernel, h, d)
    if bound_spectrum is not None:
        remainder = sp_fft.irfftn(sp_fft.rfftn(heaviest, s=lengths) * bound_spectrum, s=lengths)[
            picks
        ]
        slack = slack + np.abs(remainder)
    cells = None
    if taylor and occupied.size <= MAX_CELL_TABLE and not left_out.any():
        cells = (origins[0], plan[0][2], occupied)  # every point was binned: its cells
    _redo_faint(out, X, bounds, w, axes, kernel, h, slack, cells, trust, box)
    return np.maximum(out, 0.0)


def _redo_faint(
    sums, X, bounds, w, axes, kernel, h, slack, cells=None, trust=None, box=None, tables=None
) -> None:
    """Recompute exactly, in place, every node of ``sums`` (S, *mesh) whose lower median
    over the blocks (``trust``, computed if None) times GRID_RTOL is at most ``slack`` (a
    scalar or one per node): where the backend's error could exceed GRID_RTOL of the value.
    ``cells``, ``box``, ``tables``: see :func:`exact_at_nodes`."""
    if trust is None:
        trust = _lower_median(sums)
    redo = trust * GRID_RTOL <= slack
    if redo.any():
        mesh = np.meshgrid(*axes, indexing="ij")
        sums[:, redo] = exact_at_nodes(
            X,
            bounds,
            w,
            np.stack([m[redo] for m in mesh], axis=1),
            kernel,
            h,
            cells,
            (axes, redo),
            box,
            tables,
        )


def _lower_median(sums: np.ndarray) -> np.ndarray:
    """The lower median over the blocks (axis 0): the yardstick of a node's errors. Each
    block sum within GRID_RTOL of it keeps the median (MoM-KDE's value; with one block, the
    sum itself) within GRID_RTOL relative, as the median moves no more than its inputs."""
    s = sums.shape[0]
    return sums[0] if s == 1 else np.partition(sums, (s - 1) // 2, axis=0)[(s - 1) // 2]


def _round_off(w, bounds, kernel, h, d) -> float:
    """FFT_ROUNDOFF x K_h(0) x the heaviest block's weight: what an FFT convolution's
    round-off (or the band's cut) may add to or take from any node's block sum."""
    sizes = np.diff(bounds)
    weight = np.add.reduceat(w, bounds[:-1][sizes > 0]).max(initial=0.0) if len(w) else 0.0
    return FFT_ROUNDOFF * float(np.exp(kernel.log_kernel_sq(np.zeros(1), h, d))[0]) * weight


def _window_budget(ws: np.ndarray) -> float:
    """WINDOW_BUDGET + log(W / smallest positive weight) for a block's weights ``ws`` (at
    least one positive): how far below its nearest point's term a term may be dropped."""
    if ws.strides[0] == 0:  # one value broadcast (a KDE without weights): O(1)
        total, smallest = len(ws) * float(ws[0]), float(ws[0])
    else:
        total, smallest = ws.sum(), ws.min()  # (one pass each unless some are 0)
        if smallest <= 0:
            smallest = ws[ws > 0].min()
    return WINDOW_BUDGET + float(np.log(total / smallest))


def _reach(kernel: Kernel, h: float, near: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """The distance r from a node beyond which every point's term is below e^-budget of the
    nearest point's (``near``: an upper bound of the distance to the nearest point)."""
    if kernel.decay_power == 2:  # (r^2 - D^2) / 2h^2 = budget
        return np.sqrt(near * near + 2.0 * h * h * budget)
    if kernel.decay_power == 1:  # (r - D) / h = budget
        return near + h * budget
    return np.full(np.shape(near), kernel.radius * h)


def _exact_at_nodes_1d(x, bounds, w, nodes, kernel, h, cells=None) -> np.ndarray:
    """:func:`exact_at_nodes` on a line. Cells: ``cells`` = (centre of cell 0, side,
    occupancy of shape (S, cells)) when the caller has them (the FFT's binning, which saw
    every point), else coarse cells of side >= h / 2 from one pass. Each block's nearest
    occupied cell on both sides of each node (running maxima) bounds the distance to its
    nearest point, hence the node's window; the sums over the windows are
    :func:`momkde_core._engine._tail_windows.window_sums` (the points in the union of a block's
    windows, few, in the tails, sorted: each window is a run of them)."""
    n_blocks = len(bounds) - 1
    if cells is None:
        live = w > 0
        lo = x.min()
        span = x.max() - lo
        side = max(h / 2, span * n_blocks / MAX_CELL_TABLE)
        n_cells = int(span / side) + 1
        cell = np.minimum(((x - lo) * (1.0 / side)).astype(np.intp), n_cells - 1)
        occupied = np.zeros((n_blocks, n_cells), dtype=bool)
        for s in range(n_blocks):
            a, b = bounds[s], bounds[s + 1]
            occupied[s, cell[a:b][live[a:b]]] = True
        centre0 = lo + side / 2
    else:
        centre0, side, occupied = cells
        n_cells = occupied.shape[1]
    budget = np.array(
        [
            _window_budget(w[bounds[s] : bounds[s + 1]]) if occupied[s].any() else 0.0
            for s in range(n_blocks)
        ]
    )
    index = np.arange(n_cells)
    before = np.maximum.accumulate(np.where(occupied, index, -1), axis=1)
    after = np.minimum.accumulate(np.where(occupied, index, n_cells)[:, ::-1], axis=1)[:, ::-1]
    at = np.clip(np.rint((nodes - centre0) / side), 0, n_cells - 1).astype(np.intp)
    left, right = before[:, at], after[:, at]  # (S, m) nearest occupied cells
    gap_left = np.where(left >= 0, np.abs(nodes - (centre0 + left * side)), np.inf)
    gap_right = np.where(right < n_cells, np.abs(centre0 + right * side - nodes), np.inf)
    near = np.minimum(gap_left, gap_right) + side  # >= the distance to the nearest point
    reach = _reach(kernel, h, near, budget[:, None])
    lows, highs = nodes - reach, nodes + reach
    empty = ~occupied.any(axis=1)  # a block of no point of positive weight: no window
    lows[empty], highs[empty] = np.inf, -np.inf
    return window_sums(x, w, bounds, nodes, lows, highs, kernel, h, chunk_elements())


def exact_at_nodes(
    X: np.ndarray,
    bounds: np.ndarray,
    w: np.ndarray,
    nodes: np.ndarray,
    kernel: Kernel,
    h: float,
    cells: tuple | None = None,
    mesh: tuple | None = None,
    box=None,
    tables: list | None = None,
) -> np.ndarray:
    """Exact block sums at a few nodes (shape (S, m)) from the points that matter at each.

    Points are grouped in coarse cells (side >= h / 2). For block s and node g, with D an
    upper bound of the distance from g to the block's nearest point, every term of a point
    farther than r from g is below e^-23 (1e-10) times the nearest point's term divided by
    the block's weight ratio (Gaussian: r^2 = D^2 + 2 h^2 (23 + log(W_s / min w));
    exponential: r = D + h (23 + ...); compact kernels: r = their support), so the points
    of the cells within r give the sum to 1e-10 relative: in the far tails a few points next to the
    data's edge, not all n. Sums below 1e-290 (terms there may have been flushed) are redone
    in log space: over the block's points on a line, from the same pairs in the plane. ``cells`` (1-D): the occupancy of cells the caller
    has already computed, see :func:`_exact_at_nodes_1d`. ``mesh`` (2-D): (axes, mask)
    when ``nodes`` are the nodes of the mesh of ``axes`` where ``mask`` is True, in C order,
    for the plane's tiled Gaussian sums (:func:`_exact_at_nodes_plane`). ``box`` (2-D):
    the data's ``columns.bounding_box(X, skip_nan=True)`` when the caller has it.
    ``tables`` (2-D): the blocks' cell tables and distance maps when the caller has built
    them (:func:`_plane_tables`, over a box holding the nodes).
    """
    X, nodes = _as_2d(X), _as_2d(nodes)
    n, d = X.shape
    n_blocks = len(bounds) - 1
    if not len(nodes) or not n:
        return np.zeros((n_blocks, len(nodes)))
    if d == 2:  # (its sums below 1e-290 are redone from the same pairs, in log space)
        return _exact_at_nodes_plane(X, bounds, w, nodes, kernel, h, mesh, box, tables)
    if d != 1:
        raise ValueError(f"exact_at_nodes works on a line or in the plane, not in d = {d}")
    out = _exact_at_nodes_1d(X[:, 0], bounds, w, nodes[:, 0], kernel, h, cells)
    for s in range(n_blocks):
        a, b = bounds[s], bounds[s + 1]
        low = np.flatnonzero(out[s] < 1e-290)
        if low.size and (w[a:b] > 0).any():
            with np.errstate(divide="ignore"):
                log_w = np.log(w[a:b])
            out[s, low] = np.exp(
                block_log_sums(X[a:b], np.array([0, b - a]), nodes[low], kernel, h, log_w)[0]
            )
    return out


def _plane_side(h: float, box) -> float:
    """The cells' side of the plane's exact tails: h / 2, or coarser for data spread over
    more than 2^10 such cells."""
    lows, highs = box
    return max(h / 2, float(np.max(highs - lows)) / 2**10)


def _plane_table(X, a: int, b: int, w, side: float) -> tuple | None:
    """(rows a..b of positive weight, their cell table), or None when there is none."""
    live = np.flatnonzero(w[a:b] > 0) + a
    if not len(live):
        return None
    return live, DiscPairs(X[a:b] if len(live) == b - a else X[live], side)


def _plane_tables(X, bounds, w, axes, h, box) -> list:
    """Per block: None (no point of positive weight) or (its rows of positive weight, its
    cell table, its distance map over the mesh of ``axes``): what the plane's exact tails
    build per block before they sum, whichever nodes they are asked for."""
    side = _plane_side(h, box)
    corners = np.array(
        [
            [float(np.min(axes[0])), float(np.min(axes[1]))],
            [float(np.max(axes[0])), float(np.max(axes[1]))],
        ]
    )
    tables = []
    for s in range(len(bounds) - 1):
        table = _plane_table(X, bounds[s], bounds[s + 1], w, side)
        tables.append(None if table is None else (*table, table[1].distance_map(corners)))
    return tables


def _plane_tables_bytes(n: int, n_blocks: int, axes, h: float, box) -> float:
    """What :func:`_plane_tables` holds at most: per point its coordinates, table order and
    row (32 bytes); per block its cell starts (8 bytes a cell over the data's box) and its
    distance map (8 bytes a cell over the data's and the mesh's box, merged beyond
    MAX_DISTANCE_CELLS)."""
    side = _plane_side(h, box)
    lows, highs = (np.asarray(v, dtype=float) for v in box)
    cells = float(np.prod(np.floor((highs - lows) / side) + 1.0))
    reach = [
        max(hi, float(np.max(a))) - min(lo, float(np.min(a)))
        for a, lo, hi in zip(axes, lows, highs)
    ]
    distance_cells = min(float(np.prod([r / side + 3.0 for r in reach])), MAX_DISTANCE_CELLS)
    return 32.0 * n + n_blocks * 8.0 * (cells + 1.0 + distance_cells)


def _exact_at_nodes_plane(
    X, bounds, w, nodes, kernel, h, mesh=None, box=None, tables=None
) -> np.ndarray:
    """:func:`exact_at_nodes` in the plane: per block, a table of cells of side >= h / 2
    (:class:`momkde_core._engine._disc_pairs.DiscPairs`); the distance transform of its occupied
    cells bounds each node's distance to the block's nearest point, hence its reach. For
    the Gaussian on a ``mesh`` the points are then found once per tile of 4 x 4 nodes and
    summed as products of per-axis factors (``DiscPairs.mesh_gaussian_sums``); otherwise
    the compiled enumeration lists each node's pairs for the kernel in numpy. Sums below
    1e-290 (terms may have been flushed) are redone in log space over the same pairs
    (:func:`_log_sums_within`), not over the whole block. Tiled, from PLANE_THREADED_NODES
    nodes, the blocks (one block: its tiles' columns) are shared by the kept pool's threads;
    each sum is the one a single thread would give, to the bit."""
    n_blocks = len(bounds) - 1
    out = np.zeros((n_blocks, len(nodes)))
    side = _plane_side(h, bounding_box(X, skip_nan=True) if box is None else box)
    log_peak = float(kernel.log_kernel_sq(np.zeros(1), h, 2)[0])
    tiled = kernel.separable and mesh is not None and abs(log_peak) <= 50.0
    if tiled:
        axes, mask = mesh
        # (tiles of 4 x 4 nodes pay off on grids finer than h; on coarser ones a tile's
        # disc takes in far more points than its nodes need: one node per tile)
        tile = (
            MESH_TILE if all(len(g) < 2 or (g[-1] - g[0]) / (len(g) - 1) <= h for g in axes) else 1
        )
    # (threads pay off for the compiled, GIL-free tiles; the pairs' numpy path mostly holds
    # the GIL, and measured 7 % slower on two threads)
    threaded = tiled and len(nodes) >= PLANE_THREADED_NODES
    tile_workers = n_threads() if threaded and n_blocks == 1 else 1

    def block(s: int) -> None:
        a, b = bounds[s], bounds[s + 1]
        if tables is not None:
            if tables[s] is None:
                return
            live, table, distances = tables[s]
            near = distances(nodes)
        else:
            built = _plane_table(X, a, b, w, side)
            if built is None:
                return
            live, table = built
            near = table.nearest_bounds(nodes)
        reach = _reach(kernel, h, near, _window_budget(w[a:b]))
        if tiled:
            full = np.full(mask.shape, -1.0)
            full[mask] = reach
            out[s] = table.mesh_gaussian_sums(axes, full, w[live], h, log_peak, tile, tile_workers)[
                mask
            ]
        else:
            counts = table.counts(nodes, reach)
            offsets = np.r_[0, np.cumsum(counts)]
            for j0, j1 in pair_chunks(counts, chunk_elements()):
                node, point, sq = table.pairs(nodes, reach, offsets, j0, j1)
                out[s, j0:j1] = np.bincount(
                    node - j0, kernel.kernel_sq(sq, h, 2) * w[live[point]], minlength=j1 - j0
                )
        low = np.flatnonzero(out[s] < 1e-290)
        if low.size:
            out[s, low] = np.exp(
                _log_sums_within(table, nodes[low], reach[low], np.log(w[live]), kernel, h)
            )

    if threaded and n_blocks > 1:  # (each block writes its own row of out)
        map_on_pool(block, range(n_blocks))
    else:
        for s in range(n_blocks):
            block(s)
    return out


def _log_sums_within(
    table: DiscPairs,
    nodes: np.ndarray,
    reach: np.ndarray,
    log_w: np.ndarray,
    kernel: Kernel,
    h: float,
) -> np.ndarray:
    """Per node, log of sum w_i K_h(node - p_i) over the table's points within its
    ``reach`` (``log_w``: the points' log weights in the table's caller's order), in log
    space: the exact sum where every term underflows, to the reach's 1e-10."""
    counts = table.counts(nodes, reach)
    offsets = np.r_[0, np.cumsum(counts)]
    out = np.full(len(nodes), -np.inf)
    for j0, j1 in pair_chunks(counts, chunk_elements()):
        _, point, sq = table.pairs(nodes, reach, offsets, j0, j1)
        logs = kernel.log_kernel_sq(sq, h, 2) + log_w[point]
        filled = np.flatnonzero(counts[j0:j1]) + j0  # (pairs come node by node)
        out[filled] = _reduceat_log_sums(logs, offsets[filled] - offsets[j0], counts[filled])
    return out


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


def band_pays_off(X: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float) -> bool:
    """Whether :func:`band_block_sums` beats :func:`exact_block_sums` at 1-D points Y: a band
    pair costs ~5x a dense one, so the band wins when under 1/6 of all pairs are in reach."""
    pairs = _band_ranges(_as_2d(X), [np.sort(_as_2d(Y)[:, 0])], kernel.radius * h)[2].sum()
    return bool(6 * pairs < len(X) * len(Y))


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


def _batch_width(bounds: np.ndarray) -> int:
    """The padded block size of :func:`_separable_sums`' batched product, or 0 when the
    blocks take one product each (one block, or a block over ``SEPARABLE_BATCH_POINTS``, or
    no points at all). :func:`choose_backend` prices the path this says will run."""
    widest = int(np.diff(bounds).max(initial=0))
    return widest if len(bounds) > 2 and 0 < widest <= SEPARABLE_BATCH_POINTS else 0


def _separable_sums(
    X, bounds, axes, kernel, h, w, max_elements: int | None = None, floor: float = EXP_FLOOR
):
    """Exact Gaussian sums on a 2-D mesh: per block, A_x^T diag(w) A_y (BLAS products), in
    chunks of points so that the factors never exceed ``max_elements`` entries each.
    Factors below e^``floor`` are 0: with the binned product's BAND_FLOOR (e^-40, when no
    exact tails are asked for) a node beyond ~9 h of a block's points gets an exact 0 from
    it, which the median's skipping of mostly-zero nodes relies on.

    Many small blocks (at most ``SEPARABLE_BATCH_POINTS`` points each, as MoM-KDE's
    2 ceil(eps n) + 1 blocks are) go through one batched product per group of blocks, each
    block's factors padded with zero rows to the largest block's size: a Python-level
    product per block would cost more than its arithmetic (~0.2 ms each for 500 blocks)."""
    log_norm = kernel.log_norm(2) + 2 * np.log(h)
    n_blocks = len(bounds) - 1
    sizes = np.diff(bounds)
    out = np.zeros((n_blocks, len(axes[0]), len(axes[1])))
    max_elements = max_elements or chunk_elements()

    def factors(lo, hi):
        ax, ay = (gaussian_factors(X[lo:hi, k], axes[k], h, floor) for k in range(2))
        ay *= w[lo:hi, None]
        return ax, ay

    widest = _batch_width(bounds)
    if widest:
        slot = np.arange(bounds[-1]) - np.repeat(bounds[:-1], sizes)  # rank in its block
        block_of = np.repeat(np.arange(n_blocks), sizes)
        per = max(1, max_elements // (widest * max(len(axes[0]), len(axes[1]))))
        for s0 in range(0, n_blocks, per):
            s1 = min(n_blocks, s0 + per)
            lo, hi = bounds[s0], bounds[s1]
            where = (block_of[lo:hi] - s0, slot[lo:hi])
            pad_x = np.zeros((s1 - s0, widest, len(axes[0])))
            pad_y = np.zeros((s1 - s0, widest, len(axes[1])))
            pad_x[where], pad_y[where] = factors(lo, hi)
            np.matmul(pad_x.transpose(0, 2, 1), pad_y, out=out[s0:s1])
        out *= np.exp(-log_norm)  # (in place: a second S x grid array costs page faults)
        return out
    step = max(1, max_elements // max(len(axes[0]), len(axes[1])))
    for s in range(n_blocks):
        for lo in range(bounds[s], bounds[s + 1], step):
            hi = min(bounds[s + 1], lo + step)
            ax, ay = factors(lo, hi)
            out[s] += ax.T @ ay
    out *= np.exp(-log_norm)
    return out


GRAM_GRID_ORDER = 10  # points per axis of the Lagrange interpolation of the grid Gram path
GRAM_GRID_RTOL = {"float64": 1e-10, "float32": 1e-8}  # its error bound / (K_h(0) ||v||_1)
GRAM_GRID_MIN_PAIRS = 6 * 10**7  # "auto" takes the grid path once n^2 exceeds this
GRAM_GRID_MAX_NODES = 2**22  # ... and while its FFT grid has at most this many nodes


@cache
def _lagrange_constants(order: int) -> tuple[float, float]:
    """(P, Lambda) of ``order``-point Lagrange interpolation on nodes 0 .. order-1 used on
    its central cell [order/2 - 1, order/2]: P = max |prod_m (t - m)| (the remainder's
    node polynomial) and Lambda = max sum_k |L_k(t)| (the Lebesgue constant), by sampling
    the cell at 20001 points (both are smooth inside it; P's maximum is at the midpoint, a
    sample, by symmetry)."""
    t = np.linspace(order / 2 - 1, order / 2, 20001)
    node_poly = np.max(np.abs(np.prod(t[:, None] - np.arange(order), axis=1)))
    lebesgue = np.max(np.abs(_lagrange_weights(t, order)).sum(axis=1))
    return float(node_poly), float(lebesgue)


def _lagrange_weights(t: np.ndarray, order: int) -> np.ndarray:
    """L_k(t) for nodes 0 .. order-1, shape (len(t), order)."""
    out = np.ones((len(t), order))
    for k in range(order):
        for m in range(order):
            if m != k:
                out[:, k] *= (t - m) / (k - m)
    return out


def gram_grid_spacing(h: float, d: int, rtol: float, order: int = GRAM_GRID_ORDER) -> float:
    """The largest grid spacing for which :class:`GramOperator`'s grid path is within
    ``rtol`` K_h(0) ||v||_1 of G v.

    The path replaces exp(-|x - y|^2 / 2h^2) by its interpolant in the 2d coordinates of x
    and y, each by ``order``-point Lagrange interpolation on the grid. One such
    interpolation of the 1-D Gaussian g(u) = exp(-u^2 / 2h^2) errs by at most
    max|g^(p)| / p! * P delta^p (p = order, P from :func:`_lagrange_constants`), and
    |g^(p)(u)| = h^-p |He_p(u/h)| e^{-u^2/2h^2} <= 1.0865 sqrt(p!) h^-p (Cramer's bound on
    Hermite functions). Interpolating the 2d coordinates one after the other multiplies the
    earlier errors by at most the Lebesgue constant Lambda each time: the kernel (peak 1 in
    these units) is off by at most E (1 + Lambda + ... + Lambda^(2d-1)), E the 1-D bound.
    """
    node_poly, lebesgue = _lagrange_constants(order)
    amplification = sum(lebesgue**k for k in range(2 * d))
    one_axis = 1.0865 * node_poly / np.sqrt(special.factorial(order))
    return h * float((rtol / (one_axis * amplification)) ** (1.0 / order))


class _GridGram:
    """G v ~ W' (K * (W v)): the v-weighted points spread onto an evenly spaced grid by
    Lagrange interpolation weights W (``order`` nodes per axis, ``order``^d per point, a
    sparse matrix), convolved with the kernel sampled at the grid's offsets (one FFT
    product; the kernel's transform is kept), and read back at the points with the same
    weights. Within ``rtol`` K_h(0) ||v||_1 of the exact product (:func:`gram_grid_spacing`;
    the FFT adds ~1e-15 of that). Build with :meth:`plan`, which returns None when the grid
    would exceed ``max_nodes``."""

    def __init__(self, weights: sparse.csr_matrix, kernel_hat: np.ndarray, sizes, lengths):
        self.weights = weights  # W' v below reads it column-wise: no transposed copy
        self.kernel_hat, self.sizes, self.lengths = kernel_hat, sizes, lengths

    @classmethod
    def plan(
        cls,
        X: np.ndarray,
        kernel: Kernel,
        h: float,
        rtol: float,
        max_nodes: int = GRAM_GRID_MAX_NODES,
        order: int = GRAM_GRID_ORDER,
    ):
        n, d = X.shape
        step = gram_grid_spacing(h, d, rtol, order)
        lo, hi = bounding_box(X)
        # the grid runs from order/2 - 1 cells below the lowest point to order/2 above the
        # highest, so that each point's interpolation nodes are on it
        sizes = [int(np.floor((hi[k] - lo[k]) / step)) + order for k in range(d)]
        reach = [min(s - 1, int(np.ceil(kernel.radius * h / step))) for s in sizes]
        lengths = [sp_fft.next_fast_len(s + r, real=True) for s, r in zip(sizes, reach)]
        if np.prod(np.array(lengths, dtype=float)) > max_nodes:
            return None
        origin = lo - (order // 2 - 1) * step
        rows = np.repeat(np.arange(n), order**d)
        flat = np.zeros((n, 1), dtype=np.int64)
        values = np.ones((n, 1))
        for k in range(d):
            t = (X[:, k] - origin[k]) / step
            first = np.clip(np.floor(t).astype(np.int64) - (order // 2 - 1), 0, sizes[k] - order)
            axis_weights = _lagrange_weights(t - first, order)
            nodes = first[:, None] + np.arange(order)
            flat = (flat[:, :, None] * sizes[k] + nodes[:, None, :]).reshape(n, -1)
            values = (values[:, :, None] * axis_weights[:, None, :]).reshape(n, -1)
        weights = sparse.csr_matrix(
            (values.ravel(), (rows, flat.ravel())), shape=(n, int(np.prod(sizes)))
        )
        # the kernel at every grid offset within the reach, wrapped for a circular convolution
        # of the FFT lengths (>= size + reach on each axis: no wrap-around reaches the grid)
        sq = 0.0
        for k in range(d):
            offsets = np.arange(lengths[k])
            offsets = np.where(offsets <= lengths[k] // 2, offsets, offsets - lengths[k])
            offsets = np.where(np.abs(offsets) <= reach[k], offsets, lengths[k])  # beyond: 0
            shape = [1] * d
            shape[k] = lengths[k]
            sq = sq + np.square(offsets * step).reshape(shape)
        kern = kernel.kernel_sq(np.broadcast_to(sq, lengths).copy(), h, d)
        return cls(weights, sp_fft.rfftn(kern), sizes, lengths)

    def matvec(self, v: np.ndarray) -> np.ndarray:
        spread = (self.weights.T @ v).reshape(self.sizes)
        conv = sp_fft.irfftn(sp_fft.rfftn(spread, self.lengths) * self.kernel_hat, self.lengths)
        return self.weights @ conv[tuple(slice(0, s) for s in self.sizes)].ravel()


class GramOperator:
    """The products v -> G v with G_ij = K_h(X_i - X_j), for RKDE and SPKDE.

    Dense and exact while n is small: the n x n matrix is built once and kept when it holds
    at most ``max_cached`` entries (n up to 7745; 5000 points take 200 MB in float64).
    Above that, for the Gaussian in d <= 2 (``method="auto"``), the grid path
    (:class:`_GridGram`: interpolation onto a grid and one FFT convolution, a few ms at
    n = 20 000 where a dense product takes seconds) within ``GRAM_GRID_RTOL`` (1e-10 in
    float64, 1e-8 for float32) of K_h(0) ||v||_1; otherwise (or if its grid would be too
    large, e.g. for far outliers) each product recomputes the matrix in row chunks, so memory
    stays at the ``working_memory`` knob whatever n is. ``method="grid"`` or ``"dense"`` forces a
    path (the grid one when its grid fits). ``self.method`` says which path is used.
    ``dtype=np.float32`` halves the memory and the time of each dense product (7e-8
    relative error per entry): for SPKDE's QP, not for RKDE, whose residuals
    k(0) - 2 (G w)_i + w'G w cancel.
    """

    def __init__(
        self,
        X: np.ndarray,
        kernel: Kernel,
        h: float,
        max_cached: int = 6 * 10**7,
        dtype=np.float64,
        method: str = "auto",
    ):
        if method not in ("auto", "dense", "grid"):
            raise ValueError(f"unknown method {method!r}; allowed: 'auto', 'dense', 'grid'")
        self.X = _as_2d(X)
        self.kernel, self.h = kernel, float(h)
        n, d = self.X.shape
        self.diagonal = float(np.exp(kernel.log_kernel_sq(np.zeros(1), h, d))[0])
        self._matrix = self._grid = None
        self.method = "dense"
        grid_fits = kernel.hermite_derivatives and d <= 2
        if grid_fits and (method == "grid" or (method == "auto" and n * n > GRAM_GRID_MIN_PAIRS)):
            self._grid = _GridGram.plan(
                self.X, kernel, self.h, GRAM_GRID_RTOL[np.dtype(dtype).name]
            )
            if self._grid is not None:
                self.method = "grid"
                return
        self._Xc = self.X - self.X.mean(axis=0)
        self._sq = np.einsum("ij,ij->i", self._Xc, self._Xc)
        if n * n <= min(max_cached, _limits()[0]):  # replayed for a refit (same X, h)
            key = ("gram", self.X, kernel, h, np.dtype(dtype).name)
            (self._matrix,) = _replay(key, lambda: iter([self._full_matrix(dtype)]), n * n)
        elif n * n <= max_cached:
            self._matrix = self._full_matrix(dtype)

    def _full_matrix(self, dtype) -> np.ndarray:
        """The whole matrix, filled in cache-sized row chunks, read-only (it may be replayed
        to another fit on the same data and h). Entries below the dtype's smallest normal
        number are 0: subnormal entries (float32 below 1.2e-38, which the cast of e^-88 and
        below gives) slow every product down several-fold (measured 5x at n = 1250) for
        a change below 1e-37 of the kernel's peak."""
        n = len(self.X)
        matrix = np.empty((n, n), dtype=dtype)
        tiny = np.finfo(dtype).tiny
        for lo, hi in self._row_chunks(CACHE_CHUNK_ELEMENTS):
            rows = self._rows(lo, hi)
            rows[rows < tiny] = 0.0
            matrix[lo:hi] = rows
        matrix.flags.writeable = False
        return matrix

    def _row_chunks(self, max_elements: int | None = None):
        n = len(self.X)
        step = max(1, (max_elements or chunk_elements()) // n)
        return [(lo, min(n, lo + step)) for lo in range(0, n, step)]

    def _rows(self, lo: int, hi: int) -> np.ndarray:
        sq = _sq_dists(self._Xc[lo:hi], self._Xc, self._sq[lo:hi], self._sq)
        return self.kernel.kernel_sq(sq, self.h, self.X.shape[1])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G @ v."""
        if self._grid is not None:
            return self._grid.matvec(np.asarray(v, dtype=np.float64))
        if self._matrix is not None:
            return np.asarray(
                self._matrix @ v.astype(self._matrix.dtype, copy=False), dtype=np.float64
            )
        return np.concatenate([self._rows(lo, hi) @ v for lo, hi in self._row_chunks()])
