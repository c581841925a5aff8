"""Exact block sums at a few grid nodes, from the points that matter at each (the tails).

The grid backends are accurate relative to the density's peak, not to each node's value:
in the far tails, where the density is 1e-10 of its peak or less, the FFT's round-off,
the binning's error or the band's cut leave no correct digit. Those nodes are found and
recomputed here (:func:`_redo_faint`): a node is redone when its lower median over the
blocks times ``GRID_RTOL`` (1e-6) is at most the backend's error bound there.

Recomputing a node from all n points would cost what the grid saved. But a term of a point
at distance r from node g is below e^-b times the nearest point's (at distance D) once

* Gaussian (``decay_power`` 2): r^2 >= D^2 + 2 h^2 b,
* exponential (``decay_power`` 1): r >= D + h b,
* compact kernels: r >= their support,

with b = 23 + log(W_s / min w) (``WINDOW_BUDGET``): the points within that reach give the
sum to 1e-10 relative. D is bounded from above through coarse cells of side >= h / 2 of each
block's points: on a line by running maxima of the occupied cells
(:func:`_exact_at_nodes_1d`, sums over windows by
:func:`momkde_core._engine._tail_windows.window_sums`), in the plane by the distance
transform of the occupied cells (:class:`momkde_core._engine._disc_pairs.DiscPairs`), whose
compiled enumeration then lists each node's pairs, or, for the Gaussian on a mesh, sums
them per tile of nodes as products of per-axis factors. Sums below
:data:`momkde_core.kernels.SAFE_LINEAR` (1e-290), where terms may have been flushed to 0,
are redone in log space.
"""

from __future__ import annotations

import numpy as np

from .._columns import bounding_box
from .._config import chunk_elements, n_threads
from ..kernels import SAFE_LINEAR, Kernel
from ._disc_pairs import MAX_DISTANCE_CELLS, MESH_TILE, DiscPairs
from ._point_sums import _as_2d, _reduceat_log_sums, block_log_sums
from ._tail_windows import pair_chunks, window_sums
from ._threads import map_on_pool

MAX_CELL_TABLE = 2**22  # blocks x cells of exact_at_nodes' occupancy tables (32 MiB of int64)
WINDOW_BUDGET = 23.0  # exact_at_nodes drops terms below e^-23 / n of a node's nearest term
GRID_RTOL = 1e-6  # exact grids: nodes where the binned value may be off by more are redone
FFT_ROUNDOFF = 1e-13  # bound on an FFT convolution's absolute error / (K_h(0) x weight)
PLANE_THREADED_NODES = 256  # tiled exact tails on the pool's threads from this many nodes


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
    data's edge, not all n. Sums below SAFE_LINEAR (terms there may have been flushed) are redone
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
    if d == 2:  # (its sums below SAFE_LINEAR are redone from the same pairs, in log space)
        return _exact_at_nodes_plane(X, bounds, w, nodes, kernel, h, mesh, box, tables)
    if d != 1:
        raise ValueError(f"exact_at_nodes works on a line or in the plane, not in d = {d}")
    out = _exact_at_nodes_1d(X[:, 0], bounds, w, nodes[:, 0], kernel, h, cells)
    for s in range(n_blocks):
        a, b = bounds[s], bounds[s + 1]
        low = np.flatnonzero(out[s] < SAFE_LINEAR)
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
    SAFE_LINEAR (terms may have been flushed) are redone in log space over the same pairs
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
    # the GIL, and runs slower on two threads than on one)
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
        low = np.flatnonzero(out[s] < SAFE_LINEAR)
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
