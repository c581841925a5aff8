"""Real data: AUC against the outlier ratio on the paper's six data sets.

Opens on the repository's full reproduction (the newest ``docs/results/real_honest_*reps``
table, read instantly), with a switch to re-run the sweep live with other settings; says
which protocol it shows and why some AUCs are below chance.
"""

from __future__ import annotations

import os

import streamlit as st

from app_support.captions import below_chance, ratio_span
from app_support.compute import (
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
)
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
    "MoM-KDE (S rule): a held-out S rule with the shared CV h.",
)

st.markdown(
    "Kim & Scott's protocol, as in the paper: one class plays the outliers, it is subsampled to each ratio, "
    "the features are standardised, and each density scores every point (low = outlier). **Honest** "
    "protocol: the bandwidth is cross-validated on the contaminated sample (shared by KDE, MoM-KDE (S rule), "
    f"RKDE and SPKDE); SPKDE and MoM-KDE (auto) are told a guessed share of {CONTAMINATION_GUESS:g}; the oracle "
    "keeps the S of best AUC (it reads the labels: an upper bound, not a method)."
)
missing = {name: dataset_problem(name, os.environ.get(DATA_DIR_ENV)) for name in chosen}
for name, problem in missing.items():
    if problem:
        st.info(f"**{name}** is not installed. {problem}", icon=":material/inventory_2:")
available = [name for name in chosen if not missing[name]]

with user_errors():
    if not methods:
        raise ValueError("choose at least one method")
    if not available:
        st.stop()
    if live:
        results = run_sweep("real", available, STEPS[step], reps, seed, runner_methods(methods))
        st.caption(f"Live run: {reps} repetition(s), seed {seed}.")
    else:
        stored = display_names(stored_results(stored_path))
        results = stored[stored["source"].isin(available) & stored["method"].isin(methods)]
        absent = [METHOD_LABELS[m] for m in methods if m not in set(stored["method"])]
        if absent:
            st.info(
                f"{', '.join(absent)}: not in the stored results; switch on the live run to see it."
            )
        st.caption(
            f"Stored reproduction `docs/results/{stored_path.name}`: {stored['rep'].nunique()} repetitions "
            f"at {stored['ratio'].nunique()} ratios (`momkde reproduce real`). Switch on the live run in "
            "the sidebar to change the settings."
        )
    cols = st.columns(2)
    for i, name in enumerate(available):
        with cols[i % 2]:
            part = results[results["source"] == name]
            st.plotly_chart(
                metric_vs_ratio_figure(part, "auc", title=f"{name}: AUC"),
                key=f"real_{name}",
                config={"displaylogo": False},
            )
            low = [r for _, r in below_chance(part)]
            means = part[part["method"] != "mom_kde_oracle"].groupby("method")["value"].mean()
            best = (
                means.idxmax() if len(means) else "mom_kde_oracle"
            )  # the oracle is a bound, not a method
            st.caption(
                f"Best on average: {METHOD_LABELS.get(best, best)}."
                + (
                    f" Below chance at ratio {ratio_span(low)}: {BELOW_CHANCE_WHY[name]}; no density "
                    "can call such outliers rare."
                    if low
                    else ""
                )
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
