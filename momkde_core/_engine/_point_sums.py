"""Exact weighted kernel sums per block at arbitrary points, in any dimension.

All four estimators are (medians of) weighted kernel sums
``F_s(y) = sum_{i in block s} w_i K_h(y - X_i)``; data are passed sorted by block, so that
block ``s`` is ``X[bounds[s]:bounds[s + 1]]``. This module computes them exactly at query
points, three ways:

* :func:`block_log_sums`: log F_s, in log space throughout, so that d = 64 never
  underflows. Work is chunked so that memory stays bounded (an ``n x m`` matrix is never
  allocated for large ``n``); squared distances come from BLAS through the expansion
  ||x||^2 + ||y||^2 - 2 x.y of both sets centred on the data's mean (which keeps it from
  cancelling); each block's terms are summed by a max-shifted log-sum-exp (Blanchard,
  Higham and Higham 2021), per segment, by slot for many blocks of similar sizes
  (:func:`slot_layout`) or by ``reduceat`` for blocks of unlike sizes. For a separable
  kernel (the Gaussian) at many pairs, the log terms are one augmented matrix product per
  tile, summed in linear space on the kept pool's threads; only the queries whose sums
  underflow are redone in log space.
* :func:`exact_block_sums`: F_s in linear space, the kernel matrix of each cache-sized
  chunk multiplied by the sparse matrix of block memberships times weights (one C-level
  pass whatever S is). Terms below e^-700 are flushed to 0
  (:func:`momkde_core.kernels.flushed_exp`), so sums below ~1e-290
  (:data:`momkde_core.kernels.SAFE_LINEAR`) are not exact there.
* :func:`block_shifted_sums`: F_s scaled by each query's largest term, in linear space,
  for statistics over the blocks that scale with each query's sums (a median, a mixture).

Kernel values of an evaluation are kept for replay (:mod:`momkde_core._engine._memo`).

References
----------
Blanchard, P., Higham, D. J. and Higham, N. J. (2021). Accurately computing the
log-sum-exp and softmax functions. *IMA Journal of Numerical Analysis* 41(4), 2311-2330.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .._config import chunk_elements, n_threads
from ..kernels import SAFE_LINEAR, Kernel, exp_in_place, flushed_exp
from ._memo import _replay
from ._threads import map_on_pool, one_blas_thread

CACHE_CHUNK_ELEMENTS = 2**16  # 0.5 MiB: fits in a core's L2 cache
LOG_SAFE_LINEAR = np.log(SAFE_LINEAR)  # linear sums above this lost nothing to flushed terms
LOG_SAFE_FAST = np.log(1e-280)  # the same for the BLAS path (n e^-708 is below 1e-17 of it)
FAST_GAUSSIAN_PAIRS = 2**22  # block_log_sums takes the BLAS linear path from this many pairs


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
    (:func:`exact_block_sums`: no log-sum-exp per block) and redoes in log space only the
    queries where
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
    sparse product, where :func:`block_log_sums` takes a log-sum-exp per block.
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
    left, right = augmented_rows(X, Y, kernel, h, log_weights)
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


def augmented_rows(
    X: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float, log_weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(left, right): rows whose dot products are the Gaussian's log terms.

    log(w_i K_h(y_j - x_i)) = a_i + b_j + x_i.y_j / h^2 with a_i = log w_i - |x_i|^2 / 2h^2 -
    log of the constant and b_j = -|y_j|^2 / 2h^2, both sets centred on the data's mean
    (which keeps the expansion from cancelling): left[i] = [x_i / h^2, a_i, 1], shape
    (n, d + 2), and right[j] = [y_j, 1, b_j], shape (m, d + 2).
    """
    n, d = X.shape
    center = X.mean(axis=0)
    Xc, Yc = X - center, Y - center
    inv = 1.0 / (h * h)
    left = np.empty((n, d + 2))
    np.multiply(Xc, inv, out=left[:, :d])
    left[:, d] = -0.5 * inv * np.einsum("ij,ij->i", Xc, Xc) - kernel.log_norm(d) - d * np.log(h)
    if log_weights is not None:
        left[:, d] += log_weights
    left[:, d + 1] = 1.0
    right = np.empty((len(Y), d + 2))
    right[:, :d] = Yc
    right[:, d] = 1.0
    right[:, d + 1] = -0.5 * inv * np.einsum("ij,ij->i", Yc, Yc)
    return left, right


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
    along the first axis over long contiguous rows, where numpy's ``reduceat`` along axis 0
    makes one short strided pass per segment (slow for hundreds of segments of a few rows)."""
    rows, padding = slot_layout(starts, lengths)
    laid = np.take(log_k, rows.ravel(), axis=0).reshape(*rows.shape, -1)
    laid[padding] = -np.inf
    peak = laid.max(axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    laid -= safe
    exp_in_place(laid)
    with np.errstate(divide="ignore"):
        return np.log(laid.sum(axis=0)) + safe


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
    :func:`block_log_sums` there. Chunks are cache-sized: these few element-wise passes
    then read and write a core's L2 cache, not main memory.
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
