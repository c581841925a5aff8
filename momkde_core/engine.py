"""The numeric heart shared by every estimator: per-block, optionally weighted kernel sums.

All four estimators are (medians of) weighted kernel sums
``F_s(y) = sum_{i in block s} w_i K_h(y - X_i)``. This module computes them two ways:

* :func:`block_log_sums`, exactly, at arbitrary points in any dimension. Work is chunked so
  memory stays bounded (an ``n x m`` matrix is never allocated for large ``n``), squared
  distances come from BLAS, and sums are taken in log space (log-sum-exp per block), so
  that d = 64 never underflows.
* :func:`block_grid_sums`, on an evenly spaced 1-D axis or 2-D mesh (the plots, integrals
  and metrics). It picks the cheapest of four backends: linear binning followed by one
  batched FFT convolution for all S blocks (refining the binning grid until its error is
  below ~1e-3 of the peak), an exact separable product for the Gaussian in 2-D
  (``A_x^T diag(w) A_y`` per block, a BLAS matrix product), the exact chunked sum, or the
  *band*: each point visits only the nodes within the kernel's radius (exact for compact
  kernels; for the Gaussian it drops terms below 1e-17 of the kernel's peak), which is the
  cheapest when h is small next to the grid's extent, whatever S is.

Data are passed sorted by block: block ``s`` is ``X[bounds[s]:bounds[s + 1]]``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from scipy import signal, sparse

from .kernels import Kernel, flushed_exp

MAX_CHUNK_ELEMENTS = 2**21  # ~16 MiB of float64 per working matrix
CACHE_CHUNK_ELEMENTS = 2**16  # 0.5 MiB: fits in a core's L2 cache
LOG_SAFE_LINEAR = np.log(1e-290)  # linear sums above this lost nothing to flushed terms
MAX_FFT_ELEMENTS = 2**24  # cap on S x (binning grid size) for the FFT backend
MAX_CACHED_PAIRS = 2**22  # kernel values of one evaluation are kept up to this many (n = 2048)
MEMO_MAX_BYTES = 2**27  # all kept evaluations together: 128 MiB (see _replay)
_MEMO: OrderedDict = OrderedDict()  # key -> (list of chunks, bytes), least recently used first
_MEMO_LOCK = threading.Lock()

# Binning cells per bandwidth needed for ~1e-3 (of the peak) accuracy. Linear binning
# perturbs a smooth kernel by (delta/h)^2 / 8 relative to its peak, hence 12 for the
# Gaussian; kernels with a kink (all the others) converge only as delta/h.
CELLS_PER_BANDWIDTH = {"gaussian": 12.0, "exponential": 256.0, "epanechnikov": 512.0,
                       "linear": 512.0, "cosine": 512.0}


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


def block_log_sums(X: np.ndarray, bounds: np.ndarray, Y: np.ndarray, kernel: Kernel,
                   h: float, log_weights: np.ndarray | None = None,
                   max_elements: int = MAX_CHUNK_ELEMENTS,
                   linear_first: bool = False) -> np.ndarray:
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
    if linear_first:
        w = np.ones(len(X)) if log_weights is None else np.exp(log_weights)
        with np.errstate(divide="ignore"):
            out = np.log(exact_block_sums(X, bounds, Y, kernel, h, w))
        redo = np.flatnonzero((out < LOG_SAFE_LINEAR).any(axis=0))
        if redo.size:
            out[:, redo] = block_log_sums(X, bounds, Y[redo], kernel, h, log_weights,
                                          max_elements)
        return out
    out = np.full((len(bounds) - 1, len(Y)), -np.inf)
    # replayed for the same points and h (MoM-KDE refitted for another S with the same seed:
    # the oracle's and the rule's candidates), hence copied before they are summed in place
    chunks = _replay(("log", X, Y, kernel, h, max_elements),
                     lambda: _log_kernel_chunks(X, Y, kernel, h, max_elements), len(X) * len(Y))
    for a, b, j0, j1, log_k in chunks:
        first = int(np.searchsorted(bounds, a, side="right") - 1)
        last = int(np.searchsorted(bounds, b - 1, side="right") - 1)
        segments = [(s, max(bounds[s], a) - a, min(bounds[s + 1], b) - a)
                    for s in range(first, last + 1) if bounds[s + 1] > bounds[s]]
        log_k = log_k.copy() if log_weights is None else log_k + log_weights[a:b, None]
        _accumulate_segments(out, log_k, segments, j0, j1)
    return out


def _log_kernel_chunks(X: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float,
                       max_elements: int):
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


def _accumulate_segments(out: np.ndarray, log_k: np.ndarray, segments: list, j0: int,
                         j1: int) -> None:
    """out[s, j0:j1] = logaddexp(out[s, j0:j1], logsumexp of log_k's rows of segment s).

    ``log_k`` has the points along axis 0. Up to 64 segments: one max-shifted reduction each.
    Many small ones (MoM-KDE with S near n): the same with ``reduceat`` over all segments
    at once, so no Python loop runs per block. ``log_k`` is overwritten.
    """
    if len(segments) <= 64:
        for s, lo, hi in segments:
            part = log_k[lo:hi]
            peak = part.max(axis=0)
            safe = np.where(np.isfinite(peak), peak, 0.0)
            part -= safe
            with np.errstate(divide="ignore"):
                val = np.log(np.exp(part, out=part).sum(axis=0)) + safe
            np.logaddexp(out[s, j0:j1], val, out=out[s, j0:j1])
        return
    ids = np.array([s for s, _, _ in segments])
    starts = np.array([lo for _, lo, _ in segments])
    lengths = np.array([hi - lo for _, lo, hi in segments])
    peak = np.maximum.reduceat(log_k, starts, axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    log_k -= np.repeat(safe, lengths, axis=0)
    np.exp(log_k, out=log_k)
    with np.errstate(divide="ignore"):
        val = np.log(np.add.reduceat(log_k, starts, axis=0)) + safe
    out[ids, j0:j1] = np.logaddexp(out[ids, j0:j1], val)


def is_evenly_spaced(axis: np.ndarray) -> bool:
    """True when ``axis`` is strictly increasing with constant spacing (to 1e-6)."""
    axis = np.asarray(axis, dtype=float)
    if axis.ndim != 1 or len(axis) < 2:
        return False
    steps = np.diff(axis)
    return bool(steps[0] > 0 and np.allclose(steps, steps[0], rtol=1e-6, atol=0.0))


def block_grid_sums(X: np.ndarray, bounds: np.ndarray, axes: list[np.ndarray],
                    kernel: Kernel, h: float, weights: np.ndarray | None = None,
                    backend: str = "auto") -> np.ndarray:
    """sum_{i in block s} w_i K_h(g - X_i) on the mesh of ``axes`` (1 or 2 evenly spaced axes).

    Returns shape (S, len(axes[0])) in 1-D and (S, len(axes[0]), len(axes[1])) in 2-D.
    ``backend`` is "auto" (the cheapest), "fft", "separable", "band" or "exact".
    """
    X = _as_2d(X)
    axes = [np.asarray(a, dtype=float) for a in axes]
    d = X.shape[1]
    if len(axes) != d or d not in (1, 2):
        raise ValueError(f"pdf_grid needs one axis per dimension (d = {d}, got {len(axes)} axes)"
                         "; grids exist for d = 1 and d = 2 only")
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=float)
    if backend == "auto":
        backend = choose_backend(X, bounds, axes, kernel, h)
    if backend == "fft":
        return _fft_sums(X, bounds, axes, kernel, h, w)
    if backend == "separable":
        return _separable_sums(X, bounds, axes, kernel, h, w)
    if backend == "band":
        return _band_sums(X, bounds, axes, kernel, h, w)
    if backend == "exact":
        mesh = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
        sums = exact_block_sums(X, bounds, mesh, kernel, h, w)
        return sums.reshape((len(bounds) - 1,) + tuple(len(a) for a in axes))
    raise ValueError(f"unknown grid backend {backend!r}; allowed: auto, fft, separable, band, "
                     "exact")


def exact_block_sums(X: np.ndarray, bounds: np.ndarray, Y: np.ndarray, kernel: Kernel,
                     h: float, w: np.ndarray, max_elements: int = CACHE_CHUNK_ELEMENTS
                     ) -> np.ndarray:
    """Exact block sums at points Y in linear space, shape (S, m): the grids' exact path.

    The kernel matrix of a chunk is multiplied by the sparse (S x n) matrix of block
    memberships times weights: one C-level pass whatever S is, where per-block reductions
    would loop over thousands of tiny blocks. Kernel values below e^-700 (~1e-304) are
    flushed to 0 (:func:`flushed_exp`), so sums below ~1e-290 are not exact: use
    :func:`block_log_sums` there. Chunks are cache-sized: these few element-wise passes run
    ~1.6x faster on 0.5 MiB than on 16 MiB temporaries.
    """
    n = len(X)
    n_blocks = len(bounds) - 1
    members = sparse.csr_matrix((w, (np.repeat(np.arange(n_blocks), np.diff(bounds)),
                                     np.arange(n))), shape=(n_blocks, n))
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


def _replay(key: tuple, make_chunks: Callable[[], Iterator[tuple]], size: int
            ) -> Iterator[tuple]:
    """The chunks of kernel values ``make_chunks()`` yields, replayed when a recent evaluation
    had the same key (one is kept when ``size`` <= MAX_CACHED_PAIRS; the least recently used
    ones are dropped beyond MEMO_MAX_BYTES in all; :func:`replay_limits` sets other limits).

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
    kept in all); the module's MAX_CACHED_PAIRS and MEMO_MAX_BYTES unless within
    :func:`replay_limits`."""
    return getattr(_LIMITS, "value", (MAX_CACHED_PAIRS, MEMO_MAX_BYTES))


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


def _fft_plan(axes: list[np.ndarray], kernel: Kernel, h: float) -> list[tuple[int, int, float]]:
    """Per axis: (refinement k, margin L in fine cells, fine spacing) for the FFT backend."""
    plan = []
    for axis in axes:
        step = (axis[-1] - axis[0]) / (len(axis) - 1)
        refine = max(1, int(np.ceil(step * CELLS_PER_BANDWIDTH[kernel.name] / h)))
        fine = step / refine
        plan.append((refine, int(np.ceil(kernel.radius * h / fine)) + 1, fine))
    return plan


def choose_backend(X, bounds, axes, kernel, h) -> str:
    """The cheapest exact-enough backend, from operation counts weighted by their measured
    cost (one unit is about 0.25 ns on a 2020s core; ``benchmarks/bench_core.py`` times them)."""
    n, d = X.shape
    n_blocks = len(bounds) - 1
    n_grid = int(np.prod([len(a) for a in axes]))
    costs = {"exact": 30.0 * n * n_grid}
    if all(is_evenly_spaced(a) for a in axes):
        # (a replayed band costs less, but the choice must not depend on what ran before:
        # the same call gives the same result whatever the history)
        pairs = _band_pair_estimate(n, axes, kernel.radius * h)
        costs["band"] = 100.0 * pairs + 12.0 * n_blocks * n_grid
    if kernel.name == "gaussian" and d == 2:
        costs["separable"] = (0.1 * n * n_grid + 30.0 * n * sum(len(a) for a in axes)
                              + 6e5 * n_blocks)
    if kernel.name in CELLS_PER_BANDWIDTH and all(is_evenly_spaced(a) for a in axes):
        cells = np.prod([(len(a) - 1) * k + 1 + 2 * L
                         for a, (k, L, _) in zip(axes, _fft_plan(axes, kernel, h))])
        if n_blocks * cells <= MAX_FFT_ELEMENTS:
            costs["fft"] = 20.0 * n * 2**d + 6.5 * n_blocks * cells * np.log2(cells + 2)
    return min(costs, key=costs.get)


def _fft_sums(X, bounds, axes, kernel, h, w):
    """Linear binning of each block on a fine grid, then one batched FFT convolution."""
    d = X.shape[1]
    n_blocks = len(bounds) - 1
    plan = _fft_plan(axes, kernel, h)
    sizes = [(len(axis) - 1) * refine + 1 + 2 * margin
             for axis, (refine, margin, _) in zip(axes, plan)]
    total = int(np.prod(sizes))
    positions = [(X[:, k] - (axis[0] - margin * fine)) / fine
                 for k, (axis, (_, margin, fine)) in enumerate(zip(axes, plan))]
    cells = [np.floor(pos) for pos in positions]
    keep = np.logical_and.reduce([(c >= 0) & (c <= size - 2) for c, size in zip(cells, sizes)])
    block_start = np.repeat(np.arange(n_blocks) * total, np.diff(bounds))
    if not keep.all():  # points beyond the kernel's reach of the grid do not contribute
        positions, cells = [p[keep] for p in positions], [c[keep] for c in cells]
        block_start, w = block_start[keep], w[keep]
    # each point splits its weight between the 2^d corners of its cell (linear binning);
    # corner indices are row-major within the block's slab of ``total`` cells
    index_parts, weight_parts = [0], [w]
    for pos, cell, size in zip(positions, cells, sizes):
        frac = pos - cell
        cell = cell.astype(np.intp)
        index_parts = [ip * size + cell + o for ip in index_parts for o in (0, 1)]
        weight_parts = [wp * f for wp in weight_parts for f in (1.0 - frac, frac)]
    binned = sum(np.bincount(block_start + ip, wp, minlength=n_blocks * total)
                 for ip, wp in zip(index_parts, weight_parts)).reshape((n_blocks, *sizes))
    offsets = [np.arange(-margin, margin + 1) * fine for (_, margin, fine) in plan]
    sq = sum(np.square(g) for g in np.meshgrid(*offsets, indexing="ij"))
    kern = kernel.kernel_sq(sq, h, d)
    conv = signal.fftconvolve(binned, kern[None], mode="valid", axes=tuple(range(1, d + 1)))
    picks = tuple(slice(None, None, refine) for (refine, _, _) in plan)
    return np.maximum(conv[(slice(None),) + picks], 0.0)


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


def band_block_sums(X: np.ndarray, bounds: np.ndarray, Y: np.ndarray, kernel: Kernel,
                    h: float, w: np.ndarray) -> np.ndarray:
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


def _band_pairs(X: np.ndarray, axes: list[np.ndarray], kernel: Kernel, h: float,
                max_elements: int = CACHE_CHUNK_ELEMENTS) -> Iterator[tuple]:
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
            b = max(a + 1, int(np.searchsorted(ends, ends[a] - counts[a] + max_elements,
                                               "right")))
            b = min(b, n)
            part = counts[a:b]
            # rank of each pair inside its point's box, unravelled into per-axis node indices
            rank = np.arange(ends[b - 1] - ends[a] + part[0]) \
                - np.repeat(ends[a:b] - ends[a] - part + part[0], part)
            sq, flat = 0.0, 0
            for k in reversed(range(d)):
                if k:
                    rank, offset = np.divmod(rank, np.repeat(his[k][a:b] - los[k][a:b], part))
                else:  # what is left of the rank is the offset along the first axis
                    offset = rank
                node = np.repeat(los[k][a:b], part) + offset
                sq = sq + np.square(np.repeat(X[a:b, k], part) - axes[k][node])
                flat = flat + node * int(np.prod(shape[k + 1:]))
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
        out[first:first + span] += np.bincount(np.repeat(offset[a:b] - first, part) + flat,
                                               values * np.repeat(w[a:b], part), minlength=span)
    return out.reshape((n_blocks, *(len(a) for a in axes)))


def _separable_sums(X, bounds, axes, kernel, h, w):
    """Exact Gaussian sums on a 2-D mesh: per block, A_x^T diag(w) A_y (one BLAS product)."""
    log_norm = kernel.log_norm(2) + 2 * np.log(h)
    ax, ay = (flushed_exp(-0.5 * np.square((X[:, k:k + 1] - axes[k][None, :]) / h))
              for k in (0, 1))
    ay *= w[:, None]
    out = np.empty((len(bounds) - 1, len(axes[0]), len(axes[1])))
    for s in range(len(bounds) - 1):
        lo, hi = bounds[s], bounds[s + 1]
        out[s] = ax[lo:hi].T @ ay[lo:hi]
    return out * np.exp(-log_norm)


class GramOperator:
    """The products v -> G v with G_ij = K_h(X_i - X_j), exact, for RKDE and SPKDE.

    The n x n matrix is built once and kept when it holds at most ``max_cached`` entries
    (n up to 7745; 5000 points take 200 MB in float64); above that each product recomputes
    it in row chunks, so memory stays at ``MAX_CHUNK_ELEMENTS`` whatever n is.
    ``dtype=np.float32`` halves the memory and the time of each product (7e-8 relative error
    per entry): for SPKDE's QP, not for RKDE, whose residuals k(0) - 2 (G w)_i + w'G w cancel.
    """

    def __init__(self, X: np.ndarray, kernel: Kernel, h: float, max_cached: int = 6 * 10**7,
                 dtype=np.float64):
        self.X = _as_2d(X)
        self.kernel, self.h = kernel, float(h)
        n, d = self.X.shape
        self.diagonal = float(np.exp(kernel.log_kernel_sq(np.zeros(1), h, d))[0])
        self._Xc = self.X - self.X.mean(axis=0)
        self._sq = np.einsum("ij,ij->i", self._Xc, self._Xc)
        self._matrix = None
        if n * n <= min(max_cached, _limits()[0]):  # replayed for a refit (same X, h)
            key = ("gram", self.X, kernel, h, np.dtype(dtype).name)
            (self._matrix,) = _replay(key, lambda: iter([self._full_matrix(dtype)]), n * n)
        elif n * n <= max_cached:
            self._matrix = self._full_matrix(dtype)

    def _full_matrix(self, dtype) -> np.ndarray:
        """The whole matrix, filled in cache-sized row chunks, read-only (it may be replayed
        to another fit on the same data and h)."""
        n = len(self.X)
        matrix = np.empty((n, n), dtype=dtype)
        for lo, hi in self._row_chunks(CACHE_CHUNK_ELEMENTS):
            matrix[lo:hi] = self._rows(lo, hi)
        matrix.flags.writeable = False
        return matrix

    def _row_chunks(self, max_elements: int = MAX_CHUNK_ELEMENTS):
        n = len(self.X)
        step = max(1, max_elements // n)
        return [(lo, min(n, lo + step)) for lo in range(0, n, step)]

    def _rows(self, lo: int, hi: int) -> np.ndarray:
        sq = _sq_dists(self._Xc[lo:hi], self._Xc, self._sq[lo:hi], self._sq)
        return self.kernel.kernel_sq(sq, self.h, self.X.shape[1])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G @ v."""
        if self._matrix is not None:
            return np.asarray(self._matrix @ v.astype(self._matrix.dtype, copy=False),
                              dtype=np.float64)
        return np.concatenate([self._rows(lo, hi) @ v for lo, hi in self._row_chunks()])
