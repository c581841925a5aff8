"""The captions of the experiments' figures (Sweep, Real data): each method's mean and standard
error per ratio, who wins where beyond the standard error, the jumps of a curve, and the AUCs
below chance."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pandas as pd

from momkde_core.plots import CHANCE_AUC, legend_order, method_label

from .text import listed, ratio_list

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
    results: pd.DataFrame, metric: str, challenger: str | None = "mom_kde"
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
    challenger : str or None, default "mom_kde"
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
    ...     rows("mom_kde", [0.05, 0.06, 0.07, 0.06, 0.11, 0.16, 0.15, 0.16, 0.17]),
    ...     rows("rkde", [0.10, 0.11, 0.12, 0.11, 0.12, 0.13, 0.01, 0.02, 0.03]),
    ... ])
    >>> verdicts = sweep_verdicts(results, "js")
    >>> verdicts.versus_kde  # doctest: +NORMALIZE_WHITESPACE
    'On JS, MoM-KDE beats the KDE at 1 of 3 ratios (0.1), ties with it at 0.2 (gap
    within the standard error of 3 repetitions) and loses at 0.3.'
    >>> verdicts.rivals
    'RKDE beats MoM-KDE at 1 of 3 ratios (0.3).'
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
    jumps, mechanisms = _jumps(means, se, name, reps, axis_span(means, metric), lower)
    return SweepVerdicts(versus, rivals, tuple(jumps), tuple(mechanisms))


def axis_span(means: pd.DataFrame, metric: str) -> float:
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
    ...                         "method": ["kde"] * 3 + ["rkde"] * 3 + ["mom_kde"] * 3,
    ...                         "value": [0.6, 0.4, 0.3, 0.4, 0.6, 0.3, 0.7, 0.6, 0.4]})
    >>> print(below_chance(results, "the outliers are the densest group"))  # doctest: +NORMALIZE_WHITESPACE
    Mean AUC below 0.5 (chance): KDE at 0.2-0.3; MoM-KDE at 0.3; RKDE at 0.1, 0.3. Every
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


def adbench_caption(
    per_set: pd.DataFrame, highlight: str, twins: Mapping[str, str], tolerance: float
) -> str:
    """What the ADBench dot plot shows: the AUC-ROC of each detector per set of ``per_set``
    (sets x detectors), the ``highlight``'s marker, and the detectors drawn as one (``twins``:
    detector -> the earlier one whose AUC-ROC is within ``tolerance`` on every set), with the
    largest gap between them.

    Examples
    --------
    >>> import pandas as pd
    >>> per_set = pd.DataFrame({"a": [0.5, 0.9], "b": [0.7, 0.8], "c": [0.5, 0.9]})
    >>> print(adbench_caption(per_set, "b", {"c": "a"}, 5e-4))  # doctest: +NORMALIZE_WHITESPACE
    Mean AUC-ROC of each detector on each of the 2 sets (the diamond: b, the library's
    default; dotted: chance). a and c give the same AUC-ROC on all 2 sets (largest gap
    0.0000): one marker, "a & c", draws both.
    """
    groups: dict[str, list[str]] = {}
    for detector, earlier in twins.items():
        groups.setdefault(earlier, [earlier]).append(detector)
    same = [
        f"{listed(group)} give the same AUC-ROC on all {len(per_set)} sets (largest gap "
        f"{(per_set[group].max(axis=1) - per_set[group].min(axis=1)).max():.4f}): one marker, "
        f'"{" & ".join(group)}", draws {"both" if len(group) == 2 else "them all"}.'
        for group in groups.values()
    ]
    return " ".join(
        [
            f"Mean AUC-ROC of each detector on each of the {len(per_set)} sets (the diamond: "
            f"{highlight}, the library's default; dotted: chance).",
            *same,
        ]
    )


def adbench_standing(summary: pd.DataFrame, highlight: str) -> str:
    """Where ``highlight`` stands in the ADBench table ``summary`` (detectors x "mean
    AUC-ROC", "mean AP", "average rank"): its place on each measure (1 = best; the higher
    the better for the means, the lower for the rank; ties share the better place) and the
    leader of each measure it does not lead.

    Examples
    --------
    >>> import pandas as pd
    >>> summary = pd.DataFrame(
    ...     {"mean AUC-ROC": [0.74, 0.73], "mean AP": [0.40, 0.43], "average rank": [4.2, 3.8]},
    ...     index=["ours", "hbos"],
    ... )
    >>> print(adbench_standing(summary, "ours"))  # doctest: +NORMALIZE_WHITESPACE
    Of the 2 detectors, ours is 1st by mean AUC-ROC (0.740), 2nd by mean AP (0.400; hbos
    0.430) and 2nd by average rank (4.20; hbos 3.80).
    """
    parts = []
    for column, best_high, fmt in (
        ("mean AUC-ROC", True, ".3f"),
        ("mean AP", True, ".3f"),
        ("average rank", False, ".2f"),
    ):
        values = summary[column]
        own = values[highlight]
        place = int((values > own).sum() if best_high else (values < own).sum()) + 1
        leader = values.idxmax() if best_high else values.idxmin()
        beside = "" if place == 1 else f"; {leader} {values[leader]:{fmt}}"
        parts.append(f"{_ordinal(place)} by {column} ({own:{fmt}}{beside})")
    return f"Of the {len(summary)} detectors, {highlight} is {parts[0]}, {parts[1]} and {parts[2]}."


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
