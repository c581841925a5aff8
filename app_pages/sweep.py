"""Contamination sweep: the paper's figures live, JS / KL / AUC against the outlier ratio."""

from __future__ import annotations

import streamlit as st

from app_support.compute import run_sweep
from app_support.widgets import SCHEME_LABELS, url, user_errors
from momkde_core.experiments import SYNTHETIC_SCHEMES
from momkde_core.plots import METHOD_LABELS, metric_vs_ratio_figure

SWEEP_METHODS = ("kde", "mom_kde", "mom_kde_oracle", "rkde", "spkde")
FIGURES = {
    "js": "Jensen-Shannon divergence to the true density (lower is better).",
    "kl_fhat_f": "KL(f̂ ‖ f): mass the estimate puts where the true density has little, e.g. on outliers.",
    "kl_f_fhat": "KL(f ‖ f̂): mass of the true density the estimate misses.",
    "auc": "AUC of the density as an outlier score (higher is better).",
}

st.title("Contamination sweep")
st.markdown("The paper's experiment, live: for each outlier ratio, draw a contaminated sample several times, "
            "fit every estimator (one cross-validated h for all) and score it. Lines are means over the "
            "repetitions, bands ± one standard deviation.")
side = st.sidebar
scheme = side.selectbox("Contamination scheme", SYNTHETIC_SCHEMES, format_func=SCHEME_LABELS.get, **url("scheme"))
dim = side.segmented_control("Dimension", [1, 2], default=1, **url("dim")) or 1
step = side.segmented_control("Ratio step", [0.1, 0.05], default=0.1, **url("step"),
                              help="0.05 is the paper's grid (twice the work).") or 0.1
n_inliers = side.select_slider("Inliers", [200, 500, 1000], value=500, **url("n"))
reps = side.slider("Repetitions", 1, 20, 3, **url("reps"), help="The paper uses 10.")
methods = side.multiselect("Methods", SWEEP_METHODS, default=["kde", "mom_kde", "rkde", "spkde"],
                           format_func=METHOD_LABELS.get, **url("methods"),
                           help="MoM-KDE picks S with a label-free rule; the oracle tries 20 values of S "
                                "and keeps the best JS (it needs the true density, as in the paper).")
seed = int(side.number_input("Seed", 0, 10_000, 0, **url("seed")))
ratios = [round(step * k, 2) for k in range(1, int(round(0.5 / step)) + 1)]

with user_errors():
    if not methods:
        raise ValueError("choose at least one method")
    results = run_sweep("synthetic", [scheme], ratios, reps, seed, tuple(methods), dim=dim, n_inliers=n_inliers)
    cols = st.columns(2)
    for i, (metric, sentence) in enumerate(FIGURES.items()):
        with cols[i % 2]:
            st.plotly_chart(metric_vs_ratio_figure(results, metric), key=f"sweep_{metric}",
                            config={"displaylogo": False})
            st.caption(sentence)
    st.download_button("Download the results (CSV)", results.to_csv(index=False),
                       file_name=f"momkde_sweep_{scheme}_{dim}d.csv", mime="text/csv", key="download")
