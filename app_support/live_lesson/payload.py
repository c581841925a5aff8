"""What Explore's live figure is sent: the sample without its placed cluster, the cluster's
draws, the settings, the truth and the server's other curves, as JSON-ready values.

The browser (``live_lesson.js``) computes the KDE, MoM-KDE, the block KDEs and the strip
from these values alone, by the library's own rule, so that the library stays the
reference and a test reads the browser's numbers back (``tests/app/test_live_lesson.py``):

* **the sample**: the rows of :attr:`LivePayload.rows` (the scheme's sample), then ``k``
  placed rows ``at + CLUSTER_SD * draws[:k]``, as
  :func:`app_support.mechanism.with_cluster` adds them (its draws are the first ``k`` of
  :func:`cluster_draws`: a generator's normal draws come one after the other);
* **the split**: MoMKDE's own (``block_order``): the n row indices shuffled by
  ``numpy.random.RandomState(seed).permutation(n)`` (legacy MT19937 seeded with the seed,
  and Fisher-Yates with masked rejection draws, replicated in the script) and cut into S
  runs whose sizes differ by at most one, the first n % S one row longer. Moving k changes n,
  hence the whole split, exactly as it changes the page's fit; S = 1 is the sample itself;
* **S auto**: ``2 ceil(eps n - 1e-9) + 1`` capped at n (``n_blocks_for``), with n counting
  the placed rows, as the page's S slider does;
* **the normalisation**: the median of the block KDEs divided by its Riemann sum on the
  grid ``log_integral`` builds (the rows' range widened by :data:`NORM_MARGIN` h on each
  side, a node every :data:`NORM_STEP` h, at least :data:`NORM_MIN_NODES`), no division
  when S = 1; where the library would switch to importance sampling (over
  :data:`NORM_MAX_NODES` nodes or :data:`NORM_MAX_CELLS` block values) the script still
  sums on that grid and says so (``normalisedAsLibrary`` false);
* **the kernel**: the Gaussian only (:data:`LIVE_KERNELS`); the page keeps its Plotly
  figure for the others.

During a drag h stays at the value of the last server run: when a rule chooses h
(``hRule``), the rule runs again on release, with the rows where they were let go.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from momkde_core._blocks._normalize import (
    GRID_MAX_POINTS,
    GRID_STEP_PER_BANDWIDTH,
    MAX_BLOCK_CELLS,
)
from momkde_core.methods import method_label
from momkde_core.plots import BLOCK_COLOR, method_color
from momkde_core.synthetic import ContaminatedSample

from .. import choices
from ..compute import Settings
from ..mechanism import CLUSTER_SD, PLACE_RANGE, kernel_reach
from ..median_figures import POINT_COLOR, RED

#: The kernels the script draws (its formula is the Gaussian's).
LIVE_KERNELS: tuple[str, ...] = ("gaussian",)
#: The normalising grid's margin, in h, on each side of the rows (the Gaussian's 7 h of
#: ``log_integral``).
NORM_MARGIN = 7.0
#: The normalising grid's spacing, in h (the smooth kernels' in 1-D).
NORM_STEP = GRID_STEP_PER_BANDWIDTH[True][1]
#: The fewest nodes of the normalising grid.
NORM_MIN_NODES = 64
#: The most nodes of the normalising grid, and of block values (S x nodes), on a grid.
NORM_MAX_NODES = GRID_MAX_POINTS[1]
NORM_MAX_CELLS = MAX_BLOCK_CELLS
#: The nodes of the figure's axis, and its margin beyond the rows and the place's range.
VIEW_NODES = 512
VIEW_MARGIN = 1.0
#: The h slider's range and step (those of the page's h slider).
H_RANGE: tuple[float, float, float] = (*choices.H_RANGE, 0.01)
#: Significant digits of the curves the script only draws (the truth, the server's fits).
DRAWN_DIGITS = 6


def cluster_draws(seed: int, max_placed: int) -> np.ndarray:
    """The standard normal draws of the largest cluster that can be placed: the first ``k``
    make :func:`~app_support.mechanism.with_cluster`'s ``k`` rows in 1-D.

    Parameters
    ----------
    seed : int
        The page's seed (the cluster's).
    max_placed : int
        The most outliers the page places.

    Returns
    -------
    draws : ndarray of shape (max_placed,)
        The draws, in order.

    Examples
    --------
    >>> from momkde_core.synthetic import make_contaminated
    >>> from app_support.mechanism import CLUSTER_SD, with_cluster
    >>> data = make_contaminated("none", 50, 0.0, 1, 0)
    >>> placed = with_cluster(data, 4, (3.0,), seed=7)
    >>> bool(np.array_equal(placed.X[-4:, 0], 3.0 + CLUSTER_SD * cluster_draws(7, 200)[:4]))
    True
    """
    return np.random.default_rng(seed).standard_normal((max_placed, 1))[:, 0]


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


def _drawn(values: np.ndarray) -> list[float]:
    """Values rounded to :data:`DRAWN_DIGITS` significant digits (only drawn, never compared)."""
    return [float(f"{v:.{DRAWN_DIGITS}g}") for v in np.asarray(values, dtype=float)]


def live_payload(
    base: ContaminatedSample,
    s: Settings,
    h: float,
    placed: tuple[int, float],
    x0: float,
    *,
    s_options: list[int],
    max_placed: int,
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    h_rule: str | None = None,
    log_y: bool = True,
    show_blocks: bool = False,
) -> dict:
    """The live figure's data (JSON-ready): what the script needs to draw the lesson and
    recompute it at every pointer move.

    Parameters
    ----------
    base : ContaminatedSample
        The 1-D sample without the placed rows (the scheme's inliers and outliers).
    s : Settings
        The page's settings: S, the kernel, the seed, the stated share (S auto), whether S
        is auto.
    h : float
        The bandwidth of the page's fits.
    placed : tuple of (int, float)
        k, the outliers placed, and their place (kept when k is 0: the handle's place).
    x0 : float
        The locked point.
    s_options : list of int
        The values the page's S slider offers.
    max_placed : int
        The most outliers the page places.
    curves : mapping of str to (ndarray, ndarray), optional
        The server's other fits by method: their grid and their density there, drawn as
        they are until the next server run.
    h_rule : str or None, default None
        The rule's name when a rule chose h (a move of h then sets it by hand).
    log_y : bool, default True
        The density axis in decades.
    show_blocks : bool, default False
        Draw the S block KDEs.

    Returns
    -------
    payload : dict
        The rows (``rows``, ``rowOutlier``), the cluster's ``draws``, the settings, the
        figure's ``axis`` and the ``truth`` on it, the normalising grid's rule (``norm``),
        the controls' ranges, the colours and the server's ``curves``.

    Raises
    ------
    ValueError
        When the sample is not 1-D or the kernel is not one of :data:`LIVE_KERNELS`.

    Examples
    --------
    >>> from momkde_core.synthetic import make_contaminated
    >>> from app_support.compute import Settings
    >>> data = make_contaminated("none", 100, 0.0, 1, 0)
    >>> s = Settings(bandwidth=0.3, kernel="gaussian", n_blocks=21, contamination=0.1, seed=0)
    >>> p = live_payload(data, s, 0.3, (5, 3.0), 3.0, s_options=[1, 21], max_placed=200)
    >>> len(p["rows"]), len(p["draws"]), p["S"], p["k"], len(p["truth"]) == p["axis"][2]
    (100, 200, 21, 5, True)
    """
    if base.X.ndim != 2 or base.X.shape[1] != 1:
        raise ValueError("the live figure draws 1-D samples only")
    if s.kernel not in LIVE_KERNELS:
        raise ValueError(
            f"the live figure draws the {', '.join(LIVE_KERNELS)} kernel, not {s.kernel!r}"
        )
    rows = np.asarray(base.X[:, 0], dtype=float)
    lo, hi, count = view_axis(rows)
    nodes = np.linspace(lo, hi, count)
    k, at = placed
    place_low, place_high, place_step = PLACE_RANGE
    return {
        "rows": rows.tolist(),  # (exact: JSON keeps every digit of a float)
        "rowOutlier": np.asarray(base.is_outlier, dtype=int).tolist(),
        "draws": cluster_draws(s.seed, max_placed).tolist(),
        "clusterSd": CLUSTER_SD,
        "seed": int(s.seed),
        "h": float(h),
        "hRule": h_rule,
        "S": int(s.n_blocks),
        "autoS": bool(s.auto_blocks),
        "eps": float(s.contamination),
        "k": int(k),
        "at": float(at),
        "x0": float(x0),
        "kMax": int(max_placed),
        "place": [place_low, place_high, place_step],
        "hRange": list(H_RANGE),
        "sOptions": [int(v) for v in s_options],
        "axis": [lo, hi, count],
        "truth": _drawn(base.true_pdf(nodes[:, None])),
        "norm": {
            "margin": NORM_MARGIN,
            "step": NORM_STEP,
            "minNodes": NORM_MIN_NODES,
            "maxNodes": NORM_MAX_NODES,
            "maxCells": NORM_MAX_CELLS,
        },
        "reachPerH": kernel_reach(s.kernel, 1.0),
        "logY": bool(log_y),
        "showBlocks": bool(show_blocks),
        "colors": {
            "truth": method_color("truth"),
            "kde": method_color("kde"),
            "mom_kde": method_color("mom_kde"),
            "block": BLOCK_COLOR,
            "outlier": RED,
            "point": POINT_COLOR,
        },
        "curves": [
            {
                "method": m,
                "label": method_label(m),
                "color": method_color(m),
                "x": _drawn(x),
                "y": _drawn(y),
            }
            for m, (x, y) in (curves or {}).items()
        ],
    }
