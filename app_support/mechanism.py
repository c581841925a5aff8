"""The median at work, computed: a cluster of outliers placed by the teacher, the S block KDEs'
values at one point with the blocks that hold an outlier, and the steps of MoM-KDE's
construction on one sample. Without Streamlit: :mod:`app_support.cache` caches these for the
pages, and :mod:`app_support.median_figures` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from momkde_core import KDE
from momkde_core.kernels import get_kernel
from momkde_core.synthetic import ContaminatedSample, make_contaminated

from .compute import Settings, library_warnings, make_estimator, plot_grid

#: The placed cluster's spread (a standard deviation, on every axis): tight beside any h the
#: page offers, so that the cluster acts as one point the KDE grows a bump on.
CLUSTER_SD = 0.05
#: The range and step of the point and place controls, on every axis: the schemes' outliers
#: lie in [-3, 9], the inliers' modes at 0 and 6.
PLACE_RANGE: tuple[float, float, float] = (-3.0, 9.0, 0.05)
#: A kernel reaches a point when it weighs more than this share of its peak there.
REACH_SHARE = 0.01


def with_cluster(
    data: ContaminatedSample, k: int, at: tuple[float, ...], seed: int
) -> ContaminatedSample:
    """``data`` with ``k`` outliers added in a tight cluster at ``at``.

    Parameters
    ----------
    data : ContaminatedSample
        The sample (its inliers and its scheme's outliers).
    k : int
        The outliers placed (0: ``data`` itself).
    at : tuple of float
        The cluster's centre, one coordinate per column of ``data.X``.
    seed : int
        Seeds the cluster's draws (N(at, :data:`CLUSTER_SD`) on every axis).

    Returns
    -------
    sample : ContaminatedSample
        The rows of ``data`` then the ``k`` placed ones, marked as outliers; the same true
        density (the inliers'), ``n_outliers`` counting both kinds.

    Raises
    ------
    ValueError
        When ``at`` does not give one coordinate per column, or ``k`` is negative.

    Examples
    --------
    >>> from momkde_core.synthetic import make_contaminated
    >>> data = make_contaminated("none", 100, 0.0, 1, 0)
    >>> placed = with_cluster(data, 5, (3.0,), seed=0)
    >>> placed.X.shape, placed.n_outliers, int(placed.is_outlier[-5:].sum())
    ((105, 1), 5, 5)
    """
    dim = data.X.shape[1]
    if len(at) != dim:
        raise ValueError(f"the cluster's place needs {dim} coordinate(s), got {len(at)}")
    if k < 0:
        raise ValueError(f"the number of outliers placed must be 0 or more, got {k}")
    if k == 0:
        return data
    rows = np.asarray(at, dtype=float) + CLUSTER_SD * np.random.default_rng(seed).standard_normal(
        (k, dim)
    )
    X = np.vstack([data.X, rows])
    is_outlier = np.concatenate([data.is_outlier, np.ones(k, dtype=bool)])
    return replace(data, X=X, is_outlier=is_outlier, n_outliers=data.n_outliers + k)


def placed_sample(
    scheme: str,
    n_inliers: int,
    ratio: float,
    dim: int,
    seed: int,
    k: int = 0,
    at: tuple[float, ...] = (),
) -> ContaminatedSample:
    """The paper's contaminated sample (:func:`~momkde_core.synthetic.make_contaminated`) with
    ``k`` outliers placed at ``at`` (:func:`with_cluster`): Explore's sample.

    Parameters
    ----------
    scheme, n_inliers, ratio, dim, seed
        As for :func:`~momkde_core.synthetic.make_contaminated` (``seed``: its random state,
        and the cluster's).
    k : int, default 0
        The outliers placed.
    at : tuple of float, default ()
        Their place (ignored when ``k`` is 0).

    Returns
    -------
    sample : ContaminatedSample
        The sample, the placed rows last.

    Examples
    --------
    >>> placed_sample("none", 100, 0.0, 1, 0, 4, (3.0,)).n_outliers
    4
    """
    data = make_contaminated(scheme, n_inliers, ratio, dim, seed)
    return with_cluster(data, k, at, seed) if k else data


def point_from_click(points: list[dict], dim: int) -> tuple[float, ...] | None:
    """The point a click on Explore's figure names: the first clicked point's x (and y in
    2-D), rounded to the controls' step and kept in their range (:data:`PLACE_RANGE`).

    Parameters
    ----------
    points : list of dict
        The chart's selected points (Streamlit's ``selection.points``: each with ``x``,
        ``y``).
    dim : int
        The sample's dimension (in 1-D the y of a click is a density, not a coordinate).

    Returns
    -------
    point : tuple of float or None
        The point, or None when no point with coordinates was clicked.

    Examples
    --------
    >>> point_from_click([{"x": 3.018, "y": 0.2}], 1)
    (3.0,)
    >>> point_from_click([{"x": 12.0, "y": -0.52}], 2)
    (9.0, -0.5)
    >>> point_from_click([], 1) is None
    True
    """
    if not points:
        return None
    low, high, step = PLACE_RANGE
    try:
        coords = [float(points[0][axis]) for axis in ("x", "y")[:dim]]
    except (KeyError, TypeError, ValueError):
        return None
    return tuple(round(min(high, max(low, round(v / step) * step)), 2) for v in coords)


def kernel_reach(kernel: str, h: float) -> float:
    """The distance within which a row's kernel weighs more than :data:`REACH_SHARE` of its
    peak: the rows that move a density at a point are those within this reach of it.

    Parameters
    ----------
    kernel : str
        The kernel's name.
    h : float
        The bandwidth.

    Returns
    -------
    reach : float
        The distance, in the data's units.

    Examples
    --------
    >>> round(kernel_reach("gaussian", 1.0), 2)  # exp(-r²/2) = 0.01
    3.03
    >>> round(kernel_reach("tophat", 0.5), 2)
    0.5
    """
    profile = get_kernel(kernel).log_profile
    r = np.linspace(0.0, get_kernel(kernel).radius, 4001)
    above = profile(r) - profile(np.zeros(1))[0] > np.log(REACH_SHARE)
    return float(h * r[np.flatnonzero(above)[-1]])


@dataclass(frozen=True)
class BlockValues:
    """The S block KDEs of MoM-KDE at one point, and which blocks hold an outlier.

    Attributes
    ----------
    point : tuple of float
        The point.
    values : ndarray of shape (S,)
        Each block's KDE at the point (a density: its rows weigh one over its size).
    sizes : ndarray of shape (S,)
        Each block's rows.
    near : ndarray of bool, shape (S,)
        The blocks holding an outlier within the kernel's reach of the point
        (:func:`kernel_reach`): those an outlier pulls there.
    holds : ndarray of bool, shape (S,)
        The blocks holding an outlier anywhere.
    median : float
        The blocks' median at the point: MoM-KDE before it is divided by its integral.
    mean : float
        Their mean weighted by the blocks' sizes: the KDE of the whole sample, same h.
    reach : float
        The reach used for ``near``.
    clean : ndarray of shape (S,) or None, default None
        Each block's KDE at the point without the outliers' kernels (its rows still weigh one
        over the block's size): what the block would be there had its outliers no pull.
        None: the values hold no outlier's kernel, so they are their own clean values.
    """

    point: tuple[float, ...]
    values: np.ndarray
    sizes: np.ndarray
    near: np.ndarray
    holds: np.ndarray
    median: float
    mean: float
    reach: float
    clean: np.ndarray | None = None

    @property
    def clean_values(self) -> np.ndarray:
        """Each block's value without the outliers' kernels (:attr:`clean`, or the values
        themselves when it is None)."""
        return self.values if self.clean is None else self.clean

    @property
    def clean_median(self) -> float:
        """The blocks' median without the outliers' kernels: what the median would be if the
        outliers pulled no block at the point."""
        return float(np.median(self.clean_values))

    @property
    def clean_mean(self) -> float:
        """The blocks' size-weighted mean without the outliers' kernels: the KDE of the
        inliers alone there (weighing the sample's n, not the inliers' count)."""
        return float(np.average(self.clean_values, weights=self.sizes))


def block_values(
    X: np.ndarray, is_outlier: np.ndarray, h: float, s: Settings, point: tuple[float, ...]
) -> BlockValues:
    """MoM-KDE's S block KDEs at ``point``, from the library's own fit with the page's h, S,
    kernel and seed (so the same blocks as the page's MoM-KDE), and the blocks that hold an
    outlier (``block_of_`` maps each row to its block).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The sample.
    is_outlier : ndarray of bool, shape (n,)
        Which rows are outliers.
    h : float
        The bandwidth.
    s : Settings
        S (``n_blocks``), the kernel and the seed of the page's MoM-KDE.
    point : tuple of float
        The point, one coordinate per column.

    Returns
    -------
    values : BlockValues
        Each block's value there, which blocks hold an outlier (near the point, anywhere),
        their median and their size-weighted mean (the KDE), and each block's value without
        its outliers' kernels (:func:`without_outliers`).

    Examples
    --------
    >>> from app_support.compute import Settings
    >>> data = placed_sample("none", 200, 0.0, 1, 0, 6, (3.0,))
    >>> s = Settings(bandwidth=0.3, kernel="gaussian", n_blocks=21, contamination=0.0, seed=0)
    >>> at = block_values(data.X, data.is_outlier, 0.3, s, (3.0,))
    >>> int(at.near.sum()) <= 6 < 21 // 2, at.median < at.mean
    (True, True)
    >>> bool(np.all(at.clean <= at.values)), at.clean_median <= at.median
    (True, True)
    """
    X = np.asarray(X, dtype=float)
    with library_warnings():  # (the page's own fit of these blocks shows what they warn)
        mom = make_estimator("mom_kde", h, s).set_params(normalize=False).fit(X)
    y = np.asarray(point, dtype=float)[None, :]
    values = np.exp(mom.block_score_samples(y)[:, 0])
    blocks, n_blocks = mom.block_of_, mom.n_blocks_
    sizes = np.bincount(blocks, minlength=n_blocks)
    reach = kernel_reach(s.kernel, h)
    close = is_outlier & (np.linalg.norm(X - y, axis=1) <= reach)
    near = np.bincount(blocks[close], minlength=n_blocks) > 0
    holds = np.bincount(blocks[is_outlier], minlength=n_blocks) > 0
    return BlockValues(
        point=tuple(float(v) for v in point),
        values=values,
        sizes=sizes,
        near=near,
        holds=holds,
        median=float(np.median(values)),
        mean=float(np.average(values, weights=sizes)),
        reach=reach,
        clean=without_outliers(values, X, is_outlier, blocks, s.kernel, h, y[0]),
    )


def without_outliers(
    values: np.ndarray,
    X: np.ndarray,
    is_outlier: np.ndarray,
    block_of: np.ndarray,
    kernel: str,
    h: float,
    point: np.ndarray,
) -> np.ndarray:
    """Each block's KDE at ``point`` without its outliers' kernels: ``values`` times the
    share of the block's kernel sum there that its inliers make (the kernel's constant
    cancels in the share).

    Parameters
    ----------
    values : ndarray of shape (S,)
        Each block's KDE at the point.
    X : ndarray of shape (n, d)
        The sample.
    is_outlier : ndarray of bool, shape (n,)
        Which rows are outliers.
    block_of : ndarray of int, shape (n,)
        Each row's block.
    kernel : str
        The kernel's name.
    h : float
        The bandwidth.
    point : ndarray of shape (d,)
        The point.

    Returns
    -------
    clean : ndarray of shape (S,)
        The values without the outliers' pull (each at most its value).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.0], [1.0]])
    >>> without_outliers(np.array([0.3]), X, np.array([False, True, False]),
    ...                  np.zeros(3, int), "tophat", 2.0, np.zeros(1)).round(3)
    array([0.2])
    """
    log_k = get_kernel(kernel).log_profile(np.linalg.norm(X - point, axis=1) / h)
    # (relative to the nearest row's kernel: a row it outweighs by e^745 adds nothing)
    k = np.exp(log_k - log_k.max()) if np.isfinite(log_k.max()) else np.zeros(len(X))
    total = np.bincount(block_of, k, minlength=len(values))
    pulled = np.bincount(block_of[is_outlier], k[is_outlier], minlength=len(values))
    share = np.divide(pulled, total, out=np.zeros(len(values)), where=total > 0)
    return values * (1.0 - share)


@dataclass(frozen=True)
class Construction:
    """MoM-KDE built step by step on one 1-D sample: what each frame of the Learn page draws.

    Attributes
    ----------
    X : ndarray of shape (n,)
        The sample.
    is_outlier : ndarray of bool, shape (n,)
        Its outliers.
    block_of : ndarray of int, shape (n,)
        Each row's block, from the library's fit.
    xs : ndarray
        The grid.
    blocks : ndarray of shape (S, len(xs))
        Each block's KDE on the grid.
    median : ndarray
        Their pointwise median (not normalised).
    mom_kde : ndarray
        MoM-KDE: the median divided by its integral (``median_mass``).
    kde : ndarray
        The KDE of the whole sample, same h.
    truth : ndarray
        The inliers' true density.
    h : float
        The bandwidth.
    median_mass : float
        The median's integral.
    at : float
        Where the outliers were placed.
    """

    X: np.ndarray
    is_outlier: np.ndarray
    block_of: np.ndarray
    xs: np.ndarray
    blocks: np.ndarray
    median: np.ndarray
    mom_kde: np.ndarray
    kde: np.ndarray
    truth: np.ndarray
    h: float
    median_mass: float
    at: float

    @property
    def n_blocks(self) -> int:
        """S."""
        return len(self.blocks)


def construction(
    n_inliers: int, k: int, at: float, n_blocks: int, h: float, seed: int
) -> Construction:
    """MoM-KDE's construction on the 1-D inliers of the paper's schemes with ``k`` outliers
    placed at ``at``: the sample, its split into ``n_blocks`` blocks (the library's
    ``block_of_``), each block's KDE, their median, MoM-KDE and the KDE.

    Parameters
    ----------
    n_inliers : int
        Inliers, 0.5 N(0, 0.5) + 0.5 N(6, 0.5).
    k : int
        Outliers placed (:func:`with_cluster`).
    at : float
        Their place.
    n_blocks : int
        S.
    h : float
        The bandwidth, shared by the blocks and the KDE.
    seed : int
        The sample's, the cluster's and the split's seed.

    Returns
    -------
    steps : Construction
        Everything the frames draw.

    Examples
    --------
    >>> steps = construction(60, 3, 3.0, 7, 0.4, 0)
    >>> steps.n_blocks, sorted(set(steps.block_of.tolist())) == list(range(7))
    (7, True)
    >>> bool(steps.kde.max() > 0 and steps.median.max() <= steps.blocks.max())
    True
    """
    data = placed_sample("none", n_inliers, 0.0, 1, seed, k, (at,))
    s = Settings(bandwidth=h, kernel="gaussian", n_blocks=n_blocks, contamination=0.0, seed=seed)
    mom = make_estimator("mom_kde", h, s).fit(data.X)
    xs = plot_grid(data.X, h).axes[0]
    blocks = mom.block_pdf_grid(xs)
    median = np.median(blocks, axis=0)
    mass = float(np.exp(mom.log_norm_))
    return Construction(
        X=data.X[:, 0],
        is_outlier=data.is_outlier,
        block_of=np.asarray(mom.block_of_),
        xs=xs,
        blocks=blocks,
        median=median,
        mom_kde=median / mass,
        kde=KDE(bandwidth=h).fit(data.X).pdf_grid(xs),
        truth=data.true_pdf(xs),
        h=h,
        median_mass=mass,
        at=float(at),
    )
