"""What the figures of the median at work show, read off their numbers: the block KDEs at a
locked point (who pulls the mean, whether the median is a clean block's value), the outliers
placed (can they hold half of the blocks?), and each frame of MoM-KDE's construction."""

from __future__ import annotations

import numpy as np

from ..mechanism import CLUSTER_SD, BlockValues, Construction


def where(point: tuple[float, ...]) -> str:
    """A point as the captions write it: "3" in 1-D, "(3, 6)" in 2-D.

    Parameters
    ----------
    point : tuple of float
        The coordinates.

    Returns
    -------
    text : str
        Them, to three significant digits.

    Examples
    --------
    >>> where((3.0,)), where((3.0, 6.25))
    ('3', '(3, 6.25)')
    """
    text = ", ".join(f"{v:.3g}" for v in point)
    return text if len(point) == 1 else f"({text})"


#: A density below this reads "≈ 0" in the captions (a Gaussian kernel's far tail, 1e-50 say,
#: is noise, not a value); the strip's axis spans at least 0 to this level.
NEGLIGIBLE = 1e-4


def density(value: float) -> str:
    """A density as the captions write it: three significant digits, "≈ 0" below 1e-4 (a
    Gaussian kernel's far tail, 1e-50 say, reads as noise, not as a value).

    Parameters
    ----------
    value : float
        The density.

    Returns
    -------
    text : str
        The value written.

    Examples
    --------
    >>> density(0.04521), density(3e-56)
    ('0.0452', '≈ 0')
    """
    return "≈ 0" if value < NEGLIGIBLE else f"{value:.3g}"


def rows_per_block(n: int, n_blocks: int) -> str:
    """The rows of a block on average, as the captions write them: two significant digits
    below 10 rows, whole rows above.

    Examples
    --------
    >>> rows_per_block(1151, 233), rows_per_block(1012, 21)
    ('4.9', '48')
    """
    rows = n / n_blocks
    return f"{rows:.2g}" if rows < 10 else f"{rows:.0f}"


#: The outliers are said to move the median at a point when their kernels raise it by more
#: than this share of its value without them (removing them can only lower a block's
#: value): below it, the rise is of the order of a median's own sampling noise over a few
#: hundred blocks, the same share the headline asks of a bump over the true density
#: (:data:`app_support.captions.lesson.BUMP_OVER_TRUTH`). The mean is said to sit above the
#: median by the blocks' own spread when, without the outliers' kernels, the median is
#: below (1 - this share) of the mean.
MOVED = 0.2


def outliers_move_median(at: BlockValues) -> bool:
    """Whether the outliers' kernels move the blocks' median at the point: it reads above
    ≈ 0 and is more than :data:`MOVED` above the median without them.

    Parameters
    ----------
    at : BlockValues
        The blocks at the point.

    Returns
    -------
    moved : bool
        True when removing the outliers' kernels would lower the median materially.

    Examples
    --------
    >>> from dataclasses import replace
    >>> import numpy as np
    >>> from app_support.mechanism import BlockValues
    >>> at = BlockValues((0.0,), np.array([0.1, 0.2, 0.3]), np.ones(3, int),
    ...                  np.array([False, True, True]), np.array([False, True, True]),
    ...                  0.2, 0.2, 1.0, clean=np.array([0.1, 0.0, 0.0]))
    >>> outliers_move_median(at), outliers_move_median(replace(at, clean=at.values))
    (True, False)
    """
    return at.median >= NEGLIGIBLE and at.median - at.clean_median > MOVED * at.clean_median


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def middle_is_red(at: BlockValues) -> bool:
    """Whether the median's value is a red block's (odd S: the middle block; even S: either
    of the two middle ones).

    Parameters
    ----------
    at : BlockValues
        The blocks at the point.

    Returns
    -------
    red : bool
        True when a block holding an outlier near the point is in the middle.

    Examples
    --------
    >>> import numpy as np
    >>> from app_support.mechanism import BlockValues
    >>> at = BlockValues((0.0,), np.array([0.0, 0.2, 0.3]), np.ones(3, int),
    ...                  np.array([False, True, True]), np.array([False, True, True]),
    ...                  0.2, 0.17, 1.0)
    >>> middle_is_red(at)
    True
    """
    order = np.argsort(at.values, kind="stable")
    s = len(order)
    return bool(at.near[order[(s - 1) // 2]] or at.near[order[s // 2]])


def strip_caption(at: BlockValues, median_mass: float) -> str:
    """What the strip of block values at the locked point shows.

    Parameters
    ----------
    at : BlockValues
        The blocks at the point.
    median_mass : float
        The integral of the blocks' median, which MoM-KDE divides it by.

    Returns
    -------
    caption : str
        The point, what the dots and colours are, the mean (the KDE) and who pulls it, the
        median and whether the outliers move it (it is compared with the median of the
        blocks without the outliers' kernels: :func:`outliers_move_median`; half of the
        blocks or more red and moved: the breakdown), what keeps the mean above it when the
        outliers do not, and MoM-KDE's value there.

    Examples
    --------
    >>> import numpy as np
    >>> from app_support.mechanism import BlockValues
    >>> at = BlockValues((3.0,), np.array([0.0, 0.0, 0.3]), np.array([5, 5, 5]),
    ...                  np.array([False, False, True]), np.array([False, False, True]),
    ...                  0.0, 0.1, 0.9, clean=np.zeros(3))
    >>> print(strip_caption(at, 1.0).split("). ")[-1])
    Their mean, 0.1, is the KDE: every red block pulls it. Their median, ≈ 0, is what it would be without the outliers' kernels (≈ 0); the 1 red block is fewer than half of the 3, so the median stays between clean blocks' values. MoM-KDE at x₀, the median divided by its integral 1: ≈ 0.
    """
    s, red = len(at.values), int(at.near.sum())
    anywhere = int(at.holds.sum())
    marker = "dotted line" if len(at.point) == 1 else "the cross on the maps"
    if at.values.max() < NEGLIGIBLE:
        return (
            f"At x₀ = {where(at.point)} ({marker}), every one of the S = {s} block KDEs is ≈ 0 "
            f"(below {NEGLIGIBLE:g}), so their mean (the KDE) and their median (MoM-KDE) are "
            f"≈ 0 too; the axis spans 0 to "
            f"{NEGLIGIBLE:g}. Move x₀ nearer the data to see the blocks differ."
        )
    held = f"within {at.reach:.2g} of x₀ (a kernel's reach at 1 % of its peak)"
    text = (
        f"At x₀ = {where(at.point)} ({marker}), one dot per block KDE (S = {s}); "
        + (
            f"red: the {_plural(red, 'block')} holding an outlier {held}"
            if red
            else f"none is red: no block holds an outlier {held}"
        )
        + (f", of {anywhere} holding one anywhere" if anywhere > red else "")
        + f". Their mean, {density(at.mean)}, is the KDE"
        + (": every red block pulls it." if red else ".")
        + f" Their median, {density(at.median)}, "
    )
    clean = density(at.clean_median)
    minority = (
        f"the {_plural(red, 'red block')} {'are' if red > 1 else 'is'} fewer than half of the "
        f"{s}, so the median stays between clean blocks' values"
    )
    if not red:
        text += "is a clean block's value: no block holds an outlier near x₀."
    elif outliers_move_median(at):
        text += f"follows the outliers: without their kernels it would be {clean}; " + (
            f"{red} of the {s} blocks hold one near x₀, half or more: the median's breakdown."
            if 2 * red >= s
            else minority + " (no breakdown), but they lift it."
        )
    else:
        rise = round(100 * (at.median / at.clean_median - 1)) if at.median >= NEGLIGIBLE else 0
        text += (
            f"is {rise} % above what it would be without the outliers' kernels ({clean}): they "
            "barely move it; "
            if rise
            else f"is what it would be without the outliers' kernels ({clean}); "
        ) + (
            minority + "."
            if 2 * red < s
            else f"{red} of the {s} blocks are red, but their outliers pull them little at x₀."
        )
        if at.clean_mean >= NEGLIGIBLE and at.clean_median < (1 - MOVED) * at.clean_mean:
            text += (
                " The mean stays above the median without the outliers' kernels too "
                f"({density(at.clean_mean)} against {clean}): blocks of about "
                f"{rows_per_block(int(at.sizes.sum()), s)} rows give spread-out values, and "
                "that, not the outliers, keeps their median below their mean."
            )
    return text + (
        f" MoM-KDE at x₀, the median divided by its integral {median_mass:.3g}: "
        f"{density(at.median / median_mass)}."
    )


def placement_note(k: int, at: tuple[float, ...], n_blocks: int, auto: bool) -> str:
    """What placing ``k`` outliers at ``at`` does to S blocks.

    Parameters
    ----------
    k : int
        The outliers placed.
    at : tuple of float
        Their place (its length: the dimension, which says how the figure marks them).
    n_blocks : int
        S.
    auto : bool
        Whether S is S auto (2⌈εn⌉+1: n counts the placed rows, the share ε does not).

    Returns
    -------
    note : str
        The cluster, and whether these k outliers can hold half of the blocks (a bound on
        the placed ones alone: the scheme's outliers come on top, which the guide under S
        counts).

    Examples
    --------
    >>> print(placement_note(8, (3.0,), 21, False))
    8 outliers placed at 3 (red ticks: a cluster of standard deviation 0.05). These 8 can be in at most 8 of the S = 21 blocks, fewer than half: whatever the split, they alone hold no majority of the blocks (the scheme's outliers, if any, come on top: the guide under S counts them all).
    >>> placement_note(12, (3.0, 6.0), 21, True).split(". ")[-1]
    'S auto = 2⌈εn⌉+1 counts their rows in n but not in the share ε: the estimators are not told that they are outliers.'
    >>> "red circles on the first map" in placement_note(12, (3.0, 6.0), 21, True)
    True
    """
    if k == 0:
        return (
            "No outlier placed: raise k to put a cluster at the place (or where a click on the "
            f"figure says) and watch the KDE grow a bump that MoM-KDE, with S = {n_blocks} "
            "blocks, refuses until the cluster reaches about half of the blocks."
        )
    marks = "red ticks" if len(at) == 1 else "red circles on the first map"
    text = (
        f"{_plural(k, 'outlier')} placed at {where(at)} ({marks}: a cluster of standard "
        f"deviation {CLUSTER_SD:g}). "
    )
    if 2 * k < n_blocks:
        text += (
            f"These {k} can be in at most {k} of the S = {n_blocks} blocks, fewer than half: "
            "whatever the split, they alone hold no majority of the blocks (the scheme's "
            "outliers, if any, come on top: the guide under S counts them all)."
        )
    else:
        text += (
            f"k ≥ S/2 = {n_blocks / 2:g}: a split can put one of these in half of the blocks "
            "or more, and then the median can follow them (the strip says whether it does "
            "at x₀)."
        )
    if auto:
        text += (
            " S auto = 2⌈εn⌉+1 counts their rows in n but not in the share ε: the estimators "
            "are not told that they are outliers."
        )
    return text


def step_caption(steps: Construction, step: str) -> str:
    """What one frame of MoM-KDE's construction shows, with its numbers.

    Parameters
    ----------
    steps : Construction
        The construction (:func:`~app_support.mechanism.construction`).
    step : str
        The frame (:data:`~app_support.median_figures.STEPS`).

    Returns
    -------
    caption : str
        The frame's sentences.

    Examples
    --------
    >>> from app_support.mechanism import construction
    >>> steps = construction(60, 3, 3.0, 7, 0.4, 0)
    >>> step_caption(steps, "split")[:36]
    'The random split into S = 7 blocks o'
    """
    s, k = steps.n_blocks, int(steps.is_outlier.sum())
    n_in = len(steps.X) - k
    bumped = int(np.unique(steps.block_of[steps.is_outlier]).size)
    sizes = np.bincount(steps.block_of, minlength=s)
    node = int(np.argmin(np.abs(steps.xs - steps.at)))
    minority = 2 * bumped < s
    share = "fewer than half" if minority else "half or more"
    at = f"{steps.at:g}"
    if step == "sample":
        return (
            f"The sample: {n_in} inliers from 0.5 N(0, 0.5) + 0.5 N(6, 0.5) (grey ticks; dashed: "
            f"their density) and {k} outliers placed at {at} (red ticks)."
        )
    if step == "split":
        return (
            f"The random split into S = {s} blocks of {sizes.min()} to {sizes.max()} rows: one "
            f"line and one colour per block. {bumped} of them hold an outlier (ringed red), "
            f"{share} of the {s}."
        )
    if step == "blocks":
        return (
            f"Each block's KDE (h = {steps.h:g}), from its own rows alone, in the block's colour. "
            f"The {bumped} blocks holding an outlier grow a bump at {at}, up to "
            f"{density(steps.blocks[:, node].max())}; the others are about 0 there."
        )
    if step == "median":
        return (
            f"The pointwise median of the {s} block KDEs (thick): at every x, the middle of the "
            f"{s} values. At {at} the {bumped} bumped blocks are {share}, so the median there "
            f"is {density(steps.median[node])}, "
            + ("a clean block's value." if minority else "a bumped block's value: the breakdown.")
        )
    if step == "compare":
        return (
            f"MoM-KDE is that median divided by its integral ({steps.median_mass:.2f}); the KDE "
            f"is the blocks' mean, the same h. At {at} the KDE keeps the outliers' bump "
            f"({density(steps.kde[node])}), MoM-KDE is {density(steps.mom_kde[node])}, the true density "
            f"{density(steps.truth[node])}."
        )
    raise ValueError(f"unknown step {step!r}")
