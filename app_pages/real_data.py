"""Real data: AUC against the outlier ratio on the paper's six data sets.

Opens on the repository's full reproduction (the newest ``docs/results/real_honest_*reps``
table, read instantly, with the screened KDE's stored results beside it), with a switch to
re-run the sweep live with other settings. Stored results need no data set files: only a
live run does. Says which protocol it shows, why some AUCs are below chance, and which lines
are drawn dashed because they coincide.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from app_support.cache import adbench_tables, dataset_problem, run_sweep, stored_results
from app_support.captions.coinciding import coinciding_lines
from app_support.captions.sweep import (
    adbench_caption,
    adbench_standing,
    below_chance,
    mean_curves,
)
from app_support.captions.text import listed
from app_support.figures import adbench_figure
from app_support.results import (
    ADBENCH_DEFAULT,
    ADBENCH_SAME,
    RESULTS_DIR,
    SWEEP_DEFAULTS,
    SWEEP_METHODS,
    adbench_path,
    adbench_twins,
    display_names,
    latest_results,
    runner_methods,
)
from app_support.widgets import methods_select, url, url_choice, user_errors
from momkde_core.datasets import DATA_DIR_ENV, DATASETS
from momkde_core.experiments import CONTAMINATION_GUESS
from momkde_core.io import to_csv_text
from momkde_core.methods import method_label
from momkde_core.plots import metric_vs_ratio_figure

#: The screened KDE's stored results: run after the reproduction on the same samples (same
#: seeds), at three of its ratios (docs/reproduction.md).
SCREENED_RESULTS = RESULTS_DIR / "real_honest_screened.csv.gz"
#: The methods whose h is the one cross-validated on the contaminated sample, and those told
#: the guessed share (the robust h is chosen for it), in the Methods box's order.
CV_H = ("kde", "mom_kde_rule", "mom_kde_oracle", "rkde", "spkde")
TOLD = ("mom_kde", "kde_robust", "spkde", "screened_kde")
STEPS = {0.05: [round(0.05 * k, 2) for k in range(1, 11)], 0.1: [0.1, 0.2, 0.3, 0.4, 0.5]}
#: The ADBench table's short column names (its columns fit a projector's width).
ADBENCH_SHORT = {
    "mean AUC-ROC": "AUC-ROC",
    "mean AP": "AP",
    "average rank": "rank",
    "time / IsolationForest": "time / IF",
}
#: Why a data set's AUC falls below chance (docs/reproduction.md; the authors' own results agree).
BELOW_CHANCE_WHY = {
    "digits": "the zeros are the most compact class in that 64-d space, so every density ranks them as typical",
    "iris": "setosa is a tight, well-separated cluster: once it is a large share, it is the densest group",
    "titanic": "its three coarse features leave few distinct rows, shared by the died and survived classes",
    "banana": "at high ratios the outlier class is as large and as dense as the inliers",
    "german": "the two credit classes overlap almost entirely in feature space",
    "breast_cancer": "the malignant class is spread, but at high ratios it is no longer rare",
}


def protocol_text(methods: list[str]) -> str:
    """The page's introduction: the protocol, said of the methods drawn.

    Parameters
    ----------
    methods : list of str
        The methods chosen in the Methods box (the figures' lines).

    Returns
    -------
    text : str
        How the data are contaminated and scored, which of the drawn methods share the
        cross-validated h and which are told the guessed share, the oracle's nature when it
        is drawn, and the methods the Methods box adds.
    """
    labels = {group: [method_label(m) for m in group if m in methods] for group in (CV_H, TOLD)}
    clauses = [
        f"the bandwidth of {listed(labels[CV_H])} is cross-validated on the contaminated sample "
        "(one h, shared)"
        if labels[CV_H]
        else "",
        f"{listed(labels[TOLD])} {'are' if len(labels[TOLD]) > 1 else 'is'} told a guessed share "
        f"of {CONTAMINATION_GUESS:g}"
        if labels[TOLD]
        else "",
        "the oracle keeps the S of best AUC (it reads the labels: an upper bound, not a method)"
        if "mom_kde_oracle" in methods
        else "",
    ]
    offered = [method_label(m) for m in SWEEP_METHODS if m not in methods]
    return (
        "Kim & Scott's protocol, as in the paper: one class plays the outliers, it is subsampled "
        "to each ratio, the features are standardised, and each density scores every point (low = "
        "outlier). **Honest** protocol: "
        + "; ".join(c for c in clauses if c)
        + "."
        + (f" The Methods box also offers {listed(offered)}." if offered else "")
    )


def adbench_section() -> None:
    """ADBench: where each detector wins. The stored benchmark results (in the repository: no
    data set needed) as a table per detector and a dot plot of the AUC-ROC per set."""
    st.subheader("ADBench: where each detector wins")
    path = adbench_path()
    if path is None:
        st.info("No stored ADBench results in docs/results.")
        return
    summary, per_set, n_seeds = adbench_tables(path)
    st.markdown(
        "How the library's detectors and the usual peers rank the rows of the public "
        "outlier-detection benchmark. The library's default detector, "
        f"**{ADBENCH_DEFAULT}**, needs no share of outliers to rank the rows (the stated "
        "share only sets the threshold)."
    )
    # a table, not a data frame: long detector names wrap in their cells instead of being
    # cut or scrolled on a projector's narrow column
    st.table(
        summary.reset_index()
        .rename(columns=ADBENCH_SHORT)
        .style.format("{:.3f}", subset=["AUC-ROC", "AP"])
        .format("{:.2f}", subset=["rank", "time / IF"]),
        hide_index=True,
    )
    st.caption(
        "Per detector, over the sets: mean AUC-ROC, mean average precision (AP), average "
        "rank of the AUC-ROC (1 = best), total time over IsolationForest's (IF). "
        + (adbench_standing(summary, ADBENCH_DEFAULT) if ADBENCH_DEFAULT in summary.index else "")
    )
    twins = adbench_twins(per_set)
    st.plotly_chart(
        adbench_figure(per_set, ADBENCH_DEFAULT, twins),
        key="adbench",
        config={"displaylogo": False},
    )
    st.caption(adbench_caption(per_set, ADBENCH_DEFAULT, twins, ADBENCH_SAME))
    with st.expander("Source and protocol"):
        st.caption(
            f"Source: ADBench (Han et al., NeurIPS 2022), {len(per_set)} classical sets, "
            f"{n_seeds} seeds, its unsupervised protocol; the sets' original sources per "
            "ADBench's paper. Each set's value is the mean over its seeds. Stored results "
            f"`docs/results/{path.name}`; the choice of the default and the protocol: "
            "docs/anomaly.md."
        )


st.title("Real data")
#: The page's two views (the URL holds the chosen one's name): the paper's data sets, and
#: the ADBench benchmark of the detectors.
VIEWS = ("Six data sets", "ADBench")
view = (
    st.segmented_control(
        "Show",
        VIEWS,
        **url_choice("view", VIEWS[0]),
        help="Six data sets: the paper's reproduction (AUC against the outlier ratio). "
        "ADBench: where each detector wins on the public outlier-detection benchmark.",
    )
    or VIEWS[0]
)
if view == "ADBench":
    adbench_section()
    st.stop()
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
            **url_choice("step", 0.1),
            help="0.05 is the paper's grid (twice the work).",
        )
        or 0.1
    )
    reps = side.slider("Repetitions", 1, 50, 3, **url("reps"), help="The paper uses 50.")
    seed = int(side.number_input("Seed", 0, 10_000, 0, **url("seed")))
methods = methods_select(
    side,
    SWEEP_METHODS,
    default=SWEEP_DEFAULTS,
    help="MoM-KDE: S = 2⌈εn⌉+1 and the robust h (the library's defaults). "
    "MoM-KDE (S rule): a held-out S rule with the shared CV h. Screened KDE: MoM-KDE as a "
    "screen, then a KDE with its own CV h on the rows kept (stored at three ratios).",
)

st.markdown(protocol_text(methods))
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
            f"{listed(f'**{name}**' for name in uninstalled)}: drawn from the stored "
            "results, which need no data. A new run (*Re-run live*) needs "
            f"{'their files' if len(uninstalled) > 1 else 'its file'}, not installed here.",
            icon=":material/inventory_2:",
        )
        with st.expander(f"How to install {listed(uninstalled)}"):
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
            if SCREENED_RESULTS.exists() and "screened_kde" not in main["method"].unique()
            else main.iloc[:0]
        )
        stored = display_names(pd.concat([main, screened], ignore_index=True))
        results = stored[stored["source"].isin(shown) & stored["method"].isin(methods)]
        kept = set(stored["method"].unique())  # (once: the table has some 10⁵ rows)
        absent = [method_label(m) for m in methods if m not in kept]
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
            coinciding = coinciding_lines(part, "auc")
            st.plotly_chart(
                metric_vs_ratio_figure(
                    part, "auc", title=f"{name}: AUC", band="se", dashes=coinciding.dashes
                ),
                key=f"real_{name}",
                config={"displaylogo": False},
            )
            # the oracle is a bound, not a method; every method is compared on the same ratios
            means = mean_curves(part, "auc")
            ranked = means.drop(columns="mom_kde_oracle", errors="ignore").dropna()
            best = ranked.mean().idxmax() if ranked.size else "mom_kde_oracle"
            partial = (
                f" (at the ratios every method shown has: {', '.join(f'{r:g}' for r in ranked.index)})"
                if ranked.size and len(ranked) < len(means)
                else ""
            )
            why = f"{BELOW_CHANCE_WHY[name]}; no density can call such outliers rare"
            text = [
                f"Best on average: {method_label(best)}{partial}.",
                below_chance(part, why),
                str(coinciding),
            ]
            st.caption(" ".join(t for t in text if t))
    st.caption(
        "AUC of each density as an outlier score against the true outlier class (higher is better; "
        "dotted: chance, 0.5): the mean over the repetitions, in a band of ± one standard error of "
        "that mean. Below 0.5 the outlier class is denser than the inliers: a density-based "
        "detector cannot find it, whichever estimator it uses."
    )
    st.download_button(
        "Download the results (CSV)",
        to_csv_text(results),
        file_name="momkde_real_data.csv",
        mime="text/csv",
        key="download",
    )
