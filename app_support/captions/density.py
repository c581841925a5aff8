"""The captions of the density figures (Explore, Your data): who is closer to the true density,
by how much, and which of MoM-KDE's failure modes apply."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from momkde_core.estimators._base import THIN_MEDIAN
from momkde_core.plots import method_label

#: One estimate is said to be clearly closer to the true density than another when its
#: divergence is below this share of the other's (at least 20 % lower), further when above its
#: inverse (1.25 times); in between, the two are about as close. MoM-KDE wins a view when it is
#: clearly closer than the KDE (:func:`mom_kde_wins`).
CLEARLY_CLOSER = 0.8
#: The bandwidth is said to have followed a spike when it is below this share of the robust
#: rule's (measured: CV gives 0.11x on the thin scheme, 0.33x adversarial, 0.6x otherwise).
SPIKE_BANDWIDTH_SHARE = 0.4
#: Blocks of fewer points than this are said to be too small (the library warns below 2).
SMALL_BLOCK = 3.0
#: What S below the guide does, by the count of the blocks holding an outlier: on the split
#: (fewer than half of the blocks, or half or more), or in expectation (fewer than half).
BELOW_GUIDE = {
    "split_minority": "fewer than half, so this split keeps the median between clean blocks' "
    "values wherever they gather (another split could put one in half of them)",
    "expected_minority": "fewer than half on average, but a split can put one in half of them, "
    "and where they gather the median can then follow them",
    "majority": "half or more, so where they gather the median can follow them",
}
#: Why MoM-KDE fails, one plain sentence each (the measured numbers are in Learn).
WHY = {
    "adversarial": "The outliers sit on an inlier mode: about {share:.0%} of the blocks hold one, so the "
    "median there is a high quantile of the clean blocks and no S removes the bump; MoM-KDE "
    "loses on this scheme, a KDE with the robust h does better.",
    "below_guide": "S = {S} does not meet the guide S > 2|O| = {guide}, which guarantees that the outliers "
    "hold fewer than half of the blocks whatever the split: {held}, {consequence}.",
    "spike_h": "h = {h:.3g} is {ratio:.1f}x smaller than the robust rule's {h_robust:.3g}: it fitted the "
    "spike of outliers, so every block KDE is spiky and their median cannot help.",
    "small_blocks": "Blocks of about {size:.1f} points are too small: each block KDE is a few narrow bumps, "
    "so their median is noisy or vanishes between points.",
    "clean": "Without outliers there is nothing to resist: the median of S block KDEs is noisier than "
    "their mean (MoM-KDE typically costs 1.5-1.7x the KDE's JS).",
    "works": "The outliers sit away from the inliers and {held}: wherever they are, most blocks "
    "hold none of them, and the median follows those.",
}


def share_of_blocks_with_outlier(n_blocks: int, n_outliers: int) -> float:
    """Expected share of S random blocks that hold at least one of |O| outliers,
    1 - (1 - 1/S)^|O|: the median keeps the outliers' bump once this passes 1/2. At the
    guide S = 2|O| + 1 it is about 1 - e^(-1/2) = 39 %."""
    if n_outliers <= 0 or n_blocks <= 1:
        return float(n_outliers > 0)
    return 1.0 - (1.0 - 1.0 / n_blocks) ** n_outliers


def _finite(values: Mapping[str, float]) -> dict[str, float]:
    """``values`` without its missing and NaN entries."""
    return {m: v for m, v in values.items() if v is not None and np.isfinite(v)}


def _shown(finite: Mapping[str, float]) -> tuple[float, float]:
    """MoM-KDE's and the KDE's values to three significant digits, as the captions show them
    (a ratio stated is computed from these, so that a reader dividing one by the other finds
    the same)."""
    mom, kde = (float(f"{finite[m]:.3g}") for m in ("mom_kde", "kde"))
    return mom, kde


def mom_kde_wins(values: Mapping[str, float]) -> bool | None:
    """Whether MoM-KDE is clearly closer to the true density than the KDE
    (:data:`CLEARLY_CLOSER`), on the numbers :func:`compare_to_kde` shows; None when either
    has no value.

    Parameters
    ----------
    values : mapping of str to float
        Method -> a divergence to the true density (lower is better); NaNs are skipped.

    Returns
    -------
    wins : bool or None
        The verdict, or None when there is nothing to judge.

    Examples
    --------
    >>> mom_kde_wins({"kde": 0.037, "mom_kde": 0.014}), mom_kde_wins({"kde": 0.037})
    (True, None)
    """
    finite = _finite(values)
    if "kde" not in finite or "mom_kde" not in finite:
        return None
    mom, kde = _shown(finite)
    return mom < CLEARLY_CLOSER * kde


def thin_median(result: Mapping[str, object] | None) -> float | None:
    """The share of the block KDEs' mass MoM-KDE's median holds, from ``fit_evaluate``'s
    ``median_mass``, when it is below the library's threshold (where the library warns that
    the density is mostly the division by that integral and no longer follows the data);
    None otherwise, or without a MoM-KDE fit."""
    mass = None if result is None else result.get("median_mass")
    return float(mass) if mass is not None and mass < THIN_MEDIAN else None


def compare_to_kde(
    values: Mapping[str, float], metric: str = "JS", median_mass: float | None = None
) -> str:
    """ "MoM-KDE is 6.1x closer to the true density than the KDE (JS 0.00441 vs 0.0269)", or
    further, or about as close (:data:`CLEARLY_CLOSER`); with the closest method named when it
    is clearly closer than both. ``values`` maps methods to a divergence (lower is better);
    NaNs are skipped.

    ``median_mass`` (:func:`thin_median`), when MoM-KDE's median holds less than half the
    blocks' mass: a clearly lower divergence is then not called closer, since the library
    warns that this density no longer follows the data (its shape is mostly the division by
    that mass); further, or about as close, is said as it is.
    """
    finite = _finite(values)
    wins = mom_kde_wins(finite)
    if wins is None:
        return ""
    mom, kde = _shown(finite)
    numbers = f"({metric} {mom:g} vs {kde:g})"
    if wins and median_mass is not None:
        verdict = (
            f"Here MoM-KDE's {metric} is lower than the KDE's {numbers}, but its median holds "
            f"only {100 * median_mass:.2g} % of the block KDEs' mass: what it draws is mostly the division "
            "by that integral, not the median at work (the library's warning above); fewer "
            "blocks (a smaller ε) make a median that follows the data"
        )
    elif wins:
        verdict = f"Here MoM-KDE is {kde / max(mom, 1e-12):.1f}x closer to the true density than the KDE {numbers}"
    elif mom > (1 / CLEARLY_CLOSER) * kde:  # 1.25 times
        verdict = f"Here MoM-KDE is {mom / max(kde, 1e-12):.1f}x further from the true density than the KDE {numbers}"
    else:
        verdict = f"Here MoM-KDE and the KDE are about as close to the true density {numbers}"
    best = min(finite, key=finite.get)
    if best not in ("kde", "mom_kde") and finite[best] < CLEARLY_CLOSER * min(mom, kde):
        verdict += f"; {method_label(best)} is closest ({metric} {finite[best]:.3g})"
    return verdict + "."


def held_blocks(n_blocks: int, n_outliers: int, held: int | None = None) -> str:
    """How many of the S blocks hold an outlier: counted on the split (``held``) when known,
    else the expected share of a random split (:func:`share_of_blocks_with_outlier`).

    Examples
    --------
    >>> held_blocks(21, 12, 10), held_blocks(21, 12)
    ('here 10 of the 21 blocks hold one', 'a random split puts one in about 44% of the 21 blocks')
    """
    if held is not None:
        return f"here {held} of the {n_blocks} blocks hold one"
    share = share_of_blocks_with_outlier(n_blocks, n_outliers)
    return f"a random split puts one in about {share:.0%} of the {n_blocks} blocks"


def reasons(
    scheme: str | None,
    n: int,
    n_outliers: int,
    n_blocks: int,
    h: float,
    h_robust: float | None,
    mom_wins: bool | None,
    held: int | None = None,
) -> list[str]:
    """The failure modes (or the success) that apply to this view, one sentence each.

    ``scheme`` is the contamination scheme when known (None for a user's file),
    ``h_robust`` the robust rule's bandwidth (to tell whether ``h`` followed a spike),
    ``mom_wins`` whether MoM-KDE beat the KDE here (None when there is no truth to judge),
    ``held`` the blocks of MoM-KDE's split that hold an outlier, when known: below the guide,
    what the split did follows from it (fewer than half of the blocks: the median stays
    between clean blocks' values, as the headline finds; half or more: it can follow them).

    Examples
    --------
    >>> print(reasons("none", 1012, 12, 21, 0.1, 0.1, False, held=10)[0])
    S = 21 does not meet the guide S > 2|O| = 24, which guarantees that the outliers hold fewer than half of the blocks whatever the split: here 10 of the 21 blocks hold one, fewer than half, so this split keeps the median between clean blocks' values wherever they gather (another split could put one in half of them).
    >>> reasons("none", 1024, 24, 21, 0.1, 0.1, False, held=12)[0].split(": ")[-1]
    'here 12 of the 21 blocks hold one, half or more, so where they gather the median can follow them.'
    """
    out = []
    share = share_of_blocks_with_outlier(n_blocks, n_outliers)
    said = held_blocks(n_blocks, n_outliers, held)
    if scheme is not None and n_outliers == 0:  # (scheme "none" with outliers placed: not clean)
        return [WHY["clean"]]
    if h_robust and h < SPIKE_BANDWIDTH_SHARE * h_robust:
        out.append(WHY["spike_h"].format(h=h, ratio=h_robust / h, h_robust=h_robust))
    if n_outliers and n_blocks <= 2 * n_outliers:
        if 2 * held >= n_blocks if held is not None else share >= 0.5:
            consequence = BELOW_GUIDE["majority"]
        else:
            consequence = BELOW_GUIDE["split_minority" if held is not None else "expected_minority"]
        out.append(
            WHY["below_guide"].format(
                S=n_blocks, guide=2 * n_outliers, held=said, consequence=consequence
            )
        )
    if n_blocks > 1 and n / n_blocks < SMALL_BLOCK and not mom_wins:
        # (a failure mode only where MoM-KDE does not win: tiny blocks can still outvote
        # spread-out outliers, and the figure then shows a median that follows the truth)
        out.append(WHY["small_blocks"].format(size=n / n_blocks))
    if scheme == "adversarial":
        out.append(WHY["adversarial"].format(share=share))
    elif mom_wins and not out:
        out.append(WHY["works"].format(held=said))
    return out


def screened_note(result: Mapping[str, np.ndarray], own_rule: bool) -> str:
    """What the screened KDE drew with: its bandwidth (one per feature where they differ) and
    the rows its screen set aside, from ``fit_evaluate``'s ``bandwidth`` and ``kept``;
    ``own_rule`` says whether that h is its own cross-validation or the slider's."""
    h = list(dict.fromkeys(f"{v:.3g}" for v in np.ravel(result["bandwidth"])))
    kept = np.asarray(result["kept"], bool)
    source = (
        f"cross-validated on the {int(kept.sum()):,} rows it kept"
        if own_rule
        else f"the slider's, on the {int(kept.sum()):,} rows it kept"
    )
    aside = (
        f"its MoM-KDE screen set {int((~kept).sum()):,} of {len(kept):,} rows aside"
        if not kept.all()
        else "no row was set aside"
    )
    return f"Screened KDE: h = {' and '.join(h)}{' per feature' if len(h) > 1 else ''}, {source}; {aside}."


def metrics_note(table: pd.DataFrame, with_auc: bool) -> str:
    """What the metric table's columns are, and, when a KL is infinite, why.

    Parameters
    ----------
    table : DataFrame
        :func:`~app_support.compute.metric_table`'s table: methods by rows, ``JS``, the two
        KLs (and ``AUC``) by columns.
    with_auc : bool
        Whether the table has an AUC column (the sample has outliers).

    Returns
    -------
    note : str
        The reading of the columns; where a KL is infinite, which methods and what it means.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> table = pd.DataFrame({"JS": [0.01], "KL(f̂‖f)": [0.02], "KL(f‖f̂)": [np.inf]},
    ...                      index=["kde"])
    >>> metrics_note(table, False).split(". ")[1]
    '∞: KL(f‖f̂) is infinite because KDE is 0 somewhere the true density is not (a kernel of finite reach, or tails past the grid).'
    """
    text = "JS and both KLs compare each estimate with the true density (lower is better)" + (
        "; AUC uses the density as an outlier score (higher is better, 0.5 is chance; below "
        "0.5 the outliers are denser than the inliers, as a spike is)."
        if with_auc
        else "."
    )
    for column, what in (
        ("KL(f‖f̂)", "0 somewhere the true density is not"),
        ("KL(f̂‖f)", "positive somewhere the true density is 0"),
    ):
        if column not in table:
            continue
        infinite = [method_label(m) for m in table.index[np.isinf(table[column].to_numpy())]]
        if infinite:
            text += (
                f" ∞: {column} is infinite because "
                + ", ".join(infinite)
                + (" are " if len(infinite) > 1 else " is ")
                + f"{what} (a kernel of finite reach, or tails past the grid)."
            )
    return text
