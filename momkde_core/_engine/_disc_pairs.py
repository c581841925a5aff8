"""The (node, point) pairs closer than a per-node radius in the plane, by cells (numba).

:func:`momkde_core._engine._exact_tails.exact_at_nodes` recomputes a grid's far-tail nodes exactly from
the points that matter there: for a node, the points within its reach r (beyond r every
term is negligible next to the nearest point's). In the plane those points are found
through a table of square cells: the block's points sorted by cell, column-major (cell
``cx * ny + cy``), so that the cells of one column that meet the disc of radius r are one
run of points. A node visits the columns that meet its disc, one run per column, and keeps
the points whose distance is at most r.

Numpy can only do this with a Python list per node (a k-d tree's ball query) and a gather
of every candidate; compiled, it is one pass over the candidate runs. The enumeration is
split in two passes (count, then fill a node range) so that the caller can bound memory by
the number of pairs, and the kernel itself stays in numpy (every kernel, the same flushing
of underflow as everywhere else). For the Gaussian on a mesh, :meth:`DiscPairs.
mesh_gaussian_sums` finds the points once per tile of nodes and sums their terms in the
compiled loop as products of per-axis factors; :meth:`DiscPairs.nearest_bounds` bounds each
node's distance to the nearest point (hence its reach) by a distance transform of the
occupied cells. The compiled loops are serial and GIL-free, like :mod:`momkde_core._engine._binning`;
``mesh_gaussian_sums`` may share its tiles' columns among the kept pool's threads.
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil, exp, floor, sqrt

import numpy as np
from numba import njit
from scipy import ndimage

from ._axis_factors import evenly_spaced
from ._threads import map_on_pool

SLACK = 1e-9  # cells are selected this far (in cell units) beyond the disc: the rounding of
# a point's cell index must not drop a point exactly on the circle, which the distance keeps
MAX_CELLS = 2**24  # the cell table's size (its int64 starts and their copy: 256 MiB)
MAX_DISTANCE_CELLS = 2**18  # the distance transform's grid (coarser cells beyond this many)
MESH_TILE = 4  # mesh_gaussian_sums finds the points once per tile of 4 x 4 nodes (chosen
# against 8 x 8: twice fewer (point, node) products near the data for 4x more disc searches)


@njit(cache=True, nogil=True)
def _disc(px, py, starts, nx, ny, x0, y0, side, gx, gy, r, found):  # pragma: no cover
    """(how many, ``found``): the table rows of the points within distance ``r`` (<= r)
    of (gx, gy), written into ``found`` (a larger copy when it fills up). Cell (cx, cy)
    holds the points whose ``int((p - origin) / side)`` is (cx, cy); the geometry is done
    in those same cell units (a node's own column and row are at distance 0 exactly,
    whatever the rounding): the columns that meet the disc, in each the run of cells
    across its chord."""
    if not r >= 0.0:
        return 0, found
    inv = 1.0 / side
    unbounded = r == np.inf
    r2 = r * r
    tx = (gx - x0) * inv  # the node in cell units
    ty = (gy - y0) * inv
    dy = max(0.0, -ty - SLACK, ty - ny - SLACK) * side  # to the table's rows
    if dy > r:
        return 0, found
    across = np.inf if unbounded else sqrt(max(r2 - dy * dy, 0.0))
    lo = tx - across * inv - SLACK
    hi = tx + across * inv + SLACK
    if not (hi >= 0.0 and lo < nx):
        return 0, found
    cx_lo = int(floor(max(lo, 0.0)))  # (clamped as floats: no cast out of range)
    cx_hi = int(floor(min(hi, nx - 1.0)))
    k = 0
    for cx in range(cx_lo, cx_hi + 1):
        dx = max(0.0, cx - tx - SLACK, tx - (cx + 1) - SLACK) * side
        rest = r2 - dx * dx
        if not unbounded and rest < 0.0:
            continue
        half = np.inf if unbounded else sqrt(rest)
        bottom = ty - half * inv - SLACK
        top = ty + half * inv + SLACK
        if not (top >= 0.0 and bottom < ny):
            continue
        cy_lo = int(floor(max(bottom, 0.0)))
        cy_hi = int(floor(min(top, ny - 1.0)))
        for i in range(starts[cx * ny + cy_lo], starts[cx * ny + cy_hi + 1]):
            ex = px[i] - gx
            ey = py[i] - gy
            if ex * ex + ey * ey <= r2:
                if k == len(found):
                    grown = np.empty(2 * k, np.int64)
                    grown[:k] = found
                    found = grown
                found[k] = i
                k += 1
    return k, found


@njit(cache=True, nogil=True)
def _visit(
    px,
    py,
    starts,
    nx,
    ny,
    x0,
    y0,
    side,
    gx,
    gy,
    radius,
    j0,
    j1,
    offsets,
    fill,
    node_out,
    point_out,
    sq_out,
    counts,
):  # pragma: no cover (compiled)
    """For the pairs of nodes j0..j1 - 1 (:func:`_disc`): count them (``fill`` False:
    into ``counts``) or write them (``fill`` True: from ``offsets[j] - offsets[j0]``)."""
    found = np.empty(64, np.int64)
    k = 0
    for j in range(j0, j1):
        m, found = _disc(px, py, starts, nx, ny, x0, y0, side, gx[j], gy[j], radius[j], found)
        if not fill:
            counts[j] = m
            continue
        for q in range(m):
            i = found[q]
            ex, ey = px[i] - gx[j], py[i] - gy[j]
            node_out[k], point_out[k], sq_out[k] = j, i, ex * ex + ey * ey
            k += 1


@njit(cache=True, nogil=True, inline="always")
def _run_factors(u, step, m, half, inv_2h2, base, f):  # pragma: no cover (compiled)
    """f[k] = exp(half - (u - v_k)^2 inv_2h2) for the m evenly spaced offsets v_k = (k -
    (m - 1) / 2) step around a tile's centre (u: the point's offset to that centre), as
    exp(half - u^2 inv_2h2) s^(2k - m + 1) base[k] with s = exp(u step inv_2h2) and
    base[k] = exp(-v_k^2 inv_2h2): two exponentials for the m factors. False (``f`` left
    to the caller) when the factor of the node farthest from the point, the smallest,
    would fall below e^-690 (~2e-300): the powers would lose digits to subnormals there
    (or overflow)."""
    far = abs(u) + 0.5 * (m - 1) * abs(step)  # (a decreasing axis has step < 0)
    if not far * far * inv_2h2 - half <= 690.0:
        return False
    power = exp(half - u * u * inv_2h2)
    s = exp(u * step * inv_2h2)
    s2 = s * s
    if m > 1:
        power /= s ** (m - 1)
    for k in range(m):
        f[k] = power * base[k]
        power *= s2
    return True


@njit(cache=True, nogil=True)
def _mesh_tiles(
    px,
    py,
    pw,
    starts,
    nx,
    ny,
    x0,
    y0,
    side,
    ax,
    ay,
    reach,
    tile,
    log_peak,
    inv_2h2,
    even_x,
    even_y,
    first,
    every,
    out,
):  # pragma: no cover (compiled)
    """Gaussian sums at the mesh nodes of ``ax`` x ``ay`` whose ``reach`` is >= 0 (NaN or
    negative: skipped), into ``out`` (same shape), by tiles of ``tile`` x ``tile`` nodes:
    the points within the largest of (reach + distance to the tile's centre) of its nodes
    are found once for the tile (:func:`_disc`), and their terms at its nodes are
    products of one factor per axis, w exp(log_peak / 2 - dx^2 inv_2h2) exp(log_peak / 2 -
    dy^2 inv_2h2): a disc search and 2 x tile factors per point instead of a disc search
    and an exponential per (node, point) pair. On an evenly spaced axis (``even_x``,
    ``even_y``) a point's tile factors take two exponentials (:func:`_run_factors`).
    Only the columns of tiles ``first``, ``first + every``, ... are done (the others, and
    their nodes of ``out``, are left to other calls: threads share a mesh this way)."""
    found = np.empty(64, np.int64)
    fx, fy = np.empty(tile), np.empty(tile)
    base_x, base_y = np.empty(tile), np.empty(tile)
    acc = np.empty((tile, tile))
    half = 0.5 * log_peak
    for i0 in range(first * tile, len(ax), every * tile):
        i1 = min(len(ax), i0 + tile)
        mx = i1 - i0
        cx = 0.5 * (ax[i0] + ax[i1 - 1])
        step_x = (ax[i1 - 1] - ax[i0]) / (mx - 1) if mx > 1 else 0.0
        for k in range(mx):
            v = (k - 0.5 * (mx - 1)) * step_x
            base_x[k] = exp(-v * v * inv_2h2)
        for j0 in range(0, len(ay), tile):
            j1 = min(len(ay), j0 + tile)
            my = j1 - j0
            cy = 0.5 * (ay[j0] + ay[j1 - 1])
            r = -1.0
            for i in range(i0, i1):
                for j in range(j0, j1):
                    if reach[i, j] >= 0.0:
                        ex, ey = ax[i] - cx, ay[j] - cy
                        r = max(r, reach[i, j] + sqrt(ex * ex + ey * ey))
            if r < 0.0:
                continue
            step_y = (ay[j1 - 1] - ay[j0]) / (my - 1) if my > 1 else 0.0
            for k in range(my):
                v = (k - 0.5 * (my - 1)) * step_y
                base_y[k] = exp(-v * v * inv_2h2)
            # (the radius widened by 1e-12: a point at a node's reach stays in the tile's)
            m, found = _disc(px, py, starts, nx, ny, x0, y0, side, cx, cy, r * (1.0 + 1e-12), found)
            acc[:] = 0.0
            for q in range(m):
                p = found[q]
                if not (even_y and _run_factors(py[p] - cy, step_y, my, half, inv_2h2, base_y, fy)):
                    for k in range(my):
                        e = py[p] - ay[j0 + k]
                        fy[k] = exp(half - e * e * inv_2h2)
                if not (even_x and _run_factors(px[p] - cx, step_x, mx, half, inv_2h2, base_x, fx)):
                    for k in range(mx):
                        e = px[p] - ax[i0 + k]
                        fx[k] = exp(half - e * e * inv_2h2)
                weight = pw[p]
                for i in range(mx):
                    a = weight * fx[i]
                    for j in range(my):
                        acc[i, j] += a * fy[j]
            for i in range(i0, i1):
                for j in range(j0, j1):
                    if reach[i, j] >= 0.0:
                        out[i, j] = acc[i - i0, j - j0]


@njit(cache=True, nogil=True)
def _cell_table(x, y, side, px, py, order):  # pragma: no cover (compiled)
    """Sort the points by cell (a counting sort, column-major cells over the bounding box)
    into ``px``, ``py``, ``order``; return (x0, y0, nx, ny, starts)."""
    n = len(x)
    x0, x1, y0, y1 = x[0], x[0], y[0], y[0]
    for i in range(n):
        x0, x1 = min(x0, x[i]), max(x1, x[i])
        y0, y1 = min(y0, y[i]), max(y1, y[i])
    inv = 1.0 / side
    nx = int(floor((x1 - x0) * inv)) + 1
    ny = int(floor((y1 - y0) * inv)) + 1
    cell = np.empty(n, np.int64)
    starts = np.zeros(nx * ny + 1, np.int64)
    for i in range(n):
        c = min(int((x[i] - x0) * inv), nx - 1) * ny + min(int((y[i] - y0) * inv), ny - 1)
        cell[i] = c
        starts[c + 1] += 1
    for c in range(nx * ny):
        starts[c + 1] += starts[c]
    fill = starts[:-1].copy()
    for i in range(n):
        k = fill[cell[i]]
        fill[cell[i]] = k + 1
        px[k], py[k], order[k] = x[i], y[i], i
    return x0, y0, nx, ny, starts


class DiscPairs:
    """The points of one block in a cell table, ready to enumerate pairs with nodes.

    ``points`` (n, 2), finite; ``side`` the cells' side. The cell grid covers the points'
    bounding box; ``order`` maps the table's rows back to the caller's points.
    """

    def __init__(self, points: np.ndarray, side: float):
        points = np.asarray(points, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 2 or not len(points):
            raise ValueError("DiscPairs needs a non-empty (n, 2) array of points")
        if not (side > 0 and np.isfinite(side) and np.isfinite(1.0 / side)):
            raise ValueError("DiscPairs needs a positive finite cell side")
        self.side = float(side)
        # (contiguous columns first: their extents then take one vectorised pass each)
        x, y = np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
        cells = (np.ptp(x) / side + 1) * (np.ptp(y) / side + 1)
        if not cells <= MAX_CELLS:  # (also false when a coordinate is not finite)
            raise ValueError(f"DiscPairs needs finite points in at most {MAX_CELLS} cells")
        n = len(points)
        self.px, self.py = np.empty(n), np.empty(n)
        self.order = np.empty(n, np.int64)
        self.x0, self.y0, self.nx, self.ny, self.starts = _cell_table(
            x, y, self.side, self.px, self.py, self.order
        )

    def counts(self, nodes: np.ndarray, radius: np.ndarray) -> np.ndarray:
        """Per node, how many points lie within its radius (distance <= radius)."""
        gx, gy, radius = self._nodes(nodes, radius)
        counts = np.zeros(len(gx), dtype=np.int64)
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0)
        _visit(
            self.px,
            self.py,
            self.starts,
            self.nx,
            self.ny,
            self.x0,
            self.y0,
            self.side,
            gx,
            gy,
            radius,
            0,
            len(gx),
            np.zeros(len(gx) + 1, np.int64),
            False,
            empty_i,
            empty_i,
            empty_f,
            counts,
        )
        return counts

    def pairs(
        self, nodes: np.ndarray, radius: np.ndarray, offsets: np.ndarray, j0: int, j1: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(node index, point index in the caller's order, squared distance) of every pair
        of nodes j0..j1 - 1; ``offsets`` the cumulative counts (length nodes + 1)."""
        gx, gy, radius = self._nodes(nodes, radius)
        total = int(offsets[j1] - offsets[j0])
        node_out = np.empty(total, np.int64)
        point_out = np.empty(total, np.int64)
        sq_out = np.empty(total)
        _visit(
            self.px,
            self.py,
            self.starts,
            self.nx,
            self.ny,
            self.x0,
            self.y0,
            self.side,
            gx,
            gy,
            radius,
            j0,
            j1,
            np.ascontiguousarray(offsets, dtype=np.int64),
            True,
            node_out,
            point_out,
            sq_out,
            np.zeros(0, np.int64),
        )
        return node_out, self.order[point_out], sq_out

    def mesh_gaussian_sums(
        self,
        axes: list[np.ndarray],
        reach: np.ndarray,
        weights: np.ndarray,
        h: float,
        log_peak: float,
        tile: int = MESH_TILE,
        workers: int = 1,
    ) -> np.ndarray:
        """Per node of the mesh of two ``axes`` whose ``reach`` (shape of the mesh) is >= 0,
        the sum of weights[i] exp(log_peak - |node - p_i|^2 / 2h^2) over the points
        within (at least) that reach (``weights`` in the caller's order); other nodes 0.
        By tiles of nodes (:func:`_mesh_tiles`): each term is a product of two factors
        exp(log_peak / 2 - d^2 / 2h^2), so a term is lost to underflow only below
        e^(log_peak / 2 - 745): for |log_peak| <= 50, under 1e-313, as with one
        exponential; beyond that this refuses (enumerate the pairs instead). ``workers``
        threads share the columns of tiles, interleaved (the same sums to the bit: each
        tile is summed by one thread, in the same order)."""
        ax, ay = (np.ascontiguousarray(a, dtype=np.float64) for a in axes)
        reach = np.ascontiguousarray(reach, dtype=np.float64)
        if reach.shape != (len(ax), len(ay)) or not abs(log_peak) <= 50.0:
            raise ValueError(
                "mesh_gaussian_sums needs one reach per mesh node and |log_peak| <= 50"
            )
        if len(ax) and len(ay):  # (the mesh's corners pass the same checks as nodes)
            self._nodes(np.array([[ax.min(), ay.min()], [ax.max(), ay.max()]]), np.zeros(2))
        out = np.zeros(reach.shape)
        pw = np.ascontiguousarray(np.asarray(weights, dtype=np.float64)[self.order])
        args = (
            self.px,
            self.py,
            pw,
            self.starts,
            self.nx,
            self.ny,
            self.x0,
            self.y0,
            self.side,
            ax,
            ay,
            reach,
            int(tile),
            float(log_peak),
            0.5 / (h * h),
            evenly_spaced(ax, h),
            evenly_spaced(ay, h),
        )
        workers = max(1, min(int(workers), -(-len(ax) // int(tile))))
        if workers == 1:
            _mesh_tiles(*args, 0, 1, out)
        else:
            map_on_pool(lambda first: _mesh_tiles(*args, first, workers, out), range(workers))
        return out

    def nearest_bounds(self, nodes: np.ndarray) -> np.ndarray:
        """Per node, an upper bound of its distance to the table's nearest point: the
        Euclidean distance transform (``scipy.ndimage``) of the occupied cells, on their
        grid extended to the nodes (cells merged k x k when a side would exceed
        sqrt(``MAX_DISTANCE_CELLS``)): the centres of the node's cell and of the nearest
        occupied one are that far apart, plus a half diagonal at either end."""
        gx, gy, _ = self._nodes(nodes, np.zeros(len(nodes)))
        return self._distance_lookup(gx, gy)(gx, gy)

    def distance_map(self, extent: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """Upper bounds of the distance to the table's nearest point, as
        :meth:`nearest_bounds` gives, for any nodes within the box of the nodes ``extent``
        (a mesh's corners, say), with the distance transform taken now, once, on the cells
        grid extended to that box: the caller may take it before it knows which nodes it
        needs (beside other work, on another thread). For nodes whose own box is that box
        the bounds are nearest_bounds' to the bit; a larger box may merge cells sooner
        (looser bounds, still bounds). Nodes beyond the box are refused (ValueError)."""
        gx, gy, _ = self._nodes(extent, np.zeros(len(extent)))
        lookup = self._distance_lookup(gx, gy)

        def bounds(nodes: np.ndarray) -> np.ndarray:
            return lookup(*self._nodes(nodes, np.zeros(len(nodes)))[:2])

        return bounds

    def _distance_lookup(
        self, gx: np.ndarray, gy: np.ndarray
    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The distance transform over the cells grid extended to the box of the (checked)
        node coordinates ``gx``, ``gy``, and its lookup at other checked coordinates in that
        box (ValueError beyond it)."""
        ix, iy = np.floor((gx - self.x0) / self.side), np.floor((gy - self.y0) / self.side)
        lo_x, lo_y = min(0.0, ix.min(initial=0.0)), min(0.0, iy.min(initial=0.0))
        size_x = max(float(self.nx), ix.max(initial=0.0) + 1.0) - lo_x
        size_y = max(float(self.ny), iy.max(initial=0.0) + 1.0) - lo_y
        # (each side capped: a mesh reaching far beyond the data along one axis only)
        side_cap = sqrt(MAX_DISTANCE_CELLS)
        merge = max(1.0, ceil(size_x / side_cap), ceil(size_y / side_cap))
        shape = (int(ceil(size_x / merge)), int(ceil(size_y / merge)))
        free = np.ones(shape, dtype=bool)
        ox, oy = np.divmod(np.flatnonzero(np.diff(self.starts)), self.ny)

        def merged(i, lo):  # the cell index i (x or y) in the merged grid
            return ((i - lo) if merge == 1.0 else (i - lo) // merge).astype(np.intp)

        free[merged(ox, lo_x), merged(oy, lo_y)] = False
        distances = ndimage.distance_transform_edt(free)

        def lookup(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
            jx = merged(np.floor((gx - self.x0) / self.side), lo_x)
            jy = merged(np.floor((gy - self.y0) / self.side), lo_y)
            if len(jx) and not (
                0 <= jx.min() and jx.max() < shape[0] and 0 <= jy.min() and jy.max() < shape[1]
            ):
                raise ValueError("nodes beyond the box the distance map was built for")
            return (distances[jx, jy] + np.sqrt(2.0) + SLACK) * (self.side * merge)

        return lookup

    def _nodes(self, nodes, radius):
        nodes = np.asarray(nodes, dtype=np.float64)
        radius = np.ascontiguousarray(radius, dtype=np.float64)
        if nodes.ndim != 2 or nodes.shape[1] != 2 or radius.shape != (len(nodes),):
            raise ValueError("nodes must be (m, 2) with one radius per node")
        with np.errstate(over="ignore", invalid="ignore"):
            offsets_ok = np.isfinite((nodes - (self.x0, self.y0)) / self.side).all()
        if not offsets_ok:
            raise ValueError("nodes must be finite, and their offsets to the table in cells too")
        return (np.ascontiguousarray(nodes[:, 0]), np.ascontiguousarray(nodes[:, 1]), radius)
