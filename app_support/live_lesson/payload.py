"""What Explore's live figure is sent: the sample without its placed cluster, the cluster's
draws, the settings, the truth and the server's other fits, as JSON-ready values.

The browser (the modules of ``js/``, bundled by :mod:`~app_support.live_lesson.bundle`)
computes the KDE, MoM-KDE, the block KDEs and the strip from these values alone, by the
library's own rule, so that the library stays the reference and a test reads the browser's
numbers back (``tests/app/test_live_lesson.py``); Node's tests of the modules
(``js/tests``) check the same rule against values the library writes
(``tests/app/test_live_lesson_js.py``):

* **the sample**: the rows of :attr:`LivePayload.rows` (the scheme's sample, row-major),
  then ``k`` placed rows ``at + CLUSTER_SD * draws[:k]``, as
  :func:`app_support.mechanism.with_cluster` adds them (its draws are the first ``k`` rows
  of :func:`cluster_draws`: a generator's normal draws come one after the other);
* **the split**: MoMKDE's own (``block_order``): the n row indices shuffled by
  ``numpy.random.RandomState(seed).permutation(n)`` (legacy MT19937 seeded with the seed,
  and Fisher-Yates with masked rejection draws, replicated in the script) and cut into S
  runs whose sizes differ by at most one, the first n % S one row longer. Moving k changes n,
  hence the whole split, exactly as it changes the page's fit; S = 1 is the sample itself;
* **S auto**: ``2 ceil(eps n - 1e-9) + 1`` capped at n (``n_blocks_for``), with n counting
  the placed rows, as the page's S slider does;
* **the normalisation**: the median of the block KDEs divided by its Riemann sum on the
  grid ``log_integral`` builds (the rows' box widened by :data:`NORM_MARGIN` h on each
  side, a node every :data:`NORM_STEP` h in 1-D and :data:`NORM_STEP_2D` h in 2-D, at least
  :data:`NORM_MIN_NODES` per axis), no division when S = 1; where the library would switch
  to importance sampling (over ``maxNodes`` nodes on an axis or :data:`NORM_MAX_CELLS` block
  values) the script sums on that grid, its axes capped, and says so
  (``normalisedAsLibrary`` false);
* **the kernel**: the Gaussian only (:data:`LIVE_KERNELS`); the page keeps its Plotly
  figure for the others;
* **2-D**: the maps are computed on a fixed mesh (:func:`view_mesh`: the sample's box and
  the place's range, so that a drag keeps it) and coloured on the shared log scale of the
  page's Plotly maps (``shared_colour_cap`` of the view's surfaces, kept during a drag).

During a drag h stays at the value of the last server run: when a rule chooses h
(``hRule``), a release keeps it, set by hand (``keepH``, :data:`KEEP_H`), unless the user
unticks "keep h", and then the rule runs again on release, with the rows where they were
let go.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from plotly.colors import sample_colorscale, unlabel_rgb

from momkde_core._blocks._normalize import (
    GRID_MAX_POINTS,
    GRID_STEP_PER_BANDWIDTH,
    MAX_BLOCK_CELLS,
)
from momkde_core.methods import method_label
from momkde_core.plots import BLOCK_COLOR, COLOUR_DECADES, method_color, shared_colour_cap
from momkde_core.synthetic import ContaminatedSample

from .. import choices
from ..compute import GRID_POINTS, Settings
from ..lessons import EXAMPLE_AXIS, example_one_sample
from ..mechanism import CLUSTER_SD, PLACE_RANGE, Construction, kernel_reach
from ..median_figures import BLOCK_PALETTE, POINT_COLOR, RED, STEPS

#: The kernels the script draws (its formula is the Gaussian's).
LIVE_KERNELS: tuple[str, ...] = ("gaussian",)
#: The normalising grid's margin, in h, on each side of the rows (the Gaussian's 7 h of
#: ``log_integral``).
NORM_MARGIN = 7.0
#: The normalising grid's spacing, in h (the smooth kernels' in 1-D and in 2-D).
NORM_STEP = GRID_STEP_PER_BANDWIDTH[True][1]
NORM_STEP_2D = GRID_STEP_PER_BANDWIDTH[True][2]
#: The fewest nodes of the normalising grid (per axis).
NORM_MIN_NODES = 64
#: The most nodes of the normalising grid (per axis, in 1-D and 2-D), and of block values
#: (S x nodes), on a grid.
NORM_MAX_NODES = GRID_MAX_POINTS[1]
NORM_MAX_NODES_2D = GRID_MAX_POINTS[2]
NORM_MAX_CELLS = MAX_BLOCK_CELLS
#: The 2-D maps' nodes per axis (those of the page's Plotly maps).
MESH_NODES = GRID_POINTS[2]
#: The colours of the 2-D maps, low to high (the Plotly maps' colour scale).
COLOUR_SCALE = "Viridis"
#: Significant digits of the 2-D maps the script only draws (256 colours over four decades).
MAP_DIGITS = 4
#: The nodes of the figure's axis, and its margin beyond the rows and the place's range.
VIEW_NODES = 512
VIEW_MARGIN = 1.0
#: The h slider's range and step (those of the page's h slider).
H_RANGE: tuple[float, float, float] = (*choices.H_RANGE, 0.01)
#: Whether a release keeps the drag's h (set by hand) when a rule chose it, until the user
#: unticks it: the figure does not jump on release to the rule's h on the moved sample (a
#: cluster beyond the stated share can pull the robust h down), and the release's run skips
#: the rule's search.
KEEP_H = True
#: Significant digits of the curves the script only draws (the truth, the server's fits).
DRAWN_DIGITS = 6


def cluster_draws(seed: int, max_placed: int, dim: int = 1) -> np.ndarray:
    """The standard normal draws of the largest cluster that can be placed: the first ``k``
    rows make :func:`~app_support.mechanism.with_cluster`'s ``k`` rows.

    Parameters
    ----------
    seed : int
        The page's seed (the cluster's).
    max_placed : int
        The most outliers the page places.
    dim : int, default 1
        The sample's dimension.

    Returns
    -------
    draws : ndarray of shape (max_placed,) in 1-D, (max_placed, dim) otherwise
        The draws, in order.

    Examples
    --------
    >>> from momkde_core.synthetic import make_contaminated
    >>> from app_support.mechanism import CLUSTER_SD, with_cluster
    >>> data = make_contaminated("none", 50, 0.0, 1, 0)
    >>> placed = with_cluster(data, 4, (3.0,), seed=7)
    >>> bool(np.array_equal(placed.X[-4:, 0], 3.0 + CLUSTER_SD * cluster_draws(7, 200)[:4]))
    True
    >>> plane = with_cluster(make_contaminated("none", 50, 0.0, 2, 0), 4, (3.0, 1.0), seed=7)
    >>> at = np.array([3.0, 1.0])
    >>> bool(np.array_equal(plane.X[-4:], at + CLUSTER_SD * cluster_draws(7, 200, 2)[:4]))
    True
    """
    draws = np.random.default_rng(seed).standard_normal((max_placed, dim))
    return draws[:, 0] if dim == 1 else draws


def view_axis(rows: np.ndarray) -> tuple[float, float, int]:
    """The figure's axis: the rows' range and the place's, widened by :data:`VIEW_MARGIN`,
    with :data:`VIEW_NODES` nodes. It does not follow the cluster or h, so a drag keeps it.

    Parameters
    ----------
    rows : ndarray
        The sample's rows without the placed ones (1-D).

    Returns
    -------
    axis : tuple of (float, float, int)
        The first and last node, and the count.

    Examples
    --------
    >>> view_axis(np.array([-1.0, 7.5]))
    (-4.0, 10.0, 512)
    """
    low, high, _ = PLACE_RANGE
    return (
        float(min(low, rows.min()) - VIEW_MARGIN),
        float(max(high, rows.max()) + VIEW_MARGIN),
        VIEW_NODES,
    )


def view_mesh(rows: np.ndarray) -> tuple[tuple[float, float, int], tuple[float, float, int]]:
    """The 2-D maps' mesh: on each axis, :func:`view_axis`'s range with :data:`MESH_NODES`
    nodes (the page's maps' count). It follows neither the cluster nor h.

    Parameters
    ----------
    rows : ndarray of shape (n, 2)
        The sample's rows without the placed ones.

    Returns
    -------
    mesh : tuple of two (float, float, int)
        Each axis' first and last node, and the count.

    Examples
    --------
    >>> view_mesh(np.array([[-1.0, 0.0], [7.5, 2.0]]))
    ((-4.0, 10.0, 110), (-4.0, 10.0, 110))
    """
    return tuple((*view_axis(rows[:, c])[:2], MESH_NODES) for c in range(2))


def mesh_axes(mesh) -> tuple[np.ndarray, ...]:
    """The axes of a mesh of :func:`view_mesh` (numpy.linspace, as the script builds them).

    Examples
    --------
    >>> [len(a) for a in mesh_axes(((-4.0, 10.0, 110), (0.0, 1.0, 3)))]
    [110, 3]
    """
    return tuple(np.linspace(lo, hi, count) for lo, hi, count in mesh)


def _drawn(values: np.ndarray, digits: int = DRAWN_DIGITS) -> list[float]:
    """Values rounded to ``digits`` significant digits (only drawn, never compared)."""
    return [float(f"{v:.{digits}g}") for v in np.asarray(values, dtype=float).ravel()]


def _lut() -> list[int]:
    """:data:`COLOUR_SCALE` as 256 RGB triples, flat (the script's colour of each level)."""
    colours = sample_colorscale(COLOUR_SCALE, list(np.linspace(0.0, 1.0, 256)))
    return [int(round(c)) for colour in colours for c in unlabel_rgb(colour)]


def _evenly(axis: np.ndarray) -> list[float]:
    """An evenly spaced axis as [first, last, count]."""
    return [float(axis[0]), float(axis[-1]), len(axis)]


def live_payload(
    base: ContaminatedSample,
    s: Settings,
    h: float,
    placed: tuple[int, float | tuple[float, ...]],
    x0: float | tuple[float, ...],
    *,
    s_options: list[int],
    max_placed: int,
    curves: Mapping[str, tuple[tuple[np.ndarray, ...], np.ndarray]] | None = None,
    h_rule: str | None = None,
    log_y: bool = True,
    show_blocks: bool = False,
    colour_surfaces: Mapping[str, np.ndarray] | None = None,
) -> dict:
    """The live figure's data (JSON-ready): what the script needs to draw the lesson and
    recompute it at every pointer move.

    Parameters
    ----------
    base : ContaminatedSample
        The 1-D or 2-D sample without the placed rows (the scheme's inliers and outliers).
    s : Settings
        The page's settings: S, the kernel, the seed, the stated share (S auto), whether S
        is auto.
    h : float
        The bandwidth of the page's fits.
    placed : tuple of (int, float or tuple of float)
        k, the outliers placed, and their place (kept when k is 0: the handle's place).
    x0 : float or tuple of float
        The locked point.
    s_options : list of int
        The values the page's S slider offers.
    max_placed : int
        The most outliers the page places.
    curves : mapping of str to (tuple of ndarray, ndarray), optional
        The server's other fits by method: their grid's axes and their density there, drawn
        as they are until the next server run.
    h_rule : str or None, default None
        The rule's name when a rule chose h (a move of h then sets it by hand).
    log_y : bool, default True
        The density axis in decades (1-D).
    show_blocks : bool, default False
        Draw the S block KDEs (1-D).
    colour_surfaces : mapping of str to ndarray, optional
        The page's 2-D maps (the truth and the fits on its grid), whose
        :func:`~momkde_core.plots.shared_colour_cap` tops the colour scale; by default the
        truth on the mesh.

    Returns
    -------
    payload : dict
        The rows (``rows``, row-major, and ``rowOutlier``), the cluster's ``draws``, the
        settings, the figure's ``axis`` (1-D) or ``mesh`` (2-D) and the ``truth`` on it,
        the normalising grid's rule (``norm``), the controls' ranges, the colours and the
        server's ``curves``.

    Raises
    ------
    ValueError
        When the sample is not 1-D or 2-D or the kernel is not one of :data:`LIVE_KERNELS`.

    Examples
    --------
    >>> from momkde_core.synthetic import make_contaminated
    >>> from app_support.compute import Settings
    >>> data = make_contaminated("none", 100, 0.0, 1, 0)
    >>> s = Settings(bandwidth=0.3, kernel="gaussian", n_blocks=21, contamination=0.1, seed=0)
    >>> p = live_payload(data, s, 0.3, (5, 3.0), 3.0, s_options=[1, 21], max_placed=200)
    >>> len(p["rows"]), len(p["draws"]), p["S"], p["k"], len(p["truth"]) == p["axis"][2]
    (100, 200, 21, 5, True)
    >>> plane = make_contaminated("none", 100, 0.0, 2, 0)
    >>> p = live_payload(plane, s, 0.3, (5, (3.0, 1.0)), (0.0, 0.0), s_options=[21], max_placed=200)
    >>> len(p["rows"]), len(p["draws"]), p["at"], len(p["truth"]), len(p["lut"])
    (200, 400, [3.0, 1.0], 12100, 768)
    """
    dim = base.X.shape[1] if base.X.ndim == 2 else 0
    if dim not in (1, 2):
        raise ValueError("the live figure draws 1-D and 2-D samples only")
    if s.kernel not in LIVE_KERNELS:
        raise ValueError(
            f"the live figure draws the {', '.join(LIVE_KERNELS)} kernel, not {s.kernel!r}"
        )
    rows = np.asarray(base.X, dtype=float)
    k, at = placed
    at = [float(v) for v in np.atleast_1d(at)]
    x0 = [float(v) for v in np.atleast_1d(x0)]
    if len(at) != dim or len(x0) != dim:
        raise ValueError(f"the place and x0 need {dim} coordinate(s)")
    place_low, place_high, place_step = PLACE_RANGE
    out = {
        "dim": dim,
        "rows": rows.ravel().tolist(),  # (exact: JSON keeps every digit of a float)
        "rowOutlier": np.asarray(base.is_outlier, dtype=int).tolist(),
        "draws": cluster_draws(s.seed, max_placed, dim).ravel().tolist(),
        "clusterSd": CLUSTER_SD,
        "seed": int(s.seed),
        "h": float(h),
        "hRule": h_rule,
        "keepH": KEEP_H,
        "S": int(s.n_blocks),
        "autoS": bool(s.auto_blocks),
        "eps": float(s.contamination),
        "k": int(k),
        "at": at[0] if dim == 1 else at,
        "x0": x0[0] if dim == 1 else x0,
        "kMax": int(max_placed),
        "place": [place_low, place_high, place_step],
        "hRange": list(H_RANGE),
        "sOptions": [int(v) for v in s_options],
        "norm": {
            "margin": NORM_MARGIN,
            "step": NORM_STEP if dim == 1 else NORM_STEP_2D,
            "minNodes": NORM_MIN_NODES,
            "maxNodes": NORM_MAX_NODES if dim == 1 else NORM_MAX_NODES_2D,
            "maxCells": NORM_MAX_CELLS,
        },
        "reachPerH": kernel_reach(s.kernel, 1.0),
        "logY": bool(log_y),
        "showBlocks": bool(show_blocks) and dim == 1,
        "colors": {
            "truth": method_color("truth"),
            "kde": method_color("kde"),
            "mom_kde": method_color("mom_kde"),
            "block": BLOCK_COLOR,
            "outlier": RED,
            "point": POINT_COLOR,
        },
    }
    curves = curves or {}
    if dim == 1:
        lo, hi, count = view_axis(rows[:, 0])
        out["axis"] = [lo, hi, count]
        out["truth"] = _drawn(base.true_pdf(np.linspace(lo, hi, count)[:, None]))
        out["curves"] = [
            {
                "method": m,
                "label": method_label(m),
                "color": method_color(m),
                "x": _drawn(axes[0]),
                "y": _drawn(y),
            }
            for m, (axes, y) in curves.items()
        ]
        return out
    mesh = view_mesh(rows)
    xs, ys = mesh_axes(mesh)
    points = np.stack([m.ravel() for m in np.meshgrid(xs, ys, indexing="ij")], axis=1)
    truth = base.true_pdf(points)
    cap, capped = shared_colour_cap(dict(colour_surfaces or {"truth": truth}))
    out.update(
        mesh={"x": list(mesh[0]), "y": list(mesh[1])},
        truth=_drawn(truth, MAP_DIGITS),
        colour={"top": float(np.log10(cap)), "decades": COLOUR_DECADES, "capped": bool(capped)},
        lut=_lut(),
        curves=[
            {
                "method": m,
                "label": method_label(m),
                "mesh": {"x": _evenly(axes[0]), "y": _evenly(axes[1])},
                "z": _drawn(z, MAP_DIGITS),
            }
            for m, (axes, z) in curves.items()
        ],
    )
    return out


def example_payload(
    n_inliers: int,
    outliers: int,
    max_outliers: int,
    h: float,
    seed: int,
    zoom: float,
    slider_label: str,
    captions: list[str],
) -> dict:
    """Home's live figure's data (JSON-ready): the paper's Example 1 as
    :func:`app_support.lessons.example_one` draws it, for every |O| the slider offers.

    The script rebuilds the sample (the inliers, then the first |O| outlier draws of
    :func:`~app_support.lessons.example_one_sample`'s largest sample), splits it as MoMKDE does into
    S = 2|O| + 1 blocks (at most n) and draws the KDE and the plain median of the block KDEs
    with the tophat kernel (``normalize=False``, as the example does).

    Parameters
    ----------
    n_inliers : int
        The inliers, U[-1, 1].
    outliers : int
        |O|, the outliers shown first (U[-3, 3]).
    max_outliers : int
        The slider's largest |O|.
    h : float
        The bandwidth.
    seed : int
        The sample's and the split's seed.
    zoom : float
        The top of the zoom panel's density axis.
    slider_label : str
        The slider's label.
    captions : list of str
        The figure's caption for each |O| from 0 to ``max_outliers`` (the server's rule, so
        that the words follow the slider in the page).

    Returns
    -------
    payload : dict
        ``rows`` (the inliers), ``draws`` (the outliers, in order), the settings, the
        figure's ``axis`` and the ``truth`` on it, the colours.

    Examples
    --------
    >>> p = example_payload(200, 6, 20, 0.4, 0, 0.05, "|O|", [str(o) for o in range(21)])
    >>> X, _ = example_one_sample(200, 6, 0)
    >>> bool(np.array_equal(p["rows"] + p["draws"][:6], X[:, 0].tolist()))
    True
    """
    if len(captions) != max_outliers + 1:
        raise ValueError(f"one caption per |O| from 0 to {max_outliers}, got {len(captions)}")
    X, _ = example_one_sample(n_inliers, max_outliers, seed)
    rows, draws = X[:n_inliers, 0], X[n_inliers:, 0]
    low, high, count = EXAMPLE_AXIS
    nodes = np.linspace(low, high, count)
    return {
        "kind": "example",
        "dim": 1,
        "rows": rows.tolist(),
        "draws": draws.tolist(),
        "outliers": int(outliers),
        "maxOutliers": int(max_outliers),
        "h": float(h),
        "seed": int(seed),
        "zoom": float(zoom),
        "sliderLabel": slider_label,
        "captions": list(captions),
        "axis": [low, high, count],
        "truth": np.where(np.abs(nodes) <= 1, 0.5, 0.0).tolist(),
        "colors": {
            "truth": method_color("truth"),
            "kde": method_color("kde"),
            "mom_kde": method_color("mom_kde"),
            "outlier": RED,
        },
    }


def steps_payload(steps: Construction, step: str, captions: Mapping[str, str]) -> dict:
    """Learn's construction for the page (JSON-ready): the library's numbers of every frame
    (:func:`~app_support.mechanism.construction`), drawn by the script as
    :func:`~app_support.median_figures.construction_figure` draws them, and each step's
    caption.

    Parameters
    ----------
    steps : Construction
        The sample, its blocks and the curves.
    step : str
        The step shown first (a key of :data:`~app_support.median_figures.STEPS`).
    captions : mapping of str to str
        Each step's caption.

    Returns
    -------
    payload : dict
        The sample and its blocks, the grid, the curves (the S block KDEs, their median,
        MoM-KDE, the KDE, the truth), the steps, the captions, the colours.

    Raises
    ------
    ValueError
        When ``step`` or a caption's step is not a step.

    Examples
    --------
    >>> from app_support.mechanism import construction
    >>> steps = construction(60, 3, 3.0, 7, 0.4, 0)
    >>> p = steps_payload(steps, "split", {k: k for k in STEPS})
    >>> len(p["blocks"]), [k for k, _ in p["steps"]][:2]
    (7, ['sample', 'split'])
    """
    if step not in STEPS or set(captions) != set(STEPS):
        raise ValueError(f"the steps are {', '.join(STEPS)}")
    return {
        "kind": "steps",
        "dim": 1,
        "step": step,
        "steps": [[key, label] for key, label in STEPS.items()],
        "captions": dict(captions),
        "X": steps.X.tolist(),
        "isOutlier": np.asarray(steps.is_outlier, dtype=int).tolist(),
        "blockOf": np.asarray(steps.block_of, dtype=int).tolist(),
        "xs": _drawn(steps.xs),
        "blocks": [_drawn(b) for b in steps.blocks],
        "median": _drawn(steps.median),
        "momKde": _drawn(steps.mom_kde),
        "kde": _drawn(steps.kde),
        "truth": _drawn(steps.truth),
        "palette": list(BLOCK_PALETTE),
        "colors": {
            "truth": method_color("truth"),
            "kde": method_color("kde"),
            "mom_kde": method_color("mom_kde"),
            "outlier": RED,
        },
    }
