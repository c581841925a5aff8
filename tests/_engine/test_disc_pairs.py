"""The compiled disc enumeration (momkde_core.disc_pairs) against all pairs by numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from momkde_core._engine import _disc_pairs as disc_pairs
from momkde_core._engine._disc_pairs import DiscPairs


def _all_pairs(points, nodes, radius):
    """Every (node, point) pair within the node's radius, by the full distance matrix."""
    sq = ((nodes[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    node, point = np.nonzero(sq <= radius[:, None] ** 2)
    return node, point, sq[node, point]


def _sorted(node, point, sq):
    order = np.lexsort((point, node))
    return node[order], point[order], sq[order]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    m=st.integers(1, 60),
    side=st.floats(0.05, 3.0),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
)
def test_pairs_equal_the_full_distance_matrix(seed, n, m, side, scale):
    """Points clustered and spread, nodes inside, beside and far outside the cell table and
    on points, radii from 0 to beyond the whole table and on the lattice of the points: the
    same pairs (the distance test is the same expression), squared distances equal (exact
    on any machine: dx * dx + dy * dy in correctly rounded steps on both sides; numba
    fuses no multiply-add without fastmath)."""
    rng = np.random.default_rng(seed)
    points = np.r_[rng.normal(0, 1, (n, 2)), rng.normal(3, 0.05, (n // 5, 2))] * scale
    nodes = np.r_[rng.uniform(-8, 10, (m, 2)) * scale, np.repeat(points[:1], 3, axis=0)]
    radius = np.r_[rng.choice([0.0, 0.3, 2.0, 9.0, 40.0], m) * scale, 0.0, 1e-300, np.inf]
    m = len(nodes)
    table = DiscPairs(points, side * scale)
    counts = table.counts(nodes, radius)
    offsets = np.r_[0, np.cumsum(counts)]
    got = _sorted(*table.pairs(nodes, radius, offsets, 0, m))
    ref = _all_pairs(points, nodes, radius)
    np.testing.assert_array_equal(counts, np.bincount(ref[0], minlength=m))
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    np.testing.assert_array_equal(got[2], ref[2])


def test_a_node_range_gives_its_slice_of_the_pairs():
    """pairs() over consecutive node ranges concatenates to the pairs of all nodes (how the
    engine bounds memory), with the node index absolute."""
    rng = np.random.default_rng(3)
    points = rng.standard_normal((2000, 2))
    nodes = rng.uniform(-4, 4, (200, 2))
    radius = rng.uniform(0, 1.5, 200)
    table = DiscPairs(points, 0.2)
    offsets = np.r_[0, np.cumsum(table.counts(nodes, radius))]
    whole = table.pairs(nodes, radius, offsets, 0, 200)
    parts = [
        table.pairs(nodes, radius, offsets, j0, j1)
        for j0, j1 in [(0, 17), (17, 18), (18, 18), (18, 150), (150, 200)]
    ]
    for k in range(3):  # (each node's pairs by the same compiled code: exact)
        np.testing.assert_array_equal(np.concatenate([p[k] for p in parts]), whole[k])
    assert len(whole[0]) == offsets[-1] > 0


def test_point_indices_refer_to_the_callers_order():
    """The table sorts points by cell; the returned indices are the caller's rows."""
    points = np.array([[5.0, 5.0], [0.0, 0.0], [5.1, 5.0], [0.05, 0.0]])
    table = DiscPairs(points, 0.5)
    nodes = np.array([[5.0, 5.0]])
    offsets = np.r_[0, np.cumsum(table.counts(nodes, np.array([0.2])))]
    node, point, sq = table.pairs(nodes, np.array([0.2]), offsets, 0, 1)
    assert sorted(point.tolist()) == [0, 2]
    np.testing.assert_allclose(sq[np.argsort(point)], [0.0, 0.01])


@pytest.mark.parametrize(
    "points, side, message",
    [
        (np.zeros((0, 2)), 1.0, "non-empty"),
        (np.zeros((3, 3)), 1.0, "non-empty"),
        (np.zeros((3, 2)), 0.0, "positive"),
        (np.zeros((3, 2)), np.nan, "positive"),
        (np.zeros((3, 2)), 1e-320, "positive"),
        (np.array([[0.0, 0.0], [np.nan, 1.0]]), 1.0, "finite"),
        (np.array([[0.0, 0.0], [np.inf, 1.0]]), 1.0, "finite"),
        (np.array([[0.0, 0.0], [1e9, 1e9]]), 1.0, "cells"),
    ],
)
def test_bad_tables_are_refused(points, side, message):
    with pytest.raises(ValueError, match=message):
        DiscPairs(points, side)


def test_bad_nodes_are_refused():
    table = DiscPairs(np.zeros((3, 2)), 1.0)
    with pytest.raises(ValueError, match="one radius per node"):
        table.counts(np.zeros((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        table.counts(np.array([[np.nan, 0.0]]), np.ones(1))


@pytest.mark.parametrize("side", [0.05, 0.1, 1 / 3])
def test_points_on_cell_edges_and_nodes_on_points(side):
    """Points on a lattice (multiples of 0.1 and 1/3, so many lie on cell edges up to
    rounding), nodes exactly on points with a radius of 1e-300 or exactly the lattice step:
    every pair within the radius is found (a node's own column and row are never skipped)."""
    grid = np.r_[np.arange(-10, 11) * 0.1, np.arange(-6, 7) / 3.0]
    points = np.stack(np.meshgrid(grid, grid[::3]), axis=-1).reshape(-1, 2)
    nodes = points[::7]
    for radius in (
        np.full(len(nodes), 1e-300),
        np.full(len(nodes), 0.1),
        np.full(len(nodes), np.inf),
    ):
        table = DiscPairs(points, side)
        counts = table.counts(nodes, radius)
        sq = ((nodes[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
        np.testing.assert_array_equal(counts, (sq <= radius[:, None] ** 2).sum(axis=1))
        assert counts.min() >= 1  # (the node's own point)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    side=st.floats(0.05, 3.0),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
    tile=st.sampled_from([1, 3, 4, 8]),
    log_peak=st.floats(-50.0, 50.0),
)
def test_mesh_gaussian_sums_bracket_the_pairs_within_reach(seed, n, side, scale, tile, log_peak):
    """Per mesh node: at least the sum over the points within its reach (every one of them
    is in its tile's disc), at most the sum over all points (the tile's disc may hold
    more), equal to it where the reach is infinite, 0 where the reach is negative; with
    tiles of one node, exactly the listed pairs' sum."""
    rng = np.random.default_rng(seed)
    points = np.r_[rng.normal(0, 1, (n, 2)), rng.normal(3, 0.05, (n // 5, 2))] * scale
    axes = [np.linspace(-6, 8, 13) * scale, np.linspace(-5, 9, 11) * scale]
    reach = rng.choice([-1.0, 0.0, 0.3, 2.0, 9.0, np.inf], (13, 11)) * scale
    reach[reach < 0] = -1.0
    weights = rng.uniform(0.1, 2.0, len(points))
    h = 0.7 * scale
    table = DiscPairs(points, side * scale)
    got = table.mesh_gaussian_sums(axes, reach, weights, h, log_peak, tile=tile)
    nodes = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    sq = ((nodes[:, None, :] - points[None]) ** 2).sum(axis=2)
    terms = weights * np.exp(log_peak - sq / (2 * h * h))
    flat = reach.ravel()
    within = np.where(sq <= np.maximum(flat, 0.0)[:, None] ** 2, terms, 0.0).sum(axis=1)
    full = terms.sum(axis=1)
    got = got.ravel()
    live = flat >= 0
    assert np.all(got[~live] == 0)
    assert np.all(got[live] >= within[live] * (1 - 1e-12))
    assert np.all(got[live] <= full[live] * (1 + 1e-12))
    np.testing.assert_allclose(got[flat == np.inf], full[flat == np.inf], rtol=1e-12)
    if tile == 1:
        np.testing.assert_allclose(got[live], within[live], rtol=1e-12)
    # threads sharing the columns of tiles (more threads than columns too) change no bit:
    # each tile is summed by one thread, in the same order (no BLAS), on any machine
    for workers in (2, 3, 20):
        shared = table.mesh_gaussian_sums(
            axes, reach, weights, h, log_peak, tile=tile, workers=workers
        )
        np.testing.assert_array_equal(shared.ravel(), got)


@pytest.mark.parametrize("even", [True, False])
@pytest.mark.parametrize("offset", [0.0, 15.0, 17.5])
def test_mesh_gaussian_sums_match_log_space_sums_on_any_axes_and_to_the_underflow_edge(
    even, offset
):
    """With every point in reach, the tiles' sums equal the sums taken in log space to
    1e-12 relative wherever they are at least 1e-290 (below, the engine redoes a node in
    log space): on evenly spaced axes (two exponentials per point and tile, whose powers
    are declined near underflow) and uneven ones (one per factor), near the data and
    ~30-38 h away from it, where the factors come close to 1e-300."""
    rng = np.random.default_rng(int(offset) + even)
    points = rng.normal(0, 1, (400, 2))
    h = 0.5
    axes = [np.linspace(-3, 3, 29) + offset, np.linspace(-2.5, 2.5, 23)]
    if not even:
        axes = [np.sort(a + rng.uniform(-0.05, 0.05, len(a))) for a in axes]
    log_peak = 1.3
    table = DiscPairs(points, 0.25)
    reach = np.full((len(axes[0]), len(axes[1])), np.inf)
    got = table.mesh_gaussian_sums(axes, reach, np.ones(len(points)), h, log_peak).ravel()
    nodes = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    sq = ((nodes[:, None, :] - points[None]) ** 2).sum(axis=2)
    reference = np.exp(logsumexp(log_peak - sq / (2 * h * h), axis=1))
    kept = reference >= 1e-290
    assert kept.any()
    np.testing.assert_allclose(got[kept], reference[kept], rtol=1e-12)


def test_factors_assume_even_spacing_only_where_the_nodes_are_even_to_their_ulps():
    """The tiles' two-exponential factors and the separable product's recurrence assume
    evenly spaced nodes: true of a linspace near the
    origin, false for nodes moved by 1e-3 h, and false far from the origin, where the
    nodes' own ulps exceed EVEN_NODES h (a tile's centre and step computed from them
    would be off by that much)."""
    from momkde_core._engine._axis_factors import evenly_spaced as _evenly_spaced

    h = 0.2
    near = np.linspace(-7.0, 9.0, 128)
    assert _evenly_spaced(near, h) and _evenly_spaced(near[::-1], h)
    moved = near.copy()
    moved[40] += 1e-3 * h
    assert not _evenly_spaced(moved, h)
    assert not _evenly_spaced(near + 1e9, h)


def test_mesh_gaussian_sums_on_a_decreasing_axis_equal_the_increasing_one():
    """A decreasing axis gives the same sums, reversed, down to the underflow edge (the
    guard of the two-exponential factors measures the farthest node by |step|)."""
    table = DiscPairs(np.array([[0.0, 0.0], [0.1, -0.2]]), 0.5)
    up = [np.array([10.8, 11.1, 11.4, 11.7]), np.array([-0.3, 0.0, 0.3, 0.6])]
    reach = np.full((4, 4), np.inf)
    got_up = table.mesh_gaussian_sums(up, reach, np.ones(2), 0.3, 0.0)
    got_down = table.mesh_gaussian_sums([up[0][::-1], up[1]], reach, np.ones(2), 0.3, 0.0)
    np.testing.assert_allclose(got_down[::-1], got_up, rtol=1e-12, atol=0)
    sq = (
        (
            np.stack(np.meshgrid(*up, indexing="ij"), axis=-1)[..., None, :]
            - table.px.size * 0
            - np.array([[0.0, 0.0], [0.1, -0.2]])
        )
        ** 2
    ).sum(axis=-1)
    np.testing.assert_allclose(
        got_up, np.exp(-sq / (2 * 0.09)).sum(axis=-1), rtol=1e-12, atol=1e-320
    )


def test_mesh_gaussian_sums_refuse_a_wrong_reach_or_log_peak():
    table = DiscPairs(np.zeros((3, 2)), 0.5)
    axes = [np.linspace(0, 1, 4), np.linspace(0, 1, 5)]
    with pytest.raises(ValueError, match="reach"):
        table.mesh_gaussian_sums(axes, np.zeros((5, 4)), np.ones(3), 1.0, 0.0)
    with pytest.raises(ValueError, match="log_peak"):
        table.mesh_gaussian_sums(axes, np.zeros((4, 5)), np.ones(3), 1.0, 60.0)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    m=st.integers(1, 60),
    side=st.floats(0.05, 3.0),
    scale=st.sampled_from([1e-3, 1.0, 1e3]),
    cap=st.sampled_from([4, 64, 2**18]),
)
def test_nearest_bounds_bound_the_nearest_distance(seed, n, m, side, scale, cap):
    """Nodes inside, beside and far outside the table, on points: the bound is at least the
    distance to the nearest point and at most that plus two cell diagonals (the transform's
    grid at full resolution), whatever the merging of cells (``cap``)."""
    rng = np.random.default_rng(seed)
    points = np.r_[rng.normal(0, 1, (n, 2)), rng.normal(3, 0.05, (n // 5, 2))] * scale
    nodes = np.r_[rng.uniform(-30, 30, (m, 2)) * scale, points[:2]]
    table = DiscPairs(points, side * scale)
    nearest = np.sqrt(((nodes[:, None, :] - points[None]) ** 2).sum(axis=2)).min(axis=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(disc_pairs, "MAX_DISTANCE_CELLS", cap)
        got = table.nearest_bounds(nodes)
    assert np.all(got >= nearest)
    # not much more: two diagonals of the transform's cells (merged k x k to fit ``cap``)
    both = np.r_[points, nodes]
    merge = max(1.0, np.ceil((np.ptp(both, axis=0) / (side * scale) + 3) / np.sqrt(cap)).max())
    assert np.all(got <= nearest + 2 * np.sqrt(2) * side * scale * merge * (1 + 1e-6))


def test_a_distance_map_taken_first_gives_the_nearest_bounds_of_any_nodes_in_its_box():
    """distance_map(extent) takes the transform once over the box of ``extent`` (a mesh's
    corners); asked later for any nodes inside that box, it gives what nearest_bounds
    gives them when their own box is the same, and refuses nodes beyond it."""
    rng = np.random.default_rng(8)
    points = rng.normal(0, 1, (400, 2))
    table = DiscPairs(points, 0.2)
    axes = [np.linspace(-6, 7, 40), np.linspace(-5, 5, 33)]
    mesh = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    corners = np.array([[-6.0, -5.0], [7.0, 5.0]])
    distances = table.distance_map(corners)
    # (the same transform over the same box, taken once or per call: exact)
    np.testing.assert_array_equal(distances(mesh), table.nearest_bounds(mesh))
    some = mesh[rng.choice(len(mesh), 50, replace=False)]
    nearest = np.sqrt(((some[:, None, :] - points[None]) ** 2).sum(axis=2)).min(axis=1)
    assert np.all(distances(some) >= nearest)
    assert distances(mesh[:0]).shape == (0,)
    with pytest.raises(ValueError, match="beyond the box"):
        distances(np.array([[7.5, 0.0]]))
