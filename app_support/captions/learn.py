"""What the figures of the Home and Learn pages show, read off their numbers: Example 1 (the
KDE's bumps and MoM-KDE's support on Home, the blocks near x₀ and the error against S on
Learn), the gain of Learn's measured table, its curve and screen, and its timings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from momkde_core import metrics
from momkde_core.methods import method_label
from momkde_core.plots import timing_slopes

from ..lessons import EXACT_GRAM_MAX, LEARNING, N_EVAL, example_one
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


def home_captions(n_inliers: int, max_outliers: int, h: float, x0: float, seed: int) -> list[str]:
    """:func:`home_caption` for every |O| from 0 to ``max_outliers`` (Home's live figure shows
    the one of the |O| its slider is at, as the slider moves).

    Parameters
    ----------
    n_inliers : int
        Example 1's inliers.
    max_outliers : int
        The slider's largest |O|.
    h : float
        The bandwidth.
    x0 : float
        Example 1's point.
    seed : int
        The sample's seed.

    Returns
    -------
    captions : list of str
        One caption per |O|, in order.

    Examples
    --------
    >>> captions = home_captions(200, 2, 0.4, 2.0, 0)
    >>> len(captions), captions[0].startswith("Without outliers")
    (3, True)
    """
    return [
        home_caption(example_one(n_inliers, o, h, x0, seed, 2 * o + 1), o, h)
        for o in range(max_outliers + 1)
    ]


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


def gain_range(js: pd.DataFrame) -> str:
    """How many times lower MoM-KDE's JS is than the KDE's where it helps, least and most,
    from the values rounded as :func:`~app_support.lessons.when_it_helps_table` shows them.

    Parameters
    ----------
    js : DataFrame
        Columns ``scheme, ratio, kde, mom_kde`` (:func:`~app_support.lessons.measured_js`).

    Returns
    -------
    text : str
        "2.3x lower JS on (a) uniform at ratio 0.05 up to 18x on (b) ... at ratio 0.2", over
        the schemes where MoM-KDE's JS is the lower at every ratio measured.
    """
    js = js.assign(kde=js["kde"].round(), mom_kde=js["mom_kde"].round())  # as the table shows
    helps = js.groupby("scheme").filter(lambda rows: (rows["mom_kde"] < rows["kde"]).all())
    gain = helps["kde"] / helps["mom_kde"]
    low, high = helps.loc[gain.idxmin()], helps.loc[gain.idxmax()]
    return (
        f"{gain.min():.2g}x lower JS on {low['scheme']} at ratio {low['ratio']:g} up to "
        f"{gain.max():.2g}x on {high['scheme']} at ratio {high['ratio']:g}"
    )


def screen_caption(view: dict[str, object]) -> str:
    """What the curve-and-screen figure shows.

    Parameters
    ----------
    view : dict
        What :func:`~app_support.lessons.curve_and_screen` returns.

    Returns
    -------
    caption : str
        Each curve's JS to the truth, the rows the screen set aside and how many of them are
        outliers, and which use is closer here, with the reason when the figure shows it.
    """
    xs, curves, h = view["xs"], view["curves"], view["h"]
    js = {
        m: 1000 * metrics.js_divergence(curves[m], curves["truth"], xs[1] - xs[0])
        for m in ("mom_kde", "screened_kde")
    }
    aside, is_outlier = view["set_aside"], view["is_outlier"]
    caught, n_outliers = int(np.sum(aside & is_outlier)), int(is_outlier.sum())
    text = (
        f"JS to the true density (dashed) × 1000: MoM-KDE {js['mom_kde']:.1f}, screened KDE "
        f"{js['screened_kde']:.1f}. The screen set aside {int(aside.sum())} of the {len(aside)} rows "
        f"(purple ticks), {caught} of them outliers, of the {n_outliers} in the sample (red ticks). "
    )
    if js["screened_kde"] < js["mom_kde"] and 2 * caught >= n_outliers:
        narrower = (
            f", narrower than the median's robust h = {h['mom_kde']:.2f}"
            if h["screened_kde"] < h["mom_kde"]
            else ""
        )
        return text + (
            "The screened KDE is closer: with the outliers set aside, it is a plain KDE of the "
            f"rows kept, with its own cross-validated h = {h['screened_kde']:.2f}{narrower}."
        )
    if js["screened_kde"] > js["mom_kde"] and caught < n_outliers:
        return text + (
            f"MoM-KDE's curve is closer: the screen kept {n_outliers - caught} outliers, and the "
            "KDE fitted on the rows kept has their bump, which the median ignores."
        )
    closer = "closer" if js["screened_kde"] < js["mom_kde"] else "not closer"
    return text + f"The screened KDE is {closer} than MoM-KDE's curve here."


def timing_caption(times: pd.DataFrame) -> str:
    """What the timing figure shows.

    Parameters
    ----------
    times : DataFrame
        What :func:`~app_support.cache.measure_times` returns.

    Returns
    -------
    caption : str
        The fit slopes of the methods that learn, the fit time of those that do not, the
        evaluation slopes, and why the sizes stop where they do.
    """
    fit = timing_slopes(times[times["method"].isin(LEARNING)])
    evaluate = timing_slopes(times, "evaluate")
    still = times[~times["method"].isin(LEARNING) & (times["phase"] == "fit")]
    return (
        f"Seconds against n on log-log axes (solid: fit, dotted: evaluation at {N_EVAL:,} points; "
        "grey: slopes 1 and 2), each the least of a few runs. Measured fit slopes here: "
        + ", ".join(f"{method_label(m)} {v:.1f}" for m, v in fit.items())
        + ". RKDE and SPKDE cost O(n_iter · n²) in theory: a slope of 2 if their number of "
        "iterations does not change with n; a slope away from 2 says it does, or that costs other "
        "than the n² products still weigh. The screened KDE's fit includes its screen's choice of "
        "the robust h (MoM-KDE's default); every method uses Scott's h here. "
        + " and ".join(method_label(m) for m in still["method"].unique())
        + f" learn nothing: their fit takes at most {1000 * still['seconds'].max():.1f} ms at every n, "
        "so its slope is noise and not given. Evaluation slopes (O(n) a point: 1 in theory): "
        + ", ".join(f"{method_label(m)} {v:.1f}" for m, v in evaluate.items())
        + f". The sizes stop at n = {EXACT_GRAM_MAX:,}, the largest whose n × n Gram matrix RKDE "
        "and SPKDE compute exactly; beyond it, in 1-D, a grid convolution makes each of their "
        "products O(n)."
    )
