"""Real data: AUC against the outlier ratio on the paper's six data sets.

Opens on the repository's full reproduction (the newest ``docs/results/real_honest_*reps``
table, read instantly, with the screened KDE's stored results beside it), with a switch to
re-run the sweep live with other settings. Stored results need no data set files: only a
live run does. Says which protocol it shows, why some AUCs are below chance, and which lines
are drawn dashed because they coincide.
"""

from __future__ import annotations

import itertools
import os

import pandas as pd
import streamlit as st

from app_support.captions import below_chance, ratio_span
from app_support.compute import (
    RESULTS_DIR,
    dataset_problem,
    display_names,
    latest_results,
    run_sweep,
    runner_methods,
    stored_results,
)
from app_support.widgets import methods_select, url, user_errors
from momkde_core.datasets import DATA_DIR_ENV, DATASETS
from momkde_core.experiments._runner import CONTAMINATION_GUESS
from momkde_core.io._csv_safety import to_csv_text
from momkde_core.plots import METHOD_LABELS, metric_vs_ratio_figure

REAL_METHODS = (
    "kde",
    "mom_kde_auto",
    "kde_robust",
    "mom_kde_rule",
    "mom_kde_oracle",
    "rkde",
    "spkde",
    "screened_kde",
)
#: The screened KDE's stored results: run after the reproduction on the same samples (same
#: seeds), at three of its ratios (docs/reproduction.md).
SCREENED_RESULTS = RESULTS_DIR / "real_honest_screened.csv.gz"
#: Two methods whose mean AUCs stay within this of each other at every ratio both have draw
#: one line (about a line's width and its markers on the [0, 1] axis): the later one dashed.
COINCIDE = 0.015
#: The dashes of coinciding lines, in drawing order (the first line of a group stays solid;
#: no dotted line, the chance line's style).
DASHES = ("dash", "dashdot", "longdash", "longdashdot")
STEPS = {0.05: [round(0.05 * k, 2) for k in range(1, 11)], 0.1: [0.1, 0.2, 0.3, 0.4, 0.5]}
#: Why a data set's AUC falls below chance (docs/reproduction.md; the authors' own results agree).
BELOW_CHANCE_WHY = {
    "digits": "the zeros are the most compact class in that 64-d space, so every density ranks them as typical",
    "iris": "setosa is a tight, well-separated cluster: once it is a large share, it is the densest group",
    "titanic": "its three coarse features leave few distinct rows, shared by the died and survived classes",
    "banana": "at high ratios the outlier class is as large and as dense as the inliers",
    "german": "the two credit classes overlap almost entirely in feature space",
    "breast_cancer": "the malignant class is spread, but at high ratios it is no longer rare",
}


def mean_curves(part: pd.DataFrame) -> pd.DataFrame:
    """The mean AUC of each method at each ratio.

    Parameters
    ----------
    part : DataFrame
        The results of one data set (columns ``method, ratio, value``).

    Returns
    -------
    means : DataFrame
        One row per method, in drawing order, one column per ratio; NaN where a method has
        no result (the screened KDE is stored at three ratios).
    """
    means = part.groupby(["method", "ratio"])["value"].mean().unstack("ratio")
    return means.reindex([m for m in METHOD_LABELS if m in means.index])


def coinciding(means: pd.DataFrame) -> dict[str, str]:
    """The methods whose lines would hide another's.

    Parameters
    ----------
    means : DataFrame
        What :func:`mean_curves` returns.

    Returns
    -------
    twins : dict of str to str
        Each method whose mean curve stays within :data:`COINCIDE` of a method drawn before
        it, at every ratio both have, mapped to the first such method.
    """
    twins = {}
    for i, method in enumerate(means.index):
        for earlier in means.index[:i]:
            gap = (means.loc[method] - means.loc[earlier]).abs().dropna()
            if len(gap) and gap.max() < COINCIDE:
                twins[method] = earlier
                break
    return twins


def listing(names: list[str]) -> str:
    """Names joined for a sentence.

    Parameters
    ----------
    names : list of str
        At least one name.

    Returns
    -------
    text : str
        "A", "A and B", "A, B and C".
    """
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]


def coincide_note(twins: dict[str, str]) -> str:
    """The caption's note on the dashed lines.

    Parameters
    ----------
    twins : dict of str to str
        What :func:`coinciding` returns.

    Returns
    -------
    note : str
        "Dashed lines coincide with another: RKDE and SPKDE within 0.015 of KDE's mean AUC
        at every ratio shown (...)", or "" when no line hides another.
    """
    if not twins:
        return ""
    groups: dict[str, list[str]] = {}
    for method, earlier in twins.items():
        groups.setdefault(earlier, []).append(METHOD_LABELS[method])
    parts = [
        f"{listing(labels)} within {COINCIDE:g} of {METHOD_LABELS[earlier]}'s"
        for earlier, labels in groups.items()
    ]
    return (
        f" Dashed lines coincide with another: {'; '.join(parts)} mean AUC at every ratio "
        "shown (drawn solid, they would hide it)."
    )


st.title("Real data")
side = st.sidebar
chosen = side.multiselect("Data sets", DATASETS, default=["iris", "breast_cancer"], **url("sets"))
stored_path = latest_results("real_honest")
live = side.toggle(
    "Re-run live with other settings",
    value=stored_path is None,
    **url("live"),
    help="Off: the repository's full reproduction, instantly. On: run the sweep here "
    "(10-90 s, depending on the data sets and repetitions).",
)
if live:
    step = (
        side.segmented_control(
            "Ratio step",
            list(STEPS),
            default=0.1,
            **url("step"),
            help="0.05 is the paper's grid (twice the work).",
        )
        or 0.1
    )
    reps = side.slider("Repetitions", 1, 50, 3, **url("reps"), help="The paper uses 50.")
    seed = int(side.number_input("Seed", 0, 10_000, 0, **url("seed")))
methods = methods_select(
    side,
    REAL_METHODS,
    default=("kde", "mom_kde_auto", "rkde", "spkde"),
    help="MoM-KDE (auto): S = 2⌈εn⌉+1 and the robust h (the library's defaults). "
    "MoM-KDE (S rule): a held-out S rule with the shared CV h. Screened KDE: MoM-KDE as a "
    "screen, then a KDE with its own CV h on the rows kept (stored at three ratios).",
)

st.markdown(
    "Kim & Scott's protocol, as in the paper: one class plays the outliers, it is subsampled to each ratio, "
    "the features are standardised, and each density scores every point (low = outlier). **Honest** "
    "protocol: the bandwidth is cross-validated on the contaminated sample (shared by KDE, MoM-KDE (S rule), "
    f"RKDE and SPKDE); SPKDE, MoM-KDE (auto) and the screened KDE are told a guessed share of "
    f"{CONTAMINATION_GUESS:g}; the oracle keeps the S of best AUC (it reads the labels: an upper bound, "
    "not a method)."
)
missing = {name: dataset_problem(name, os.environ.get(DATA_DIR_ENV)) for name in chosen}
uninstalled = [name for name in chosen if missing[name]]
if live:  # only a new run reads the data sets
    for name in uninstalled:
        st.info(
            f"**{name}** is not installed: a live run needs its file. {missing[name]}",
            icon=":material/inventory_2:",
        )
    shown = [name for name in chosen if not missing[name]]
else:
    shown = list(chosen)
    if uninstalled:
        st.info(
            f"{listing([f'**{name}**' for name in uninstalled])}: drawn from the stored "
            "results, which need no data. A new run (*Re-run live*) needs "
            f"{'their files' if len(uninstalled) > 1 else 'its file'}, not installed here.",
            icon=":material/inventory_2:",
        )
        with st.expander(f"How to install {listing(uninstalled)}"):
            for name in uninstalled:
                st.markdown(f"**{name}**: {missing[name]}")

with user_errors():
    if not methods:
        raise ValueError("choose at least one method")
    if not shown:
        st.stop()
    if live:
        results = run_sweep("real", shown, STEPS[step], reps, seed, runner_methods(methods))
        st.caption(f"Live run: {reps} repetition(s), seed {seed}.")
    else:
        main = stored_results(stored_path)
        screened = (
            stored_results(SCREENED_RESULTS)
            if SCREENED_RESULTS.exists() and "screened_kde" not in set(main["method"])
            else main.iloc[:0]
        )
        stored = display_names(pd.concat([main, screened], ignore_index=True))
        results = stored[stored["source"].isin(shown) & stored["method"].isin(methods)]
        absent = [METHOD_LABELS[m] for m in methods if m not in set(stored["method"])]
        if absent:
            st.info(
                f"{', '.join(absent)}: not in the stored results; switch on the live run to see it."
            )
        screened_note = (
            f" The screened KDE: `docs/results/{SCREENED_RESULTS.name}`, {screened['rep'].nunique()} "
            f"repetitions at the ratios {', '.join(f'{r:g}' for r in sorted(screened['ratio'].unique()))} "
            "on the same samples (the same seeds)."
            if "screened_kde" in methods and len(screened)
            else ""
        )
        st.caption(
            f"Stored reproduction `docs/results/{stored_path.name}`: {main['rep'].nunique()} repetitions "
            f"at {main['ratio'].nunique()} ratios (`momkde reproduce real`).{screened_note} Stored "
            "results are read, not computed: they need no data set file. Switch on the live run in "
            "the sidebar to change the settings (that run needs the files)."
        )
    cols = st.columns(2)
    for i, name in enumerate(shown):
        with cols[i % 2]:
            part = results[results["source"] == name]
            fig = metric_vs_ratio_figure(part, "auc", title=f"{name}: AUC")
            means = mean_curves(part)
            twins = coinciding(means)
            for method, dash in zip(twins, itertools.cycle(DASHES)):
                fig.update_traces(line_dash=dash, selector=dict(name=METHOD_LABELS[method]))
            st.plotly_chart(fig, key=f"real_{name}", config={"displaylogo": False})
            low = [r for _, r in below_chance(part)]
            # the oracle is a bound, not a method; every method is compared on the same ratios
            ranked = means.drop(index="mom_kde_oracle", errors="ignore").dropna(axis=1)
            best = ranked.mean(axis=1).idxmax() if len(ranked) else "mom_kde_oracle"
            partial = (
                f" (at the ratios every method shown has: {', '.join(f'{r:g}' for r in ranked.columns)})"
                if len(ranked) and ranked.shape[1] < means.shape[1]
                else ""
            )
            st.caption(
                f"Best on average: {METHOD_LABELS.get(best, best)}{partial}."
                + (
                    f" Below chance at ratio {ratio_span(low)}: {BELOW_CHANCE_WHY[name]}; no density "
                    "can call such outliers rare."
                    if low
                    else ""
                )
                + coincide_note(twins)
            )
    st.caption(
        "AUC of each density as an outlier score against the true outlier class (higher is better; "
        "dotted: chance, 0.5), mean ± std over the repetitions. Below 0.5 the outlier class is denser "
        "than the inliers: a density-based detector cannot find it, whichever estimator it uses."
    )
    st.download_button(
        "Download the results (CSV)",
        to_csv_text(results),
        file_name="momkde_real_data.csv",
        mime="text/csv",
        key="download",
    )
