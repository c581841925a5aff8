"""What the figures of Example 1 (the Home and Learn pages) show, read off their numbers: the
KDE's bumps and MoM-KDE's support on Home, the blocks near x₀ and the error against S on
Learn."""

from __future__ import annotations

import numpy as np

from .median import density


def _at(xs: np.ndarray, curve: np.ndarray, x: float) -> float:
    """The curve's value at the grid node nearest ``x``."""
    return float(curve[int(np.argmin(np.abs(xs - x)))])


def home_caption(ex: dict, n_outliers: int, h: float) -> str:
    """What the Home figures show: how many outliers give the KDE a bump outside the
    inliers' range, and where MoM-KDE is exactly 0 (its support reaches h beyond the inliers'
    [−1, 1], since every block holds inliers near the edge).

    Parameters
    ----------
    ex : dict
        What :func:`~app_support.lessons.example_one` returns, with S = 2|O| + 1.
    n_outliers : int
        |O|.
    h : float
        The bandwidth.

    Returns
    -------
    caption : str
        The sentences under Home's two figures.

    Examples
    --------
    >>> from app_support.lessons import example_one
    >>> home_caption(example_one(200, 0, 0.4, 2.0, 0, 1), 0, 0.4)[:30]
    'Without outliers S = 1: MoM-KD'
    """
    if n_outliers == 0:
        return (
            "Without outliers S = 1: MoM-KDE is the KDE itself, and both follow the true density "
            f"(dashed) up to a ramp of width h = {h:g} at ±1. Move the slider to add outliers."
        )
    xs, mom = ex["xs"], ex["curves"]["mom_kde"]
    support = xs[mom > 0]
    outside = int(np.sum(ex["is_outlier"] & (np.abs(ex["X"][:, 0]) > 1 + h)))
    return (
        f"{outside} of the {n_outliers} outliers (red ticks) fall beyond ±{1 + h:g} and each "
        f"gives the KDE a bump (about {1 / (2 * h * len(ex['X'])):.3f} high: see the zoom); "
        f"MoM-KDE with S = 2|O| + 1 = {2 * n_outliers + 1} blocks is exactly 0 outside "
        f"[{support.min():.2f}, {support.max():.2f}], like the true density (dashed) outside "
        f"[−1, 1], up to the kernel's reach h = {h:g}. The Learn page explains why."
    )


def x0_caption(ex: dict, n_blocks: int, x0: float) -> str:
    """What Example 1's density figure shows at x₀: how many blocks hold an outlier near it,
    and the values there of MoM-KDE and of the KDE.

    Parameters
    ----------
    ex : dict
        What :func:`~app_support.lessons.example_one` returns for ``n_blocks`` blocks.
    n_blocks : int
        S.
    x0 : float
        The point, outside the inliers' [−1, 1].

    Returns
    -------
    caption : str
        The sentences under Learn's density figure of Example 1.

    Examples
    --------
    >>> from app_support.lessons import example_one
    >>> x0_caption(example_one(200, 3, 0.5, 2.0, 0, 11), 11, 2.0)[:22]
    'With S = 11, 0 of the '
    """
    near = ex["n_blocks_with_outlier_near_x0"]
    xs, curves = ex["xs"], ex["curves"]
    mom, kde = _at(xs, curves["mom_kde"], x0), _at(xs, curves["kde"], x0)
    share = "at least half" if 2 * near >= n_blocks else "fewer than half"
    return (
        f"With S = {n_blocks}, {near} of the {n_blocks} blocks hold an outlier within h of "
        f"x₀ = {x0:g} (dotted line): {share} of them. A block's KDE is non-zero at x₀ only if it "
        "holds one, and the median is non-zero only when at least half of the blocks are: "
        f"MoM-KDE at x₀ is {density(mom) if mom > 0 else '0'}, the KDE {density(kde) if kde > 0 else '0'}, "
        "the true density 0."
    )


def error_caption(errors: dict[str, np.ndarray], n_outliers: int) -> str:
    """What the error-against-S figure shows: from which S on MoM-KDE's error at x₀ is 0.

    Parameters
    ----------
    errors : dict
        What :func:`~app_support.lessons.example_one_errors` returns.
    n_outliers : int
        |O| (the figure's dotted line is at 2|O|).

    Returns
    -------
    caption : str
        The sentences under the error figure.

    Examples
    --------
    >>> import numpy as np
    >>> error_caption({"blocks": np.arange(1, 6), "mom_kde": np.array([.2, .1, 0, 0, 0])}, 1)
    "Error at x₀ against S (dotted line: 2|O|); the KDE's does not depend on S. MoM-KDE's is exactly 0 from S = 3 on (the theory guarantees it past 2|O|)."
    """
    mom_err, blocks = errors["mom_kde"], errors["blocks"]
    text = "Error at x₀ against S (dotted line: 2|O|); the KDE's does not depend on S. "
    nonzero = np.flatnonzero(mom_err > 0)
    if not len(nonzero):
        return text + "MoM-KDE's is 0 for every S shown."
    if nonzero[-1] + 1 == len(mom_err):
        return text + (
            "MoM-KDE's is not yet 0 at the largest S shown: h is too wide or |O| too large."
        )
    settles = int(blocks[nonzero[-1] + 1])
    guaranteed = " (the theory guarantees it past 2|O|)" if settles <= 2 * n_outliers + 1 else ""
    return text + f"MoM-KDE's is exactly 0 from S = {settles} on{guaranteed}."
