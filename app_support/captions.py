"""Captions computed from what a figure shows: who wins here, by how much, and why.

A fixed caption ("the bump disappears") contradicts the figure whenever MoM-KDE fails, and
it fails in known ways: too few blocks for the outliers, a bandwidth captured by a spike,
outliers on an inlier mode, blocks too small to estimate anything, or no outliers at all.
Each function here returns plain sentences from the numbers the page already has; none
draws, none imports the estimators.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import cycle, pairwise

import numpy as np
import pandas as pd

from momkde_core.plots import CHANCE_AUC, legend_order, method_label

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


def compare_to_kde(values: Mapping[str, float], metric: str = "JS") -> str:
    """ "MoM-KDE is 6.1x closer to the true density than the KDE (JS 0.00441 vs 0.0269)", or
    further, or about as close (:data:`CLEARLY_CLOSER`); with the closest method named when it
    is clearly closer than both. ``values`` maps methods to a divergence (lower is better);
    NaNs are skipped."""
    finite = _finite(values)
    wins = mom_kde_wins(finite)
    if wins is None:
        return ""
    mom, kde = _shown(finite)
    numbers = f"({metric} {mom:g} vs {kde:g})"
    if wins:
        verdict = f"Here MoM-KDE is {kde / max(mom, 1e-12):.1f}x closer to the true density than the KDE {numbers}"
    elif mom > (1 / CLEARLY_CLOSER) * kde:  # 1.25 times
        verdict = f"Here MoM-KDE is {mom / max(kde, 1e-12):.1f}x further from the true density than the KDE {numbers}"
    else:
        verdict = f"Here MoM-KDE and the KDE are about as close to the true density {numbers}"
    best = min(finite, key=finite.get)
    if best not in ("kde", "mom_kde") and finite[best] < CLEARLY_CLOSER * min(mom, kde):
        verdict += f"; {method_label(best)} is closest ({metric} {finite[best]:.3g})"
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
    if n_blocks > 1 and n / n_blocks < SMALL_BLOCK and not mom_wins:
        # (a failure mode only where MoM-KDE does not win: tiny blocks can still outvote
        # spread-out outliers, and the figure then shows a median that follows the truth)
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


def listed(items: Iterable[str]) -> str:
    """``items`` as a sentence lists them: "a", "a and b", "a, b and c".

    Parameters
    ----------
    items : iterable of str
        The words, in order.

    Returns
    -------
    text : str
        The words joined by commas, the last two by "and" ("" when there are none).

    Examples
    --------
    >>> listed(["MoM-KDE", "RKDE", "SPKDE"])
    'MoM-KDE, RKDE and SPKDE'
    """
    words = list(items)
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def auc_verdict(aucs: Mapping[str, float]) -> str:
    """Which methods rank the labelled outliers best, against the KDE; or, when every AUC is
    below chance, why no density method can find these outliers. The AUCs are compared as
    the table shows them (3 decimals): every method tied at the top is named, so the
    sentence never picks one of two equal numbers."""
    finite = {m: v for m, v in aucs.items() if v is not None and np.isfinite(v)}
    if not finite:
        return ""
    if max(finite.values()) < CHANCE_AUC:
        return (
            "Every AUC is below 0.5: the outliers are denser than the inliers (a spike, or a cluster on "
            "a mode), so any density scores them as normal; no choice of S or h changes that."
        )
    top = f"{max(finite.values()):.3f}"
    best = [m for m, v in finite.items() if f"{v:.3f}" == top]
    verb = "ranks" if len(best) == 1 else "rank"
    text = f"{listed(map(method_label, best))} {verb} the outliers best (AUC {top}"
    if "kde" not in best and "kde" in finite:
        text += f"; the KDE {finite['kde']:.3f}"
    return text + ")."


def flag_columns_note(flagger: str, scored: Sequence[str], drawn: Sequence[str]) -> str:
    """Why a flagged row can sit anywhere in the figure: ``flagger`` flags rows by their
    density in the columns ``scored``, the figure draws the columns ``drawn`` (1 or 2).

    Parameters
    ----------
    flagger : str
        The name of the method whose flags the figure marks.
    scored : sequence of str
        The columns the rows are scored on.
    drawn : sequence of str
        The columns the figure draws.

    Returns
    -------
    text : str
        One sentence, or "" when the figure draws exactly the columns scored.

    Examples
    --------
    >>> flag_columns_note("MoM-KDE", ["hour", "temperature_c"], ["temperature_c"])
    'MoM-KDE flags rows by their density in the 2 columns scored (hour and temperature_c), not in the one drawn: a flagged row can sit anywhere along temperature_c, even where the rows are densest.'
    """
    if set(scored) == set(drawn):
        return ""
    columns = (
        f"the column scored ({scored[0]})"
        if len(scored) == 1
        else f"the {len(scored)} columns scored ({listed(map(str, scored))})"
    )
    where = f"along {drawn[0]}" if len(drawn) == 1 else "on the maps"
    return (
        f"{flagger} flags rows by their density in {columns}, not in the "
        f"{'one' if len(drawn) == 1 else 'two'} drawn: a flagged row can sit anywhere {where}, "
        "even where the rows are densest."
    )


#: A step of one method's curve between neighbouring ratios is called a jump when it exceeds
#: this many standard errors of the step and this share of the figure's axis ([0, 1] for the
#: AUC, from 0 to the highest mean otherwise; a steady trend over 5 ratios moves about 1/5 of
#: it per step).
JUMP_SE = 3.0
JUMP_SHARE = 1 / 3
#: Short names of the sweep's metrics, for sentences.
METRIC_NAMES = {"js": "JS", "kl_fhat_f": "KL(f̂ ‖ f)", "kl_f_fhat": "KL(f ‖ f̂)", "auc": "AUC"}
#: Why RKDE's curve jumps while the KDE's, with the same h, does not. Measured with
#: momkde_core.estimators.RKDE on the runner's samples (uniform, 2-D, 500 inliers, seed 0,
#: the CV h): its Hampel KIRWLS either stops after 3 iterations with weights near 1/n, or
#: drops outliers one by one until nearly all have weight 0 (60 iterations).
RKDE_JUMP = (
    "RKDE's Hampel loss gives a row weight 0 once its residual (in the kernel's feature space) "
    "reaches c, the largest residual of RKDE's absolute-loss start, and scattered outliers all sit "
    "just below c: either none reaches it and RKDE keeps weights near 1/n (close to the KDE), or a "
    "few do, the weight they lose raises the other outliers' residuals, and most drop out "
    "(measured on uniform outliers in 2-D, 500 inliers: at ratio 0.4 the outliers keep 39 % of the "
    "weight for a 40 % share; at 0.5, 483 of 500 get weight 0)."
)


@dataclass(frozen=True)
class SweepVerdicts:
    """What one figure of the sweep shows, in sentences (:func:`sweep_verdicts`).

    Attributes
    ----------
    versus_kde : str
        The challenger against the KDE: the ratios where it wins, ties and loses ("" when
        either is missing).
    rivals : str
        The other methods that beat the challenger, with their ratios ("" when there are none
        to compare).
    jumps : tuple of str
        One sentence per jump of a curve between neighbouring ratios (neighbouring jumps
        of one direction in one sentence).
    mechanisms : tuple of str
        Why some of those jumps happen, where it is known (:data:`RKDE_JUMP`); a page with
        several figures may show each only once.
    """

    versus_kde: str
    rivals: str
    jumps: tuple[str, ...]
    mechanisms: tuple[str, ...]

    def __str__(self) -> str:
        parts = (self.versus_kde, self.rivals, *self.jumps, *self.mechanisms)
        return " ".join(s for s in parts if s)


def sweep_stats(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The table a sweep figure draws: ``metric``'s mean over the repetitions per method x
    ratio, with its standard error and the number of repetitions.

    Parameters
    ----------
    results : DataFrame
        A tidy experiment table (columns ``method, ratio, metric, value`` at least).
    metric : str
        The metric, e.g. ``"js"``.

    Returns
    -------
    stats : DataFrame
        Indexed by (method, ratio), columns ``mean``, ``se`` (std / sqrt(count); 0 with one
        repetition, which has no spread to measure) and ``count``.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"method": "kde", "ratio": 0.1, "metric": "js",
    ...                         "value": [0.1, 0.3]})
    >>> sweep_stats(results, "js").round(3).to_dict("records")
    [{'mean': 0.2, 'se': 0.1, 'count': 2}]
    """
    stats = (
        results[results["metric"] == metric]
        .groupby(["method", "ratio"])["value"]
        .agg(["mean", "std", "count"])
    )
    stats["se"] = (stats["std"] / np.sqrt(stats["count"])).fillna(0.0)
    return stats[["mean", "se", "count"]]


def ratio_list(ratios: Iterable[float], grid: Iterable[float]) -> str:
    """ "0.1, 0.4-0.5": ``ratios`` written as runs of neighbours on ``grid``, the figure's ratios.

    Parameters
    ----------
    ratios : iterable of float
        Ratios taken from ``grid``.
    grid : iterable of float
        Every ratio of the figure, sorted.

    Returns
    -------
    text : str
        Runs joined by commas, each as :func:`ratio_span` writes it.

    Examples
    --------
    >>> ratio_list([0.1, 0.4, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5])
    '0.1, 0.4-0.5'
    """
    chosen = set(ratios)
    runs: list[list[float]] = [[]]
    for ratio in grid:
        if ratio in chosen:
            runs[-1].append(ratio)
        elif runs[-1]:
            runs.append([])
    return ", ".join(ratio_span(run) for run in runs if run)


def _outcomes(
    means: pd.DataFrame, se: pd.DataFrame, method: str, other: str, lower_is_better: bool
) -> dict[str, list[float]]:
    """The ratios where ``method`` beats ``other`` by more than the standard error of the gap
    (sqrt(se_a^2 + se_b^2)), ties with it (within it) or loses; ratios missing either skipped."""
    gap = means[method] - means[other]
    better = -gap if lower_is_better else gap
    tolerance = np.hypot(se[method], se[other])
    known = better.notna()
    return {
        "wins": list(better.index[known & (better > tolerance)]),
        "ties": list(better.index[known & (better.abs() <= tolerance)]),
        "losses": list(better.index[known & (better < -tolerance)]),
    }


def _standard_error(reps: int) -> str:
    return f"the standard error of {reps} repetitions" if reps > 1 else "one repetition"


def _versus_kde(
    means: pd.DataFrame, se: pd.DataFrame, challenger: str, name: str, lower: bool, reps: int
) -> str:
    found = _outcomes(means, se, challenger, "kde", lower)
    wins, ties, losses = found["wins"], found["ties"], found["losses"]
    grid = list(means.index)
    clauses = [
        f"beats the KDE at {len(wins)} of {len(wins) + len(ties) + len(losses)} ratios"
        + (f" ({ratio_list(wins, grid)})" if wins and (ties or losses) else "")
    ]
    if ties:
        gaps = "gaps" if len(ties) > 1 else "gap"
        clauses.append(
            f"ties with it at {ratio_list(ties, grid)} ("
            + (f"{gaps} within {_standard_error(reps)}" if reps > 1 else "equal means")
            + ")"
        )
    if losses:
        clauses.append(f"loses at {ratio_list(losses, grid)}")
    text = f"On {name}, {method_label(challenger)} " + ", ".join(clauses[:-1])
    text += (" and " if len(clauses) > 1 else "") + clauses[-1] + "."
    if reps == 1:
        text += " With one repetition there is no standard error: every gap counts, however small."
    return text


def _rivals(means: pd.DataFrame, se: pd.DataFrame, challenger: str, lower: bool, reps: int) -> str:
    others = [m for m in means if m not in (challenger, "kde")]
    grid = list(means.index)
    named = []
    for method in others:
        found = _outcomes(means, se, method, challenger, lower)
        if found["wins"]:
            of = sum(map(len, found.values()))
            named.append(f"{method_label(method)} at {len(found['wins'])} of {of} ratios")
            named[-1] += f" ({ratio_list(found['wins'], grid)})"
    label = method_label(challenger)
    if named:
        return (
            f"{named[0].replace(' at ', f' beats {label} at ', 1)}"
            + "".join(f"; {n}" for n in named[1:])
            + "."
        )
    if not others:
        return ""
    return f"No other method beats {label}" + (
        f" beyond {_standard_error(reps)}." if reps > 1 else "."
    )


def _jumps(
    means: pd.DataFrame, se: pd.DataFrame, name: str, reps: int, axis: float, lower: bool
) -> tuple[list[str], list[str]]:
    """The jump sentences of every curve (neighbouring jumps of one direction merged) and
    the mechanisms they call on: :data:`RKDE_JUMP` where RKDE goes from about the KDE to far
    better than it (or back), the switch measured there."""
    sentences: list[str] = []
    mechanisms: list[str] = []
    for method in means:
        curve = means[method].dropna()
        runs: list[list[tuple[float, float, float]]] = []
        for low, high in pairwise(curve.index):
            step = curve[high] - curve[low]
            tolerance = math.hypot(se.at[low, method], se.at[high, method])
            if abs(step) < JUMP_SHARE * axis or abs(step) <= JUMP_SE * tolerance:
                continue
            last = runs[-1][-1] if runs else None
            if last and last[1] == low and (curve[low] - curve[last[0]]) * step > 0:
                runs[-1].append((low, high, tolerance))
            else:
                runs.append([(low, high, tolerance)])
        for run in runs:
            ratios = [run[0][0], *(high for _, high, _ in run)]
            first, end = ratios[0], ratios[-1]
            total = curve[end] - curve[first]
            jump = "a jump" if len(run) == 1 else "each step a jump"
            tolerance = max(t for *_, t in run)
            if reps == 1:
                size = f"{jump} (one repetition: no standard error to judge it by)"
            elif tolerance > 0:
                size = (
                    f"{jump} of more than {JUMP_SE:g} times the standard error of {reps} "
                    f"repetitions (±{tolerance:.2g})"
                )
            else:
                size = f"{jump}, with no spread over {reps} repetitions"
            text = (
                f"{method_label(method)}'s {name} {'rises' if total > 0 else 'drops'} from "
                + " to ".join(f"{curve[r]:.3g}" for r in ratios)
                + f" between ratios {first:g} and {end:g}, {size}."
            )
            if method == "rkde" and "kde" in means:
                kde_step = means.at[end, "kde"] - means.at[first, "kde"]
                if abs(kde_step) < abs(total) / JUMP_SE:
                    text += (
                        f" The KDE, with RKDE's h, moves by {kde_step:+.2g} there: the jump is "
                        "RKDE's weighting."
                    )
                    gains = sorted(
                        (means.at[r, "kde"] - curve[r]) * (1 if lower else -1) for r in (first, end)
                    )
                    small = abs(total) / JUMP_SE
                    if abs(gains[0]) < small < gains[1] and RKDE_JUMP not in mechanisms:
                        mechanisms.append(RKDE_JUMP)  # from the KDE's weights to dropping outliers
            sentences.append(text)
    return sentences, mechanisms


def sweep_verdicts(
    results: pd.DataFrame, metric: str, challenger: str | None = "mom_kde_auto"
) -> SweepVerdicts:
    """Who wins where on one figure of the sweep, computed from the table it draws.

    A gap between two methods at a ratio counts as a win only beyond the standard error of
    the gap, sqrt(se_a^2 + se_b^2) with se the standard error of each mean over the
    repetitions; within it the two tie. A step of a curve between neighbouring ratios is a
    jump when it is larger than :data:`JUMP_SE` standard errors and :data:`JUMP_SHARE` of
    the figure's axis; RKDE's jumps are explained when the KDE, with the same h, does not
    jump there (:data:`RKDE_JUMP`).

    Parameters
    ----------
    results : DataFrame
        A tidy experiment table (columns ``method, ratio, metric, value`` at least), the
        one the figure draws.
    metric : str
        The figure's metric: ``"auc"`` is higher-is-better, the others divergences.
    challenger : str or None, default "mom_kde_auto"
        The method compared with the KDE and with the others; None: jumps only.

    Returns
    -------
    verdicts : SweepVerdicts
        The sentences; ``str(verdicts)`` joins them.

    Examples
    --------
    >>> import pandas as pd
    >>> def rows(method, values):  # three repetitions at ratios 0.1, 0.2, 0.3
    ...     return pd.DataFrame({"method": method, "metric": "js", "value": values,
    ...                          "ratio": [r for r in (0.1, 0.2, 0.3) for _ in range(3)]})
    >>> results = pd.concat([
    ...     rows("kde", [0.09, 0.10, 0.11, 0.10, 0.11, 0.12, 0.11, 0.12, 0.13]),
    ...     rows("mom_kde_auto", [0.05, 0.06, 0.07, 0.06, 0.11, 0.16, 0.15, 0.16, 0.17]),
    ...     rows("rkde", [0.10, 0.11, 0.12, 0.11, 0.12, 0.13, 0.01, 0.02, 0.03]),
    ... ])
    >>> verdicts = sweep_verdicts(results, "js")
    >>> verdicts.versus_kde  # doctest: +NORMALIZE_WHITESPACE
    'On JS, MoM-KDE (auto) beats the KDE at 1 of 3 ratios (0.1), ties with it at 0.2 (gap
    within the standard error of 3 repetitions) and loses at 0.3.'
    >>> verdicts.rivals
    'RKDE beats MoM-KDE (auto) at 1 of 3 ratios (0.3).'
    >>> print(verdicts.jumps[0])  # doctest: +NORMALIZE_WHITESPACE
    RKDE's JS drops from 0.12 to 0.02 between ratios 0.2 and 0.3, a jump of more than 3 times
    the standard error of 3 repetitions (±0.0082). The KDE, with RKDE's h, moves by +0.01
    there: the jump is RKDE's weighting.
    >>> verdicts.mechanisms == (RKDE_JUMP,)
    True
    """
    stats = sweep_stats(results, metric)
    means, se = stats["mean"].unstack("method"), stats["se"].unstack("method")
    reps = int(stats["count"].max()) if len(stats) else 0
    name, lower = METRIC_NAMES.get(metric, metric), metric != "auc"
    versus = rivals = ""
    if challenger in means:
        rivals = _rivals(means, se, challenger, lower, reps)
        if "kde" in means:
            versus = _versus_kde(means, se, challenger, name, lower, reps)
    jumps, mechanisms = _jumps(means, se, name, reps, _axis_span(means, metric), lower)
    return SweepVerdicts(versus, rivals, tuple(jumps), tuple(mechanisms))


def _axis_span(means: pd.DataFrame, metric: str) -> float:
    """The height of a sweep figure's axis: 1 for the AUC ([0, 1]), else 0 to the highest mean."""
    return 1.0 if metric == "auc" else float(np.nanmax(means.to_numpy(), initial=0.0))


def mean_curves(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The lines a sweep figure draws: ``metric``'s mean of each method at each ratio.

    Parameters
    ----------
    results : DataFrame
        A tidy experiment table (columns ``method, ratio, metric, value`` at least).
    metric : str
        The figure's metric, e.g. ``"auc"``.

    Returns
    -------
    means : DataFrame
        Indexed by ratio, one column per method in the figures' drawing order (that of
        :func:`~momkde_core.plots.legend_order`, unknown methods last); NaN where a method
        has no result (the screened KDE is stored at three ratios).
    """
    means = sweep_stats(results, metric)["mean"].unstack("method")
    return means[legend_order(means)]


#: Two lines whose means stay closer than this share of the figure's axis at every ratio both
#: have draw one line (about a line's width and its markers on a 460-pixel figure): the later
#: one is dashed. The axis is [0, 1] for the AUC (so 0.015), 0 to the highest mean otherwise.
COINCIDE = 0.015
#: The dashes of coinciding lines, in drawing order (the first line of a group stays solid; no
#: dotted line, the chance line's style).
DASHES = ("dash", "dashdot", "longdash", "longdashdot")


@dataclass(frozen=True)
class CoincidingLines:
    """The lines of a sweep figure that would hide another (:func:`coinciding_lines`).

    Attributes
    ----------
    twins : dict of str to str
        Each method whose mean stays within ``tolerance`` of that of a method drawn before
        it, at every ratio both have, mapped to the first such method (in drawing order).
    tolerance : float
        :data:`COINCIDE` times the figure's axis span.
    metric : str
        The figure's metric.
    """

    twins: dict[str, str]
    tolerance: float
    metric: str

    @property
    def dashes(self) -> dict[str, str]:
        """The dash of each twin (:data:`DASHES` in turn), for ``metric_vs_ratio_figure``."""
        return dict(zip(self.twins, cycle(DASHES)))

    def __str__(self) -> str:
        """The caption's note: "Dashed lines coincide with another: RKDE and SPKDE within
        0.015 of KDE's mean AUC at every ratio shown (...)", or "" when no line hides another."""
        if not self.twins:
            return ""
        groups: dict[str, list[str]] = {}
        for method, earlier in self.twins.items():
            groups.setdefault(earlier, []).append(method_label(method))
        parts = "; ".join(
            f"{listed(labels)} within {self.tolerance:.2g} of {method_label(earlier)}'s"
            for earlier, labels in groups.items()
        )
        share = f", under {COINCIDE:.1%} of the axis" if self.metric != "auc" else ""
        return (
            f"Dashed lines coincide with another: {parts} mean "
            f"{METRIC_NAMES.get(self.metric, self.metric)} at every ratio shown{share} (drawn "
            "solid, they would hide it)."
        )


def coinciding_lines(results: pd.DataFrame, metric: str) -> CoincidingLines:
    """The lines of a sweep figure that coincide with one drawn before them.

    Parameters
    ----------
    results : DataFrame
        The table the figure draws (columns ``method, ratio, metric, value`` at least).
    metric : str
        The figure's metric.

    Returns
    -------
    lines : CoincidingLines
        Its ``dashes`` style the figure (``metric_vs_ratio_figure(..., dashes=...)``);
        ``str(lines)`` is the caption's note.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"metric": "auc", "ratio": [0.1, 0.2] * 3,
    ...                         "method": ["kde"] * 2 + ["rkde"] * 2 + ["spkde"] * 2,
    ...                         "value": [0.80, 0.70, 0.81, 0.70, 0.60, 0.70]})
    >>> lines = coinciding_lines(results, "auc")
    >>> lines.dashes
    {'rkde': 'dash'}
    >>> print(lines)  # doctest: +NORMALIZE_WHITESPACE
    Dashed lines coincide with another: RKDE within 0.015 of KDE's mean AUC at every ratio
    shown (drawn solid, they would hide it).
    """
    means = mean_curves(results, metric)
    tolerance = COINCIDE * _axis_span(means, metric)
    return CoincidingLines(_twins(means, tolerance), tolerance, metric)


def _twins(lines: pd.DataFrame, tolerance: float) -> dict[str, str]:
    """Each column of ``lines`` (in drawing order) that stays within ``tolerance`` of an
    earlier one wherever both are defined, mapped to the first such earlier column."""
    twins = {}
    for i, method in enumerate(lines):
        for earlier in lines.columns[:i]:
            gap = (lines[method] - lines[earlier]).abs().dropna()
            if len(gap) and gap.max() < tolerance:
                twins[method] = earlier
                break
    return twins


def coinciding_curves(
    curves: Mapping[str, np.ndarray], log_floor: float | None = None
) -> tuple[dict[str, str], str]:
    """The density curves of a 1-D figure that would hide an earlier one, their dashes and
    the caption's note.

    Two curves coincide when they stay within :data:`COINCIDE` of the axis' height of each
    other at every point: on a linear axis 0 to the highest peak, on a log axis (``log_floor``:
    its bottom, values below it drawn there) its decades, compared in log10. The true
    density (``"truth"``, drawn dashed) is left out.

    Parameters
    ----------
    curves : mapping of str to ndarray
        Method -> its values on the figure's grid, in drawing order.
    log_floor : float, optional
        The bottom of a log axis; None for a linear axis.

    Returns
    -------
    dashes : dict of str to str
        The dash of each curve that would hide an earlier one (``density_1d_figure``'s
        ``dashes``).
    note : str
        "SPKDE's curve is dashed: it stays within ... of RKDE's, ...", or "".

    Examples
    --------
    >>> import numpy as np
    >>> xs = np.linspace(-3, 3, 7)
    >>> bump = np.exp(-(xs**2))
    >>> coinciding_curves({"kde": bump, "rkde": bump * 1.001, "spkde": bump / 2})[0]
    {'rkde': 'dash'}
    """
    shown = {m: np.asarray(v, dtype=float) for m, v in curves.items() if m != "truth"}
    if not shown:
        return {}, ""
    frame = pd.DataFrame(shown)
    if log_floor is None:
        tolerance = COINCIDE * float(np.nanmax(frame.to_numpy(), initial=0.0))
        where = "of the axis' height"
    else:
        frame = np.log10(frame.clip(lower=log_floor))
        tolerance = COINCIDE * float(frame.to_numpy().max() - np.log10(log_floor))
        where = "of the log axis' decades"
    twins = _twins(frame, tolerance)
    if not twins:
        return {}, ""
    dashes = dict(zip(twins, cycle(DASHES)))
    notes = " ".join(
        f"{method_label(m)}'s curve is dashed: it stays within {COINCIDE:.1%} {where} of "
        f"{method_label(e)}'s, which a solid line would hide."
        for m, e in twins.items()
    )
    return dashes, notes


def below_chance(results: pd.DataFrame, why: str) -> str:
    """Which methods' mean AUC is below chance at which ratios, and why where every one is.

    Parameters
    ----------
    results : DataFrame
        The table of one AUC figure (columns ``method, ratio, metric, value`` at least).
    why : str
        Why every method falls below chance (the data set's or the scheme's reason): a
        clause, said of the ratios where every method shown is below chance.

    Returns
    -------
    text : str
        The methods below chance with their ratios (methods with the same ratios together,
        ratios as :func:`ratio_list` writes them), then the ratios where every method is,
        with ``why``; "" when no mean AUC is below chance.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"metric": "auc", "ratio": [0.1, 0.2, 0.3] * 3,
    ...                         "method": ["kde"] * 3 + ["rkde"] * 3 + ["mom_kde_auto"] * 3,
    ...                         "value": [0.6, 0.4, 0.3, 0.4, 0.6, 0.3, 0.7, 0.6, 0.4]})
    >>> print(below_chance(results, "the outliers are the densest group"))  # doctest: +NORMALIZE_WHITESPACE
    Mean AUC below 0.5 (chance): KDE at 0.2-0.3; MoM-KDE (auto) at 0.3; RKDE at 0.1, 0.3. Every
    method is below 0.5 at 0.3: the outliers are the densest group.
    """
    means = mean_curves(results[results["metric"] == "auc"], "auc")
    grid = list(means.index)
    groups: dict[tuple[float, ...], list[str]] = {}
    for method in means:
        ratios = tuple(means.index[(means[method] < CHANCE_AUC).to_numpy()])
        if ratios:
            groups.setdefault(ratios, []).append(method_label(method))
    if not groups:
        return ""
    everywhere = ratio_list([r for r in grid if (means.loc[r].dropna() < CHANCE_AUC).all()], grid)
    if list(groups.values()) == [[method_label(m) for m in means]]:  # one group: every method
        return f"Every method's mean AUC is below {CHANCE_AUC:g} (chance) at {everywhere}: {why}."
    text = "; ".join(f"{listed(labels)} at {ratio_list(r, grid)}" for r, labels in groups.items())
    text = f"Mean AUC below {CHANCE_AUC:g} (chance): {text}."
    return text + (
        f" Every method is below {CHANCE_AUC:g} at {everywhere}: {why}." if everywhere else ""
    )


def ratio_span(ratios: list[float]) -> str:
    """ "0.3-0.5" for a sorted run of ratios, "0.5" for one."""
    lo, hi = min(ratios), max(ratios)
    return f"{lo:g}" if math.isclose(lo, hi) else f"{lo:g}-{hi:g}"
