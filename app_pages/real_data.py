"""Real data: AUC against the outlier ratio on the paper's six data sets."""

from __future__ import annotations

import os

import streamlit as st

from app_support.compute import dataset_problem, run_sweep
from app_support.widgets import url, user_errors
from momkde_core.datasets import DATA_DIR_ENV, DATASETS
from momkde_core.plots import METHOD_LABELS, metric_vs_ratio_figure

REAL_METHODS = ("kde", "mom_kde", "mom_kde_oracle", "rkde", "spkde")
RATIOS = {"paper (0.05 … 0.5)": [round(0.05 * k, 2) for k in range(1, 11)], "quick (0.1 … 0.5)": [0.1, 0.2, 0.3, 0.4, 0.5]}

st.title("Real data")
st.markdown("Kim & Scott's protocol, as in the paper: one class plays the outliers, it is subsampled to each "
            "ratio, the features are standardised, and each density scores every point (low = outlier).")
side = st.sidebar
chosen = side.multiselect("Data sets", DATASETS, default=["iris", "breast_cancer"], **url("sets"))
grid_name = side.segmented_control("Ratios", list(RATIOS), default="quick (0.1 … 0.5)", **url("ratios"))
reps = side.slider("Repetitions", 1, 50, 3, **url("reps"), help="The paper uses 50.")
methods = side.multiselect("Methods", REAL_METHODS, default=["kde", "mom_kde", "rkde", "spkde"],
                           format_func=METHOD_LABELS.get, **url("methods"))
seed = int(side.number_input("Seed", 0, 10_000, 0, **url("seed")))

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
    results = run_sweep("real", available, RATIOS[grid_name or "quick (0.1 … 0.5)"], reps, seed, tuple(methods))
    cols = st.columns(2)
    for i, name in enumerate(available):
        with cols[i % 2]:
            st.plotly_chart(metric_vs_ratio_figure(results[results["source"] == name], "auc", title=f"{name}: AUC"),
                            key=f"real_{name}", config={"displaylogo": False})
    st.caption("AUC of each density as an outlier score against the true outlier class (higher is better; "
               "0.5 is chance), mean ± std over the repetitions.")
    st.download_button("Download the results (CSV)", results.to_csv(index=False), file_name="momkde_real_data.csv",
                       mime="text/csv", key="download")
