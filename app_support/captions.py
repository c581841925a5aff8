"""Captions computed from what a figure shows: who wins here, by how much, and why.

A fixed caption ("the bump disappears") contradicts the figure whenever MoM-KDE fails, and
it fails in known ways: too few blocks for the outliers, a bandwidth captured by a spike,
outliers on an inlier mode, blocks too small to estimate anything, or no outliers at all.
Each function here returns plain sentences from the numbers the page already has; none
draws, none imports the estimators.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from momkde_core.plots import CHANCE_AUC, method_label

#: The bandwidth is said to have followed a spike when it is below this share of the robust
#: rule's (measured: CV gives 0.11x on the thin scheme, 0.33x adversarial, 0.6x otherwise).
SPIKE_BANDWIDTH_SHARE = 0.4
#: Blocks of fewer points than this are said to be too small (the library warns below 2).
SMALL_BLOCK = 3.0
#: Why MoM-KDE fails, one plain sentence each (the measured numbers are in Learn).
WHY = {
    "adversarial": "The outliers sit on an inlier mode: about {share:.0%} of the blocks hold one, so the "
    "median there is a high quantile of the clean blocks and no S removes the bump; MoM-KDE "
    "loses on this scheme, a KDE with the robust h does better.",
    "below_guide": "S = {S} is below the guide S > 2|O| = {guide}: about {share:.0%} of the blocks hold an "
    "outlier, so the median keeps their bump.",
    "spike_h": "h = {h:.3g} is {ratio:.1f}x smaller than the robust rule's {h_robust:.3g}: it fitted the "
    "spike of outliers, so every block KDE is spiky and their median cannot help.",
    "small_blocks": "Blocks of about {size:.1f} points are too small: each block KDE is a few narrow bumps, "
    "so their median is noisy or vanishes between points.",
    "clean": "Without outliers there is nothing to resist: the median of S block KDEs is noisier than "
    "their mean (MoM-KDE typically costs 1.5-1.7x the KDE's JS).",
    "works": "The outliers sit in fewer than half of the blocks (about {share:.0%}) and away from the "
    "inliers, so the median ignores them.",
}


def share_of_blocks_with_outlier(n_blocks: int, n_outliers: int) -> float:
    """Expected share of S random blocks that hold at least one of |O| outliers,
    1 - (1 - 1/S)^|O|: the median keeps the outliers' bump once this passes 1/2. At the
    guide S = 2|O| + 1 it is about 1 - e^(-1/2) = 39 %."""
    if n_outliers <= 0 or n_blocks <= 1:
        return float(n_outliers > 0)
    return 1.0 - (1.0 - 1.0 / n_blocks) ** n_outliers


def compare_to_kde(values: Mapping[str, float], metric: str = "JS") -> str:
    """ "MoM-KDE is 6.1x closer to the true density than the KDE (JS 0.004 vs 0.027)", or
    further, or about as close; with the closest method named when it is another one.
    ``values`` maps methods to a divergence (lower is better); NaNs are skipped."""
    finite = {m: v for m, v in values.items() if v is not None and np.isfinite(v)}
    if "kde" not in finite or "mom_kde" not in finite:
        return ""
    mom, kde = finite["mom_kde"], finite["kde"]
    numbers = f"({metric} {mom:.3f} vs {kde:.3f})"
    if mom < 0.8 * kde:
        verdict = f"Here MoM-KDE is {kde / max(mom, 1e-12):.1f}x closer to the true density than the KDE {numbers}"
    elif mom > 1.25 * kde:
        verdict = f"Here MoM-KDE is {mom / max(kde, 1e-12):.1f}x further from the true density than the KDE {numbers}"
    else:
        verdict = f"Here MoM-KDE and the KDE are about as close to the true density {numbers}"
    best = min(finite, key=finite.get)
    if best not in ("kde", "mom_kde") and finite[best] < 0.8 * min(mom, kde):
        verdict += f"; {method_label(best)} is closest ({metric} {finite[best]:.3f})"
    return verdict + "."


def reasons(
    scheme: str | None,
    n: int,
    n_outliers: int,
    n_blocks: int,
    h: float,
    h_robust: float | None,
    mom_wins: bool | None,
) -> list[str]:
    """The failure modes (or the success) that apply to this view, one sentence each.

    ``scheme`` is the contamination scheme when known (None for a user's file),
    ``h_robust`` the robust rule's bandwidth (to tell whether ``h`` followed a spike),
    ``mom_wins`` whether MoM-KDE beat the KDE here (None when there is no truth to judge).
    """
    out = []
    share = share_of_blocks_with_outlier(n_blocks, n_outliers)
    if scheme == "none" or (scheme is not None and n_outliers == 0):
        return [WHY["clean"]]
    if h_robust and h < SPIKE_BANDWIDTH_SHARE * h_robust:
        out.append(WHY["spike_h"].format(h=h, ratio=h_robust / h, h_robust=h_robust))
    if n_outliers and n_blocks <= 2 * n_outliers:
        out.append(WHY["below_guide"].format(S=n_blocks, guide=2 * n_outliers, share=share))
    if n_blocks > 1 and n / n_blocks < SMALL_BLOCK:
        out.append(WHY["small_blocks"].format(size=n / n_blocks))
    if scheme == "adversarial":
        out.append(WHY["adversarial"].format(share=share))
    elif mom_wins and not out:
        out.append(WHY["works"].format(share=share))
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


def auc_verdict(aucs: Mapping[str, float]) -> str:
    """Which method ranks the labelled outliers best, against the KDE; or, when every AUC is
    below chance, why no density method can find these outliers."""
    finite = {m: v for m, v in aucs.items() if v is not None and np.isfinite(v)}
    if not finite:
        return ""
    if max(finite.values()) < CHANCE_AUC:
        return (
            "Every AUC is below 0.5: the outliers are denser than the inliers (a spike, or a cluster on "
            "a mode), so any density scores them as normal; no choice of S or h changes that."
        )
    best = max(finite, key=finite.get)
    text = f"{method_label(best)} ranks the outliers best (AUC {finite[best]:.3f}"
    if best != "kde" and "kde" in finite:
        text += f"; the KDE {finite['kde']:.3f}"
    return text + ")."


def sweep_summary(
    results: pd.DataFrame, metric: str, challenger: str, lower_is_better: bool
) -> str:
    """ "MoM-KDE (auto) beats the KDE at 7 of 10 ratios" for ``metric`` (means over
    repetitions), or "" when either method is missing."""
    sub = results[results["metric"] == metric]
    means = sub.groupby(["method", "ratio"])["value"].mean().unstack("method")
    if "kde" not in means or challenger not in means:
        return ""
    pair = means[["kde", challenger]].dropna()
    wins = (pair[challenger] < pair["kde"]) if lower_is_better else (pair[challenger] > pair["kde"])
    return f"{method_label(challenger)} beats the KDE at {int(wins.sum())} of {len(pair)} ratios."


def below_chance(results: pd.DataFrame) -> list[tuple[str, float]]:
    """(source, ratio) cells whose best method's mean AUC is below chance: there the outliers
    are denser than the inliers, which no density-based score can overcome."""
    auc = results[results["metric"] == "auc"]
    best = (
        auc.groupby(["source", "ratio", "method"])["value"]
        .mean()
        .groupby(["source", "ratio"])
        .max()
    )
    return [cell for cell, value in best.items() if value < CHANCE_AUC]


def ratio_span(ratios: list[float]) -> str:
    """ "0.3-0.5" for a sorted run of ratios, "0.5" for one."""
    lo, hi = min(ratios), max(ratios)
    return f"{lo:g}" if math.isclose(lo, hi) else f"{lo:g}-{hi:g}"
